/* member_range.c - consecutive array elements named as one range (member_range.h). */
#include "reports/member_range.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "reports/report.h"
#include "reports/report_build.h"

/* [s, end) is a decimal number, nothing else. */
static bool parse_index(const char *s, const char *end, unsigned long *out)
{
	unsigned long v = 0;

	if (s >= end)
		return false;
	for (; s < end; s++) {
		unsigned d = (unsigned)(*s - '0');

		if (d > 9 || v > (ULONG_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*out = v;
	return true;
}

bool member_range_parse(const char *member, size_t *prefix_len,
			unsigned long *first, unsigned long *last)
{
	const char *open, *end, *dots;

	if (!member || !*member)
		return false;
	end = member + strlen(member) - 1;
	open = strrchr(member, '[');
	if (*end != ']' || !open)
		return false;
	dots = strstr(open, "..");
	if (dots) {
		if (!parse_index(open + 1, dots, first) || !parse_index(dots + 2, end, last) ||
		    *first > *last)
			return false;
	} else {
		if (!parse_index(open + 1, end, first))
			return false;
		*last = *first;
	}
	*prefix_len = (size_t)(open - member);
	return true;
}

/* The same threads (sorted by tid), the same of them writing. */
static bool same_threads(const struct report_range *a, const struct report_range *b)
{
	if (a->n_threads != b->n_threads)
		return false;
	for (unsigned i = 0; i < a->n_threads; i++)
		if (a->threads[i].tid != b->threads[i].tid ||
		    a->threads[i].pid != b->threads[i].pid ||
		    !a->threads[i].writes != !b->threads[i].writes)
			return false;
	return true;
}

/* A run of elements being merged: ranges[first..last] of one array. */
struct run {
	struct report_range r;
	size_t prefix_len;
	unsigned long first, last;
	unsigned elem_size;
};

static bool continues(const struct run *run, const struct report_range *next)
{
	size_t len;
	unsigned long a, b;

	if (!member_range_parse(next->member, &len, &a, &b) || a != b)
		return false;
	if (len != run->prefix_len || strncmp(next->member, run->r.member, len))
		return false;
	if (run->last == ULONG_MAX || a != run->last + 1)
		return false;
	if (next->size != run->elem_size || next->offset != run->r.offset + run->r.size)
		return false;
	if (next->true_shared != run->r.true_shared)
		return false;
	return same_threads(&run->r, next);
}

static void mem_sum(struct report_mem *to, const struct report_mem *m)
{
	to->hitm_local += m->hitm_local;
	to->hitm_remote += m->hitm_remote;
	to->peer += m->peer;
	to->latency += m->latency;
	to->weighted += m->weighted;
}

static bool same_chain(const struct report_chain *a, const struct report_chain *b)
{
	if (a->n_frames != b->n_frames)
		return false;
	for (unsigned i = 0; i < a->n_frames; i++)
		if (strcmp(a->frames[i] ? a->frames[i] : "", b->frames[i] ? b->frames[i] : ""))
			return false;
	return true;
}

static void free_chain(struct report_chain *c)
{
	for (unsigned i = 0; i < c->n_frames; i++)
		free(c->frames[i]);
	free(c->frames);
}

static int cmp_chain(const void *a, const void *b)
{
	const struct report_chain *x = a, *y = b;

	return (x->count < y->count) - (x->count > y->count);
}

/* from's chains go to the site that has them, or join it while it has
 * room (REPORT_SITE_CHAINS, the most sampled first). */
static void merge_chains(struct report_site *to, struct report_site *from)
{
	for (unsigned i = 0; i < from->n_chains; i++) {
		struct report_chain *c = &from->chains[i];
		unsigned k = 0;

		while (k < to->n_chains && !same_chain(&to->chains[k], c))
			k++;
		if (k < to->n_chains) {
			to->chains[k].count += c->count;
			free_chain(c);
		} else if (to->n_chains < REPORT_SITE_CHAINS) {
			to->chains = xrealloc(to->chains, (to->n_chains + 1) * sizeof(*to->chains));
			to->chains[to->n_chains++] = *c;
		} else {
			free_chain(c);
		}
	}
	free(from->chains);
	from->chains = NULL;
	from->n_chains = 0;
	sort_items(to->chains, to->n_chains, sizeof(*to->chains), cmp_chain);
}

static int cmp_site(const void *a, const void *b)
{
	const struct report_site *x = a, *y = b;
	uint64_t nx = x->reads + x->writes, ny = y->reads + y->writes;

	if (nx != ny)
		return nx > ny ? -1 : 1;
	if (x->ip != y->ip)
		return x->ip < y->ip ? -1 : 1;
	return (x->pid > y->pid) - (x->pid < y->pid);
}

static void merge_sites(struct report_range *to, struct report_range *from)
{
	for (unsigned i = 0; i < from->n_sites; i++) {
		struct report_site *s = &from->sites[i];
		unsigned k = 0;

		while (k < to->n_sites && (to->sites[k].ip != s->ip || to->sites[k].pid != s->pid))
			k++;
		if (k < to->n_sites) {
			to->sites[k].reads += s->reads;
			to->sites[k].writes += s->writes;
			merge_chains(&to->sites[k], s);
			report_site_release(s);
		} else {
			to->sites = xrealloc(to->sites, (to->n_sites + 1) * sizeof(*to->sites));
			to->sites[to->n_sites++] = *s;
		}
	}
	free(from->sites);
	sort_items(to->sites, to->n_sites, sizeof(*to->sites), cmp_site);
}

/* next's bytes, samples, threads and sites join the run; next is gone. */
static void absorb(struct run *run, struct report_range *next)
{
	struct report_range *r = &run->r;

	r->size += next->size;
	/* one writer's elements, one of them seen as a victim or a writer by
	 * chance of the samples: the run is what any element was */
	r->false_victim |= next->false_victim;
	r->false_writer |= next->false_writer;
	r->reads += next->reads;
	r->writes += next->writes;
	mem_sum(&r->mem, &next->mem);
	for (unsigned i = 0; i < r->n_threads; i++) {   /* the same threads */
		r->threads[i].reads += next->threads[i].reads;
		r->threads[i].writes += next->threads[i].writes;
		mem_sum(&r->threads[i].mem, &next->threads[i].mem);
		free(next->threads[i].comm);
	}
	free(next->threads);
	merge_sites(r, next);
	free(next->member);
	run->last++;
}

void member_ranges_merge(struct report_line *rl)
{
	unsigned kept = 0;

	for (unsigned i = 0; i < rl->n_ranges;) {
		struct run run = { .r = rl->ranges[i] };
		unsigned j = i + 1;

		if (member_range_parse(run.r.member, &run.prefix_len, &run.first, &run.last) &&
		    run.first == run.last) {
			run.elem_size = run.r.size;
			for (; j < rl->n_ranges && continues(&run, &rl->ranges[j]); j++)
				absorb(&run, &rl->ranges[j]);
			if (run.last > run.first) {
				char *name = xasprintf("%.*s[%lu..%lu]", (int)run.prefix_len,
						       run.r.member, run.first, run.last);

				free(run.r.member);
				run.r.member = name;
			}
		}
		rl->ranges[kept++] = run.r;
		i = j;
	}
	rl->n_ranges = kept;
}
