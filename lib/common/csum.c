// SPDX-License-Identifier: GPL-2.0
/*
 * Internet checksum, RFC 1071: a 64-bit accumulator never overflows for
 * any buffer we handle (2^48 bytes), so the carry folds once at the end.
 */
#include "csum.h"

uint64_t mrc_csum_add(uint64_t sum, const void *buf, size_t len)
{
	const uint8_t *b = buf;
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)b[i] << 8 | b[i + 1];
	if (len & 1)
		sum += (uint32_t)b[len - 1] << 8;
	return sum;
}

uint16_t mrc_csum_fold(uint64_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

uint16_t mrc_csum(const void *buf, size_t len)
{
	return mrc_csum_fold(mrc_csum_add(0, buf, len));
}
