/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains the fields of the client's results, each described
 * once (fields.c) for both of the report's outputs (report.c): its JSON
 * name with its unit, its column in the table, its type and where its
 * value is, and how it prints in each. A new field is one line here.
 */
#ifndef MRC_TOOLS_PERF_FIELDS_H
#define MRC_TOOLS_PERF_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "client.h"

enum field_type {
	FIELD_U64, /* the uint64_t at off */
	FIELD_SIZE, /* the same, in the table as 1M, 64K or plain bytes */
	FIELD_NS, /* the uint64_t at off, a time in ns, printed / div */
	FIELD_NUM, /* what num() computes */
	FIELD_BOOL, /* the bool at off, or what yes() says if set */
	FIELD_STR, /* what str() names */
};

/* Rows that have the field: all, or only with these (enum field_when). */
enum field_when {
	FIELD_IMM = 1 << 0, /* rate, and bw with WRITE_IMM: receive counts */
	FIELD_VERIFY = 1 << 1, /* --verify */
};

struct field {
	const char *key; /* JSON name, unit in it; NULL: only in the table */
	const char *col; /* table header, unit in it; NULL: only in JSON */
	enum field_type type;
	size_t off; /* in struct row_result */
	double div; /* FIELD_NS */
	double (*num)(const struct row_result *r);
	bool (*yes)(const struct row_result *r);
	const char *(*str)(const struct row_result *r);
	int json_prec; /* decimals in JSON (FIELD_NS, FIELD_NUM) */
	/* in the table: width (negative: left-aligned), decimals, the words
	 * for false and true, and what comes before the column when it is
	 * not the first (NULL: one space) */
	int width, prec;
	const char *const *words;
	const char *sep;
	unsigned int when; /* enum field_when bits; 0: every row */
};

struct fields {
	const struct field *f;
	size_t n;
};

/* The bw and rate rows, and the lat rows (over MRC or TCP). */
extern const struct fields write_fields, lat_fields;

#endif /* MRC_TOOLS_PERF_FIELDS_H */
