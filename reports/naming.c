/* naming.c - code and data addresses named for the report model. */
#include "reports/naming.h"

#include <elfutils/libdwfl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "reports/alloc_text.h"
#include "reports/report.h"
#include "common/util.h"
#include "symbolize/symbolizer.h"

static char *strdup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

void symbolize_site(struct symbolizer *sym, uint32_t pid, struct report_site *s)
{
	struct source_loc loc;
	const struct mapping *m;

	if (!sym)
		return;
	m = symbolizer_find_mapping(sym, (pid_t)pid, s->ip);
	if (m) {
		char id[2 * SYMBOLIZER_BUILD_ID_MAX + 1];

		s->map_start = m->start;
		s->map_end = m->end;
		s->map_pgoff = m->pgoff;
		if (symbolizer_build_id(sym, (pid_t)pid, s->ip, id, sizeof(id)))
			s->build_id = xstrdup(id);
	}
	if (symbolizer_source(sym, (pid_t)pid, s->ip, &loc)) {
		s->function = strdup_or_null(loc.function);
		s->file = strdup_or_null(loc.file);
		s->line = loc.line;
		s->inlined_into = strdup_or_null(loc.inlined_into);
		s->via = strdup_or_null(loc.via);
		s->module = strdup_or_null(loc.module);
		s->module_off = loc.module_off;
		if (s->module)
			return;
	}
	/* no module from libdwfl (JIT code, say): the mapping still locates it */
	if (m && m->name) {
		s->module = xstrdup(basename_of(m->name));
		s->module_off = symbolizer_plain(s->ip) - m->start + m->pgoff;
	}
}

char *frame_name(struct symbolizer *sym, uint32_t pid, uint64_t pc)
{
	struct source_loc loc = { 0 };
	const struct mapping *m = NULL;

	if (sym && symbolizer_source(sym, (pid_t)pid, pc, &loc)) {
		if (loc.function && loc.file && loc.line > 0)
			return xasprintf("%s %s:%d", loc.function, basename_of(loc.file), loc.line);
		if (loc.function)
			return xstrdup(loc.function);
	}
	if (loc.module)
		return xasprintf("%s+0x%" PRIx64, loc.module, loc.module_off);
	if (sym)
		m = symbolizer_find_mapping(sym, (pid_t)pid, pc);
	if (m && m->name)
		return xasprintf("%s+0x%" PRIx64, basename_of(m->name),
				 symbolizer_plain(pc) - m->start + m->pgoff);
	return xasprintf("0x%" PRIx64, symbolizer_plain(pc));
}

char *object_name(struct symbolizer *sym, uint32_t pid, uint64_t addr, bool *heap)
{
	struct data_symbol ds;
	struct Dwfl_Module *mod;
	const char *file;
	uint64_t off, bias;
	bool heap_data;

	if (!heap)
		heap = &heap_data;
	*heap = false;
	if (!sym || !symbolizer_data_symbol(sym, (pid_t)pid, addr, &ds) || !ds.name)
		return xasprintf("0x%" PRIx64, addr);
	off = addr - ds.start;
	if (ds.is_symbol)
		return off ? xasprintf("%s+%" PRIu64, ds.name, off) : xstrdup(ds.name);
	/* In a binary -- its .bss may spill past the file into an anonymous
	 * mapping -- the binary's own address, as nm, objdump and the code
	 * sites print them, not the offset into whichever mapping holds it. */
	if ((ds.kind == MAPPING_FILE || ds.kind == MAPPING_ANON) &&
	    (mod = symbolizer_module(sym, (pid_t)pid, addr, &bias)) &&
	    (file = dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, NULL, NULL)))
		return xasprintf("%s+0x%" PRIx64, basename_of(file), addr - bias);
	*heap = ds.kind == MAPPING_HEAP || ds.kind == MAPPING_ANON;
	return xasprintf("%s+0x%" PRIx64, basename_of(ds.name), off);
}

char *shared_object_name(struct symbolizer *sym, uint32_t pid, uint64_t addr, uint64_t off)
{
	const struct mapping *m = sym ? symbolizer_find_mapping(sym, (pid_t)pid, addr) : NULL;
	static const char *const anon[] = { "/dev/zero", "[anon_shmem", "//anon", "[anon]" };
	const char *name = m ? m->name : NULL;

	for (size_t i = 0; name && i < ARRAY_SIZE(anon); i++)
		if (!strncmp(name, anon[i], strlen(anon[i])))
			name = NULL;
	return xasprintf("%s+0x%" PRIx64, name && *name ? name : "[shared anon]", off);
}

/* "counters (long[2])", "[heap]+0x2a0 (stats: struct stats)", "Go heap
 * (s: main.stats)", or "". */
char *report_line_title(const struct report_line *l)
{
	struct strbuf sb = STRBUF_INIT;
	const char *object = l->object ? l->object : "";

	/* an unnamed object is an address, and the line's says as much;
	 * untyped heap data is best named by the code that allocated it */
	if (!l->type_name && !l->variable && l->alloc && l->alloc->function &&
	    (!strncmp(object, "[heap]", 6) || !strncmp(object, "[anon", 5))) {
		char *call = alloc_call_text(l->alloc);

		strbuf_addf(&sb, "%s block from %s", call, l->alloc->function);
		free(call);
		return strbuf_detach(&sb);
	}
	/* Go's heap is anonymous memory: its offset in the mapping names nothing */
	if (l->go && !strncmp(object, "[anon]", 6))
		strbuf_addf(&sb, "Go heap");
	else if (strncmp(object, "0x", 2))
		strbuf_addf(&sb, "%s", object);
	/* the variable is worth naming when the object's name does not say it */
	if (l->variable && strncmp(object, l->variable, strlen(l->variable)))
		strbuf_addf(&sb, "%s(%s: %s)", sb.len ? " " : "", l->variable,
			    l->type_name ? l->type_name : "?");
	else if (l->type_name && strcmp(object, l->type_name) &&
		 !(!strncmp(object, l->type_name, strlen(l->type_name)) &&
		   object[strlen(l->type_name)] == ' '))
		/* unless the object says it: "Klass TypeCheck$C0", a Java
		 * object named by its class (a JVM's) */
		strbuf_addf(&sb, "%s(%s)", sb.len ? " " : "", l->type_name);
	return strbuf_detach(&sb);
}

void report_line_language(struct symbolizer *sym, struct report_line *rl)
{
	const struct report_site *any = NULL;

	if (rl->type_name || !sym)
		return;
	for (unsigned i = 0; i < rl->n_ranges; i++)
		for (unsigned k = 0; k < rl->ranges[i].n_sites; k++) {
			const struct report_site *site = &rl->ranges[i].sites[k];

			if (site->writes) {
				any = site;
				goto found;
			}
			any = any ? any : site;
		}
	if (!any)
		return;
found:
	switch (symbolizer_language(sym, (pid_t)any->pid, any->ip)) {
	case CODE_LANG_RUST:
		rl->rust = true;
		break;
	case CODE_LANG_GO:
		rl->go = true;
		break;
	case CODE_LANG_UNKNOWN:
		break;
	}
}
