/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the packet fuzzers' models share (fuzz_rx.c, fuzz_ack.c): a seeded
 * generator, big-endian field access, and the checksums and PSN arithmetic
 * of docs/wire.md written here, not taken from the code under test.
 */
#ifndef MRC_FUZZ_MODEL_H
#define MRC_FUZZ_MODEL_H

#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

/*
 * One CPU, the one it starts on (run.sh gives each fuzzer its own): the
 * per-CPU scratch and counters stay put. Needs _GNU_SOURCE.
 */
static inline void pin_to_this_cpu(void)
{
	int cpu = sched_getcpu();
	cpu_set_t one_cpu;

	CPU_ZERO(&one_cpu);
	CPU_SET(cpu < 0 ? 0 : cpu, &one_cpu);
	sched_setaffinity(0, sizeof(one_cpu), &one_cpu);
}

/* --- a seeded generator (xorshift64*) ---------------------------------------- */

static uint64_t rng_state;

static inline uint64_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

static inline uint32_t below(uint32_t n)
{
	return n ? (uint32_t)(rnd() % n) : 0;
}

static inline int chance(unsigned int pct)
{
	return below(100) < pct;
}

/* --- checksums (RFC 1071), the model's own ----------------------------------- */

static inline uint32_t sum16(const uint8_t *p, size_t n, uint32_t s)
{
	size_t i;

	for (i = 0; i + 1 < n; i += 2)
		s += (uint32_t)p[i] << 8 | p[i + 1];
	if (n & 1)
		s += (uint32_t)p[n - 1] << 8;
	return s;
}

static inline uint16_t fold(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

/* The UDP pseudo-header and datagram folded: 0xffff when it checks. */
static inline uint16_t udp_sum(const uint8_t *f, size_t l3, int v6, size_t udp,
			       uint32_t udp_len)
{
	uint32_t s = 0;

	if (v6)
		s = sum16(f + l3 + 8, 32, s);
	else
		s = sum16(f + l3 + 12, 8, s);
	s += 17 + udp_len;
	return fold(sum16(f + udp, udp_len, s));
}

static inline void set_udp_csum(uint8_t *f, size_t l3, int v6, size_t udp,
				uint32_t udp_len)
{
	uint16_t c;

	f[udp + 6] = f[udp + 7] = 0;
	c = (uint16_t)~udp_sum(f, l3, v6, udp, udp_len);
	if (!c)
		c = 0xffff;
	f[udp + 6] = c >> 8;
	f[udp + 7] = c & 0xff;
}

static inline void set_ip_csum(uint8_t *f, size_t l3)
{
	uint16_t c;

	f[l3 + 10] = f[l3 + 11] = 0;
	c = (uint16_t)~fold(sum16(f + l3, 20, 0));
	f[l3 + 10] = c >> 8;
	f[l3 + 11] = c & 0xff;
}

static inline uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static inline void put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v & 0xff;
}

static inline void put32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = (v >> 16) & 0xff;
	p[2] = (v >> 8) & 0xff;
	p[3] = v & 0xff;
}

/* 24-bit PSN arithmetic (wire.md): a - b in -2^23 .. 2^23 - 1. */
static inline int psn_diff(uint32_t a, uint32_t b)
{
	return (int)((a - b) << 8) >> 8;
}

/* --- the run's clock ------------------------------------------------------------ */

static inline double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

#endif /* MRC_FUZZ_MODEL_H */
