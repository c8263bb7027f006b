// SPDX-License-Identifier: GPL-2.0
/*
 * mrc-perf: goodput, message rate and latency of an MRC device, measured
 * through the public API only (<mrc.h> and the verbs calls the soft device
 * answers), so the same program measures any MRC NIC.
 *
 * Two processes. "mrc-perf server" waits for one client; "mrc-perf client
 * HOST" connects to it over TCP (the side channel) and sends the test
 * parameters, so the server needs no options. Both sides then exchange what
 * their QPs need to connect (QP number, GID, PSN, rkey, address, length).
 * Each row of the report (one message size, or one transport) runs as:
 *
 *   client            server
 *   START  ------->   snapshot CPU time, get ready
 *          <-------   GO
 *   writes ------->   (bw: nothing, data lands; rate/lat: poll the CQ)
 *   DONE   ------->   wait for the last receive completions, verify
 *          <-------   RESULT (receive counts, bad bytes, CPU time)
 *
 * and the client says BYE at the end. Every wait has a deadline, so neither
 * side can hang on a dead peer, and SIGINT/SIGTERM end both cleanly.
 * SIGUSR1 ends a timed bandwidth run early but as a finished one (its
 * result complete, exit status 0 if it holds): a test that runs something
 * beside a transfer for as long as that takes uses it.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <sys/prctl.h>

#include "client.h"
#include "opts.h"
#include "perf.h"
#include "server.h"

/* Signals received: the first ends the run, a second every wait. */
volatile sig_atomic_t g_stop;
/* Side-channel waits go on until g_stop exceeds this. */
sig_atomic_t g_stop_waits_at = 1;

/* SIGUSR1: timed bandwidth runs end now, as if their time were up. */
volatile sig_atomic_t g_time_up;

static void on_signal(int sig)
{
	if (sig == SIGUSR1) {
		g_time_up = 1;
		return;
	}
	if (g_stop < 2)
		g_stop++;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct perf_opts o;

	if (parse_args(argc, argv, &o))
		return 2;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	/* Idle sleeps of a few microseconds, not the default 50 us slack. */
	prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
	setvbuf(stdout, NULL, _IOLBF, 0);
	return o.server ? server_main(&o) : client_main(&o);
}
