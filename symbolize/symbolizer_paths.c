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
	return strstr(file, "/include/c++/") != NULL;
}

/* "dir/../x.c" -> "x.c", "a/./b" -> "a/b", in place; no file system. */
static void normalize_path(char *path)
{
	char *out = path, *p = path;
	bool abs = *path == '/';

	while (*p) {
		char *seg = p, *end = strchrnul(p, '/');
		size_t len = (size_t)(end - seg);

		p = *end ? end + 1 : end;
		if (!len || (len == 1 && seg[0] == '.'))
			continue;
		if (len == 2 && seg[0] == '.' && seg[1] == '.') {
			char *prev = out > path ? memrchr(path, '/', (size_t)(out - path - 1)) : NULL;
			if (out > path + abs && !(out - path >= 3 && !strncmp(out - 3, "../", 3))) {
				out = prev ? prev + 1 : path + abs;
				continue;
			}
		}
		if (out == path && abs)
			*out++ = '/';
		memmove(out, seg, len);
		out += len;
		*out++ = '/';
	}
	if (out > path + 1 && out[-1] == '/')
		out--;
	else if (out == path && abs)
		out++;
	*out = '\0';
}

/* Source files named relative to the compilation directory (a VPATH
 * build's "../src/x.c") become absolute, so that editors, CI annotations
 * and --annotate find them from anywhere. */
const char *absolute_source(struct symbolizer *s, Dwarf_Die *cudie, const char *file)
{
	Dwarf_Attribute attr;
	const char *dir;
	char *joined;
	const char *ret;

	if (!file || file[0] == '/')
		return intern_str(s, file);
	dir = dwarf_formstring(dwarf_attr(cudie, DW_AT_comp_dir, &attr));
	if (!dir || dir[0] != '/')
		return intern_str(s, file);
	joined = xasprintf("%s/%s", dir, file);
	normalize_path(joined);
	ret = intern_str(s, joined);
	free(joined);
	return ret;
}
