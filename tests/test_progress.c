/* test_progress.c - the status line's text (engine/progress.h), and that it
 * stays off with -q or when stderr is not a terminal. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "engine/progress.h"
#include "engine/session.h"
#include "tap.h"

int main(void)
{
	struct session_view v = { .samples = 2000, .decoded = 1500, .elapsed = 3.24, .duration = 5 };
	struct progress p;
	char *s;

	s = progress_text(&v, 3, "counters", 2);
	CHECK_STR(s, "contend: 3.2 of 5 s  samples 2000 (75% decoded)  lines shared 3  "
		  "top: counters (2 threads)", "attach -d 5");
	free(s);
	v.duration = 0;
	v.samples = v.decoded = 0;
	s = progress_text(&v, 0, NULL, 0);
	CHECK_STR(s, "contend: 3.2 s  samples 0  lines shared 0", "no -d, nothing yet");
	free(s);

	progress_init(&p, true);
	CHECK(!p.on, "-q: off");
	progress_release(&p);
	progress_init(&p, false);
	CHECK(p.on == (bool)isatty(STDERR_FILENO), "on only on a terminal");
	/* a phase that ends at once prints nothing and leaves nothing */
	progress_phase(&p, "building the report");
	progress_phase_end(&p);
	CHECK(!p.shown, "a short phase is not shown");
	if (p.on) {   /* run on a terminal (tmux): a long phase is */
		progress_phase(&p, "building the report");
		usleep(1300 * 1000);
		CHECK(p.shown, "a phase of 1.3 s is shown");
		progress_phase_end(&p);
		CHECK(!p.shown, "and erased when it ends");
	}
	progress_release(&p);
	return test_done();
}
