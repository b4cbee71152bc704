/* test_perf_file.c - the perf.data reader (detector/perf_file.h).
 *
 * 1. A file built here: one cpu-clock event with user registers, records
 *    written out of time order in two of perf's rounds.  They must come
 *    back sorted as perf report sorts them: a round's records wait for
 *    the next round when they are later than the round before it ended.
 *    MMAP2, COMM, FORK, a LOST count and a record type contend does not
 *    read (counted), with each sample's registers.
 * 2. The committed seed tests/fuzz-corpus/perfdata/pebs-2threads.data
 *    (tests/perf_data_synth.py): two events told apart by their sample
 *    ids, the event names, perf's command line, the CPU, the NUMA
 *    topology and the build-id feature.
 * 3. Refusals: wrong magic, a file cut in its attributes, an AUX trace
 *    whose length runs past the data.
 */
#include <stdarg.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tap.h"
#include "common/util.h"
#include "common/cpu_nodes.h"
#include "detector/perf_file.h"

struct buf {
	uint8_t *p;
	size_t len, alloc;
};

static void put(struct buf *b, const void *v, size_t n)
{
	ALLOC_GROW(b->p, b->len + n, b->alloc);
	memcpy(b->p + b->len, v, n);
	b->len += n;
}

static void put_u64(struct buf *b, uint64_t v) { put(b, &v, 8); }
static void put_u32(struct buf *b, uint32_t v) { put(b, &v, 4); }

static void put_header(struct buf *b, uint32_t type, uint16_t misc, size_t body)
{
	struct perf_event_header h = { type, misc, (uint16_t)(sizeof(h) + body) };
	put(b, &h, sizeof(h));
}

#define PID 300
#define REGS_MASK 0x3ULL          /* two registers: ax, bx */

/* sample_type IP | TID | TIME | REGS_USER, sample_id_all: TID, TIME */
static void put_sample(struct buf *b, uint32_t tid, uint64_t time, uint64_t ip)
{
	put_header(b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 8 * 3 + 8 + 16);
	put_u64(b, ip);
	put_u32(b, PID);
	put_u32(b, tid);
	put_u64(b, time);
	put_u64(b, PERF_SAMPLE_REGS_ABI_64);
	put_u64(b, time * 2);     /* ax */
	put_u64(b, ip + 1);       /* bx */
}

static void put_trailer(struct buf *b, uint32_t tid, uint64_t time)
{
	put_u32(b, PID);
	put_u32(b, tid);
	put_u64(b, time);
}

static void put_round(struct buf *b) { put_header(b, 68, 0, 0); }

static struct buf built_file(void)
{
	struct buf f = { 0 }, data = { 0 };
	struct perf_event_attr a = { 0 };
	uint64_t attr_size = sizeof(a) + 16;
	static const char name[] = "/bin/prog\0\0\0\0\0\0\0";   /* 16 */
	static const char comm[] = "worker\0";                  /* 8 */

	/* round 1: times 30, 10, 20 and a late one at 200 */
	put_header(&data, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER, 64 + 16 + 16);
	put_u32(&data, PID); put_u32(&data, PID);
	put_u64(&data, 0x400000); put_u64(&data, 0x1000); put_u64(&data, 0);
	put_u32(&data, 8); put_u32(&data, 1); put_u64(&data, 77); put_u64(&data, 0);
	put_u32(&data, 5); put_u32(&data, 2);
	put(&data, name, 16);
	put_trailer(&data, PID, 5);
	put_sample(&data, PID + 1, 30, 0x400030);
	put_sample(&data, PID + 2, 10, 0x400010);
	put_sample(&data, PID + 1, 20, 0x400020);
	put_sample(&data, PID + 2, 200, 0x400200);
	put_round(&data);
	/* round 2: 100 must go before round 1's 200 */
	put_header(&data, PERF_RECORD_COMM, 0, 8 + 8 + 16);
	put_u32(&data, PID); put_u32(&data, PID + 1);
	put(&data, comm, 8);
	put_trailer(&data, PID + 1, 90);
	put_header(&data, PERF_RECORD_FORK, 0, 16 + 8 + 16);
	put_u32(&data, PID + 9); put_u32(&data, PID); put_u32(&data, PID + 9); put_u32(&data, PID);
	put_u64(&data, 95);
	put_trailer(&data, PID + 9, 95);
	put_sample(&data, PID + 1, 100, 0x400100);
	put_header(&data, PERF_RECORD_LOST, 0, 16 + 16);
	put_u64(&data, 1); put_u64(&data, 7);
	put_trailer(&data, PID, 150);
	put_header(&data, 63, 0, 16);            /* a kernel record type from the future */
	put_trailer(&data, PID, 160);
	put_round(&data);
	put_sample(&data, PID + 2, 300, 0x400300);

	a.type = PERF_TYPE_SOFTWARE;
	a.size = sizeof(a);
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_period = 100000;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			PERF_SAMPLE_REGS_USER;
	a.sample_regs_user = REGS_MASK;
	a.sample_id_all = 1;

	put(&f, "PERFILE2", 8);
	put_u64(&f, 104);
	put_u64(&f, attr_size);
	put_u64(&f, 104); put_u64(&f, attr_size);           /* attrs */
	put_u64(&f, 104 + attr_size); put_u64(&f, data.len); /* data */
	put_u64(&f, 0); put_u64(&f, 0);
	for (int i = 0; i < 4; i++)
		put_u64(&f, 0);                              /* no features */
	put(&f, &a, sizeof(a));
	put_u64(&f, 0); put_u64(&f, 0);                     /* no ids */
	put(&f, data.p, data.len);
	free(data.p);
	return f;
}

static FILE *memory_file(const void *p, size_t n)
{
	int fd = memfd_create("perf.data", MFD_CLOEXEC);
	FILE *f;

	if (fd < 0 || write(fd, p, n) != (ssize_t)n || !(f = fdopen(fd, "rb")))
		abort();
	return f;
}

/* --- what the callbacks saw --------------------------------------------- */

struct seen {
	char log[1024];
	size_t len;
	uint64_t lost;
	unsigned samples;
	uint64_t ids_of_store_event;
};

static void logf_(struct seen *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void logf_(struct seen *s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	s->len += vsnprintf(s->log + s->len, sizeof(s->log) - s->len, fmt, ap);
	va_end(ap);
}

static void on_sample(void *ctx, const struct perf_sample *ps)
{
	struct seen *s = ctx;

	s->samples++;
	if (ps->addr)   /* the seed: stores carry the store data source */
		s->ids_of_store_event += (ps->data_src & PERF_MEM_OP_STORE) != 0;
	else
		logf_(s, "S%llu:%u:%llx:%llx ", (unsigned long long)ps->time, ps->tid,
		      (unsigned long long)ps->regs.val[0], (unsigned long long)ps->regs.val[1]);
}

static void on_mmap(void *ctx, uint32_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
		    uint32_t prot, const char *filename, const struct map_object *obj)
{
	struct seen *s = ctx;
	logf_(s, "M%u:%llx:%llx:%s:%u:%llu ", pid, (unsigned long long)start,
	      (unsigned long long)len, filename, prot, obj ? (unsigned long long)obj->ino : 0);
	(void)pgoff;
}

static void on_comm(void *ctx, uint32_t pid, uint32_t tid, const char *comm, bool exec)
{
	struct seen *s = ctx;
	logf_(s, "C%u:%s:%d ", tid, comm, exec);
	(void)pid;
}

static void on_fork(void *ctx, uint32_t pid, uint32_t ppid, uint32_t tid)
{
	struct seen *s = ctx;
	logf_(s, "F%u<%u ", pid, ppid);
	(void)tid;
}

static void on_lost(void *ctx, uint64_t n)
{
	struct seen *s = ctx;
	s->lost += n;
}

static struct perf_callbacks callbacks(struct seen *s)
{
	return (struct perf_callbacks){
		.sample_ctx = s, .sample = on_sample, .ctx = s, .mmap = on_mmap,
		.comm = on_comm, .fork = on_fork, .lost = on_lost,
	};
}

static void test_built(void)
{
	struct buf b = built_file();
	FILE *f = memory_file(b.p, b.len);
	struct strbuf err = STRBUF_INIT;
	struct perf_file_counts c;
	struct seen s = { 0 };
	struct perf_callbacks cb = callbacks(&s);
	struct perf_file *pf;

	CHECK(perf_file_is(f), "magic");
	pf = perf_file_open(f, &err);
	CHECK(pf, "open: %s", strbuf_str(&err));
	if (!pf)
		goto out;
	CHECK_EQ_U64(perf_file_n_attrs(pf), 1, "events");
	CHECK(perf_file_event_name(pf, 0) == NULL, "no event names without the feature");
	CHECK(perf_file_command(pf) == NULL, "no command without the feature");
	CHECK_EQ_U64(perf_file_attr(pf, 0)->sample_regs_user, REGS_MASK, "regs mask");
	CHECK(perf_file_run(pf, &cb, &c, &err) == 0, "run: %s", strbuf_str(&err));
	CHECK_STR(s.log,
		  "M300:400000:1000:/bin/prog:5:77 S10:302:14:400011 S20:301:28:400021 "
		  "S30:301:3c:400031 C301:worker:0 F309<300 S100:301:c8:400101 "
		  "S200:302:190:400201 S300:302:258:400301 ", "records in time order");
	CHECK_EQ_U64(c.samples, 6, "samples");
	CHECK_EQ_U64(c.records, 13, "records, the rounds' marks included");
	CHECK_EQ_U64(c.unknown_type, 1, "a record type not read");
	CHECK_EQ_U64(s.lost, 7, "lost samples");
	perf_file_free(pf);
out:
	fclose(f);
	strbuf_release(&err);
	free(b.p);
}

static void test_seed(const char *srcdir)
{
	char *path = xasprintf("%s/tests/fuzz-corpus/perfdata/pebs-2threads.data", srcdir);
	FILE *f = fopen(path, "rb");
	struct strbuf err = STRBUF_INIT;
	struct perf_file_counts c;
	struct seen s = { 0 };
	struct perf_callbacks cb = callbacks(&s);
	struct perf_file *pf;
	uint8_t id[20];

	CHECK(f, "%s", path);
	if (!f)
		goto out;
	pf = perf_file_open(f, &err);
	CHECK(pf, "open: %s", strbuf_str(&err));
	if (pf) {
		CHECK_EQ_U64(perf_file_n_attrs(pf), 2, "events");
		CHECK_STR(perf_file_event_name(pf, 0), "cpu/mem-loads,ldlat=30/P", "first event");
		CHECK_STR(perf_file_event_name(pf, 1), "cpu/mem-stores/P", "second event");
		CHECK_STR(perf_file_cpuid(pf), "GenuineIntel,6,106,6", "the recording CPU");
		CHECK(perf_file_cpu_nodes(pf) && perf_file_cpu_nodes(pf)->node[1] == 1,
		      "CPU 1 on node 1");
		CHECK(perf_file_command(pf) &&
		      !strncmp(perf_file_command(pf), "perf mem record -- ", 19),
		      "command: %s", perf_file_command(pf));
		CHECK_EQ_U64(perf_file_build_id(pf, 4242, "testcases/false_sharing_counters", id),
			     20, "the binary's build-id");
		CHECK_EQ_U64(perf_file_build_id(pf, 4242, "/no/such", id), 0, "no build-id");
		CHECK(perf_file_run(pf, &cb, &c, &err) == 0, "run: %s", strbuf_str(&err));
		CHECK_EQ_U64(c.samples, 24, "samples");
		CHECK_EQ_U64(c.unknown_event, 0, "every sample's id is an event's");
		/* every 4th sample of a thread is a store (perf_data_synth.py) */
		CHECK_EQ_U64(s.ids_of_store_event, 6, "stores, by the store event's id");
		perf_file_free(pf);
	}
	fclose(f);
out:
	free(path);
	strbuf_release(&err);
}

/* open (and run, if it opens) bytes; the error it gave, or "" */
static char *refusal(const void *p, size_t n)
{
	FILE *f = memory_file(p, n);
	struct strbuf err = STRBUF_INIT;
	struct perf_file_counts c;
	struct seen s = { 0 };
	struct perf_callbacks cb = callbacks(&s);
	struct perf_file *pf = perf_file_open(f, &err);

	if (pf) {
		perf_file_run(pf, &cb, &c, &err);
		perf_file_free(pf);
	}
	fclose(f);
	return strbuf_detach(&err);
}

static void test_refusals(void)
{
	struct buf b = built_file();
	char *e;
	uint64_t data_off = 104 + sizeof(struct perf_event_attr) + 16;
	struct buf aux = { 0 };

	e = refusal("PERFFILE\0\0\0\0\0\0\0\0", 16);
	CHECK(strstr(e, "first format"), "%s", e);
	free(e);
	e = refusal("not perf at all!", 16);
	CHECK(!strcmp(e, "not a perf.data file"), "%s", e);
	free(e);
	e = refusal(b.p, 150);
	CHECK(strstr(e, "attributes section lies past the end"), "%s", e);
	free(e);
	/* an AUXTRACE record whose trace runs past the data section */
	put(&aux, b.p, data_off);
	put_header(&aux, 71, 0, 40);
	put_u64(&aux, 1u << 20);
	for (int i = 0; i < 4; i++)
		put_u64(&aux, 0);
	memcpy(aux.p + 48, &(uint64_t){ 48 }, 8);   /* the data section's size */
	e = refusal(aux.p, aux.len);
	CHECK(strstr(e, "AUX trace at byte") && strstr(e, "runs past the data section"),
	      "%s", e);
	free(e);
	free(aux.p);
	free(b.p);
}

/* A non-sample record's trailer: tid, time, id, cpu, identifier; the CPU
 * sits behind the id, which perf_record_cpu must step over. */
static void test_trailer_cpu(void)
{
	struct perf_event_attr a = { 0 };
	struct buf r = { 0 };

	a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_CPU |
			PERF_SAMPLE_IDENTIFIER;
	a.sample_id_all = 1;
	put_header(&r, PERF_RECORD_ITRACE_START, 0, 8 + 40);
	put_u32(&r, PID); put_u32(&r, PID + 1);
	put_u32(&r, PID); put_u32(&r, PID + 1);
	put_u64(&r, 777);                          /* time */
	put_u64(&r, 4242);                         /* id */
	put_u32(&r, 5); put_u32(&r, 0);            /* cpu */
	put_u64(&r, 4242);                         /* identifier */
	CHECK_EQ_U64(perf_record_cpu(&a, r.p, r.len), 5, "the trailer's CPU");
	CHECK_EQ_U64(perf_record_time(&a, r.p, r.len), 777, "the trailer's time");
	a.sample_type &= ~(uint64_t)PERF_SAMPLE_CPU;
	CHECK_EQ_U64(perf_record_cpu(&a, r.p, r.len - 8), 0, "no CPU sampled");
	free(r.p);
}

int main(void)
{
	test_trailer_cpu();
	const char *srcdir = getenv("top_srcdir");

	warnings_quiet = true;
	test_built();
	test_seed(srcdir ? srcdir : ".");
	test_refusals();
	return test_done();
}
