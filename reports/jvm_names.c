/* jvm_names.c - contended lines of a HotSpot JVM named through its own tables. */
#include "reports/jvm_names.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "reports/advice.h"
#include "reports/report.h"
#include "common/util.h"
#include "symbolize/hotspot.h"
#include "symbolize/symbolizer.h"

/* A Java class name is at most 65535 bytes; the report needs far less. */
#define JVM_CLASS_NAME_MAX 512

struct jvm_proc {
	uint32_t pid;
	bool is_jvm;                 /* maps libjvm.so */
	bool tried;                  /* hotspot_open() was called */
	struct hotspot *h;           /* NULL until tried, or if it failed */
};

struct jvm_names {
	struct symbolizer *sym;
	struct jvm_proc *procs;
	size_t n, alloc;
};

struct jvm_names *jvm_names_new(struct symbolizer *sym)
{
	struct jvm_names *j = xcalloc(1, sizeof(*j));

	j->sym = sym;
	return j;
}

void jvm_names_free(struct jvm_names *j)
{
	if (!j)
		return;
	for (size_t i = 0; i < j->n; i++)
		hotspot_close(j->procs[i].h);
	free(j->procs);
	free(j);
}

static struct jvm_proc *proc_of(struct jvm_names *j, uint32_t pid)
{
	struct jvm_proc *p;

	for (size_t i = 0; i < j->n; i++)
		if (j->procs[i].pid == pid)
			return &j->procs[i];
	ALLOC_GROW(j->procs, j->n + 1, j->alloc);
	p = &j->procs[j->n++];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	/* from the mappings the report knows, so that a report of a
	 * recorded C program never looks at whatever now has its pid */
	p->is_jvm = j->sym && symbolizer_maps_file(j->sym, (pid_t)pid, hotspot_is_libjvm_path);
	return p;
}

bool jvm_names_is_jvm(struct jvm_names *j, uint32_t pid)
{
	return j && proc_of(j, pid)->is_jvm;
}

static struct hotspot *hotspot_of(struct jvm_names *j, uint32_t pid)
{
	struct jvm_proc *p = proc_of(j, pid);
	struct strbuf err = STRBUF_INIT;

	if (!p->is_jvm)
		return NULL;
	if (!p->tried) {
		p->tried = true;
		p->h = hotspot_open((pid_t)pid, &err);
		strbuf_release(&err);
	}
	return p->h;
}

/* "java/lang/String" as Java prints it: "java.lang.String". */
static void java_spelling(char *name)
{
	for (char *c = name; *c; c++)
		if (*c == '/')
			*c = '.';
}

/* The Klass's dynamic type as the tables know it. */
static const char *klass_type(const struct hotspot *h, uint64_t klass)
{
	int64_t lh_off = hotspot_field_offset(h, "Klass", "_layout_helper");
	int32_t lh;

	/* a negative layout helper marks an array class */
	if (lh_off >= 0 && hotspot_read(h, klass + (uint64_t)lh_off, &lh, sizeof(lh)) && lh < 0)
		return "ArrayKlass";
	return "InstanceKlass";
}

static bool name_klass_line(struct hotspot *h, struct report_line *rl)
{
	char name[JVM_CLASS_NAME_MAX];
	const char *type;
	uint64_t klass = 0;

	/* the first contended range that lies in a Klass names the line */
	for (unsigned i = 0; i < rl->n_ranges && !klass; i++)
		klass = hotspot_klass_containing(h, rl->addr + rl->ranges[i].offset);
	if (!klass || !hotspot_klass_name(h, klass, name, sizeof(name)))
		return false;
	java_spelling(name);
	type = klass_type(h, klass);
	for (unsigned i = 0; i < rl->n_ranges; i++) {
		struct report_range *rr = &rl->ranges[i];
		uint64_t a = rl->addr + rr->offset;
		const struct hotspot_field *f;

		if (a < klass || rr->member)
			continue;
		f = hotspot_field_at(h, type, a - klass);
		if (f)
			rr->member = xstrdup(f->name);
	}
	free(rl->object);
	rl->object = xasprintf("Klass %s", name);
	rl->type_name = xstrdup("Klass");
	rl->object_start = klass;
	return true;
}

/* The field of fields (sorted) covering object offset off, or NULL. */
static const struct hotspot_java_field *java_field_at(const struct hotspot_java_field *f,
						      size_t n, uint64_t off)
{
	for (size_t i = 0; i < n; i++)
		if (f[i].offset <= off && off < f[i].offset + (f[i].size ? f[i].size : 1))
			return &f[i];
	return NULL;
}

static bool name_object_line(struct hotspot *h, struct report_line *rl)
{
	char name[JVM_CLASS_NAME_MAX];
	struct hotspot_java_field *f;
	uint64_t obj = 0, klass = 0;
	size_t n;

	for (unsigned i = 0; i < rl->n_ranges && !obj; i++)
		obj = hotspot_object_containing(h, rl->addr + rl->ranges[i].offset, &klass);
	if (!obj || !hotspot_klass_name(h, klass, name, sizeof(name)))
		return false;
	f = hotspot_java_fields(h, klass, &n);
	java_spelling(name);
	for (unsigned i = 0; i < rl->n_ranges; i++) {
		struct report_range *rr = &rl->ranges[i];
		uint64_t a = rl->addr + rr->offset;
		const struct hotspot_java_field *jf;

		if (a < obj || rr->member || !(jf = java_field_at(f, n, a - obj)))
			continue;
		rr->member = xstrdup(jf->name);
	}
	free(f);
	free(rl->object);
	rl->object = xstrdup(name);
	rl->type_name = xstrdup(name);
	rl->object_start = obj;
	return true;
}

enum jvm_naming jvm_name_line(struct jvm_names *j, struct report_line *rl)
{
	struct hotspot *h;

	if (!j || rl->type_name || !(h = hotspot_of(j, rl->pid)))
		return JVM_UNNAMED;
	if (name_klass_line(h, rl))
		return JVM_KLASS;
	if (name_object_line(h, rl)) {
		rl->java = true;
		return JVM_OBJECT;
	}
	return JVM_UNNAMED;
}

/* ---- advice ------------------------------------------------------------ */

static const struct report_range *range_named(const struct report_line *rl, const char *member)
{
	for (unsigned i = 0; i < rl->n_ranges; i++)
		if (rl->ranges[i].member && !strcmp(rl->ranges[i].member, member))
			return &rl->ranges[i];
	return NULL;
}

static bool range_contended(const struct report_range *r)
{
	return r->true_shared || r->false_writer || r->false_victim;
}

/* JDK-8180450's fix, the hashed table of secondary supers, as this JVM
 * has it: it came with the flag UseSecondarySupersTable, so a JVM whose
 * flag table (read through its vmStructs) lists that flag has the fix;
 * the flag's value says whether it is on.  (The SA tables do not list
 * Klass::_secondary_supers_bitmap on JDK 25; no version number is used.) */
struct supers_table {
	bool present;                /* the flag exists */
	bool on;                     /* UseSecondarySupersTable */
	bool cache_known, cache_on;  /* UseSecondarySupersCache */
};

static void read_supers_table(const struct hotspot *h, struct supers_table *t)
{
	memset(t, 0, sizeof(*t));
	t->present = hotspot_flag_bool(h, "UseSecondarySupersTable", &t->on);
	t->cache_known = hotspot_flag_bool(h, "UseSecondarySupersCache", &t->cache_on);
}

/* What still writes the cache on a JVM with the fix. */
static char *secondary_super_rest(const struct supers_table *t)
{
	const char *stop_cache = t->cache_known && t->cache_on ?
		"; -XX:+UnlockDiagnosticVMOptions -XX:-UseSecondarySupersCache stops only the "
		"cache writes (a diagnostic option: measure before keeping it)" : "";

	if (!t->on)
		return xasprintf(
			"This JVM has that bug's fix, the hashed table of secondary supers, but it is "
			"switched off here (its flag UseSecondarySupersTable is false: an "
			"-XX:-UseSecondarySupersTable option, or a platform or mode without it): checks "
			"scan _secondary_supers and record each hit in the cache, as before the fix.  "
			"Drop that option, or turn the table on (-XX:+UnlockDiagnosticVMOptions "
			"-XX:+UseSecondarySupersTable) where the platform has it%s", stop_cache);
	return xasprintf(
		"This JVM has that bug's fix, switched on (its flag UseSecondarySupersTable): checks "
		"against an interface search the hashed table of secondary supers, which needs no "
		"cache, yet the cache is still written here, by the code at the sites above%s.  In "
		"code, keep each hot site to one interface or test against the concrete class%s",
		t->cache_known && t->cache_on ? " (UseSecondarySupersCache is on: lookups may still "
		"record their hits)" : "", stop_cache);
}

/* JDK-8180450: the one-entry cache of the last secondary super (interface)
 * a class was checked against.  Where the JVM has the fix (above), the
 * advice says what still writes the cache.  Without it: JDK 23 replaced
 * the cache by a hashed table of secondary supers (openjdk/jdk PR 18309),
 * and it was backported to JDK 21 updates (openjdk/jdk21u-dev PR 1090,
 * integrated late 2024; the exact 21.0.x update is not stated here, not
 * having been verified). */
static char *secondary_super_advice(const struct hotspot *h, const struct report_line *rl)
{
	const char *cls = rl->object + strlen("Klass ");
	struct supers_table t;
	char *rest, *s;

	read_supers_table(h, &t);
	if (!t.present)
		return xasprintf(
			"Klass::_secondary_super_cache of class %s is HotSpot's one-entry cache of the "
			"last interface its objects were checked against: threads checking them against "
			"different interfaces rewrite it on every check, and the writes also evict "
			"_secondary_supers beside it (JDK-8180450, \"secondary_super_cache does not scale "
			"well\").  The JVM lays out Klass: no padding can be added from Java.  Fixed in "
			"JDK 23 (a hashed table of secondary supers, no cache to write), also backported "
			"to JDK 21 updates from late 2024 (see your 21.0.x release notes); on JDK 17, "
			"change the hot path: do not check one object against several interfaces in turn "
			"(instanceof, checkcast, casts of generic types) -- test against the concrete "
			"class, or keep each call site to one interface", cls);
	rest = secondary_super_rest(&t);
	s = xasprintf(
		"Klass::_secondary_super_cache of class %s is HotSpot's one-entry cache of the last "
		"interface its objects were checked against: threads checking them against different "
		"interfaces rewrite it, and the writes also evict _secondary_supers beside it "
		"(JDK-8180450, \"secondary_super_cache does not scale well\").  The JVM lays out "
		"Klass: no padding can be added from Java.  %s", cls, rest);
	free(rest);
	return s;
}

static char *klass_field_advice(const struct report_line *rl)
{
	return xasprintf(
		"%s is HotSpot's own metadata (see the members below): the JVM lays it out, so "
		"no padding can be added from Java; find the Java code at the sites above whose "
		"threads make the JVM write it", rl->object);
}

static const char gain_caveat[] =
	"the model cannot price the mispredicted branches of a check that reads a value "
	"another thread keeps changing";

/* The Klass fields on and around the line, pahole-style, from the
 * tables: the rows outside the line are elided. */
static void klass_layout(struct jvm_names *j, struct report_line *rl,
			 struct report_layout *lay)
{
	struct hotspot *h = hotspot_of(j, rl->pid);
	const char *type = klass_type(h, rl->object_start);
	uint64_t klass = rl->object_start;
	/* the line in Klass offsets: it may start before the Klass */
	int64_t lo = (int64_t)(rl->addr - klass), hi = lo + (int64_t)rl->line_size;
	const struct hotspot_field **f;
	uint64_t size = 0;
	size_t n;

	f = hotspot_layout(h, type, &n);
	if (!f || !n) {
		free(f);
		return;
	}
	if (!hotspot_type_size(h, type, &size))
		size = f[n - 1]->offset + f[n - 1]->size;
	lay->style = LAYOUT_PAHOLE;
	lay->title = xasprintf("class %s", type);
	lay->size = size;
	lay->align = 8;
	lay->line_size = rl->line_size;
	lay->placed = true;
	lay->line_offset = klass % rl->line_size;
	lay->rows = xcalloc(n, sizeof(*lay->rows));
	for (size_t i = 0; i < n; i++) {
		struct report_layout_row *row;

		/* a union's members share an offset: the first stands for them */
		if (lay->n_rows && lay->rows[lay->n_rows - 1].offset == f[i]->offset)
			continue;
		row = &lay->rows[lay->n_rows++];
		row->member = xstrdup(f[i]->name);
		row->type_name = xstrdup(f[i]->type_string ? f[i]->type_string : "?");
		row->offset = f[i]->offset;
		row->size = f[i]->size;
		row->align = 8;
		/* a gap is a field the tables do not list, not a hole: none shown */
		row->padding_before = 0;
		row->line = (long)((klass + row->offset) / rl->line_size - klass / rl->line_size);
		row->hidden = (int64_t)(row->offset + (row->size ? row->size : 1)) <= lo ||
			      (int64_t)row->offset >= hi;
	}
	free(f);
}

/* In a JVM, the C advice's "build with -g" is wrong: say what is known
 * instead (why, with its leading blank and parentheses).  Appends why
 * when there was no such clause and append is set. */
static char *without_build_g(char *summary, const char *why, bool append)
{
	static const char from[] = " (no type information for a layout: build with -g)";
	char *hit = summary ? strstr(summary, from) : NULL;
	char *s;

	if (!summary)
		return NULL;
	if (hit)
		s = xasprintf("%.*s%s%s", (int)(hit - summary), summary, why, hit + strlen(from));
	else if (append)
		s = xasprintf("%s%s", summary, why);
	else
		return summary;
	free(summary);
	return s;
}

/* "J" -> "long", "Ljava/lang/String;" -> "String", "[J" -> "long[]". */
static char *java_type(const char *sig)
{
	static const char prim[] = "JIDFSCBZ";
	static const char *const names[] = {
		"long", "int", "double", "float", "short", "char", "byte", "boolean",
	};
	const char *p = strchr(prim, sig[0]);
	const char *slash, *end;

	if (sig[0] == '[') {
		char *elem = java_type(sig + 1), *t = xasprintf("%s[]", elem);

		free(elem);
		return t;
	}
	if (sig[0] && p)
		return xstrdup(names[p - prim]);
	if (sig[0] != 'L' || !(end = strchr(sig, ';')))
		return xstrdup("?");
	slash = memrchr(sig, '/', (size_t)(end - sig));
	sig = slash ? slash + 1 : sig + 1;
	return xasprintf("%.*s", (int)(end - sig), sig);
}

/* The object's fields, pahole-style: the rows outside the line are
 * elided. */
static void object_layout(struct jvm_names *j, struct report_line *rl,
			  struct report_layout *lay)
{
	struct hotspot *h = hotspot_of(j, rl->pid);
	uint64_t obj = rl->object_start, klass = hotspot_object_klass(h, obj);
	int64_t lo = (int64_t)(rl->addr - obj), hi = lo + (int64_t)rl->line_size;
	struct hotspot_java_field *f;
	size_t n;

	f = klass ? hotspot_java_fields(h, klass, &n) : NULL;
	if (!f || !n) {
		free(f);
		return;
	}
	lay->style = LAYOUT_PAHOLE;
	lay->title = xasprintf("class %s", rl->type_name);
	lay->size = f[n - 1].offset + f[n - 1].size;
	lay->align = 8;
	lay->line_size = rl->line_size;
	lay->placed = true;
	lay->line_offset = obj % rl->line_size;
	/* the object header (mark word, class pointer) is before the first field */
	lay->rows = xcalloc(n, sizeof(*lay->rows));
	for (size_t i = 0; i < n; i++) {
		struct report_layout_row *row = &lay->rows[lay->n_rows++];

		row->member = xstrdup(f[i].name);
		row->type_name = java_type(f[i].signature);
		row->offset = f[i].offset;
		row->size = f[i].size;
		row->align = f[i].size ? f[i].size : 1;
		row->line = (long)((obj + row->offset) / rl->line_size - obj / rl->line_size);
		row->hidden = (int64_t)(row->offset + (row->size ? row->size : 1)) <= lo ||
			      (int64_t)row->offset >= hi;
	}
	free(f);
}

/* "a and b": the contended ranges' members, as the advice names them,
 * and how many in *count if count; NULL if none is named (a JDK whose
 * field info the tables do not describe). */
static char *contended_fields(const struct report_line *rl, bool writers_only,
			      unsigned *count)
{
	struct strbuf sb = STRBUF_INIT;
	unsigned k = 0, total = 0;

	for (unsigned i = 0; i < rl->n_ranges; i++)
		total += rl->ranges[i].member && range_contended(&rl->ranges[i]) &&
			 (!writers_only || rl->ranges[i].writes);
	for (unsigned i = 0; i < rl->n_ranges; i++) {
		const struct report_range *rr = &rl->ranges[i];

		if (!rr->member || !range_contended(rr) || (writers_only && !rr->writes))
			continue;
		strbuf_addf(&sb, "%s%s", k ? (k + 1 == total ? " and " : ", ") : "", rr->member);
		k++;
	}
	if (count)
		*count = k;
	if (k)
		return strbuf_detach(&sb);
	strbuf_release(&sb);
	return NULL;
}

static char *object_advice(const struct report_line *rl)
{
	unsigned n = 0;
	char *named = contended_fields(rl, false, &n), *s;
	char *fields = n == 1 ? xasprintf("%s.%s", rl->type_name, named) :
		       named ? xasprintf("fields %s of %s", named, rl->type_name) :
			       xasprintf("fields of %s (not named: this JDK's field info is not "
					 "described by its tables)", rl->type_name);

	if (rl->kind == SHARING_TRUE)
		s = xasprintf(
			"%s %s written by several threads (true sharing): no padding "
			"helps; give each thread its own copy (java.util.concurrent.atomic."
			"LongAdder for a counter, per-thread objects or ThreadLocal), or write "
			"less often", fields, n == 1 ? "is" : "are");
	else
		s = xasprintf(
			"%s, written by different threads, share a cache line: "
			"annotate them @jdk.internal.vm.annotation.Contended (for an "
			"application class the JVM honours it only with -XX:-RestrictContended; "
			"javac needs --add-exports java.base/jdk.internal.vm.annotation="
			"ALL-UNNAMED), or put 64 bytes of unused long fields between them "
			"(the JVM may reorder fields: check the layout with JOL); for counters, "
			"java.util.concurrent.atomic.LongAdder%s", fields,
			rl->kind == SHARING_MIXED ? "; the true-shared fields need per-thread "
			"copies" : "");
	free(named);
	free(fields);
	return s;
}

void jvm_advise_line(struct jvm_names *j, struct report_line *rl, enum jvm_naming named)
{
	const struct report_range *cache;

	if (!j || !jvm_names_is_jvm(j, rl->pid))
		return;
	if (named == JVM_UNNAMED) {
		if (hotspot_of(j, rl->pid))
			rl->advice.summary = without_build_g(rl->advice.summary,
				" (data of the JVM that contend cannot type: neither a Klass nor "
				"a Java object)", false);
		else
			rl->advice.summary = without_build_g(rl->advice.summary,
				" (data of a JVM whose own tables could not be read: it had exited, or "
				"is not readable; attach to it while it runs to name HotSpot data)", true);
		return;
	}
	cache = range_named(rl, "_secondary_super_cache");
	free(rl->advice.summary);
	if (named == JVM_OBJECT) {
		rl->advice.summary = object_advice(rl);
	} else if (cache && range_contended(cache)) {
		rl->advice.summary = secondary_super_advice(hotspot_of(j, rl->pid), rl);
		if (cache->true_shared && rl->predicted_gain > 1.005) {
			rl->gain_note = rl->gain_all_note = gain_caveat;
			rl->gain_high = rl->gain_all_high = 0;   /* no upper bound */
		}
	} else {
		rl->advice.summary = klass_field_advice(rl);
	}
	/* Nothing in a Klass can be padded: its fixes (a JDK without the
	 * write, Java code that stops causing it) remove the writes, true and
	 * false sharing alike, so the gain of the fix is the whole line's. */
	if (named == JVM_KLASS && rl->predicted_gain_all > rl->predicted_gain) {
		rl->predicted_gain = rl->predicted_gain_all;
		rl->gain_low = rl->gain_all_low;
		rl->gain_high = rl->gain_all_high;
		rl->gain_range_unknown = rl->gain_all_range_unknown;
		if (rl->gain_all_note)
			rl->gain_note = rl->gain_all_note;
	}
	/* the JVM's layout, and no C proposal: the JVM lays out its data */
	advice_layout_release(&rl->advice.current);
	advice_layout_release(&rl->advice.proposed);
	rl->advice.cost_bytes = 0;
	rl->advice.placements_sharing = rl->advice.placements_total = 0;
	if (named == JVM_OBJECT)
		object_layout(j, rl, &rl->advice.current);
	else
		klass_layout(j, rl, &rl->advice.current);
	free(rl->advice.layout_now);
	free(rl->advice.layout_proposed);
	rl->advice.layout_proposed = NULL;
	rl->advice.layout_now = advice_layout_text(&rl->advice.current);
}
