// SPDX-License-Identifier: GPL-2.0
/*
 * mrcctl monitor: EV state changes as they happen, from an EV event queue
 * (mrc_ctl_create_ev_event_cq, read with mrcx_ctl_poll_ev_event for the
 * QP, time, old state and reason). One line per event, flushed; with -j
 * one JSON object per line. Stops after count events, after timeout
 * seconds, or on SIGINT/SIGTERM. The queue is polled, with a short sleep
 * while it is empty.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mrcctl.h"
#include "mrc/ev_names.h"

#define MON_CQE 1024
#define MON_BATCH 64
#define MON_IDLE_NS 10000000L /* 10 ms between polls of an empty queue */
#define MON_MAX_SECONDS (365u * 24 * 3600)

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static uint64_t now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A CLOCK_MONOTONIC stamp as local wall time, with microseconds. */
static char *wall_time(uint64_t mono_ns, const char *fmt)
{
	uint64_t real = now_ns(CLOCK_REALTIME), mono = now_ns(CLOCK_MONOTONIC);
	uint64_t t = real - (mono > mono_ns ? mono - mono_ns : 0);
	time_t sec = (time_t)(t / 1000000000u);
	char buf[64], zone[8] = "";
	struct tm tm;

	if (!localtime_r(&sec, &tm) || !strftime(buf, sizeof(buf), fmt, &tm))
		return xstrdup("?");
	if (!strcmp(fmt, "%Y-%m-%dT%H:%M:%S"))
		strftime(zone, sizeof(zone), "%z", &tm);
	return xasprintf("%s.%06u%s", buf,
			 (unsigned int)(t % 1000000000u / 1000u), zone);
}

static void print_json(const struct mrcx_ev_event *e)
{
	struct jv *o = jv_obj();
	char *when = wall_time(e->ts_ns, "%Y-%m-%dT%H:%M:%S");

	jv_add(o, "time", jv_str(when));
	jv_add(o, "ts_ns", jv_u64(e->ts_ns));
	jv_add(o, "profile_id", jv_u64(e->base.profile_id));
	jv_add(o, "qpn", jv_u64(e->qpn));
	jv_add(o, "idx", jv_u64(e->ev_idx));
	jv_add(o, "ev", jv_u64(ev_val(&e->base.ev)));
	jv_add(o, "port", jv_u64(e->base.ev.port));
	jv_add(o, "old_state", jv_str(ev_state_str(e->old_state)));
	jv_add(o, "state", jv_str(ev_state_str(e->base.state)));
	jv_add(o, "reason", jv_str(mrc_ev_reason_name(e->reason)));
	jv_add(o, "drop_count", jv_u64(e->base.drop_count));
	jv_print(stdout, o, 0); /* JSON lines: never pretty */
	jv_free(o);
	free(when);
}

#define MON_FMT "%-15s  %7s  %8s  %4s  %10s  %4s  %-26s  %7s  %s\n"

static void print_text(const struct mrcx_ev_event *e)
{
	char *when = wall_time(e->ts_ns, "%H:%M:%S");
	char *prof = xasprintf("%" PRIu64, e->base.profile_id);
	char *qpn = xasprintf("%u", e->qpn), *idx = xasprintf("%u", e->ev_idx);
	char *ev = xasprintf("0x%x", ev_val(&e->base.ev));
	char *port = xasprintf("%u", e->base.ev.port);
	char *chg = xasprintf("%s -> %s", ev_state_str(e->old_state),
			      ev_state_str(e->base.state));
	char *drop = xasprintf("%u", e->base.drop_count);

	printf(MON_FMT, when, prof, qpn, idx, ev, port, chg, drop,
	       mrc_ev_reason_name(e->reason));
	free(when);
	free(prof);
	free(qpn);
	free(idx);
	free(ev);
	free(port);
	free(chg);
	free(drop);
}

static int watch(struct mrc_cq *cq, uint32_t count, uint32_t seconds)
{
	uint64_t deadline =
		now_ns(CLOCK_MONOTONIC) + (uint64_t)seconds * 1000000000u;
	struct timespec idle = { 0, MON_IDLE_NS };
	struct mrcx_ev_event ev[MON_BATCH];
	uint32_t got = 0;
	int n, i;

	if (!opts.json)
		printf(MON_FMT, "TIME", "PROFILE", "QPN", "IDX", "EV", "PORT",
		       "OLD -> NEW STATE", "DROPPED", "REASON");
	fflush(stdout);
	while (!stop && (!count || got < count)) {
		errno = 0;
		n = mrcx_ctl_poll_ev_event(cq, MON_BATCH, ev);
		if (n < 0)
			return err_api(api_errno(n), "mrcx_ctl_poll_ev_event",
				       "monitor");
		for (i = 0; i < n && (!count || got < count); i++, got++) {
			if (opts.json)
				print_json(&ev[i]);
			else
				print_text(&ev[i]);
			fflush(stdout);
		}
		if (seconds && now_ns(CLOCK_MONOTONIC) >= deadline)
			break;
		if (n < MON_BATCH)
			nanosleep(&idle, NULL); /* a signal cuts it short */
	}
	return 0;
}

static int monitor_run(struct args *a)
{
	static const char *const kws[] = { "count", "timeout" };
	struct sigaction sa = { .sa_handler = on_signal }, old_int, old_term;
	uint32_t count = 0, seconds = 0;
	struct mrc_context *ctx = NULL;
	unsigned int seen = 0;
	struct mrc_cq *cq;
	int rc = 0, kw;

	while (!rc && args_left(a)) {
		rc = arg_keyword(a, kws, ARRAY_SIZE(kws), &kw);
		if (!rc)
			rc = arg_once(&seen, kw, kws);
		if (!rc && kw == 0)
			rc = arg_u32(a, "count", 1, UINT32_MAX, &count);
		else if (!rc)
			rc = arg_u32(a, "timeout", 1, MON_MAX_SECONDS,
				     &seconds);
	}
	if (!rc)
		rc = ctl_open(&ctx);
	if (rc)
		return rc;
	cq = mrc_ctl_create_ev_event_cq(ctx, MON_CQE, NULL, NULL, 0);
	if (!cq)
		return err_api(errno ? errno : EIO,
			       "mrc_ctl_create_ev_event_cq", "monitor");
	/* No SA_RESTART: the signal ends the sleep at once. */
	sigemptyset(&sa.sa_mask);
	stop = 0;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	rc = watch(cq, count, seconds);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	if (mrc_destroy_cq(cq) && !rc)
		rc = err_api(errno ? errno : EIO, "mrc_destroy_cq", "monitor");
	return rc;
}

static const char *const defs[] = {
	"N := events to print, then stop; SEC := seconds to watch, then stop",
	"(default: until SIGINT or SIGTERM). With -j: one JSON object per"
	" line.",
	NULL,
};

const struct object obj_monitor = {
	.name = "monitor",
	.what = "print EV state changes as they happen",
	.run = monitor_run,
	.form = "[ count N ] [ timeout SEC ]",
	.defs = defs,
	.streams = 1,
};
