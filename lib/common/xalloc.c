// SPDX-License-Identifier: GPL-2.0
/*
 * Allocation that cannot fail, for the command-line tools: out of memory,
 * the program says so and exits (xalloc.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

static void *oom(void *p)
{
	if (!p) {
		fprintf(stderr, "%s: out of memory\n",
			program_invocation_short_name);
		exit(XALLOC_EXIT);
	}
	return p;
}

void *xmalloc(size_t n)
{
	return oom(malloc(n ? n : 1));
}

void *xcalloc(size_t n, size_t size)
{
	return oom(calloc(n ? n : 1, size ? size : 1));
}

void *xrealloc(void *p, size_t n, size_t size)
{
	size_t bytes;

	if (size && n > SIZE_MAX / size)
		return oom(NULL);
	bytes = n * size;
	return oom(realloc(p, bytes ? bytes : 1));
}

char *xstrdup(const char *s)
{
	return oom(strdup(s));
}

char *xvasprintf(const char *fmt, va_list ap)
{
	va_list ap2;
	char *s;
	int n;

	va_copy(ap2, ap);
	n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n < 0)
		return xstrdup("?");
	s = xmalloc((size_t)n + 1);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	return s;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	return s;
}
