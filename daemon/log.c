// SPDX-License-Identifier: GPL-2.0
/*
 * mrcd's logging: one level in force, one line per message on stderr.
 */
#include <stdarg.h>
#include <stdio.h>

#include "log.h"

static enum log_level level_in_force = LOG_INFO;
static const char *ident = "mrcd";

void log_set_ident(const char *name)
{
	ident = name;
}

void log_set_level(enum log_level level)
{
	level_in_force = level;
}

enum log_level log_get_level(void)
{
	return level_in_force;
}

int log_on(enum log_level level)
{
	return level <= level_in_force;
}

void log_msg(enum log_level level, const char *fmt, ...)
{
	va_list ap;

	if (!log_on(level))
		return;
	va_start(ap, fmt);
	fprintf(stderr, "%s: ", ident);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}
