// SPDX-License-Identifier: GPL-2.0
/*
 * Output tables (table.h): each field of a row is given once, as text for
 * people and as a JSON value for programs. Lists print as aligned columns
 * (widths computed over header and rows, numbers right-aligned) or as a
 * JSON array of objects; a single row prints as "head  value" lines or as
 * one JSON object. The columns are the keys in the order they first come.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "table.h"
#include "xalloc.h"

struct col {
	char *key;
	char *head;
	int right;
	size_t width;
};

struct row {
	struct jv *obj;
	char **cells; /* by column; NULL: the row has no such field */
	int ncells;
};

struct tbl {
	struct col *cols;
	int ncols;
	struct row *rows;
	int nrows;
};

struct tbl *tbl_new(void)
{
	return xcalloc(1, sizeof(struct tbl));
}

void tbl_row(struct tbl *t)
{
	struct row *r;

	t->rows = xrealloc(t->rows, (size_t)t->nrows + 1, sizeof(*t->rows));
	r = &t->rows[t->nrows++];
	memset(r, 0, sizeof(*r));
	r->obj = jv_obj();
}

static int column(struct tbl *t, const char *key, const char *head, int right)
{
	int i;

	for (i = 0; i < t->ncols; i++)
		if (!strcmp(t->cols[i].key, key))
			return i;
	t->cols = xrealloc(t->cols, (size_t)t->ncols + 1, sizeof(*t->cols));
	t->cols[i] = (struct col){ .key = xstrdup(key),
				   .head = xstrdup(head),
				   .right = right };
	return t->ncols++;
}

void tbl_put(struct tbl *t, const char *key, const char *head, int right,
	     char *text, struct jv *json)
{
	struct row *r;
	int c;

	if (!t->nrows)
		tbl_row(t);
	r = &t->rows[t->nrows - 1];
	if (json) /* NULL: a text-only column */
		jv_add(r->obj, key, json);
	if (!head) { /* a JSON-only field */
		free(text);
		return;
	}
	c = column(t, key, head, right);
	if (c >= r->ncells) {
		r->cells = xrealloc(r->cells, (size_t)c + 1, sizeof(*r->cells));
		memset(r->cells + r->ncells, 0,
		       (size_t)(c + 1 - r->ncells) * sizeof(*r->cells));
		r->ncells = c + 1;
	}
	free(r->cells[c]);
	r->cells[c] = text;
}

void tbl_u64(struct tbl *t, const char *key, const char *head, uint64_t v)
{
	tbl_put(t, key, head, 1, xasprintf("%" PRIu64, v), jv_u64(v));
}

void tbl_hex(struct tbl *t, const char *key, const char *head, uint64_t v)
{
	tbl_put(t, key, head, 1, xasprintf("0x%" PRIx64, v), jv_u64(v));
}

void tbl_str(struct tbl *t, const char *key, const char *head, const char *s)
{
	tbl_put(t, key, head, 0, xstrdup(s ? s : "-"), jv_str(s));
}

void tbl_str_own(struct tbl *t, const char *key, const char *head, char *s)
{
	tbl_put(t, key, head, 0, s, jv_str(s));
}

void tbl_bool(struct tbl *t, const char *key, const char *head, int v)
{
	tbl_put(t, key, head, 0, xstrdup(v ? "yes" : "no"), jv_bool(v));
}

void tbl_fixed(struct tbl *t, const char *key, const char *head, double v,
	       int decimals)
{
	tbl_put(t, key, head, 1, xasprintf("%.*f", decimals, v),
		jv_num(v, decimals));
}

void tbl_none(struct tbl *t, const char *key, const char *head)
{
	tbl_put(t, key, head, 1, xstrdup("-"), jv_null());
}

static const char *cell(const struct row *r, int c)
{
	return c < r->ncells && r->cells[c] ? r->cells[c] : "";
}

void tbl_print_list(struct tbl *t, FILE *f, int json, int pretty)
{
	struct jv *arr;
	int i, c;

	if (json) {
		arr = jv_arr();
		for (i = 0; i < t->nrows; i++) {
			jv_add(arr, NULL, t->rows[i].obj);
			t->rows[i].obj = NULL; /* the array's now */
		}
		jv_print(f, arr, pretty);
		jv_free(arr);
		return;
	}
	if (!t->nrows)
		return;
	for (c = 0; c < t->ncols; c++) {
		t->cols[c].width = strlen(t->cols[c].head);
		for (i = 0; i < t->nrows; i++)
			if (strlen(cell(&t->rows[i], c)) > t->cols[c].width)
				t->cols[c].width = strlen(cell(&t->rows[i], c));
	}
	for (i = -1; i < t->nrows; i++) {
		for (c = 0; c < t->ncols; c++) {
			const char *s = i < 0 ? t->cols[c].head :
						cell(&t->rows[i], c);
			int w = (int)t->cols[c].width;

			if (c)
				fputs("  ", f);
			if (t->cols[c].right)
				fprintf(f, "%*s", w, s);
			else if (c == t->ncols - 1)
				fputs(s, f);
			else
				fprintf(f, "%-*s", w, s);
		}
		fputc('\n', f);
	}
}

void tbl_print_one(struct tbl *t, FILE *f, int json, int pretty)
{
	size_t w = 0;
	int c;

	if (!t->nrows)
		tbl_row(t);
	if (json) {
		jv_print(f, t->rows[0].obj, pretty);
		return;
	}
	for (c = 0; c < t->ncols; c++)
		if (strlen(t->cols[c].head) > w)
			w = strlen(t->cols[c].head);
	for (c = 0; c < t->ncols; c++)
		fprintf(f, "%-*s  %s\n", (int)w, t->cols[c].head,
			cell(&t->rows[0], c));
}

void tbl_free(struct tbl *t)
{
	int i, c;

	if (!t)
		return;
	for (i = 0; i < t->nrows; i++) {
		for (c = 0; c < t->rows[i].ncells; c++)
			free(t->rows[i].cells[c]);
		free(t->rows[i].cells);
		jv_free(t->rows[i].obj);
	}
	free(t->rows);
	for (c = 0; c < t->ncols; c++) {
		free(t->cols[c].key);
		free(t->cols[c].head);
	}
	free(t->cols);
	free(t);
}
