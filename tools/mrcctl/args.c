// SPDX-License-Identifier: GPL-2.0
/*
 * mrcctl's argument cursor: words matched exactly or by a unique prefix,
 * numbers (decimal, or hexadecimal after 0x) checked to their end and
 * range, and addresses. Every error names the word that is wrong.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mrcctl.h"

/* "a, b, c": the candidates, for an error message. */
static char *word_list(const char *const *words, int n, const char *word,
		       int prefixed)
{
	size_t len = 1;
	char *s;
	int i, first = 1;

	for (i = 0; i < n; i++)
		len += strlen(words[i]) + 2;
	s = xmalloc(len);
	*s = '\0';
	for (i = 0; i < n; i++) {
		if (prefixed && strncmp(words[i], word, strlen(word)))
			continue;
		if (!first)
			strcat(s, ", ");
		strcat(s, words[i]);
		first = 0;
	}
	return s;
}

int find_word(const char *word, const char *const *words, int n)
{
	size_t len = strlen(word);
	int i, hit = -1;

	for (i = 0; i < n; i++)
		if (!strcmp(word, words[i]))
			return i;
	for (i = 0; len && i < n; i++)
		if (!strncmp(word, words[i], len))
			hit = hit == -1 ? i : -2;
	return hit;
}

int match_word(const char *word, const char *const *words, int n,
	       const char *what, const char *of, int *idx)
{
	int hit = find_word(word, words, n), rc;
	char *list;

	if (hit >= 0) {
		*idx = hit;
		return 0;
	}
	if (hit == -2) {
		list = word_list(words, n, word, 1);
		rc = err_usage("ambiguous %s '%s'%s%s%s (could be: %s)", what,
			       word, of ? " for '" : "", of ? of : "",
			       of ? "'" : "", list);
	} else {
		list = word_list(words, n, word, 0);
		rc = err_usage("unknown %s '%s'%s%s%s (want: %s)", what, word,
			       of ? " for '" : "", of ? of : "", of ? "'" : "",
			       list);
	}
	free(list);
	return rc;
}

int arg_keyword(struct args *a, const char *const *kws, int n, int *idx)
{
	return match_word(a->argv[a->i++], kws, n, "keyword", a->cmd, idx);
}

int arg_once(unsigned int *seen, int idx, const char *const *kws)
{
	if (*seen & 1u << idx)
		return err_usage("'%s' given twice", kws[idx]);
	*seen |= 1u << idx;
	return 0;
}

/* Capitals name a positional argument (ID), the rest a keyword. */
static int positional(const char *key)
{
	return *key >= 'A' && *key <= 'Z';
}

static int missing(const struct args *a, const char *key)
{
	if (positional(key))
		return err_usage("missing %s for '%s'", key, a->cmd);
	return err_usage("missing value for '%s'", key);
}

int parse_u64(const char *s, uint64_t *v)
{
	int base = 10;
	char *end;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	/* strtoull would take spaces, a sign and, for base 16, "0x" again. */
	if (!(base == 16 ? isxdigit((unsigned char)*s) :
			   isdigit((unsigned char)*s)))
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, &end, base);
	if (*end)
		return -EINVAL;
	return errno == ERANGE ? -ERANGE : 0;
}

int arg_u64(struct args *a, const char *key, uint64_t min, uint64_t max,
	    uint64_t *v)
{
	const char *w;
	int err;

	if (!args_left(a))
		return missing(a, key);
	w = a->argv[a->i++];
	err = parse_u64(w, v);
	if (err == -EINVAL)
		return err_usage("bad number '%s' for %s%s%s", w,
				 positional(key) ? "" : "'", key,
				 positional(key) ? "" : "'");
	if (err || *v < min || *v > max)
		return err_usage("value '%s' for %s%s%s out of range (%" PRIu64
				 "..%" PRIu64 ")",
				 w, positional(key) ? "" : "'", key,
				 positional(key) ? "" : "'", min, max);
	return 0;
}

int arg_u32(struct args *a, const char *key, uint32_t min, uint32_t max,
	    uint32_t *v)
{
	uint64_t v64;
	int rc = arg_u64(a, key, min, max, &v64);

	if (!rc)
		*v = (uint32_t)v64;
	return rc;
}

int arg_port(struct args *a, const char *key, uint8_t *port)
{
	uint64_t v;
	int rc = arg_u64(a, key, 1, UINT8_MAX, &v);

	if (!rc)
		*port = (uint8_t)v;
	return rc;
}

int arg_float(struct args *a, const char *key, float *v)
{
	const char *w;
	char *end;

	if (!args_left(a))
		return missing(a, key);
	w = a->argv[a->i++];
	errno = 0;
	*v = strtof(w, &end);
	if (!*w || *end || errno || !isfinite(*v) || *v < 0)
		return err_usage("bad number '%s' for '%s' (want a decimal"
				 " fraction >= 0)",
				 w, key);
	return 0;
}

int arg_choice(struct args *a, const char *key, const char *const *words, int n,
	       int *idx)
{
	char *list;
	int rc;

	if (!args_left(a)) {
		list = word_list(words, n, "", 0);
		rc = err_usage("missing value for '%s' (want: %s)", key, list);
		free(list);
		return rc;
	}
	return match_word(a->argv[a->i++], words, n, key, NULL, idx);
}

int arg_gid(struct args *a, const char *key, union ibv_gid *gid)
{
	struct in_addr v4;
	const char *w;

	if (!args_left(a))
		return missing(a, key);
	w = a->argv[a->i++];
	memset(gid, 0, sizeof(*gid));
	if (inet_pton(AF_INET, w, &v4) == 1) {
		/* RoCEv2: an IPv4 address as ::ffff:a.b.c.d */
		gid->raw[10] = 0xff;
		gid->raw[11] = 0xff;
		memcpy(&gid->raw[12], &v4, 4);
		return 0;
	}
	if (inet_pton(AF_INET6, w, gid->raw) == 1)
		return 0;
	return err_usage("bad address '%s' for '%s' (want IPv4 or IPv6)", w,
			 key);
}

int arg_end(const struct args *a)
{
	if (args_left(a))
		return err_usage("unexpected '%s' for '%s'", a->argv[a->i],
				 a->cmd);
	return 0;
}

int arg_required(const struct args *a, const char *key)
{
	return err_usage("'%s' needs '%s'", a->cmd, key);
}

int arg_ev(struct args *a, const char *key, struct mrc_ctl_ev *ev)
{
	const char *w;
	uint32_t val;
	uint8_t port;
	int rc;

	rc = arg_u32(a, key, 0, UINT32_MAX, &val);
	if (rc)
		return rc;
	w = args_left(a) ? a->argv[a->i] : "";
	if (!*w || strncmp(w, "port", strlen(w)))
		return err_usage("'%s %s' needs 'port P' after it%s%s%s", key,
				 a->argv[a->i - 1], *w ? ", not '" : "", w,
				 *w ? "'" : "");
	a->i++;
	rc = arg_port(a, "port", &port);
	if (!rc)
		ev_set(ev, val, port);
	return rc;
}
