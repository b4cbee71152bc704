/* html_internal.h - what the HTML report's files share (html.c, the page;
 * html_picture.c, the picture of a line).  Nothing else includes it. */
#ifndef CONTEND_HTML_INTERNAL_H
#define CONTEND_HTML_INTERNAL_H

#include <stdio.h>

#include "reports/report.h"

/* s as HTML text or attribute value: markup and control characters
 * escaped.  Every string from the report goes through it. */
void html_esc(FILE *out, const char *s);

/* The line's picture, its legend below it. */
void html_print_picture(const struct report_line *l, unsigned rank, FILE *out);

#endif
