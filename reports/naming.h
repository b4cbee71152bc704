/* naming.h - code and data addresses named for the report model.
 *
 * One way to name them for the sampled report (report_build()) and the
 * watch report (watch_report.h), so that both print the same names.
 * sym may be NULL: then sites stay bare addresses and names are "0x...".
 * Strings returned or stored in a site are the caller's to free.
 */
#ifndef CONTEND_NAMING_H
#define CONTEND_NAMING_H

#include <stdbool.h>
#include <stdint.h>

struct report_line;
struct report_site;
struct symbolizer;

/* Fills s's function, file, line, inlining and module from s->ip; code
 * with no module from libdwfl (JIT code, say) gets its mapping's name and
 * the offset into the file. */
void symbolize_site(struct symbolizer *sym, uint32_t pid, struct report_site *s);

/* A call chain's frame: "worker false_sharing_counters.c:80",
 * "libc.so.6+0x8a0f", "0x7f00beef". */
char *frame_name(struct symbolizer *sym, uint32_t pid, uint64_t pc);

/* The data at addr: "counters+8"; in a binary without a symbol there, the
 * binary's own address as nm and objdump print it ("prog+0x4010"), also
 * where its .bss spills into an anonymous mapping; "[heap]+0x2a0"; or the
 * bare address.  *heap (may be NULL) says whether it is heap data. */
char *object_name(struct symbolizer *sym, uint32_t pid, uint64_t addr, bool *heap);
/* Memory processes share (shared_mem.h): "[shared anon]+0x8" for shared
 * anonymous memory (what fork hands down), "/dev/shm/NAME+0x8" for a
 * shm_open object or the file's path; off is the offset in the object,
 * the same in every process, unlike addr (pid's view, for the name). */
char *shared_object_name(struct symbolizer *sym, uint32_t pid, uint64_t addr, uint64_t off);

/* Data without a type (no type_name): rust or go set from the language
 * of the code that writes it, else reads it, told by the binary itself
 * (symbolizer_language()), so that the advice speaks it.  A typed line's
 * language is its DWARF's. */
void report_line_language(struct symbolizer *sym, struct report_line *rl);

#endif
