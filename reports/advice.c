/* advice.c - how to fix a contended line: layouts, padding and its cost.
 *
 * Works from the report model alone.  The ranges say which bytes of the
 * line each thread touched and how classify judged them; the members give
 * the struct layout.  Members come without alignments, so each one's is
 * bounded from above by numbers it must divide (its offset, its size, the
 * struct's alignment): a proposed layout may carry a little more padding
 * than the compiler would add, never less, and its cost is never flattered.
 */
#include <ctype.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "reports/advice.h"
#include "common/util.h"
#include "symbolize/data_types.h"

#define MAX_NAMED      3   /* names in a sentence before "and N more" */
#define ELIDE_MEMBERS 32   /* bigger structs show only the line's surroundings */

static const char remedies[] =
	"use per-thread copies (sum on read), check before write "
	"(skip stores of unchanged values), or batch updates";

struct tidset {
	uint32_t *tid;                /* sorted, unique */
	unsigned n, alloc;
};

/* What the line's ranges say about one member of the struct. */
struct member_info {
	bool on_line;                 /* some range of the line maps to it */
	bool true_shared, false_writer, false_victim;
	uint64_t samples;             /* reads + writes of those ranges */
	int group;                    /* writer group on the line, -1: none */
	bool hidden;                  /* elided from printed layouts */
};

struct advisor {
	struct report_line *line;
	bool heap;
	unsigned L;                   /* line size */
	const char *what;             /* the object, for sentences */
	/* The struct's members: line->members, or none when those are the
	 * elements of an array of scalars ("counters[1]"). */
	const struct report_member *members;
	unsigned n_members;
	struct report_member *owned_members;   /* members without padding holes */
	struct member_info *mi;       /* one per member */
	int *range_member;            /* one per line->ranges, -1: none */
	long *range_member_elem;      /* its element in an array member, -1 */
	int split_member;             /* array member whose elements threads
				       * contend on (counts[tid]), -1: none */
	struct tidset *groups;        /* distinct writer sets on the line */
	unsigned n_groups, alloc_groups;
	bool outside;                 /* a range lies outside the object */
	bool spans_elements;          /* contention across array elements */
	/* arrays: "long[8]" -> elem_type "long", n_elems 8 */
	bool is_array;
	char *elem_type;
	uint64_t n_elems;             /* 0 if unknown */
	uint64_t elem_size;           /* for a plain struct, its size */
	uint64_t stride;              /* elem_size in an array of structs, else 0 */
	/* members of a struct nested in the object: "g.in.a[2]" */
	bool nested;
	char *nested_title;           /* "struct <type of in>" */
	uint64_t base;                /* address of member offset 0, 0: unknown */
	uint64_t inst;                /* the instance drawn: base, or an element */
};

/* ---- small helpers ---------------------------------------------------- */

static uint64_t round_up(uint64_t x, uint64_t a)
{
	return a ? (x + a - 1) / a * a : x;
}

static uint64_t lowbit(uint64_t x)
{
	return x & -x;
}

static void tidset_add(struct tidset *s, uint32_t tid)
{
	unsigned i = 0;

	while (i < s->n && s->tid[i] < tid)
		i++;
	if (i < s->n && s->tid[i] == tid)
		return;
	ALLOC_GROW(s->tid, s->n + 1, s->alloc);
	memmove(s->tid + i + 1, s->tid + i, (s->n - i) * sizeof(*s->tid));
	s->tid[i] = tid;
	s->n++;
}

static bool tidset_has(const struct tidset *s, uint32_t tid)
{
	for (unsigned i = 0; i < s->n; i++)
		if (s->tid[i] == tid)
			return true;
	return false;
}

static bool tidset_equal(const struct tidset *a, const struct tidset *b)
{
	return a->n == b->n && (!a->n ||
		!memcmp(a->tid, b->tid, a->n * sizeof(*a->tid)));
}

static void tidset_release(struct tidset *s)
{
	free(s->tid);
	s->tid = NULL;
	s->n = s->alloc = 0;
}

#define MAX_TIDS 6     /* a pool's 290 workers: "..., 106 and 284 more" */

/* "thread 101" / "threads 101, 102" */
static void add_threads(struct strbuf *sb, const struct tidset *s)
{
	unsigned shown = s->n > MAX_TIDS + 1 ? MAX_TIDS : s->n;

	strbuf_addf(sb, "thread%s ", s->n == 1 ? "" : "s");
	for (unsigned i = 0; i < shown; i++)
		strbuf_addf(sb, "%s%" PRIu32, i ? ", " : "", s->tid[i]);
	if (shown < s->n)
		strbuf_addf(sb, " and %u more", s->n - shown);
}

/* "a", "a and b", "a, b and c", "a, b, c and 2 more" */
static void add_names(struct strbuf *sb, const char *const *name, unsigned n)
{
	unsigned shown = n > MAX_NAMED + 1 ? MAX_NAMED : n;

	for (unsigned i = 0; i < shown; i++) {
		if (i)
			strbuf_addf(sb, "%s", i + 1 == n ? " and " : ", ");
		strbuf_addf(sb, "%s", name[i]);
	}
	if (shown < n)
		strbuf_addf(sb, " and %u more", n - shown);
}

/* The innermost member a path names: "k->secondary_super_cache" and
 * ".secondary_super_cache" -> "secondary_super_cache", "[3].hits" -> "hits",
 * ".inner.a[2]" -> "a".  Returns its length, 0 if none. */
static size_t last_identifier(const char *path, const char **start)
{
	const char *p = path;
	size_t len = 0;

	*start = NULL;
	while (p && *p) {
		if (*p == '[') {
			p = strchr(p, ']');
			if (p)
				p++;
		} else if (isalpha((unsigned char)*p) || *p == '_') {
			*start = p;
			while (isalnum((unsigned char)*p) || *p == '_')
				p++;
			len = (size_t)(p - *start);
		} else {
			p++;
		}
	}
	return len;
}

/* The first subscript of a path ("counters[1]", "[3].hits"), -1 if none. */
static long first_index(const char *path)
{
	const char *b = path ? strchr(path, '[') : NULL;
	char *end;
	unsigned long v;

	if (!b || !isdigit((unsigned char)b[1]))
		return -1;
	v = strtoul(b + 1, &end, 10);
	return *end == ']' && v <= (unsigned long)LONG_MAX ? (long)v : -1;
}

/* Split a C type for a declaration of name: "Klass *[8]" -> type "Klass *",
 * declarator "name[8]"; "void (*)(int)" -> "void", "(*name)(int)";
 * "struct { long v[2]; }[4]" -> "struct { long v[2]; }", "name[4]" (what
 * is inside a struct body declares its own members). */
static void split_declaration(const char *type, const char *name,
			      char **type_out, char **decl_out)
{
	const char *body_end = strrchr(type, '}');
	const char *rest = body_end ? body_end : type;
	const char *fp = strstr(rest, "(*)");
	const char *arr = strchr(rest, '[');
	const char *cut = fp ? fp : arr;
	size_t n;

	if (!cut) {
		*type_out = xstrdup(type);
		*decl_out = xstrdup(name);
		return;
	}
	n = (size_t)(cut - type);
	while (n && type[n - 1] == ' ')
		n--;
	*type_out = xasprintf("%.*s", (int)n, type);
	if (fp)
		*decl_out = xasprintf("(*%s)%s", name, fp + 3);
	else
		*decl_out = xasprintf("%s%s", name, arr);
}

/* "long[8]" -> elem "long", n 8; "long[2][4]" -> "long[4]", 2; "long[]" -> 0. */
static bool parse_array_type(const char *type, char **elem, uint64_t *n)
{
	const char *b = type ? strchr(type, '[') : NULL;
	const char *close = b ? strchr(b, ']') : NULL;
	size_t base;

	if (!close)
		return false;
	base = (size_t)(b - type);
	while (base && type[base - 1] == ' ')
		base--;
	*elem = xasprintf("%.*s%s", (int)base, type, close + 1);
	*n = strtoull(b + 1, NULL, 10);
	return true;
}

/* "unsigned long" -> "unsigned_long", "struct stats" -> "stats",
 * "void *" -> "void_ptr" */
static char *type_tag(const char *type)
{
	struct strbuf sb = STRBUF_INIT;

	if (!strncmp(type, "struct ", 7))
		type += 7;
	for (const char *p = type; *p; p++) {
		if (isalnum((unsigned char)*p) || *p == '_') {
			strbuf_addch(&sb, *p);
			continue;
		}
		if (sb.len && sb.buf[sb.len - 1] != '_')
			strbuf_addch(&sb, '_');
		if (*p == '*')
			strbuf_addf(&sb, "ptr");
	}
	while (sb.len && sb.buf[sb.len - 1] == '_')
		sb.buf[--sb.len] = '\0';
	if (!sb.len)
		strbuf_addf(&sb, "elem");
	return strbuf_detach(&sb);
}

/* ---- mapping the line's ranges onto the object ------------------------- */

static uint64_t members_end(const struct advisor *adv)
{
	uint64_t end = 0;

	for (unsigned i = 0; i < adv->n_members; i++)
		if (adv->members[i].offset + adv->members[i].size > end)
			end = adv->members[i].offset + adv->members[i].size;
	return end;
}

/* The report names the elements of an array of scalars as members:
 * "counters[1]"; a struct member's name never ends in a subscript. */
static bool members_are_elements(const struct report_line *l)
{
	for (unsigned i = 0; i < l->n_members; i++) {
		const char *name = l->members[i].name;

		if (!name || !*name || name[strlen(name) - 1] != ']')
			return false;
	}
	return l->n_members > 0;
}

/* How many struct levels a path descends below the object: 1 for
 * "g.hits", "[3].hits" and "hits" (through a pointer), 2 for "g.in.a[2]".
 * *outer gets the second-to-last level ("in"), NULL if none. */
static unsigned path_depth(const char *path, const char *variable,
			   const char **outer, size_t *outer_len)
{
	size_t vlen = variable ? strlen(variable) : 0;
	const char *last = NULL, *p = path;
	size_t last_len = 0;
	unsigned n = 0;

	*outer = NULL;
	*outer_len = 0;
	if (!p)
		return 0;
	if (*p == '*')
		p++;
	if (vlen && !strncmp(p, variable, vlen) &&
	    !isalnum((unsigned char)p[vlen]) && p[vlen] != '_')
		p += vlen;
	while (*p) {
		if (*p == '[') {
			p = strchr(p, ']');
			if (!p)
				break;
			p++;
		} else if (isalpha((unsigned char)*p) || *p == '_') {
			*outer = last;
			*outer_len = last_len;
			last = p;
			while (isalnum((unsigned char)*p) || *p == '_')
				p++;
			last_len = (size_t)(p - last);
			n++;
		} else {
			p++;
		}
	}
	return n;
}

/* How many scalars of the innermost type one value of a type holds:
 * "long" -> 1, "long[2]" -> 2, "long[2][3]" -> 6; an unknown bound
 * ("long[]") counts as 1. */
static uint64_t scalars_in(const char *type)
{
	const char *b = type ? strchr(type, '[') : NULL;
	uint64_t n = 1;

	for (; b; b = strchr(b + 1, '[')) {
		uint64_t dim = strtoull(b + 1, NULL, 10);

		if (dim && n <= UINT64_MAX / dim)
			n *= dim;
	}
	return n;
}

/* A struct's size, or of an array's element.  struct_size is the size of
 * the innermost type (the scalar of "long[16][2]", the struct of
 * "struct stats[4]"), or of the whole array: it is the whole one when
 * dividing it by the scalar count still leaves room for what we know a
 * scalar holds.  An element of an array of arrays holds several scalars:
 * hist[16][2]'s element is a long[2], 16 bytes. */
static uint64_t element_size(const struct advisor *adv)
{
	const struct report_line *l = adv->line;
	uint64_t least = members_end(adv), inner = 1, leaf = l->struct_size;

	for (unsigned i = 0; !adv->n_members && i < l->n_members; i++)
		if (l->members[i].size > least)
			least = l->members[i].size;
	for (unsigned i = 0; !adv->n_members && i < l->n_ranges; i++)
		if (l->ranges[i].size > least)
			least = l->ranges[i].size;
	if (!l->struct_size)
		return round_up(least, l->struct_align);
	if (!adv->is_array || adv->nested)
		return l->struct_size;
	/* arrays of structs keep the struct as the element they pad */
	if (!adv->n_members)
		inner = scalars_in(adv->elem_type);
	if (adv->n_elems > 1 && adv->n_elems <= UINT64_MAX / inner &&
	    l->struct_size % (adv->n_elems * inner) == 0 &&
	    l->struct_size / (adv->n_elems * inner) >= least)
		leaf = l->struct_size / (adv->n_elems * inner);
	return leaf * inner;
}

/* The member a path names; with a known offset, only one that holds it
 * (a union's members share offsets, the name tells them apart). */
static int member_by_name(const struct advisor *adv, const char *path,
			  bool have_off, uint64_t off)
{
	const char *id;
	size_t len = path ? last_identifier(path, &id) : 0;

	for (unsigned i = 0; len && i < adv->n_members; i++) {
		const struct report_member *m = &adv->members[i];

		if (!m->name || strlen(m->name) != len ||
		    memcmp(m->name, id, len))
			continue;
		if (!have_off || (off >= m->offset && off < m->offset + m->size))
			return (int)i;
	}
	return -1;
}

static int member_at(const struct advisor *adv, uint64_t off)
{
	for (unsigned i = 0; i < adv->n_members; i++) {
		const struct report_member *m = &adv->members[i];
		uint64_t size = m->size ? m->size : 1;

		if (off >= m->offset && off < m->offset + size)
			return (int)i;
	}
	return -1;
}

/* Where the members' offsets start: the object, or for a struct nested
 * in it, a range that covers a whole member says; 0 if unknown. */
static uint64_t instance_base(const struct advisor *adv)
{
	const struct report_line *l = adv->line;

	if (!adv->nested)
		return l->object_start;
	for (unsigned i = 0; i < l->n_ranges; i++) {
		const struct report_range *r = &l->ranges[i];
		int m = member_by_name(adv, r->member, false, 0);
		uint64_t a = l->addr + r->offset;

		if (m >= 0 && r->size == adv->members[m].size &&
		    a >= adv->members[m].offset)
			return a - adv->members[m].offset;
	}
	return 0;
}

/* Offset of a range's first byte from the base; false if the base is
 * unknown or the range lies before it. */
static bool range_offset(const struct advisor *adv,
			 const struct report_range *r, uint64_t *off)
{
	uint64_t a = adv->line->addr + r->offset;

	if (!adv->base || a < adv->base)
		return false;
	*off = a - adv->base;
	return true;
}

/* Which member (-1: none) and array element (-1: unknown) a range
 * touches; notes ranges outside the object.  A subscripted path places
 * the range in the array whatever object_start names (the array or the
 * element the symbolizer resolved); otherwise the address decides, so
 * that a neighbour of the same type is not taken for this object. */
static int map_range(struct advisor *adv, const struct report_range *r,
		     long *elem)
{
	uint64_t off = 0, in_inst, end;
	bool have_off = range_offset(adv, r, &off);
	long index = adv->stride ? first_index(r->member) : -1;
	int m;

	in_inst = adv->stride ? off % adv->stride : off;
	*elem = index;
	if (adv->stride && index < 0 && have_off)
		*elem = (long)(off / adv->stride);
	if (!adv->n_members)
		return -1;
	if (index >= 0 || !adv->base)
		return member_by_name(adv, r->member, have_off, in_inst);

	end = !adv->stride ? adv->elem_size :
	      adv->n_elems ? adv->n_elems * adv->stride : UINT64_MAX;
	if (!have_off || off >= end) {
		adv->outside = true;
		return -1;
	}
	m = member_by_name(adv, r->member, true, in_inst);
	return m >= 0 ? m : member_at(adv, in_inst);
}

/* Members written on the line, grouped by the set of threads writing them. */
static void group_writers(struct advisor *adv)
{
	for (unsigned i = 0; i < adv->n_members; i++) {
		const struct report_member *m = &adv->members[i];
		struct tidset set = { 0 };
		unsigned g;

		adv->mi[i].group = -1;
		if (!adv->mi[i].on_line || (!m->n_writers && !m->writes))
			continue;
		for (unsigned t = 0; t < m->n_writers; t++)
			tidset_add(&set, m->writers[t]);
		for (g = 0; g < adv->n_groups; g++)
			if (tidset_equal(&adv->groups[g], &set))
				break;
		if (g == adv->n_groups) {
			ALLOC_GROW(adv->groups, g + 1, adv->alloc_groups);
			adv->groups[adv->n_groups++] = set;
		} else {
			tidset_release(&set);
		}
		adv->mi[i].group = (int)g;
	}
}

/* Where the line lies in the instance's offsets: from the line's
 * address, else from the members its ranges touch. */
static void line_span(const struct advisor *adv, uint64_t *lo, uint64_t *hi)
{
	const struct report_line *l = adv->line;
	uint64_t inst = adv->inst;

	if (inst && l->addr + adv->L > inst) {
		*lo = l->addr > inst ? l->addr - inst : 0;
		*hi = l->addr + adv->L - inst;
		return;
	}
	*lo = UINT64_MAX;
	*hi = 0;
	for (unsigned i = 0; i < adv->n_members; i++) {
		const struct report_member *m = &adv->members[i];

		if (!adv->mi[i].on_line)
			continue;
		if (m->offset < *lo)
			*lo = m->offset;
		if (m->offset + m->size > *hi)
			*hi = m->offset + m->size;
	}
	if (*lo == UINT64_MAX)
		*lo = 0;
}

/* Big structs print only the members of the line and the lines next to
 * it, and those touched. */
static void elide_members(struct advisor *adv)
{
	uint64_t lo, hi;

	if (adv->n_members <= ELIDE_MEMBERS)
		return;
	line_span(adv, &lo, &hi);
	lo = lo > adv->L ? lo - adv->L : 0;
	hi += adv->L;
	for (unsigned i = 0; i < adv->n_members; i++) {
		const struct report_member *m = &adv->members[i];
		bool near = m->offset < hi && m->offset + m->size > lo;
		bool touched = m->reads || m->writes;

		adv->mi[i].hidden = !near && !touched && !adv->mi[i].on_line;
	}
}

/* Members of a struct inside the object: the report has no name for
 * that struct, only the member holding it ("in" of "g.in.a[2]"). */
static void find_nesting(struct advisor *adv)
{
	const struct report_line *l = adv->line;

	for (unsigned i = 0; adv->n_members && i < l->n_ranges; i++) {
		const char *outer;
		size_t len;

		if (path_depth(l->ranges[i].member, l->variable, &outer,
			       &len) < 2 || !outer)
			continue;
		adv->nested = true;
		/* the members' struct by its name where it has one */
		adv->nested_title = l->struct_name && !strstr(l->struct_name, "{...}") ?
				    xstrdup(l->struct_name) :
				    xasprintf("struct <type of %.*s>", (int)len, outer);
		return;
	}
}

/* Element count and element size of an array member; false if it is
 * no array of known bound. */
static bool member_array(const struct report_member *m, char **elem_type,
			 uint64_t *n, uint64_t *elem_size)
{
	char *elem = NULL;

	if (!parse_array_type(m->type_name, &elem, n) || !*n ||
	    m->size % *n) {
		free(elem);
		return false;
	}
	*elem_size = m->size / *n;
	if (elem_type)
		*elem_type = elem;
	else
		free(elem);
	return true;
}

/* Which element of array member m a range touches: from the range's
 * offset in the instance, else from the subscript after the member's
 * name in its path ("this->counts[1]"); -1 if neither says. */
static long member_element(const struct advisor *adv,
			   const struct report_range *r, int m)
{
	const struct report_member *mem = &adv->members[m];
	uint64_t n, esz, off;
	const char *id;
	size_t len;

	if (!member_array(mem, NULL, &n, &esz))
		return -1;
	if (range_offset(adv, r, &off)) {
		uint64_t in = adv->stride ? off % adv->stride : off;

		if (in >= mem->offset && in < mem->offset + mem->size)
			return (long)((in - mem->offset) / esz);
	}
	len = r->member ? last_identifier(r->member, &id) : 0;
	return len && id[len] == '[' ? first_index(id + len) : -1;
}

static bool range_contends(const struct report_range *r)
{
	return r->writes || r->false_writer || r->false_victim;
}

/* Does a range written in one element of member m contend with a range
 * in another element of it?  Two elements only read are no fight. */
static bool elements_contend(const struct advisor *adv, int m)
{
	const struct report_line *l = adv->line;

	for (unsigned w = 0; w < l->n_ranges; w++) {
		const struct report_range *rw = &l->ranges[w];

		if (adv->range_member[w] != m || adv->range_member_elem[w] < 0 ||
		    !(rw->writes || rw->false_writer))
			continue;
		for (unsigned c = 0; c < l->n_ranges; c++)
			if (adv->range_member[c] == m &&
			    adv->range_member_elem[c] >= 0 &&
			    adv->range_member_elem[c] != adv->range_member_elem[w] &&
			    range_contends(&l->ranges[c]))
				return true;
	}
	return false;
}

/* The hottest array member whose elements threads contend on across
 * (Accumulator::counts, one slot per thread): aligning the struct cannot
 * part them, padding the member's elements can.  -1 if none. */
static int split_array_member(const struct advisor *adv)
{
	const struct report_line *l = adv->line;
	uint64_t all = 0;
	int best = -1;

	for (unsigned i = 0; i < l->n_ranges; i++)
		all += l->ranges[i].reads + l->ranges[i].writes;
	/* a member the line's contention hardly touches (a ring's slot or
	 * two beside its head and tail) is not what to pad: at least a
	 * tenth of the line's samples */
	for (unsigned m = 0; m < adv->n_members; m++)
		if (adv->mi[m].samples * 10 >= all && elements_contend(adv, (int)m) &&
		    (best < 0 || adv->mi[m].samples > adv->mi[best].samples))
			best = (int)m;
	return best;
}

static void map_ranges(struct advisor *adv)
{
	const struct report_line *l = adv->line;
	long first_elem = -1;
	uint64_t hottest = 0, hot_off = 0;
	bool hot_known = false;

	for (unsigned i = 0; i < l->n_ranges; i++) {
		const struct report_range *r = &l->ranges[i];
		long elem;
		int m = map_range(adv, r, &elem);
		uint64_t off;

		adv->range_member[i] = m;
		adv->range_member_elem[i] = m >= 0 ? member_element(adv, r, m) : -1;
		if (m >= 0) {
			struct member_info *mi = &adv->mi[m];

			mi->on_line = true;
			mi->true_shared |= r->true_shared;
			mi->false_writer |= r->false_writer;
			mi->false_victim |= r->false_victim;
			mi->samples += r->reads + r->writes;
		}
		/* contending ranges in two elements: pad the element */
		if (elem >= 0 && (r->writes || r->false_victim)) {
			if (first_elem < 0)
				first_elem = elem;
			else if (elem != first_elem)
				adv->spans_elements = true;
		}
		if (r->reads + r->writes >= hottest && range_offset(adv, r, &off)) {
			hottest = r->reads + r->writes;
			hot_off = off;
			hot_known = true;
		}
	}
	/* The instance the layout is drawn for: the struct, or the array
	 * element holding the hottest range. */
	adv->inst = adv->base;
	if (adv->base && adv->stride && hot_known)
		adv->inst += hot_off / adv->stride * adv->stride;
}

static void advisor_init(struct advisor *adv, struct report_line *line,
			 bool heap)
{
	memset(adv, 0, sizeof(*adv));
	adv->line = line;
	adv->heap = heap;
	adv->L = line->line_size ? line->line_size : 64;
	adv->what = line->variable ? line->variable :
		    line->object ? line->object : "the object";
	if (!members_are_elements(line)) {
		/* padding holes (no name, no type) are printed as holes
		 * from the offsets, not as members */
		struct report_member *kept = xcalloc(line->n_members + 1, sizeof(*kept));
		for (unsigned i = 0; i < line->n_members; i++)
			if (line->members[i].name || line->members[i].type_name)
				kept[adv->n_members++] = line->members[i];
		adv->members = kept;
		adv->owned_members = kept;
	}
	adv->mi = xcalloc(adv->n_members ? adv->n_members : 1,
			  sizeof(*adv->mi));
	adv->range_member = xcalloc(line->n_ranges ? line->n_ranges : 1,
				    sizeof(*adv->range_member));
	adv->range_member_elem = xcalloc(line->n_ranges ? line->n_ranges : 1,
					 sizeof(*adv->range_member_elem));
	adv->is_array = parse_array_type(line->type_name, &adv->elem_type,
					 &adv->n_elems);
	find_nesting(adv);
	adv->elem_size = element_size(adv);
	adv->stride = adv->is_array && !adv->nested ? adv->elem_size : 0;
	adv->base = instance_base(adv);
	map_ranges(adv);
	adv->split_member = split_array_member(adv);
	group_writers(adv);
	elide_members(adv);
}

static void advisor_release(struct advisor *adv)
{
	for (unsigned g = 0; g < adv->n_groups; g++)
		tidset_release(&adv->groups[g]);
	free(adv->groups);
	free(adv->mi);
	free(adv->range_member);
	free(adv->range_member_elem);
	free(adv->owned_members);
	free(adv->elem_type);
	free(adv->nested_title);
}

/* ---- pahole-style layouts --------------------------------------------- */

struct slot {
	const struct report_member *m;
	struct member_info *mi;
	uint64_t offset;              /* in the layout printed */
	bool line_aligned;            /* _Alignas(line) */
	char *before;                 /* a comment line before it, or NULL */
};

struct layout {
	const char *title;            /* "struct Klass" */
	uint64_t size, align;
	bool placed;                  /* the instance's place in a line is known */
	uint64_t line_off;            /*   and this is its offset in the line */
	bool annotate;                /* W:/R: and share of samples */
	bool cxx;                     /* alignas, not _Alignas */
	uint64_t samples;             /* all member samples, for the share */
	struct slot *slot;
	unsigned n;
};

struct decl {
	char *type, *declarator;
};

static void layout_release(struct layout *lay)
{
	for (unsigned i = 0; i < lay->n; i++)
		free(lay->slot[i].before);
	free(lay->slot);
}

static void print_annotation(struct strbuf *sb, const struct layout *lay,
			     const struct report_member *m)
{
	if (!lay->annotate || (!m->reads && !m->writes && !m->n_writers &&
			       !m->n_readers))
		return;
	if (m->n_writers) {
		strbuf_addf(sb, "  W:");
		for (unsigned i = 0; i < m->n_writers; i++)
			strbuf_addf(sb, " %" PRIu32, m->writers[i]);
	}
	if (m->n_readers) {
		strbuf_addf(sb, "  R:");
		for (unsigned i = 0; i < m->n_readers; i++)
			strbuf_addf(sb, " %" PRIu32, m->readers[i]);
	}
	if (lay->samples)
		strbuf_addf(sb, "  %.0f%%",
			    100.0 * (double)(m->reads + m->writes) /
			    (double)lay->samples);
}

/* Cacheline boundary k of an instance that starts line_off bytes into a
 * line lies at struct offset k * L - line_off; this is the last one at or
 * before off (0: none). */
static uint64_t last_boundary(uint64_t off, unsigned L, uint64_t line_off)
{
	return (off + line_off) / L;
}

/* Each member as type and declarator ("Klass *", "primary_supers[8];"),
 * with the widths of the two columns. */
static struct decl *make_decls(const struct layout *lay, unsigned L,
			       int *tw, int *nw)
{
	struct decl *d = xcalloc(lay->n ? lay->n : 1, sizeof(*d));

	*tw = *nw = 0;
	for (unsigned i = 0; i < lay->n; i++) {
		const struct report_member *m = lay->slot[i].m;
		char *type, *decl;
		int n;

		split_declaration(m->type_name ? m->type_name : "?",
				  m->name ? m->name : "<anonymous>",
				  &type, &decl);
		d[i].declarator = xasprintf("%s;", decl);
		d[i].type = lay->slot[i].line_aligned ?
			xasprintf("%s(%u) %s", lay->cxx ? "alignas" : "_Alignas", L, type) :
			xstrdup(type);
		free(type);
		free(decl);
		if ((n = (int)strlen(d[i].type)) > *tw)
			*tw = n;
		if ((n = (int)strlen(d[i].declarator)) > *nw)
			*nw = n;
	}
	return d;
}

static void free_decls(struct decl *d, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		free(d[i].type);
		free(d[i].declarator);
	}
	free(d);
}

static void print_elided(struct strbuf *sb, unsigned *hidden)
{
	if (*hidden)
		strbuf_addf(sb, "\t/* ... %u member%s not shown ... */\n",
			    *hidden, *hidden == 1 ? "" : "s");
	*hidden = 0;
}

/* pahole's view: members with offset and size, holes, line boundaries. */
static void print_layout(struct strbuf *sb, const struct layout *lay,
			 unsigned L)
{
	int tw, nw;
	struct decl *d = make_decls(lay, L, &tw, &nw);
	uint64_t end = 0, k = 1;      /* next boundary to print */
	unsigned hidden = 0;
	char *head = xasprintf("%s {", lay->title);

	strbuf_addf(sb, "%-*s /* size %" PRIu64 ", align %" PRIu64,
		    8 + tw + 1 + nw, head, lay->size, lay->align);
	if (!lay->placed)
		strbuf_addf(sb, " (where it starts in a line is unknown)");
	else if (lay->line_off)
		strbuf_addf(sb, " (this instance starts at line offset %"
			    PRIu64 ")", lay->line_off);
	strbuf_addf(sb, " */\n");
	free(head);

	for (unsigned i = 0; i < lay->n; i++) {
		const struct slot *s = &lay->slot[i];
		uint64_t off = s->offset, b;

		if (s->mi && s->mi->hidden) {
			hidden++;
			if (off + s->m->size > end)
				end = off + s->m->size;
			continue;
		}
		if (hidden) {
			print_elided(sb, &hidden);
			/* boundaries inside the elided run go with it */
			if (end && last_boundary(end - 1, L, lay->line_off) >= k)
				k = last_boundary(end - 1, L, lay->line_off) + 1;
		}
		if (off > end)
			strbuf_addf(sb, "\t/* XXX %" PRIu64 " bytes hole */\n",
				    off - end);
		/* like pahole, only the last boundary crossed is shown */
		if (lay->placed && last_boundary(off, L, lay->line_off) >= k) {
			k = last_boundary(off, L, lay->line_off);
			b = k * L - lay->line_off;
			strbuf_addf(sb, "\t/* --- cacheline %" PRIu64
				    " boundary (%" PRIu64 " bytes)", k, b);
			if (b < off)
				strbuf_addf(sb, " was %" PRIu64 " bytes ago",
					    off - b);
			strbuf_addf(sb, " --- */\n");
			k++;
		}
		if (s->before)
			strbuf_addf(sb, "\t/* %s */\n", s->before);
		strbuf_addf(sb, "\t%-*s %-*s /* %5" PRIu64 " %5" PRIu64 " */",
			    tw, d[i].type, nw, d[i].declarator, off, s->m->size);
		print_annotation(sb, lay, s->m);
		strbuf_addch(sb, '\n');
		if (off + s->m->size > end)
			end = off + s->m->size;
	}
	print_elided(sb, &hidden);
	if (lay->size > end)
		strbuf_addf(sb, "\t/* XXX %" PRIu64 " bytes tail padding */\n",
			    lay->size - end);
	strbuf_addf(sb, "};\n");
	free_decls(d, lay->n);
}

/* "struct Klass", "struct stats"; a bare "Klass" (C++, typedef) gets
 * "struct " so the layout reads as C. */
static const char *title_of(const char *type, char **owned)
{
	if (!type)
		return "struct";
	if (!strncmp(type, "struct ", 7) || !strncmp(type, "union ", 6) ||
	    !strncmp(type, "class ", 6))
		return type;
	return *owned = xasprintf("struct %s", type);
}

static const char *layout_title(const struct advisor *adv, char **owned)
{
	if (adv->nested)
		return adv->nested_title;
	return title_of(adv->is_array ? adv->elem_type : adv->line->type_name,
			owned);
}

static char *layout_now(struct advisor *adv, const char *note)
{
	const struct report_line *l = adv->line;
	struct layout lay = { 0 };
	struct strbuf sb = STRBUF_INIT;
	char *owned = NULL;

	lay.title = layout_title(adv, &owned);
	lay.cxx = l->cxx;
	lay.size = adv->elem_size;
	lay.align = l->struct_align;
	lay.placed = adv->inst != 0;
	lay.line_off = adv->inst % adv->L;
	lay.annotate = true;
	lay.slot = xcalloc(adv->n_members, sizeof(*lay.slot));
	for (unsigned i = 0; i < adv->n_members; i++) {
		lay.slot[lay.n++] = (struct slot){
			.m = &adv->members[i],
			.mi = &adv->mi[i],
			.offset = adv->members[i].offset,
		};
		lay.samples += adv->members[i].reads + adv->members[i].writes;
	}
	if (adv->stride)
		strbuf_addf(&sb, "/* one element of %s (%s) */\n", adv->what,
			    l->type_name);
	print_layout(&sb, &lay, adv->L);
	if (note)
		strbuf_addf(&sb, "/* %s */\n", note);
	layout_release(&lay);
	free(owned);
	return strbuf_detach(&sb);
}

/* ---- where the contending members meet ------------------------------ */

unsigned advice_shared_placements(uint64_t align, unsigned line_size,
				  uint64_t a_off, uint64_t a_size,
				  uint64_t b_off, uint64_t b_size,
				  unsigned *total)
{
	unsigned n = 0, sharing = 0;

	if (!align)
		align = 1;
	for (uint64_t p = 0; line_size && p < line_size; p += align) {
		uint64_t a0 = (p + a_off) / line_size;
		uint64_t a1 = (p + a_off + (a_size ? a_size : 1) - 1) / line_size;
		uint64_t b0 = (p + b_off) / line_size;
		uint64_t b1 = (p + b_off + (b_size ? b_size : 1) - 1) / line_size;

		if (a0 <= b1 && b0 <= a1)
			sharing++;
		n++;
	}
	if (total)
		*total = n;
	return sharing;
}

/* The hottest written member against the hottest member it victimizes. */
static bool contending_pair(const struct advisor *adv, int *a, int *b)
{
	const struct member_info *mi = adv->mi;

	*a = *b = -1;
	for (unsigned i = 0; i < adv->n_members; i++) {
		if (!mi[i].on_line || mi[i].group < 0 ||
		    !(mi[i].true_shared || mi[i].false_writer))
			continue;
		if (*a < 0 || mi[i].samples > mi[*a].samples)
			*a = (int)i;
	}
	/* its victim: one another writer group disturbs, not a field the
	 * same thread writes beside it (rx_bytes beside rx_packets) */
	for (int pass = 0; pass < 2 && *a >= 0 && *b < 0; pass++) {
		for (unsigned i = 0; i < adv->n_members; i++) {
			if (!mi[i].on_line || (int)i == *a || !mi[i].false_victim ||
			    (!pass && mi[i].group >= 0 && mi[i].group == mi[*a].group))
				continue;
			if (*b < 0 || mi[i].samples > mi[*b].samples)
				*b = (int)i;
		}
	}
	return *b >= 0;
}

/* The hottest member written on the line. */
static int hottest_written(const struct advisor *adv)
{
	int a = -1;

	for (unsigned i = 0; i < adv->n_members; i++)
		if (adv->mi[i].on_line && adv->mi[i].group >= 0 &&
		    (a < 0 || adv->mi[i].samples > adv->mi[a].samples))
			a = (int)i;
	return a;
}

/* When member a starts or ends the line here, the member just across
 * that boundary: in other placements the two may share a line.  *ends
 * says which boundary. */
static int across_boundary(const struct advisor *adv, int a, bool *ends)
{
	const struct report_member *m = &adv->members[a];
	uint64_t start = adv->inst + m->offset, end = start + m->size;
	int b = -1;

	if (!adv->inst || !m->size)
		return -1;
	*ends = end == adv->line->addr + adv->L;
	if (!*ends && start != adv->line->addr)
		return -1;
	for (unsigned i = 0; i < adv->n_members; i++) {
		const struct report_member *o = &adv->members[i];

		if (!o->size)
			continue;
		if (*ends && o->offset >= m->offset + m->size &&
		    (b < 0 || o->offset < adv->members[b].offset))
			b = (int)i;
		if (!*ends && o->offset + o->size <= m->offset &&
		    (b < 0 || o->offset > adv->members[b].offset))
			b = (int)i;
	}
	return b;
}

/* Fills the placement counts; returns the sentence for the layout.  The
 * pair is the hottest writer and the hottest member it victimizes; with
 * no victim here, the member across the line boundary next to the writer,
 * if in some placements the two would share a line (as at Klass's line
 * offset 24, where secondary_super_cache just ends a line). */
static char *placements(struct advisor *adv)
{
	struct report_line *l = adv->line;
	const struct report_member *a, *b;
	uint64_t align = l->struct_align;
	struct strbuf sb = STRBUF_INIT;
	unsigned n, total, mn, mtotal;
	bool across = false, ends = false;
	char *owned = NULL;
	const char *title;
	int ia, ib;

	if (!contending_pair(adv, &ia, &ib)) {
		ia = hottest_written(adv);
		ib = ia >= 0 ? across_boundary(adv, ia, &ends) : -1;
		across = true;
	}
	if (ib < 0)
		return NULL;
	a = &adv->members[ia];
	b = &adv->members[ib];
	if (!align)
		align = lowbit(adv->elem_size) < 16 ? lowbit(adv->elem_size) : 16;
	n = advice_shared_placements(align, adv->L, a->offset, a->size,
				     b->offset, b->size, &total);
	if (across && !n)
		return NULL;            /* apart by the layout, not by luck */
	l->advice.placements_sharing = n;
	l->advice.placements_total = total;

	title = layout_title(adv, &owned);
	if (across)
		strbuf_addf(&sb, "here %s %s the line; in %u of %u placements of "
			    "%s (%" PRIu64 "-byte alignment) it shares its "
			    "%u-byte line with %s, next to it", a->name,
			    ends ? "ends" : "starts", n, total, title, align,
			    adv->L, b->name);
	else
		strbuf_addf(&sb, "%s and %s share a %u-byte line in %u of %u "
			    "placements of %s (%" PRIu64 "-byte alignment)",
			    a->name, b->name, adv->L, n, total, title, align);
	if (adv->heap && align < 16) {
		mn = advice_shared_placements(16, adv->L, a->offset, a->size,
					      b->offset, b->size, &mtotal);
		strbuf_addf(&sb, "; at malloc's 16-byte alignment: %u of %u",
			    mn, mtotal);
	}
	free(owned);
	return strbuf_detach(&sb);
}

/* ---- proposed layouts ------------------------------------------------ */

/* Runs of overlapping members (unions, bitfields) move as one block. */
struct block {
	unsigned first, n;            /* members[first, first + n) */
	uint64_t start, size, align;
	int group;                    /* writer group on the line, -1: none */
	uint64_t new_start;
	bool line_aligned;
};

/* An alignment divides the member's size, its offset and the struct's
 * alignment: the lowest set bit of each bounds it from above. */
static uint64_t align_bound(uint64_t offset, uint64_t size,
			    uint64_t struct_align)
{
	uint64_t a = struct_align ? struct_align : 16;

	if (size && lowbit(size) < a)
		a = lowbit(size);
	if (offset && lowbit(offset) < a)
		a = lowbit(offset);
	return a;
}

/* Blocks of members, which are adv->members or a changed copy of them. */
static struct block *make_blocks(const struct advisor *adv,
				 const struct report_member *members,
				 unsigned *n_out)
{
	const struct report_line *l = adv->line;
	struct block *blk = xcalloc(adv->n_members ? adv->n_members : 1,
				    sizeof(*blk));
	unsigned n = 0;

	for (unsigned i = 0; i < adv->n_members; i++) {
		const struct report_member *m = &members[i];
		uint64_t a = align_bound(m->offset, m->size, l->struct_align);
		struct block *b = n ? &blk[n - 1] : NULL;

		if (!b || m->offset < b->start ||
		    m->offset >= b->start + b->size) {
			b = &blk[n++];
			*b = (struct block){ .first = i, .start = m->offset,
					     .group = -1 };
		}
		b->n++;
		if (m->offset + m->size > b->start + b->size)
			b->size = m->offset + m->size - b->start;
		if (a > b->align)
			b->align = a;
		if (b->group < 0)
			b->group = adv->mi[i].group;
	}
	*n_out = n;
	return blk;
}

/* Lays out blocks in the given order; returns sizeof, *align gets alignof. */
static uint64_t place_blocks(struct block *blk, const unsigned *order,
			     unsigned n, unsigned L, uint64_t *align)
{
	uint64_t off = 0;

	for (unsigned i = 0; i < n; i++) {
		struct block *b = &blk[order[i]];
		uint64_t a = b->line_aligned && L > b->align ? L : b->align;

		if (a > *align)
			*align = a;
		off = round_up(off, a);
		b->new_start = off;
		off += b->size;
	}
	return round_up(off, *align);
}

struct proposal {
	const struct report_member *members;   /* adv->members or a copy */
	struct block *blk;
	unsigned *order, n;
	uint64_t size, align;
};

/* Writer groups last, each starting a line of its own: nothing follows a
 * group but another group or the tail padding that rounds the struct to
 * whole lines, so only the groups pay for alignment. */
static void propose_groups(struct advisor *adv, struct proposal *p)
{
	unsigned k = 0;

	p->members = adv->members;
	p->blk = make_blocks(adv, p->members, &p->n);
	p->order = xcalloc(p->n ? p->n : 1, sizeof(*p->order));
	for (unsigned i = 0; i < p->n; i++)
		if (p->blk[i].group < 0)
			p->order[k++] = i;
	for (unsigned g = 0; g < adv->n_groups; g++) {
		bool first = true;

		for (unsigned i = 0; i < p->n; i++) {
			if (p->blk[i].group != (int)g)
				continue;
			p->blk[i].line_aligned = first;
			first = false;
			p->order[k++] = i;
		}
	}
	p->align = adv->line->struct_align;
	p->size = place_blocks(p->blk, p->order, p->n, adv->L, &p->align);
}

/* Same order, the whole instance on lines of its own. */
static void propose_aligned(struct advisor *adv, struct proposal *p)
{
	p->members = adv->members;
	p->blk = make_blocks(adv, p->members, &p->n);
	p->order = xcalloc(p->n ? p->n : 1, sizeof(*p->order));
	for (unsigned i = 0; i < p->n; i++) {
		p->order[i] = i;
		p->blk[i].group = -1;   /* no group gets a line of its own */
	}
	if (p->n)
		p->blk[0].line_aligned = true;
	p->align = adv->line->struct_align;
	p->size = place_blocks(p->blk, p->order, p->n, adv->L, &p->align);
}

static void proposal_release(struct proposal *p)
{
	free(p->blk);
	free(p->order);
}

static char *group_comment(const struct advisor *adv, int g)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "a line of its own: written by ");
	if (adv->groups[g].n)
		add_threads(&sb, &adv->groups[g]);
	else
		strbuf_addf(&sb, "unknown threads");
	return strbuf_detach(&sb);
}

static void print_proposal(struct strbuf *sb, struct advisor *adv,
			   const struct proposal *p)
{
	struct layout lay = { 0 };
	char *owned = NULL;
	int last_group = -1;

	lay.title = layout_title(adv, &owned);
	lay.cxx = adv->line->cxx;
	lay.size = p->size;
	lay.align = p->align;
	lay.placed = true;          /* _Alignas puts it at a line's start */
	lay.slot = xcalloc(adv->n_members ? adv->n_members : 1, sizeof(*lay.slot));
	for (unsigned i = 0; i < p->n; i++) {
		const struct block *b = &p->blk[p->order[i]];

		for (unsigned j = b->first; j < b->first + b->n; j++) {
			struct slot *s = &lay.slot[lay.n++];

			s->m = &p->members[j];
			s->mi = &adv->mi[j];
			s->offset = b->new_start + p->members[j].offset - b->start;
			s->line_aligned = b->line_aligned && j == b->first;
			if (j == b->first && b->group >= 0 &&
			    b->group != last_group)
				s->before = group_comment(adv, b->group);
		}
		if (b->group >= 0)
			last_group = b->group;
	}
	print_layout(sb, &lay, adv->L);
	if (adv->heap && p->align > 16)
		strbuf_addf(sb, "/* malloc aligns to 16 bytes only: allocate "
			    "with aligned_alloc(%" PRIu64 ", sizeof(%s)) */\n",
			    p->align, lay.title);
	layout_release(&lay);
	free(owned);
}

/* ---- what to say ------------------------------------------------------ */

static bool is_written(const struct member_info *mi)
{
	return mi->group >= 0;
}

static bool is_victim(const struct member_info *mi)
{
	return mi->group < 0 && (mi->samples || mi->false_victim);
}

/* Members on the line that pick() accepts, hottest first. */
static unsigned hottest_members(const struct advisor *adv,
				bool (*pick)(const struct member_info *),
				unsigned *idx)
{
	unsigned n = 0;

	for (unsigned i = 0; i < adv->n_members; i++) {
		unsigned j;

		if (!adv->mi[i].on_line || !pick(&adv->mi[i]))
			continue;
		j = n++;
		while (j && adv->mi[idx[j - 1]].samples < adv->mi[i].samples) {
			idx[j] = idx[j - 1];
			j--;
		}
		idx[j] = i;
	}
	return n;
}

static unsigned count_members(const struct advisor *adv,
			      bool (*pick)(const struct member_info *))
{
	unsigned n = 0;

	for (unsigned i = 0; i < adv->n_members; i++)
		n += adv->mi[i].on_line && pick(&adv->mi[i]);
	return n;
}

static void add_member_names(struct strbuf *sb, const struct advisor *adv,
			     const unsigned *idx, unsigned n)
{
	const char **name = xcalloc(n ? n : 1, sizeof(*name));

	for (unsigned i = 0; i < n; i++) {
		name[i] = adv->members[idx[i]].name;
		if (!name[i])
			name[i] = "<anonymous>";
	}
	add_names(sb, name, n);
	free(name);
}

/* "move a to its own cache line, away from b and c" */
static void say_groups(struct strbuf *sb, const struct advisor *adv)
{
	unsigned *idx = xcalloc(adv->n_members, sizeof(*idx));
	unsigned *in = xcalloc(adv->n_members, sizeof(*in));
	unsigned n = hottest_members(adv, is_written, idx);

	if (adv->n_groups == 1) {
		strbuf_addf(sb, "move ");
		add_member_names(sb, adv, idx, n);
		strbuf_addf(sb, n == 1 ? " to its own cache line" :
			    " to a cache line of their own");
	} else {
		strbuf_addf(sb, "give each writer its own cache line: ");
		for (unsigned g = 0; g < adv->n_groups; g++) {
			unsigned k = 0;

			for (unsigned i = 0; i < n; i++)
				if (adv->mi[idx[i]].group == (int)g)
					in[k++] = idx[i];
			strbuf_addf(sb, "%s", g ? ", " : "");
			add_member_names(sb, adv, in, k);
			strbuf_addf(sb, " (");
			add_threads(sb, &adv->groups[g]);
			strbuf_addf(sb, ")");
		}
	}
	n = hottest_members(adv, is_victim, idx);
	if (n) {
		strbuf_addf(sb, ", away from ");
		add_member_names(sb, adv, idx, n);
	}
	free(in);
	free(idx);
}

/* What a range is called in a sentence. */
static char *range_name(const struct advisor *adv, unsigned i)
{
	const struct report_range *r = &adv->line->ranges[i];
	int m = adv->range_member[i];

	if (m >= 0 && adv->members[m].name && *adv->members[m].name)
		return xstrdup(adv->members[m].name);
	if (r->member && *r->member)
		return xstrdup(r->member);
	return xasprintf("line offset %u", r->offset);
}

/* True-shared ranges with the same writers and readers, said together. */
struct sharing_clause {
	struct tidset writers, readers;   /* readers: that do not write it */
	char **name;
	unsigned n_name;
};

static void clause_add(struct sharing_clause **c, unsigned *n, struct tidset *w,
		       struct tidset *r, char *name)
{
	unsigned k;

	for (k = 0; k < *n; k++)
		if (tidset_equal(&(*c)[k].writers, w) && tidset_equal(&(*c)[k].readers, r))
			break;
	if (k == *n) {
		*c = xrealloc(*c, (*n + 1) * sizeof(**c));
		memset(&(*c)[k], 0, sizeof(**c));
		(*c)[k].writers = *w;
		(*c)[k].readers = *r;
		(*n)++;
	} else {
		tidset_release(w);
		tidset_release(r);
	}
	for (unsigned j = 0; j < (*c)[k].n_name; j++) {
		if (!strcmp((*c)[k].name[j], name)) {
			free(name);
			return;
		}
	}
	(*c)[k].name = xrealloc((*c)[k].name, ((*c)[k].n_name + 1) * sizeof(char *));
	(*c)[k].name[(*c)[k].n_name++] = name;
}

/*
 * "threads 101, 102 write the same bytes of x", or for a value one thread
 * publishes to others, "thread 101 writes head while thread 102 reads
 * it", over the true-shared ranges; false if there are none.
 * *multi_writer: some range has two or more writers.
 */
static bool say_true_sharing(struct strbuf *sb, const struct advisor *adv,
			     bool *multi_writer)
{
	const struct report_line *l = adv->line;
	struct sharing_clause *c = NULL;
	unsigned n = 0, said = 0;

	*multi_writer = false;
	for (unsigned i = 0; i < l->n_ranges; i++) {
		const struct report_range *r = &l->ranges[i];
		struct tidset w = { 0 }, rd = { 0 };

		if (!r->true_shared)
			continue;
		for (unsigned t = 0; t < r->n_threads; t++)
			if (r->threads[t].writes)
				tidset_add(&w, r->threads[t].tid);
		for (unsigned t = 0; t < r->n_threads; t++)
			if (r->threads[t].reads && !tidset_has(&w, r->threads[t].tid))
				tidset_add(&rd, r->threads[t].tid);
		*multi_writer |= w.n != 1;
		clause_add(&c, &n, &w, &rd, range_name(adv, i));
	}
	for (unsigned k = 0; k < n; k++) {
		const struct sharing_clause *cl = &c[k];

		if (cl->writers.n == 1 && !cl->readers.n)
			continue;       /* nobody else touches it */
		strbuf_addf(sb, "%s", said++ ? "; " : "");
		if (cl->writers.n == 1) {
			add_threads(sb, &cl->writers);
			strbuf_addf(sb, " writes ");
			add_names(sb, (const char *const *)cl->name, cl->n_name);
			strbuf_addf(sb, " while ");
			add_threads(sb, &cl->readers);
			strbuf_addf(sb, " read%s %s", cl->readers.n == 1 ? "s" : "",
				    cl->n_name > 1 ? "them" : "it");
		} else {
			if (cl->writers.n)
				add_threads(sb, &cl->writers);
			else
				strbuf_addf(sb, "threads");
			strbuf_addf(sb, " write the same bytes of ");
			add_names(sb, (const char *const *)cl->name, cl->n_name);
		}
	}
	for (unsigned k = 0; k < n; k++) {
		for (unsigned j = 0; j < c[k].n_name; j++)
			free(c[k].name[j]);
		free(c[k].name);
		tidset_release(&c[k].writers);
		tidset_release(&c[k].readers);
	}
	free(c);
	return said > 0;
}

/* One thread publishes, others read: no copies to sum, the readers need
 * the value; what helps is reading and publishing less often. */
static const char publish_remedies[] =
	"read the other thread's value less often (keep a local copy, re-read "
	"it only when that runs out) or publish in batches";

/* Mixed sharing: padding fixes the victims, not the true sharing. */
static void say_true_sharing_remains(struct strbuf *sb,
				     const struct advisor *adv)
{
	struct strbuf why = STRBUF_INIT;

	bool multi_writer;

	if (adv->line->kind == SHARING_MIXED && say_true_sharing(&why, adv, &multi_writer))
		strbuf_addf(sb, "; padding does not fix the true sharing (%s): %s",
			    why.buf, multi_writer ? remedies : publish_remedies);
	strbuf_release(&why);
}

/* ---- the kinds of advice -------------------------------------------- */

static void advise_true_sharing(struct advisor *adv)
{
	struct strbuf sb = STRBUF_INIT;

	bool multi_writer = true;

	strbuf_addf(&sb, "padding cannot help: ");
	if (!say_true_sharing(&sb, adv, &multi_writer))
		strbuf_addf(&sb, "threads write the same bytes of %s", adv->what);
	strbuf_addf(&sb, "; %s", multi_writer ? remedies : publish_remedies);
	adv->line->advice.summary = strbuf_detach(&sb);
}

/* Per-thread elements of an array: pad the element to whole lines. */
static void advise_elements(struct advisor *adv)
{
	struct report_line *l = adv->line;
	struct strbuf sb = STRBUF_INIT, text = STRBUF_INIT;
	uint64_t n = adv->n_elems, esz = adv->elem_size, padded;
	const char *var = l->variable ? l->variable : "array";
	char *title_owned = NULL;
	const char *title;

	if (adv->n_members) {
		struct proposal p;

		propose_aligned(adv, &p);
		print_proposal(&text, adv, &p);
		padded = p.size;
		proposal_release(&p);
		title = layout_title(adv, &title_owned);
	} else {
		char *tag = type_tag(adv->elem_type), *type, *decl;

		padded = round_up(esz, adv->L);
		split_declaration(adv->elem_type, "v", &type, &decl);
		title = title_owned = xasprintf("struct padded_%s", tag);
		strbuf_addf(&text, "%s {\n\t_Alignas(%u) %s %s;\n", title,
			    adv->L, type, decl);
		if (padded > esz)
			strbuf_addf(&text, "\tchar pad[%" PRIu64 "];\n",
				    padded - esz);
		strbuf_addf(&text, "};\n");
		free(tag);
		free(type);
		free(decl);
	}
	if (!adv->heap && n)
		strbuf_addf(&text, "%s %s[%" PRIu64 "];\t", title, var, n);
	if (n)
		strbuf_addf(&text, "/* %" PRIu64 " x %" PRIu64 " bytes: +%" PRIu64
			    " bytes */\n", n, padded, n * (padded - esz));
	else
		strbuf_addf(&text, "/* +%" PRIu64 " bytes per element */\n",
			    padded - esz);
	if (adv->heap && !adv->n_members)
		strbuf_addf(&text, "/* malloc aligns to 16 bytes only: allocate "
			    "with aligned_alloc(%u, n * sizeof(%s)) */\n",
			    adv->L, title);

	if (padded == esz)
		strbuf_addf(&sb, "align %s to the %u-byte line so that no two "
			    "elements share one", adv->what, adv->L);
	else
		strbuf_addf(&sb, "pad each element of %s to %s %u-byte line",
			    adv->what, padded > adv->L ? "whole" : "its own",
			    adv->L);
	if (n)
		strbuf_addf(&sb, " (%" PRIu64 " x %" PRIu64 " bytes)", n, padded);
	else if (padded > esz)
		strbuf_addf(&sb, " (+%" PRIu64 " bytes per element)",
			    padded - esz);
	say_true_sharing_remains(&sb, adv);

	l->advice.summary = strbuf_detach(&sb);
	l->advice.layout_proposed = strbuf_detach(&text);
	l->advice.cost_bytes = (long)((n ? n : 1) * (padded - esz));
	free(title_owned);
}

static bool range_written(const struct report_range *r)
{
	return r->false_writer;
}

static bool range_victim(const struct report_range *r)
{
	return r->false_victim && !r->false_writer;
}

/* Adds the names of the ranges pick() accepts; returns how many. */
static unsigned add_range_names(struct strbuf *sb, const struct advisor *adv,
				bool (*pick)(const struct report_range *))
{
	const struct report_line *l = adv->line;
	char **name = xcalloc(l->n_ranges ? l->n_ranges : 1, sizeof(*name));
	unsigned n = 0;

	for (unsigned i = 0; i < l->n_ranges; i++)
		if (pick(&l->ranges[i]))
			name[n++] = range_name(adv, i);
	add_names(sb, (const char *const *)name, n);
	for (unsigned i = 0; i < n; i++)
		free(name[i]);
	free(name);
	return n;
}

/* A scalar variable: a line of its own. */
static void advise_scalar(struct advisor *adv)
{
	struct report_line *l = adv->line;
	struct strbuf sb = STRBUF_INIT;
	uint64_t padded = round_up(adv->elem_size, adv->L);
	char *type, *decl;

	split_declaration(l->type_name, "v", &type, &decl);
	strbuf_addf(&sb, "struct {\n\t_Alignas(%u) %s %s;\n} %s;\t"
		    "/* was %s %s; use %s.v: +%" PRIu64 " bytes */\n",
		    adv->L, type, decl, l->variable, l->type_name,
		    l->variable, l->variable, padded - adv->elem_size);
	l->advice.layout_proposed = strbuf_detach(&sb);
	l->advice.cost_bytes = (long)(padded - adv->elem_size);

	strbuf_addf(&sb, "give %s a %u-byte line of its own: it shares one "
		    "with data other threads use", l->variable, adv->L);
	say_true_sharing_remains(&sb, adv);
	l->advice.summary = strbuf_detach(&sb);
	free(type);
	free(decl);
}

/* Only a binary without DWARF is helped by "build with -g". */
static void say_why_untyped(struct strbuf *sb, const struct report_line *l)
{
	const char *why = l->untyped_why;

	if (!why || !strcmp(why, data_types_miss_name(DT_NO_DWARF)))
		strbuf_addf(sb, " (no type information for a layout: build with -g)");
	else
		strbuf_addf(sb, " (no type information for a layout: %s)", why);
}

/* No layout to work with: say which bytes to separate. */
static void advise_untyped(struct advisor *adv)
{
	struct report_line *l = adv->line;
	struct strbuf sb = STRBUF_INIT, writers = STRBUF_INIT;
	struct strbuf victims = STRBUF_INIT;
	unsigned n;

	if (l->type_name && l->variable && !adv->is_array) {
		advise_scalar(adv);
		return;
	}
	n = add_range_names(&writers, adv, range_written);
	if (n == 1)
		strbuf_addf(&sb, "move %s to a %u-byte line of its own",
			    writers.buf, adv->L);
	else if (n)
		strbuf_addf(&sb, "put %s on separate %u-byte lines",
			    writers.buf, adv->L);
	else
		strbuf_addf(&sb, "put the data different threads write on "
			    "separate %u-byte lines", adv->L);
	if (add_range_names(&victims, adv, range_victim))
		strbuf_addf(&sb, ", away from %s", victims.buf);
	if (!l->type_name)
		say_why_untyped(&sb, l);
	say_true_sharing_remains(&sb, adv);
	l->advice.summary = strbuf_detach(&sb);
	strbuf_release(&writers);
	strbuf_release(&victims);
}

static void advise_struct(struct advisor *adv)
{
	struct report_line *l = adv->line;
	struct strbuf sb = STRBUF_INIT, text = STRBUF_INIT;
	/* the fight is inside the struct: members to part */
	bool inside = adv->n_groups >= 2 ||
		      (adv->n_groups && count_members(adv, is_victim));
	struct proposal p;

	if (!inside && !adv->n_groups && !adv->outside) {
		advise_untyped(adv);    /* nothing in the struct to move */
		return;
	}
	if (inside) {
		say_groups(&sb, adv);
		propose_groups(adv, &p);
	} else {
		char *owned = NULL;

		/* a heap object is one of many: the pointer names none */
		if (adv->heap)
			strbuf_addf(&sb, "give each %s",
				    layout_title(adv, &owned));
		else
			strbuf_addf(&sb, "give %s", adv->what);
		strbuf_addf(&sb, " a %u-byte line of its own: it shares one "
			    "with data other threads use", adv->L);
		propose_aligned(adv, &p);
		free(owned);
	}
	say_true_sharing_remains(&sb, adv);
	print_proposal(&text, adv, &p);
	strbuf_addf(&text, "/* cost: %+" PRId64 " bytes per instance (%" PRIu64
		    " -> %" PRIu64 ") */\n", (int64_t)(p.size - adv->elem_size),
		    adv->elem_size, p.size);

	l->advice.summary = strbuf_detach(&sb);
	l->advice.layout_proposed = strbuf_detach(&text);
	l->advice.cost_bytes = (long)(p.size - adv->elem_size);
	proposal_release(&p);
}

/* ---- locks ------------------------------------------------------------- */

static const char lock_remedies[] =
	"shard it (a lock per bucket or per group of threads) or the data "
	"it protects, hold it for less time (work outside it), or give each "
	"thread its own data and merge at the end";

/* The range of the line that is the lock (report_build names it so). */
static const struct report_range *lock_range(const struct report_line *l)
{
	for (unsigned i = 0; i < l->n_ranges; i++)
		if (l->ranges[i].member && !strcmp(l->ranges[i].member, l->lock.name))
			return &l->ranges[i];
	return NULL;
}

/* "threads 101, 102 take it in turn" */
static void say_lock_takers(struct strbuf *sb, const struct report_range *r)
{
	struct tidset takers = { 0 };

	for (unsigned t = 0; t < r->n_threads; t++)
		tidset_add(&takers, r->threads[t].tid);
	if (takers.n >= 2) {
		add_threads(sb, &takers);
		strbuf_addf(sb, " take it in turn");
	} else {
		strbuf_addf(sb, "threads take it in turn");
	}
	tidset_release(&takers);
}

/* A lock on more than one line costs a transfer of each to take it. */
static void say_lock_straddles(struct strbuf *sb, const struct report_lock *k,
			       unsigned L)
{
	const char *member = strrchr(k->name, '.');

	if (!k->size || k->addr / L == (k->addr + k->size - 1) / L)
		return;
	strbuf_addf(sb, "; it straddles two %u-byte lines (%" PRIu64 " bytes "
		    "from line offset %" PRIu64 ")", L, k->size, k->addr % L);
	if (member && k->type_name)
		strbuf_addf(sb, ": declare it _Alignas(%u) %s %s; to keep it on "
			    "one", L, k->type_name, member + 1);
	else
		strbuf_addf(sb, ": align it to a line to keep it on one");
}

/* Other data on the lock's line that the lock's traffic hurts. */
static void say_lock_neighbours(struct strbuf *sb, const struct advisor *adv)
{
	const struct report_line *l = adv->line;
	const char **name = xcalloc(l->n_ranges ? l->n_ranges : 1, sizeof(*name));
	char **owned = xcalloc(l->n_ranges ? l->n_ranges : 1, sizeof(*owned));
	unsigned n = 0;

	for (unsigned i = 0; i < l->n_ranges; i++) {
		const struct report_range *r = &l->ranges[i];

		if (!(r->false_victim || r->false_writer) ||
		    (r->member && !strcmp(r->member, l->lock.name)))
			continue;
		name[n] = owned[n] = range_name(adv, i);
		n++;
	}
	if (n) {
		strbuf_addf(sb, "; ");
		add_names(sb, name, n);
		strbuf_addf(sb, " share%s the lock's line: move %s to a line of "
			    "%s own", n == 1 ? "s" : "", n == 1 ? "it" : "them",
			    n == 1 ? "its" : "their");
	}
	for (unsigned i = 0; i < n; i++)
		free(owned[i]);
	free(owned);
	free(name);
}

/*
 * Threads take a lock in turn: the lock word itself moves between them,
 * and no padding changes that.  Its insides are the library's: no
 * layout is proposed for them.
 */
static void advise_lock(struct advisor *adv, const struct report_range *r)
{
	struct report_line *l = adv->line;
	const struct report_lock *k = &l->lock;
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "lock contention on %s", k->name);
	if (k->type_name)
		strbuf_addf(&sb, " (%s)", k->type_name);
	strbuf_addf(&sb, ": ");
	say_lock_takers(&sb, r);
	strbuf_addf(&sb, ", and padding cannot help; %s", lock_remedies);
	say_lock_straddles(&sb, k, adv->L);
	say_lock_neighbours(&sb, adv);
	l->advice.summary = strbuf_detach(&sb);
}

/* "long" -> "struct { _Alignas(64) long v; }[4]": an array whose
 * elements each start a line; the alignment rounds each one's size up to
 * whole lines, so no pad member is needed. */
static char *padded_array_type(const char *elem_type, uint64_t n, unsigned L)
{
	char *type, *decl, *padded;

	split_declaration(elem_type, "v", &type, &decl);
	padded = xasprintf("struct { _Alignas(%u) %s %s; }[%" PRIu64 "]", L,
			   type, decl, n);
	free(type);
	free(decl);
	return padded;
}

/* The struct as it is, but for the split member, whose elements are
 * padded to lines of their own (members: a copy with that one changed). */
static void propose_split_member(struct advisor *adv,
				 const struct report_member *members,
				 struct proposal *p)
{
	p->members = members;
	p->blk = make_blocks(adv, members, &p->n);
	p->order = xcalloc(p->n ? p->n : 1, sizeof(*p->order));
	for (unsigned i = 0; i < p->n; i++) {
		struct block *b = &p->blk[i];

		p->order[i] = i;
		b->group = -1;          /* no writer group is moved */
		if ((int)b->first <= adv->split_member &&
		    adv->split_member < (int)(b->first + b->n) && b->align < adv->L)
			b->align = adv->L;
	}
	p->align = adv->line->struct_align;
	p->size = place_blocks(p->blk, p->order, p->n, adv->L, &p->align);
}

/* Threads contend on different elements of one array member (one slot
 * per thread): aligning the struct keeps the slots on one line; padding
 * each slot to lines of its own parts them. */
static void advise_member_elements(struct advisor *adv)
{
	struct report_line *l = adv->line;
	const struct report_member *m = &adv->members[adv->split_member];
	struct report_member *changed = xcalloc(adv->n_members, sizeof(*changed));
	struct strbuf sb = STRBUF_INIT, text = STRBUF_INIT;
	const char *name = m->name ? m->name : "<anonymous>";
	uint64_t n, esz, padded;
	char *elem_type, *owned = NULL;
	const char *title;
	struct proposal p;

	member_array(m, &elem_type, &n, &esz);
	padded = round_up(esz, adv->L);
	memcpy(changed, adv->members, adv->n_members * sizeof(*changed));
	changed[adv->split_member].type_name =
		padded_array_type(elem_type, n, adv->L);
	changed[adv->split_member].size = n * padded;
	propose_split_member(adv, changed, &p);
	print_proposal(&text, adv, &p);
	strbuf_addf(&text, "/* use %s[i].v; cost: %+" PRId64 " bytes per "
		    "instance (%" PRIu64 " -> %" PRIu64 ") */\n", name,
		    (int64_t)(p.size - adv->elem_size), adv->elem_size, p.size);

	title = layout_title(adv, &owned);
	if (padded == esz)
		strbuf_addf(&sb, "align each element of %s in %s to the %u-byte "
			    "line so that no two share one", name, title, adv->L);
	else
		strbuf_addf(&sb, "pad each element of %s in %s to %s %u-byte "
			    "line", name, title,
			    padded > adv->L ? "whole" : "its own", adv->L);
	strbuf_addf(&sb, " (%" PRIu64 " x %" PRIu64 " bytes): threads "
		    "contend on different elements of it", n, padded);
	say_true_sharing_remains(&sb, adv);

	l->advice.summary = strbuf_detach(&sb);
	l->advice.layout_proposed = strbuf_detach(&text);
	l->advice.cost_bytes = (long)(p.size - adv->elem_size);
	proposal_release(&p);
	free(changed[adv->split_member].type_name);
	free(changed);
	free(elem_type);
	free(owned);
}

/* s with every from replaced by to; s is freed. */
static char *replace_all(char *s, const char *from, const char *to)
{
	struct strbuf sb = STRBUF_INIT;
	const char *p = s, *hit;

	if (!s || !strstr(s, from))
		return s;
	while ((hit = strstr(p, from))) {
		strbuf_add(&sb, p, (size_t)(hit - p));
		strbuf_add(&sb, to, strlen(to));
		p = hit + strlen(from);
	}
	strbuf_add(&sb, p, strlen(p));
	free(s);
	return strbuf_detach(&sb);
}

/* The advice is written in C; a C++ program wants alignas, and its new
 * aligns over-aligned types by itself (C++17). */
static void respell_for_cxx(struct report_advice *a)
{
	char **texts[] = { &a->summary, &a->layout_now, &a->layout_proposed };

	for (size_t i = 0; i < ARRAY_SIZE(texts); i++) {
		*texts[i] = replace_all(*texts[i], "_Alignas(", "alignas(");
		*texts[i] = replace_all(*texts[i], "/* malloc aligns to 16 bytes only: allocate with ",
					"/* new aligns it (C++17); malloc to 16 bytes only: use ");
	}
}

void advice_for_line(struct report_line *line, bool heap_object)
{
	struct advisor adv;
	char *note = NULL;
	const struct report_range *lock;
	bool elements, split;

	/* Overwritten, not freed: the caller's line may come from plain
	 * malloc, and report_free() owns whatever was there before. */
	memset(&line->advice, 0, sizeof(line->advice));
	advisor_init(&adv, line, heap_object);
	elements = adv.is_array && !adv.nested &&
		   (!adv.n_members || adv.spans_elements);
	/* elements of one member always share where they meet: no luck of
	 * placement to count */
	split = !elements && adv.split_member >= 0;
	if (adv.n_members && !elements && !split)
		note = placements(&adv);
	if (adv.n_members)
		line->advice.layout_now = layout_now(&adv, note);

	if (line->kind == SHARING_NONE)
		line->advice.summary = xstrdup("no contention: nothing to change");
	else if (line->lock.name && (lock = lock_range(line)) &&
		 lock->true_shared)
		advise_lock(&adv, lock);
	else if (line->kind == SHARING_TRUE)
		advise_true_sharing(&adv);
	else if (elements)
		advise_elements(&adv);
	else if (split)
		advise_member_elements(&adv);
	else if (adv.n_members)
		advise_struct(&adv);
	else
		advise_untyped(&adv);

	if (line->cxx)
		respell_for_cxx(&line->advice);
	free(note);
	advisor_release(&adv);
}
