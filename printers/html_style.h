/* html_style.h - the CSS of the HTML report (html.c), inline in every page
 * so that it needs no network. */
#ifndef CONTEND_HTML_STYLE_H
#define CONTEND_HTML_STYLE_H

extern const char html_style[];

#endif
