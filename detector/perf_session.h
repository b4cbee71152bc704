/* perf_session.h - perf_event ring buffers for one target process.
 *
 * Opens one sampling event per (task, CPU) on the target (inherit=1: every
 * thread and child a task creates is followed; per-task inherited events
 * cannot be mmapped with cpu=-1, hence per CPU).  All events of one CPU
 * write into one ring buffer (PERF_EVENT_IOC_SET_OUTPUT), so memory is one
 * buffer per CPU however many threads are followed.  perf_session_drain() copies what is in all
 * buffers, sorts it by time and hands each record to the callbacks, so that
 * consumers see samples of different CPUs in (near) time order.
 *
 * The event description (type, config, sample_type) comes from the backend;
 * this file knows the ring buffer and record formats, not what samples mean.
 */
#ifndef CONTEND_PERF_SESSION_H
#define CONTEND_PERF_SESSION_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>
#include <linux/perf_event.h>
#include "common/procfs.h"
#include "symbolize/decode.h"
#include "detector/sample.h"

#define PERF_CPU_UNKNOWN UINT32_MAX

struct perf_sample {
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time;
	uint32_t cpu;             /* PERF_CPU_UNKNOWN: not sampled */
	uint64_t period;
	uint64_t addr;            /* PERF_SAMPLE_ADDR, 0 if not sampled */
	uint64_t weight;
	uint64_t data_src;
	uint64_t regs_abi;        /* PERF_SAMPLE_REGS_ABI_NONE: no user regs */
	struct regs regs;         /* user registers, perf numbering */
	const uint8_t *stack;     /* PERF_SAMPLE_STACK_USER, valid during the callback */
	uint64_t stack_size;
};

/* The part of an access sample every backend takes from the perf sample
 * as it is (time, pid, tid, cpu), with the accessing instruction and data
 * address the backend found; every other field zero. */
static inline void access_sample_from_perf(struct access_sample *out,
					   const struct perf_sample *ps,
					   uint64_t ip, uint64_t addr)
{
	memset(out, 0, sizeof(*out));   /* padding too: samples are written out */
	out->time = ps->time;
	out->pid = ps->pid;
	out->tid = ps->tid;
	out->cpu = ps->cpu;
	out->ip = ip;
	out->addr = addr;
}

/*
 * A run of new AUX-area bytes (PERF_RECORD_AUX), copied out of the ring's
 * AUX buffer in order (a wrap is undone).  pid/tid come from the record's
 * sample_id (0 when the event has none); the clock fields are the ring's
 * metadata page, to turn the trace's own timestamps into perf time.
 */
struct perf_aux {
	uint32_t cpu;             /* the ring's CPU */
	uint32_t pid, tid;
	uint64_t time;            /* when the kernel wrote the record */
	uint64_t flags;           /* PERF_AUX_FLAG_*: truncated, partial, collision */
	uint64_t offset;          /* where the bytes began in the AUX area */
	const uint8_t *data;      /* valid during the callback */
	size_t size;
	bool time_zero_valid;     /* cap_user_time_zero */
	uint16_t time_shift;
	uint32_t time_mult;
	uint64_t time_zero;
	bool time_short;          /* cap_user_time_short: the counter is
				     narrower than 64 bits (arm64) */
	uint64_t time_cycles, time_mask;
};

struct perf_callbacks {
	/* Samples have a context of their own: the sampler (sampler.h), a
	 * floor below the session that takes the side-band records on ctx. */
	void *sample_ctx;
	void (*sample)(void *sample_ctx, const struct perf_sample *s);
	void *ctx;
	/* obj: MMAP2's device, inode and MAP_SHARED; NULL from a MMAP */
	void (*mmap)(void *ctx, uint32_t pid, uint64_t start, uint64_t len,
		     uint64_t pgoff, uint32_t prot, const char *filename,
		     const struct map_object *obj);
	void (*comm)(void *ctx, uint32_t pid, uint32_t tid, const char *comm, bool exec);
	void (*fork)(void *ctx, uint32_t pid, uint32_t ppid, uint32_t tid);
	void (*exit)(void *ctx, uint32_t pid, uint32_t tid);
	void (*lost)(void *ctx, uint64_t n);
	/* AUX-area traces only (aux_pages): new trace bytes, and the task
	 * whose trace starts on a CPU (PERF_RECORD_ITRACE_START).  Their own
	 * context: the trace's decoder, a layer below the sample's consumer. */
	void *aux_ctx;
	void (*aux)(void *aux_ctx, const struct perf_aux *a);
	void (*itrace_start)(void *aux_ctx, uint32_t cpu, uint32_t pid, uint32_t tid);
};

struct perf_session_config {
	pid_t pid;                /* target process (or thread, see per_thread) */
	const pid_t *tids;        /* attach: the threads to open, NULL = pid only */
	unsigned n_tids;
	struct perf_event_attr attr;   /* filled by the backend; freq etc. */
	/* Opened before attr on every (task, CPU) as the leader of its group,
	 * counting only: newer Intel cores take the load-latency event only
	 * behind mem-loads-aux.  has_leader false: no group. */
	bool has_leader;
	struct perf_event_attr leader;
	unsigned buffer_pages;    /* data pages per ring, power of two */
	/* AUX-area pages per ring, power of two; 0: no AUX area (every
	 * backend but spe).  Never run on hardware (docs/hardware-backends.md). */
	unsigned aux_pages;
};

struct perf_session;

/* Returns NULL and prints a one-line error that names the fix (sysctl,
 * capability) when the kernel refuses. */
struct perf_session *perf_session_open(const struct perf_session_config *cfg);
/* Follow one more task (a thread found after attaching).  -errno on failure. */
int perf_session_add_task(struct perf_session *ps, pid_t tid);
int perf_session_enable(struct perf_session *ps);
int perf_session_disable(struct perf_session *ps);
/* Wait up to timeout_ms for data; returns >0 if data may be ready. */
int perf_session_poll(struct perf_session *ps, int timeout_ms);
/* Read everything available, sorted by time, into the callbacks.
 * Returns the number of records. */
size_t perf_session_drain(struct perf_session *ps, const struct perf_callbacks *cb);
unsigned perf_session_nr_events(const struct perf_session *ps);
void perf_session_close(struct perf_session *ps);

/* One record that is not an AUX trace's, as drain hands it over: a
 * sample parsed for attr, the side-band records to their callbacks (a
 * perf.data file's reader, perf_file.h, shares this with the rings).
 * False if the record is malformed or of a type contend does not know
 * (the caller counts them); known types it needs nothing of are true. */
bool perf_record_dispatch(const struct perf_event_attr *attr, const void *record, size_t len,
			  const struct perf_callbacks *cb);
/* The time of a record: the sample's, or its sample_id trailer's (0 if
 * attr has none), for sorting. */
uint64_t perf_record_time(const struct perf_event_attr *attr, const void *record, size_t len);
/* The CPU in a non-sample record's sample_id trailer (0 if attr has none). */
uint32_t perf_record_cpu(const struct perf_event_attr *attr, const void *record, size_t len);

/* Parse one record (exposed for tests and for the data-file reader).
 * Returns false if the record is malformed for attr's sample_type. */
bool perf_parse_sample(const struct perf_event_attr *attr, const void *rec,
		       size_t len, struct perf_sample *out);

/* PERF_RECORD_AUX: aux_offset, aux_size and flags into out (offset, size,
 * flags), with the pid, tid and time of its sample_id when attr has them;
 * data, cpu and the clock stay unset.  False if malformed. */
bool perf_parse_aux(const struct perf_event_attr *attr, const void *rec, size_t len,
		    struct perf_aux *out);
/* PERF_RECORD_ITRACE_START: the task whose trace starts. */
bool perf_parse_itrace_start(const void *rec, size_t len, uint32_t *pid, uint32_t *tid);
/* The size bytes at offset of an AUX area of aux_size bytes (a power of
 * two; offsets grow forever and wrap) into dst.  False if they cannot all
 * be there. */
bool perf_aux_copy(const uint8_t *aux, size_t aux_size, uint64_t offset, uint64_t size,
		   uint8_t *dst);

#endif
