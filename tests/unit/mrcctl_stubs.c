// SPDX-License-Identifier: GPL-2.0
/*
 * Stand-ins for mrcctl's main.c and names.c in unit tests of its parsers
 * (mrcctl_stubs.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "mrcctl_stubs.h"

char last_err[512];

int err_usage(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_err, sizeof(last_err), fmt, ap);
	va_end(ap);
	return MRCCTL_EXIT_USAGE;
}

int err_runtime(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_err, sizeof(last_err), fmt, ap);
	va_end(ap);
	return MRCCTL_EXIT_RUNTIME;
}

void ev_set(struct mrc_ctl_ev *ev, uint32_t val, uint8_t port)
{
	(void)ev;
	(void)val;
	(void)port;
}

void stub_args(struct args *a, const char *cmd, const char *words)
{
	static char buf[512];
	static char *argv[64];
	char *w, *save = NULL;

	memset(a, 0, sizeof(*a));
	a->cmd = cmd;
	snprintf(buf, sizeof(buf), "%s", words);
	for (w = strtok_r(buf, " ", &save); w && a->argc < 64;
	     w = strtok_r(NULL, " ", &save))
		argv[a->argc++] = w;
	a->argv = argv;
	last_err[0] = '\0';
}
