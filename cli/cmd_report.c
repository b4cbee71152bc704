/* cmd_report.c - `contend report`: the report of a data file written by
 * `contend record`, with every option of `contend run`.
 *
 * Samples go into a line table as they are read, so memory grows with
 * distinct lines, not samples, and --line-size/--window-ms apply as they
 * would to a live session.  Mappings go into the symbolizer in file order,
 * between the samples, so that each sample is named by what was mapped
 * when it was taken (symbolizer.h, versions).  Each binary is opened at its
 * recorded path if the build-id there still matches, else at a copy with
 * that build-id under --symfs DIR or in the current directory; a binary
 * that cannot be found (or has no debug info) is named in a warning when
 * it holds code or data of a shared line.
 *
 * A perf.data file (detector/perf_file.h) takes the same way as a live
 * session's rings: its samples go through the sampler and the backend its
 * events call for (soft for timer samples with user registers, the
 * hardware decode for samples with data addresses) into the same line
 * table; its mappings and binaries are found as a data file's are, by the
 * build-ids perf recorded, also in perf's build-id cache (~/.debug).
 */
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "detector/alloc_table.h"
#include "detector/backend.h"
#include "detector/glibc_heap.h"
#include "detector/callchain.h"
#include "detector/ingest.h"
#include "cli/commands.h"
#include "detector/datafile.h"
#include "detector/line_table.h"
#include "detector/overlap.h"
#include "detector/perf_file.h"
#include "detector/sampler.h"
#include "detector/spe.h"
#include "cli/options.h"
#include "engine/session.h"
#include "detector/thread_names.h"
#include "detector/watch.h"
#include "common/safe_file.h"
#include "common/escape.h"
#include "common/hashmap.h"
#include "common/util.h"
#include "reports/report.h"
#include "symbolize/symbolizer.h"

#define DEFAULT_DATA_FILE "contend.data"

enum file_state {
	FILE_AS_RECORDED,       /* at its path; or not an ELF file with a build-id */
	FILE_MOVED,             /* a copy with its build-id elsewhere */
	FILE_MISSING,
	FILE_REBUILT,           /* its path holds another build */
};

/* A file some mapping named, with its build-id at record time. */
struct recorded_file {
	char *path;
	uint8_t id[DATAFILE_BUILD_ID_MAX];
	unsigned id_len;
	enum file_state state;
	char *use;              /* the path to give the symbolizer; NULL: none */
	bool used;              /* holds code or data of a shared line */
};

struct map_event {
	uint32_t pid, prot, flags;
	bool exec;              /* the pid exec'd: its mappings are gone */
	uint64_t start, len, pgoff;
	size_t file;            /* in replay.files */
};

struct replay {
	const struct options *opt;
	struct line_table *lines;
	struct thread_names names;
	struct callchains *chains;      /* NULL: recorded without -g */
	uint32_t bad_chain;             /* a chain that repeats an earlier one */
	struct recorded_file *files;
	size_t n_files, alloc_files;
	struct hashmap file_index;      /* file number + 1, by file_hash() */
	struct map_event *events;
	size_t n_events, alloc_events;
	struct alloc_table *allocs;     /* NULL: recorded without allocation tracking */
	struct glibc_heap_block *blocks;   /* record -p: heap blocks walked, of heap_pid */
	size_t n_blocks, alloc_blocks;
	uint32_t heap_pid;
	struct symbolizer *sym;         /* fed as the file is read */
	struct confirm *confirm;        /* the recorded watch results; NULL: none */
	char *watch_note;               /* why record's watchpoints were left off */
	bool bad_word;                  /* a watched word repeats an earlier one */
	uint64_t bad_word_addr;
};

static void locate(struct recorded_file *f, const char *symfs);

/* --- files, by (path, build-id) ------------------------------------------ */

static uint64_t file_hash(const char *path, const uint8_t *id, unsigned id_len)
{
	return hash_str(path) ^ hash_bytes(id, id_len);
}

static size_t file_intern(struct replay *rp, const char *path, const uint8_t *id,
			  unsigned id_len)
{
	uint64_t hash = file_hash(path, id, id_len);
	struct recorded_file *f;
	size_t pos;

	for (void *v = hashmap_first_of(&rp->file_index, hash, &pos); v;
	     v = hashmap_next_of(&rp->file_index, hash, &pos)) {
		f = &rp->files[(uintptr_t)v - 1];
		if (f->id_len == id_len && !memcmp(f->id, id, id_len) && !strcmp(f->path, path))
			return (uintptr_t)v - 1;
	}
	ALLOC_GROW(rp->files, rp->n_files + 1, rp->alloc_files);
	f = &rp->files[rp->n_files];
	memset(f, 0, sizeof(*f));
	f->path = xstrdup(path);
	copy_bytes(f->id, id, id_len);
	f->id_len = id_len;
	locate(f, rp->opt->symfs);
	/* the number + 1: never NULL, and stays right as files[] grows */
	hashmap_add(&rp->file_index, hash, (void *)(uintptr_t)++rp->n_files);
	return rp->n_files - 1;
}

/* --- reading ------------------------------------------------------------- */

static void on_access(void *ctx, const struct access_sample *a)
{
	struct replay *rp = ctx;
	struct access_sample v = *a;

	ingest_access(rp->lines, rp->sym, &v);
}

static void on_mmap(void *ctx, const struct datafile_mmap *m)
{
	struct replay *rp = ctx;
	struct map_event *e;

	ALLOC_GROW(rp->events, rp->n_events + 1, rp->alloc_events);
	e = &rp->events[rp->n_events++];
	*e = (struct map_event){
		.pid = m->pid, .prot = m->prot, .flags = m->flags,
		.start = m->start, .len = m->len, .pgoff = m->pgoff,
		.file = file_intern(rp, m->filename, m->build_id, m->build_id_len),
	};
	/* a snapshot of /proc/PID/maps: forget what was */
	if (e->flags & DATAFILE_MMAP_RESET)
		symbolizer_exec(rp->sym, (pid_t)e->pid);
	if (rp->files[e->file].use)
		symbolizer_add_mapping(rp->sym, (pid_t)e->pid, e->start, e->len, e->pgoff,
				       e->prot, rp->files[e->file].use);
}

/* Interning the chains in file order gives them their recorded ids, as
 * long as no chain repeats (the recorder writes each chain once). */
static void on_chain(void *ctx, uint32_t id, const uint64_t *pcs, unsigned n)
{
	struct replay *rp = ctx;

	if (!rp->chains)
		rp->chains = callchains_new();
	if (callchain_intern(rp->chains, pcs, n) != id && !rp->bad_chain)
		rp->bad_chain = id;
}

static void on_alloc(void *ctx, const struct alloc_record *a)
{
	struct replay *rp = ctx;

	if (!rp->allocs)
		rp->allocs = alloc_table_new();
	alloc_table_add(rp->allocs, a, NULL);
}

/* A block record -p found in the target's heap: the report looks its
 * lines up in these as attach does in the live heap.  One process's,
 * as many as record writes (the walk keeps GLIBC_HEAP_FOUND_MAX). */
static void on_heap_block(void *ctx, uint32_t pid, const struct glibc_heap_block *b)
{
	struct replay *rp = ctx;

	if (rp->n_blocks && pid != rp->heap_pid)
		return;
	if (rp->n_blocks >= GLIBC_HEAP_FOUND_MAX)
		return;
	rp->heap_pid = pid;
	ALLOC_GROW(rp->blocks, rp->n_blocks + 1, rp->alloc_blocks);
	rp->blocks[rp->n_blocks++] = *b;
}

/* The watch results record kept go into a watch that arms nothing:
 * the report merges and shows them as run's confirmation (watch.h).
 * --no-confirm leaves them out, as it leaves run's windows. */
static struct watch *recorded_watch(struct replay *rp)
{
	struct watch_config wc;

	if (!rp->opt->confirm)
		return NULL;
	if (!rp->confirm) {
		watch_config_default(&wc);
		rp->confirm = confirm_new(&wc, &rp->opt->classify, rp->opt->line_size);
		confirm_on_demand(rp->confirm);     /* plans no window */
	}
	return confirm_watch(rp->confirm);
}

static void on_watch_word(void *ctx, const struct watch_word_result *r)
{
	struct replay *rp = ctx;
	struct watch *w = recorded_watch(rp);

	if (w && !watch_restore(w, r) && !rp->bad_word) {
		rp->bad_word = true;
		rp->bad_word_addr = r->addr;
	}
}

static void on_watch_session(void *ctx, const struct datafile_watch_session *s)
{
	struct replay *rp = ctx;
	struct watch *w = recorded_watch(rp);

	if (!w)
		return;
	watch_restore_totals(w, s->windows, s->armed_s);
	if (s->note)
		rp->watch_note = xstrdup(s->note);
}

static void on_comm(void *ctx, uint32_t pid, uint32_t tid, const char *comm, bool exec)
{
	struct replay *rp = ctx;

	thread_names_set(&rp->names, tid, comm);
	if (exec && pid == tid) {
		ALLOC_GROW(rp->events, rp->n_events + 1, rp->alloc_events);
		rp->events[rp->n_events++] = (struct map_event){ .pid = pid, .exec = true };
		symbolizer_exec(rp->sym, (pid_t)pid);
	}
}

/* --- finding the binaries ------------------------------------------------ */

static bool has_build_id(const char *path, const struct recorded_file *f)
{
	uint8_t id[DATAFILE_BUILD_ID_MAX];
	unsigned n = datafile_build_id(path, id);
	return n == f->id_len && !memcmp(id, f->id, n);
}

/* The recorded path; else, with --symfs DIR, DIR/PATH then DIR/BASENAME;
 * else BASENAME in the current directory; else perf's build-id cache
 * (~/.debug/.build-id/xx/...): the first with the build-id. */
static void locate(struct recorded_file *f, const char *symfs)
{
	const char *base, *home = getenv("HOME");
	char *candidates[4];
	unsigned n = 0;

	f->state = FILE_AS_RECORDED;
	f->use = xstrdup(f->path);
	/* not a file, or nothing to recognise a copy by: take it as it is */
	if (f->path[0] != '/' || !f->id_len || has_build_id(f->path, f))
		return;

	base = strrchr(f->path, '/') + 1;
	if (symfs) {
		candidates[n++] = xasprintf("%s%s", symfs, f->path);
		candidates[n++] = xasprintf("%s/%s", symfs, base);
	}
	candidates[n++] = xstrdup(base);
	if (home && *home) {   /* perf's build-id cache, where perf record put a copy */
		char *hex = build_id_hex(f->id, f->id_len);
		candidates[n++] = xasprintf("%s/.debug/.build-id/%.2s/%s/elf", home, hex, hex + 2);
		free(hex);
	}
	f->state = access(f->path, F_OK) == 0 ? FILE_REBUILT : FILE_MISSING;
	free(f->use);
	f->use = NULL;
	for (unsigned i = 0; i < n; i++) {
		if (!f->use && has_build_id(candidates[i], f)) {
			f->use = realpath(candidates[i], NULL);
			if (f->use)
				f->state = FILE_MOVED;
		}
		free(candidates[i]);
	}
	if (f->state == FILE_MISSING)
		f->use = xstrdup(f->path);   /* unopenable: still names the module */
}

/* (pid, address) of every shared line and of the code touching it */
struct place {
	uint32_t pid;
	uint64_t addr;
};

static int place_cmp(const void *a, const void *b)
{
	const struct place *x = a, *y = b;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static struct place *shared_places(struct line_table *lines, size_t *n)
{
	struct place *v = NULL;
	size_t alloc = 0;

	*n = 0;
	for (size_t i = 0; i < line_table_count(lines); i++) {
		const struct line *l = line_table_line(lines, i);
		if (l->n_threads < 2)
			continue;
		ALLOC_GROW(v, *n + 1 + l->n_cells, alloc);
		v[(*n)++] = (struct place){ l->pid, l->addr };
		for (unsigned c = 0; c < l->n_cells; c++)
			v[(*n)++] = (struct place){ l->pid, symbolizer_plain(l->cells[c].ip) };
	}
	if (*n)
		sort_items(v, *n, sizeof(*v), place_cmp);
	return v;
}

static bool any_place_in(const struct place *v, size_t n, const struct map_event *e)
{
	struct place lo = { e->pid, e->start };
	size_t a = 0, b = n;

	while (a < b) {             /* first place >= (pid, start) */
		size_t mid = a + (b - a) / 2;
		if (place_cmp(&v[mid], &lo) < 0)
			a = mid + 1;
		else
			b = mid;
	}
	return a < n && v[a].pid == e->pid && v[a].addr - e->start < e->len;
}

static void mark_used(struct replay *rp)
{
	size_t n;
	struct place *v = shared_places(rp->lines, &n);

	for (size_t i = 0; i < rp->n_events; i++) {
		const struct map_event *e = &rp->events[i];
		if (!e->exec && !rp->files[e->file].used && any_place_in(v, n, e))
			rp->files[e->file].used = true;
	}
	free(v);
}

static bool has_debug_info(const char *path)
{
	static const Dwfl_Callbacks callbacks = {
		.find_elf = dwfl_build_id_find_elf,
		.find_debuginfo = dwfl_standard_find_debuginfo,
		.section_address = dwfl_offline_section_address,
	};
	Dwfl *dwfl = dwfl_begin(&callbacks);
	Dwfl_Module *mod;
	Dwarf_Addr bias;
	bool found = false;

	if (!dwfl)
		return true;        /* cannot tell: do not complain */
	mod = dwfl_report_offline(dwfl, "", path, -1);
	dwfl_report_end(dwfl, NULL, NULL);
	found = mod && dwfl_module_getdwarf(mod, &bias);
	dwfl_end(dwfl);
	return found;
}

/* One line per binary that matters and is not as it was. */
static void explain_file(const struct recorded_file *f, const struct options *opt)
{
	char *hex = build_id_hex(f->id, f->id_len);
	uint8_t now[DATAFILE_BUILD_ID_MAX];
	struct strbuf ep = STRBUF_INIT, eu = STRBUF_INIT;   /* paths of the target's */
	char *now_hex;

	switch (f->state) {
	case FILE_MISSING:
		if (opt->symfs)
			warning("cannot find %s (build-id %s) at its path, under %s or in the "
				"current directory: its code and data stay unnamed",
				escape_text(&ep, f->path), hex, escape_text(&eu, opt->symfs));
		else
			warning("cannot find %s (build-id %s): its code and data stay unnamed; "
				"copy it there or pass --symfs DIR", escape_text(&ep, f->path), hex);
		break;
	case FILE_REBUILT:
		now_hex = build_id_hex(now, datafile_build_id(f->path, now));
		warning("%s is not the recorded binary (%s%s, recorded %s): its code "
			"and data stay unnamed; pass --symfs DIR with the recorded build",
			escape_text(&ep, f->path), *now_hex ? "build-id " : "no build-id",
			now_hex, hex);
		free(now_hex);
		break;
	case FILE_MOVED:
		if (!opt->quiet)
			fprintf(stderr, "contend: %s: using %s (same build-id)\n",
				escape_text(&ep, f->path), escape_text(&eu, f->use));
		/* fall through */
	case FILE_AS_RECORDED:
		if (f->id_len && !has_debug_info(f->use))
			warning("no debug info for %s (build-id %s): source lines and data "
				"types there are unknown; install its debug info or pass an unstripped "
				"build with --symfs DIR", escape_text(&eu, f->use), hex);
		break;
	}
	free(hex);
	strbuf_release(&ep);
	strbuf_release(&eu);
}

#define NOBODY_ID 65534   /* nobody and nogroup on Debian and most others */

/* The target is gone: whose rights are source files and perf maps read
 * with?  The target's credentials as recorded (the file's header), when
 * root owns the data file: only root (contend record as root) could have
 * written it.  Anyone else could write any uid there, so their file is
 * read only as its owner could (uid and gid, no supplementary groups: fail
 * closed), never with more rights than whoever made it; so is a file
 * from a contend that did not record the target.  Through a pipe (report
 * -i -) whoever wrote the bytes is unknown, and a pipe root's shell made
 * is root's whatever flows in it: root reads it as nobody; anyone else
 * with their own rights, which the kernel bounds anyway.  A perf.data (r
 * NULL) records no target's credentials: its owner's rights. */
static const struct proc_creds *data_file_reader(FILE *f, const struct datafile_reader *r,
						 struct proc_creds *owner)
{
	const struct proc_creds *target = r ? datafile_reader_target(r) : NULL;
	struct stat st;

	*owner = (struct proc_creds){ .uid = (uid_t)-1, .gid = (gid_t)-1 };
	if (fstat(fileno(f), &st) != 0)
		return owner;
	if (!S_ISREG(st.st_mode)) {
		bool root = geteuid() == 0;

		owner->uid = root ? NOBODY_ID : geteuid();
		owner->gid = root ? NOBODY_ID : getegid();
		if (root)
			warning("the data file comes through a pipe: its sources and perf maps are "
				"read as nobody (give it as -i FILE: a file root owns is read with "
				"its recorded target's rights)");
		return owner;
	}
	owner->uid = st.st_uid;
	owner->gid = st.st_gid;
	return target && owner->uid == 0 ? target : owner;
}

/* The file is read: say what is wrong with the binaries that matter. */
static void explain_files(struct replay *rp)
{
	mark_used(rp);
	for (size_t i = 0; i < rp->n_files; i++)
		if (rp->files[i].used)
			explain_file(&rp->files[i], rp->opt);
}

static void replay_release(struct replay *rp)
{
	line_table_free(rp->lines);
	symbolizer_free(rp->sym);
	callchains_free(rp->chains);
	alloc_table_free(rp->allocs);
	free(rp->blocks);
	confirm_free(rp->confirm);
	free(rp->watch_note);
	thread_names_release(&rp->names);
	for (size_t i = 0; i < rp->n_files; i++) {
		free(rp->files[i].path);
		free(rp->files[i].use);
	}
	free(rp->files);
	hashmap_release(&rp->file_index, NULL);
	free(rp->events);
}

/* --- perf.data ------------------------------------------------------------ */

struct perf_replay {
	struct replay *rp;
	struct perf_file *pf;
	uint64_t first_ns, last_ns;     /* the samples' times */
	uint64_t lost;
	struct sampler *sampler;
	struct backend *backend;
	const struct perf_callbacks *cb;
	struct hashmap process_of;      /* tid -> pid, for AUX traces per thread */
};

static void on_perf_sample(void *ctx, const struct perf_sample *ps)
{
	struct perf_replay *pr = ctx;

	if (ps->time && (!pr->first_ns || ps->time < pr->first_ns))
		pr->first_ns = ps->time;
	if (ps->time > pr->last_ns)
		pr->last_ns = ps->time;
	sampler_sample(pr->sampler, ps);
}

/* perf names anonymous memory "//anon"; the kernel's own mappings (pid
 * -1, addresses above user space) name no code of a target */
static void on_perf_mmap(void *ctx, uint32_t pid, uint64_t start, uint64_t len,
			 uint64_t pgoff, uint32_t prot, const char *filename,
			 const struct map_object *obj)
{
	struct perf_replay *pr = ctx;
	struct datafile_mmap m = {
		.pid = pid, .prot = prot, .start = start, .len = len, .pgoff = pgoff,
		.filename = strcmp(filename, "//anon") ? filename : "",
	};

	(void)obj;
	if (pid == UINT32_MAX || !user_address(start))
		return;
	m.build_id_len = perf_file_build_id(pr->pf, pid, filename, m.build_id);
	on_mmap(pr->rp, &m);
}

static void note_thread(struct perf_replay *pr, uint32_t pid, uint32_t tid)
{
	if (pid && tid)
		hashmap_put(&pr->process_of, &tid, (void *)(uintptr_t)pid);
}

static void on_perf_comm(void *ctx, uint32_t pid, uint32_t tid, const char *comm, bool exec)
{
	struct perf_replay *pr = ctx;

	note_thread(pr, pid, tid);
	on_comm(pr->rp, pid, tid, comm, exec);
}

static void on_perf_fork(void *ctx, uint32_t pid, uint32_t ppid, uint32_t tid)
{
	struct perf_replay *pr = ctx;

	note_thread(pr, pid, tid);
	if (pid == tid && pid != ppid)   /* a process, not a thread */
		symbolizer_fork(pr->rp->sym, (pid_t)ppid, (pid_t)pid);
}

/* An AUX trace (Arm SPE) to the backend's decoder, whose samples come
 * back to on_perf_sample.  A per-thread trace names its thread only. */
static void on_perf_aux(void *ctx, const struct perf_aux *a)
{
	struct perf_replay *pr = ctx;
	struct perf_aux with_pid = *a;

	if (!with_pid.pid && with_pid.tid)
		with_pid.pid = (uint32_t)(uintptr_t)hashmap_get(&pr->process_of, &with_pid.tid);
	pr->backend->row->aux->feed(pr->backend->state, &with_pid, pr->cb);
}

static void on_perf_itrace_start(void *ctx, uint32_t cpu, uint32_t pid, uint32_t tid)
{
	struct perf_replay *pr = ctx;

	note_thread(pr, pid, tid);
	pr->backend->row->aux->itrace_start(pr->backend->state, cpu, pid, tid);
}

static void on_perf_lost(void *ctx, uint64_t n)
{
	struct perf_replay *pr = ctx;
	pr->lost += n;
}

/* Which decode the events' samples call for: their data addresses (perf
 * mem, perf c2c: the backend the event names, PEBS where it names none),
 * else their user registers (soft).  NULL and why if neither. */
static const struct backend_row *perf_file_backend(const struct perf_file *pf,
						   struct strbuf *why)
{
	const struct perf_event_attr *a = perf_file_attr(pf, 0);
	const char *name = perf_file_event_name(pf, 0);

	for (unsigned i = 0; i < perf_file_n_attrs(pf); i++)   /* its samples are in AUX */
		if (perf_file_event_name(pf, i) && strstr(perf_file_event_name(pf, i), "arm_spe"))
			return backend_row(BACKEND_SPE);
	if (a->sample_type & PERF_SAMPLE_ADDR) {
		if (name && strstr(name, "ibs"))
			return backend_row(BACKEND_IBS);
		return backend_row(BACKEND_PEBS);
	}
	if ((a->sample_type & PERF_SAMPLE_REGS_USER) && a->sample_regs_user)
		return backend_row(BACKEND_SOFT);
	strbuf_addf(why, "its samples carry neither data addresses (perf mem record, perf c2c "
		    "record) nor user registers: record with 'perf record -e cpu-clock "
		    "--user-regs=%s -- CMD'", decode_native_regs_names());
	return NULL;
}

/* The backend's state for the file: SPE's data source packets are read
 * as the recording CPU encodes them (its MIDR in perf's CPUID), not this
 * machine's. */
static void *perf_file_backend_open(const struct backend_row *row, const struct perf_file *pf,
				    struct symbolizer *sym)
{
	const char *cpuid = perf_file_cpuid(pf);
	unsigned long long midr;
	char *end;

	if (row->id != BACKEND_SPE || !cpuid || strncmp(cpuid, "0x", 2))
		return row->open(sym);
	midr = strtoull(cpuid, &end, 16);
	if (*end)
		return row->open(sym);
	return spe_backend_new(sym, spe_source_format_of((midr >> 24) & 0xff, (midr >> 4) & 0xfff));
}

/* Samples per second per thread: a timer event's period, or the rate
 * perf asked for; 0 where the event counts something else. */
static unsigned perf_file_freq(const struct perf_file *pf)
{
	const struct perf_event_attr *a = perf_file_attr(pf, 0);

	if (a->freq)
		return (unsigned)a->sample_freq;
	if (a->type == PERF_TYPE_SOFTWARE && a->sample_period &&
	    (a->config == PERF_COUNT_SW_CPU_CLOCK || a->config == PERF_COUNT_SW_TASK_CLOCK))
		return (unsigned)(1000000000ull / a->sample_period);
	return 0;
}

/* What perf recorded that the report leaves out, said once. */
static void explain_perf_counts(const struct perf_replay *pr, const struct perf_file_counts *c,
				const char *path)
{
	struct strbuf sb = STRBUF_INIT, ep = STRBUF_INIT;

	if (pr->lost)
		strbuf_addf(&sb, "%s%llu samples perf lost (its buffer was full)",
			    sb.len ? "; " : "", (unsigned long long)pr->lost);
	if (c->malformed)
		strbuf_addf(&sb, "%s%llu malformed samples", sb.len ? "; " : "",
			    (unsigned long long)c->malformed);
	if (c->unknown_event)
		strbuf_addf(&sb, "%s%llu samples of no event in its header", sb.len ? "; " : "",
			    (unsigned long long)c->unknown_event);
	if (c->unknown_type)
		strbuf_addf(&sb, "%s%llu records of types contend does not read",
			    sb.len ? "; " : "", (unsigned long long)c->unknown_type);
	if (c->aux_bytes)
		strbuf_addf(&sb, "%s%llu bytes of AUX-area trace its events' decode does not read "
			    "(Intel PT)", sb.len ? "; " : "", (unsigned long long)c->aux_bytes);
	if (sb.len)
		warning("%s: left out: %s", escape_text(&ep, path), strbuf_str(&sb));
	strbuf_release(&sb);
	strbuf_release(&ep);
}

/* "perf.data: cpu/mem-loads/P, cpu/mem-stores/P": the events perf named */
static void perf_file_events_note(const struct perf_file *pf, struct strbuf *sb)
{
	unsigned n = perf_file_n_attrs(pf), shown = n < 4 ? n : 4;

	strbuf_addf(sb, "perf.data:");
	for (unsigned i = 0; i < shown; i++) {
		const char *name = perf_file_event_name(pf, i);   /* the printers escape it */

		strbuf_addf(sb, "%s %s", i ? "," : "", name ? name : "an event");
	}
	if (n > shown)
		strbuf_addf(sb, " and %u more", n - shown);
}

/* The report's header: perf's command, the decode that ran, the span of
 * the samples; backend_note and dropped are the caller's. */
static struct run_facts perf_file_facts(const struct perf_replay *pr, const struct backend *b,
					unsigned freq, double overlap)
{
	const char *command = perf_file_command(pr->pf);

	return (struct run_facts){
		.command = command ? command : "perf record",
		.backend = b->row->name, .mem_info = b->row->mem_info,
		.overlap = overlap, .cpu_pressure = -1, .load = -1, .freq = freq,
		.duration = pr->last_ns > pr->first_ns ? (pr->last_ns - pr->first_ns) / 1e9 : 0,
		.target = TARGET_PERF_FILE,
		.samples = b->row->samples_seen(b->state),
		.decoded = b->row->samples_decoded(b->state),
		.cpu_nodes = perf_file_cpu_nodes(pr->pf),
	};
}

static int report_perf_file(const struct options *opt, const struct session_hooks *hooks,
			    FILE *f, const char *path)
{
	struct replay rp = { .opt = opt };
	struct perf_replay pr = { .rp = &rp, .process_of = HASHMAP_INIT(sizeof(uint32_t)) };
	struct strbuf err = STRBUF_INIT, note = STRBUF_INIT, ep = STRBUF_INIT;
	const struct backend_row *row = NULL;
	struct backend b = { 0 };
	struct sampler sm = { 0 };
	struct overlap ov;
	struct perf_file_counts counts;
	struct perf_callbacks cb = {
		.sample_ctx = &pr, .sample = on_perf_sample,
		.ctx = &pr, .mmap = on_perf_mmap, .comm = on_perf_comm, .fork = on_perf_fork,
		.lost = on_perf_lost,
	};
	struct run_facts hdr;
	struct named_count *dropped = NULL;
	struct proc_creds owner;
	const struct proc_creds *reader;
	unsigned freq, window_freq, n_dropped = 0;
	int ret = 2;

	rp.sym = symbolizer_new();
	symbolizer_set_offline(rp.sym);
	pr.pf = perf_file_open(f, &err);
	if (!pr.pf)
		goto bad_file;
	if (!(row = perf_file_backend(pr.pf, &err)))
		goto bad_file;
	/* a perf.data says nothing of whose it is: read as its owner could */
	reader = data_file_reader(f, NULL, &owner);
	symbolizer_set_map_owner(rp.sym, reader->uid);
	freq = perf_file_freq(pr.pf);
	/* windows of a period: an event that is not a timer's has none, take 1 ms */
	window_freq = freq ? freq : 1000;
	rp.lines = line_table_new(opt->line_size, session_window_ns(opt, window_freq));
	overlap_init(&ov, 1000000000ull / window_freq);
	b.row = row;
	b.state = perf_file_backend_open(row, pr.pf, rp.sym);
	sm = (struct sampler){ .lines = rp.lines, .sym = rp.sym, .backend = &b, .overlap = &ov };
	pr.sampler = &sm;
	pr.backend = &b;
	pr.cb = &cb;
	if (row->aux) {
		cb.aux_ctx = &pr;
		cb.aux = on_perf_aux;
		cb.itrace_start = on_perf_itrace_start;
	}
	if (perf_file_run(pr.pf, &cb, &counts, &err) < 0)
		goto bad_file;
	explain_perf_counts(&pr, &counts, path);

	perf_file_events_note(pr.pf, &note);
	strbuf_addf(&note, ", decoded by %s", row->method ? row->method : row->name);
	if (row->drop_counts)
		n_dropped = row->drop_counts(b.state, &dropped);
	hdr = perf_file_facts(&pr, &b, freq, overlap_share(&ov));
	hdr.backend_note = strbuf_str(&note);
	hdr.dropped = dropped;
	hdr.n_dropped = n_dropped;
	explain_files(&rp);
	symbolizer_sampling_done(rp.sym);
	ret = session_output(opt, &hdr, rp.lines, rp.sym, &rp.names, hooks, NULL, reader);
	goto done;

bad_file:
	error("%s: %s", escape_text(&ep, path), strbuf_str(&err));
done:
	if (b.state)
		row->close(b.state);
	named_counts_free(dropped, n_dropped);
	perf_file_free(pr.pf);
	hashmap_release(&pr.process_of, NULL);
	strbuf_release(&err);
	strbuf_release(&note);
	strbuf_release(&ep);
	replay_release(&rp);
	return ret;
}

int report_data_file(const struct options *opt, const struct session_hooks *hooks)
{
	const char *path = opt->input ? opt->input : DEFAULT_DATA_FILE;
	bool from_stdin = !strcmp(path, "-");
	struct replay rp = { .opt = opt };
	struct datafile_callbacks cb = {
		.ctx = &rp, .access = on_access, .mmap = on_mmap, .comm = on_comm,
		.chain = on_chain, .alloc = on_alloc, .heap_block = on_heap_block,
		.watch_word = on_watch_word, .watch_session = on_watch_session,
	};
	struct run_facts hdr;
	struct strbuf err = STRBUF_INIT;
	struct datafile_reader *r = NULL;
	struct proc_creds owner;
	const struct proc_creds *reader = NULL;
	FILE *f;
	int ret = 2;

	session_check_output(opt);
	f = from_stdin ? stdin : fopen(path, "rbe");
	if (!f) {
		if (errno == ENOENT && !opt->input)
			error("no %s here: record one with 'contend record -- CMD', "
			      "or name it with -i FILE", path);
		else
			error("cannot open %s: %s", path, strerror(errno));
		return 2;
	}
	if (!from_stdin && perf_file_is(f)) {
		ret = report_perf_file(opt, hooks, f, path);
		fclose(f);
		return ret;
	}
	rp.sym = symbolizer_new();
	symbolizer_set_offline(rp.sym);
	r = datafile_reader_open(f, &err);
	if (!r)
		goto bad_file;
	reader = data_file_reader(f, r, &owner);
	symbolizer_set_map_owner(rp.sym, reader->uid);
	rp.lines = line_table_new(opt->line_size,
				  session_window_ns(opt, datafile_reader_freq(r)));
	if (datafile_reader_run(r, &cb, &err) < 0)
		goto bad_file;
	if (rp.bad_chain) {
		strbuf_addf(&err, "corrupt: call chain %u repeats an earlier one", rp.bad_chain);
		goto bad_file;
	}
	if (rp.bad_word) {
		strbuf_addf(&err, "corrupt: watched word 0x%llx repeats an earlier one",
			    (unsigned long long)rp.bad_word_addr);
		goto bad_file;
	}
	if (opt->callchain && !rp.chains && !opt->quiet)
		warning("%s was recorded without -g: no call chains to show", path);

	hdr = *datafile_reader_summary(r);
	hdr.chains = rp.chains;
	hdr.allocs = rp.allocs;
	hdr.watch_note = rp.watch_note;
	if (rp.n_blocks && !rp.allocs && opt->alloc_sites)
		hdr.heap = glibc_heap_recorded((pid_t)rp.heap_pid, rp.blocks, rp.n_blocks);
	explain_files(&rp);
	symbolizer_sampling_done(rp.sym);
	ret = session_output(opt, &hdr, rp.lines, rp.sym, &rp.names, hooks, rp.confirm, reader);
	glibc_heap_free(hdr.heap);
	goto done;

bad_file:
	error("%s: %s", path, strbuf_str(&err));
done:
	datafile_reader_free(r);
	if (!from_stdin)
		fclose(f);
	strbuf_release(&err);
	replay_release(&rp);
	return ret;
}

int cmd_report(int argc, char **argv)
{
	struct options opt;

	options_parse(&opt, argc, argv);
	if (opt.argv)
		die("report: reads a data file (-i FILE); to run '%s', use 'contend run' "
		    "or 'contend record'", opt.argv[0]);
	return report_data_file(&opt, NULL);
}
