/* trap_guard.c - part of libcontend-alloc.so: a `run` target survives the
 * hypervisor's spurious debug traps.
 *
 * On a virtual machine, about once in 10^7 watched accesses, the guest
 * gets a debug exception whose DR6 is empty (bench/watch-safety.sh); the
 * kernel takes it for an ICEBP instruction and sends SIGTRAP, si_code
 * TRAP_BRKPT, whose default action kills the process.  Confirmation arms
 * watchpoints on a `run` target, so contend would kill what it measures.
 * The guard takes SIGTRAP while the target has no handler of its own:
 * the two codes the kernel's debug handler sends (TRAP_BRKPT, TRAP_HWBKPT:
 * a data breakpoint is a trap, the access is done) are absorbed, told to
 * contend as a record of call ALLOC_TRAP, and the program goes on.  Any
 * other SIGTRAP (int3: SI_KERNEL; kill(2): SI_USER) is delivered again
 * with the default action, as without the guard.  A genuine ICEBP in the
 * program would be absorbed too: no compiler emits one.  A handler the
 * target installs replaces the guard (its choice); exec drops it, and the
 * preloaded library installs it again in the new program.
 */
#include "detector/trap_guard.h"

#include <signal.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "detector/alloc_record.h"
#include "detector/alloc_shim_pipe.h"

static void on_trap(int sig, siginfo_t *si, void *ucontext)
{
	struct alloc_record r = { .call = ALLOC_TRAP };

	(void)ucontext;
	if (si->si_code != TRAP_BRKPT && si->si_code != TRAP_HWBKPT) {
		/* not a debug exception: pending (blocked in here) until the
		 * handler returns, then the default action */
		signal(sig, SIG_DFL);
		raise(sig);
		return;
	}
	r.addr = (uint64_t)(uintptr_t)si->si_addr;
	r.pid = (uint32_t)getpid();
	r.tid = (uint32_t)syscall(SYS_gettid);
	shim_pipe_send(&r, sizeof(r));   /* keeps errno; a dead pipe sends nothing */
}

void trap_guard_install(void)
{
	struct sigaction old, sa = { .sa_sigaction = on_trap,
				     .sa_flags = SA_SIGINFO | SA_RESTART };

	if (shim_channel < 0)
		return;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGTRAP, NULL, &old) == 0 && !(old.sa_flags & SA_SIGINFO) &&
	    old.sa_handler == SIG_DFL)
		sigaction(SIGTRAP, &sa, NULL);
}
