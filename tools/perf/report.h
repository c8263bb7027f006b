/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains the client's report (report.c): the run and its rows
 * as one JSON object, or as a table for people.
 */
#ifndef MRC_TOOLS_PERF_REPORT_H
#define MRC_TOOLS_PERF_REPORT_H

#include "client.h"

/* The JSON object, on one line of stdout; err: the run's, 0 or -errno. */
void print_json(const struct perf_client *c, int err);
/* The table and its notes, on stdout. */
void print_human(const struct perf_client *c);

#endif /* MRC_TOOLS_PERF_REPORT_H */
