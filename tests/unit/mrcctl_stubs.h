/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains what unit tests of mrcctl's parsers (over args.c)
 * link in place of main.c and names.c: the error reporters, which keep
 * the last message in last_err, and a command line split from one string.
 */
#ifndef MRC_TEST_MRCCTL_STUBS_H
#define MRC_TEST_MRCCTL_STUBS_H

#include "mrcctl.h"

/* What err_usage or err_runtime said last. */
extern char last_err[512];

/*
 * a: the command cmd with the words of words (split at spaces), ready
 * for a parser; last_err cleared. The words live until the next call.
 */
void stub_args(struct args *a, const char *cmd, const char *words);

#endif /* MRC_TEST_MRCCTL_STUBS_H */
