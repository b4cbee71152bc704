/* html_picture.c - the picture of a line in the HTML report (html.c):
 * an inline SVG, the line's bytes across, one row per thread, each cell
 * coloured by read and write and shaded by samples, the members along
 * the top.  Split from html.c by job: the page's text there, its one
 * drawing here.
 */
#include "printers/printers.h"
#include "reports/report.h"
#include "printers/html_internal.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"

/* the picture, in SVG user units (pixels at 100%) */
#define PIC_LABEL 150           /* thread names on the left */
#define PIC_RIGHT 100           /* per-thread totals on the right */
#define PIC_WIDTH 832           /* the bytes: 13 a byte on a 64-byte line */
#define PIC_BAND 24             /* member names along the top */
#define PIC_ROW 22
#define PIC_AXIS 18
#define PIC_MAX_ROWS 16
#define PIC_CHAR 6.6            /* width of a character at 11px, monospace */

struct picture {
	unsigned size;                 /* bytes in the line */
	unsigned rows;                 /* threads drawn */
	uint64_t *reads, *writes;      /* [row * size + byte] */
	uint64_t max;                  /* of reads + writes over the cells */
	double cell;                   /* width of a byte */
	int top;                       /* y of the first row */
};

static int thread_row(const struct report_line *l, unsigned rows, uint32_t tid)
{
	for (unsigned i = 0; i < rows; i++)
		if (l->threads[i].tid == tid)
			return i;
	return -1;
}

static void picture_fill(struct picture *p, const struct report_line *l)
{
	p->size = l->line_size ? l->line_size : 64;
	p->rows = l->n_threads < PIC_MAX_ROWS ? l->n_threads : PIC_MAX_ROWS;
	p->reads = xcalloc((size_t)p->size * (p->rows ? p->rows : 1), sizeof(*p->reads));
	p->writes = xcalloc((size_t)p->size * (p->rows ? p->rows : 1), sizeof(*p->writes));
	p->cell = (double)PIC_WIDTH / p->size;
	p->top = PIC_BAND + 6;
	p->max = 0;
	for (unsigned g = 0; g < l->n_ranges; g++) {
		const struct report_range *rr = &l->ranges[g];

		for (unsigned k = 0; k < rr->n_threads; k++) {
			int row = thread_row(l, p->rows, rr->threads[k].tid);

			for (unsigned b = rr->offset; row >= 0 && b < rr->offset + rr->size &&
			     b < p->size; b++) {
				size_t i = (size_t)row * p->size + b;

				p->reads[i] += rr->threads[k].reads;
				p->writes[i] += rr->threads[k].writes;
				if (p->reads[i] + p->writes[i] > p->max)
					p->max = p->reads[i] + p->writes[i];
			}
		}
	}
}

static void picture_release(struct picture *p)
{
	free(p->reads);
	free(p->writes);
}

static double byte_x(const struct picture *p, unsigned byte)
{
	return PIC_LABEL + byte * p->cell;
}

/* text cut to fit width units, with an ellipsis; "" if hardly anything fits */
static char *fit(const char *text, double width)
{
	int room = (int)((width - 4) / PIC_CHAR);
	int len = strlen(text), keep;

	if (len <= room)
		return xstrdup(text);
	if (room < 3)
		return xstrdup("");
	/* not in the middle of a UTF-8 sequence */
	for (keep = room - 1; keep > 0 && ((unsigned char)text[keep] & 0xc0) == 0x80; keep--)
		;
	return xasprintf("%.*s\u2026", keep, text);
}

/* One named box along the top, over bytes [from, to). */
static void band_box(FILE *out, const struct picture *p, long from, long to, const char *name,
		     const char *title, uint64_t reads, uint64_t writes)
{
	double x, w;
	const char *fill = writes ? "#ffd8d3" : reads ? "#dbe7ff" : "#eef0f3";
	char *label;

	if (to <= 0 || from >= (long)p->size)
		return;
	from = from < 0 ? 0 : from;
	to = to > (long)p->size ? (long)p->size : to;
	x = byte_x(p, from);
	w = (to - from) * p->cell;
	label = fit(name, w);
	fputs("<g><title>", out);
	html_esc(out, title);
	fprintf(out, "</title><rect x=\"%.1f\" y=\"2\" width=\"%.1f\" height=\"%d\" rx=\"3\" "
		"fill=\"%s\" stroke=\"#fff\" stroke-width=\"1.5\"/>", x, w, PIC_BAND - 4, fill);
	if (*label) {
		fprintf(out, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" font-size=\"11\" "
			"fill=\"#1f2328\">", x + w / 2, PIC_BAND / 2 + 5);
		html_esc(out, label);
		fputs("</text>", out);
	}
	fputs("</g>\n", out);
	free(label);
}

/* rr's member path names member m: "m", "var.m", "[2].m". */
static bool names_member(const char *path, const char *m)
{
	size_t lp = strlen(path), lm = strlen(m);

	if (!strcmp(path, m))
		return true;
	return lp > lm && !strcmp(path + lp - lm, m) && path[lp - lm - 1] == '.';
}

/*
 * Where each accessed instance of the struct begins, relative to the
 * line: from the ranges whose member path names a member.  An array of
 * per-thread structs has one instance per thread on the line.
 */
static unsigned instance_bases(const struct report_line *l, long *base, unsigned max)
{
	unsigned n = 0;

	for (unsigned g = 0; g < l->n_ranges; g++) {
		const struct report_range *rr = &l->ranges[g];

		for (unsigned k = 0; rr->member && k < l->n_members; k++) {
			const struct report_member *m = &l->members[k];
			long b = (long)rr->offset - (long)m->offset;
			unsigned i;

			if (!m->name || !names_member(rr->member, m->name))
				continue;
			for (i = 0; i < n && base[i] != b; i++)
				;
			if (i == n && n < max)
				base[n++] = b;
			break;
		}
	}
	/* nothing named: the struct starts where the object does */
	if (!n && l->n_members && l->object_start <= l->addr + l->line_size &&
	    l->addr <= l->object_start + l->struct_size)
		base[n++] = (long)(l->object_start - l->addr);
	return n;
}

static void picture_band(FILE *out, const struct picture *p, const struct report_line *l)
{
	long base[16];
	unsigned n = instance_bases(l, base, ARRAY_SIZE(base));

	for (unsigned i = 0; i < n; i++) {
		for (unsigned k = 0; k < l->n_members; k++) {
			const struct report_member *m = &l->members[k];
			long from = base[i] + (long)m->offset;
			char *title;

			if (from + (long)m->size <= 0 || from >= (long)p->size)
				continue;
			title = xasprintf("%s %s: offset %" PRIu64 ", %" PRIu64 " bytes; "
					  "%" PRIu64 " reads, %" PRIu64 " writes",
					  m->type_name ? m->type_name : "?",
					  m->name ? m->name : "?", m->offset, m->size,
					  m->reads, m->writes);

			band_box(out, p, from, from + (long)m->size, m->name ? m->name : "",
				 title, m->reads, m->writes);
			free(title);
		}
	}
	if (n)
		return;
	/* untyped, or no member named: the accessed ranges stand for members */
	for (unsigned g = 0; g < l->n_ranges; g++) {
		const struct report_range *rr = &l->ranges[g];
		char *name = rr->member ? xstrdup(rr->member) : xasprintf("+%u", rr->offset);
		char *title = xasprintf("%s: bytes %u..%u; %" PRIu64 " reads, %" PRIu64 " writes",
					name, rr->offset, rr->offset + rr->size - 1,
					rr->reads, rr->writes);

		band_box(out, p, rr->offset, rr->offset + rr->size, name, title,
			 rr->reads, rr->writes);
		free(title);
		free(name);
	}
}

static const char *cell_colour(uint64_t reads, uint64_t writes)
{
	if (reads && writes)
		return "var(--both)";
	return writes ? "var(--write)" : "var(--read)";
}

/* One thread: its name, its runs of equally used bytes, its totals. */
static void picture_row(FILE *out, const struct picture *p, const struct report_thread *t,
			unsigned row)
{
	int y = p->top + row * PIC_ROW;
	char *name = t->comm ? fit(t->comm, PIC_LABEL - 56) : xstrdup("");

	fprintf(out, "<text x=\"0\" y=\"%d\" font-size=\"11.5\"><tspan font-weight=\"bold\">"
		"T%" PRIu32 "</tspan> <tspan fill=\"#656d76\">", y + PIC_ROW / 2 + 3, t->tid);
	html_esc(out, name);
	fputs("</tspan></text>\n", out);
	fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#f0f2f5\"/>\n",
		PIC_LABEL, y, PIC_WIDTH, PIC_ROW - 2);
	for (unsigned b = 0; b < p->size;) {
		size_t i = (size_t)row * p->size + b;
		uint64_t r = p->reads[i], w = p->writes[i];
		unsigned e = b + 1;
		double shade;

		while (e < p->size && p->reads[i + e - b] == r && p->writes[i + e - b] == w)
			e++;
		if (r + w) {
			/* square root: a tenth of the samples still shows */
			shade = 0.22 + 0.78 * sqrt((double)(r + w) / (double)p->max);
			fprintf(out, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
				"fill=\"%s\" fill-opacity=\"%.2f\"><title>T%" PRIu32
				" bytes %u..%u: %" PRIu64 " reads, %" PRIu64 " writes</title></rect>\n",
				byte_x(p, b), y, (e - b) * p->cell, PIC_ROW - 2,
				cell_colour(r, w), shade, t->tid, b, e - 1, r, w);
		}
		b = e;
	}
	fprintf(out, "<text x=\"%d\" y=\"%d\" font-size=\"11\" fill=\"#656d76\">R %" PRIu64
		" W %" PRIu64 "</text>\n", PIC_LABEL + PIC_WIDTH + 10, y + PIC_ROW / 2 + 3, t->reads, t->writes);
	free(name);
}

/* Byte boundaries, a stronger one every 8 bytes, and their offsets below. */
static void picture_grid(FILE *out, const struct picture *p)
{
	int y0 = p->top, y1 = p->top + p->rows * PIC_ROW - 2;
	unsigned step = p->size > 64 ? 16 : 8;

	fprintf(out, "<g stroke=\"#fff\" stroke-width=\"1\">");
	for (unsigned b = 1; b < p->size; b++)
		if (b % 8)
			fprintf(out, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>",
				byte_x(p, b), y0, byte_x(p, b), y1);
	fputs("</g>\n<g stroke=\"#8c959f\" stroke-width=\"1\">", out);
	for (unsigned b = 0; b <= p->size; b += 8)
		fprintf(out, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>",
			byte_x(p, b), y0 - 3, byte_x(p, b), y1 + 3);
	fputs("</g>\n<g font-size=\"10.5\" fill=\"#656d76\">", out);
	for (unsigned b = 0; b < p->size; b += step)
		fprintf(out, "<text x=\"%.1f\" y=\"%d\">%u</text>", byte_x(p, b) + 2,
			y1 + PIC_AXIS - 3, b);
	fprintf(out, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"end\">%u</text>",
		byte_x(p, p->size) - 2, y1 + PIC_AXIS - 3, p->size - 1);
	fputs("</g>\n", out);
}

void html_print_picture(const struct report_line *l, unsigned rank, FILE *out)
{
	struct picture p;
	int width = PIC_LABEL + PIC_WIDTH + PIC_RIGHT, height;

	picture_fill(&p, l);
	height = p.top + p.rows * PIC_ROW + PIC_AXIS + 2;
	fprintf(out, "<svg class=\"pic\" id=\"line-%u\" xmlns=\"http://www.w3.org/2000/svg\" "
		"width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" "
		"aria-label=\"cache line 0x%" PRIx64 ": bytes by thread\">\n",
		rank, width, height, width, height, l->addr);
	fprintf(out, "<text x=\"0\" y=\"%d\" font-size=\"11\" fill=\"#656d76\">"
		"bytes &#8594;</text>\n", PIC_BAND / 2 + 5);
	picture_band(out, &p, l);
	for (unsigned row = 0; row < p.rows; row++)
		picture_row(out, &p, &l->threads[row], row);
	picture_grid(out, &p);
	fputs("</svg>\n", out);
	fputs("<p class=\"legend\">"
	      "<span class=\"sw\" style=\"background:var(--read);margin-left:0\"></span>read"
	      "<span class=\"sw\" style=\"background:var(--write)\"></span>write"
	      "<span class=\"sw\" style=\"background:var(--both)\"></span>read and write"
	      " &nbsp;&middot; darker: more samples &middot; offsets within the line", out);
	if (l->n_threads > p.rows)
		fprintf(out, " &middot; %u more threads not drawn", l->n_threads - p.rows);
	fputs("</p>\n", out);
	picture_release(&p);
}

