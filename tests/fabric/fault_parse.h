/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains the parsers for fault-injection arguments shared by
 * fabricctl and its unit tests: probabilities, UDP port lists, rates and
 * sizes.
 */
#ifndef MRC_FAULT_PARSE_H
#define MRC_FAULT_PARSE_H

#include <stdint.h>

/*
 * Parse a probability: "0.02", "2%", "1" or "0". Stores it scaled to the
 * u32 the fabric compares a random u32 against (FAB_PROB_ALWAYS for 1).
 * Returns 0 or -EINVAL.
 */
int fault_parse_prob(const char *s, uint32_t *prob);

/* The probability a scaled value stands for, for display. */
double fault_prob_value(uint32_t prob);

/*
 * Parse a list of UDP ports and ranges, "20000-20063,30000", calling
 * fn(port, arg) for each port in order. Returns 0, -EINVAL for bad syntax
 * or a port outside 1..65535, -ERANGE for a reversed range, or the first
 * negative value fn returns.
 */
int fault_parse_ports(const char *s, int (*fn)(uint16_t port, void *arg),
		      void *arg);

/*
 * Parse a rate as tc writes one: a number with bit, kbit, mbit, gbit (SI:
 * 1 kbit = 1000 bit/s) or bps, kbps, mbps, gbps (bytes per second). Stores
 * bytes per second, 1 up to 100 Gbit/s. Returns 0 or -EINVAL.
 */
int fault_parse_rate(const char *s, uint64_t *bytes_per_s);

/*
 * Parse a size in bytes: "65536", "64k", "64kb" (1 k = 1024), "2m".
 * Stores it if it is at most max. Returns 0, -EINVAL or -ERANGE.
 */
int fault_parse_bytes(const char *s, uint64_t max, uint32_t *bytes);

#endif /* MRC_FAULT_PARSE_H */
