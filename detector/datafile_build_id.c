/* datafile_build_id.c - the build-ids a data file names its ELF files by
 * (datafile.h). */
#include "detector/datafile.h"

#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/util.h"

static unsigned build_id_in_notes(Elf_Data *d, uint8_t *id)
{
	GElf_Nhdr nh;
	size_t off = 0, next, name_off, desc_off;

	while (d && (next = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    !memcmp((char *)d->d_buf + name_off, "GNU", 4) &&
		    nh.n_descsz && nh.n_descsz <= DATAFILE_BUILD_ID_MAX) {
			copy_bytes(id, (char *)d->d_buf + desc_off, nh.n_descsz);
			return nh.n_descsz;
		}
		off = next;
	}
	return 0;
}

/* Sections first (.note.gnu.build-id); segments for section-stripped files. */
static unsigned elf_build_id(Elf *e, uint8_t *id)
{
	Elf_Scn *scn = NULL;
	size_t n_phdrs;
	unsigned n;

	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_NOTE &&
		    (n = build_id_in_notes(elf_getdata(scn, NULL), id)))
			return n;
	}
	if (elf_getphdrnum(e, &n_phdrs) != 0)
		return 0;
	for (size_t i = 0; i < n_phdrs; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_NOTE)
			continue;
		n = build_id_in_notes(elf_getdata_rawchunk(e, (int64_t)ph.p_offset, ph.p_filesz,
							   ph.p_align == 8 ? ELF_T_NHDR8 : ELF_T_NHDR),
				      id);
		if (n)
			return n;
	}
	return 0;
}

unsigned datafile_build_id(const char *path, uint8_t *id)
{
	/* O_NONBLOCK: a FIFO must not hang us; it is rejected below */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	unsigned n = 0;
	Elf *e;

	if (fd < 0)
		return 0;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
		elf_version(EV_CURRENT);
		e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
		if (e && elf_kind(e) == ELF_K_ELF)
			n = elf_build_id(e, id);
		elf_end(e);
	}
	close(fd);
	return n;
}

char *build_id_hex(const uint8_t *id, unsigned len)
{
	char *s = xmalloc(2 * (size_t)len + 1);
	for (unsigned i = 0; i < len; i++)
		sprintf(s + 2 * i, "%02x", id[i]);
	s[2 * len] = '\0';
	return s;
}
