/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains allocation that cannot fail, for the command-line
 * tools (xalloc.c): out of memory, the program prints "NAME: out of
 * memory" and exits with XALLOC_EXIT.
 */
#ifndef MRC_COMMON_XALLOC_H
#define MRC_COMMON_XALLOC_H

#include <stdarg.h>
#include <stddef.h>

#pragma GCC poison u8 u16 u32 u64

#define XALLOC_EXIT 2

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n, size_t size);
char *xstrdup(const char *s);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *xvasprintf(const char *fmt, va_list ap)
	__attribute__((format(printf, 1, 0)));

#endif /* MRC_COMMON_XALLOC_H */
