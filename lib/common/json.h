/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains a small JSON value tree (json.c): build a document,
 * then print it compact (one line) or pretty. Numbers stay numbers;
 * strings are escaped to plain ASCII.
 */
#ifndef MRC_COMMON_JSON_H
#define MRC_COMMON_JSON_H

#include <stdint.h>
#include <stdio.h>

#pragma GCC poison u8 u16 u32 u64

struct jv;

struct jv *jv_obj(void);
struct jv *jv_arr(void);
struct jv *jv_str(const char *s); /* NULL: null */
struct jv *jv_u64(uint64_t v);
struct jv *jv_num(double v, int decimals);
struct jv *jv_bool(int v);
struct jv *jv_null(void);
/* Adds v to an object (key) or an array (key NULL); returns v. */
struct jv *jv_add(struct jv *parent, const char *key, struct jv *v);
void jv_print(FILE *f, const struct jv *v, int pretty);
void jv_free(struct jv *v);

#endif /* MRC_COMMON_JSON_H */
