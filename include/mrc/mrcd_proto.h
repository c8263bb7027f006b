/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains the protocol between libmrc and mrcd: one request and
 * one reply per message on a SOCK_SEQPACKET unix socket, file descriptors
 * (maps, eventfds) passed with SCM_RIGHTS on the reply. Every object a
 * connection creates belongs to it: requests naming another connection's
 * object fail with EPERM (ENOENT when nothing by that number exists), and
 * everything a connection owns is destroyed when it closes.
 */
#ifndef MRC_MRCD_PROTO_H
#define MRC_MRCD_PROTO_H

#include <stdint.h>

#include "abi.h"
#include "ev_fields.h"
#include "../mrc_ext.h"

/*
 * The public extension API (mrc_ext.h) names the device's limits and
 * reasons by its own values, and this protocol carries its structs: they
 * must stay the data path's.
 */
_Static_assert(MRCX_QP_EVS == MRC_QP_EVS, "mrc_ext.h: EVs per QP");
/* Every reason of the data path's (abi.h) is in mrc_ext.h, same value:
 * a new one there without its public name does not build. */
#define MRCD_SAME_REASON(name, value, text)            \
	_Static_assert((int)MRCX_EV_R_##name == value, \
		       "mrc_ext.h: reason " #name);
MRC_EV_REASONS(MRCD_SAME_REASON)
#undef MRCD_SAME_REASON

#define MRCD_SOCKET_DEFAULT "/run/mrc/mrcd.sock"
#define MRCD_SOCKET_ENV "MRC_SOCKET" /* overrides the default path */
#define MRCD_PROTO_VERSION 8

enum mrcd_op {
	MRCD_HELLO = 1, /* -> mrcd_dev_info */
	MRCD_PD_ALLOC, /* -> obj.idx */
	MRCD_PD_FREE, /* obj.idx */
	MRCD_MR_REG, /* mr -> mr_rep, fd: the chunk map (mmap it) */
	MRCD_MR_DEREG, /* obj.idx */
	MRCD_CQ_CREATE, /* -> obj.idx, fds: completion ring, notify word */
	MRCD_CQ_DESTROY, /* obj.idx */
	MRCD_QP_CREATE, /* qp_create -> qp_rep, fds: send queue, doorbell */
	MRCD_QP_MODIFY, /* qp_modify */
	MRCD_QP_QUERY, /* obj.idx -> qp_query */
	MRCD_QP_DESTROY, /* obj.idx */
	MRCD_QP_HEALTH, /* qp_health -> qp_health (the QP's own EVs) */
	/*
	 * After mrcd restarted (docs/mrcd.md): a new connection takes over
	 * the objects of session resume.session, which must be this
	 * process's (same pid and uid) -> hello. ENOENT: no such session
	 * (its objects are gone; HELLO starts a new one).
	 */
	MRCD_RESUME,
	MRCD_QP_DOORBELL, /* obj.idx: a QP -> fd: its doorbell (a new one) */
	/*
	 * The controller API (mrc_ctl.h): only a peer with CAP_NET_ADMIN,
	 * else EPERM. Arrays travel inline; pointers in the attr structs
	 * are meaningless on the wire and ignored.
	 */
	MRCD_CTL_DEVICE, /* -> ctl_device */
	MRCD_CTL_PORT, /* ctl_port -> ctl_port (query or modify) */
	MRCD_CTL_FMT, /* ctl_fmt -> ctl_fmt */
	MRCD_CTL_EV_PROFILE, /* ctl_evp -> ctl_evp */
	MRCD_CTL_CC, /* ctl_cc -> ctl_cc */
	MRCD_CTL_EVENTS, /* ctl_events -> obj.idx, fds: the queue, an eventfd */
	MRCD_CTL_PROBE, /* ctl_probe -> ctl_probe, once answered or timed out */
	MRCD_CTL_PORT_LIST, /* -> ctl_ports */
	MRCD_CTL_QP_LIST, /* ctl_list -> ctl_qps */
	MRCD_CTL_EV_LIST, /* ctl_list -> ctl_evs */
	MRCD_CTL_EVENTS_CLOSE, /* obj.idx: an event queue from MRCD_CTL_EVENTS */
};

/* A controller modify or query: modify != 0 changes, else reads. */
struct mrcd_ctl_hdr {
	uint64_t id; /* profile id, or port number */
	uint32_t modify;
	int32_t mask;
};

struct mrcd_ctl_port {
	struct mrcd_ctl_hdr h;
	struct mrc_ctl_port_attr attr;
};

struct mrcd_ctl_fmt {
	struct mrcd_ctl_hdr h;
	struct mrc_ctl_ev_fmt_profile_attr attr;
	struct mrc_ctl_ev_fmt_field fields[MRC_EV_FMT_MAX_FIELDS];
};

#define MRCD_CTL_OP_MAX 64 /* EV_OP entries per request */

struct mrcd_ctl_evp {
	struct mrcd_ctl_hdr h;
	struct mrc_ctl_ev_profile_attr attr;
	struct mrc_ctl_ev_op_entry entries[MRCD_CTL_OP_MAX];
	struct mrc_ctl_ev_field fields[MRC_EV_MAX_FIELDS];
};

struct mrcd_ctl_cc {
	struct mrcd_ctl_hdr h;
	struct mrc_ctl_cc_profile_attr attr;
	char algorithm[32]; /* "" with has_algorithm: NULL (none) */
	uint32_t has_algorithm;
	uint32_t pad0;
	struct mrc_ctl_cc_nscc_cfg nscc;
};

/*
 * The EV event queue: a shared memory ring mrcd fills and the controller
 * empties, and an eventfd mrcd writes after adding events.
 */
struct mrcd_evq {
	uint32_t size; /* records, a power of two */
	uint32_t pad0;
	uint64_t prod; /* mrcd's: records written, ever */
	uint64_t cons; /* the controller's: records read, ever */
	struct mrcx_ev_event rec[]; /* size of them */
};

struct mrcd_ctl_events {
	uint32_t cqe; /* records at least */
	uint32_t pad0;
};

#define MRCD_CTL_PROBE_MAX 64 /* requests per batch */

struct mrcd_ctl_probe {
	uint32_t nreq; /* in; out: the number of answers */
	uint32_t timeout_ns;
	uint32_t tc; /* DSCP */
	uint32_t op; /* enum mrc_ctl_ep_op_type */
	struct mrc_ctl_ep_req req[MRCD_CTL_PROBE_MAX];
	struct mrc_ctl_ep_rsp rsp[MRCD_CTL_PROBE_MAX];
};

#define MRCD_LIST_QPS 64
#define MRCD_LIST_EVS 48

struct mrcd_ctl_list {
	uint32_t qpn; /* EVs: this QP, or UINT32_MAX: all */
	uint32_t cursor; /* where to go on; 0 at first */
};

struct mrcd_ctl_ports {
	uint32_t n;
	uint32_t pad0;
	struct mrcx_port_info port[MRC_MAX_PORTS];
};

struct mrcd_ctl_qps {
	uint32_t n; /* in qp[] */
	uint32_t total; /* QPs there are */
	uint32_t cursor; /* next request's; 0: done */
	uint32_t pad0;
	struct mrcx_qp_info qp[MRCD_LIST_QPS];
};

struct mrcd_ctl_evs {
	uint32_t n;
	uint32_t total;
	uint32_t cursor;
	uint32_t pad0;
	struct mrcx_ev_info ev[MRCD_LIST_EVS];
};

struct mrcd_mr_req {
	uint32_t pd;
	uint32_t access; /* IBV_ACCESS_* */
	uint64_t len; /* bytes */
	uint64_t va; /* the address peers name the region by */
	uint32_t head; /* va's offset in its page: the map starts there */
	uint32_t pad0;
};

struct mrcd_qp_create {
	uint32_t pd, send_cq, recv_cq;
	uint32_t pad0;
};

/* mrcd_qp_modify.flags */
#define MRCD_QPF_DYN_MPR 0x1 /* dynamic_mpr_dest: the responder may vary */

/* Everything the data path needs of an RTS (or RTR) QP, resolved. */
struct mrcd_qp_modify {
	uint32_t qpn;
	uint32_t state; /* enum mrc_qp_state */
	uint32_t peer_qpn;
	uint32_t mtu; /* payload bytes per packet */
	uint32_t rq_psn; /* first PSN expected from the peer */
	uint32_t sq_psn; /* first PSN we send */
	uint32_t window_rx; /* our MPR as responder, PSNs */
	uint32_t window_tx; /* the peer's MPR we respect, PSNs */
	uint32_t max_wimm; /* 0: no limit */
	uint32_t retry_linear, retry_exp;
	uint32_t flags; /* MRCD_QPF_* */
	uint64_t timeout_ns;
	uint64_t ev_profile_id; /* held from INIT until RESET or destroy */
	uint64_t cc_profile_id;
	uint8_t peer_gid[16]; /* the peer's address on some plane */
};

struct mrcd_req {
	uint32_t op; /* enum mrcd_op */
	uint32_t version; /* MRCD_PROTO_VERSION */
	union {
		struct {
			uint32_t idx;
		} obj;
		struct mrcd_mr_req mr;
		struct mrcd_qp_create qp_create;
		struct mrcd_qp_modify qp_modify;
		struct {
			uint32_t qpn;
			uint32_t after; /* events with a later number only */
		} qp_health;
		struct mrcd_ctl_port ctl_port;
		struct mrcd_ctl_fmt ctl_fmt;
		struct mrcd_ctl_evp ctl_evp;
		struct mrcd_ctl_cc ctl_cc;
		struct mrcd_ctl_events ctl_events;
		struct mrcd_ctl_probe ctl_probe;
		struct mrcd_ctl_list ctl_list;
		struct {
			uint64_t session; /* mrcd_dev_info.session */
		} resume;
	};
};

struct mrcd_dev_info {
	uint32_t nports;
	uint32_t max_qp, max_mr, max_cq;
	/* max_mtu: payload bytes per packet at most, on every port */
	uint32_t max_sq_depth, max_mtu, max_window, mr_chunk;
	uint8_t gid[MRC_MAX_PORTS][16]; /* our address per port, as a GID */
	uint8_t mac[MRC_MAX_PORTS][6];
	uint32_t port_up[MRC_MAX_PORTS];
	uint32_t port_mtu[MRC_MAX_PORTS];
	uint32_t lowlat; /* doorbells to 127.0.0.1:MRC_DOORBELL_PORT work */
	uint32_t pad0;
	/* This connection's objects, for MRCD_RESUME after a restart. */
	uint64_t session;
};

struct mrcd_mr_rep {
	uint32_t idx;
	uint32_t key; /* lkey == rkey */
	uint64_t map_len; /* bytes of the chunk map (chunks with pads) */
};

struct mrcd_qp_rep {
	uint32_t qpn;
	uint32_t pad0;
	uint64_t db_token; /* for the low-latency doorbell */
};

struct mrcd_qp_query {
	uint32_t state; /* the data path's, enum mrc_qp_state */
	uint32_t next_psn, una_psn;
	uint32_t dyn_mpr; /* bit 0 ours, bit 1 the peer's: both, in effect */
};

struct mrcd_rep {
	int32_t err; /* 0 or an errno value */
	uint32_t pad0;
	union {
		struct {
			uint32_t idx;
		} obj;
		struct mrcd_dev_info hello;
		struct mrcd_mr_rep mr;
		struct mrcd_qp_rep qp;
		struct mrcd_qp_query qp_query;
		struct mrcd_qp_health qp_health;
		struct mrc_ctl_device_attr ctl_device; /* pointers left NULL */
		struct mrcd_ctl_port ctl_port;
		struct mrcd_ctl_fmt ctl_fmt;
		struct mrcd_ctl_evp ctl_evp;
		struct mrcd_ctl_cc ctl_cc;
		struct mrcd_ctl_probe ctl_probe;
		struct mrcd_ctl_ports ctl_ports;
		struct mrcd_ctl_qps ctl_qps;
		struct mrcd_ctl_evs ctl_evs;
	};
};

#endif /* MRC_MRCD_PROTO_H */
