/* top_screen.c - contend top's full-screen view; see top_screen.h. */
#include "cli/top_screen.h"

#include <curses.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"

struct top_screen {
	SCREEN *scr;
};

struct top_screen *top_screen_open(char **why)
{
	struct top_screen *s;
	SCREEN *scr;
	const char *term = getenv("TERM");

	/* names are UTF-8 (escaped, but not transliterated) */
	setlocale(LC_CTYPE, "");
	scr = newterm(NULL, stdout, stdin);
	if (!scr) {
		*why = xasprintf("cannot drive the terminal (TERM=%s); use --batch",
				 term ? term : "unset");
		return NULL;
	}
	s = xcalloc(1, sizeof(*s));
	s->scr = scr;
	cbreak();           /* keys at once; Ctrl-C still stops, as in run */
	noecho();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	curs_set(0);
	return s;
}

void top_screen_close(struct top_screen *s)
{
	if (!s)
		return;
	endwin();
	delscreen(s->scr);
	free(s);
}

int top_screen_key(struct top_screen *s)
{
	int c;

	(void)s;
	c = getch();
	switch (c) {
	case ERR: return TOP_KEY_NONE;
	case KEY_UP: return TOP_KEY_UP;
	case KEY_DOWN: return TOP_KEY_DOWN;
	case KEY_ENTER: case '\n': case '\r': return TOP_KEY_ENTER;
	case KEY_RESIZE: return TOP_KEY_RESIZE;
	}
	return c;
}

/* Text at row y, clipped to the width, the rest of the row cleared. */
static void put_row(int y, const char *text, attr_t attr)
{
	if (y >= LINES)
		return;
	move(y, 0);
	attron(attr);
	addnstr(text ? text : "", COLS > 1 ? COLS - 1 : 1);
	clrtoeol();
	attroff(attr);
}

/* The table takes what the header and the bottom line leave; with an
 * expansion, a third of it (at least one row), the rest the expansion. */
static void split(const struct top_frame *f, int *table, int *detail)
{
	int avail = LINES - (int)f->n_header - 2;

	if (avail < 1)
		avail = 1;
	*table = avail;
	*detail = 0;
	if (f->n_detail) {
		*table = (int)f->n_rows < avail / 3 ? (int)f->n_rows : avail / 3;
		if (*table < 1)
			*table = 1;
		*detail = avail - *table - 1;
		if (*detail < 0)
			*detail = 0;
	}
}

unsigned top_screen_rows(const struct top_screen *s, unsigned n_header)
{
	int avail = LINES - (int)n_header - 2;

	(void)s;
	return avail > 1 ? (unsigned)avail : 1;
}

void top_screen_draw(struct top_screen *s, const struct top_frame *f)
{
	int y = 0, table, detail;
	unsigned first = 0;

	(void)s;
	if (f->repaint)
		clearok(stdscr, TRUE);
	erase();
	for (unsigned i = 0; i < f->n_header; i++)
		put_row(y++, f->header[i], i ? A_NORMAL : A_BOLD);
	put_row(y++, f->columns, A_REVERSE);
	split(f, &table, &detail);
	if (f->n_rows && f->selected >= (unsigned)table)
		first = f->selected - (unsigned)table + 1;
	if (!f->n_rows)
		put_row(y, f->empty, A_DIM);
	for (unsigned i = first; i < f->n_rows && i < first + (unsigned)table; i++)
		put_row(y + (int)(i - first), f->rows[i], i == f->selected ? A_REVERSE : A_NORMAL);
	y += table;
	if (f->n_detail) {
		put_row(y++, "", A_NORMAL);
		for (unsigned i = 0; i < f->n_detail && (int)i < detail; i++)
			put_row(y++, f->detail[i], A_NORMAL);
	}
	put_row(LINES - 1, f->message ? f->message :
		"q quit  Up/Down select  Enter expand  s sort  p pause  w watch", A_BOLD);
	refresh();
}
