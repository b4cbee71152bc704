/* pprof.c - the report as a pprof profile (gzipped profile.proto), for
 * `go tool pprof` and continuous profilers (Parca, Pyroscope).
 *
 * The report model keeps counts per range and code site, not each access,
 * so a sample here is one (range, code site, read or write) of a reported
 * line: its value is the decoded accesses the site made to the range
 * (docs/pprof.md), its labels say the data (object, member, kind,
 * line_address, process), the threads that accessed the range (thread;
 * the model does not split a site's count by thread) and the access.  A
 * second value holds the exact watchpoint count of that site where the
 * line's words were watched (0 elsewhere).  The stack is the site (with the
 * function it is inlined into as an outer frame), then, with -g, the
 * site's most frequent call chain.  Encoding is protobuf-c's, from the
 * profile.proto of pprof kept beside this file; gzip is zlib's.
 */
#include "printers/printers.h"
#include "printers/format.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#include "common/escape.h"
#include "common/util.h"
#include "printers/profile.pb-c.h"
#include "reports/report.h"

typedef Perftools__Profiles__Profile Profile;
typedef Perftools__Profiles__Sample Sample;
typedef Perftools__Profiles__Label Label;
typedef Perftools__Profiles__Location Location;
typedef Perftools__Profiles__Line Line;
typedef Perftools__Profiles__Function Function;
typedef Perftools__Profiles__Mapping Mapping;
typedef Perftools__Profiles__ValueType ValueType;

enum { VALUE_SAMPLES, VALUE_WATCHED, N_VALUES };

/* One frame of a stack: a function at a source line.  A location holds
 * at most LOCATION_FRAMES: a site and the function it is inlined into. */
#define LOCATION_FRAMES 2
struct frame {
	const char *function, *file;
	int64_t line;
};

struct pprof {
	char **strings;              /* string_table; [0] = "" */
	size_t n_strings, alloc_strings;
	Function **functions;
	size_t n_functions, alloc_functions;
	Location **locations;
	size_t n_locations, alloc_locations;
	Mapping **mappings;
	size_t n_mappings, alloc_mappings;
	Sample **samples;
	size_t n_samples, alloc_samples;
};

/* Every string goes in escaped (common/escape.h): names, files and labels
 * are the target's, and pprof prints them raw to a terminal. */
static int64_t str_id(struct pprof *p, const char *raw)
{
	struct strbuf esc = STRBUF_INIT;
	const char *s;

	if (!raw || !*raw)
		return 0;
	s = escape_text(&esc, raw);
	for (size_t i = 1; i < p->n_strings; i++)
		if (!strcmp(p->strings[i], s)) {
			strbuf_release(&esc);
			return (int64_t)i;
		}
	ALLOC_GROW(p->strings, p->n_strings + 1, p->alloc_strings);
	p->strings[p->n_strings] = xstrdup(s);
	strbuf_release(&esc);
	return (int64_t)p->n_strings++;
}

static uint64_t function_id(struct pprof *p, const char *name, const char *file)
{
	int64_t n = str_id(p, name), f = str_id(p, file);
	Function *fn;

	for (size_t i = 0; i < p->n_functions; i++)
		if (p->functions[i]->name == n && p->functions[i]->filename == f)
			return p->functions[i]->id;
	fn = xmalloc(sizeof(*fn));
	perftools__profiles__function__init(fn);
	fn->id = p->n_functions + 1;
	fn->name = fn->system_name = n;
	fn->filename = f;
	ALLOC_GROW(p->functions, p->n_functions + 1, p->alloc_functions);
	p->functions[p->n_functions++] = fn;
	return fn->id;
}

/* The mapping of a site's code: the binary's range in memory, its file
 * offset and build-id, as the process had it; its code is symbolized
 * already, so pprof must not look for the binary. */
static uint64_t mapping_id(struct pprof *p, const struct report_site *s)
{
	int64_t name = str_id(p, s->module);
	Mapping *m;

	if (!s->module)
		return 0;
	for (size_t i = 0; i < p->n_mappings; i++)
		if (p->mappings[i]->filename == name &&
		    p->mappings[i]->memory_start == s->map_start)
			return p->mappings[i]->id;
	m = xmalloc(sizeof(*m));
	perftools__profiles__mapping__init(m);
	m->id = p->n_mappings + 1;
	m->filename = name;
	m->memory_start = s->map_start;
	m->memory_limit = s->map_end;
	m->file_offset = s->map_pgoff;
	m->build_id = str_id(p, s->build_id);
	m->has_functions = m->has_filenames = m->has_line_numbers = true;
	m->has_inline_frames = true;
	ALLOC_GROW(p->mappings, p->n_mappings + 1, p->alloc_mappings);
	p->mappings[p->n_mappings++] = m;
	return m->id;
}

static bool same_frames(const Location *loc, const struct frame *fr, size_t n,
			const uint64_t *fn)
{
	if (loc->n_line != n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (loc->line[i]->function_id != fn[i] || loc->line[i]->line != fr[i].line)
			return false;
	return true;
}

/* The location of frames (innermost first: inlined ones, then the function
 * they are in) at address (0: unknown) of mapping. */
static uint64_t location_id(struct pprof *p, const struct frame *fr, size_t n,
			    uint64_t mapping, uint64_t address)
{
	uint64_t fn[LOCATION_FRAMES];
	Location *loc;

	if (n > LOCATION_FRAMES)
		die("pprof: %zu frames in one location", n);

	for (size_t i = 0; i < n; i++)
		fn[i] = function_id(p, fr[i].function, fr[i].file);
	for (size_t i = 0; i < p->n_locations; i++) {
		loc = p->locations[i];
		if (loc->mapping_id == mapping && loc->address == address &&
		    same_frames(loc, fr, n, fn))
			return loc->id;
	}
	loc = xmalloc(sizeof(*loc));
	perftools__profiles__location__init(loc);
	loc->id = p->n_locations + 1;
	loc->mapping_id = mapping;
	loc->address = address;
	loc->n_line = n;
	loc->line = xcalloc(n + 1, sizeof(*loc->line));
	for (size_t i = 0; i < n; i++) {
		Line *l = xmalloc(sizeof(*l));
		perftools__profiles__line__init(l);
		l->function_id = fn[i];
		l->line = fr[i].line;
		loc->line[i] = l;
	}
	ALLOC_GROW(p->locations, p->n_locations + 1, p->alloc_locations);
	p->locations[p->n_locations++] = loc;
	return loc->id;
}

static uint64_t site_location(struct pprof *p, const struct report_site *s)
{
	char *unknown = NULL;
	struct frame fr[2];
	size_t n = 0;
	uint64_t id;

	if (!s->function)
		unknown = s->module ? xasprintf("%s+0x%" PRIx64, s->module, s->module_off) :
				      xasprintf("0x%" PRIx64, report_code_addr(s->ip));
	fr[n++] = (struct frame){ s->function ? s->function : unknown, s->file, s->line };
	if (s->inlined_into)
		fr[n++] = (struct frame){ s->inlined_into, NULL, 0 };
	id = location_id(p, fr, n, mapping_id(p, s), report_code_addr(s->ip));
	free(unknown);
	return id;
}

/* "worker f.c:80" (chains_json's frames): function, file, line; a frame
 * without " file:line" is a function name alone. */
static uint64_t chain_location(struct pprof *p, const char *text)
{
	const char *sp = strrchr(text, ' ');
	const char *colon = sp ? strrchr(sp, ':') : NULL;
	char *function, *file = NULL;
	long line = 0;
	uint64_t id;

	if (colon && colon[1] >= '0' && colon[1] <= '9') {
		function = xasprintf("%.*s", (int)(sp - text), text);
		file = xasprintf("%.*s", (int)(colon - sp - 1), sp + 1);
		line = strtol(colon + 1, NULL, 10);
	} else {
		function = xstrdup(text);
	}
	id = location_id(p, &(struct frame){ function, file, line }, 1, 0, 0);
	free(function);
	free(file);
	return id;
}

static void add_label(struct pprof *p, Sample *s, const char *key, const char *value)
{
	Label *l = xmalloc(sizeof(*l));

	perftools__profiles__label__init(l);
	l->key = str_id(p, key);
	l->str = str_id(p, value);
	s->label[s->n_label++] = l;
}

/* A numeric label (pid, tid), as Parca and Pyroscope read them. */
static void add_num_label(struct pprof *p, Sample *s, const char *key, int64_t value)
{
	Label *l = xmalloc(sizeof(*l));

	perftools__profiles__label__init(l);
	l->key = str_id(p, key);
	l->num = value;
	s->label[s->n_label++] = l;
}

#define SAMPLE_LABELS 11

/* The exact count of site s's accesses (writes or reads) to range g where
 * the line's words were watched: the watched words' share of that site. */
static uint64_t watched(const struct report_line *l, const struct report_range *g,
			const struct report_site *s, bool writes)
{
	uint64_t n = 0;

	for (unsigned i = 0; i < l->n_words; i++) {
		const struct report_watch_word *w = &l->words[i];
		if (w->offset + w->size <= g->offset || w->offset >= g->offset + g->size)
			continue;
		for (unsigned k = 0; k < w->n_sites; k++)
			if (w->sites[k].ip == report_code_addr(s->ip))
				n += writes ? w->sites[k].writes : w->sites[k].reads;
	}
	return n;
}

/* "32663" or "32663,32664": the range's threads */
static char *thread_list(const struct report_range *g)
{
	struct strbuf sb = STRBUF_INIT;

	for (unsigned i = 0; i < g->n_threads; i++)
		strbuf_addf(&sb, "%s%" PRIu32, i ? "," : "", g->threads[i].tid);
	return strbuf_detach(&sb);
}

/* A line processes share: the processes of the range's threads. */
static char *range_pids(const struct report_range *g)
{
	struct strbuf sb = STRBUF_INIT;

	for (unsigned i = 0; i < g->n_threads; i++) {
		unsigned k = 0;

		while (k < i && g->threads[k].pid != g->threads[i].pid)
			k++;
		if (k == i)
			strbuf_addf(&sb, "%s%" PRIu32, sb.len ? "," : "", g->threads[i].pid);
	}
	return strbuf_detach(&sb);
}

static void add_sample(struct pprof *p, const struct report_line *l,
		       const struct report_range *g, const struct report_site *s, bool writes)
{
	uint64_t count = writes ? s->writes : s->reads;
	const struct report_chain *chain = s->n_chains ? &s->chains[0] : NULL;
	char *member = g->member ? xstrdup(g->member) : xasprintf("+%u", g->offset);
	char *addr = xasprintf("0x%" PRIx64, l->addr);
	char *pid = l->n_pids > 1 ? range_pids(g) : xasprintf("%" PRIu32, l->pid);
	char *threads = thread_list(g);
	Sample *sm;

	if (!count)
		goto out;
	sm = xmalloc(sizeof(*sm));
	perftools__profiles__sample__init(sm);
	sm->location_id = xcalloc(1 + (chain ? chain->n_frames : 0), sizeof(*sm->location_id));
	sm->location_id[sm->n_location_id++] = site_location(p, s);
	for (unsigned i = 0; chain && i < chain->n_frames; i++)
		sm->location_id[sm->n_location_id++] = chain_location(p, chain->frames[i]);
	sm->n_value = N_VALUES;
	sm->value = xcalloc(N_VALUES, sizeof(*sm->value));
	sm->value[VALUE_SAMPLES] = (int64_t)count;
	sm->value[VALUE_WATCHED] = (int64_t)watched(l, g, s, writes);
	sm->label = xcalloc(SAMPLE_LABELS, sizeof(*sm->label));
	add_label(p, sm, "object", l->variable ? l->variable : l->object);
	add_label(p, sm, "member", member);
	add_label(p, sm, "kind", sharing_kind_id(l->kind));
	add_label(p, sm, "line_address", addr);
	add_label(p, sm, "thread", threads);
	add_label(p, sm, "process", pid);
	add_label(p, sm, "access", writes ? "write" : "read");
	/* numeric: the process, and the thread when one thread accessed the
	 * range (the model does not split a site's count by thread) */
	add_num_label(p, sm, "pid", g->n_threads && g->threads[0].pid ? g->threads[0].pid : l->pid);
	if (g->n_threads == 1)
		add_num_label(p, sm, "tid", g->threads[0].tid);
	if (l->type_name)
		add_label(p, sm, "type", l->type_name);
	if (l->minor)
		add_label(p, sm, "minor", "true");
	ALLOC_GROW(p->samples, p->n_samples + 1, p->alloc_samples);
	p->samples[p->n_samples++] = sm;
out:
	free(member);
	free(addr);
	free(pid);
	free(threads);
}

/* One side of a latent pair: its site's reads or writes of its range,
 * of kind latent_false; line_address is the line it lies on now. */
static void add_latent_sample(struct pprof *p, const struct report_latent *lt,
			      const struct report_latent_side *side, unsigned line_size,
			      bool writes)
{
	uint64_t count = writes ? side->writes : side->reads;
	char *addr, *pid, *thread;
	Sample *sm;

	if (!count)
		return;
	addr = xasprintf("0x%" PRIx64, side->addr & ~(uint64_t)(line_size - 1));
	pid = xasprintf("%" PRIu32, lt->pid);
	thread = xasprintf("%" PRIu32, side->tid);
	sm = xmalloc(sizeof(*sm));
	perftools__profiles__sample__init(sm);
	sm->location_id = xcalloc(1, sizeof(*sm->location_id));
	sm->location_id[sm->n_location_id++] = site_location(p, &side->site);
	sm->n_value = N_VALUES;
	sm->value = xcalloc(N_VALUES, sizeof(*sm->value));
	sm->value[VALUE_SAMPLES] = (int64_t)count;
	sm->label = xcalloc(SAMPLE_LABELS, sizeof(*sm->label));
	add_label(p, sm, "object", lt->object ? lt->object : "?");
	add_label(p, sm, "member", side->member ? side->member : "?");
	add_label(p, sm, "kind", "latent_false");
	add_label(p, sm, "line_address", addr);
	add_label(p, sm, "thread", thread);
	add_label(p, sm, "process", pid);
	add_label(p, sm, "access", writes ? "write" : "read");
	add_num_label(p, sm, "pid", lt->pid);
	add_num_label(p, sm, "tid", side->tid);
	if (lt->type_name)
		add_label(p, sm, "type", lt->type_name);
	ALLOC_GROW(p->samples, p->n_samples + 1, p->alloc_samples);
	p->samples[p->n_samples++] = sm;
	free(addr);
	free(pid);
	free(thread);
}

static ValueType *value_type(struct pprof *p, const char *type, const char *unit)
{
	ValueType *v = xmalloc(sizeof(*v));

	perftools__profiles__value_type__init(v);
	v->type = str_id(p, type);
	v->unit = str_id(p, unit);
	return v;
}

/* gzip of buf, written to out */
static void write_gzip(const uint8_t *buf, size_t len, FILE *out)
{
	z_stream z = { 0 };
	uint8_t chunk[65536];
	int st;

	if (deflateInit2(&z, Z_BEST_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		die("pprof: zlib cannot start a gzip stream");
	z.next_in = (uint8_t *)buf;
	z.avail_in = (uInt)len;
	do {
		z.next_out = chunk;
		z.avail_out = sizeof(chunk);
		st = deflate(&z, Z_FINISH);
		fwrite(chunk, 1, sizeof(chunk) - z.avail_out, out);
	} while (st == Z_OK);
	deflateEnd(&z);
	if (st != Z_STREAM_END)
		die("pprof: zlib failed to compress the profile");
}

static void pprof_free(struct pprof *p, ValueType **types, int64_t *comments)
{
	free(types[N_VALUES]);          /* the period's type */
	for (size_t i = 0; i < p->n_samples; i++) {
		for (size_t k = 0; k < p->samples[i]->n_label; k++)
			free(p->samples[i]->label[k]);
		free(p->samples[i]->label);
		free(p->samples[i]->value);
		free(p->samples[i]->location_id);
		free(p->samples[i]);
	}
	for (size_t i = 0; i < p->n_locations; i++) {
		for (size_t k = 0; k < p->locations[i]->n_line; k++)
			free(p->locations[i]->line[k]);
		free(p->locations[i]->line);
		free(p->locations[i]);
	}
	for (size_t i = 0; i < p->n_functions; i++)
		free(p->functions[i]);
	for (size_t i = 0; i < p->n_mappings; i++)
		free(p->mappings[i]);
	for (size_t i = 1; i < p->n_strings; i++)
		free(p->strings[i]);
	free(p->samples);
	free(p->locations);
	free(p->functions);
	free(p->mappings);
	free(p->strings);
	for (int i = 0; i < N_VALUES; i++)
		free(types[i]);
	free(comments);
}

void report_print_pprof(const struct report *r, FILE *out, const struct format_flags *f)
{
	struct pprof p = { 0 };
	Profile prof = PERFTOOLS__PROFILES__PROFILE__INIT;
	ValueType *types[N_VALUES + 1];        /* the sample types, the period's */
	int64_t *comments = xcalloc(2, sizeof(*comments));
	struct timespec now;
	char *note;
	uint8_t *buf;
	size_t len;
	bool soft;

	(void)f;
	ALLOC_GROW(p.strings, 1, p.alloc_strings);
	p.strings[p.n_strings++] = (char *)"";
	types[VALUE_SAMPLES] = value_type(&p, "samples", "count");
	types[VALUE_WATCHED] = value_type(&p, "watched_accesses", "count");
	for (unsigned i = 0; i < r->n_lines + r->n_minor; i++) {
		const struct report_line *l = i < r->n_lines ? &r->lines[i] :
					      &r->minor[i - r->n_lines];
		for (unsigned k = 0; k < l->n_ranges; k++)
			for (unsigned s = 0; s < l->ranges[k].n_sites; s++) {
				add_sample(&p, l, &l->ranges[k], &l->ranges[k].sites[s], false);
				add_sample(&p, l, &l->ranges[k], &l->ranges[k].sites[s], true);
			}
	}
	for (unsigned i = 0; i < r->n_latent; i++)
		for (int w = 0; w < 2; w++) {
			add_latent_sample(&p, &r->latent[i], &r->latent[i].a, r->line_size, w);
			add_latent_sample(&p, &r->latent[i], &r->latent[i].b, r->line_size, w);
		}
	note = xasprintf("contend: %s backend, %u Hz", r->backend ? r->backend : "?", r->freq);
	comments[prof.n_comment++] = str_id(&p, note);
	if (r->command)
		comments[prof.n_comment++] = str_id(&p, r->command);
	free(note);

	prof.n_sample_type = N_VALUES;
	prof.sample_type = types;
	prof.default_sample_type = types[VALUE_SAMPLES]->type;
	/* every sample stands for a period of the sampling timer (soft:
	 * cpu-clock) or of the hardware event */
	soft = r->backend && !strcmp(r->backend, "soft") && r->freq;
	types[N_VALUES] = soft ? value_type(&p, "cpu", "nanoseconds") :
				 value_type(&p, "samples", "count");
	prof.period_type = types[N_VALUES];
	prof.period = soft ? (int64_t)(1000000000u / r->freq) : 1;
	prof.comment = comments;
	prof.duration_nanos = (int64_t)(r->duration * 1e9);
	/* the model has no start time: a profile written as the run ends
	 * started its duration ago (a report of an old recording: the time of
	 * the report; docs/pprof.md) */
	clock_gettime(CLOCK_REALTIME, &now);
	prof.time_nanos = (int64_t)now.tv_sec * 1000000000 + now.tv_nsec - prof.duration_nanos;
	prof.n_sample = p.n_samples;
	prof.sample = p.samples;
	prof.n_location = p.n_locations;
	prof.location = p.locations;
	prof.n_function = p.n_functions;
	prof.function = p.functions;
	prof.n_mapping = p.n_mappings;
	prof.mapping = p.mappings;
	prof.n_string_table = p.n_strings;
	prof.string_table = p.strings;

	len = perftools__profiles__profile__get_packed_size(&prof);
	buf = xmalloc(len + 1);
	perftools__profiles__profile__pack(&prof, buf);
	write_gzip(buf, len, out);
	free(buf);
	pprof_free(&p, types, comments);
}
