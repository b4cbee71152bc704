/* uprobe_event.h - many uprobes as one trace event (tracefs).
 *
 * Why not the perf uprobe PMU: each of its events is a uprobe of its own,
 * and closing one waits for an RCU grace period under a global mutex
 * (measured 70-90 ms a close on kernel 6.18, serial even from 16
 * threads).  A window of 16 sites in 2 threads would end with 2.4 s of
 * closes, and a disabled event that waits to be closed still traps in the
 * target.  A trace event defined in tracefs's uprobe_events takes any
 * number of places under one name; perf events of that tracepoint, one
 * per thread, open and close in microseconds, and only the last close
 * waits for the grace period, once for every place.
 *
 * The kernel must be able to probe each place: x86 refuses a
 * LOCK-prefixed (or segment-prefixed) instruction, which the caller
 * avoids (code_probe.h).  Paths go to the kernel, which resolves them
 * itself: /proc/PID/map_files links (no spaces; the very file mapped).
 *
 * tracefs is /sys/kernel/tracing, else /sys/kernel/debug/tracing; where
 * neither is mounted, root mounts tracefs at /sys/kernel/tracing as perf
 * does.  Events are named contend_PID/pN; a contend killed mid-window
 * leaves its definitions (harmless: no breakpoint is in any process once
 * its perf events are gone), which the next contend deletes.
 */
#ifndef CONTEND_UPROBE_EVENT_H
#define CONTEND_UPROBE_EVENT_H

#include <stdbool.h>
#include <stdint.h>

struct uprobe_place {
	char path[96];            /* a path the kernel resolves, without spaces */
	uint64_t offset;          /* in the file */
};

struct uprobe_event {
	char group[32], name[16];
	uint64_t id;              /* perf_event_open: PERF_TYPE_TRACEPOINT, config */
};

/* Define ev probing every place.  0, or -errno: -EACCES (not root, or
 * CONTEND_SIMULATE=dead-uprobes), -ENOENT (no tracefs, no uprobe
 * support), -EINVAL (the kernel refused a place). */
int uprobe_event_define(struct uprobe_event *ev, const struct uprobe_place *places, unsigned n);

/* Close the fds (every perf event of ev) and delete ev, in a thread of
 * its own: the last close waits the grace period, and nothing needs to
 * wait for it.  The probes are out of the target once the closes run.
 * fds is copied; n may be 0. */
void uprobe_event_release(const struct uprobe_event *ev, const int *fds, unsigned n);

/* Why uprobes cannot be defined here, for the self-test's text. */
const char *uprobe_event_hint(int err);

#endif
