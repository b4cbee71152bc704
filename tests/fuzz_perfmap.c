/* fuzz_perfmap - libFuzzer target: the /tmp/perf-PID.map reader.
 *
 * The input is written as the perf map of a pid that cannot exist
 * (above the kernel's pid limit), owned by us as the reader's owner rule
 * wants, for a symbolizer that maps anonymous (JIT) memory there; then
 * the functions at the start, middle and end of the first entries and at
 * a few fixed addresses are looked up: the parse, the sort, the newest
 * entry at one address, the lookup and the demangler.
 * Corpus: tests/fuzz-corpus/perfmap.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/util.h"
#include "symbolize/symbolizer.h"

#define FAKE_PID 99999999      /* pid_max is at most 2^22 */

static char path[64];

static void remove_map(void)
{
	unlink(path);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	warnings_quiet = true;
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", FAKE_PID);
	atexit(remove_map);
	return 0;
}

static void look(struct symbolizer *s, uint64_t addr)
{
	struct func_info fi;
	volatile size_t n = 0;

	if (symbolizer_function(s, FAKE_PID, addr, &fi) && fi.name)
		n += strlen(fi.name) + (fi.end > fi.start);
	(void)n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct symbolizer *s;
	FILE *f = fopen(path, "w");
	char *text, *line, *save = NULL;

	if (!f)
		return 0;
	fwrite(data, 1, size, f);
	fclose(f);
	s = symbolizer_new();
	symbolizer_add_mapping(s, FAKE_PID, 0x1000, UINT64_C(0x7ffffffff000), 0,
			       PROT_READ | PROT_EXEC, "");
	/* the addresses the input names */
	text = xmalloc(size + 1);
	memcpy(text, data, size);
	text[size] = '\0';
	for (line = strtok_r(text, "\n", &save), size = 0; line && size < 8;
	     line = strtok_r(NULL, "\n", &save), size++) {
		uint64_t start, len;

		if (sscanf(line, "%" SCNx64 " %" SCNx64, &start, &len) == 2) {
			look(s, start);
			look(s, start + len / 2);
			look(s, start + len - 1);
		}
	}
	free(text);
	look(s, 0x1000);
	look(s, 0x400000);
	look(s, UINT64_C(0x7f0000000000));
	symbolizer_free(s);
	return 0;
}
