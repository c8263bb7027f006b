/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains the verbs entry points libmrc defines, by name and
 * address: the references bind.c points at libmrc in every object.
 */
#ifndef MRC_LIB_VERBS_NAMES_H
#define MRC_LIB_VERBS_NAMES_H

#include <stddef.h>

extern const char *const verbs_names[];
extern void *const verbs_addrs[];
extern const size_t verbs_count;

#endif /* MRC_LIB_VERBS_NAMES_H */
