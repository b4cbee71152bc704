/* elf_fixture.h - a fixture binary mapped into a symbolizer as the loader
 * would map it, for tests that look up its globals and code (header-only,
 * like tap.h). */
#ifndef CONTEND_ELF_FIXTURE_H
#define CONTEND_ELF_FIXTURE_H

#include <fcntl.h>
#include <gelf.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "symbolize/symbolizer.h"

#define ELF_FIXTURE_PAGE 0x1000ULL

struct elf_file {
	int fd;
	Elf *elf;
};

static inline bool elf_file_open(struct elf_file *f, const char *path)
{
	elf_version(EV_CURRENT);
	f->fd = open(path, O_RDONLY);
	f->elf = f->fd < 0 ? NULL : elf_begin(f->fd, ELF_C_READ, NULL);
	return f->elf;
}

static inline void elf_file_close(struct elf_file *f)
{
	elf_end(f->elf);
	if (f->fd >= 0)
		close(f->fd);
}

/*
 * Each page of each PT_LOAD segment becomes a mapping of the file at
 * base, for pid.  Page by page, as the loader leaves the data segment once
 * it has split off RELRO: the page that the end of one segment and the
 * start of the next share in the file is then not where a global is
 * looked up.
 */
static inline void elf_fixture_map(struct elf_file *f, struct symbolizer *sym, pid_t pid,
				   uint64_t base, const char *path)
{
	size_t n = 0;

	elf_getphdrnum(f->elf, &n);
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		uint64_t page, end;
		uint32_t prot = 0;

		if (!gelf_getphdr(f->elf, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		prot |= ph.p_flags & PF_R ? PROT_READ : 0;
		prot |= ph.p_flags & PF_W ? PROT_WRITE : 0;
		prot |= ph.p_flags & PF_X ? PROT_EXEC : 0;
		page = ph.p_vaddr & ~(ELF_FIXTURE_PAGE - 1);
		end = ph.p_vaddr + ph.p_memsz;
		for (; page < end; page += ELF_FIXTURE_PAGE)
			symbolizer_add_mapping(sym, pid, base + page, ELF_FIXTURE_PAGE,
					       ph.p_offset - ph.p_vaddr + page, prot, path);
	}
}

/* The address of a defined symbol once the file is mapped at base, 0 if
 * missing. */
static inline uint64_t elf_fixture_symbol(struct elf_file *f, uint64_t base, const char *name)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(f->elf, scn))) {
		Elf_Data *data = elf_getdata(scn, NULL);
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !data)
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			const char *sname;

			if (!gelf_getsym(data, i, &s) || s.st_shndx == SHN_UNDEF)
				continue;
			sname = elf_strptr(f->elf, sh.sh_link, s.st_name);
			if (sname && !strcmp(sname, name))
				return base + s.st_value;
		}
	}
	return 0;
}

#endif
