/* dwarf_scopes.h - the C++ scope a type is declared in: "net::Pool::".
 *
 * DWARF names a C++ type by its bare name (DW_AT_name "Counters",
 * "atomic<long int>"); the namespaces and classes around it are its
 * parent DIEs, which libdw cannot walk up to (dwarf_getscopes_die reads
 * the unit from its start, every call).  So each unit asked about is read
 * once: the byte ranges its namespace, class, struct and union DIEs span,
 * each with the prefix it gives what it holds.  A lookup is then a binary
 * search.  A type inside a function is local: no prefix.  Anonymous
 * namespaces add nothing (a reader knows the type as Counters, not as
 * "(anonymous namespace)::Counters").  Only C++ units are read; other
 * languages get "".  Memory: one entry per such scope DIE of the units
 * asked about, kept until dwarf_scopes_free().
 */
#ifndef CONTEND_DWARF_SCOPES_H
#define CONTEND_DWARF_SCOPES_H

#include <elfutils/libdw.h>

struct dwarf_scopes;

struct dwarf_scopes *dwarf_scopes_new(void);
void dwarf_scopes_free(struct dwarf_scopes *sc);

/* The prefix of die's qualified name ("std::", "net::Pool::"), "" when it
 * is declared at unit level, in a function or in a unit that is not C++.
 * Valid until dwarf_scopes_free().  sc NULL: always "". */
const char *dwarf_scopes_prefix(struct dwarf_scopes *sc, Dwarf_Die *die);

#endif
