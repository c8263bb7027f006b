// SPDX-License-Identifier: GPL-2.0
/*
 * The data pattern of --verify (pattern.h).
 */
#define _GNU_SOURCE
#include <endian.h>
#include <string.h>

#include "pattern.h"

/*
 * With --verify every byte the client writes is a function of its offset in
 * the server's region and of the pass (one per row), so the server can check
 * its whole region at the end without knowing which WRITE carried what.
 */
static uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static uint64_t pattern_word(uint64_t word_idx, uint64_t pass)
{
	return htole64(mix64(word_idx ^ (pass << 48)));
}

void pattern_fill(uint8_t *buf, uint64_t off, uint64_t len, uint64_t pass)
{
	uint64_t o, end = off + len;

	for (o = off; o < end;) {
		uint64_t w = pattern_word(o >> 3, pass);
		unsigned int b = o & 7, n = 8 - b;

		if (n > end - o)
			n = end - o;
		memcpy(buf + o, (uint8_t *)&w + b, n);
		o += n;
	}
}

uint64_t pattern_bad_bytes(const uint8_t *buf, uint64_t off, uint64_t len,
			   uint64_t pass)
{
	uint64_t o, end = off + len, bad = 0;

	for (o = off; o < end;) {
		uint64_t w = pattern_word(o >> 3, pass);
		unsigned int b = o & 7, n = 8 - b, i;

		if (n > end - o)
			n = end - o;
		if (memcmp(buf + o, (uint8_t *)&w + b, n))
			for (i = 0; i < n; i++)
				bad += buf[o + i] != ((uint8_t *)&w)[b + i];
		o += n;
	}
	return bad;
}
