/* fuzz_maps - libFuzzer target: /proc/PID/maps lines and the mapping
 * tables they feed.
 *
 * Each input line goes through parse_maps_line() (common/procfs.h), and
 * what parses is added to a symbolizer's table as an MMAP record would
 * be, in order: overlaps, splits, the versions of a different file mapped
 * over another (symbolizer.h), an exec half way.  Then addresses from
 * the lines are pinned and looked up (symbolizer_versioned,
 * symbolizer_find_mapping: no file is opened).
 * Corpus: tests/fuzz-corpus/maps (real maps files, dlclose/dlopen ones).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/procfs.h"
#include "common/util.h"
#include "symbolize/symbolizer.h"

#define PID 4242
#define MAX_LINES 256

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	warnings_quiet = true;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct symbolizer *s = symbolizer_new();
	uint64_t pinned[MAX_LINES];
	char *text = xmalloc(size + 1), *line, *save = NULL;
	unsigned n = 0, lines = 0;

	memcpy(text, data, size);
	text[size] = '\0';
	for (line = strtok_r(text, "\n", &save); line && lines < MAX_LINES;
	     line = strtok_r(NULL, "\n", &save), lines++) {
		uint64_t start, end, pgoff;
		uint32_t prot;
		const char *name;

		if (!parse_maps_line(line, &start, &end, &pgoff, &prot, &name))
			continue;
		if (end <= start || name < line || name > line + strlen(line))
			abort();        /* what parse_maps_line promises */
		if (lines == MAX_LINES / 2)
			symbolizer_exec(s, PID);
		symbolizer_add_mapping(s, PID, start, end - start, pgoff, prot, name);
		pinned[n++] = symbolizer_versioned(s, PID, start + (end - start) / 2);
	}
	symbolizer_sampling_done(s);
	for (unsigned i = 0; i < n; i++) {
		const struct mapping *m = symbolizer_find_mapping(s, PID, pinned[i]);
		uint64_t plain = symbolizer_plain(pinned[i]);

		if (m && (plain < m->start || plain >= m->end))
			abort();        /* a mapping that does not hold the address */
	}
	free(text);
	symbolizer_free(s);
	return 0;
}
