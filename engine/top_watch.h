/* top_watch.h - contend top's w: confirm the selected line with watchpoints.
 *
 * w hands one line to the session's confirmation, which top runs on
 * demand (session_hooks.confirm_on_demand, watch.h confirm_line()): the
 * session runs its windows between beats, with the window, hit cap and
 * duty cycle of every confirmation, while the screen refreshes and keys
 * work.  When they are over, the line's verdict is the one the final
 * report prints ("confirmed: false sharing by exact counts", "not
 * confirmed: ..."), from the same code: it becomes the bottom line's
 * message and stays on the line's row.  Where watchpoints are not allowed
 * (attach on a virtual machine without --confirm; --no-confirm), a watch
 * is under way, the line's process is gone or its samples do not say
 * which words to watch, w starts nothing and says why.
 */
#ifndef CONTEND_TOP_WATCH_H
#define CONTEND_TOP_WATCH_H

#include <stdbool.h>
#include <stdint.h>

struct report_line;
struct session_view;
struct top_watch;

struct top_watch *top_watch_new(void);
void top_watch_free(struct top_watch *tw);

/* w on line l (NULL: none selected), v the session now.  Returns the
 * bottom line's message, malloc'd: what was started, or why not. */
char *top_watch_start(struct top_watch *tw, const struct session_view *v,
		      const struct report_line *l);

/* Every beat.  When the watch started by w has just ended, returns the
 * message with its verdict (malloc'd); else NULL. */
char *top_watch_poll(struct top_watch *tw, const struct session_view *v);

/* A watch is under way: its counts are partial. */
bool top_watch_running(const struct top_watch *tw);

/* What the line's row says of its watch: "watching ...", "confirmed:
 * false sharing, 1.2K writes, threads 1234 1235"; NULL if never watched. */
const char *top_watch_note(const struct top_watch *tw, uint32_t pid, uint64_t addr);

#endif
