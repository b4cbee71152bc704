/* top_screen.h - contend top's full-screen view (ncurses).
 *
 * The screen knows nothing of reports: cmd_top.c hands it a frame of
 * ready-made text (header lines, one row per line, the expansion of the
 * selected one, a message) and it draws that, clipped to the terminal,
 * on whatever size the terminal has now.  Keys come back as the curses
 * codes, KEY_RESIZE included (ncurses catches SIGWINCH).
 */
#ifndef CONTEND_TOP_SCREEN_H
#define CONTEND_TOP_SCREEN_H

#include <stdbool.h>

struct top_frame {
	const char *const *header;    /* lines above the table */
	unsigned n_header;
	const char *columns;          /* the table's column titles */
	const char *const *rows;
	unsigned n_rows;
	unsigned selected;            /* highlighted row, if n_rows */
	const char *const *detail;    /* the selected row expanded, or none */
	unsigned n_detail;
	const char *empty;            /* shown when there are no rows */
	const char *message;          /* bottom line, or NULL for the keys */
	bool repaint;                 /* every cell, not just the changed ones */
};

struct top_screen;

/* Keys other than characters, as top_screen_key() returns them. */
enum top_key {
	TOP_KEY_NONE = -1,
	TOP_KEY_UP = 0x10000,
	TOP_KEY_DOWN,
	TOP_KEY_ENTER,
	TOP_KEY_RESIZE,
};

/* NULL (and why) if the terminal cannot be driven. */
struct top_screen *top_screen_open(char **why);
/* Back to the terminal as it was; NULL is fine. */
void top_screen_close(struct top_screen *s);
/* A character or a top_key if a key was pressed, else TOP_KEY_NONE;
 * never waits. */
int top_screen_key(struct top_screen *s);
void top_screen_draw(struct top_screen *s, const struct top_frame *f);
/* Rows the table can show now below the header (for scrolling). */
unsigned top_screen_rows(const struct top_screen *s, unsigned n_header);

#endif
