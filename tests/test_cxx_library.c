/* test_cxx_library.c - a std::shared_ptr's reference count, named and
 * advised as the code that copies it (cxx_library.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "reports/cxx_library.h"
#include "tap.h"

static struct report_line make_line(const char *member, bool true_shared)
{
	struct report_site *site = xcalloc(1, sizeof(*site));
	struct report_range *r = xcalloc(1, sizeof(*r));
	struct report_line l = { .kind = true_shared ? SHARING_TRUE : SHARING_FALSE };

	site->function = xstrdup("worker");
	site->file = xstrdup("/src/app.cc");
	site->line = 16;
	site->writes = 40;
	r->member = xstrdup(member);
	r->true_shared = true_shared;
	r->false_writer = !true_shared;
	r->writes = 40;
	r->sites = site;
	r->n_sites = 1;
	l.ranges = r;
	l.n_ranges = 1;
	l.type_name = xstrdup("_Sp_cp_type");
	l.advice.summary = xstrdup("padding cannot help: ...");
	return l;
}

static void release_line(struct report_line *l)
{
	for (unsigned i = 0; i < l->n_ranges; i++) {
		free(l->ranges[i].member);
		free(l->ranges[i].sites[0].function);
		free(l->ranges[i].sites[0].file);
		free(l->ranges[i].sites);
	}
	free(l->ranges);
	free(l->type_name);
	free(l->advice.summary);
}

int main(void)
{
	static const char *const counts[] = {
		"[0]._M_use_count", "_M_pi->_M_use_count", "[0]._M_use_count.._M_weak_count",
		"__cntrl_->__shared_owners_",
	};
	static const char *const others[] = {
		"_M_use_count_x", "my_M_use_count", "[0].use_count", "refs",
	};

	for (size_t i = 0; i < ARRAY_SIZE(counts); i++) {
		struct report_line l = make_line(counts[i], true);

		cxx_library_advise_line(&l);
		CHECK_STR(l.type_name, "std::shared_ptr control block", counts[i]);
		CHECK(strstr(l.advice.summary, "the reference count of a std::shared_ptr") &&
		      strstr(l.advice.summary, "the copies are made in worker (app.cc:16)") &&
		      strstr(l.advice.summary, "const std::shared_ptr<T> &"),
		      "%s: %s", counts[i], l.advice.summary);
		release_line(&l);
	}
	/* names that merely contain a member's, and user members: untouched */
	for (size_t i = 0; i < ARRAY_SIZE(others); i++) {
		struct report_line l = make_line(others[i], true);

		cxx_library_advise_line(&l);
		CHECK_STR(l.type_name, "_Sp_cp_type", others[i]);
		CHECK_STR(l.advice.summary, "padding cannot help: ...", others[i]);
		release_line(&l);
	}
	/* a count on the line that is not contended does not name it */
	{
		struct report_line l = make_line("[0]._M_use_count", true);

		l.ranges[0].true_shared = false;
		cxx_library_advise_line(&l);
		CHECK_STR(l.type_name, "_Sp_cp_type", "uncontended count");
		release_line(&l);
	}
	return test_done();
}
