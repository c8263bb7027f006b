/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains mrc-perf's failover timeline: while a bulk run goes
 * on it samples goodput, retransmissions and the QP's EVs every
 * millisecond, runs the commands given with --at (a fault, its heal) at
 * their times, and afterwards reports how the transfer rode out the first
 * one: time to first detection, time until no traffic goes to the failed
 * EVs, the longest stretch with no completed byte, and the time until
 * goodput (2 ms windows) is back at 90 % of the surviving capacity. CSV for every sample and event, and a PNG
 * when gnuplot is there.
 */
#ifndef MRC_TOOLS_PERF_TIMELINE_H
#define MRC_TOOLS_PERF_TIMELINE_H

#include <stdint.h>
#include <stdio.h>

struct mrc_qp;
struct tl;

#define TL_MAX_AT 6

/*
 * csv: the timeline's file (NULL: none, the summary only); at: "MS:CMD"
 * strings, CMD run with sh -c MS milliseconds into the run. NULL with
 * errno set when an --at is malformed (a message says which).
 */
struct tl *tl_new(const char *csv, const char *const *at, int nat);
/* The run starts now; qp's EVs are the ones watched. */
void tl_start(struct tl *t, uint64_t now_ns, struct mrc_qp *qp);
/* Completions with bytes between them were polled now; the data path
 * made the last of them at done_ns (its completion timestamp). */
void tl_completion(struct tl *t, uint64_t now_ns, uint64_t done_ns,
		   uint64_t bytes);
/* Call often: samples each millisecond, starts and reaps the commands. */
void tl_tick(struct tl *t, uint64_t now_ns);
/* The run ended: waits for the commands, computes, writes the files. */
void tl_finish(struct tl *t, uint64_t now_ns);
/* The same, for a transport without EVs: frac of the capacity before the
 * fault survives it (3 of 4 planes: 0.75). */
void tl_finish_surviving(struct tl *t, uint64_t now_ns, double frac);
/* ,"failover":{...} for mrc-perf's JSON, and the table for people. */
void tl_json(const struct tl *t, FILE *f);
void tl_human(const struct tl *t, FILE *f);
void tl_free(struct tl *t);

#endif /* MRC_TOOLS_PERF_TIMELINE_H */
