/* hotspot.c - HotSpot's vmStructs tables copied out of a live JVM.
 *
 * The entry layouts are not hard-coded: libjvm.so exports, next to each
 * table, the offset of every member of its entries and the entry stride
 * (gHotSpotVMStructEntryTypeNameOffset, ..., gHotSpotVMStructEntryArrayStride),
 * filled in when the JVM starts.  Each table ends with an entry whose name
 * is NULL.
 */
#include "symbolize/hotspot_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "common/hashmap.h"
#include "common/procfs.h"

/* ---- the target's memory ------------------------------------------------ */

/* Reads len bytes at addr; errno set on failure.  A short read (the range
 * crosses into unmapped memory) fails with EFAULT. */
bool hs_read_target(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { buf, len };
	struct iovec remote = { (void *)(uintptr_t)addr, len };
	ssize_t n;

	if (!len)
		return true;
	n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
	if (n == (ssize_t)len)
		return true;
	if (n >= 0)
		errno = EFAULT;
	return false;
}

bool hotspot_read(const struct hotspot *h, uint64_t addr, void *buf, size_t len)
{
	return hs_read_target(h->task, addr, buf, len);
}

bool hs_read_u64(pid_t pid, uint64_t addr, uint64_t *val)
{
	return hs_read_target(pid, addr, val, sizeof(*val));
}

/* An unsigned integer of 1, 2, 4 or 8 bytes (x86-64: little-endian). */
bool hs_read_uint(pid_t pid, uint64_t addr, size_t size, uint64_t *val)
{
	uint8_t b[8];

	if (size != 1 && size != 2 && size != 4 && size != 8) {
		errno = EINVAL;
		return false;
	}
	if (!hs_read_target(pid, addr, b, size))
		return false;
	*val = 0;
	for (size_t i = 0; i < size; i++)
		*val |= (uint64_t)b[i] << (8 * i);
	return true;
}

/* One line naming why reading pid failed, from errno. */
static void explain_read_error(struct strbuf *err, pid_t pid, const char *what)
{
	int e = errno;

	if (e == EPERM || e == EACCES)
		strbuf_addf(err, "cannot read process %d (%s): permission denied; "
			    "run as its user with kernel.yama.ptrace_scope=0, or with CAP_SYS_PTRACE",
			    (int)pid, what);
	else if (e == ESRCH || !process_alive(pid))
		strbuf_addf(err, "process %d is gone", (int)pid);
	else
		strbuf_addf(err, "cannot read process %d (%s): %s",
			    (int)pid, what, strerror(e));
}

/* The NUL-terminated string at addr into buf (cap bytes with the NUL),
 * read page by page since it may end just before an unmapped page.  Its
 * length, or -1 if unreadable or longer. */
ssize_t hs_read_cstr(pid_t pid, uint64_t addr, char *buf, size_t cap)
{
	size_t got = 0;

	while (got < cap) {
		size_t chunk = 4096 - ((addr + got) & 4095);
		char *nul;

		if (chunk > cap - got)
			chunk = cap - got;
		if (!hs_read_target(pid, addr + got, buf + got, chunk))
			return -1;
		nul = memchr(buf + got, '\0', chunk);
		got += chunk;
		if (nul)
			return nul - buf;
	}
	return -1;
}

/* A printable ASCII string of the tables, interned (one copy per target
 * address); NULL if unreadable, too long or not printable. */
static const char *read_table_string(struct hotspot *h, uint64_t addr)
{
	char buf[MAX_TABLE_STRING + 1];
	const char *s;
	ssize_t n;

	s = hashmap_get(&h->string_at, &addr);
	if (s)
		return s;
	n = hs_read_cstr(h->task, addr, buf, sizeof(buf));
	if (n < 0)
		return NULL;
	for (ssize_t i = 0; i < n; i++)
		if (buf[i] < 0x20 || buf[i] > 0x7e)
			return NULL;
	s = strset_intern(&h->strings, buf);
	hashmap_put(&h->string_at, &addr, (void *)s);
	return s;
}

/* ---- libjvm.so in the target ------------------------------------------ */

struct libjvm {
	char *path;               /* as the maps name it */
	uint64_t start, end;      /* the mapping of file offset 0 */
};

bool hotspot_is_libjvm_path(const char *path)
{
	static const char deleted[] = " (deleted)";
	const char *base = strrchr(path, '/');
	size_t n;

	if (!base)
		return false;
	base++;
	n = strlen(base);
	if (n > sizeof(deleted) - 1 && !strcmp(base + n - (sizeof(deleted) - 1), deleted))
		n -= sizeof(deleted) - 1;
	return n == 9 && !strncmp(base, "libjvm.so", 9);
}

/* The libjvm.so mapping at file offset 0 in /proc/PID/maps.  0 found,
 * -1 not a JVM, -2 unreadable (errno set). */
static int find_libjvm_map(pid_t pid, struct libjvm *lj)
{
	char path[64], line[4096];
	int found = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -2;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long start, end, off;
		char *file = strchr(line, '/'), *nl;

		if (!file || sscanf(line, "%llx-%llx %*s %llx", &start, &end, &off) != 3)
			continue;
		nl = strchr(file, '\n');
		if (nl)
			*nl = '\0';
		if (!hotspot_is_libjvm_path(file) || off != 0)
			continue;
		if (found == 0 && start >= lj->start)
			continue;
		free(lj->path);
		lj->path = xstrdup(file);
		lj->start = start;
		lj->end = end;
		found = 0;
	}
	if (found == -1 && ferror(f))
		found = -2;
	fclose(f);
	return found;
}

/* Opens the libjvm.so the target runs: through map_files (the very file,
 * even if replaced or in another mount namespace), else through its root. */
static int open_libjvm(pid_t pid, const struct libjvm *lj)
{
	char *p;
	int fd;

	p = xasprintf("/proc/%d/map_files/%llx-%llx", (int)pid,
		      (unsigned long long)lj->start, (unsigned long long)lj->end);
	fd = open(p, O_RDONLY | O_CLOEXEC);
	free(p);
	if (fd >= 0)
		return fd;
	p = xasprintf("/proc/%d/root%s", (int)pid, lj->path);
	fd = open(p, O_RDONLY | O_CLOEXEC);
	free(p);
	if (fd >= 0)
		return fd;
	return open(lj->path, O_RDONLY | O_CLOEXEC);
}

bool hotspot_libjvm_writable_by(pid_t pid, uid_t uid)
{
	struct libjvm lj = { 0 };
	struct stat st;
	bool writable = true;
	int fd;

	if (find_libjvm_map(pid, &lj) != 0) {
		free(lj.path);
		return true;
	}
	fd = open_libjvm(pid, &lj);
	if (fd >= 0 && fstat(fd, &st) == 0)
		writable = st.st_uid == uid || (st.st_mode & (S_IWGRP | S_IWOTH));
	if (fd >= 0)
		close(fd);
	free(lj.path);
	return writable;
}

/* The symbols read: each table's address variable and its layout. */
enum jvm_sym {
	S_STRUCTS, S_SE_TYPE, S_SE_FIELD, S_SE_TYPESTR, S_SE_STATIC, S_SE_OFFSET,
	S_SE_ADDRESS, S_SE_STRIDE,
	S_TYPES, S_TE_TYPE, S_TE_SUPER, S_TE_OOP, S_TE_INT, S_TE_UNSIGNED,
	S_TE_SIZE, S_TE_STRIDE,
	S_INTS, S_IE_NAME, S_IE_VALUE, S_IE_STRIDE,
	S_LONGS, S_LE_NAME, S_LE_VALUE, S_LE_STRIDE,
	S_COUNT
};

static const char *const jvm_sym_names[S_COUNT] = {
	[S_STRUCTS] = "gHotSpotVMStructs",
	[S_SE_TYPE] = "gHotSpotVMStructEntryTypeNameOffset",
	[S_SE_FIELD] = "gHotSpotVMStructEntryFieldNameOffset",
	[S_SE_TYPESTR] = "gHotSpotVMStructEntryTypeStringOffset",
	[S_SE_STATIC] = "gHotSpotVMStructEntryIsStaticOffset",
	[S_SE_OFFSET] = "gHotSpotVMStructEntryOffsetOffset",
	[S_SE_ADDRESS] = "gHotSpotVMStructEntryAddressOffset",
	[S_SE_STRIDE] = "gHotSpotVMStructEntryArrayStride",
	[S_TYPES] = "gHotSpotVMTypes",
	[S_TE_TYPE] = "gHotSpotVMTypeEntryTypeNameOffset",
	[S_TE_SUPER] = "gHotSpotVMTypeEntrySuperclassNameOffset",
	[S_TE_OOP] = "gHotSpotVMTypeEntryIsOopTypeOffset",
	[S_TE_INT] = "gHotSpotVMTypeEntryIsIntegerTypeOffset",
	[S_TE_UNSIGNED] = "gHotSpotVMTypeEntryIsUnsignedOffset",
	[S_TE_SIZE] = "gHotSpotVMTypeEntrySizeOffset",
	[S_TE_STRIDE] = "gHotSpotVMTypeEntryArrayStride",
	[S_INTS] = "gHotSpotVMIntConstants",
	[S_IE_NAME] = "gHotSpotVMIntConstantEntryNameOffset",
	[S_IE_VALUE] = "gHotSpotVMIntConstantEntryValueOffset",
	[S_IE_STRIDE] = "gHotSpotVMIntConstantEntryArrayStride",
	[S_LONGS] = "gHotSpotVMLongConstants",
	[S_LE_NAME] = "gHotSpotVMLongConstantEntryNameOffset",
	[S_LE_VALUE] = "gHotSpotVMLongConstantEntryValueOffset",
	[S_LE_STRIDE] = "gHotSpotVMLongConstantEntryArrayStride",
};

struct jvm_syms {
	uint64_t addr[S_COUNT];   /* run-time addresses; 0: absent */
	uint64_t size[S_COUNT];   /* st_size */
};

/* Looks the table symbols up in fd's .dynsym; relocates them by the load
 * bias of the mapping at start.  Returns the number found. */
static int read_jvm_syms(int fd, uint64_t start, struct jvm_syms *js)
{
	Elf *e;
	Elf_Scn *scn = NULL;
	GElf_Phdr ph;
	uint64_t first_vaddr = UINT64_MAX;
	size_t nph;
	int found = 0;

	memset(js, 0, sizeof(*js));
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!e)
		return -1;
	if (elf_getphdrnum(e, &nph) == 0)
		for (size_t i = 0; i < nph; i++)
			if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD &&
			    ph.p_offset == 0 && ph.p_vaddr < first_vaddr)
				first_vaddr = ph.p_vaddr;
	if (first_vaddr == UINT64_MAX)
		first_vaddr = 0;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM || !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *name;

			if (!gelf_getsym(d, (int)i, &sym) || sym.st_shndx == SHN_UNDEF ||
			    !(name = elf_strptr(e, sh.sh_link, sym.st_name)) ||
			    strncmp(name, "gHotSpotVM", 10))
				continue;
			for (int s = 0; s < S_COUNT; s++) {
				if (strcmp(name, jvm_sym_names[s]) || js->addr[s])
					continue;
				js->addr[s] = start - (first_vaddr & ~4095ULL) + sym.st_value;
				js->size[s] = sym.st_size;
				found++;
			}
		}
	}
	elf_end(e);
	return found;
}

/* The value of an exported integer variable (the layout symbols are
 * uint64_t in current JDKs, int in old ones: st_size says which). */
static bool read_sym_value(pid_t pid, const struct jvm_syms *js, int s, uint64_t *val)
{
	size_t size = js->size[s] ? js->size[s] : 8;

	return hs_read_uint(pid, js->addr[s], size, val);
}

/* ---- the tables ---------------------------------------------------------- */

/* Reads one table: its entries (stride bytes each) into *entries, up to the
 * first whose NUL-terminating member at key_off is 0.  Layout offsets are
 * checked against the stride (member_end: the last member's end).
 * Returns the count and sets *stride_out, or -1 with err set. */
#define TABLE_BATCH 64
static long read_table(struct hotspot *h, const struct jvm_syms *js, int table_sym,
		       int stride_sym, uint64_t key_off, uint64_t member_end,
		       uint8_t **entries, uint64_t *stride_out, struct strbuf *err)
{
	const char *what = jvm_sym_names[table_sym];
	uint64_t base, stride;
	size_t alloc = 0, n = 0;
	uint8_t *buf = NULL;

	if (!hs_read_u64(h->task, js->addr[table_sym], &base) ||
	    !read_sym_value(h->task, js, stride_sym, &stride)) {
		explain_read_error(err, h->pid, what);
		return -1;
	}
	if (!base) {
		strbuf_addf(err, "process %d: HotSpot's %s is not set up (JVM still starting?)",
			    (int)h->pid, what);
		return -1;
	}
	if (stride < 8 || stride > MAX_ENTRY_STRIDE || member_end > stride) {
		strbuf_addf(err, "process %d: table %s malformed (entry stride %llu, members to %llu)",
			    (int)h->pid, what, (unsigned long long)stride,
			    (unsigned long long)member_end);
		return -1;
	}
	for (;;) {
		size_t batch = TABLE_BATCH, i;

		if (n >= MAX_TABLE_ENTRIES) {
			strbuf_addf(err, "process %d: table %s malformed (no end in %d entries)",
				    (int)h->pid, what, MAX_TABLE_ENTRIES);
			free(buf);
			return -1;
		}
		ALLOC_GROW(buf, (n + batch) * stride, alloc);
		/* a batch may run past the table's mapping: then one by one */
		if (!hs_read_target(h->task, base + n * stride, buf + n * stride, batch * stride)) {
			batch = 1;
			if (!hs_read_target(h->task, base + n * stride, buf + n * stride, stride)) {
				explain_read_error(err, h->pid, what);
				free(buf);
				return -1;
			}
		}
		for (i = 0; i < batch; i++) {
			uint64_t key;

			memcpy(&key, buf + (n + i) * stride + key_off, sizeof(key));
			if (!key)
				break;
		}
		n += i;
		if (i < batch)
			break;
	}
	*stride_out = stride;
	*entries = buf;
	return (long)n;
}

static uint64_t entry_u64(const uint8_t *e, uint64_t off)
{
	uint64_t v;

	memcpy(&v, e + off, sizeof(v));
	return v;
}

static int32_t entry_i32(const uint8_t *e, uint64_t off)
{
	int32_t v;

	memcpy(&v, e + off, sizeof(v));
	return v;
}

/* Each table's member offsets, read from the target. */
struct table_layout {
	uint64_t off[S_COUNT];
};

static bool read_layout(pid_t pid, const struct jvm_syms *js, struct table_layout *tl,
			struct strbuf *err)
{
	for (int s = 0; s < S_COUNT; s++) {
		if (s == S_STRUCTS || s == S_TYPES || s == S_INTS || s == S_LONGS)
			continue;
		if (!read_sym_value(pid, js, s, &tl->off[s])) {
			explain_read_error(err, pid, jvm_sym_names[s]);
			return false;
		}
		if (tl->off[s] > MAX_ENTRY_STRIDE) {
			strbuf_addf(err, "process %d: %s malformed (%llu)", (int)pid,
				    jvm_sym_names[s], (unsigned long long)tl->off[s]);
			return false;
		}
	}
	return true;
}

#define END8(s) (tl->off[s] + 8)
#define END4(s) (tl->off[s] + 4)

static uint64_t max3(uint64_t a, uint64_t b, uint64_t c)
{
	return a > b ? (a > c ? a : c) : (b > c ? b : c);
}

/* A string member: NULL stays NULL, an unreadable or unprintable one
 * fails. */
static bool table_string(struct hotspot *h, uint64_t addr, const char **out,
			 const char *table, struct strbuf *err)
{
	*out = NULL;
	if (!addr)
		return true;
	*out = read_table_string(h, addr);
	if (*out)
		return true;
	strbuf_addf(err, "process %d: table %s malformed (a name at 0x%llx is unreadable "
		    "or not printable)", (int)h->pid, table, (unsigned long long)addr);
	return false;
}

static bool read_structs(struct hotspot *h, const struct jvm_syms *js,
			 const struct table_layout *tl, struct strbuf *err)
{
	uint64_t end = max3(max3(END8(S_SE_TYPE), END8(S_SE_FIELD), END8(S_SE_TYPESTR)),
			    max3(END4(S_SE_STATIC), END8(S_SE_OFFSET), END8(S_SE_ADDRESS)), 0);
	uint64_t stride;
	uint8_t *ents;
	long n = read_table(h, js, S_STRUCTS, S_SE_STRIDE, tl->off[S_SE_FIELD], end,
			    &ents, &stride, err);

	if (n < 0)
		return false;
	h->fields = xcalloc((size_t)n + 1, sizeof(*h->fields));
	for (long i = 0; i < n; i++) {
		const uint8_t *e = ents + i * stride;
		struct hotspot_field *f = &h->fields[h->nfields];

		if (!table_string(h, entry_u64(e, tl->off[S_SE_TYPE]), &f->type, "gHotSpotVMStructs", err) ||
		    !table_string(h, entry_u64(e, tl->off[S_SE_FIELD]), &f->name, "gHotSpotVMStructs", err) ||
		    !table_string(h, entry_u64(e, tl->off[S_SE_TYPESTR]), &f->type_string,
				  "gHotSpotVMStructs", err)) {
			free(ents);
			return false;
		}
		if (!f->type || !f->name)
			continue;
		f->is_static = entry_i32(e, tl->off[S_SE_STATIC]) != 0;
		if (f->is_static)
			f->address = entry_u64(e, tl->off[S_SE_ADDRESS]);
		else
			f->offset = entry_u64(e, tl->off[S_SE_OFFSET]);
		h->nfields++;
	}
	free(ents);
	return true;
}

static bool read_types(struct hotspot *h, const struct jvm_syms *js,
		       const struct table_layout *tl, struct strbuf *err)
{
	uint64_t end = max3(max3(END8(S_TE_TYPE), END8(S_TE_SUPER), END4(S_TE_OOP)),
			    max3(END4(S_TE_INT), END4(S_TE_UNSIGNED), END8(S_TE_SIZE)), 0);
	uint64_t stride;
	uint8_t *ents;
	long n = read_table(h, js, S_TYPES, S_TE_STRIDE, tl->off[S_TE_TYPE], end,
			    &ents, &stride, err);

	if (n < 0)
		return false;
	h->types = xcalloc((size_t)n + 1, sizeof(*h->types));
	for (long i = 0; i < n; i++) {
		const uint8_t *e = ents + i * stride;
		struct hotspot_type *t = &h->types[h->ntypes];

		if (!table_string(h, entry_u64(e, tl->off[S_TE_TYPE]), &t->name, "gHotSpotVMTypes", err) ||
		    !table_string(h, entry_u64(e, tl->off[S_TE_SUPER]), &t->super, "gHotSpotVMTypes", err)) {
			free(ents);
			return false;
		}
		t->is_oop = entry_i32(e, tl->off[S_TE_OOP]) != 0;
		t->is_integer = entry_i32(e, tl->off[S_TE_INT]) != 0;
		t->is_unsigned = entry_i32(e, tl->off[S_TE_UNSIGNED]) != 0;
		t->size = entry_u64(e, tl->off[S_TE_SIZE]);
		h->ntypes++;
	}
	free(ents);
	return true;
}

static bool read_constants(struct hotspot *h, const struct jvm_syms *js,
			   const struct table_layout *tl, bool is_long,
			   struct strbuf *err)
{
	int table = is_long ? S_LONGS : S_INTS;
	int name_sym = is_long ? S_LE_NAME : S_IE_NAME;
	int value_sym = is_long ? S_LE_VALUE : S_IE_VALUE;
	int stride_sym = is_long ? S_LE_STRIDE : S_IE_STRIDE;
	uint64_t end = max3(END8(name_sym), is_long ? END8(value_sym) : END4(value_sym), 0);
	struct hotspot_const *c;
	uint64_t stride;
	uint8_t *ents;
	long n = read_table(h, js, table, stride_sym, tl->off[name_sym], end, &ents,
			    &stride, err);
	size_t count = 0;

	if (n < 0)
		return false;
	c = xcalloc((size_t)n + 1, sizeof(*c));
	for (long i = 0; i < n; i++) {
		const uint8_t *e = ents + i * stride;

		if (!table_string(h, entry_u64(e, tl->off[name_sym]), &c[count].name,
				  jvm_sym_names[table], err)) {
			free(ents);
			free(c);
			return false;
		}
		if (is_long)
			c[count].value = entry_u64(e, tl->off[value_sym]);
		else
			c[count].value = (uint64_t)(int64_t)entry_i32(e, tl->off[value_sym]);
		count++;
	}
	free(ents);
	if (is_long) {
		h->longs = c;
		h->nlongs = count;
	} else {
		h->ints = c;
		h->nints = count;
	}
	return true;
}

/* ---- indexes ------------------------------------------------------------ */

struct field_key {
	const char *type, *name;
};

static uint64_t field_hash(const char *type, const char *name)
{
	return hash_str(type) * 31 + hash_str(name);
}

static bool field_match(const void *val, const void *key)
{
	const struct hotspot_field *f = val;
	const struct field_key *k = key;

	return !strcmp(f->type, k->type) && !strcmp(f->name, k->name);
}

static bool type_match(const void *val, const void *key)
{
	return !strcmp(((const struct hotspot_type *)val)->name, key);
}

static bool const_match(const void *val, const void *key)
{
	return !strcmp(((const struct hotspot_const *)val)->name, key);
}

static const struct hotspot_type *find_type(const struct hotspot *h, const char *name)
{
	return hashmap_lookup(&h->type_index, hash_str(name), type_match, name);
}

/* A field's size: a pointer's, or its type's if the type table has it. */
static uint64_t type_string_size(const struct hotspot *h, const char *ts)
{
	const struct hotspot_type *t;
	size_t n;

	if (!ts || !(n = strlen(ts)))
		return 0;
	if (ts[n - 1] == '*')
		return sizeof(uint64_t);   /* the target is x86-64 as we are */
	t = find_type(h, ts);
	return t ? t->size : 0;
}

static void build_indexes(struct hotspot *h)
{
	for (size_t i = 0; i < h->ntypes; i++)
		if (h->types[i].name && !find_type(h, h->types[i].name))
			hashmap_add(&h->type_index, hash_str(h->types[i].name), &h->types[i]);
	for (size_t i = 0; i < h->nfields; i++) {
		struct hotspot_field *f = &h->fields[i];
		struct field_key k = { f->type, f->name };
		uint64_t hash = field_hash(f->type, f->name);

		f->size = type_string_size(h, f->type_string);
		if (!hashmap_lookup(&h->field_index, hash, field_match, &k))
			hashmap_add(&h->field_index, hash, f);
	}
	for (size_t i = 0; i < h->nints; i++)
		hashmap_add(&h->int_index, hash_str(h->ints[i].name), &h->ints[i]);
	for (size_t i = 0; i < h->nlongs; i++)
		hashmap_add(&h->long_index, hash_str(h->longs[i].name), &h->longs[i]);
}

/* ---- open / close ------------------------------------------------------- */

static bool load(struct hotspot *h, struct strbuf *err)
{
	struct libjvm lj = { NULL, 0, 0 };
	struct jvm_syms js;
	struct table_layout tl;
	int r, fd, found;

	r = find_libjvm_map(h->task, &lj);
	if (r == -2) {
		if (errno == ENOENT || errno == ESRCH)
			strbuf_addf(err, "process %d is gone", (int)h->pid);
		else
			explain_read_error(err, h->pid, "maps");
		return false;
	}
	if (r == -1) {
		strbuf_addf(err, "process %d is not a HotSpot JVM (no libjvm.so in its maps)",
			    (int)h->pid);
		return false;
	}
	fd = open_libjvm(h->task, &lj);
	if (fd < 0) {
		strbuf_addf(err, "process %d: cannot open its libjvm.so %s: %s",
			    (int)h->pid, lj.path, strerror(errno));
		free(lj.path);
		return false;
	}
	found = read_jvm_syms(fd, lj.start, &js);
	close(fd);
	if (found < S_COUNT) {
		int missing = 0;

		while (missing < S_COUNT && found >= 0 && js.addr[missing])
			missing++;
		strbuf_addf(err, "process %d: %s has no HotSpot vmStructs tables (%s absent)",
			    (int)h->pid, lj.path,
			    found < 0 ? "ELF unreadable" : jvm_sym_names[missing]);
		free(lj.path);
		return false;
	}
	free(lj.path);
	return read_layout(h->task, &js, &tl, err) &&
		read_structs(h, &js, &tl, err) &&
		read_types(h, &js, &tl, err) &&
		read_constants(h, &js, &tl, false, err) &&
		read_constants(h, &js, &tl, true, err);
}


struct hotspot *hotspot_open(pid_t pid, struct strbuf *err)
{
	struct hotspot *h = xcalloc(1, sizeof(*h));

	h->pid = pid;
	/* a process whose main thread has ended is read through another */
	h->task = process_memory_task(pid);
	if (!h->task)
		h->task = pid;     /* gone: the reads fail, and say so */
	h->strings = (struct strset)STRSET_INIT;
	hashmap_init(&h->string_at, sizeof(uint64_t));
	hashmap_init(&h->field_index, 0);
	hashmap_init(&h->type_index, 0);
	hashmap_init(&h->int_index, 0);
	hashmap_init(&h->long_index, 0);
	if (!load(h, err)) {
		hotspot_close(h);
		return NULL;
	}
	build_indexes(h);
	hotspot_read_narrow(h, "UseCompressedOops", "CompressedOops", &h->narrow_oop);
	hotspot_read_narrow(h, "UseCompressedClassPointers", "CompressedKlassPointers", &h->narrow_klass);
	if (hotspot_flag_bool(h, "UseCompactObjectHeaders", &h->compact_headers) &&
	    h->compact_headers &&
	    (!hotspot_long_constant(h, "markWord::klass_shift", &h->mark_klass_shift) ||
	     h->mark_klass_shift >= 64))
		h->mark_klass_shift = 0;
	h->object_klass = hotspot_vm_class(h, "Object_klass");
	return h;
}

void hotspot_close(struct hotspot *h)
{
	if (!h)
		return;
	hashmap_release(&h->string_at, NULL);
	hashmap_release(&h->field_index, NULL);
	hashmap_release(&h->type_index, NULL);
	hashmap_release(&h->int_index, NULL);
	hashmap_release(&h->long_index, NULL);
	strset_release(&h->strings);
	free(h->fields);
	free(h->types);
	free(h->ints);
	free(h->longs);
	free(h);
}

pid_t hotspot_pid(const struct hotspot *h)
{
	return h->pid;
}

const struct hotspot_field *hotspot_fields(const struct hotspot *h, size_t *n)
{
	*n = h->nfields;
	return h->fields;
}

/* ---- lookups ------------------------------------------------------------ */

const struct hotspot_field *hotspot_field(const struct hotspot *h,
					  const char *type, const char *field)
{
	struct field_key k = { type, field };

	return hashmap_lookup(&h->field_index, field_hash(type, field), field_match, &k);
}

/* The type and its superclasses, nearest first; stops at a cycle. */
#define MAX_SUPERS 32
static size_t type_chain(const struct hotspot *h, const char *type,
			 const char *chain[MAX_SUPERS])
{
	size_t n = 0;

	while (type && n < MAX_SUPERS) {
		const struct hotspot_type *t = find_type(h, type);

		for (size_t i = 0; i < n; i++)
			if (!strcmp(chain[i], type))
				return n;
		chain[n++] = type;
		type = t ? t->super : NULL;
	}
	return n;
}

int64_t hotspot_field_offset(const struct hotspot *h, const char *type, const char *field)
{
	const char *chain[MAX_SUPERS];
	size_t n = type_chain(h, type, chain);

	for (size_t i = 0; i < n; i++) {
		const struct hotspot_field *f = hotspot_field(h, chain[i], field);

		if (f && !f->is_static)
			return (int64_t)f->offset;
	}
	return -1;
}

static int cmp_field_offset(const void *a, const void *b)
{
	const struct hotspot_field *fa = *(const struct hotspot_field *const *)a;
	const struct hotspot_field *fb = *(const struct hotspot_field *const *)b;

	if (fa->offset != fb->offset)
		return fa->offset < fb->offset ? -1 : 1;
	/* table order breaks ties, so the answer does not depend on qsort */
	return fa < fb ? -1 : fa > fb;
}

const struct hotspot_field **hotspot_layout(const struct hotspot *h,
					    const char *type, size_t *n)
{
	const char *chain[MAX_SUPERS];
	size_t nchain = type_chain(h, type, chain), alloc = 0;
	const struct hotspot_field **out = NULL;

	*n = 0;
	for (size_t i = 0; i < h->nfields; i++) {
		const struct hotspot_field *f = &h->fields[i];

		if (f->is_static)
			continue;
		for (size_t c = 0; c < nchain; c++) {
			if (strcmp(f->type, chain[c]))
				continue;
			ALLOC_GROW(out, *n + 1, alloc);
			out[(*n)++] = f;
			break;
		}
	}
	if (*n)
		sort_items(out, *n, sizeof(*out), cmp_field_offset);
	return out;
}

/* "_primary_supers[0]": the tables describe an array by its first element. */
static bool is_array_head(const char *name)
{
	size_t n = strlen(name);

	return n > 3 && !strcmp(name + n - 3, "[0]");
}

const struct hotspot_field *hotspot_field_at(const struct hotspot *h,
					     const char *type, uint64_t offset)
{
	const struct hotspot_field **lay, *best = NULL;
	uint64_t type_size = 0;
	size_t n;

	lay = hotspot_layout(h, type, &n);
	hotspot_type_size(h, type, &type_size);
	for (size_t i = 0; i < n; i++) {
		const struct hotspot_field *f = lay[i];
		uint64_t end;

		if (f->offset > offset)
			break;
		if (f->size && !is_array_head(f->name)) {
			end = f->offset + f->size;
		} else {
			/* up to the next field, or the type's end */
			size_t j = i + 1;

			while (j < n && lay[j]->offset == f->offset)
				j++;
			end = j < n ? lay[j]->offset : type_size;
		}
		/* the first of a union's members at the nearest start wins */
		if (offset < end && (!best || f->offset > best->offset))
			best = f;
	}
	free(lay);
	return best;
}

bool hotspot_type_size(const struct hotspot *h, const char *type, uint64_t *size)
{
	const struct hotspot_type *t = find_type(h, type);

	if (!t)
		return false;
	*size = t->size;
	return true;
}

const char *hotspot_type_super(const struct hotspot *h, const char *type)
{
	const struct hotspot_type *t = find_type(h, type);

	return t ? t->super : NULL;
}

bool hotspot_int_constant(const struct hotspot *h, const char *name, int32_t *val)
{
	const struct hotspot_const *c = hashmap_lookup(&h->int_index, hash_str(name),
						       const_match, name);

	if (!c)
		return false;
	*val = (int32_t)c->value;
	return true;
}

bool hotspot_long_constant(const struct hotspot *h, const char *name, uint64_t *val)
{
	const struct hotspot_const *c = hashmap_lookup(&h->long_index, hash_str(name),
						       const_match, name);

	if (!c)
		return false;
	*val = c->value;
	return true;
}

bool hotspot_static_value(const struct hotspot *h, const char *type,
			  const char *field, uint64_t *val)
{
	const struct hotspot_field *f = hotspot_field(h, type, field);

	if (!f || !f->is_static || !f->address)
		return false;
	return hs_read_uint(h->task, f->address, f->size ? f->size : 8, val);
}
