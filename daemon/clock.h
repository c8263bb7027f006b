/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains mrcd's clock: CLOCK_MONOTONIC in ns, the clock of
 * bpf_ktime_get_ns(), so times mrcd takes and the data path's compare.
 * One function, so unit tests can run the modules on a clock of their own.
 */
#ifndef MRC_DAEMON_CLOCK_H
#define MRC_DAEMON_CLOCK_H

#include <stdint.h>

uint64_t now_ns(void);

#endif /* MRC_DAEMON_CLOCK_H */
