/* json_string.h - a string as JSON, for every printer that writes JSON.
 *
 * json_write_string() writes str quoted, with ", \ and controls escaped
 * and every byte that is not well-formed UTF-8 as \u00XX (the code point
 * of the same value): names from the target are data, and the output is
 * valid JSON whatever they hold.
 */
#ifndef CONTEND_JSON_STRING_H
#define CONTEND_JSON_STRING_H

#include <stdio.h>

void json_write_string(FILE *out, const char *str);

#endif
