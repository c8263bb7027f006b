/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains the soft device: the data path's BPF objects loaded
 * and attached to the ports, and the device resources built on their maps
 * (memory regions, completion queues, queue pairs). mrcd owns one; tests
 * drive one in-process.
 */
#ifndef MRC_DAEMON_DEV_H
#define MRC_DAEMON_DEV_H

#include <stddef.h>
#include <stdint.h>

#include "mrc/abi.h"

/*
 * The largest frame the kernel takes as a live frame (BPF_PROG_TEST_RUN
 * with BPF_F_TEST_XDP_LIVE_FRAMES): a page less XDP's headroom, the
 * kernel's xdp_page_head and skb_shared_info. 3408 bytes on x86-64 with
 * kernel 6.18, measured; larger frames get EINVAL. mrcd checks it at
 * start (dev_check_live_frame).
 */
#define DEV_LIVE_FRAME_MAX 3408u
/*
 * Payload bytes per packet at most: what a live frame holds after
 * Ethernet and the largest data packet's headers (IPv6, with immediate),
 * less the one byte dev_tx_burst's frame has to spare. Not an IB MTU: a
 * QP's path MTU enum is cut to what the ports carry (lib/qp.c), so at
 * IBV_MTU_4096 a packet fills its link's MTU up to this. Ports may lower
 * it (their IP MTU less headers).
 */
#define DEV_PAYLOAD_MAX (DEV_LIVE_FRAME_MAX - 1u - 14u - MRC_DATA_OVERHEAD(1))

struct mrc_xdp_rx;
struct mrc_xdp_tx;
struct mrc_xdp_ack_tx;
struct mrc_xdp_ctl;
struct mrc_pump_gone;
struct ring_buffer;

struct dev_port {
	char ifname[16];
	int ifindex;
	int attached; /* our XDP program is on it */
};

/* The data path's programs: receive, transmit, control, tc doorbells. */
enum dev_prog {
	DEV_PROG_RX,
	DEV_PROG_TX,
	DEV_PROG_CTL,
	DEV_PROG_ACK, /* ACK clocking's, in mrc_ack_clock when on */
	DEV_PROG_TC,
	DEV_NPROGS
};

struct dev {
	struct mrc_xdp_rx *rx;
	struct mrc_xdp_tx *tx;
	struct mrc_xdp_ack_tx *ack_tx;
	struct mrc_xdp_ctl *ctl;
	/*
	 * The programs everything runs and attaches: the loaded skeletons',
	 * or, reused (dev_open_pinned), the running device's pinned ones,
	 * this dev's to close. [DEV_PROG_TC] is a reusable pinned tc
	 * program for dev_lowlat (dev_take_tc), else -1.
	 */
	int prog_fd[DEV_NPROGS];
	int reused; /* the programs are a predecessor's of this build */
	struct dev_port port[MRC_MAX_PORTS];
	int nports;
	int anchor_ifindex; /* idle interface the transmit program sits on */
	uint32_t next_rkey_rand;
	/*
	 * Send queue slots of mrc_sq (dev_sq_create): DEV_SQ_FRESH, a map
	 * no application has seen (mrc_sq holds it); DEV_SQ_USED, a
	 * QP's; DEV_SQ_STALE (0), anything else, which may be a map a past
	 * application still has mapped, replaced before the number is used.
	 */
	uint8_t sq_slot[MRC_MAX_QP];
	uint32_t sq_nfresh; /* FRESH slots, at most a batch of them */
	struct mrc_pump_gone *pump; /* the pump's watch (dev_pump_watch)... */
	int pump_claimed; /* ...whose claim named this process the pump */
	/* Its claim and leave programs: the skeleton's, or (pump_reused)
	 * a predecessor's of this build, pinned, their fds ours. */
	int pump_claim_fd, pump_leave_fd, pump_reused;
	/*
	 * Transmit by skb (dev_tx_by_skb): the kernel refuses live frames.
	 * Each packet is then a doorbell on db_fd that mrc_tc_tx, on lo,
	 * turns into the QP's next packet (as an application's would), with
	 * the QP's token from db_token; dev_emit's frames leave by emit_fd,
	 * a packet socket. The fds are valid only while tx_skb is set.
	 */
	int tx_skb, db_fd, emit_fd;
	uint64_t db_token[MRC_MAX_QP];
};
enum { DEV_SQ_STALE, DEV_SQ_FRESH, DEV_SQ_USED };

/* A memory region: the mmapable chunk map and the application's view. */
struct dev_mr {
	uint32_t idx;
	uint32_t key; /* lkey == rkey */
	uint64_t len;
	uint8_t *map; /* chunk i at i * MRC_MR_ELEM */
	size_t map_len;
	int fd; /* the chunk map */
};

struct dev_cq {
	uint32_t idx;
	struct ring_buffer *rb;
	struct mrc_cqe *out; /* where dev_cq_poll puts completions */
	int nout, max;
	/*
	 * Completions read past max, for the next poll: libbpf reads the
	 * whole ring in one go and has no way to stop at max (a callback's
	 * error drops the record it was given).
	 */
	struct mrc_cqe *stash;
	size_t nstash, stash_cap;
};

/*
 * The data path's maps that modules above read or map themselves; they
 * never see the BPF skeletons (dev_map_fd gives the fd, -1 if none).
 */
enum dev_map {
	DEV_MAP_WAKE, /* mrc_wake: mmapable, [qpn] = 1 asks for a wakeup */
	DEV_MAP_EV_STATS, /* mrc_ev_stats: mmapable, per QP x EV */
	DEV_MAP_PROBE_ARM, /* mrc_probe_arm: mmapable */
	DEV_MAP_EV_EVENTS, /* mrc_ev_events: the EV event ring */
};
int dev_map_fd(const struct dev *d, enum dev_map which);
/* Whether the data path holds send queue, region or ring idx (in its
 * outer map), owned or not. */
enum dev_obj { DEV_SQ, DEV_MR, DEV_CQ };
int dev_has(const struct dev *d, enum dev_obj kind, uint32_t idx);
/*
 * dev_has for every index at once, into has[n] (n: MRC_MAX_QP, _MR or
 * _CQ): one batch lookup, where n lookups took 3-5 ms of a takeover on
 * the busy machine. 0 or -errno.
 */
int dev_has_all(const struct dev *d, enum dev_obj kind, uint8_t *has,
		uint32_t n);
/* Port p's addresses as the data path has them (mrc_port). 0 or -errno. */
int dev_port_get(const struct dev *d, uint32_t p, struct mrc_port *port);
/* Counter key of mrc_tx_stats (MRC_TX_*), summed over the CPUs, into
 * *sum. 0 or -errno. */
int dev_tx_stat(const struct dev *d, uint32_t key, uint64_t *sum);
/* Memory region idx's extent (mrc_mr_info). 0 or -errno. */
int dev_mr_info(const struct dev *d, uint32_t idx, struct mrc_mr_info *info);

int dev_open(struct dev *d);
/*
 * dev_open over the maps a running device pinned in dir (pin.h): its
 * state is kept. A map missing or of another layout is refused (-EPROTO,
 * said on stderr by name). The programs are the running ones when the
 * device's build record (maps/mrcd_build, written by dev_pin) names this
 * build (dev_build_id) and every pinned program is the one recorded
 * (type, tag, the maps it uses): d->reused, nothing loaded or verified.
 * Otherwise, or in any doubt, this build's are loaded (the reason is
 * logged).
 */
int dev_open_pinned(struct dev *d, const char *dir);
/*
 * ACK clocking (bpf/mrc_xdp_ack_tx.bpf.c) on or off: the receive program
 * then sends a CC QP's next packet in the ACK that made room for it, or
 * wakes mrcd to. Sets (or empties) mrc_ack_clock with this dev's program,
 * loaded or reused with the others: call it once the device is this
 * mrcd's, for the running programs use the array at once. 0 or -errno
 * (said on stderr).
 */
int dev_ack_clock(struct dev *d, int on);
/*
 * Makes this process the device's pump (mrc_pump, abi.h) and attaches the
 * pump's watch (bpf/mrc_pump_gone.bpf.c), its links pinned in dir (a
 * predecessor's replaced): when this process is killed or exits, the
 * data path clocks every QP from its ACKs until the next mrcd calls this.
 * A watch of this build left running (its record, maps/mrcd_pump_rec,
 * names the pinned programs and the links run them) is reused, not
 * loaded again. 0 or -errno (said on stderr).
 */
int dev_pump_watch(struct dev *d, const char *dir);
/*
 * This mrcd stops pumping and leaves the device running: the same as its
 * death, now (mrc_pump_leave: gone, and every send queue unserved).
 */
int dev_pump_gone(struct dev *d);
/*
 * This build's identity: the SHA-256 of its BPF objects (Makefile),
 * with ":VALUE" added when $MRCD_TEST_BUILD_ID is set (tests: an mrcd
 * that must not take the running programs for its own). It can only
 * differ from another build's, never equal it.
 */
const char *dev_build_id(void);
/* The reusable pinned tc program dev_open_pinned found (the caller's to
 * close), or -1: load it. */
int dev_take_tc(struct dev *d);
/*
 * Pins every map of the data path as maps/NAME in dir (pin.h; maps: 0,
 * already there) and its programs as progs/NAME (lowlat_fd >= 0: the tc
 * one too), then records them (maps/mrcd_build): this build's identity
 * and each program's type, tag and maps, for the next mrcd to reuse.
 */
int dev_pin(struct dev *d, const char *dir, int lowlat_fd, int maps);
/* Attach the receive program to ifname as port index port; dmac is the
 * next hop's MAC on that plane, v6 chooses the address family. */
int dev_add_port(struct dev *d, int port, const char *ifname,
		 const uint8_t dmac[6], int v6);
/* An idle interface the transmit program is attached to (DESIGN.md). */
int dev_set_anchor(struct dev *d, const char *ifname);
/*
 * Whether this kernel takes a live frame of DEV_LIVE_FRAME_MAX bytes with
 * ifname as its ingress (one transmit call that sends nothing): 0, or
 * -errno, said in the log. Before anything is attached.
 */
int dev_check_live_frame(struct dev *d, const char *ifname);
/*
 * Transmit without live frames, for a kernel that refuses them: the
 * pump's packets as doorbells through mrc_tc_tx (attached on lo by
 * dev_lowlat), dev_emit's frames by a packet socket. 0 or -errno.
 */
int dev_tx_by_skb(struct dev *d);
/* QP qpn's doorbell token, for dev_tx_by_skb (0: none, or gone). */
void dev_qp_db_token(struct dev *d, uint32_t qpn, uint64_t token);
void dev_close(struct dev *d);
/* Closes this process's handles only: programs stay attached and maps
 * alive (pinned) for the next mrcd. */
void dev_release(struct dev *d);
/*
 * Runs one command of the control program (bpf/mrc_xdp_ctl.bpf.c) on EV
 * ev_idx of QP qpn: op is enum mrc_dp_op, reason goes into the EV event.
 * Returns 0, or -errno (its own, or the program's: ENOENT, EINVAL).
 */
int dev_ev_cmd(struct dev *d, uint32_t op, uint32_t qpn, uint32_t ev_idx,
	       uint32_t reason);
/*
 * What mrcd reads of QP qpn's send state: its view, copied under the send
 * lock by the control program. The only reader of mrc_qp_tx. 0 or -errno.
 */
int dev_qp_view(struct dev *d, uint32_t qpn, struct mrc_qp_view *v);
/*
 * An interface's IP MTU and whether it is up with carrier, by ioctl in the
 * current network namespace (sysfs shows its mounter's). 0 or -errno.
 */
int dev_link_state(const char *ifname, uint32_t *mtu, int *up);

/*
 * Region idx: a map of len bytes that peers name from va on; the first
 * head bytes (a buffer registered mid-page) are not theirs to write.
 */
int dev_mr_create(struct dev *d, uint32_t idx, uint64_t len, uint32_t pd,
		  uint64_t va, uint32_t head, struct dev_mr *mr);
uint8_t *dev_mr_at(const struct dev_mr *mr, uint64_t off);
/* The device forgets region idx: its rkey no longer admits anything. */
void dev_mr_remove(struct dev *d, uint32_t idx);
/* Unmap and close what dev_mr_create left in *mr. */
void dev_mr_destroy(struct dev_mr *mr);

/*
 * A completion ring as CQ idx; returns its fd (the caller's) or -errno.
 * notify_fd, if given, gets the fd of the CQ's notify word (abi.h,
 * MRC_CQ_POLLED), the caller's too; without, the CQ has none and its
 * ring wakes its readers as the ring buffer decides.
 */
int dev_cq_map(struct dev *d, uint32_t idx, int *notify_fd);
void dev_cq_remove(struct dev *d, uint32_t idx);
/* A completion ring and an in-process consumer of it. */
int dev_cq_create(struct dev *d, uint32_t idx, struct dev_cq *cq);
/* Up to max completions into out (kept in per-QP seq order by the caller). */
int dev_cq_poll(struct dev_cq *cq, struct mrc_cqe *out, int max);
void dev_cq_destroy(struct dev_cq *cq);

struct dev_qp_attr {
	uint32_t qpn, peer_qpn, pd, send_cq, recv_cq;
	uint32_t mtu, retry_linear, retry_exp, max_wimm;
	uint32_t window; /* ours as responder (MPR), PSNs */
	uint32_t window_tx; /* the peer's, PSNs; 0: same as window */
	uint64_t timeout_ns;
	uint32_t first_psn; /* ours to send */
	uint32_t peer_first_psn; /* the peer's */
	int v6;
	uint8_t peer_addr[MRC_MAX_PORTS][16];
	uint16_t ev_base; /* EVs: ev_base + i, spread over the ports */
	uint32_t nev;
	/* 1: the EVs are ev[], ev_fl[] and ev_port[] (an EV profile's) */
	int evs_given;
	uint16_t ev[MRC_QP_EVS], ev_fl[MRC_QP_EVS];
	uint8_t ev_port[MRC_QP_EVS]; /* 0-based */
	uint32_t ev_min_active; /* 0: nev / 8, rounded up */
	/* 1: the EVs are SRv6 routes, route[i] EV i's (docs/wire.md) */
	int srv6;
	struct mrc_srv6_route route[MRC_QP_EVS];
	uint32_t reorder_ns; /* 0: MRC_REORDER_NS_DEFAULT */
	uint32_t ack_every; /* 0: MRC_ACK_EVERY_DEFAULT; 1: ACK every packet */
	uint64_t db_token; /* mrc_doorbell.token for this QP */
	/* Its CC profile's mrc_cc slot (0: none) and parameters, to start
	 * its window from. */
	uint32_t cc_slot;
	struct mrc_nscc_params cc;
};

/*
 * QP qpn's send queue, mapped at *sq; its map fd in *fd if fd is not NULL.
 * A map never mapped before: it comes from a batch of fresh ones put in
 * the map of maps together (the kernel waits out an RCU grace period on
 * every update of one from userspace: some 16 ms each on a busy 2-core
 * machine, two per QP's life before).
 */
int dev_sq_create(struct dev *d, uint32_t qpn, struct mrc_sq **sq, int *fd);
/* QP qpn's send queue is a predecessor's, adopted (serve_adopt_qp). */
void dev_sq_adopt(struct dev *d, uint32_t qpn);
/*
 * The halves (DEV_QP_RX, DEV_QP_TX) of a QP from a, in state: the receive
 * half at RTR, the send half at RTS (writing a half resets its state).
 */
#define DEV_QP_RX 1
#define DEV_QP_TX 2
int dev_qp_config(struct dev *d, const struct dev_qp_attr *a, uint32_t state,
		  int halves);
/*
 * CC profile slot's parameters for the data path (mrc_cc), p NULL: none
 * (its QPs, if any were left, run without a window). 0 or -errno.
 */
int dev_cc_set(struct dev *d, uint32_t slot, const struct mrc_nscc_params *p);
int dev_qp_set_state(struct dev *d, uint32_t qpn, uint32_t state);
/*
 * EV idx's SRv6 route of QP qpn into *r (idx < 0: any EV's on port p).
 * 0; -ENOENT when the QP is no SRv6 one or has no such route.
 */
int dev_qp_route(struct dev *d, uint32_t qpn, int idx, uint32_t p,
		 struct mrc_srv6_route *r);
/* The send half's window (the peer's MPR), 1..256 PSNs. 0 or -errno. */
int dev_qp_set_window(struct dev *d, uint32_t qpn, uint32_t psns);
/* The receive half's window (our MPR), 1..256 PSNs. 0 or -errno. */
int dev_qp_set_rx_window(struct dev *d, uint32_t qpn, uint32_t psns);
/* A QP in RTS with its send queue; *sq is the mmapped queue. */
int dev_qp_create(struct dev *d, const struct dev_qp_attr *a,
		  struct mrc_sq **sq);
/* Both halves back to RESET (zero). */
void dev_qp_clear(struct dev *d, uint32_t qpn);
void dev_qp_destroy(struct dev *d, uint32_t qpn, struct mrc_sq *sq);
/* Send state of a QP, read from the map (for idle/in-flight decisions). */
int dev_qp_tx_state(struct dev *d, uint32_t qpn, uint32_t *state, uint32_t *una,
		    uint32_t *next);

/* Runs of the transmit program in one call at most (dev_tx_list). */
#define DEV_TX_CALL_RUNS 256
/*
 * Transmit for the n QPs of e (at most MRC_TX_LIST_MAX) through the
 * program's list k (struct mrc_tx_list: one thread uses list k at a
 * time, k < MRC_TX_LISTS), in calls of at most DEV_TX_CALL_RUNS runs: up
 * to e[i].left (1 or more) packets of QP e[i].qpn, sprayed over the EVs of
 * lane e[i].lane of e[i].lanes (1: all). A QP that has nothing to send
 * gives its runs up to the next. Sets each e[i].sent. Returns the calls
 * made, or -errno. Threads may call at once, for one QP too: each call
 * names its list in the slot of the CPU it runs on (struct mrc_tx_call,
 * txthreads.h).
 */
int dev_tx_list(struct dev *d, uint32_t k, struct mrc_tx_entry *e, uint32_t n);
/* One QP's call through list 0 (for tools with one thread): how many
 * packets it sent, or -errno. */
int dev_tx_burst(struct dev *d, uint32_t qpn, uint32_t n, uint32_t lane,
		 uint32_t lanes);
/*
 * A frame built whole (Ethernet header on) out of port (0-based) through
 * the data path, as the data leaves (MRC_DP_EMIT). 0, or -errno: -EMSGSIZE
 * above MRC_DP_FRAME_MAX bytes; a port with no mrc_tx_port entry is counted
 * in mrcd_frames_failed, not an error here.
 */
int dev_emit(struct dev *d, uint32_t port, const void *frame, uint32_t len);

#endif /* MRC_DAEMON_DEV_H */
