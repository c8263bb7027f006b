// SPDX-License-Identifier: GPL-2.0
/*
 * The pump's watch: tells the data path that the mrcd pumping the device
 * (mrc_pump[0].tgid, abi.h) is gone, as soon as the kernel knows:
 *
 *   mrc_pump_kill  a SIGKILL sent to it (signal_generate, raw): the moment of
 *                  the kill, before the process even starts to exit,
 *                  while the ACKs of its last packets are still coming
 *   mrc_pump_exit  the exit of its thread group leader
 *                  (sched_process_exit): any other death, a crash
 *
 * Either sets gone (and gone_ns, the first time) and marks every send
 * queue unserved (mrc_sq.no_pump), as mrc_pump_leave does for an mrcd
 * that stops; mrc_pump_claim, run by mrcd, names the pump and clears
 * both. mrcd attaches both hooks and pins their links, so they stay
 * attached when mrcd is gone, which is when they matter: a SIGKILL runs
 * no handler of mrcd's.
 *
 * With the pump gone, the receive program hands every ACK that makes room
 * to ACK clocking (bpf/mrc_xdp_ack_tx.bpf.c), whatever the QP's CC
 * profile: each such ACK sends the QP's next packet, which asks for an ACK
 * of its own, so the transfer keeps its clock until the next mrcd takes
 * the device over (and clears gone). Once the last ACK has come back with
 * nothing sent, only an mrcd sends again: so the kill hook, not the exit
 * hook (which runs milliseconds later, after the process's memory is
 * gone), is what keeps a killed mrcd's transfers going. A QP with nothing
 * in flight at that moment has no ACK to come: every send queue is marked
 * (no_pump), and its poster's next post rings the low-latency doorbell,
 * whose packet starts the clock again.
 */
#include <linux/bpf.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include "lib/maps.h"

#define SIGKILL 9
#define TRACE_SIGNAL_IGNORED 1 /* enum trace_signal_deliver */

/* bpf_loop's step: QP qpn's send queue, if it has one, is served or not
 * (*ctx, mrc_sq.no_pump). */
static long sq_mark(__u32 qpn, void *ctx)
{
	struct mrc_sq *sq;
	__u32 zero = 0;
	void *sqmap;

	sqmap = bpf_map_lookup_elem(&mrc_sq, &qpn);
	sq = sqmap ? bpf_map_lookup_elem(sqmap, &zero) : NULL;
	if (sq)
		sq->no_pump = *(__u32 *)ctx;
	return 0;
}

static __always_inline void sq_mark_all(__u32 no_pump)
{
	bpf_loop(MRC_MAX_QP, sq_mark, &no_pump, 0);
}

static __always_inline void pump_gone(__u32 tgid)
{
	struct mrc_pump *p;
	__u32 zero = 0;

	p = bpf_map_lookup_elem(&mrc_pump, &zero);
	if (!p || !p->tgid || p->tgid != tgid || p->gone)
		return;
	p->gone_ns = bpf_ktime_get_ns();
	p->gone = 1;
	mrc_count_tx(MRC_TX_PUMP_GONE, 1);
	/* A QP with nothing in flight has no ACK to clock it: its next post
	 * must send a packet itself (mrc_sq.no_pump, libmrc's doorbell). */
	sq_mark_all(1);
}

/*
 * Never attached: mrcd runs it once (BPF_PROG_TEST_RUN, in its own task)
 * to name itself the pump, so the tgid is the one the hooks see (the
 * initial PID namespace's, whatever namespace mrcd runs in), and to
 * clear gone.
 */
SEC("raw_tp/sched_process_exit")
int mrc_pump_claim(void *ctx)
{
	struct mrc_pump *p;
	__u32 zero = 0;

	(void)ctx;
	p = bpf_map_lookup_elem(&mrc_pump, &zero);
	if (!p)
		return 0;
	p->tgid = (__u32)(bpf_get_current_pid_tgid() >> 32);
	p->gone_ns = 0;
	p->gone = 0;
	/* Posters ring this mrcd again (their doorbells reach it). */
	sq_mark_all(0);
	return 0;
}

/*
 * Never attached: an mrcd that stops and leaves the device running runs
 * it (BPF_PROG_TEST_RUN) to say so, the same as its death would.
 */
SEC("raw_tp/sched_process_exit")
int mrc_pump_leave(void *ctx)
{
	(void)ctx;
	pump_gone((__u32)(bpf_get_current_pid_tgid() >> 32));
	return 0;
}

SEC("raw_tp/sched_process_exit")
int mrc_pump_exit(void *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();

	(void)ctx;
	/* The leader only: mrcd's own threads come and go. */
	if ((__u32)id == (__u32)(id >> 32))
		pump_gone((__u32)id);
	return 0;
}

/* The one field read of the kernel's task_struct (CO-RE: its offset is
 * the running kernel's). */
struct task_struct___pg {
	int pid;
} __attribute__((preserve_access_index));

/*
 * signal_generate, raw: its arguments as the kernel passes them
 * (TP_PROTO(int sig, struct kernel_siginfo *info, struct task_struct *task,
 * int group, int result)). A raw tracepoint attaches by name, so no tracefs
 * need be mounted, as a tracepoint's id would need.
 */
SEC("raw_tp/signal_generate")
int mrc_pump_kill(struct bpf_raw_tracepoint_args *ctx)
{
	struct task_struct___pg *task = (void *)ctx->args[2];
	int sig = (int)ctx->args[0], result = (int)ctx->args[4];
	int pid = task ? BPF_CORE_READ(task, pid) : 0;

	/* kill(2) of a process sends to its leader, whose pid is its tgid;
	 * a SIGKILL the kernel ignores (to a namespace's init) kills none. */
	if (sig == SIGKILL && pid > 0 && result != TRACE_SIGNAL_IGNORED)
		pump_gone((__u32)pid);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
