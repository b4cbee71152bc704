/* unwind.c - the callers of sampled code, with libdwfl's unwinder.
 *
 * Why libdw and not libunwind: the symbolizer already keeps, per pid, the
 * mapping table and the files and load biases a libdwfl session needs;
 * libdwfl's unwinder (dwfl_attach_state + dwfl_getthread_frames) replays
 * .eh_frame/.debug_frame from those files with a memory callback we
 * serve from the sampled stack, and needs nothing from the live process.
 * libunwind's remote mode would need the same mapping and ELF plumbing
 * written a second time (its accessors find the unwind tables of each
 * address themselves).  Linux perf does the same in
 * tools/perf/util/unwind-libdw.c.
 *
 * perf builds a libdwfl session per sample, because a session takes one
 * attach_state for its life.  Here each pid has one unwinding session,
 * attached once: the callbacks read the sample being unwound through
 * struct unwinder, so that the session's modules and parsed CFI serve
 * every sample.  Modules are reported lazily, as perf does: the module of
 * a frame has to be in the session before libdwfl unwinds that frame.
 * It is the file and bias the symbolizer has at that address; when the
 * two disagree (dlclose, then something else mapped there; exec) the
 * unwinding session is stale and is built anew.
 */
#include "symbolize/unwind.h"

#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "symbolize/decode.h"
#include "symbolize/symbolizer.h"
#include "common/util.h"

struct unwind_proc {
	pid_t pid;
	Dwfl *dwfl;             /* NULL until needed */
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

struct unwinder {
	struct symbolizer *sym;
	const struct decode_arch *arch;   /* NULL: no unwinding here */
	struct unwind_proc *procs;
	size_t n_procs, alloc_procs;
	struct unwind_sample cur;
	uint64_t by_cfi, by_frame_pointers;
};

static const Dwfl_Callbacks offline_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

struct unwinder *unwinder_new(struct symbolizer *sym)
{
	struct unwinder *u = xcalloc(1, sizeof(*u));

	u->sym = sym;
	u->arch = decode_arch_native();
	return u;
}

static void proc_reset(struct unwind_proc *p)
{
	if (p->dwfl)
		dwfl_end(p->dwfl);
	p->dwfl = NULL;
	p->attached = false;
	p->stale = false;
}

void unwinder_free(struct unwinder *u)
{
	if (!u)
		return;
	for (size_t i = 0; i < u->n_procs; i++)
		proc_reset(&u->procs[i]);
	free(u->procs);
	free(u);
}

void unwinder_stats(const struct unwinder *u, uint64_t *cfi, uint64_t *frame_pointers)
{
	*cfi = u->by_cfi;
	*frame_pointers = u->by_frame_pointers;
}

/* Processes are few (the target and its children): a list will do. */
static struct unwind_proc *proc_get(struct unwinder *u, pid_t pid)
{
	struct unwind_proc *p;

	for (size_t i = 0; i < u->n_procs; i++)
		if (u->procs[i].pid == pid)
			return &u->procs[i];
	ALLOC_GROW(u->procs, u->n_procs + 1, u->alloc_procs);
	p = &u->procs[u->n_procs++];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	return p;
}

static uint64_t reg(const struct regs *regs, int perf_reg)
{
	return regs->val[perf_reg];
}

/* ------------------------------------------------------------------ */
/* frame pointers */

unsigned unwind_frame_pointers(const struct regs *regs, const uint8_t *stack,
			       size_t stack_size, uint64_t *pcs, unsigned max)
{
	const struct decode_arch *arch = decode_arch_native();
	uint64_t sp, fp, need;
	unsigned n = 0;

	if (!arch)
		return 0;
	sp = reg(regs, arch->perf_sp);
	fp = reg(regs, arch->perf_fp);
	need = 1ULL << arch->perf_sp | 1ULL << arch->perf_fp;
	if ((regs->mask & need) != need || stack_size < 16)
		return 0;
	while (n < max) {
		uint64_t frame[2];      /* the caller's rbp, the return address */

		if (fp < sp || fp % 8 || fp - sp > stack_size - sizeof(frame))
			break;
		memcpy(frame, stack + (fp - sp), sizeof(frame));
		if (!frame[1])
			break;
		pcs[n++] = frame[1] - 1;
		/* the stack grows down: a caller's frame lies above */
		if (frame[0] <= fp)
			break;
		fp = frame[0];
	}
	return n;
}

/*
 * In code built without frame pointers rbp holds anything, and a walk of
 * the frame-pointer chain reads whatever it points at: keep the chain up
 * to the first address that is not in executable memory.
 */
static unsigned keep_code(struct unwinder *u, pid_t pid, const uint64_t *pcs, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		const struct mapping *m = symbolizer_find_mapping(u->sym, pid, pcs[i]);

		if (!m || !(m->prot & PROT_EXEC))
			return i;
	}
	return n;
}

/* ------------------------------------------------------------------ */
/* libdwfl */

/*
 * Make the unwinding session's module at addr the one the symbolizer has
 * there: same file, same range.  False when they disagree in a way only a
 * new session can fix; that marks the process stale.
 */
static bool module_ready(struct unwinder *u, struct unwind_proc *p, uint64_t addr)
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
	struct unwinder *u = arg;
	const struct unwind_sample *s = &u->cur;
	uint64_t sp = reg(s->regs, u->arch->perf_sp);
	const struct mapping *m;

	if (addr >= sp && s->stack_size >= sizeof(*result) &&
	    addr - sp <= s->stack_size - sizeof(*result)) {
		memcpy(result, s->stack + (addr - sp), sizeof(*result));
		return true;
	}
	m = symbolizer_find_mapping(u->sym, s->proc->pid, addr);
	return m && m->kind == MAPPING_FILE &&
	       symbolizer_read(u->sym, s->proc->pid, addr, (uint8_t *)result,
			       sizeof(*result)) == sizeof(*result);
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct unwinder *u = arg;
	const struct decode_arch *arch = u->arch;
	Dwarf_Word dwarf_regs[DECODE_MAX_REGS] = { 0 };

	bool pc_is_dwarf = false;

	for (unsigned i = 0; i < arch->n_dwarf_regs; i++) {
		dwarf_regs[i] = reg(u->cur.regs, arch->perf_reg_of_dwarf[i]);
		pc_is_dwarf |= arch->perf_reg_of_dwarf[i] == arch->perf_ip;
	}
	if (!dwfl_thread_state_registers(thread, 0, arch->n_dwarf_regs, dwarf_regs))
		return false;
	/* AArch64's pc has no DWARF number (x86-64's rip is 16): set apart,
	 * as perf's unwind-libdw does for arm64 */
	if (!pc_is_dwarf)
		dwfl_thread_state_register_pc(thread, reg(u->cur.regs, arch->perf_ip));
	return true;
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = next_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

static int frame_cb(Dwfl_Frame *frame, void *arg)
{
	struct unwinder *u = arg;
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

static unsigned unwind_cfi(struct unwinder *u, pid_t pid, const struct regs *regs,
			   const uint8_t *stack, size_t stack_size,
			   uint64_t *pcs, unsigned max)
{
	struct unwind_proc *p = proc_get(u, pid);
	uint64_t ip = reg(regs, u->arch->perf_ip);

	/* once more with a new session if the one we had went stale */
	for (int attempt = 0; attempt < 2; attempt++) {
		if (p->stale)
			proc_reset(p);
		if (!p->dwfl && !(p->dwfl = dwfl_begin(&offline_callbacks)))
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

unsigned unwind_callers(struct unwinder *u, pid_t pid, const struct regs *regs,
			const uint8_t *stack, size_t stack_size,
			uint64_t *pcs, unsigned max)
{
	uint64_t need;
	unsigned n;

	if (!u->arch)
		return 0;
	need = 1ULL << u->arch->perf_ip | 1ULL << u->arch->perf_sp;
	if (!max || !stack || !stack_size || (regs->mask & need) != need)
		return 0;
	/* libdwfl walks frame pointers itself through code it has no CFI for */
	n = keep_code(u, pid, pcs, unwind_cfi(u, pid, regs, stack, stack_size, pcs, max));
	if (n) {
		u->by_cfi++;
		return n;
	}
	n = unwind_frame_pointers(regs, stack, stack_size, pcs, max);
	n = keep_code(u, pid, pcs, n);
	if (n)
		u->by_frame_pointers++;
	return n;
}
