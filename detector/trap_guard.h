/* trap_guard.h - the allocation shim's guard against the hypervisor's
 * spurious debug traps (trap_guard.c): part of libcontend-alloc.so.
 */
#ifndef CONTEND_TRAP_GUARD_H
#define CONTEND_TRAP_GUARD_H

/* Take SIGTRAP, unless the target already handles or ignores it, when the
 * shim has contend's pipe (shim_pipe_open first): a debug exception's
 * SIGTRAP is absorbed and sent as an ALLOC_TRAP record, any other gets
 * the default action. */
void trap_guard_install(void);

#endif
