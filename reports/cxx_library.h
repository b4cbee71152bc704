/* cxx_library.h - C++ standard library objects in the words of the code
 * that uses them.
 *
 * A line inside an object the library hides is named by the library's own
 * members (libstdc++'s _M_use_count, libc++'s __shared_owners_), which say
 * nothing to whoever wrote the code, and the generic advice (per-thread
 * copies, padding) is not what fixes it: what writes the line is a use of
 * the library (copying a std::shared_ptr), and that use is the fix.  One
 * table row per such object (cxx_library.c): its members' spellings in
 * libstdc++ and libc++, what the user calls it, and what to change.
 */
#ifndef CONTEND_CXX_LIBRARY_H
#define CONTEND_CXX_LIBRARY_H

#include "reports/report.h"

/* If rl's contended ranges are a known library object's, name the object
 * (rl->type_name) as the user knows it and replace the advice's summary;
 * the library lays the object out, so no layout is proposed. */
void cxx_library_advise_line(struct report_line *rl);

#endif
