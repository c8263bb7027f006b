// SPDX-License-Identifier: GPL-2.0
/*
 * mrc-perf's small helpers: clocks, this process's CPU time and memory,
 * a random PSN and error messages.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "perf.h"

void pr_err(const char *fmt, ...)
{
	va_list ap;

	fputs("mrc-perf: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

/* User plus system CPU time of this process. */
uint64_t cpu_ns(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		return 0;
	return (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) *
		       NSEC_PER_SEC +
	       (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000;
}

/* VmRSS of this process, or 0 when /proc says nothing. */
uint64_t rss_bytes(void)
{
	unsigned long long kib = 0;
	char line[256];
	FILE *f;

	f = fopen("/proc/self/status", "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %llu kB", &kib) == 1)
			break;
	fclose(f);
	return kib * 1024;
}

uint32_t random_psn(void)
{
	uint32_t v = 0;

	if (getrandom(&v, sizeof(v), 0) != sizeof(v))
		v = (uint32_t)now_ns() ^ (uint32_t)getpid();
	return v & 0xffffff;
}
