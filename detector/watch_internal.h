/* watch_internal.h - what the watch's two ways of counting share:
 * watch.c arms watchpoints, watch_code.c probes code (watch.h, "By
 * code"); both put their counts into the same results.  Only those two
 * files include it.
 */
#ifndef CONTEND_WATCH_INTERNAL_H
#define CONTEND_WATCH_INTERNAL_H

#include "detector/watch.h"

/* The index of the result of (pid, word), made if new; valid for the
 * watch's life (a pointer from watch_result_at() is not: results grow). */
unsigned watch_result_index(struct watch *w, uint32_t pid, uint64_t addr);
struct watch_word_result *watch_result_at(struct watch *w, unsigned index);
/* The count of thread tid in r, made if new. */
struct watch_thread_count *watch_result_thread(struct watch_word_result *r, uint32_t tid);
/* A code site's hit on the word of result index: ip is the instruction
 * after the access, as a watchpoint's trap reports it. */
void watch_result_site(struct watch *w, unsigned index, uint64_t ip, bool write);
/* A window is over: it ran armed_s. */
void watch_window_done(struct watch *w, double armed_s);
const struct watch_config *watch_config_of(const struct watch *w);

/* One window by code (watch_code.c); watch_run_window()'s status. */
int watch_code_window(struct watch *w, const struct watch_window *win);

#endif
