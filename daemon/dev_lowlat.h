/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains the soft device's low-latency transmit path: the tc
 * egress program (bpf/mrc_tc_tx.bpf.c) loaded on the device's maps and
 * attached to lo of the current network namespace, where it turns
 * doorbells (include/mrc/doorbell.h) into packets. One per process.
 */
#ifndef MRC_DAEMON_DEV_LOWLAT_H
#define MRC_DAEMON_DEV_LOWLAT_H

struct dev;

/*
 * Load the program sharing every map of d's receive program (or take the
 * running device's, of this build: dev_take_tc) and attach it to lo's
 * egress (creating the clsact qdisc if there is none). 0 or -errno;
 * -EEXIST when a filter already sits at our handle and priority.
 */
int dev_lowlat_attach(struct dev *d);
/* Detach what dev_lowlat_attach attached (and the qdisc if it made it). */
void dev_lowlat_detach(struct dev *d);
/* The tc program's fd while attached, else -1. */
int dev_lowlat_prog_fd(void);
/*
 * Across restarts: whether the clsact qdisc on lo is ours to remove (a
 * predecessor made it: dev_lowlat_adopt_qdisc(1) after attaching), and
 * closing this process's handles with the filter left attached.
 */
int dev_lowlat_made_qdisc(void);
void dev_lowlat_adopt_qdisc(int made);
void dev_lowlat_release(void);

#endif /* MRC_DAEMON_DEV_LOWLAT_H */
