/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains how libmrc takes the verbs calls whatever the link
 * order: the real libibverbs, reached by handle, and the rebinding of
 * every loaded object's references to libmrc's verbs entry points.
 */
#ifndef MRC_LIB_BIND_H
#define MRC_LIB_BIND_H

#include <stddef.h>

/* The real libibverbs' definition of name, or NULL (none loadable here). */
void *bind_real(const char *name);

/*
 * One object's relocations, as the dynamic linker left them: points each
 * GOT slot of a name in names[] at addrs[] (the same index). Returns how
 * many slots changed. base: the object's load bias; dyn: its dynamic
 * section; relro, relro_len: its PT_GNU_RELRO span (0: none).
 */
struct bind_obj {
	unsigned long base;
	const void *dyn;
	unsigned long relro, relro_len;
};
int bind_object(const struct bind_obj *o, const char *const *names,
		void *const *addrs, size_t n);

/* Rebinds every object loaded now but libmrc and libibverbs itself. */
int bind_all(void);

/*
 * Returns the real libibverbs' fn(...) for an object of a real device, or
 * fails with errno ENODEV (fail is what fn returns on failure) when no
 * libibverbs is there: then no real device was listed either.
 */
#define BIND_FORWARD(fn, fail, ...)                                      \
	do {                                                             \
		__typeof__(&fn) real_ = (__typeof__(&fn))bind_real(#fn); \
		if (!real_) {                                            \
			errno = ENODEV;                                  \
			return fail;                                     \
		}                                                        \
		return real_(__VA_ARGS__);                               \
	} while (0)

#endif /* MRC_LIB_BIND_H */
