/* unwind_libdw.c - the callers of sampled code, with libdwfl's unwinder
 * (--call-graph=dwarf, the default).
 *
 * The symbolizer already keeps, per pid, the mapping table and the files
 * and load biases a libdwfl session needs; libdwfl's unwinder
 * (dwfl_attach_state + dwfl_getthread_frames) replays .eh_frame and
 * .debug_frame from those files with a memory callback we serve from the
 * sampled stack.  Linux perf does the same in tools/perf/util/unwind-libdw.c.
 *
 * perf builds a libdwfl session per sample, because a session takes one
 * attach_state for its life.  Here each pid has one unwinding session,
 * attached once: the callbacks read the sample being unwound through
 * struct libdw_unwinder, so that the session's modules and parsed CFI
 * serve every sample.  Modules are reported lazily, as perf does: the
 * module of a frame has to be in the session before libdwfl unwinds that
 * frame.  It is the file and bias the symbolizer has at that address; when
 * the two disagree (dlclose, then something else mapped there; exec) the
 * unwinding session is stale and is built anew.
 */
#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize/symbolizer.h"
#include "symbolize/unwind_method.h"
#include "common/util.h"

struct unwind_proc {
	pid_t pid;              /* first: unwind_proc_get() */
	Dwfl *dwfl;             /* NULL until needed */
	uint64_t last_used;     /* the unwinder's tick when it last unwound */
	bool attached;          /* dwfl_attach_state() done */
	bool stale;             /* a module moved: build a new session */
};

/* The sample being unwound, for the libdwfl callbacks. */
struct unwind_sample {
	struct unwind_proc *proc;
	const struct regs *regs;
	const uint8_t *stack;
	size_t stack_size;
	uint64_t *pcs;
	unsigned n, max;
	unsigned depth;         /* frames seen, the sampled one included */
};

struct libdw_unwinder {
	struct symbolizer *sym;
	const struct decode_arch *arch;
	struct unwind_proc *procs;
	size_t n_procs, alloc_procs;
	unsigned live;          /* procs with a session */
	uint64_t tick;
	struct unwind_sample cur;
};

/* A session holds its modules' ELF files and parsed CFI: some 13 MB for a
 * small C program and libc.  A target that forks 200 children would hold
 * 200 of them (2.6 GB measured); at most this many stay, the least
 * recently used ended first (a process sampled again gets a new one). */
#define UNWIND_MAX_SESSIONS 8

static const Dwfl_Callbacks offline_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

static void *libdw_new(struct symbolizer *sym, const struct decode_arch *arch)
{
	struct libdw_unwinder *u = xcalloc(1, sizeof(*u));

	u->sym = sym;
	u->arch = arch;
	return u;
}

static void proc_reset(struct libdw_unwinder *u, struct unwind_proc *p)
{
	if (p->dwfl) {
		dwfl_end(p->dwfl);
		u->live--;
	}
	p->dwfl = NULL;
	p->attached = false;
	p->stale = false;
}

static void libdw_free(void *state)
{
	struct libdw_unwinder *u = state;

	for (size_t i = 0; i < u->n_procs; i++)
		proc_reset(u, &u->procs[i]);
	free(u->procs);
	free(u);
}

static struct unwind_proc *proc_get(struct libdw_unwinder *u, pid_t pid)
{
	return unwind_proc_get(&u->procs, &u->n_procs, &u->alloc_procs, sizeof(*u->procs), pid);
}

/* A new session for p, once the least recently used one beyond
 * UNWIND_MAX_SESSIONS is ended; false if libdwfl cannot start one. */
static bool session_begin(struct libdw_unwinder *u, struct unwind_proc *p)
{
	if (u->live >= UNWIND_MAX_SESSIONS) {
		struct unwind_proc *oldest = NULL;

		for (size_t i = 0; i < u->n_procs; i++)
			if (u->procs[i].dwfl && &u->procs[i] != p &&
			    (!oldest || u->procs[i].last_used < oldest->last_used))
				oldest = &u->procs[i];
		if (oldest)
			proc_reset(u, oldest);
	}
	if (!(p->dwfl = dwfl_begin(&offline_callbacks)))
		return false;
	u->live++;
	return true;
}

/*
 * Make the unwinding session's module at addr the one the symbolizer has
 * there: same file, same range.  False when they disagree in a way only a
 * new session can fix; that marks the process stale.
 */
static bool module_ready(struct libdw_unwinder *u, struct unwind_proc *p, uint64_t addr)
{
	Dwfl_Module *want = symbolizer_module(u->sym, p->pid, addr, NULL);
	Dwfl_Module *have = dwfl_addrmodule(p->dwfl, addr);
	Dwarf_Addr want_low, want_high, have_low, have_high, bias;
	const char *want_name, *have_name;

	if (!want) {
		/* not in a file (JIT code): nothing to report, unless we
		 * still have a module that has gone from there */
		if (have)
			p->stale = true;
		return !have;
	}
	want_name = dwfl_module_info(want, NULL, &want_low, &want_high,
				     NULL, NULL, NULL, NULL);
	if (have) {
		have_name = dwfl_module_info(have, NULL, &have_low, &have_high,
					     NULL, NULL, NULL, NULL);
		if (have_low == want_low && have_high == want_high &&
		    want_name && have_name && !strcmp(want_name, have_name))
			return true;
		p->stale = true;
		return false;
	}
	if (!want_name || !dwfl_module_getelf(want, &bias))
		return true;    /* no ELF to unwind with: as if JIT code */
	/* the symbolizer reports the mapped file by its path, at this bias */
	dwfl_report_begin_add(p->dwfl);
	have = dwfl_report_elf(p->dwfl, want_name, want_name, -1, bias, true);
	dwfl_report_end(p->dwfl, NULL, NULL);
	if (!have || dwfl_addrmodule(p->dwfl, addr) != have) {
		p->stale = true;
		return false;
	}
	return true;
}

/* One thread per unwinding: the sample's, whatever its tid. */
static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_arg)
{
	if (*thread_arg)
		return 0;
	*thread_arg = arg;
	return dwfl_pid(dwfl);
}

/*
 * A word of the stack as sampled; outside the copy, only the contents of
 * mapped files: anything else in the live process (if it still runs) has
 * changed since the sample.
 */
static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct libdw_unwinder *u = arg;
	const struct unwind_sample *s = &u->cur;
	uint64_t word;

	(void)dwfl;
	if (!unwind_read_word(u->sym, s->proc->pid, s->regs->val[u->arch->perf_sp],
			      s->stack, s->stack_size, addr, &word))
		return false;
	*result = word;
	return true;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct libdw_unwinder *u = arg;
	const struct decode_arch *arch = u->arch;
	Dwarf_Word dwarf_regs[DECODE_MAX_REGS] = { 0 };

	bool pc_is_dwarf = false;

	for (unsigned i = 0; i < arch->n_dwarf_regs; i++) {
		dwarf_regs[i] = u->cur.regs->val[arch->perf_reg_of_dwarf[i]];
		pc_is_dwarf |= arch->perf_reg_of_dwarf[i] == arch->perf_ip;
	}
	if (!dwfl_thread_state_registers(thread, 0, arch->n_dwarf_regs, dwarf_regs))
		return false;
	/* AArch64's pc has no DWARF number (x86-64's rip is 16): set apart,
	 * as perf's unwind-libdw does for arm64 */
	if (!pc_is_dwarf)
		dwfl_thread_state_register_pc(thread, u->cur.regs->val[arch->perf_ip]);
	return true;
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = next_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

static int frame_cb(Dwfl_Frame *frame, void *arg)
{
	struct libdw_unwinder *u = arg;
	struct unwind_sample *s = &u->cur;
	Dwarf_Addr pc;
	bool activation;

	/* the sampled frame: its module is in already */
	if (s->depth++ == 0)
		return DWARF_CB_OK;
	if (!dwfl_frame_pc(frame, &pc, NULL))
		return DWARF_CB_ABORT;
	/* Asking whether the frame is an activation unwinds it, which takes
	 * the CFI of its module: report that first.  pc is a return address,
	 * which may lie just past its function. */
	if (!module_ready(u, s->proc, pc - 1) || !dwfl_frame_pc(frame, &pc, &activation))
		return DWARF_CB_ABORT;
	/* an interrupted frame (under a signal frame) stopped at pc itself */
	s->pcs[s->n++] = activation ? pc : pc - 1;
	return s->n < s->max ? DWARF_CB_OK : DWARF_CB_ABORT;
}

static unsigned libdw_callers(void *state, pid_t pid, const struct regs *regs,
			      const uint8_t *stack, size_t stack_size,
			      uint64_t *pcs, unsigned max)
{
	struct libdw_unwinder *u = state;
	struct unwind_proc *p = proc_get(u, pid);
	uint64_t ip = regs->val[u->arch->perf_ip];

	/* once more with a new session if the one we had went stale */
	p->last_used = ++u->tick;
	for (int attempt = 0; attempt < 2; attempt++) {
		if (p->stale)
			proc_reset(u, p);
		if (!p->dwfl && !session_begin(u, p))
			return 0;
		u->cur = (struct unwind_sample){
			.proc = p, .regs = regs, .stack = stack,
			.stack_size = stack_size, .pcs = pcs, .max = max,
		};
		if (!module_ready(u, p, ip))
			continue;
		/* the architecture comes from the first module reported: the
		 * first sample in a file's code attaches */
		if (!p->attached) {
			if (!dwfl_attach_state(p->dwfl, NULL, pid, &thread_callbacks, u))
				return 0;
			p->attached = true;
		}
		dwfl_getthread_frames(p->dwfl, pid, frame_cb, u);
		if (!p->stale)
			break;
	}
	return u->cur.n;
}

const struct unwind_method unwind_libdw = {
	.name = "dwarf",
	.library = "libdw",
	.new = libdw_new,
	.free = libdw_free,
	.callers = libdw_callers,
};
