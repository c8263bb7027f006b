/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains what every part of mrc-perf shares: its limits and
 * defaults, the tests and transports, the signal flags every wait checks,
 * the clocks, error messages and the names it prints.
 */
#ifndef MRC_TOOLS_PERF_H
#define MRC_TOOLS_PERF_H

#include <signal.h>
#include <stdint.h>

#define PERF_PORT_DEFAULT "18515"
#define PERF_MAGIC 0x4d524350u /* "MRCP" */
#define PERF_PROTO_VERSION 1
#define PERF_MAX_QPS 4096u /* a device's QPs (MRC_MAX_QP less QPs 0 and 1) */
/* A send WR's wr_id: its index in the QP's posts << PERF_QP_BITS | the
 * QP's index. */
#define PERF_QP_BITS 12
#define PERF_QP_MASK ((1ull << PERF_QP_BITS) - 1)
_Static_assert(PERF_MAX_QPS <= 1ull << PERF_QP_BITS, "wr_id: QP index bits");
#define PERF_MAX_DEPTH 128u
#define PERF_MAX_SGE 4u
#define PERF_MAX_SIZE_BYTES (1ull << 30)
/* Both sides' regions together stay below this, whatever the depth. */
#define PERF_REGION_CAP_BYTES (32ull << 20)
/* CQ entries we ask for at most; the device may allow fewer. */
#define PERF_CQ_MAX 16384u
#define PERF_POST_BATCH 16u
#define PERF_POLL_BATCH 64
#define PERF_IDLE_POLLS 16u /* empty polls before idling */
#define PERF_IDLE_US_DEFAULT 1000u
#define PERF_WARMUP_ITERS 100u
#define PERF_LAT_ITERS_DEFAULT 10000u
#define PERF_SECONDS_DEFAULT 5.0
#define PERF_LAT_LIMIT_S 60.0
#define PERF_IO_TIMEOUT_MS 30000
/* After a failed run the peer may be gone altogether, side channel too. */
#define PERF_ABORT_RESULT_MS 3000
#define PERF_DRAIN_TIMEOUT_MS 10000
#define PERF_RECV_GRACE_MS 5000
#define PERF_IDLE_TIMEOUT_MS 120000
#define NSEC_PER_SEC 1000000000ull

enum perf_test { TEST_BW, TEST_RATE, TEST_LAT };

enum perf_transport {
	XPORT_MRC = 1 << 0,
	XPORT_TCP = 1 << 1,
};

/* Signals received: the first ends the run, a second every wait (main.c). */
extern volatile sig_atomic_t g_stop;
/* SIGUSR1 came: a timed bandwidth run's time is up now. */
extern volatile sig_atomic_t g_time_up;
/* Side-channel waits go on until g_stop exceeds this. */
extern sig_atomic_t g_stop_waits_at;

/* ---- util.c ---- */

/* "mrc-perf: " and the message on stderr. */
void pr_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
uint64_t now_ns(void); /* CLOCK_MONOTONIC */
/* User plus system CPU time of this process. */
uint64_t cpu_ns(void);
/* VmRSS of this process, or 0 when /proc says nothing. */
uint64_t rss_bytes(void);
uint32_t random_psn(void);

/* ---- names.c ---- */

extern const char *const test_names[3]; /* by enum perf_test */
const char *wc_status_name(unsigned int status);
const char *qp_state_name(int state);

#endif /* MRC_TOOLS_PERF_H */
