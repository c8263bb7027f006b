/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains mrcd's one logging facility: four levels, the level
 * in force set by the configuration (log-level, -v), every line on stderr
 * as "mrcd: ..." (the service manager's journal adds the time). A message
 * names the object it is about first: "QP 12 EV 3: ...", "port p0: ...",
 * "client pid 815: ...".
 */
#ifndef MRC_DAEMON_LOG_H
#define MRC_DAEMON_LOG_H

#include <stdint.h>

/* The values of mrcd.conf's log-level (enum config_log_level). */
enum log_level {
	LOG_ERROR,
	LOG_WARNING,
	LOG_INFO, /* the default */
	LOG_DEBUG, /* what -v adds */
};

/* The program name each line starts with; "mrcd" unless set. */
void log_set_ident(const char *name);
void log_set_level(enum log_level level);
enum log_level log_get_level(void);
/* Whether a message at level would be written (to skip costly ones). */
int log_on(enum log_level level);
void log_msg(enum log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#define log_err(...) log_msg(LOG_ERROR, __VA_ARGS__)
#define log_warn(...) log_msg(LOG_WARNING, __VA_ARGS__)
#define log_info(...) log_msg(LOG_INFO, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_DEBUG, __VA_ARGS__)

#endif /* MRC_DAEMON_LOG_H */
