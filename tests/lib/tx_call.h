/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains the tests' way to name the QP mrc_xdp_tx serves: the
 * program reads its caller's slot for the CPU it runs on (struct
 * mrc_tx_call, include/mrc/abi.h). A test runs the program from one
 * thread, one test run at a time, so it pins that thread to the CPU it is
 * on (the first time) and fills that CPU's slot.
 */
#ifndef MRC_TESTS_TX_CALL_H
#define MRC_TESTS_TX_CALL_H

#define _GNU_SOURCE
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>

#include "mrc/abi.h"

/*
 * Runs of this thread serve qpn, alone in list 0; the next left of them
 * count down to the one that asks for its ACK (0: every run asks). Aborts
 * if the thread cannot be pinned: the program would then read a slot
 * nobody filled.
 */
static inline void tx_call_set(struct mrc_tx_call *slot,
			       struct mrc_tx_list *list, __u32 qpn, __u32 left)
{
	static int cpu = -1;

	if (cpu < 0) {
		cpu_set_t one;

		cpu = sched_getcpu();
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		if (cpu < 0 || cpu >= MRC_TX_CALL_CPUS ||
		    sched_setaffinity(0, sizeof(one), &one))
			abort();
	}
	list[0].n = 1;
	list[0].next = 0;
	list[0].e[0] = (struct mrc_tx_entry){ .qpn = qpn,
					      .left = (__u16)left,
					      .lanes = 1 };
	slot[cpu].list = 0;
	slot[cpu].tid = (__u32)gettid();
}

/* The runs after tx_call_set spray on lane lane of lanes. */
static inline void tx_call_lane(struct mrc_tx_list *list, __u16 lane,
				__u16 lanes)
{
	list[0].e[0].lane = lane;
	list[0].e[0].lanes = lanes;
}

#endif /* MRC_TESTS_TX_CALL_H */
