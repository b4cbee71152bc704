/* jvm_names.h - contended lines of a HotSpot JVM named through its own tables.
 *
 * A JVM's data has no DWARF: its metadata (Klass and the like) is laid
 * out by the C++ of libjvm.so, which the JVM describes to its
 * Serviceability Agent in the vmStructs tables (symbolize/hotspot.h).  For
 * a line no DWARF type names, in a process that maps libjvm.so, this names
 * the object ("Klass TypeCheck$C0": the class as Class.getName() prints it,
 * with dots), the members of the ranges ("_secondary_super_cache"), and
 * shows the Klass fields around the line as the current layout; or, in
 * the Java heap, the object's class and fields (Java field layout from
 * the class's field info).  The advice then speaks of the JVM
 * (JDK-8180450 for the secondary-super cache, @Contended for Java
 * fields), never of building with -g.
 *
 * Contract:
 *  - One hotspot handle per pid for the whole report, opened on first
 *    need (only for an untyped line of a process whose symbolizer modules
 *    include libjvm.so) and kept, or the failure kept, until
 *    jvm_names_free().  A process that is gone (a report from a data
 *    file) is simply not named.
 *  - Everything read from the JVM is data: class names are checked by
 *    hotspot_klass_name() and escaped by the printers like any name.
 */
#ifndef CONTEND_JVM_NAMES_H
#define CONTEND_JVM_NAMES_H

#include <stdbool.h>
#include <stdint.h>

struct jvm_names;
struct report_line;
struct symbolizer;

struct jvm_names *jvm_names_new(struct symbolizer *sym);
void jvm_names_free(struct jvm_names *j);

/* Is rl's process a HotSpot JVM (it maps libjvm.so)?  Cached per pid. */
bool jvm_names_is_jvm(struct jvm_names *j, uint32_t pid);

enum jvm_naming {
	JVM_UNNAMED,
	JVM_KLASS,                   /* HotSpot metadata: a Klass */
	JVM_OBJECT,                  /* a Java object in the heap */
};

/* Before the advice: names an untyped line that lies in a Klass (object
 * "Klass TypeCheck$C0", type_name "Klass", object_start, range members
 * "_secondary_super_cache"), else in a Java object (object and type_name
 * "FalseSharing$Counters", range members its fields "a", "b"). */
enum jvm_naming jvm_name_line(struct jvm_names *j, struct report_line *rl);

/* After advice_for_line() and the gain: the JVM's advice for a line of a
 * JVM process (named or not) replaces the C advice where that would not
 * apply, and a named line gets the JVM's layout (Klass fields, or the
 * object's fields) as its current layout. */
void jvm_advise_line(struct jvm_names *j, struct report_line *rl, enum jvm_naming named);

#endif
