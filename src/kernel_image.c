// SPDX-License-Identifier: BSD-2-Clause
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "elf_notes.h"
#include "kernel_image.h"

/* Where distros and kernel builds leave a vmlinux with DWARF; %1$s is the release. */
static const char *const image_paths[] = {
	"/boot/vmlinux-%1$s",
	"/lib/modules/%1$s/vmlinux-%1$s",
	"/lib/modules/%1$s/build/vmlinux",
	"/usr/lib/modules/%1$s/kernel/vmlinux",
	"/usr/lib/debug/boot/vmlinux-%1$s",
	"/usr/lib/debug/boot/vmlinux-%1$s.debug",
	"/usr/lib/debug/lib/modules/%1$s/vmlinux",
};

int kernel_image__find(const char *release, char *path, size_t path_sz, log_print_fn print)
{
	size_t i;

	for (i = 0; i < sizeof(image_paths) / sizeof(image_paths[0]); i++) {
		snprintf(path, path_sz, image_paths[i], release);
		if (access(path, R_OK) == 0)
			return 0;
		log_msg(print, LOG_DEBUG, "No vmlinux image at %s found...\n", path);
	}
	path[0] = '\0';
	return -ENOENT;
}

/* Notes are padded to 4 bytes, except in 8-aligned sections such as .note.gnu.property. */
static int notes_build_id(const void *notes, size_t len, size_t align, unsigned char *id,
			  size_t id_sz)
{
	const unsigned char *p = notes, *end = p + len;

	/* Elf_Nhdr { namesz, descsz, type }, name and desc each padded to 4 bytes */
	while (end - p >= 12) {
		__u32 namesz, descsz, type;
		size_t name_len, desc_len;

		memcpy(&namesz, p, 4);
		memcpy(&descsz, p + 4, 4);
		memcpy(&type, p + 8, 4);
		p += 12;
		name_len = (namesz + align - 1) & ~(align - 1);
		desc_len = (descsz + align - 1) & ~(align - 1);
		/* the last note's padding may be missing (ld does this for odd build IDs) */
		if ((size_t)(end - p) < name_len || (size_t)(end - p - name_len) < descsz)
			return -EINVAL;
		if (type == NT_GNU_BUILD_ID && namesz == 4 && memcmp(p, "GNU", 4) == 0) {
			if (descsz > id_sz)
				return -E2BIG;
			memcpy(id, p + name_len, descsz);
			return descsz;
		}
		if ((size_t)(end - p - name_len) < desc_len)
			break;
		p += name_len + desc_len;
	}
	return -ENOENT;
}

int kernel_image__notes_build_id(const void *notes, size_t len, unsigned char *id, size_t id_sz)
{
	return notes_build_id(notes, len, 4, id, id_sz);
}

int kernel_image__running_build_id(unsigned char *id, size_t id_sz)
{
	unsigned char buf[4096];
	ssize_t n;
	int fd;

	fd = open("/sys/kernel/notes", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n < 0)
		return -errno;
	return kernel_image__notes_build_id(buf, n, id, id_sz);
}

static Elf *open_elf(const char *path, int *fd)
{
	Elf *elf;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return NULL;
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0)
		return NULL;
	elf = elf_begin(*fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		if (elf)
			elf_end(elf);
		close(*fd);
		errno = EINVAL;
		return NULL;
	}
	return elf;
}

int kernel_image__build_id(const char *path, unsigned char *id, size_t id_sz)
{
	Elf_Scn *scn = NULL;
	int fd, err = -ENOENT;
	GElf_Shdr sh;
	Elf_Data *d;
	Elf *elf;

	elf = open_elf(path, &fd);
	if (!elf)
		return -errno;
	while ((d = elf_notes__next(elf, &scn, &sh))) {
		err = notes_build_id(d->d_buf, d->d_size, sh.sh_addralign == 8 ? 8 : 4, id, id_sz);
		if (err > 0 || err == -E2BIG)
			break;
		err = -ENOENT;
	}
	elf_end(elf);
	close(fd);
	return err;
}

int kernel_image__text_addr(const char *path, __u64 *addr)
{
	Elf_Scn *scn = NULL;
	int fd, err = -ENOENT;
	size_t shstrndx;
	GElf_Shdr sh;
	Elf *elf;

	elf = open_elf(path, &fd);
	if (!elf)
		return -errno;
	if (elf_getshdrstrndx(elf, &shstrndx) == 0) {
		while ((scn = elf_nextscn(elf, scn))) {
			const char *name;

			if (!gelf_getshdr(scn, &sh))
				continue;
			name = elf_strptr(elf, shstrndx, sh.sh_name);
			if (name && strcmp(name, ".text") == 0) {
				*addr = sh.sh_addr;
				err = 0;
				break;
			}
		}
	}
	elf_end(elf);
	close(fd);
	return err;
}
