// SPDX-License-Identifier: GPL-2.0
/*
 * How long this machine stops a CPU by itself: pauses SECONDS spins one
 * thread pinned to each CPU, reading CLOCK_MONOTONIC in a loop, and counts
 * the gaps between two reads. With nothing else to run, a gap is time the
 * CPU did not give the thread: an interrupt, or in a virtual machine the
 * hypervisor running something else on that CPU (the guest cannot see
 * that; docs/perf.md, "The longest stretch without a completion"). The
 * data path of one QP runs on one CPU, so such a pause is a stretch
 * without a completion no transport on this machine can avoid.
 *
 * Prints one JSON object: per CPU, the longest gap, the gaps over 0.1,
 * 0.5, 1 and 2 ms, and the time lost to gaps over 0.1 ms.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_CPUS 256

static const uint64_t edge_ns[] = { 100000, 500000, 1000000, 2000000 };
#define EDGES (sizeof(edge_ns) / sizeof(edge_ns[0]))

struct spinner {
	pthread_t id;
	int cpu;
	uint64_t run_ns;
	int err;
	/* out */
	uint64_t longest_ns, lost_ns, over[EDGES];
};

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static void *spin(void *arg)
{
	struct spinner *s = arg;
	uint64_t prev, end, now, gap;
	cpu_set_t one;
	size_t i;

	CPU_ZERO(&one);
	CPU_SET(s->cpu, &one);
	s->err = pthread_setaffinity_np(pthread_self(), sizeof(one), &one);
	if (s->err)
		return NULL;
	prev = now_ns();
	end = prev + s->run_ns;
	do {
		now = now_ns();
		gap = now - prev;
		prev = now;
		if (gap > s->longest_ns)
			s->longest_ns = gap;
		if (gap <= edge_ns[0])
			continue;
		s->lost_ns += gap;
		for (i = 0; i < EDGES; i++)
			s->over[i] += gap > edge_ns[i];
	} while (now < end);
	return NULL;
}

int main(int argc, char **argv)
{
	static struct spinner sp[MAX_CPUS];
	double secs = argc > 1 ? strtod(argv[1], NULL) : 0;
	cpu_set_t set;
	int n = 0, cpu, i, err;

	if (argc != 2 || !(secs > 0 && secs <= 600)) {
		fprintf(stderr, "usage: pauses SECONDS (0 < SECONDS <= 600)\n");
		return 2;
	}
	if (sched_getaffinity(0, sizeof(set), &set)) {
		perror("pauses: sched_getaffinity");
		return 1;
	}
	for (cpu = 0; cpu < CPU_SETSIZE && n < MAX_CPUS; cpu++) {
		if (!CPU_ISSET(cpu, &set))
			continue;
		sp[n].cpu = cpu;
		sp[n].run_ns = (uint64_t)(secs * 1e9);
		err = pthread_create(&sp[n].id, NULL, spin, &sp[n]);
		if (err) {
			fprintf(stderr, "pauses: thread for CPU %d: %s\n", cpu,
				strerror(err));
			return 1;
		}
		n++;
	}
	for (i = 0; i < n; i++)
		pthread_join(sp[i].id, NULL);
	printf("{\"seconds\": %.3f, \"cpus\": [", secs);
	for (i = 0; i < n; i++) {
		if (sp[i].err) {
			fprintf(stderr, "pauses: pinning to CPU %d: %s\n",
				sp[i].cpu, strerror(sp[i].err));
			return 1;
		}
		printf("%s{\"cpu\": %d, \"longest_ms\": %.3f, "
		       "\"over_0_1_ms\": %llu, \"over_0_5_ms\": %llu, "
		       "\"over_1_ms\": %llu, \"over_2_ms\": %llu, "
		       "\"lost_ms\": %.3f}",
		       i ? ", " : "", sp[i].cpu, (double)sp[i].longest_ns / 1e6,
		       (unsigned long long)sp[i].over[0],
		       (unsigned long long)sp[i].over[1],
		       (unsigned long long)sp[i].over[2],
		       (unsigned long long)sp[i].over[3],
		       (double)sp[i].lost_ns / 1e6);
	}
	printf("]}\n");
	return 0;
}
