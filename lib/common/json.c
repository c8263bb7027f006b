// SPDX-License-Identifier: GPL-2.0
/*
 * A small JSON value tree (json.h): a command builds its document, then
 * prints it compact (one line) or pretty. Numbers stay numbers; strings are
 * escaped to plain ASCII so the output is valid JSON whatever bytes an
 * interface name holds.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "xalloc.h"

enum jv_type { JV_NULL, JV_BOOL, JV_U64, JV_NUM, JV_STR, JV_ARR, JV_OBJ };

struct jv {
	enum jv_type type;
	char *key; /* as a member of an object */
	union {
		int b;
		uint64_t u;
		struct {
			double d;
			int decimals;
		} num;
		char *s;
		struct {
			struct jv *first, *last;
		} kids;
	};
	struct jv *next;
};

static struct jv *jv_new(enum jv_type type)
{
	struct jv *v = xcalloc(1, sizeof(*v));

	v->type = type;
	return v;
}

struct jv *jv_obj(void)
{
	return jv_new(JV_OBJ);
}

struct jv *jv_arr(void)
{
	return jv_new(JV_ARR);
}

struct jv *jv_str(const char *s)
{
	struct jv *v;

	if (!s)
		return jv_null();
	v = jv_new(JV_STR);
	v->s = xstrdup(s);
	return v;
}

struct jv *jv_u64(uint64_t u)
{
	struct jv *v = jv_new(JV_U64);

	v->u = u;
	return v;
}

struct jv *jv_num(double d, int decimals)
{
	struct jv *v = jv_new(JV_NUM);

	v->num.d = d;
	v->num.decimals = decimals;
	return v;
}

struct jv *jv_bool(int b)
{
	struct jv *v = jv_new(JV_BOOL);

	v->b = !!b;
	return v;
}

struct jv *jv_null(void)
{
	return jv_new(JV_NULL);
}

struct jv *jv_add(struct jv *parent, const char *key, struct jv *v)
{
	if (key)
		v->key = xstrdup(key);
	if (parent->kids.last)
		parent->kids.last->next = v;
	else
		parent->kids.first = v;
	parent->kids.last = v;
	return v;
}

void jv_free(struct jv *v)
{
	struct jv *k, *next;

	if (!v)
		return;
	if (v->type == JV_ARR || v->type == JV_OBJ)
		for (k = v->kids.first; k; k = next) {
			next = k->next;
			jv_free(k);
		}
	if (v->type == JV_STR)
		free(v->s);
	free(v->key);
	free(v);
}

static void print_string(FILE *f, const char *s)
{
	const unsigned char *p;

	fputc('"', f);
	for (p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", f);
		else if (*p == '\t')
			fputs("\\t", f);
		else if (*p < 0x20 || *p >= 0x7f)
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

static void indent(FILE *f, int pretty, int depth)
{
	if (pretty)
		fprintf(f, "\n%*s", 4 * depth, "");
}

static void print_value(FILE *f, const struct jv *v, int pretty, int depth)
{
	const struct jv *k;

	switch (v->type) {
	case JV_NULL:
		fputs("null", f);
		break;
	case JV_BOOL:
		fputs(v->b ? "true" : "false", f);
		break;
	case JV_U64:
		fprintf(f, "%" PRIu64, v->u);
		break;
	case JV_NUM:
		if (isfinite(v->num.d))
			fprintf(f, "%.*f", v->num.decimals, v->num.d);
		else
			fputs("null", f);
		break;
	case JV_STR:
		print_string(f, v->s);
		break;
	case JV_ARR:
	case JV_OBJ:
		fputc(v->type == JV_ARR ? '[' : '{', f);
		for (k = v->kids.first; k; k = k->next) {
			indent(f, pretty, depth + 1);
			if (v->type == JV_OBJ) {
				print_string(f, k->key ? k->key : "");
				fputs(pretty ? ": " : ":", f);
			}
			print_value(f, k, pretty, depth + 1);
			if (k->next)
				fputc(',', f);
		}
		if (v->kids.first)
			indent(f, pretty, depth);
		fputc(v->type == JV_ARR ? ']' : '}', f);
		break;
	}
}

void jv_print(FILE *f, const struct jv *v, int pretty)
{
	print_value(f, v, pretty, 0);
	fputc('\n', f);
}
