/* symbolizer_paths.c - source file names: made absolute against the
 * compilation directory and normalized without the file system, and told
 * apart as system headers or the user's own code.
 */
#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize/symbolizer.h"
#include "symbolize/symbolizer_internal.h"
#include "common/util.h"

bool symbolizer_system_source(const char *file)
{
	static const char *const prefixes[] = {
		"/usr/include/", "/usr/local/include/", "/usr/lib/gcc/", "/usr/lib/llvm",
	};

	if (!file)
		return false;
	for (size_t i = 0; i < ARRAY_SIZE(prefixes); i++)
		if (!strncmp(file, prefixes[i], strlen(prefixes[i])))
			return true;
	/* Rust's standard library, as rustc names its sources in a
	 * release's DWARF: /rustc/<commit>/library/core/src/sync/atomic.rs;
	 * in a distribution's rustc, where it built it:
	 * /usr/src/rustc-1.63.0/library/core/src/sync/atomic.rs (Debian) */
	if ((!strncmp(file, "/rustc/", 7) || !strncmp(file, "/usr/src/rustc-", 15)) &&
	    strstr(file, "/library/"))
		return true;
	return strstr(file, "/include/c++/") != NULL;
}

bool symbolizer_system_module(const char *path)
{
	static const char *const prefixes[] = { "/lib/", "/lib64/", "/usr/lib/", "/usr/lib64/" };

	for (size_t i = 0; path && i < ARRAY_SIZE(prefixes); i++)
		if (!strncmp(path, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

char *symbolizer_source_under(const char *comp_dir, const char *file)
{
	char *joined;

	if (!file || file[0] == '/' || !comp_dir || comp_dir[0] != '/')
		return NULL;
	joined = xasprintf("%s/%s", comp_dir, file);
	path_normalize(joined);
	return joined;
}

/* Source files named relative to the compilation directory become
 * absolute, so that editors, CI annotations and --annotate find them
 * from anywhere. */
const char *absolute_source(struct symbolizer *s, Dwarf_Die *cudie, const char *file)
{
	Dwarf_Attribute attr;
	char *joined = symbolizer_source_under(
		dwarf_formstring(dwarf_attr(cudie, DW_AT_comp_dir, &attr)), file);
	const char *ret = intern_str(s, joined ? joined : file);

	free(joined);
	return ret;
}
