/* hotspot_internal.h - what hotspot.c (the tables) and hotspot_objects.c
 * (names, classes and objects read through them) share.
 *
 * struct hotspot is the open handle: the copied tables, their indexes, and
 * the compressed-pointer schemes read at open.  The read_* helpers copy
 * from the target's memory and fail (false, or -1) on any short read.
 */
#ifndef CONTEND_HOTSPOT_INTERNAL_H
#define CONTEND_HOTSPOT_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/hashmap.h"
#include "symbolize/hotspot.h"

#define MAX_TABLE_ENTRIES 65536   /* JDK 17 has ~800 fields, ~2000 constants */
#define MAX_ENTRY_STRIDE 1024
#define MAX_TABLE_STRING 512      /* longest C++ name in the tables */
#define MAX_CLASS_NAME 1024       /* longer Symbols are not taken for names */
#define MAX_FLAGS 10000

struct hotspot_type {
	const char *name, *super;
	uint64_t size;
	bool is_oop, is_integer, is_unsigned;
};

struct hotspot_const {
	const char *name;
	uint64_t value;
};

struct hotspot {
	pid_t pid;
	pid_t task;                     /* whose memory is read: process_memory_task() */
	struct strset strings;
	struct hashmap string_at;       /* target address -> interned string */
	struct hotspot_field *fields;
	size_t nfields;
	struct hotspot_type *types;
	size_t ntypes;
	struct hotspot_const *ints, *longs;
	size_t nints, nlongs;
	struct hashmap field_index;     /* key_size 0: hash of type + field */
	struct hashmap type_index;      /* key_size 0: hash of name */
	struct hashmap int_index, long_index;
	/* fixed once the JVM runs, so read at open: how oops and class
	 * pointers in objects are compressed (known false: could not tell) */
	struct narrow_ptr {
		bool known, compressed;
		uint64_t base, shift;
	} narrow_oop, narrow_klass;
	/* UseCompactObjectHeaders: the narrow class pointer is in the mark
	 * word, above markWord::klass_shift (0: on, but the shift unknown) */
	bool compact_headers;
	uint64_t mark_klass_shift;
	uint64_t object_klass;          /* java/lang/Object's, 0 if unknown */
};

bool hs_read_target(pid_t pid, uint64_t addr, void *buf, size_t len);
bool hs_read_u64(pid_t pid, uint64_t addr, uint64_t *val);
bool hs_read_uint(pid_t pid, uint64_t addr, size_t size, uint64_t *val);
ssize_t hs_read_cstr(pid_t pid, uint64_t addr, char *buf, size_t cap);
/* A compressed-pointer scheme: the flag, and if on, the static base and
 * shift of type (CompressedOops, CompressedKlassPointers). */
void hotspot_read_narrow(struct hotspot *h, const char *flag, const char *type,
			 struct narrow_ptr *np);

#endif
