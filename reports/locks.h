/* locks.h - lock objects in the data a line's threads touch.
 *
 * A mutex is one object to its users: threads contend on taking it, not
 * on __lock against __kind.  Its layout is the library's, never to be
 * re-laid-out by the program.  An access lies in a lock when its type
 * attribution (data_types.h) says so:
 *  - its member path enters a pthread type's internals ("g.lock.__data.
 *    __lock": __data, __size and __align are the members of the unions
 *    behind pthread_mutex_t and pthread_rwlock_t); libstdc++'s wrappers
 *    (std::mutex's _M_mutex) are the lock too, so "m._M_mutex.__data.
 *    __lock" is the lock "m";
 *  - the innermost struct holding it, the whole object (or its element),
 *    or a member of the innermost struct that its bytes touch is of a lock
 *    type (pthread_spinlock_t, atomic_flag, ...): a watched 8-byte word
 *    that holds a 4-byte lock and its neighbour touches the lock.
 * pthread_cond_t is not a lock: its contention is its waiters'.
 */
#ifndef CONTEND_LOCKS_H
#define CONTEND_LOCKS_H

#include <stdbool.h>
#include <stdint.h>

#include "symbolize/data_types.h"

struct lock_ref {
	char *name;                   /* "g.lock", "*mutex" */
	const char *type_name;        /* "pthread_mutex_t"; static; NULL if unknown */
	uint64_t start, size;         /* the lock's bytes; size 0 if unknown */
};

/* Is a type, as DWARF names it, a lock: "pthread_mutex_t", "std::mutex",
 * "struct __pthread_mutex_s" (what pthread_mutex_t holds)?  Returns the
 * lock's usual name ("pthread_mutex_t"), NULL if it is none. */
const char *lock_type(const char *type_name);
/* Do the waiters of a lock of this usual name (lock_type's) sleep in the
 * kernel (a futex), rather than spin? */
bool lock_type_sleeps(const char *usual);

/* The lock that the access of size bytes at addr touches; false if none.
 * out->name is allocated (lock_ref_release). */
bool lock_of_access(const struct data_attribution *a, uint64_t addr,
		    unsigned size, struct lock_ref *out);
void lock_ref_release(struct lock_ref *l);

#endif
