/* advice_layout.c - the layout model of a contended line's struct.
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
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "reports/advice_internal.h"
#include "common/escape.h"

/* ---- thread sets -------------------------------------------------------- */

void tidset_add(struct tidset *s, uint32_t tid)
{
	unsigned i = 0;

	while (i < s->n && s->tid[i] < tid)
		i++;
	if (i < s->n && s->tid[i] == tid)
		return;
	ALLOC_GROW(s->tid, s->n + 1, s->alloc);
	move_bytes(s->tid + i + 1, s->tid + i, (s->n - i) * sizeof(*s->tid));
	s->tid[i] = tid;
	s->n++;
}

bool tidset_has(const struct tidset *s, uint32_t tid)
{
	for (unsigned i = 0; i < s->n; i++)
		if (s->tid[i] == tid)
			return true;
	return false;
}

bool tidset_equal(const struct tidset *a, const struct tidset *b)
{
	return a->n == b->n && (!a->n ||
		!memcmp(a->tid, b->tid, a->n * sizeof(*a->tid)));
}

void tidset_release(struct tidset *s)
{
	free(s->tid);
	s->tid = NULL;
	s->n = s->alloc = 0;
}

/* ---- paths and types ---------------------------------------------------- */

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

/* "long[8]" -> elem "long", n 8; "long[2][4]" -> "long[4]", 2; "long[]" -> 0. */
bool parse_array_type(const char *type, char **elem, uint64_t *n)
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

/* ---- mapping the line's ranges onto the object ------------------------- */

static uint64_t members_end(const struct advisor *adv)
{
	uint64_t end = 0;

	for (unsigned i = 0; i < adv->n_members; i++)
		if (adv->members[i].offset + adv->members[i].size > end)
			end = adv->members[i].offset + adv->members[i].size;
	return end;
}

/* Every member is of the line's own "struct" type: the elements of a
 * scalar a pointer points to ("*red", "[1]" of int *red), no struct at
 * all -- no member of a struct has the struct's type. */
static bool members_are_scalars(const struct report_line *l)
{
	if (!l->struct_name || !l->n_members)
		return false;
	for (unsigned i = 0; i < l->n_members; i++)
		if (!l->members[i].type_name || strcmp(l->members[i].type_name, l->struct_name))
			return false;
	return true;
}

/* The report names the elements of an array of scalars as members:
 * "counters[1]"; a struct member's name never ends in a subscript. */
static bool members_are_elements(const struct report_line *l)
{
	if (members_are_scalars(l))
		return true;
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

/* Member i is off the line, and a thread writes it that writes nothing
 * on the line (which has a writer of its own: line_written). */
static bool written_elsewhere(const struct advisor *adv, unsigned i, bool line_written)
{
	const struct report_member *m = &adv->members[i];

	if (!line_written || adv->mi[i].on_line || !m->n_writers)
		return false;
	for (unsigned t = 0; t < m->n_writers; t++) {
		bool on_line = false;

		for (unsigned j = 0; j < adv->n_members && !on_line; j++) {
			const struct report_member *o = &adv->members[j];

			if (!adv->mi[j].on_line)
				continue;
			for (unsigned u = 0; u < o->n_writers && !on_line; u++)
				on_line = o->writers[u] == m->writers[t];
		}
		if (!on_line)
			return true;
	}
	return false;
}

/* Members written on the line, grouped by the set of threads writing them;
 * and the members of the instance written on its other lines, by threads
 * the line's writers are not: a proposal that keeps them where they are
 * beside this line's writers would seat a new false sharing (the line's
 * writer groups need lines of their own, and so do theirs). */
static void group_writers(struct advisor *adv)
{
	bool line_written = false;

	for (unsigned j = 0; j < adv->n_members; j++)
		line_written |= adv->mi[j].on_line && adv->members[j].n_writers;
	for (unsigned i = 0; i < adv->n_members; i++) {
		const struct report_member *m = &adv->members[i];
		struct tidset set = { 0 };
		unsigned g;

		adv->mi[i].group = -1;
		if (m->base)          /* a base class comes first, always */
			continue;
		if (!adv->mi[i].on_line && !written_elsewhere(adv, i, line_written))
			continue;
		if (!m->n_writers && !m->writes)
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

/* "struct counters" as C names it; a bare "Klass" (C++, Rust, a typedef)
 * gets its key: "struct Klass", or "class Counters" for a C++ class (a
 * class's members are private unless said otherwise; a proposal spelled
 * struct would make them public). */
static const char *title_of(const char *type, bool cxx_class, char **owned)
{
	if (!type)
		return "struct";
	if (!strncmp(type, "struct ", 7) || !strncmp(type, "union ", 6) ||
	    !strncmp(type, "class ", 6))
		return type;
	return *owned = xasprintf("%s %s", cxx_class ? "class" : "struct", type);
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
		/* a library's insides ("__data.__kind" of a mutex, named by
		 * the library's code that reached it) nest in its own types,
		 * not in the user's struct */
		if (outer[0] == '_' && (outer[1] == '_' || isupper((unsigned char)outer[1])))
			continue;
		adv->nested = true;
		/* the members' struct by its name where it has one */
		if (l->struct_name && !strstr(l->struct_name, "{...}")) {
			char *owned = NULL;

			adv->nested_title = xstrdup(title_of(l->struct_name, l->cxx_class,
							     &owned));
			free(owned);
		} else {
			adv->nested_title = xasprintf("struct <type of %.*s>", (int)len, outer);
		}
		return;
	}
}

/* Element count and element size of an array member; false if it is
 * no array of known bound. */
bool member_array(const struct report_member *m, char **elem_type,
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

void advisor_init(struct advisor *adv, struct report_line *line,
			 bool heap)
{
	memset(adv, 0, sizeof(*adv));
	adv->line = line;
	adv->heap = heap;
	adv->L = line->line_size ? line->line_size : 64;
	adv->what = line->variable ? line->variable :
		    line->object ? line->object : "the object";
	/* a heap array no variable names: by its type and where it was
	 * allocated, not by its address ("[heap]+0x11ec0") */
	if (!line->variable && line->alloc && line->alloc->site && line->type_name)
		adv->what = adv->owned_what = xasprintf("the %s allocated in %s",
							line->type_name, line->alloc->site);
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

void advisor_release(struct advisor *adv)
{
	for (unsigned g = 0; g < adv->n_groups; g++)
		tidset_release(&adv->groups[g]);
	free(adv->groups);
	free(adv->mi);
	free(adv->range_member);
	free(adv->range_member_elem);
	free(adv->owned_members);
	free(adv->owned_what);
	free(adv->elem_type);
	free(adv->nested_title);
}

/* ---- the current layout as rows ---------------------------------------- */


/* The layout's title: the nested struct's, else the type's (title_of). */
const char *layout_title(const struct advisor *adv, char **owned)
{
	if (adv->nested)
		return adv->nested_title;
	return title_of(adv->is_array ? adv->elem_type : adv->line->type_name,
			adv->line->cxx_class, owned);
}

static uint32_t *copy_tids(const uint32_t *tids, unsigned n)
{
	uint32_t *copy;

	if (!n)
		return NULL;
	copy = xcalloc(n, sizeof(*copy));
	copy_bytes(copy, tids, n * sizeof(*copy));
	return copy;
}

/* An alignment divides the member's size, its offset and the struct's
 * alignment: the lowest set bit of each bounds it from above. */
uint64_t align_bound(uint64_t offset, uint64_t size, uint64_t struct_align)
{
	uint64_t a = struct_align ? struct_align : 16;

	if (size && lowbit(size) < a)
		a = lowbit(size);
	if (offset && lowbit(offset) < a)
		a = lowbit(offset);
	return a;
}

/* The struct as it is: every member with the threads that write and
 * read it, its share of the samples and the lines it lies on. */
void current_layout(struct advisor *adv, const char *note,
		    struct report_layout *lay)
{
	const struct report_line *l = adv->line;
	struct strbuf ew = STRBUF_INIT, et = STRBUF_INIT;
	char *owned = NULL;

	lay->style = LAYOUT_PAHOLE;
	lay->title = xstrdup(layout_title(adv, &owned));
	lay->cxx = l->cxx;
	lay->rust = l->rust;
	lay->go = l->go;
	lay->line_size = adv->L;
	lay->size = adv->elem_size;
	lay->align = l->struct_align;
	lay->placed = adv->inst != 0;
	lay->line_offset = adv->inst % adv->L;
	lay->annotated = true;
	lay->rows = xcalloc(adv->n_members ? adv->n_members : 1,
			    sizeof(*lay->rows));
	for (unsigned i = 0; i < adv->n_members; i++) {
		const struct report_member *m = &adv->members[i];
		struct report_layout_row *row = &lay->rows[lay->n_rows++];

		row->member = m->name ? xstrdup(m->name) : NULL;
		row->type_name = m->type_name ? xstrdup(m->type_name) : NULL;
		row->access = m->access;
		row->base = m->base;
		row->offset = m->offset;
		row->size = m->size;
		row->align = align_bound(m->offset, m->size, l->struct_align);
		row->hidden = adv->mi[i].hidden;
		row->writers = copy_tids(m->writers, m->n_writers);
		row->n_writers = m->n_writers;
		row->readers = copy_tids(m->readers, m->n_readers);
		row->n_readers = m->n_readers;
		row->accesses = m->reads + m->writes;
		lay->accesses += row->accesses;
	}
	/* before and after are lines of C comments, printed line by line:
	 * the names in them are escaped here (a newline in a DWARF name would
	 * end the comment and start a line of its own) */
	if (adv->stride && adv->owned_what)     /* "the Stats[4] allocated in" */
		lay->before = xasprintf("/* one element of %s */\n",
					escape_text(&ew, adv->what));
	else if (adv->stride)
		lay->before = xasprintf("/* one element of %s (%s) */\n",
					escape_text(&ew, adv->what),
					escape_text(&et, l->type_name));
	if (note)
		layout_add_after(lay, "/* %s */\n", escape_text(&ew, note));
	layout_measure(lay);
	strbuf_release(&ew);
	strbuf_release(&et);
	free(owned);
}

/* Each row's hole before it is what lies between it and the furthest end
 * of the rows before it (unions overlap); the line of a row is counted
 * from the one the instance starts in. */
void layout_measure(struct report_layout *lay)
{
	uint64_t end = 0;

	for (unsigned i = 0; i < lay->n_rows; i++) {
		struct report_layout_row *row = &lay->rows[i];

		row->padding_before = row->offset > end ? row->offset - end : 0;
		row->line = lay->placed && lay->line_size ?
			(long)((row->offset + lay->line_offset) / lay->line_size) : -1;
		row->share = lay->accesses ?
			(double)row->accesses / (double)lay->accesses : 0;
		if (row->offset + row->size > end)
			end = row->offset + row->size;
	}
	lay->tail_padding = lay->size > end ? lay->size - end : 0;
}

void layout_add_after(struct report_layout *lay, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	if (lay->after)
		strbuf_addf(&sb, "%s", lay->after);
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	free(lay->after);
	lay->after = strbuf_detach(&sb);
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
bool contending_pair(const struct advisor *adv, int *a, int *b)
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
int hottest_written(const struct advisor *adv)
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
int across_boundary(const struct advisor *adv, int a, bool *ends)
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
