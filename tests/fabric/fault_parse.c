// SPDX-License-Identifier: GPL-2.0
/*
 * Parsers for fabricctl's fault arguments, kept apart from the tool so the
 * unit tests reach them without BPF or root.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fabric_abi.h"
#include "fault_parse.h"

int fault_parse_prob(const char *s, uint32_t *prob)
{
	char *end;
	double p;

	if (!s || !*s)
		return -EINVAL;
	errno = 0;
	p = strtod(s, &end);
	if (errno || end == s)
		return -EINVAL;
	if (*end == '%') {
		p /= 100.0;
		end++;
	}
	if (*end || isnan(p) || p < 0.0 || p > 1.0)
		return -EINVAL;
	if (p >= 1.0)
		*prob = FAB_PROB_ALWAYS;
	else
		*prob = (uint32_t)(p * 4294967296.0);
	return 0;
}

double fault_prob_value(uint32_t prob)
{
	if (prob == FAB_PROB_ALWAYS)
		return 1.0;
	return prob / 4294967296.0;
}

static int parse_port(const char *s, char **end, unsigned long *port)
{
	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	*port = strtoul(s, end, 10);
	if (errno || *port < 1 || *port > 65535)
		return -EINVAL;
	return 0;
}

int fault_parse_ports(const char *s, int (*fn)(uint16_t port, void *arg),
		      void *arg)
{
	unsigned long lo, hi, p;
	char *end;
	int err;

	if (!s || !*s)
		return -EINVAL;
	for (;;) {
		err = parse_port(s, &end, &lo);
		if (err)
			return err;
		hi = lo;
		if (*end == '-') {
			err = parse_port(end + 1, &end, &hi);
			if (err)
				return err;
			if (hi < lo)
				return -ERANGE;
		}
		if (*end != ',' && *end)
			return -EINVAL;
		for (p = lo; p <= hi; p++) {
			err = fn((uint16_t)p, arg);
			if (err < 0)
				return err;
		}
		if (!*end)
			return 0;
		s = end + 1;
	}
}

int fault_parse_rate(const char *s, uint64_t *bytes_per_s)
{
	static const struct {
		const char *unit;
		double bytes; /* per second, of one unit */
	} units[] = {
		{ "bit", 1 / 8.0 },  { "kbit", 1e3 / 8 }, { "mbit", 1e6 / 8 },
		{ "gbit", 1e9 / 8 }, { "bps", 1 },	  { "kbps", 1e3 },
		{ "mbps", 1e6 },     { "gbps", 1e9 },
	};
	size_t i;
	char *end;
	double v;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || isnan(v))
		return -EINVAL;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcasecmp(end, units[i].unit))
			continue;
		v *= units[i].bytes;
		/* 100 Gbit/s at most: far beyond a veth (queue.h). */
		if (v < 1 || v > 12.5e9)
			return -EINVAL;
		*bytes_per_s = (uint64_t)v;
		return 0;
	}
	return -EINVAL;
}

int fault_parse_bytes(const char *s, uint64_t max, uint32_t *bytes)
{
	unsigned long long v;
	uint64_t mul = 1;
	char *end;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -ERANGE;
	if (*end == 'k' || *end == 'K')
		mul = 1024;
	else if (*end == 'm' || *end == 'M')
		mul = 1024 * 1024;
	if (mul > 1)
		end++;
	if (*end == 'b' || *end == 'B')
		end++;
	if (*end)
		return -EINVAL;
	if (v > max / mul)
		return -ERANGE;
	*bytes = (uint32_t)(v * mul);
	return 0;
}
