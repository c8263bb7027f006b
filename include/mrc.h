/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains the MRC application API as OCP MRC 1.0 defines it
 * (names, types, enums and semantics of the public mrc.h), implemented by
 * libmrc on the soft MRC device that mrcd runs. Declarations and comments
 * are this project's own.
 *
 * Programs open the device with the usual verbs calls (ibv_get_device_list,
 * ibv_open_device, ibv_alloc_pd, ibv_reg_mr), which libmrc itself answers
 * for its device and forwards to libibverbs for real ones, whatever the
 * link order (docs/libmrc.md). Everything else goes through the mrc_*
 * calls below. Calls that return int return 0 on success; on failure they
 * return an errno value (and set errno), except where a comment says -1.
 */
#ifndef MRC_H
#define MRC_H

#include <stdint.h>
#include <infiniband/verbs.h>

#include <mrc_api_ver.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes of opaque vendor configuration in hints and QP attributes. */
#define MRC_MAX_VENDOR_CFG_SIZE 128

/* Wire protocol versions, one bit each; 0 asks for the device's default. */
enum mrc_protocol_version {
	MRC_PROTOCOL_VERSION_0 = 0,
	MRC_PROTOCOL_VERSION_1 = (1 << 0),
};

struct mrc_context;
struct mrc_qp_hint;
struct mrc_qp;
struct mrc_cq;
struct mrc_comp_channel;

struct mrc_device_attr {
	uint32_t mrc_protocol_version; /* bitmap of enum mrc_protocol_version */
	struct {
		uint16_t max_wimm; /* WRITE_IMMs in flight, as requester */
		uint16_t max_wimm_dest; /* ...as responder */
	} wimm_attr;
	struct {
		uint8_t max_mpr; /* largest MPR, in units of 128 PSNs */
		uint8_t mpr_resolution; /* MPR granularity, units of 128 PSNs */
		uint8_t dynamic_mpr; /* non-zero: responder dynamic MPR */
	} mpr_attr;
	struct {
		uint32_t max_qp_hint;
	} qp_attr;
};

/*
 * MRC attributes of a device; *supported is 0 if it is no MRC device.
 * API 1.0.0 names the device by its verbs context. From 1.0.1 the MRC
 * context names it too; a verbs context is still accepted there, so that
 * programs written either way build with the default MRC_API_VER_USED.
 */
int mrc_query_device(struct ibv_context *context, struct mrc_device_attr *attr,
		     int *supported);
#if MRC_API_VER_USED >= MRC_API_VER(1, 0, 1)
/* The 1.0.1 form's entry point: call it as mrc_query_device(mrc_ctx, ...). */
int mrcx_query_device_mctx(struct mrc_context *mrc_ctx,
			   struct mrc_device_attr *attr, int *supported);
#ifndef __cplusplus
/* Chosen by the type of the first argument (C++: an overload, below). */
#define mrc_query_device(ctx, attr, supported)     \
	_Generic((ctx), struct mrc_context *       \
		 : mrcx_query_device_mctx, default \
		 : mrc_query_device)(ctx, attr, supported)
#endif

/*
 * The MRC API versions this library implements (any pointer may be NULL),
 * callable before any context exists.
 */
void mrc_query_version(uint32_t *current_version,
		       uint32_t *last_supported_version,
		       uint32_t *vendor_version,
		       uint32_t *last_supported_vendor_version);
#endif

/*
 * struct mrc_attr is what earlier drafts of the API (and programs written
 * for them, such as NCCL net plugins) call struct mrc_device_attr. C has
 * no alias for a struct tag, so the name is a macro: it renames every
 * identifier mrc_attr in the program the same way. Define
 * MRC_NO_COMPAT_NAMES before the include to go without it.
 */
#ifndef MRC_NO_COMPAT_NAMES
#define mrc_attr mrc_device_attr
#endif

struct mrc_context_attr {
	uint32_t mrc_api_version_used; /* MRC_API_VER(...) or _LATEST */
};

/*
 * The parent of every other MRC object of one application on one device;
 * context_attr may be NULL. Returns NULL with errno set on failure.
 */
struct mrc_context *mrc_create_context(struct ibv_context *vcontext,
				       struct mrc_context_attr *context_attr);
/* Returns 0, or -1 (errno EBUSY while objects of it remain). */
int mrc_destroy_context(struct mrc_context *mrc_ctx);

/* A completion channel: one fd that becomes readable on armed CQ events. */
int mrc_create_comp_channel(struct mrc_context *mrc_ctx,
			    struct mrc_comp_channel **channel);
/* Returns 0, or -1. */
int mrc_get_comp_channel_fd(struct mrc_comp_channel *channel, int *fd);
int mrc_destroy_comp_channel(struct mrc_comp_channel *channel);

/* A CQ of at least cqe entries; channel may be NULL. NULL + errno on error. */
struct mrc_cq *mrc_create_cq(struct mrc_context *mrc_ctx, int cqe,
			     void *cq_context, struct mrc_comp_channel *channel,
			     int comp_vector);
/*
 * Up to num_entries completions into wc, oldest first; fewer than asked
 * means the CQ is now empty. Returns the count, or -1 on error.
 */
int mrc_poll_cq(struct mrc_cq *cq, int num_entries, struct ibv_wc *wc);
int mrc_destroy_cq(struct mrc_cq *cq);

/* What the application expects of the QPs it gives a hint to. */
struct mrc_qp_hint_attr {
	int num_qps_per_peer; /* QPs sending to the same peer at once */
	int num_send_peers; /* peers these QPs send to at once */
	int num_remote_recv_peers; /* QPs of others sending to the peer */
	uint8_t vendor_cfg[MRC_MAX_VENDOR_CFG_SIZE];
};

enum mrc_qp_hint_attr_mask {
	MRC_QP_HINT_NUM_QPS_PER_PEER = (1 << 0),
	MRC_QP_HINT_NUM_SEND_PEERS = (1 << 1),
	MRC_QP_HINT_NUM_REMOTE_RECV_PEERS = (1 << 2),
	MRC_QP_HINT_VENDOR_CFG = (int)(1u << 31),
};

struct mrc_qp_hint_init_attr {
	struct mrc_qp_hint_attr attr;
};

struct mrc_qp_hint *mrc_create_qp_hint(struct mrc_context *mrc_ctx,
				       struct mrc_qp_hint_init_attr *init_attr);
/* EINVAL: bad argument; EBUSY: a QP still uses the hint. */
int mrc_destroy_qp_hint(struct mrc_qp_hint *qp_hint);
int mrc_query_qp_hint(struct mrc_qp_hint *qp_hint,
		      struct mrc_qp_hint_attr *qp_hint_attr,
		      int qp_hint_attr_mask);
int mrc_modify_qp_hint(struct mrc_qp_hint *qp_hint,
		       struct mrc_qp_hint_attr *qp_hint_attr,
		       int qp_hint_attr_mask);

struct mrc_qp_init_attr {
	void *qp_context;
	struct mrc_cq *send_cq;
	struct mrc_cq *recv_cq;
	struct ibv_qp_cap cap;
	int sq_sig_all; /* every send WR completes, signaled or not */
	struct ibv_pd *pd;
	uint64_t send_ops_flags; /* enum ibv_qp_create_send_ops_flags */
	enum mrc_protocol_version protocol_version; /* 0: device default */
};

/* A QP in RESET. NULL + errno on failure. */
struct mrc_qp *mrc_create_qp(struct mrc_context *mrc_ctx,
			     struct mrc_qp_init_attr *mrc_qp_attr);
int mrc_destroy_qp(struct mrc_qp *qp);

/*
 * MRC attributes of a QP. A transition requires these (besides
 * IBV_QP_STATE and the verbs attributes an RC QP needs):
 *   RESET -> INIT  MRC_QP_HINT, MRC_EV_PROFILE_ID, MRC_CC_PROFILE_ID
 *   INIT -> RTR    MRC_QP_MAX_WIMM_DEST, MRC_QP_MPR_DEST,
 *                  MRC_QP_DYNAMIC_MPR_DEST
 *   RTR -> RTS     MRC_QP_MAX_WIMM, MRC_QP_MPR, MRC_QP_RETRY_CNT,
 *                  MRC_QP_TIMEOUT
 */
enum mrc_qp_attr_mask {
	MRC_QP_MAX_WIMM = (1 << 0),
	MRC_QP_MAX_WIMM_DEST = (1 << 1),
	MRC_QP_MPR = (1 << 2),
	MRC_QP_MPR_DEST = (1 << 3),
	MRC_QP_DYNAMIC_MPR_DEST = (1 << 4),
	MRC_QP_TIMEOUT = (1 << 5),
	MRC_EV_PROFILE_ID = (1 << 6),
	MRC_CC_PROFILE_ID = (1 << 7),
	MRC_QP_HINT = (1 << 8),
	MRC_QP_RETRY_CNT = (1 << 9),
	MRC_QP_VENDOR_CFG = (int)(1u << 31),
};

struct mrc_qp_attr {
	struct {
		uint8_t mpr; /* requester: PSNs in flight, units of 128 */
		uint8_t mpr_dest; /* responder: PSNs accepted, units of 128 */
		uint8_t dynamic_mpr_dest; /* 1: responder may vary its MPR */
	} mpr;
	struct {
		uint16_t max_wimm; /* WRITE_IMMs in flight, as requester */
		uint16_t max_wimm_dest; /* ...accepted as responder */
	} wimm;
	uint8_t timeout; /* ACK timeout: 1.024 us x 2^timeout, at most 24 */
	struct {
		uint64_t ev_profile_id; /* set by the host's controller */
		uint64_t cc_profile_id;
	} profile;
	struct {
		uint8_t linear_cnt; /* retries one timeout apart, at most 7 */
		uint8_t exp_cnt; /* then doubling; at most 25, 25: forever */
	} retry;
	struct mrc_qp_hint *qp_hint; /* NULL: none */
	uint8_t vendor_cfg[MRC_MAX_VENDOR_CFG_SIZE];
};

int mrc_query_qp(struct mrc_qp *qp, struct ibv_qp_attr *vattr, int vattr_mask,
		 struct mrc_qp_attr *mrc_attr, int mrc_attr_mask,
		 struct mrc_qp_init_attr *init_attr);

/*
 * Moves the QP through RESET -> INIT -> RTR -> RTS (or to ERR or RESET from
 * any state). OCP's API does not support IBV_QP_PORT, IBV_QP_TIMEOUT and
 * IBV_QP_RETRY_CNT (use MRC_QP_TIMEOUT and MRC_QP_RETRY_CNT),
 * IBV_QP_RNR_RETRY, IBV_QP_MIN_RNR_TIMER, IBV_QP_MAX_QP_RD_ATOMIC,
 * IBV_QP_MAX_DEST_RD_ATOMIC, IBV_QP_ALT_PATH and IBV_QP_PATH_MIG_STATE.
 * libmrc accepts the ones an RC program passes (timeout and retry count
 * become MRC_QP_TIMEOUT and linear retries, the rest are ignored) and
 * gives MRC attributes not passed their defaults (docs/libmrc.md); ALT_PATH
 * and PATH_MIG_STATE are refused (EINVAL). With MRC_STRICT=1 in the
 * environment every unsupported attribute, and every required MRC
 * attribute missing, is refused and named on stderr. IBV_QP_AV names the
 * peer by its GID; the source GID is the device's own. IBV_QP_CUR_STATE
 * asserts the current state.
 */
int mrc_modify_qp(struct mrc_qp *qp, struct ibv_qp_attr *vattr, int vattr_mask,
		  struct mrc_qp_attr *mrc_attr, int mrc_attr_mask);

/* Returns 0, or -1. */
int mrc_get_qpn(struct mrc_qp *qp, uint32_t *qpn);

/* Receive WRs consumed by incoming WRITE_IMMs, as ibv_post_recv(). */
int mrc_post_recv(struct mrc_qp *qp, struct ibv_recv_wr *wr,
		  struct ibv_recv_wr **bad_wr);

/* IBV_WR_RDMA_WRITE and IBV_WR_RDMA_WRITE_WITH_IMM, as ibv_post_send(). */
int mrc_post_send(struct mrc_qp *qp, struct ibv_send_wr *wr,
		  struct ibv_send_wr **bad_wr);

struct mrc_async_event {
	union {
		struct mrc_cq *cq;
		struct mrc_qp *qp;
		int port_num;
	} element;
	enum ibv_event_type event_type;
};

/* Blocks for the next asynchronous event; acknowledge each one. */
int mrc_get_async_event(struct mrc_context *mrc_ctx,
			struct mrc_async_event *event);
void mrc_ack_async_event(struct mrc_async_event *event);

/* Arm the CQ: its channel fires on the next completion. */
int mrc_req_notify_cq(struct mrc_cq *cq, int solicited_only);
/* Blocks for the next event on the channel; returns 0, or -1. */
int mrc_get_cq_event(struct mrc_comp_channel *channel, struct mrc_cq **cq,
		     void **cq_context);
/* Every event got must be acknowledged before mrc_destroy_cq(). */
void mrc_ack_cq_events(struct mrc_cq *cq, unsigned int nevents);

#ifdef __cplusplus
}

#if MRC_API_VER_USED >= MRC_API_VER(1, 0, 1)
static inline int mrc_query_device(struct mrc_context *mrc_ctx,
				   struct mrc_device_attr *attr, int *supported)
{
	return mrcx_query_device_mctx(mrc_ctx, attr, supported);
}
#endif
#endif

#endif /* MRC_H */
