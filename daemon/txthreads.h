/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains mrcd's transmit threads, so that the pump's transmit
 * calls run on every CPU at once instead of all on the main thread's. A
 * frame a call sends into a veth is received in softirq on the CPU that
 * sent it, and so is its ACK when it comes back: with one thread, one CPU
 * did all of it. The calls of a pass fall into shares, as many as the
 * CPUs mrcd may run on; the caller makes one share itself and hands each
 * other to a thread of its own. The threads are not pinned: a thread
 * whose CPU is taken (a real-time task, a busy neighbour) moves, where a
 * pinned one would stall its calls and the pass waiting for them
 * (docs/mrcd.md, "Transmit threads"). With one share (one CPU, or
 * tx-threads 1) every call is made on the caller's thread, as before.
 */
#ifndef MRC_DAEMON_TXTHREADS_H
#define MRC_DAEMON_TXTHREADS_H

#include <pthread.h>
#include <stdint.h>

struct dev;

#define TXT_MAX 64 /* shares at most (mrcd.conf tx-threads) */
/* Calls at once for one QP at most (mrcd.conf tx-lanes; struct
 * mrc_tx_call's lanes: 1, 2, 4 or 8). */
#define TXT_LANES_MAX 8

/* One QP's part of a share's transmit calls: in qpn, burst and its lane,
 * out sent (what it sent, or -errno if it sent nothing and the call
 * failed). */
struct txt_call {
	uint32_t qpn;
	uint32_t burst;
	uint16_t lane; /* of lanes: the EVs it sprays over (dev_tx_list) */
	uint16_t lanes; /* 1: all; more: this QP has a call on each lane */
	uint32_t share; /* made on the thread of share % shares */
	int sent;
};

struct txt_thread {
	struct txthreads *pool;
	pthread_t id;
	int share; /* under lock: the share it makes this round, -1 none */
	pthread_cond_t go;
};

struct txthreads {
	struct dev *dev;
	int shares; /* 1: every call on the caller's thread */
	int nthreads; /* helpers running: shares - 1 */
	struct txt_thread t[TXT_MAX];
	pthread_mutex_t lock;
	pthread_cond_t done;
	struct txt_call *calls; /* this round's, set before helpers start it */
	int ncalls;
	int made[TXT_MAX]; /* transmit calls each share made this round */
	int busy; /* under lock: threads still working on this round */
	int stop; /* under lock */
};

/*
 * Up to want shares (0: one per CPU mrcd may run on): the caller's and a
 * thread for each of the others. With one CPU or want 1, no thread. 0 or
 * -errno.
 */
int txt_start(struct txthreads *t, struct dev *d, uint32_t want);
void txt_stop(struct txthreads *t);
/* Shares: the threads that transmit at once, the caller's included. */
int txt_count(const struct txthreads *t);
/*
 * Make the n calls, those of one share in order on one thread: the
 * caller's own for one share with calls, a helper's for each other. A
 * share's calls go out together, in as few transmit calls as their QPs
 * fit in (dev_tx_list on the share's own list). Returns when all are
 * done, with the transmit calls made; each call's sent is set.
 */
int txt_run(struct txthreads *t, struct txt_call *calls, int n);

#endif /* MRC_DAEMON_TXTHREADS_H */
