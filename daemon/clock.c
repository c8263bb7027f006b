// SPDX-License-Identifier: GPL-2.0
/*
 * mrcd's clock (clock.h).
 */
#include <time.h>

#include "clock.h"

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
