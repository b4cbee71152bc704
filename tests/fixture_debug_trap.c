/* fixture_debug_trap - a SIGTRAP as the hypervisor's spurious debug trap
 * sends it, for tests/e2e_trap_guard.sh.  ICEBP (0xf1) makes the kernel's
 * debug handler see an empty DR6, exactly the fault bench/watch-safety.sh
 * caught: SIGTRAP, si_code TRAP_BRKPT.
 *   fixture_debug_trap icebp       the trap; prints "survived" after it
 *   fixture_debug_trap int3        a breakpoint instruction (SI_KERNEL)
 *   fixture_debug_trap own icebp   with a SIGTRAP handler of its own,
 *                                  which prints "own handler: SI_CODE"
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void own_handler(int sig, siginfo_t *si, void *uc)
{
	char msg[64];
	int n = snprintf(msg, sizeof(msg), "own handler: %d\n", si->si_code);

	(void)sig;
	(void)uc;
	if (write(1, msg, (size_t)n) < 0)
		_exit(3);
}

int main(int argc, char **argv)
{
	int i = 1;

	setvbuf(stdout, NULL, _IONBF, 0);
	if (i < argc && !strcmp(argv[i], "own")) {
		struct sigaction sa = { .sa_sigaction = own_handler, .sa_flags = SA_SIGINFO };

		sigaction(SIGTRAP, &sa, NULL);
		i++;
	}
#if defined(__x86_64__) || defined(__i386__)
	if (i < argc && !strcmp(argv[i], "int3"))
		__asm__ volatile("int3");
	else
		__asm__ volatile(".byte 0xf1");   /* icebp */
	printf("survived\n");
	return 0;
#else
	printf("not x86\n");
	return 77;
#endif
}
