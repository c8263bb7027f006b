// SPDX-License-Identifier: GPL-2.0
/*
 * mrc-perf's failover timeline (timeline.h). Every time here is
 * CLOCK_MONOTONIC, the clock the data path stamps EV events with, so the
 * events, the completions and the commands line up to the microsecond.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mrc_ext.h"
#include "mrc/ev_names.h"
#include "timeline.h"

extern char **environ;

#define TL_STEP_NS 1000000ull /* a sample each millisecond */
#define TL_WINDOW_NS 2000000ull /* goodput window for the 90 % time */

struct tl_sample {
	uint64_t t_ns, bytes, retx, lost;
	uint32_t in_use;
};

struct tl_event {
	uint64_t ts_ns;
	uint8_t ev, state, old, reason;
};

/*
 * A command runs from a thread of its own, which spawns it and waits for
 * it: posix_spawn suspends the thread that calls it until the child has
 * exec'd (1-2 ms of /bin/sh on a busy machine), and the thread that polls
 * the completions must not stop, or the command itself makes the gap the
 * timeline measures.
 */
struct tl_at {
	uint64_t at_ms;
	char cmd[512];
	uint64_t start_ns, end_ns;
	pthread_t thr;
	bool joinable; /* thr runs it, or ran it and is not joined yet */
	int state; /* 0 waiting, 1 running, 2 done (atomic: the thread's) */
	int status;
};

struct tl {
	const char *csv;
	struct tl_at at[TL_MAX_AT];
	int nat;
	struct mrc_qp *qp;
	uint64_t t0, next_ns;
	uint64_t bytes; /* completed: the poller adds, the sampler reads */
	/* The health samples come from a thread of their own: each is a
	 * request to mrcd, which takes a millisecond or two on a busy
	 * machine, and the thread that posts and polls must not wait for it
	 * (it did: that wait was the longest stretch without a completion
	 * of every calm run). */
	pthread_t sampler;
	bool sampling;
	int stop; /* atomic: the sampler ends */
	uint32_t last_no, nev;
	struct tl_sample *s;
	size_t ns, caps;
	struct tl_event *ev;
	size_t nevs, capev;
	struct tl_done {
		uint64_t ns, bytes;
		uint64_t dp_ns; /* the data path's completion timestamp */
	} * done; /* completions, in the order polled */
	size_t ndone, capdone;
	double surviving_frac; /* 0: from the EVs that failed */
	/* the summary */
	bool have;
	double cmd_ms, detect_ms, quiet_ms, gap_ms, gap_cmd_ms, t90_ms;
	double gap_dp_ms, gap_dp_cmd_ms; /* by completion timestamps */
	uint64_t gap_at_ns,
		gap_dp_at_ns; /* where they begin (CLOCK_MONOTONIC) */
	double before_gbps, surviving_gbps;
	unsigned int failed;
	uint64_t retx;
};

static int grow(void **p, size_t *cap, size_t n, size_t size)
{
	void *q;

	if (n < *cap)
		return 0;
	q = realloc(*p, (*cap ? *cap * 2 : 4096) * size);
	if (!q)
		return -1;
	*p = q;
	*cap = *cap ? *cap * 2 : 4096;
	return 0;
}

struct tl *tl_new(const char *csv, const char *const *at, int nat)
{
	struct tl *t = calloc(1, sizeof(*t));
	int i;

	if (!t)
		return NULL;
	t->csv = csv;
	for (i = 0; i < nat && i < TL_MAX_AT; i++) {
		char *end;
		const char *colon = strchr(at[i], ':');

		t->at[i].at_ms = strtoull(at[i], &end, 10);
		if (!colon || end != colon || end == at[i] || !colon[1] ||
		    strlen(colon + 1) >= sizeof(t->at[i].cmd)) {
			fprintf(stderr,
				"mrc-perf: --at '%s': expected MS:COMMAND\n",
				at[i]);
			free(t);
			errno = EINVAL;
			return NULL;
		}
		strcpy(t->at[i].cmd, colon + 1);
	}
	t->nat = i;
	return t;
}

static void *sampler_main(void *arg);

void tl_start(struct tl *t, uint64_t now_ns, struct mrc_qp *qp)
{
	t->t0 = now_ns;
	t->next_ns = now_ns;
	t->qp = qp;
	/* Without the thread, tl_tick samples in line. */
	t->sampling = qp && !pthread_create(&t->sampler, NULL, sampler_main, t);
}

void tl_completion(struct tl *t, uint64_t now_ns, uint64_t done_ns,
		   uint64_t bytes)
{
	__atomic_add_fetch(&t->bytes, bytes, __ATOMIC_RELAXED);
	if (grow((void **)&t->done, &t->capdone, t->ndone, sizeof(*t->done)))
		return;
	t->done[t->ndone].ns = now_ns;
	t->done[t->ndone].dp_ns = done_ns;
	t->done[t->ndone++].bytes = bytes;
}

/* EVs in a mask of mrc_ext.h's (bit i of word i / 64: EV i). */
static unsigned int ev_count(const uint64_t *m)
{
	unsigned int n = 0, k;

	for (k = 0; k < MRCX_QP_EV_WORDS; k++)
		n += (unsigned int)__builtin_popcountll(m[k]);
	return n;
}

/* Health now: one sample, and the events since the last. */
static void sample(struct tl *t, uint64_t now_ns)
{
	uint64_t usable[MRCX_QP_EV_WORDS];
	struct mrcd_qp_health h;
	unsigned int in_use;
	uint32_t i;

	if (!t->qp || mrcx_query_qp_health(t->qp, t->last_no, &h))
		return;
	for (i = 0; i < MRCX_QP_EV_WORDS; i++)
		usable[i] = h.ev_use[i] & ~h.ev_denied[i];
	in_use = ev_count(usable);
	t->nev = h.nev;
	for (i = 0; i < h.nevents; i++) {
		if (grow((void **)&t->ev, &t->capev, t->nevs, sizeof(*t->ev)))
			break;
		t->ev[t->nevs++] = (struct tl_event){
			.ts_ns = h.events[i].ts_ns,
			.ev = h.events[i].ev_idx,
			.state = h.events[i].state,
			.old = h.events[i].old_state,
			.reason = h.events[i].reason,
		};
		t->last_no = h.events[i].no;
	}
	if (grow((void **)&t->s, &t->caps, t->ns, sizeof(*t->s)))
		return;
	t->s[t->ns++] = (struct tl_sample){
		.t_ns = now_ns,
		.bytes = __atomic_load_n(&t->bytes, __ATOMIC_RELAXED),
		.retx = h.retx,
		.lost = h.lost,
		.in_use = in_use,
	};
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* A sample each TL_STEP_NS until sampler_stop(). */
static void *sampler_main(void *arg)
{
	struct tl *t = arg;
	uint64_t next = t->t0, now;

	while (!__atomic_load_n(&t->stop, __ATOMIC_ACQUIRE)) {
		struct timespec ts = { (time_t)(next / 1000000000ull),
				       (long)(next % 1000000000ull) };

		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		now = mono_ns();
		sample(t, now);
		next += TL_STEP_NS;
		if (next <= now)
			next = now + TL_STEP_NS;
	}
	return NULL;
}

/* Ends the sampler thread, if there is one; its samples stay. */
static void sampler_stop(struct tl *t)
{
	if (!t->sampling)
		return;
	__atomic_store_n(&t->stop, 1, __ATOMIC_RELEASE);
	pthread_join(t->sampler, NULL);
	t->sampling = false;
}

/* The command's thread: spawn it, wait for it, say it is done. */
static void *at_main(void *arg)
{
	struct tl_at *a = arg;
	char *argv[] = { "sh", "-c", a->cmd, NULL };
	posix_spawn_file_actions_t fa;
	pid_t pid;

	a->status = -1;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	if (!posix_spawn(&pid, "/bin/sh", &fa, NULL, argv, environ))
		while (waitpid(pid, &a->status, 0) < 0 && errno == EINTR)
			;
	posix_spawn_file_actions_destroy(&fa);
	a->end_ns = mono_ns();
	__atomic_store_n(&a->state, 2, __ATOMIC_RELEASE);
	return NULL;
}

static void run_at(struct tl_at *a, uint64_t now_ns)
{
	a->start_ns = now_ns;
	a->state = 1;
	a->joinable = !pthread_create(&a->thr, NULL, at_main, a);
	if (!a->joinable) {
		a->status = -1;
		a->end_ns = now_ns;
		a->state = 2;
	}
}

/* Waits for a started command to end. */
static void reap(struct tl_at *a)
{
	if (a->joinable)
		pthread_join(a->thr, NULL);
	a->joinable = false;
}

void tl_tick(struct tl *t, uint64_t now_ns)
{
	int i;

	if (now_ns < t->next_ns)
		return;
	for (i = 0; i < t->nat; i++) {
		if (!__atomic_load_n(&t->at[i].state, __ATOMIC_ACQUIRE) &&
		    now_ns >= t->t0 + t->at[i].at_ms * 1000000ull)
			run_at(&t->at[i], now_ns);
	}
	if (!t->sampling)
		sample(t, now_ns);
	t->next_ns += TL_STEP_NS;
	if (t->next_ns <= now_ns)
		t->next_ns = now_ns + TL_STEP_NS;
}

/* Bytes completed in [from, to). */
static uint64_t bytes_in(const struct tl *t, uint64_t from, uint64_t to)
{
	uint64_t b = 0;
	size_t i;

	for (i = 0; i < t->ndone; i++)
		if (t->done[i].ns >= from && t->done[i].ns < to)
			b += t->done[i].bytes;
	return b;
}

static double gbps(uint64_t bytes, uint64_t ns)
{
	return ns ? (double)bytes * 8 / (double)ns : 0;
}

/* The longest stretch in [from, stop) with none of the n times, in
 * order, in it; *at (if given) is when it began. */
static uint64_t longest_gap(const uint64_t *ns, size_t n, uint64_t from,
			    uint64_t stop, uint64_t end_ns, uint64_t *at)
{
	uint64_t prev = from, w = 0, w_at = from;
	size_t i;

	for (i = 0; i < n; i++) {
		if (ns[i] < from || ns[i] >= stop)
			continue;
		if (ns[i] - prev > w) {
			w = ns[i] - prev;
			w_at = prev;
		}
		prev = ns[i];
	}
	if (stop - prev > w && prev < stop && end_ns > stop) {
		w = stop - prev;
		w_at = prev;
	}
	if (at)
		*at = w_at;
	return w;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The longest stretches with no completion, as polled and as the data
 * path stamped them (in time order: two CPUs' completions of several QPs
 * may be polled out of it). A completion with no stamp counts at its poll.
 */
/* One clock's gaps: from the fault's return (and where it begins), and
 * from the command's start; in ms. */
struct gap {
	double ms, cmd_ms;
	uint64_t at_ns;
};

static struct gap gap_of(const uint64_t *ns, size_t n, uint64_t start,
			 uint64_t fail, uint64_t stop, uint64_t end_ns)
{
	struct gap g;

	g.ms = (double)longest_gap(ns, n, fail, stop, end_ns, &g.at_ns) / 1e6;
	g.cmd_ms = (double)longest_gap(ns, n, start, stop, end_ns, NULL) / 1e6;
	return g;
}

static void gaps(struct tl *t, uint64_t start, uint64_t fail, uint64_t stop,
		 uint64_t end_ns)
{
	uint64_t *ns = malloc((t->ndone + 1) * sizeof(*ns));
	struct gap polled, stamped;
	size_t i;

	if (!ns) {
		t->gap_ms = t->gap_cmd_ms = NAN;
		t->gap_dp_ms = t->gap_dp_cmd_ms = NAN;
		return;
	}
	for (i = 0; i < t->ndone; i++)
		ns[i] = t->done[i].ns;
	polled = gap_of(ns, t->ndone, start, fail, stop, end_ns);
	for (i = 0; i < t->ndone; i++)
		ns[i] = t->done[i].dp_ns ? t->done[i].dp_ns : t->done[i].ns;
	qsort(ns, t->ndone, sizeof(*ns), cmp_u64);
	stamped = gap_of(ns, t->ndone, start, fail, stop, end_ns);
	free(ns);
	t->gap_ms = polled.ms;
	t->gap_cmd_ms = polled.cmd_ms;
	t->gap_at_ns = polled.at_ns;
	t->gap_dp_ms = stamped.ms;
	t->gap_dp_cmd_ms = stamped.cmd_ms;
	t->gap_dp_at_ns = stamped.at_ns;
}

static void summarize(struct tl *t, uint64_t end_ns)
{
	/*
	 * The fault is in place once its command has returned: figures count
	 * from then. Events count from the command's start (it may act before
	 * it exits), so a detection can be a little negative.
	 */
	uint64_t start = t->at[0].start_ns, fail = t->at[0].end_ns, stop, from,
		 w, failed[MRCX_QP_EV_WORDS] = { 0 };
	uint64_t last_bad = 0, first_bad = 0;
	size_t i, j;

	_Static_assert(MRCX_QP_EVS == 256, "an EV index is a uint8_t");
	stop = t->nat > 1 && t->at[1].start_ns ? t->at[1].start_ns : end_ns;
	if (!start || !fail || stop <= fail)
		return;
	t->have = true;
	t->cmd_ms = (double)(t->at[0].end_ns - t->at[0].start_ns) / 1e6;
	from = start > t->t0 + 1200000000ull ? start - 1000000000ull :
					       t->t0 + 200000000ull;
	t->before_gbps =
		from < start ? gbps(bytes_in(t, from, start), start - from) : 0;
	for (i = 0; i < t->nevs; i++) {
		const struct tl_event *e = &t->ev[i];

		if (e->ts_ns < start || e->ts_ns >= stop ||
		    e->state != MRC_EV_ASSUMED_BAD)
			continue;
		if (!first_bad)
			first_bad = e->ts_ns;
		last_bad = e->ts_ns;
		failed[e->ev / 64] |= 1ull << (e->ev % 64);
	}
	t->failed = ev_count(failed);
	t->detect_ms = first_bad ? ((double)first_bad - (double)fail) / 1e6 :
				   NAN;
	t->quiet_ms = last_bad ? ((double)last_bad - (double)fail) / 1e6 : NAN;
	/* The longest stretch with no completion, the fault to the heal;
	 * and from the command's start (a command that is the fault itself
	 * while it runs, like a daemon restart). */
	gaps(t, start, fail, stop, end_ns);
	if (t->surviving_frac > 0)
		t->surviving_gbps = t->before_gbps * t->surviving_frac;
	else if (t->nev)
		t->surviving_gbps =
			t->before_gbps * (t->nev - t->failed) / t->nev;
	else
		t->surviving_gbps = t->before_gbps;
	/*
	 * Back to 90 %: goodput in 2 ms windows sliding by 100 us. If one
	 * starting within 5 ms of the fault falls below 90 % of what survives,
	 * the fault hurt: t90 is the end of the first window after that back
	 * at 90 %. If none does, goodput never left 90 %: t90 is 0. Later
	 * dips are this machine's scheduling, not the fault (the no-fault
	 * runs of the benchmark show them too).
	 */
	t->t90_ms = NAN;
	{
		uint64_t hurt_by = fail + 5000000ull;
		size_t lo = 0, hi = 0;
		uint64_t in = 0;
		bool dipped = false;

		for (w = fail; w + TL_WINDOW_NS <= stop; w += 100000) {
			bool ok;

			while (hi < t->ndone &&
			       t->done[hi].ns < w + TL_WINDOW_NS)
				in += t->done[hi++].bytes;
			while (lo < hi && t->done[lo].ns < w)
				in -= t->done[lo++].bytes;
			ok = gbps(in, TL_WINDOW_NS) >= 0.9 * t->surviving_gbps;
			if (!dipped && !ok && w <= hurt_by)
				dipped = true;
			if (!dipped && w > hurt_by) {
				t->t90_ms = 0;
				break;
			}
			if (dipped && ok) {
				t->t90_ms =
					(double)(w + TL_WINDOW_NS - fail) / 1e6;
				break;
			}
		}
	}
	for (i = 0, j = 0; i < t->ns; i++) {
		if (t->s[i].t_ns <= start)
			j = i;
		if (t->s[i].t_ns <= stop)
			t->retx = t->s[i].retx - t->s[j].retx;
	}
}

static void write_files(const struct tl *t)
{
	char path[4096], png[4096];
	size_t i, len = strlen(t->csv);
	FILE *f;

	f = fopen(t->csv, "w");
	if (!f) {
		fprintf(stderr, "mrc-perf: %s: %s\n", t->csv, strerror(errno));
		return;
	}
	for (i = 0; i < (size_t)t->nat; i++)
		fprintf(f, "# at %.3f ms (took %.3f ms): %s\n",
			(double)(t->at[i].start_ns - t->t0) / 1e6,
			(double)(t->at[i].end_ns - t->at[i].start_ns) / 1e6,
			t->at[i].cmd);
	fprintf(f, "t_ms,goodput_gbit_per_s,retransmits,lost,evs_in_use\n");
	for (i = 1; i < t->ns; i++)
		fprintf(f, "%.3f,%.3f,%llu,%llu,%u\n",
			(double)(t->s[i].t_ns - t->t0) / 1e6,
			gbps(t->s[i].bytes - t->s[i - 1].bytes,
			     t->s[i].t_ns - t->s[i - 1].t_ns),
			(unsigned long long)(t->s[i].retx - t->s[i - 1].retx),
			(unsigned long long)(t->s[i].lost - t->s[i - 1].lost),
			t->s[i].in_use);
	fclose(f);
	snprintf(path, sizeof(path), "%s.events.csv", t->csv);
	f = fopen(path, "w");
	if (!f)
		return;
	fprintf(f, "t_ms,ev,old_state,new_state,reason\n");
	for (i = 0; i < t->nevs; i++)
		fprintf(f, "%.3f,%u,%s,%s,%u\n",
			(double)(t->ev[i].ts_ns - t->t0) / 1e6, t->ev[i].ev,
			mrc_ev_state_name(t->ev[i].old),
			mrc_ev_state_name(t->ev[i].state), t->ev[i].reason);
	fclose(f);
	if (access("/usr/bin/gnuplot", X_OK))
		return; /* no plot without gnuplot */
	snprintf(png, sizeof(png), "%.*s.png",
		 (int)(len > 4 && !strcmp(t->csv + len - 4, ".csv") ? len - 4 :
								      len),
		 t->csv);
	snprintf(path, sizeof(path), "%s.gp", t->csv);
	f = fopen(path, "w");
	if (!f)
		return;
	fprintf(f,
		"set terminal pngcairo size 1000,500 noenhanced\n"
		"set output '%s'\nset datafile separator ','\n"
		"set key top right\nset xlabel 'ms'\n"
		"set ylabel 'Gbit/s'\nset y2label 'EVs in use'\n"
		"set ytics nomirror\nset y2tics\nset yrange [0:*]\n"
		"set y2range [0:*]\n",
		png);
	for (i = 0; i < (size_t)t->nat; i++)
		fprintf(f,
			"set arrow from %.3f, graph 0 to %.3f, graph 1 nohead "
			"dashtype 2\n",
			(double)(t->at[i].start_ns - t->t0) / 1e6,
			(double)(t->at[i].start_ns - t->t0) / 1e6);
	fprintf(f,
		"plot '%s' every ::1 using 1:2 with lines title 'goodput', "
		"'' every ::1 using 1:5 axes x1y2 with steps "
		"title 'EVs in use'\n",
		t->csv);
	fclose(f);
	{
		char *argv[] = { "gnuplot", path, NULL };
		pid_t pid;
		int st;

		if (!posix_spawn(&pid, "/usr/bin/gnuplot", NULL, NULL, argv,
				 environ))
			waitpid(pid, &st, 0);
	}
}

void tl_finish(struct tl *t, uint64_t now_ns)
{
	int i;

	/* The run ended at now_ns: no sample from after it (the sampler
	 * may have taken one since), and none while a command is waited for
	 * below. Their events stay: the samples below read the rest. */
	sampler_stop(t);
	while (t->ns && t->s[t->ns - 1].t_ns > now_ns)
		t->ns--;
	for (i = 0; i < t->nat; i++) {
		if (!__atomic_load_n(
			    &t->at[i].state,
			    __ATOMIC_ACQUIRE)) /* the run ended first: never run */
			continue;
		reap(&t->at[i]);
	}
	sample(t, now_ns);
	while (t->qp) { /* the events still unread */
		size_t before = t->nevs;

		sample(t, now_ns);
		if (t->nevs == before)
			break;
	}
	summarize(t, now_ns);
	if (t->csv)
		write_files(t);
}

void tl_finish_surviving(struct tl *t, uint64_t now_ns, double frac)
{
	t->surviving_frac = frac;
	tl_finish(t, now_ns);
}

/* ,"key":ms, or null when it never happened (NAN). */
static void json_ms(FILE *f, const char *key, double ms)
{
	if (isnan(ms))
		fprintf(f, ",\"%s\":null", key);
	else
		fprintf(f, ",\"%s\":%.3f", key, ms);
}

void tl_json(const struct tl *t, FILE *f)
{
	int i;

	fprintf(f, ",\"failover\":{\"at\":[");
	for (i = 0; i < t->nat; i++)
		fprintf(f, "%s{\"at_ms\":%.3f,\"took_ms\":%.3f,\"status\":%d}",
			i ? "," : "", (double)(t->at[i].start_ns - t->t0) / 1e6,
			(double)(t->at[i].end_ns - t->at[i].start_ns) / 1e6,
			t->at[i].state == 2 && WIFEXITED(t->at[i].status) ?
				WEXITSTATUS(t->at[i].status) :
				-1);
	fprintf(f, "],\"ev_events\":%zu", t->nevs);
	if (t->have) {
		fprintf(f, ",\"failed_evs\":%u", t->failed);
		json_ms(f, "detection_ms", t->detect_ms);
		json_ms(f, "no_traffic_on_failed_evs_ms", t->quiet_ms);
		json_ms(f, "longest_gap_ms", t->gap_ms);
		json_ms(f, "longest_gap_from_cmd_start_ms", t->gap_cmd_ms);
		json_ms(f, "longest_gap_by_completion_ts_ms", t->gap_dp_ms);
		json_ms(f, "longest_gap_from_cmd_start_by_completion_ts_ms",
			t->gap_dp_cmd_ms);
		/* where the two gaps begin, to find them in a trace taken
		 * with CLOCK_MONOTONIC (perf record -k CLOCK_MONOTONIC) */
		fprintf(f,
			",\"longest_gap_at_ns\":%llu"
			",\"longest_gap_by_completion_ts_at_ns\":%llu",
			(unsigned long long)t->gap_at_ns,
			(unsigned long long)t->gap_dp_at_ns);
		json_ms(f, "t90_ms", t->t90_ms);
		fprintf(f,
			",\"goodput_before_gbit_per_s\":%.3f,"
			"\"surviving_capacity_gbit_per_s\":%.3f,"
			"\"retransmits\":%llu",
			t->before_gbps, t->surviving_gbps,
			(unsigned long long)t->retx);
	}
	fprintf(f, "}");
}

void tl_human(const struct tl *t, FILE *f)
{
	if (!t->have) {
		fprintf(f, "failover: no fault (--at) during the run\n");
		return;
	}
	fprintf(f,
		"failover: '%s' took %.1f ms; from its return to the next --at\n"
		"  (negative: before it returned; nan: never):\n"
		"  first EV ASSUMED_BAD after        %8.3f ms\n"
		"  no traffic on the %2u failed EVs   %8.3f ms\n"
		"  longest gap with no completion    %8.3f ms"
		" (%.3f ms by completion timestamps)\n"
		"  back to 90 %% of surviving after   %8.3f ms"
		" (%.2f of %.2f Gbit/s before)\n"
		"  retransmissions                   %8llu\n",
		t->at[0].cmd, t->cmd_ms, t->detect_ms, t->failed, t->quiet_ms,
		t->gap_ms, t->gap_dp_ms, t->t90_ms, t->surviving_gbps,
		t->before_gbps, (unsigned long long)t->retx);
}

void tl_free(struct tl *t)
{
	int i;

	if (!t)
		return;
	/* Threads still running (no tl_finish) hold t: end them first. */
	sampler_stop(t);
	for (i = 0; i < t->nat; i++)
		reap(&t->at[i]);
	free(t->s);
	free(t->ev);
	free(t->done);
	free(t);
}
