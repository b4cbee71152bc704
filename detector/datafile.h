/* datafile.h - contend.data: what `contend record` saw, for `report` and
 * `check` to analyse later, here or on another machine.
 *
 * A little-endian binary file (docs/data-format.md is the specification):
 * a header, then records (access samples, mappings with build-ids, thread
 * names) in the order the session saw them, then the exact counts of the
 * words its watchpoints confirmed, then one summary record.
 * Samples are stored raw, not aggregated, so that the report can use any
 * --line-size and --window-ms.
 *
 * The reader trusts nothing in the file: every length and count is checked
 * against the format's bounds and the bytes actually present, and it
 * streams: it holds one record at a time, so memory is what the callbacks
 * keep (a line table: distinct lines), never proportional to the samples.
 */
#ifndef CONTEND_DATAFILE_H
#define CONTEND_DATAFILE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "common/safe_file.h"
#include "detector/alloc_record.h"
#include "detector/glibc_heap.h"
#include "detector/sample.h"
#include "detector/watch.h"

struct run_facts;
struct strbuf;

#define DATAFILE_VERSION 8            /* 2: alloc records; 3: heap blocks; 4: watch
                                         results; 5: transfer price; 6: the
                                         instruments' self-test; 7: the NUMA
                                         topology; 8: fenced stores; 1..7 are
                                         read too */
#define DATAFILE_BUILD_ID_MAX 64
#define DATAFILE_PATH_MAX 4096
#define DATAFILE_COMM_MAX 15           /* TASK_COMM_LEN - 1 */
#define DATAFILE_CHAIN_MAX 64          /* frames per call chain (callchain.h) */
#define DATAFILE_WATCH_THREADS_MAX 1024 /* per watched word: the most hits kept */
#define DATAFILE_WATCH_SITES_MAX 64     /* per watched word: the first (most hits) */
#define DATAFILE_WATCH_NOTE_MAX 1024

/* This mapping is the first of a /proc/PID/maps snapshot: the pid's
 * earlier mappings are gone, the snapshot is the whole address space. */
#define DATAFILE_MMAP_RESET 1u

struct datafile_mmap {
	uint32_t pid;
	uint32_t prot;                 /* PROT_* */
	uint64_t start, len, pgoff;
	uint32_t flags;                /* DATAFILE_MMAP_* */
	const char *filename;          /* path, "[heap]", "" (anonymous)... */
	uint8_t build_id[DATAFILE_BUILD_ID_MAX];
	unsigned build_id_len;         /* 0: none (not ELF, or no note) */
};

/* --- writing ------------------------------------------------------------ */

struct datafile_writer;

/* Writes the file header to f; freq is the sampling rate in Hz. */
struct datafile_writer *datafile_writer_new(FILE *f, unsigned freq);
void datafile_write_sample(struct datafile_writer *w, const struct access_sample *a);
void datafile_write_mmap(struct datafile_writer *w, const struct datafile_mmap *m);
void datafile_write_comm(struct datafile_writer *w, uint32_t pid, uint32_t tid,
			 const char *comm, bool exec);
/* Call chain id (the chain_id of samples) is pcs[0..n), innermost first.
 * Ids are 1, 2, 3... in the order of their chain records (callchain.h
 * hands them out so), each written before the first sample using it. */
void datafile_write_chain(struct datafile_writer *w, uint32_t id, const uint64_t *pcs,
			  unsigned n);
/* A heap block the session's allocation tracking held (alloc_record.h;
 * never a free): written before the summary. */
void datafile_write_alloc(struct datafile_writer *w, const struct alloc_record *r);
/* A block found in pid's glibc heap after sampling (record -p: nothing
 * tracked the allocations): written before the summary. */
void datafile_write_heap_block(struct datafile_writer *w, uint32_t pid,
			       const struct glibc_heap_block *b);
/* A word the session's confirmation watched (watch.h; windows > 0), with
 * at most DATAFILE_WATCH_THREADS_MAX threads (those with the most hits)
 * and the first DATAFILE_WATCH_SITES_MAX sites: written before the
 * summary, once per word. */
void datafile_write_watch_word(struct datafile_writer *w, const struct watch_word_result *r);
/* The confirmation as a whole: windows run, their armed time, and why
 * watchpoints were left off (note, may be NULL).  Written once, before
 * the summary, when windows ran or a note says why none did. */
struct datafile_watch_session {
	unsigned windows;
	double armed_s;
	const char *note;              /* NULL: none */
};
void datafile_write_watch_session(struct datafile_writer *w,
				  const struct datafile_watch_session *s);
uint64_t datafile_writer_samples(const struct datafile_writer *w);
/* Writes the summary (the session's report header; its freq is ignored),
 * flushes f and frees w.  Returns 0, or -1 with errno set if any write
 * failed.  The caller closes f. */
int datafile_writer_finish(struct datafile_writer *w, const struct run_facts *summary);
/* The target's filesystem credentials (common/safe_file.h): `report`
 * reads the sources its DWARF names with their rights, not with those of
 * whoever reports.  Written into the header by datafile_writer_finish()
 * (the stream must seek: a file); without this call they stay unknown. */
void datafile_writer_set_target(struct datafile_writer *w, const struct proc_creds *c);
/* Frees w without writing a summary: the file stays incomplete. */
void datafile_writer_free(struct datafile_writer *w);

/* --- reading ------------------------------------------------------------ */

/* Pointers handed to callbacks are valid during the call only. */
struct datafile_callbacks {
	void *ctx;
	void (*access)(void *ctx, const struct access_sample *a);
	void (*mmap)(void *ctx, const struct datafile_mmap *m);
	void (*comm)(void *ctx, uint32_t pid, uint32_t tid, const char *comm, bool exec);
	void (*chain)(void *ctx, uint32_t id, const uint64_t *pcs, unsigned n);
	void (*alloc)(void *ctx, const struct alloc_record *a);
	void (*heap_block)(void *ctx, uint32_t pid, const struct glibc_heap_block *b);
	/* version 4: a watched word's exact counts (threads sorted by tid,
	 * unique), and the confirmation's totals (at most one record) */
	void (*watch_word)(void *ctx, const struct watch_word_result *r);
	void (*watch_session)(void *ctx, const struct datafile_watch_session *s);
};

struct datafile_reader;

/* Reads and checks the header.  NULL, with the reason in err (one line,
 * without the file name), if f is not a contend data file that this
 * contend can read. */
struct datafile_reader *datafile_reader_open(FILE *f, struct strbuf *err);
unsigned datafile_reader_freq(const struct datafile_reader *r);
/* The target's credentials as recorded (valid until the reader is freed);
 * NULL when the file does not say (older files, or never set).  Anyone
 * can write a file: trust them no further than its owner (cmd_report.c). */
const struct proc_creds *datafile_reader_target(const struct datafile_reader *r);
/* Reads every record up to and including the summary and checks that
 * nothing follows it.  Returns 0, or -1 with the reason in err. */
int datafile_reader_run(struct datafile_reader *r, const struct datafile_callbacks *cb,
			struct strbuf *err);
/* The summary as a report header (with the header's freq); valid after a
 * successful run, until the reader is freed. */
const struct run_facts *datafile_reader_summary(const struct datafile_reader *r);
void datafile_reader_free(struct datafile_reader *r);

/* --- build-ids ---------------------------------------------------------- */

/* The NT_GNU_BUILD_ID of the ELF file at path, into id (at most
 * DATAFILE_BUILD_ID_MAX bytes).  Returns its length, 0 if the file is not
 * a readable regular ELF file or has no build-id. */
unsigned datafile_build_id(const char *path, uint8_t *id);
/* Lowercase hex of a build-id, as `file` and `readelf -n` print it. */
char *build_id_hex(const uint8_t *id, unsigned len);

#endif
