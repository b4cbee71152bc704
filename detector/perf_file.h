/* perf_file.h - perf.data in: the records of a file `perf record` wrote.
 *
 * perf's own format (tools/perf/Documentation/perf.data-file-format.txt):
 * a header; the events' attributes, each with the sample ids it stamps;
 * a data section holding the records the kernel wrote into perf's rings;
 * then feature sections (the build-ids of the files samples fell in, the
 * command line, the events' names, the NUMA topology).  perf_file_open() reads and checks
 * all but the data; perf_file_run() hands the data section's records to
 * the same perf_callbacks a live session's drain calls (perf_session.h),
 * in time order: perf writes its rings out in rounds, and a round's
 * records are sorted, as perf report sorts them, before they go.  AUX
 * traces (AUXTRACE records: Arm SPE) go to cb->aux with the clock of the
 * file's TIME_CONV, after every record before them; ITRACE_START to
 * cb->itrace_start.
 *
 * The file is outside input: every offset, size and count is checked
 * against the file's length and the format's bounds, and a file that
 * fails gets one line in err.  Memory is the header's tables and one
 * round of records (at most PERF_FILE_ROUND_MAX bytes and
 * PERF_FILE_ROUND_RECORDS records), not the file.
 * Little-endian files in file mode only: a pipe's stream (perf record
 * -o -) and compressed records (perf record -z) are refused with the way
 * round.
 */
#ifndef CONTEND_PERF_FILE_H
#define CONTEND_PERF_FILE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <linux/perf_event.h>

#include "detector/perf_session.h"

struct strbuf;
struct perf_file;
struct cpu_nodes;

#define PERF_FILE_ATTRS_MAX 256
#define PERF_FILE_IDS_MAX (1u << 20)
#define PERF_FILE_BUILD_IDS_MAX 65536
#define PERF_FILE_ROUND_MAX (64u << 20)
#define PERF_FILE_ROUND_RECORDS (1u << 20)   /* and records: a hostile file's are tiny */

/* Does f (a regular file, read at offset 0 without moving f) start with
 * perf.data's magic? */
bool perf_file_is(FILE *f);

/* The header, attributes and features of f, which must be a regular
 * file.  NULL and err set if they do not hold. */
struct perf_file *perf_file_open(FILE *f, struct strbuf *err);
void perf_file_free(struct perf_file *pf);

unsigned perf_file_n_attrs(const struct perf_file *pf);
const struct perf_event_attr *perf_file_attr(const struct perf_file *pf, unsigned i);
/* The event's name as perf recorded it ("cpu-clock", "cpu/mem-loads/P"),
 * or NULL without the event-description feature. */
const char *perf_file_event_name(const struct perf_file *pf, unsigned i);
/* perf's command line, words joined by spaces, or NULL. */
const char *perf_file_command(const struct perf_file *pf);
/* The recording machine's CPU as perf names it ("GenuineIntel,6,106,6";
 * on Arm its MIDR, "0x00000000410fd0c0"), or NULL. */
const char *perf_file_cpuid(const struct perf_file *pf);
/* The recording machine's NUMA nodes and their CPUs, or NULL. */
const struct cpu_nodes *perf_file_cpu_nodes(const struct perf_file *pf);
/* The build-id perf recorded for path (pid's, or any process's), into id
 * (20 bytes at most); its length, 0 if none. */
unsigned perf_file_build_id(const struct perf_file *pf, uint32_t pid, const char *path,
			    uint8_t *id);

/* What the data section held that contend did not use, for the report. */
struct perf_file_counts {
	uint64_t records;           /* every record read */
	uint64_t samples;           /* samples handed to cb->sample */
	uint64_t malformed;         /* samples that did not parse for their event */
	uint64_t unknown_event;     /* samples whose id no attribute has */
	uint64_t unknown_type;      /* records of types contend does not read */
	uint64_t aux_bytes;         /* AUX-area traces no cb->aux took (Intel PT) */
	uint64_t round_flushes;     /* rounds cut short at PERF_FILE_ROUND_MAX or _RECORDS */
};

/* Every record of the data section, in time order, to cb.  0, or -1 with
 * err set (a truncated or corrupt section: what came before it was
 * handed over). */
int perf_file_run(struct perf_file *pf, const struct perf_callbacks *cb,
		  struct perf_file_counts *counts, struct strbuf *err);

#endif
