/* test_dwarf_scopes.c - C++ types named with their namespaces and classes.
 *
 * A small C++ program is compiled here (c++ -g; skipped without a C++
 * compiler) and read with libdw: each named type's prefix, and
 * format_type()'s name for it, must be the one C++ code would write.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <stdbool.h>
#include <unistd.h>

#include "symbolize/dwarf_scopes.h"
#include "symbolize/dwarf_type.h"
#include "tests/tap.h"

static const char source[] =
	"#include <atomic>\n"
	"namespace net {\n"
	"struct Slot { long done; };\n"
	"namespace detail { class Pool { public: struct Inner { int x; } in; }; }\n"
	"template <class T> struct Box { T v; };\n"
	"long counters[2];\n"
	"struct Reg { static long created; };\n"
	"long Reg::created;\n"
	"}\n"
	"namespace { struct Hidden { long a; }; }\n"
	"struct Top { long b; };\n"
	"int use()\n"
	"{\n"
	"\tstruct Local { int l; } loc = { 1 };\n"
	"\tstatic net::Slot s; static net::detail::Pool p; static Hidden h; static Top t;\n"
	"\tstatic net::Box<long> bx; static std::atomic<long> at;\n"
	"\treturn (int)(s.done + p.in.x + h.a + t.b + loc.l + bx.v + at.load() +\n"
	"\t\tnet::counters[1] + net::Reg::created);\n"
	"}\n"
	"int main() { return use(); }\n";

/* The first type DIE (not a declaration) named name, depth-first. */
static bool find_type(Dwarf_Die *parent, const char *name, Dwarf_Die *out)
{
	Dwarf_Die child;

	if (dwarf_child(parent, &child) != 0)
		return false;
	do {
		int tag = dwarf_tag(&child);
		const char *n = dwarf_diename(&child);

		if ((tag == DW_TAG_structure_type || tag == DW_TAG_class_type) && n &&
		    !strcmp(n, name) && !dwarf_hasattr(&child, DW_AT_declaration)) {
			*out = child;
			return true;
		}
		if (find_type(&child, name, out))
			return true;
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

/* The definition (with a location) of the variable named name. */
static bool find_variable(Dwarf_Die *parent, const char *name, Dwarf_Die *out)
{
	Dwarf_Die child;

	if (dwarf_child(parent, &child) != 0)
		return false;
	do {
		Dwarf_Attribute attr;
		const char *n = dwarf_diename(&child);

		if (!n && dwarf_attr_integrate(&child, DW_AT_name, &attr))
			n = dwarf_formstring(&attr);
		if (dwarf_tag(&child) == DW_TAG_variable && n && !strcmp(n, name) &&
		    dwarf_hasattr(&child, DW_AT_location)) {
			*out = child;
			return true;
		}
		if (dwarf_tag(&child) == DW_TAG_namespace && find_variable(&child, name, out))
			return true;
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

static void check_type(struct dwarf_scopes *sc, Dwarf_Die *cu, const char *name,
		       const char *prefix, const char *formatted)
{
	struct strbuf sb = STRBUF_INIT;
	Dwarf_Die t;

	if (!find_type(cu, name, &t)) {
		CHECK(0, "no type %s in the unit", name);
		return;
	}
	CHECK_STR(dwarf_scopes_prefix(sc, &t), prefix, name);
	format_type(&t, &sb, 0, sc);
	CHECK_STR(strbuf_str(&sb), formatted, name);
	strbuf_release(&sb);
	format_type(&t, &sb, 0, NULL);
	CHECK(!strchr(strbuf_str(&sb), ':'), "%s without scopes: \"%s\"", name, strbuf_str(&sb));
	strbuf_release(&sb);
}

int main(void)
{
	char dir[] = "/tmp/test_dwarf_scopes.XXXXXX", *cmd;
	struct dwarf_scopes *sc;
	Dwarf_Die cu;
	Dwarf *dw;
	int fd;

	if (system("command -v c++ >/dev/null 2>&1") != 0)
		return test_skip("no C++ compiler");
	if (!mkdtemp(dir))
		return test_skip("no temporary directory");
	cmd = xasprintf("cd '%s' && cat >u.cc <<'EOS'\n%sEOS\nc++ -std=c++17 -g -O0 u.cc -o u",
			dir, source);
	if (system(cmd) != 0) {
		CHECK(0, "cannot compile the unit");
		free(cmd);
		return test_done();
	}
	free(cmd);
	cmd = xasprintf("%s/u", dir);
	fd = open(cmd, O_RDONLY);
	dw = fd >= 0 ? dwarf_begin(fd, DWARF_C_READ) : NULL;
	CHECK(dw != NULL, "libdw opens %s", cmd);
	if (dw) {
		Dwarf_Off off = 0, next;
		size_t hsize;
		bool found = false;

		/* u.cc's unit: start files may have units of their own */
		for (; !found && dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0;
		     off = next) {
			const char *name;

			found = dwarf_offdie(dw, off + hsize, &cu) && (name = dwarf_diename(&cu)) &&
				strlen(name) >= 4 && !strcmp(name + strlen(name) - 4, "u.cc");
		}
		CHECK(found, "u.cc's unit");
		sc = dwarf_scopes_new();
		check_type(sc, &cu, "Slot", "net::", "net::Slot");
		check_type(sc, &cu, "Pool", "net::detail::", "net::detail::Pool");
		check_type(sc, &cu, "Inner", "net::detail::Pool::", "net::detail::Pool::Inner");
		check_type(sc, &cu, "Box<long int>", "net::", "net::Box<long>");
		check_type(sc, &cu, "atomic<long int>", "std::", "std::atomic<long>");
		/* variables: one in a namespace, a static member whose
		 * definition names its declaration in the class */
		{
			Dwarf_Die v;

			CHECK(find_variable(&cu, "counters", &v) &&
			      !strcmp(dwarf_scopes_prefix(sc, &v), "net::"),
			      "net::counters: %s", find_variable(&cu, "counters", &v) ?
			      dwarf_scopes_prefix(sc, &v) : "not found");
			CHECK(find_variable(&cu, "created", &v) &&
			      !strcmp(dwarf_scopes_prefix(sc, &v), "net::Reg::"),
			      "net::Reg::created: %s", find_variable(&cu, "created", &v) ?
			      dwarf_scopes_prefix(sc, &v) : "not found");
		}
		/* what a reader writes: no "(anonymous namespace)::", none in a function */
		CHECK_STR(dwarf_scopes_prefix(sc, &cu), "", "the unit itself");
		{
			Dwarf_Die t;

			CHECK(find_type(&cu, "Hidden", &t) && !*dwarf_scopes_prefix(sc, &t),
			      "Hidden in an anonymous namespace: no prefix");
			CHECK(find_type(&cu, "Local", &t) && !*dwarf_scopes_prefix(sc, &t),
			      "Local in a function: no prefix");
			CHECK(find_type(&cu, "Top", &t) && !*dwarf_scopes_prefix(sc, &t),
			      "Top at unit level: no prefix");
		}
		dwarf_scopes_free(sc);
		dwarf_end(dw);
	}
	if (fd >= 0)
		close(fd);
	free(cmd);
	cmd = xasprintf("rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", dir);
	free(cmd);
	/* no scopes for a NULL index or die */
	CHECK_STR(dwarf_scopes_prefix(NULL, NULL), "", "NULL");
	return test_done();
}
