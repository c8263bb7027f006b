// SPDX-License-Identifier: GPL-2.0
/*
 * The rebinding of verbs references (lib/bind.c) over a hand-made object:
 * a dynamic section, symbols, strings and relocations in memory, the GOT
 * slots in a page of their own. Only listed names change, JUMP_SLOT,
 * GLOB_DAT and absolute pointers without addend alike, and a read-only
 * (RELRO) slot is written and left read-only again.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <link.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cmocka.h>

#include "bind.h"
#include "verbs_names.h"

/* bind.c's constructor rebinds this test by this list: nothing. */
const char *const verbs_names[] = { "none" };
void *const verbs_addrs[] = { NULL };
const size_t verbs_count = 0;

static int ours_a, ours_b, old;

static const char strs[] = "\0ibv_get_device_list\0ibv_open_device\0"
			   "ibv_other\0malloc";
enum { S_NONE, S_LIST, S_OPEN, S_OTHER, S_MALLOC, NSYM };

static ElfW(Sym) syms[NSYM];

/* The rights /proc/self/maps shows for the mapping that holds p. */
static const char *perms(const void *p)
{
	static char got[8];
	unsigned long lo, hi;
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");

	got[0] = 0;
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%lx %4s", &lo, &hi, got) == 3 &&
		    (uintptr_t)p >= lo && (uintptr_t)p < hi)
			break;
	if (f)
		fclose(f);
	return got;
}

static void rebind(int relro)
{
	long pg = sysconf(_SC_PAGESIZE);
	void **got = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	const char *const names[] = { "ibv_get_device_list",
				      "ibv_open_device" };
	void *const addrs[] = { &ours_a, &ours_b };
	ElfW(Rela) jmprel[2], rela[4];
	ElfW(Dyn) dyn[8];
	struct bind_obj o = { .base = 0, .dyn = dyn };
	int i;

	assert_true(got != MAP_FAILED);
	syms[S_LIST].st_name = 1;
	syms[S_OPEN].st_name = 21;
	syms[S_OTHER].st_name = 37;
	syms[S_MALLOC].st_name = 47;
	for (i = 0; i < 6; i++)
		got[i] = &old;
	/* Offsets from base 0: the slots' own addresses. */
	jmprel[0] = (ElfW(Rela)){ (uintptr_t)&got[0],
				  ELF64_R_INFO(S_LIST, R_X86_64_JUMP_SLOT), 0 };
	jmprel[1] = (ElfW(Rela)){ (uintptr_t)&got[1],
				  ELF64_R_INFO(S_MALLOC, R_X86_64_JUMP_SLOT),
				  0 };
	rela[0] = (ElfW(Rela)){ (uintptr_t)&got[2],
				ELF64_R_INFO(S_OPEN, R_X86_64_GLOB_DAT), 0 };
	rela[1] = (ElfW(Rela)){ (uintptr_t)&got[3],
				ELF64_R_INFO(S_OTHER, R_X86_64_GLOB_DAT), 0 };
	rela[2] = (ElfW(Rela)){ (uintptr_t)&got[4],
				ELF64_R_INFO(S_OPEN, R_X86_64_64), 0 };
	rela[3] = (ElfW(Rela)){ (uintptr_t)&got[5],
				ELF64_R_INFO(S_OPEN, R_X86_64_64), 8 };
	dyn[0] = (ElfW(Dyn)){ DT_SYMTAB, { (uintptr_t)syms } };
	dyn[1] = (ElfW(Dyn)){ DT_STRTAB, { (uintptr_t)strs } };
	dyn[2] = (ElfW(Dyn)){ DT_JMPREL, { (uintptr_t)jmprel } };
	dyn[3] = (ElfW(Dyn)){ DT_PLTRELSZ, { sizeof(jmprel) } };
	dyn[4] = (ElfW(Dyn)){ DT_RELA, { (uintptr_t)rela } };
	dyn[5] = (ElfW(Dyn)){ DT_RELASZ, { sizeof(rela) } };
	dyn[6] = (ElfW(Dyn)){ DT_NULL, { 0 } };
	if (relro) {
		/* As the dynamic linker leaves it: the whole page read-only. */
		o.relro = (uintptr_t)got;
		o.relro_len = pg;
		assert_int_equal(mprotect(got, pg, PROT_READ), 0);
	}
	assert_int_equal(bind_object(&o, names, addrs, 2), 3);
	assert_ptr_equal(got[0], &ours_a);
	assert_ptr_equal(got[1], &old); /* malloc: not ours */
	assert_ptr_equal(got[2], &ours_b);
	assert_ptr_equal(got[3], &old); /* an ibv_ name libmrc lacks */
	assert_ptr_equal(got[4], &ours_b);
	assert_ptr_equal(got[5], &old); /* &fn + 8 is no call */
	/* Done once: nothing more to change. */
	assert_int_equal(bind_object(&o, names, addrs, 2), 0);
	if (relro)
		assert_string_equal(perms(got), "r--p"); /* read-only again */
	else
		assert_string_equal(perms(got), "rw-p");
	munmap(got, 2 * pg);
}

static void rebinds_listed_names(void **state)
{
	(void)state;
	rebind(0);
}

static void rebinds_relro(void **state)
{
	(void)state;
	rebind(1);
}

/* The process itself: the constructor ran, and a second pass changes
 * nothing (this test's list is empty). */
static void whole_process(void **state)
{
	(void)state;
	assert_int_equal(bind_all(), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rebinds_listed_names),
		cmocka_unit_test(rebinds_relro),
		cmocka_unit_test(whole_process),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
