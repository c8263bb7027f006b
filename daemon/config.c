// SPDX-License-Identifier: GPL-2.0
/*
 * mrcd's configuration file: a table of keys drives the parser, the
 * whole-file checks and the SIGHUP check of what may change at run time.
 * Nothing here prints, exits or keeps state: errors go to the caller's
 * buffer as "FILE:LINE: reason", as compilers and chronyd write them.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "gray.h"
#include "pin.h"
#include "txthreads.h"
#include "mrc/mrcd_proto.h"

#define MAX_WORDS 8 /* a port line has at most 6: more is an error anyway */
#define DEFAULT_EVS_PER_PORT 16
#define DEFAULT_EV_BASE 49152
#define DEFAULT_MAX_CLIENTS 256

_Static_assert(CONFIG_LINE_MAX < 4096, "a line is parsed on the stack");

enum kind { K_PORT, K_IFNAME, K_PATH, K_PIN_DIR, K_BOOL, K_LOG, K_NUM };

struct key_desc {
	enum kind kind;
	int runtime; /* may change on SIGHUP */
	size_t off; /* of the value in struct mrcd_config */
	uint32_t min, max; /* K_NUM */
	const char *want; /* what the value is, for "needs a value" */
};

#define NUM(k, field, lo, hi, rt)                           \
	[k] = { .kind = K_NUM,                              \
		.runtime = rt,                              \
		.off = offsetof(struct mrcd_config, field), \
		.min = lo,                                  \
		.max = hi,                                  \
		.want = "a number from " #lo " to " #hi }

/* Indexed by enum config_key; the names are in key_names below. */
static const struct key_desc keys[CONFIG_NKEYS] = {
	[CONFIG_PORT] = { .kind = K_PORT, .want = "an interface name" },
	[CONFIG_ANCHOR] = { .kind = K_IFNAME,
			    .off = offsetof(struct mrcd_config, anchor),
			    .want = "an interface name" },
	[CONFIG_SOCKET] = { .kind = K_PATH,
			    .off = offsetof(struct mrcd_config, socket),
			    .want = "an absolute path" },
	[CONFIG_PIN_DIR] = { .kind = K_PIN_DIR,
			     .off = offsetof(struct mrcd_config, pin_dir),
			     .want = "an absolute path or none" },
	[CONFIG_IPV6] = { .kind = K_BOOL,
			  .off = offsetof(struct mrcd_config, ipv6),
			  .want = "yes or no" },
	[CONFIG_LOG_LEVEL] = { .kind = K_LOG,
			       .runtime = 1,
			       .want = "error, warning, info or debug" },
	NUM(CONFIG_PROBE_BACKOFF_MIN_MS, probe_backoff_min_ms, 1, 1000, 1),
	NUM(CONFIG_PROBE_BACKOFF_MAX_MS, probe_backoff_max_ms, 1, 60000, 1),
	NUM(CONFIG_PROBE_ANSWERS, probe_answers, 1, 16, 1),
	NUM(CONFIG_PROBE_TIMEOUT_MS, probe_timeout_ms, 1, 10000, 1),
	NUM(CONFIG_FLAP_HOLD_MIN_MS, flap_hold_min_ms, 1, 60000, 1),
	NUM(CONFIG_FLAP_HOLD_MAX_MS, flap_hold_max_ms, 1, 60000, 1),
	NUM(CONFIG_GRAY_INTERVAL_MS, gray_interval_ms, 10, 60000, 1),
	NUM(CONFIG_GRAY_FACTOR, gray_factor, 2, 100, 1),
	NUM(CONFIG_REORDER_US, reorder_us, 10, 100000, 1),
	NUM(CONFIG_ACK_EVERY, ack_every, 1, MRC_ACK_EVERY_MAX, 1),
	NUM(CONFIG_AUTO_EVS_PER_PORT, auto_evs_per_port, 1, 256, 0),
	NUM(CONFIG_AUTO_EV_BASE, auto_ev_base, 1024, 65279, 0),
	NUM(CONFIG_MAX_CLIENTS, max_clients, 1, 1024, 0),
	NUM(CONFIG_TX_THREADS, tx_threads, 0, TXT_MAX, 0),
	NUM(CONFIG_TX_LANES, tx_lanes, 0, TXT_LANES_MAX, 0),
	[CONFIG_ACK_CLOCK] = { .kind = K_BOOL,
			       .off = offsetof(struct mrcd_config, ack_clock),
			       .want = "yes or no" },
};

/* Kept apart so that the designated table above stays readable. */
static const char *const key_names[CONFIG_NKEYS] = {
	[CONFIG_PORT] = "port",
	[CONFIG_ANCHOR] = "anchor",
	[CONFIG_SOCKET] = "socket",
	[CONFIG_PIN_DIR] = "pin-dir",
	[CONFIG_IPV6] = "ipv6",
	[CONFIG_LOG_LEVEL] = "log-level",
	[CONFIG_PROBE_BACKOFF_MIN_MS] = "probe-backoff-min-ms",
	[CONFIG_PROBE_BACKOFF_MAX_MS] = "probe-backoff-max-ms",
	[CONFIG_PROBE_ANSWERS] = "probe-answers",
	[CONFIG_PROBE_TIMEOUT_MS] = "probe-timeout-ms",
	[CONFIG_FLAP_HOLD_MIN_MS] = "flap-hold-min-ms",
	[CONFIG_FLAP_HOLD_MAX_MS] = "flap-hold-max-ms",
	[CONFIG_GRAY_INTERVAL_MS] = "gray-interval-ms",
	[CONFIG_GRAY_FACTOR] = "gray-factor",
	[CONFIG_REORDER_US] = "reorder-us",
	[CONFIG_ACK_EVERY] = "ack-every",
	[CONFIG_AUTO_EVS_PER_PORT] = "auto-evs-per-port",
	[CONFIG_AUTO_EV_BASE] = "auto-ev-base",
	[CONFIG_MAX_CLIENTS] = "max-clients",
	[CONFIG_TX_THREADS] = "tx-threads",
	[CONFIG_TX_LANES] = "tx-lanes",
	[CONFIG_ACK_CLOCK] = "ack-clock",
};

/* The EV base must leave room for a QP's EVs below 65536. */
_Static_assert(65279 == 65535 - MRC_QP_EVS, "auto-ev-base maximum");
_Static_assert(DEFAULT_EVS_PER_PORT *MRC_MAX_PORTS <= MRC_QP_EVS,
	       "16 EVs on each of the most ports a device has");

static const char *const log_names[] = {
	[CONFIG_LOG_ERROR] = "error",
	[CONFIG_LOG_WARNING] = "warning",
	[CONFIG_LOG_INFO] = "info",
	[CONFIG_LOG_DEBUG] = "debug",
};

const char *config_log_level_name(enum config_log_level l)
{
	return (unsigned int)l < sizeof(log_names) / sizeof(log_names[0]) ?
		       log_names[l] :
		       "?";
}

void config_defaults(struct mrcd_config *c)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->socket, sizeof(c->socket), "%s", MRCD_SOCKET_DEFAULT);
	snprintf(c->pin_dir, sizeof(c->pin_dir), "%s", MRCD_PIN_DIR_DEFAULT);
	c->log_level = CONFIG_LOG_INFO;
	c->probe_backoff_min_ms = HEALTH_BACKOFF_MIN_NS / 1000000;
	c->probe_backoff_max_ms = HEALTH_BACKOFF_MAX_NS / 1000000;
	c->probe_answers = HEALTH_PROBE_OK;
	c->probe_timeout_ms = HEALTH_PROBE_TIMEOUT_NS / 1000000;
	c->flap_hold_min_ms = HEALTH_HOLD_MIN_NS / 1000000;
	c->flap_hold_max_ms = HEALTH_HOLD_MAX_NS / 1000000;
	c->gray_interval_ms = GRAY_INTERVAL_NS / 1000000;
	c->gray_factor = GRAY_FACTOR;
	c->reorder_us = MRC_REORDER_NS_DEFAULT / 1000;
	c->ack_every = MRC_ACK_EVERY_DEFAULT;
	c->auto_evs_per_port = DEFAULT_EVS_PER_PORT;
	c->auto_ev_base = DEFAULT_EV_BASE;
	c->tx_lanes = 1; /* off: docs/mrcd.md, "Transmit lanes" */
	c->ack_clock = 1; /* docs/congestion.md, "ACK clocking" */
	c->max_clients = DEFAULT_MAX_CLIENTS;
}

/* err = "FILE:LINE: reason", or "FILE: reason" for lineno 0; returns -1. */
__attribute__((format(printf, 5, 6))) static int fail(char *err, size_t errlen,
						      const char *file,
						      unsigned int lineno,
						      const char *fmt, ...)
{
	va_list ap;
	int n;

	if (lineno)
		n = snprintf(err, errlen, "%s:%u: ", file, lineno);
	else
		n = snprintf(err, errlen, "%s: ", file);
	if (n >= 0 && (size_t)n < errlen) {
		va_start(ap, fmt);
		vsnprintf(err + n, errlen - n, fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* Levenshtein distance, for names of at most 63 bytes (else a big one). */
static unsigned int distance(const char *a, const char *b)
{
	unsigned int row[64], i, j, diag, up;
	size_t la = strlen(a), lb = strlen(b);

	if (la >= 64 || lb >= 64)
		return 1000;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		diag = row[0];
		row[0] = i;
		for (j = 1; j <= lb; j++) {
			unsigned int best = diag + (a[i - 1] != b[j - 1]);

			up = row[j];
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			diag = up;
			row[j] = best;
		}
	}
	return row[lb];
}

/*
 * What an unknown key was probably meant to be: a command-line habit, a
 * key it is part of ("probe-backof", "ev-base"), or one a typo or two
 * away. NULL when nothing is close.
 */
static const char *suggest(const char *word)
{
	static const struct {
		const char *from, *to;
	} habits[] = {
		{ "no-pin", "pin-dir none" },
		{ "verbose", "log-level debug" },
		{ "pin", "pin-dir" },
	};
	unsigned int i, d, best = 1000, bi = 0;

	for (i = 0; i < sizeof(habits) / sizeof(habits[0]); i++)
		if (!strcmp(word, habits[i].from))
			return habits[i].to;
	if (strlen(word) >= 3)
		for (i = 0; i < CONFIG_NKEYS; i++)
			if (strstr(key_names[i], word))
				return key_names[i];
	for (i = 0; i < CONFIG_NKEYS; i++) {
		d = distance(word, key_names[i]);
		if (d < best) {
			best = d;
			bi = i;
		}
	}
	if (best <= 2 || best * 4 <= strlen(key_names[bi]))
		return key_names[bi];
	return NULL;
}

/* A decimal number, no sign; 0, or -1 if s is no number, -2 if too big. */
static int parse_u32(const char *s, uint32_t *v)
{
	uint64_t n = 0;
	int big = 0;

	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		n = n * 10 + (*s - '0');
		if (n > UINT32_MAX) {
			big = 1;
			n = UINT32_MAX;
		}
	}
	*v = n;
	return big ? -2 : 0;
}

/* Why name cannot be an interface name, or NULL if it can. */
static const char *bad_ifname(const char *name)
{
	if (!strcmp(name, ".") || !strcmp(name, "..") || strpbrk(name, "/:,="))
		return "not an interface name";
	if (strlen(name) > 15)
		return "interface name longer than 15 bytes";
	return NULL;
}

/*
 * port IFNAME [mac MAC] [plane PREFIX/LEN]: the spec that -p
 * IFNAME,mac=MAC,plane=PREFIX/LEN gives, made by port_spec_parse itself
 * (one attribute at a time, so each error names its word). No word can
 * hold a ',', so none can smuggle in an attribute of its own.
 */
static int parse_port(struct mrcd_config *c, const char *file,
		      unsigned int lineno, char **w, int nw, char *err,
		      size_t errlen)
{
	const char *ifname = w[1], *mac = NULL, *plane = NULL, *why;
	char spec[300], perr[128];
	struct port_spec p;
	int i;

	why = bad_ifname(ifname);
	if (why)
		return fail(err, errlen, file, lineno, "port '%s': %s", ifname,
			    why);
	for (i = 0; i < c->nports; i++)
		if (!strcmp(c->port[i].ifname, ifname))
			return fail(err, errlen, file, lineno,
				    "port %s already given on line %u", ifname,
				    c->port_line[i]);
	if (c->nports == MRC_MAX_PORTS)
		return fail(err, errlen, file, lineno,
			    "port %s: too many ports (at most %d)", ifname,
			    MRC_MAX_PORTS);
	for (i = 2; i < nw; i += 2) {
		const char **val;

		if (!strcmp(w[i], "mac"))
			val = &mac;
		else if (!strcmp(w[i], "plane"))
			val = &plane;
		else
			return fail(
				err, errlen, file, lineno,
				"port %s: unexpected '%s' (want mac MAC or plane PREFIX/LEN)",
				ifname, w[i]);
		if (*val)
			return fail(err, errlen, file, lineno,
				    "port %s: %s given twice", ifname, w[i]);
		if (i + 1 == nw)
			return fail(
				err, errlen, file, lineno,
				"port %s: %s needs a value (%s)", ifname, w[i],
				val == &mac ? "a MAC address" : "PREFIX/LEN");
		*val = w[i + 1];
		if (snprintf(spec, sizeof(spec), "%s,%s=%s", ifname, w[i],
			     *val) >= (int)sizeof(spec) ||
		    strchr(*val, ',') ||
		    port_spec_parse(spec, &p, perr, sizeof(perr)))
			return fail(
				err, errlen, file, lineno,
				val == &mac ?
					"port %s: bad MAC address '%s'" :
					"port %s: bad plane prefix '%s' (want ADDRESS/LEN)",
				ifname, *val);
	}
	/* Too long for the buffer is too long for port_spec_parse too. */
	if (snprintf(spec, sizeof(spec), "%s%s%s%s%s", ifname,
		     mac ? ",mac=" : "", mac ? mac : "", plane ? ",plane=" : "",
		     plane ? plane : "") >= (int)sizeof(spec) ||
	    port_spec_parse(spec, &c->port[c->nports], perr, sizeof(perr)))
		return fail(err, errlen, file, lineno, "port %s: too long",
			    ifname);
	c->port_line[c->nports++] = lineno;
	if (!c->line[CONFIG_PORT])
		c->line[CONFIG_PORT] = lineno;
	return 0;
}

/* Whatever the key, one value. */
static int parse_value(struct mrcd_config *c, enum config_key k,
		       const char *file, unsigned int lineno, const char *v,
		       char *err, size_t errlen)
{
	const struct key_desc *d = &keys[k];
	const char *name = key_names[k], *why;
	char *field = (char *)c + d->off;
	uint32_t n;
	int i, r;

	switch (d->kind) {
	case K_IFNAME:
		why = bad_ifname(v);
		if (why)
			return fail(err, errlen, file, lineno, "%s '%s': %s",
				    name, v, why);
		strcpy(field, v);
		return 0;
	case K_PIN_DIR:
		if (!strcmp(v, "none")) {
			*field = 0;
			return 0;
		}
		/* fall through */
	case K_PATH:
		if (v[0] != '/')
			return fail(err, errlen, file, lineno,
				    "%s '%s': not an absolute path", name, v);
		if (strlen(v) >= (k == CONFIG_SOCKET ? sizeof(c->socket) :
						       sizeof(c->pin_dir)))
			return fail(err, errlen, file, lineno,
				    "%s path longer than %zu bytes", name,
				    (k == CONFIG_SOCKET ? sizeof(c->socket) :
							  sizeof(c->pin_dir)) -
					    1);
		strcpy(field, v);
		return 0;
	case K_BOOL:
		if (strcmp(v, "yes") && strcmp(v, "no"))
			return fail(err, errlen, file, lineno,
				    "%s '%s': must be yes or no", name, v);
		*(int *)field = !strcmp(v, "yes");
		return 0;
	case K_LOG:
		for (i = 0; i < (int)(sizeof(log_names) / sizeof(log_names[0]));
		     i++)
			if (!strcmp(v, log_names[i])) {
				c->log_level = i;
				return 0;
			}
		return fail(err, errlen, file, lineno, "%s '%s': must be %s",
			    name, v, d->want);
	case K_NUM:
		r = parse_u32(v, &n);
		if (r == -1)
			return fail(err, errlen, file, lineno,
				    "%s: '%s' is not a number", name, v);
		if (r || n < d->min || n > d->max)
			return fail(err, errlen, file, lineno,
				    "%s %s: must be %u to %u", name, v, d->min,
				    d->max);
		*(uint32_t *)field = n;
		return 0;
	case K_PORT:
		break;
	}
	return fail(err, errlen, file, lineno, "%s: internal error", name);
}

int config_parse_line(struct mrcd_config *c, const char *file,
		      unsigned int lineno, const char *line, char *err,
		      size_t errlen)
{
	char buf[CONFIG_LINE_MAX + 1], *w[MAX_WORDS], *p;
	const char *hint;
	size_t len = strlen(line);
	int nw = 0, k;

	if (len > CONFIG_LINE_MAX)
		return fail(err, errlen, file, lineno,
			    "line longer than %d bytes", CONFIG_LINE_MAX);
	memcpy(buf, line, len + 1);
	/* Words; a '#' that begins a word begins the comment. */
	for (p = buf; nw < MAX_WORDS;) {
		while (isspace((unsigned char)*p))
			p++;
		if (!*p || *p == '#')
			break;
		w[nw++] = p;
		while (*p && !isspace((unsigned char)*p))
			p++;
		if (*p)
			*p++ = 0;
	}
	if (!nw)
		return 0;
	for (k = 0; k < CONFIG_NKEYS && strcmp(w[0], key_names[k]); k++)
		;
	if (k == CONFIG_NKEYS) {
		hint = suggest(w[0]);
		if (hint)
			return fail(err, errlen, file, lineno,
				    "unknown key '%s'; did you mean '%s'?",
				    w[0], hint);
		return fail(err, errlen, file, lineno, "unknown key '%s'",
			    w[0]);
	}
	if (k != CONFIG_PORT && c->line[k])
		return fail(err, errlen, file, lineno,
			    "%s already given on line %u", w[0], c->line[k]);
	if (nw < 2)
		return fail(err, errlen, file, lineno, "%s needs a value: %s",
			    w[0], keys[k].want);
	if (k == CONFIG_PORT)
		return parse_port(c, file, lineno, w, nw, err, errlen);
	if (nw > 2)
		return fail(err, errlen, file, lineno,
			    "%s %s: unexpected '%s' after the value", w[0],
			    w[1], w[2]);
	if (parse_value(c, k, file, lineno, w[1], err, errlen))
		return -1;
	c->line[k] = lineno ? lineno : 1;
	return 0;
}

/* min <= max, naming max's line if it was given, else min's. */
static int check_order(const struct mrcd_config *c, enum config_key kmin,
		       enum config_key kmax, char *err, size_t errlen)
{
	uint32_t lo = *(const uint32_t *)((const char *)c + keys[kmin].off);
	uint32_t hi = *(const uint32_t *)((const char *)c + keys[kmax].off);

	if (lo <= hi)
		return 0;
	if (c->line[kmax])
		return fail(err, errlen, c->file, c->line[kmax],
			    "%s %u is below %s %u", key_names[kmax], hi,
			    key_names[kmin], lo);
	return fail(err, errlen, c->file, c->line[kmin],
		    "%s %u is above %s %u (its default)", key_names[kmin], lo,
		    key_names[kmax], hi);
}

int config_finish(struct mrcd_config *c, char *err, size_t errlen)
{
	char addr[INET6_ADDRSTRLEN];
	int i;

	if (!c->nports)
		return fail(err, errlen, c->file, 0, "no port given");
	if (!c->anchor[0])
		return fail(err, errlen, c->file, 0, "no anchor given");
	for (i = 0; i < c->nports; i++) {
		const struct port_spec *p = &c->port[i];

		if (!strcmp(p->ifname, c->anchor))
			return fail(
				err, errlen, c->file, c->line[CONFIG_ANCHOR],
				"anchor %s is also a port (line %u); the anchor must be an idle interface",
				c->anchor, c->port_line[i]);
		if (p->prefix_len >= 0 && p->v6 != c->ipv6) {
			inet_ntop(p->v6 ? AF_INET6 : AF_INET, p->prefix, addr,
				  sizeof(addr));
			return fail(
				err, errlen, c->file, c->port_line[i],
				"port %s: plane %s/%d is IPv%d, but ipv6 is %s",
				p->ifname, addr, p->prefix_len, p->v6 ? 6 : 4,
				c->ipv6 ? "yes" : "no");
		}
	}
	if (check_order(c, CONFIG_PROBE_BACKOFF_MIN_MS,
			CONFIG_PROBE_BACKOFF_MAX_MS, err, errlen) ||
	    check_order(c, CONFIG_FLAP_HOLD_MIN_MS, CONFIG_FLAP_HOLD_MAX_MS,
			err, errlen))
		return -1;
	/* The default fits the most ports (static assert above). */
	if (c->nports * c->auto_evs_per_port > MRC_QP_EVS)
		return fail(
			err, errlen, c->file, c->line[CONFIG_AUTO_EVS_PER_PORT],
			"auto-evs-per-port %u with %d ports is %u EVs; a QP has at most %d",
			c->auto_evs_per_port, c->nports,
			c->nports * c->auto_evs_per_port, MRC_QP_EVS);
	return 0;
}

/*
 * One line into buf (without its newline): its length, -1 at the end of
 * the file, -2 for a read error (errno set), -3 for a line too long and
 * -4 for a NUL byte. The rest of a bad line is not read: it is an error.
 */
static int read_line(FILE *f, char *buf)
{
	int ch, n = 0;

	while ((ch = getc(f)) != EOF && ch != '\n') {
		if (n == CONFIG_LINE_MAX)
			return -3;
		if (!ch)
			return -4;
		buf[n++] = ch;
	}
	buf[n] = 0;
	if (ch == EOF && ferror(f))
		return -2;
	if (ch == EOF && !n)
		return -1;
	return n;
}

int config_load(const char *path, struct mrcd_config *c, char *err,
		size_t errlen)
{
	static const char *const why[] = { "", "", "",
					   "line longer than 1023 bytes",
					   "NUL byte in line" };
	char buf[CONFIG_LINE_MAX + 1];
	struct mrcd_config t;
	unsigned int lineno = 0;
	int n, rc = 0;
	FILE *f;

	_Static_assert(CONFIG_LINE_MAX == 1023, "the message above");
	config_defaults(&t);
	snprintf(t.file, sizeof(t.file), "%s", path);
	f = fopen(path, "re");
	if (!f)
		return fail(err, errlen, path, 0, "%s", strerror(errno));
	while (!rc && (n = read_line(f, buf)) != -1) {
		lineno++;
		if (n == -2)
			rc = fail(err, errlen, path, 0, "%s", strerror(errno));
		else if (n < 0)
			rc = fail(err, errlen, path, lineno, "%s", why[-n]);
		else
			rc = config_parse_line(&t, path, lineno, buf, err,
					       errlen);
	}
	fclose(f);
	if (rc || config_finish(&t, err, errlen))
		return -1;
	*c = t;
	return 0;
}

static int same_port(const struct port_spec *a, const struct port_spec *b)
{
	return !strcmp(a->ifname, b->ifname) && a->has_mac == b->has_mac &&
	       (!a->has_mac || !memcmp(a->mac, b->mac, sizeof(a->mac))) &&
	       a->prefix_len == b->prefix_len &&
	       (a->prefix_len < 0 ||
		(a->v6 == b->v6 &&
		 !memcmp(a->prefix, b->prefix, sizeof(a->prefix))));
}

/* Whether key k differs; *line: where new gives it (0: not at all). */
static int changed(const struct mrcd_config *old, const struct mrcd_config *new,
		   enum config_key k, unsigned int *line)
{
	const char *a = (const char *)old + keys[k].off;
	const char *b = (const char *)new + keys[k].off;
	int i;

	*line = new->line[k];
	switch (keys[k].kind) {
	case K_PORT:
		for (i = 0; i < old->nports && i < new->nports; i++)
			if (!same_port(&old->port[i], &new->port[i])) {
				*line = new->port_line[i];
				return 1;
			}
		if (new->nports > old->nports)
			*line = new->port_line[old->nports];
		else
			*line = 0; /* a port is gone */
		return old->nports != new->nports;
	case K_IFNAME:
	case K_PATH:
	case K_PIN_DIR:
		return strcmp(a, b) != 0;
	case K_BOOL:
		return *(const int *)a != *(const int *)b;
	case K_LOG:
		return old->log_level != new->log_level;
	case K_NUM:
		return *(const uint32_t *)a != *(const uint32_t *)b;
	}
	return 1;
}

int config_reload_check(const struct mrcd_config *old,
			const struct mrcd_config *new, char *err, size_t errlen)
{
	unsigned int line, first_line = 0;
	int k, first = -1;

	/* The first in the new file; a key no longer given comes last. */
	for (k = 0; k < CONFIG_NKEYS; k++) {
		if (keys[k].runtime || !changed(old, new, k, &line))
			continue;
		if (first < 0 || (line && (!first_line || line < first_line))) {
			first = k;
			first_line = line;
		}
	}
	if (first < 0)
		return 0;
	return fail(err, errlen, new->file, first_line,
		    "'%s' cannot change at run time; restart mrcd",
		    key_names[first]);
}
