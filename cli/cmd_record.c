/* cmd_record.c - `contend record`: sample like run or attach, but write
 * what the session saw to a data file (datafile.h) for `contend report`
 * and `contend check` to analyse later, here or on another machine.
 *
 * The session hands over samples, mappings and names through its hooks.
 * It also re-reads /proc/PID/maps by itself, for the heap and anonymous
 * regions that no MMAP record announces; the recorder takes the same
 * snapshots while the target lives and stores each one that changed, so
 * that the report sees the address space the live session saw.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "common/cpu_nodes.h"
#include "cli/commands.h"
#include "detector/alloc_table.h"
#include "detector/glibc_heap.h"
#include "detector/datafile.h"
#include "detector/watch.h"
#include "cli/options.h"
#include "engine/session.h"
#include "common/hashmap.h"
#include "common/procfs.h"
#include "common/safe_file.h"
#include "common/util.h"
#include "printers/printers.h"
#include "reports/report.h"

#define DEFAULT_DATA_FILE "contend.data"
#define SNAPSHOT_INTERVAL 0.2          /* seconds, as the session's own */

struct build_id {
	char *path;
	uint8_t id[DATAFILE_BUILD_ID_MAX];
	unsigned len;
};

struct traced_pid {
	uint32_t pid;
	uint64_t maps_hash;            /* of the last snapshot stored, 0: none */
};

struct recorder {
	struct datafile_writer *w;
	struct out_file *out;          /* the data file, renamed into place at the end */
	const char *path;
	struct build_id *ids;          /* build-ids read, by path */
	size_t n_ids, alloc_ids;
	struct traced_pid *pids;       /* processes whose maps we snapshot */
	size_t n_pids, alloc_pids;
	uint32_t last_pid;
	double last_snapshot;
	struct strbuf maps;            /* scratch: a /proc/PID/maps text */
	const char *live_report;       /* the test's copy of the session's report */
	struct glibc_heap *heap;       /* -p: the heap the report looks blocks up in */
	struct confirm *confirm;       /* the session's watch windows, NULL: none */
};

/* The unfinished file is removed if contend exits before finishing it
 * (die()): a data file is complete or absent. */
static const struct out_file *temp_to_remove;

static void remove_temp(void)
{
	out_file_remove_temp(temp_to_remove);
}

static const struct build_id *build_id_of(struct recorder *rec, const char *path)
{
	struct build_id *b;

	for (size_t i = 0; i < rec->n_ids; i++)
		if (!strcmp(rec->ids[i].path, path))
			return &rec->ids[i];
	ALLOC_GROW(rec->ids, rec->n_ids + 1, rec->alloc_ids);
	b = &rec->ids[rec->n_ids++];
	b->path = xstrdup(path);
	b->len = datafile_build_id(path, b->id);
	return b;
}

static void write_mapping(struct recorder *rec, uint32_t pid, uint64_t start, uint64_t len,
			  uint64_t pgoff, uint32_t prot, const char *filename, uint32_t flags)
{
	struct datafile_mmap m = {
		.pid = pid, .prot = prot, .start = start, .len = len, .pgoff = pgoff,
		.flags = flags, .filename = filename,
	};

	/* only paths name files; "[heap]", "//anon" and "" do not */
	if (filename[0] == '/') {
		const struct build_id *b = build_id_of(rec, filename);
		copy_bytes(m.build_id, b->id, b->len);
		m.build_id_len = b->len;
	}
	datafile_write_mmap(rec->w, &m);
}

static void trace_pid(struct recorder *rec, uint32_t pid)
{
	if (pid == rec->last_pid)
		return;
	rec->last_pid = pid;
	for (size_t i = 0; i < rec->n_pids; i++)
		if (rec->pids[i].pid == pid)
			return;
	ALLOC_GROW(rec->pids, rec->n_pids + 1, rec->alloc_pids);
	rec->pids[rec->n_pids++] = (struct traced_pid){ .pid = pid };
}

static bool read_maps(pid_t pid, struct strbuf *out)
{
	char path[64], buf[8192];
	size_t n;
	pid_t task = process_memory_task(pid);   /* main thread exited? */
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)(task ? task : pid));
	f = fopen(path, "re");
	if (!f)
		return false;
	strbuf_reset(out);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		strbuf_add(out, buf, n);
	fclose(f);
	return out->len > 0;
}

/* Store the process's mappings if they changed since the last snapshot;
 * the first one stored says the snapshot replaces what came before. */
static void snapshot_maps(struct recorder *rec, struct traced_pid *t)
{
	uint32_t flags = DATAFILE_MMAP_RESET;
	uint64_t h;
	char *line, *next;

	if (!read_maps((pid_t)t->pid, &rec->maps))
		return;
	h = hash_bytes(rec->maps.buf, rec->maps.len) | 1;   /* 0: none yet */
	if (h == t->maps_hash)
		return;
	t->maps_hash = h;
	for (line = rec->maps.buf; line && *line; line = next) {
		uint64_t start, end, pgoff;
		uint32_t prot;
		const char *name;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (!parse_maps_line(line, &start, &end, &pgoff, &prot, &name))
			continue;
		write_mapping(rec, t->pid, start, end - start, pgoff, prot, name, flags);
		flags = 0;
	}
}

/* --- session hooks ------------------------------------------------------- */

static void on_access(void *ctx, const struct access_sample *a)
{
	struct recorder *rec = ctx;
	trace_pid(rec, a->pid);
	datafile_write_sample(rec->w, a);
}

static void on_chain(void *ctx, uint32_t id, const uint64_t *pcs, unsigned n)
{
	struct recorder *rec = ctx;
	datafile_write_chain(rec->w, id, pcs, n);
}

/* The heap blocks the samples fell in, for report to name them as run does. */
static void on_allocs(void *ctx, const struct alloc_table *t, struct line_table *lines)
{
	struct recorder *rec = ctx;
	struct alloc_record r;
	size_t pos = 0;

	while (alloc_table_next(t, lines, &pos, &r))
		datafile_write_alloc(rec->w, &r);
}

static void on_heap(void *ctx, struct glibc_heap *heap)
{
	struct recorder *rec = ctx;

	rec->heap = heap;
}

/* -p: the blocks the report found in the live heap, for `report` to name
 * the same objects from the file (it reads no memory). */
static void write_heap_blocks(struct recorder *rec)
{
	const struct glibc_heap_block *v;
	size_t n;

	if (!rec->heap)
		return;
	v = glibc_heap_found(rec->heap, &n);
	for (size_t i = 0; i < n; i++)
		datafile_write_heap_block(rec->w, (uint32_t)glibc_heap_pid(rec->heap), &v[i]);
	rec->heap = NULL;
}

static void on_confirmed(void *ctx, struct confirm *c)
{
	struct recorder *rec = ctx;

	rec->confirm = c;
}

/* The exact counts of the words the session watched, and the windows'
 * totals (or why none ran: attach on a virtual machine), for `report` to
 * confirm the lines as run does: they cannot be had from the samples. */
static void write_watch(struct recorder *rec, const struct report *r)
{
	struct watch *w = confirm_watch(rec->confirm);
	const struct watch_word_result *res;
	unsigned n = w ? watch_results(w, &res) : 0;
	struct datafile_watch_session s = {
		.windows = w ? watch_windows_run(w) : 0,
		.armed_s = w ? watch_armed_s(w) : 0,
		.note = r->watch_note,
	};

	for (unsigned i = 0; i < n; i++)
		if (res[i].windows)
			datafile_write_watch_word(rec->w, &res[i]);
	if (s.windows || s.note)
		datafile_write_watch_session(rec->w, &s);
}

static void on_mmap(void *ctx, uint32_t pid, uint64_t start, uint64_t len,
		    uint64_t pgoff, uint32_t prot, const char *filename)
{
	write_mapping(ctx, pid, start, len, pgoff, prot, filename ? filename : "", 0);
}

static void on_comm(void *ctx, uint32_t pid, uint32_t tid, const char *comm, bool exec)
{
	struct recorder *rec = ctx;

	trace_pid(rec, pid);
	datafile_write_comm(rec->w, pid, tid, comm, exec);
	if (exec && pid == tid)
		for (size_t i = 0; i < rec->n_pids; i++)
			if (rec->pids[i].pid == pid)
				rec->pids[i].maps_hash = 0;   /* a new program */
}

static void on_tick(void *ctx, struct line_table *lines, pid_t pid, double elapsed)
{
	struct recorder *rec = ctx;

	if (pid > 0)     /* -a: no one target; the samples name the processes */
		trace_pid(rec, (uint32_t)pid);
	if (rec->last_snapshot && elapsed - rec->last_snapshot < SNAPSHOT_INTERVAL)
		return;
	rec->last_snapshot = elapsed > 0 ? elapsed : 1e-9;
	for (size_t i = 0; i < rec->n_pids; i++)
		snapshot_maps(rec, &rec->pids[i]);
}

static void write_live_report(const struct report *r, const char *path)
{
	char *why = NULL;
	struct out_file *of = out_file_open(path, &why);

	if (of) {
		report_print_json(r, out_file_stream(of));
		out_file_commit(of, &why);
	}
	if (why)
		error("%s", why);
	free(why);
}

/* The session has built its report: we keep only its header, as the
 * data file's summary, and finish the file. */
static int on_report(void *ctx, const struct report *r, const struct options *opt)
{
	struct recorder *rec = ctx;
	struct run_facts summary = {
		.command = r->command, .backend = r->backend, .backend_note = r->backend_note,
		.duration = r->duration, .target = r->target, .target_status = r->target_status,
		.samples = r->samples, .decoded = r->decoded,
		.dropped = r->dropped, .n_dropped = r->n_dropped,
		.mem_info = r->mem_info,
		.price = r->price, .price_note = r->price_note,
		.instruments = &r->instruments,
		.overlap = r->overlap, .cpu_pressure = r->cpu_pressure, .load = r->load,
	};
	uint64_t samples = datafile_writer_samples(rec->w);
	struct cpu_nodes nodes;   /* this machine's, which sampled */
	int failed;

	if (cpu_nodes_read_sysfs(&nodes))
		summary.cpu_nodes = &nodes;

	/* whose rights `report` reads the sources with: the target's, as
	 * `run` would have (session.c, the last credentials seen) */
	if (r->source_reader)
		datafile_writer_set_target(rec->w, r->source_reader);
	write_heap_blocks(rec);
	write_watch(rec, r);
	failed = datafile_writer_finish(rec->w, &summary);
	long size = ftell(out_file_stream(rec->out));
	struct out_file *out = rec->out;
	char *why = NULL;

	rec->w = NULL;
	if (rec->live_report)
		write_live_report(r, rec->live_report);
	temp_to_remove = NULL;
	rec->out = NULL;
	if (failed) {
		error("%s: write failed: %s", rec->path, strerror(errno));
		out_file_abort(out);
		return 2;
	}
	if (out_file_commit(out, &why) < 0) {
		error("%s", why);
		free(why);
		return 2;
	}
	if (!opt->quiet)
		fprintf(stderr, "contend: wrote %" PRIu64 " access samples to %s (%.1f KiB); "
			"see them with 'contend report -i %s'\n",
			samples, rec->path, size / 1024.0, rec->path);
	return 0;
}

/* ----------------------------------------------------------------------- */

static void recorder_release(struct recorder *rec)
{
	for (size_t i = 0; i < rec->n_ids; i++)
		free(rec->ids[i].path);
	free(rec->ids);
	free(rec->pids);
	strbuf_release(&rec->maps);
}

int cmd_record(int argc, char **argv)
{
	struct options opt;
	struct recorder rec = { 0 };
	struct session_hooks hooks = {
		.ctx = &rec, .access = on_access, .chain = on_chain, .mmap = on_mmap,
		.comm = on_comm, .tick = on_tick, .report = on_report,
		.allocs = on_allocs, .heap = on_heap, .confirmed = on_confirmed,
	};
	struct classify_config picks;
	char *why = NULL;
	int ret;

	options_parse(&opt, argc, argv);
	if ((opt.pid || opt.system_wide) && opt.argv)
		die("record: give -p PID, -a or a command after --, not two");
	if (!opt.pid && !opt.argv && !opt.system_wide)
		options_usage("record", 2);
	/* The report the session builds is thrown away but for its header:
	 * let no line qualify, so that nothing is symbolized for it.  Unless
	 * the test that `report` reproduces it wants a copy (in JSON). */
	rec.live_report = getenv("CONTEND_TEST_LIVE_REPORT");
	/* the watch windows pick their lines as run's do (the timer alone
	 * may never sample a line's stores: only they show its writers);
	 * their counts go into the file */
	picks = opt.classify;
	hooks.confirm_classify = &picks;
	if (!rec.live_report)
		opt.classify.min_score = INFINITY;

	/* The file is ours (the session must not check or write -o), and
	 * created now, before the target starts: a path we cannot or must
	 * not write fails at once.  "-" would be stdout, which a launched
	 * target writes to as well: refused rather than corrupted. */
	rec.path = opt.output ? opt.output : DEFAULT_DATA_FILE;
	opt.output = NULL;
	if (!strcmp(rec.path, "-"))
		die("record: -o - (standard output) is not supported: the data file must be "
		    "a file; write it with -o FILE and read it with 'contend report -i FILE'");
	rec.out = out_file_open(rec.path, &why);
	if (!rec.out)
		die("%s", why);
	temp_to_remove = rec.out;
	atexit(remove_temp);
	rec.w = datafile_writer_new(out_file_stream(rec.out), opt.freq);

	ret = opt.pid || opt.system_wide ? session_attach(&opt, &hooks)
					 : session_run(&opt, &hooks);

	/* the session failed before its report, or writing the file did */
	datafile_writer_free(rec.w);
	temp_to_remove = NULL;
	out_file_abort(rec.out);
	recorder_release(&rec);
	free(opt.tids);         /* -t, -p lists: options_parse() grew them */
	free(opt.pids);
	free(opt.cgroup);
	return ret;
}
