/* cxx_library.c - C++ standard library objects in the words of the code
 * that uses them (cxx_library.h). */
#include "reports/cxx_library.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "reports/advice.h"
#include "reports/latent.h"
#include "reports/report.h"

struct library_object {
	const char *const members[4];   /* libstdc++'s and libc++'s, NULL-ended */
	const char *name;               /* the type, as the user knows it */
	const char *what;               /* what the contended members are */
	const char *advice;             /* after "; " */
};

static const struct library_object objects[] = {
	{ { "_M_use_count", "_M_weak_count", "__shared_owners_", "__shared_weak_owners_" },
	  "std::shared_ptr control block",
	  "the reference count of a std::shared_ptr: every copy of the shared_ptr "
	  "adds one to it and every destruction takes one away, atomic writes to "
	  "one line that all threads holding the same object share",
	  "pass the shared_ptr by const reference (const std::shared_ptr<T> &) or "
	  "the object itself (T &) where the callee does not keep it, and copy it "
	  "once per thread, not once per call" },
};

/* Does the member path name one of o's members ("[0]._M_use_count")? */
static bool names_member(const struct library_object *o, const char *path)
{
	for (unsigned i = 0; path && i < ARRAY_SIZE(o->members) && o->members[i]; i++) {
		const char *p = strstr(path, o->members[i]);
		size_t n = strlen(o->members[i]);

		if (p && (p == path || strchr(".>[", p[-1])) && !isalnum((unsigned char)p[n]) &&
		    p[n] != '_')
			return true;
	}
	return false;
}

/* The most sampled site that writes one of o's members. */
static const struct report_site *hottest_writer(const struct report_line *rl,
						const struct library_object *o)
{
	const struct report_site *best = NULL;

	for (unsigned i = 0; i < rl->n_ranges; i++) {
		const struct report_range *r = &rl->ranges[i];

		if (!names_member(o, r->member))
			continue;
		for (unsigned s = 0; s < r->n_sites; s++)
			if (r->sites[s].writes && (!best || r->sites[s].writes > best->writes))
				best = &r->sites[s];
	}
	return best;
}

static const struct library_object *object_of(const struct report_line *rl)
{
	for (size_t k = 0; k < ARRAY_SIZE(objects); k++)
		for (unsigned i = 0; i < rl->n_ranges; i++)
			if (report_range_contended(&rl->ranges[i]) &&
			    names_member(&objects[k], rl->ranges[i].member))
				return &objects[k];
	return NULL;
}

void cxx_library_advise_line(struct report_line *rl)
{
	const struct library_object *o = object_of(rl);
	const struct report_site *site;
	struct strbuf sb = STRBUF_INIT;

	if (!o)
		return;
	free(rl->type_name);
	rl->type_name = xstrdup(o->name);
	if (rl->alloc && rl->alloc->type_name) {    /* libstdc++'s _Sp_cp_type */
		free(rl->alloc->type_name);
		rl->alloc->type_name = xstrdup(o->name);
	}
	strbuf_addf(&sb, "%s", o->what);
	if (rl->alloc && rl->alloc->site)
		strbuf_addf(&sb, " (the object was allocated in %s)", rl->alloc->site);
	if ((site = hottest_writer(rl, o))) {
		char *where = latent_site_text(site);

		strbuf_addf(&sb, "; the copies are made in %s", where);
		free(where);
	}
	strbuf_addf(&sb, "; %s", o->advice);
	free(rl->advice.summary);
	rl->advice.summary = strbuf_detach(&sb);
	/* the library lays the object out: no layout of it to change */
	advice_layout_release(&rl->advice.current);
	advice_layout_release(&rl->advice.proposed);
}
