/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains libmrc's logging: four levels, the level in force
 * read once from MRC_LOG_LEVEL (error, warning, info, debug; warning when
 * unset), every line on stderr as "libmrc[PID]: ...". A message names the
 * object it is about first ("QP 12: ...", "mrcd at PATH: ..."). Hidden:
 * no symbol of it is exported.
 */
#ifndef MRC_LIB_LOG_H
#define MRC_LIB_LOG_H

#define MRC_LOG_ENV "MRC_LOG_LEVEL"

enum mrc_log_level {
	MRC_LOG_ERROR,
	MRC_LOG_WARNING, /* the default */
	MRC_LOG_INFO,
	MRC_LOG_DEBUG,
};

__attribute__((visibility("hidden"))) int mrc_log_on(enum mrc_log_level l);
__attribute__((visibility("hidden"), format(printf, 2, 3))) void
mrc_log(enum mrc_log_level l, const char *fmt, ...);

#define lib_err(...) mrc_log(MRC_LOG_ERROR, __VA_ARGS__)
#define lib_warn(...) mrc_log(MRC_LOG_WARNING, __VA_ARGS__)
#define lib_info(...) mrc_log(MRC_LOG_INFO, __VA_ARGS__)
#define lib_debug(...) mrc_log(MRC_LOG_DEBUG, __VA_ARGS__)

#endif /* MRC_LIB_LOG_H */
