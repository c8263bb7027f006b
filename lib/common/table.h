/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains output tables (table.c): each field of a row given
 * once, as text for people and as a JSON value for programs.
 */
#ifndef MRC_COMMON_TABLE_H
#define MRC_COMMON_TABLE_H

#include <stdint.h>
#include <stdio.h>

#include "json.h"

#pragma GCC poison u8 u16 u32 u64

/*
 * Rows of fields, each given once for both outputs: key is the JSON name
 * (snake_case, unit in it), head the text column header (unit in it).
 * A list prints as an array or as aligned columns, one row as an object
 * or as "head  value" lines.
 */
struct tbl;

struct tbl *tbl_new(void);
void tbl_row(struct tbl *t);
/* text and json become the table's; json NULL: a text-only column, head
 * NULL: a JSON-only field. */
void tbl_put(struct tbl *t, const char *key, const char *head, int right,
	     char *text, struct jv *json);
void tbl_u64(struct tbl *t, const char *key, const char *head, uint64_t v);
void tbl_hex(struct tbl *t, const char *key, const char *head, uint64_t v);
void tbl_str(struct tbl *t, const char *key, const char *head, const char *s);
/* s (allocated) becomes the table's. */
void tbl_str_own(struct tbl *t, const char *key, const char *head, char *s);
void tbl_bool(struct tbl *t, const char *key, const char *head, int v);
void tbl_fixed(struct tbl *t, const char *key, const char *head, double v,
	       int decimals);
void tbl_none(struct tbl *t, const char *key, const char *head);
/* With json, the rows as JSON (pretty: indented); else as text. */
void tbl_print_list(struct tbl *t, FILE *f, int json, int pretty);
void tbl_print_one(struct tbl *t, FILE *f, int json, int pretty);
void tbl_free(struct tbl *t);

#endif /* MRC_COMMON_TABLE_H */
