/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains mrcd's messages to and from the mrcd of each QP's
 * peer (wire.h's CEXT, docs/controller.md): the hello that gives each QP
 * its peer's token and dynamic MPR bit, and port status updates (OCP
 * PORT_STATUS_UPDATE). The receive program passes them to the kernel
 * stack; a UDP socket on port 4791 takes them here. Nothing is believed
 * before it is validated: a message names one of our QPs whose peer is
 * the sender's QP at the sender's address on the plane it came in on, and
 * everything but a hello carries the token this QP gave only to that
 * address. What fails is dropped and counted by reason.
 */
#ifndef MRC_DAEMON_PEER_H
#define MRC_DAEMON_PEER_H

#include <stdint.h>

#include "loop.h"
#include "mrc/abi.h"
#include "mrc_ext.h"
#include "qpset.h"

struct dev;
struct health;
struct links;
struct port_spec;
struct probe;

/* Why a control message was dropped: mrc_ext.h's list. */
#define PEER_DROPS(X) MRCX_CTL_DROPS(X)

#define PEER_DROP_ENUM(name, text) PEER_DROP_##name,
enum peer_drop { PEER_DROPS(PEER_DROP_ENUM) PEER_DROP_MAX };
#undef PEER_DROP_ENUM

/* A port down stays so this long unless said again (docs/controller.md). */
#define PEER_PSU_HOLD_NS (60ull * 1000000000ull)
#define PEER_HELLO_RETRY_NS (50ull * 1000000ull)
#define PEER_HELLO_TRIES 40

/* What this mrcd knows of one QP's peer. */
struct peer_qp {
	uint8_t live; /* RTR or RTS */
	uint8_t rts;
	uint8_t dyn_local; /* its application set dynamic_mpr_dest */
	uint8_t dyn_peer; /* the peer's did (validated answer) */
	uint8_t known; /* the peer's token and bit came in an answer */
	uint8_t pad0[3];
	uint32_t peer_qpn;
	uint32_t my_token; /* random, drawn at RTR; only the peer hears it */
	uint32_t peer_token; /* the peer's, for what we send it */
	uint32_t window_rx; /* ours as responder, PSNs */
	uint32_t window_tx; /* its application's MPR as requester, PSNs */
	uint32_t peer_window; /* the peer's receive window, PSNs */
	uint32_t window; /* in force on the send half */
	uint32_t hello_seq; /* of our hello waiting for its answer, 0: none */
	uint32_t hello_tries;
	uint64_t hello_due_ns;
	uint8_t peer_addr[MRC_MAX_PORTS][16]; /* the peer's, per plane */
};

struct peer_stats {
	uint64_t rx, sent, hellos, psu_applied, psu_answers;
	uint64_t drop[PEER_DROP_MAX];
	/* per port: taken, dropped by reason (no_port: port 0's) */
	uint32_t port_msgs[MRC_MAX_PORTS];
	uint32_t port_drop[MRC_MAX_PORTS][PEER_DROP_MAX];
};
_Static_assert(PEER_DROP_MAX <= MRCX_CTL_DROP_MAX, "mrcx_port_info room");

struct peer {
	struct dev *dev;
	struct probe *probe; /* messages go out as its frames */
	struct health *health; /* port status updates move EVs */
	const struct links *links; /* hellos leave by a live port */
	const struct port_spec *port;
	int nports, v6;
	struct loop_fd lfd;
	struct peer_stats st;
	/*
	 * A port status update's answer came (seq, 1-based port it came in
	 * on, 0: unknown); returns 0 if it answered a request waiting.
	 */
	int (*on_psu_answer)(void *arg, uint32_t seq, int port);
	void *arg;
	struct peer_qp qp[MRC_MAX_QP];
	struct qpset hello_waiting; /* hello_seq set, for peer_tick */
};

/*
 * Opens the socket (-errno, said) and registers it with the loop.
 * On zeroed storage (mrcd's is static): init writes only what is not
 * zero, so the per-QP tables cost no page until a QP uses them (each
 * first write to a page is some 6 us on a paravirtualized guest,
 * docs/mrcd.md). A test that reuses one zeroes it first.
 */
int peer_init(struct peer *pe, struct loop *l, struct dev *dev,
	      struct probe *probe, struct health *health,
	      const struct links *links, const struct port_spec *port,
	      int nports, int v6);
void peer_close(struct peer *pe, struct loop *l);
/*
 * QP qpn's application set state (RTR, RTS, RESET, ERR) with these
 * attributes: at RTR and RTS it says hello to its peer. dyn: it set
 * dynamic_mpr_dest; windows in PSNs.
 */
void peer_qp_state(struct peer *pe, uint32_t qpn, uint32_t state,
		   uint32_t peer_qpn, const uint8_t peer_gid[16], int dyn,
		   uint32_t window_rx, uint32_t window_tx);
/*
 * Dynamic MPR in effect: QP qpn (in RTS) as responder now accepts
 * window_rx PSNs; the peer's mrcd is told (MRC_CTL_MPR) and its send half
 * follows. 0, or -EINVAL (not in effect, or out of 1..256), or -errno.
 */
int peer_qp_mpr(struct peer *pe, uint32_t qpn, uint32_t window_rx);
/* Dynamic MPR of QP qpn: bit 0 ours, bit 1 the peer's; both: in effect. */
uint32_t peer_qp_dyn(const struct peer *pe, uint32_t qpn);
/*
 * A port status update out of port p (0-based) to addr (the peer's
 * address on that plane) with UDP source port sport (and flow label fl):
 * status bit i says port i + 1 of ours is up. It names a QP of ours in
 * RTS whose peer is at addr and whose token we know. 0, -ENOTCONN (no
 * such QP) or -errno.
 */
int peer_psu_send(struct peer *pe, uint32_t p, const uint8_t addr[16],
		  uint16_t sport, uint16_t fl, uint32_t status, uint32_t seq,
		  uint8_t tos);
/* One message as it came in on port p (0-based) from src (16 bytes, IPv4
 * in the first 4): the socket's reader and the unit tests. */
void peer_input(struct peer *pe, int p, const uint8_t src[16], const void *msg,
		uint32_t len);
/* Hellos not answered are said again; call often. */
void peer_tick(struct peer *pe);
/* Whether peer_tick has anything to do: hellos not answered yet. */
static inline int peer_ticking(const struct peer *pe)
{
	return !qpset_empty(&pe->hello_waiting);
}
/* The name of a drop reason. */
const char *peer_drop_name(int reason);

#endif /* MRC_DAEMON_PEER_H */
