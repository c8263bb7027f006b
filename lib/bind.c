// SPDX-License-Identifier: GPL-2.0
/*
 * Taking the verbs calls whatever the link order (bind.h).
 *
 * libmrc defines the verbs entry points a program calls (ibv_get_device_list,
 * ibv_open_device, ibv_create_qp, ...). The dynamic linker binds each
 * reference to the first definition in load order, so a program or plugin
 * linked `-libverbs -lmrc` binds to the system libibverbs, which on a host
 * without an RDMA subsystem lists no device. An rdma-core provider cannot
 * help there: libibverbs finds devices only through netlink or sysfs
 * (/sys/class/infiniband_verbs) and opens their /dev/infiniband char
 * devices, none of which exists for a soft device (docs/libmrc.md).
 *
 * So when libmrc is loaded (linked, or brought in by dlopen of a plugin
 * that links it), its constructor walks every loaded object's relocations
 * and points the GOT slots of those names at libmrc's definitions, the way
 * the dynamic linker itself would have with libmrc first. Calls on a real
 * device are forwarded to the real libibverbs, reached by its own handle
 * (bind_real), so both kinds of device work side by side.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bind.h"
#include "verbs_names.h"

#if defined(__x86_64__)
#define R_JUMP_SLOT R_X86_64_JUMP_SLOT
#define R_GLOB_DAT R_X86_64_GLOB_DAT
#define R_ABS R_X86_64_64
#elif defined(__aarch64__)
#define R_JUMP_SLOT R_AARCH64_JUMP_SLOT
#define R_GLOB_DAT R_AARCH64_GLOB_DAT
#define R_ABS R_AARCH64_ABS64
#else
#error "bind.c: relocation types of this architecture not named"
#endif

static pthread_once_t real_once = PTHREAD_ONCE_INIT;
static void *real_handle;

static void real_open(void)
{
	/*
	 * The program's own copy if it has one; else one of our own, local,
	 * so that its symbols never come before libmrc's for anyone.
	 */
	real_handle = dlopen("libibverbs.so.1", RTLD_NOW | RTLD_NOLOAD);
	if (!real_handle)
		real_handle = dlopen("libibverbs.so.1", RTLD_NOW | RTLD_LOCAL);
}

void *bind_real(const char *name)
{
	pthread_once(&real_once, real_open);
	return real_handle ? dlsym(real_handle, name) : NULL;
}

/* Dynamic entries hold addresses the linker adjusted, or offsets. */
static unsigned long dyn_ptr(unsigned long base, unsigned long v)
{
	return v < base ? base + v : v;
}

static int set_slot(const struct bind_obj *o, void **slot, void *to)
{
	unsigned long a = (unsigned long)slot;
	long pg = sysconf(_SC_PAGESIZE);
	void *page = (void *)(a & ~(unsigned long)(pg - 1));
	/*
	 * The dynamic linker protects RELRO up to its last whole page; the
	 * page it ends in stays writable (it is .data's too), so only the
	 * pages below that are opened and closed again here.
	 */
	unsigned long ro_end = (o->relro + o->relro_len) &
			       ~(unsigned long)(pg - 1);
	int ro = o->relro_len && a >= o->relro && a < ro_end;

	if (*slot == to)
		return 0;
	/* RELRO slots were made read-only after relocation: open them. */
	if (ro && mprotect(page, pg, PROT_READ | PROT_WRITE))
		return 0;
	*slot = to;
	if (ro)
		mprotect(page, pg, PROT_READ);
	return 1;
}

static int bind_relas(const struct bind_obj *o, const ElfW(Rela) * r, size_t n,
		      const ElfW(Sym) * syms, const char *strs,
		      const char *const *names, void *const *addrs, size_t nn)
{
	int changed = 0;
	size_t i, j;

	for (i = 0; i < n; i++) {
		unsigned int type = ELF64_R_TYPE(r[i].r_info);
		const char *name;

		if (type != R_JUMP_SLOT && type != R_GLOB_DAT && type != R_ABS)
			continue;
		if (type == R_ABS && r[i].r_addend)
			continue;
		name = strs + syms[ELF64_R_SYM(r[i].r_info)].st_name;
		if (strncmp(name, "ibv_", 4) && strncmp(name, "_ibv_", 5))
			continue;
		for (j = 0; j < nn; j++)
			if (!strcmp(name, names[j]))
				break;
		if (j < nn)
			changed += set_slot(o,
					    (void **)(o->base + r[i].r_offset),
					    addrs[j]);
	}
	return changed;
}

int bind_object(const struct bind_obj *o, const char *const *names,
		void *const *addrs, size_t n)
{
	const ElfW(Rela) *jmprel = NULL, *rela = NULL;
	size_t jmprel_sz = 0, rela_sz = 0;
	const ElfW(Sym) *syms = NULL;
	const char *strs = NULL;
	const ElfW(Dyn) * d;

	for (d = o->dyn; d->d_tag != DT_NULL; d++) {
		switch (d->d_tag) {
		case DT_SYMTAB:
			syms = (const void *)dyn_ptr(o->base, d->d_un.d_ptr);
			break;
		case DT_STRTAB:
			strs = (const void *)dyn_ptr(o->base, d->d_un.d_ptr);
			break;
		case DT_JMPREL:
			jmprel = (const void *)dyn_ptr(o->base, d->d_un.d_ptr);
			break;
		case DT_PLTRELSZ:
			jmprel_sz = d->d_un.d_val;
			break;
		case DT_RELA:
			rela = (const void *)dyn_ptr(o->base, d->d_un.d_ptr);
			break;
		case DT_RELASZ:
			rela_sz = d->d_un.d_val;
			break;
		}
	}
	if (!syms || !strs)
		return 0;
	return (jmprel ? bind_relas(o, jmprel, jmprel_sz / sizeof(*jmprel),
				    syms, strs, names, addrs, n) :
			 0) +
	       (rela ? bind_relas(o, rela, rela_sz / sizeof(*rela), syms, strs,
				  names, addrs, n) :
		       0);
}

/* libibverbs and its providers keep their own references. */
static int is_verbs_lib(const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	return !strncmp(base, "libibverbs.so", 13) ||
	       strstr(path, "/libibverbs/");
}

static int holds(const struct dl_phdr_info *info, unsigned long a)
{
	int i;

	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *p = &info->dlpi_phdr[i];
		unsigned long lo = info->dlpi_addr + p->p_vaddr;

		if (p->p_type == PT_LOAD && a >= lo && a < lo + p->p_memsz)
			return 1;
	}
	return 0;
}

static int each_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct bind_obj o = { .base = info->dlpi_addr };
	int *changed = arg, i;

	(void)size;
	if (is_verbs_lib(info->dlpi_name) ||
	    holds(info, (unsigned long)&bind_all))
		return 0;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *p = &info->dlpi_phdr[i];

		if (p->p_type == PT_DYNAMIC)
			o.dyn = (const void *)(info->dlpi_addr + p->p_vaddr);
		if (p->p_type == PT_GNU_RELRO) {
			o.relro = info->dlpi_addr + p->p_vaddr;
			o.relro_len = p->p_memsz;
		}
	}
	/* The vDSO's dynamic section is not relocated: it has no GOT. */
	if (o.dyn && strncmp(info->dlpi_name, "linux-vdso", 10))
		*changed +=
			bind_object(&o, verbs_names, verbs_addrs, verbs_count);
	return 0;
}

int bind_all(void)
{
	int changed = 0;

	dl_iterate_phdr(each_object, &changed);
	return changed;
}

/*
 * Before main() for a linked libmrc, and before dlopen() returns for a
 * plugin that brought it in: every object that references a verbs call
 * has been relocated by then (RTLD_NOW or not: a lazy slot is simply set
 * before its first call).
 */
__attribute__((constructor)) static void bind_at_load(void)
{
	const char *v = getenv("MRC_BIND");

	/* MRC_BIND=0: leave the bindings as the linker made them (a test's
	 * control, and a way to tell whether a problem is the rebinding's). */
	if (v && !strcmp(v, "0"))
		return;
	bind_all();
}
