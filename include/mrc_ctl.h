/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains the MRC controller API (OCP MRC 1.0, mrc_ctl.h): what
 * the one privileged controller of a host uses to say which paths the
 * device may use and how, and to watch them. Names, types, values and
 * error semantics are the OCP API's; the declarations and comments are
 * this project's. docs/controller.md says how mrc implements each part.
 *
 * Every call needs CAP_NET_ADMIN in the calling process (mrcd checks the
 * peer of the socket); without it a call fails with EPERM. Calls return 0,
 * or -1 with errno set, unless a comment says otherwise.
 */
#ifndef MRC_CTL_H
#define MRC_CTL_H

#include <stdint.h>
#include <infiniband/verbs.h>

#include "mrc.h"
#include "mrc_ctl_api_ver.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MRC_CTL_MAX_VENDOR_CFG_SIZE 128

/* An EV value holds up to this many bytes (SRv6: two IPv6 addresses). */
#define MRC_CTL_EV_MAX_BYTES 32

/* An explicit array entry nobody has written yet: value 0 on port 0. */
#define MRC_CTL_EV_UNPOPULATED ((struct mrc_ctl_ev){ .val = { 0 }, .port = 0 })

enum mrc_ctl_protocol_version {
	MRC_CTL_PROTOCOL_VERSION_0 = 0, /* unspecified */
	MRC_CTL_PROTOCOL_VERSION_1 = 1 << 0,
};

/* Every profile kind moves INIT -> OFFLINE -> ONLINE -> OFFLINE -> INIT. */
enum mrc_ctl_profile_state {
	MRC_CTL_PROFILE_INIT, /* exists, nothing configured */
	MRC_CTL_PROFILE_OFFLINE, /* configured, not usable by QPs */
	MRC_CTL_PROFILE_ONLINE, /* usable by QPs; few changes allowed */
};

/* ---- device ------------------------------------------------------------ */

/* Optional features (mrc_ctl_device_attr.opt_attr). */
enum mrc_ctl_attr_opt {
	MRC_CTL_OPT_CAP_EV_PROFILE_MODIFY_ONLINE = 1 << 0,
	MRC_CTL_OPT_CAP_CC_PROFILE_MODIFY_ONLINE = 1 << 1,
	MRC_CTL_OPT_CAP_EV_EVENT = 1 << 2,
	/* explicit arrays must be base, base + 1, ... (mrc: not so limited) */
	MRC_CTL_OPT_CAP_EV_EXPLICIT_RANGE = 1 << 3,
	/* drop_count in an event is exact, not just "some were lost" */
	MRC_CTL_OPT_CAP_EV_EVENT_PRECISE_DROP_CNT = 1 << 4,
	MRC_CTL_OPT_CAP_EP_OP_EV_PROBE = 1 << 5,
};

struct mrc_ctl_device_attr {
	/* enum mrc_ctl_protocol_version bits; 0: the provider chooses */
	uint32_t mrc_ctl_protocol_version;
	struct {
		uint32_t ev_max_fmt_profiles;
		uint32_t ev_max_profiles;
		uint32_t ev_max_count; /* EVs over all profiles */
		uint32_t ev_free_count; /* ...of which not yet given out */
		uint32_t ev_max_count_profile; /* EVs in one profile */
		uint32_t ev_count_align; /* explicit arrays: a multiple of it */
		uint32_t ev_max_width; /* bits of an expanded EV */
		uint32_t ev_fmt_mode_mask; /* enum mrc_ctl_ev_fmt_mode bits */
		uint32_t ev_mode_mask; /* enum mrc_ctl_ev_mode bits */
		uint32_t ev_op_max_entries; /* per EV_OP call; 0: no cap */
	} ev;
	struct {
		uint32_t cc_max_profiles;
		/* NULL-terminated; the library's strings, never free them */
		const char **algorithms;
	} cc;
	uint32_t phy_port_mask; /* bit N: port N (1-based) is ours */
	uint32_t opt_attr; /* enum mrc_ctl_attr_opt bits */
};

/*
 * What the device supports. *supported is set non-zero when context is an
 * MRC device. mcontext may be NULL; with it, the answer is the one that
 * context's mrcd gives (ev_free_count changes as profiles are configured).
 */
#if MRC_CTL_API_VER_USED >= MRC_CTL_API_VER(1, 0, 1)
int mrc_ctl_query_device_ex(struct ibv_context *context,
			    struct mrc_context *mcontext,
			    struct mrc_ctl_device_attr *ctl_attr,
			    int *supported);
#endif
int mrc_ctl_query_device(struct ibv_context *context,
			 struct mrc_ctl_device_attr *ctl_attr);

/* The controller API versions this library implements (any may be NULL). */
void mrc_ctl_query_version(uint32_t *current_version,
			   uint32_t *last_supported_version,
			   uint32_t *vendor_version,
			   uint32_t *last_supported_vendor_version);

/* ---- ports ------------------------------------------------------------- */

enum mrc_ctl_port_admin_state {
	MRC_CTL_PORT_ADMIN_DISABLED = 0,
	MRC_CTL_PORT_ADMIN_ENABLED = 1,
};

enum mrc_ctl_port_attr_mask {
	MRC_CTL_PORT_ADMIN_STATE = 1 << 0,
};

struct mrc_ctl_port_attr {
	enum mrc_ctl_port_admin_state port_admin_state;
};

/*
 * A disabled port carries nothing: all its EVs leave use at once (as on
 * carrier loss) and ibv_query_port() reports it IBV_PORT_DOWN. Enabling
 * it brings its EVs back through probing. Errors: EINVAL (no such port,
 * unknown mask bit or state), EPERM, EIO.
 */
int mrc_ctl_query_port(struct mrc_context *context, uint8_t port_num,
		       struct mrc_ctl_port_attr *attr, int attr_mask);
int mrc_ctl_modify_port(struct mrc_context *context, uint8_t port_num,
			struct mrc_ctl_port_attr *attr, int attr_mask);

/* ---- EV format profiles ------------------------------------------------ */

/*
 * Where an EV goes in a packet (docs/controller.md has the bit maps):
 *  STEV: up to 32 bits; the low 16 in the UDP source port, the high 16 in
 *        the low 16 bits of the IPv6 flow label (IPv6 peers only).
 *  SRV6: up to 256 bits, fields from the top bit of the address: bytes
 *        0..15 the outer IPv6 destination (a uSID container), 16..31 an
 *        optional SRH segment (all zero: none).
 *  UDP:  up to 16 bits, all in the UDP source port.
 */
enum mrc_ctl_ev_fmt_mode {
	MRC_CTL_EV_FMT_MODE_STEV = 1 << 0,
	MRC_CTL_EV_FMT_MODE_SRV6 = 1 << 1,
	MRC_CTL_EV_FMT_MODE_UDP = 1 << 2,
};

enum mrc_ctl_ev_fmt_op {
	MRC_CTL_EV_FMT_OP_MODIFY_FIELDS,
	MRC_CTL_EV_FMT_OP_QUERY_FIELDS,
};

enum mrc_ctl_ev_fmt_profile_attr_mask {
	MRC_CTL_EV_FMT_PROFILE_STATE = 1 << 0,
	MRC_CTL_EV_FMT_PROFILE_CUR_STATE = 1 << 1,
	MRC_CTL_EV_FMT_PROFILE_MODE = 1 << 2,
	MRC_CTL_EV_FMT_PROFILE_OP = 1 << 3,
	MRC_CTL_EV_FMT_VENDOR_CFG = (int)(1u << 31),
};

struct mrc_ctl_ev_fmt_field {
	uint8_t width; /* bits */
};

/*
 * A format: the fields an expanded EV is made of, most significant first;
 * their widths add up to the EV's width in the packet. Every non-AUTO EV
 * profile names one.
 *
 * Modify: to OFFLINE needs MODE; to ONLINE needs fields (MODIFY_FIELDS,
 * now or earlier). OFFLINE allows STATE, MODE, MODIFY_FIELDS; ONLINE only
 * STATE (to OFFLINE), and not while an ONLINE EV profile uses it (EBUSY).
 * Errors: EINVAL, EBUSY, E2BIG (fields wider than the mode carries, or
 * more than the device has), EPERM, EIO.
 * Query: QUERY_FIELDS fills ev_fmt_op.fmt_fields; when fmt_field_count is
 * too small it fails with E2BIG and sets fmt_field_count to what is needed.
 */
struct mrc_ctl_ev_fmt_profile_attr {
	enum mrc_ctl_profile_state profile_state; /* move to this state */
	enum mrc_ctl_profile_state cur_profile_state; /* query only */
	enum mrc_ctl_ev_fmt_mode ev_fmt_mode;
	struct {
		enum mrc_ctl_ev_fmt_op op;
		struct mrc_ctl_ev_fmt_field *fmt_fields;
		int fmt_field_count; /* in: array length; out: fields */
	} ev_fmt_op;
	uint8_t vendor_cfg[MRC_CTL_MAX_VENDOR_CFG_SIZE]; /* must be zero */
};

int mrc_ctl_modify_ev_fmt_profile(struct mrc_context *mrc_ctx,
				  uint64_t ev_fmt_profile_id,
				  struct mrc_ctl_ev_fmt_profile_attr *attr,
				  int attr_mask);
int mrc_ctl_query_ev_fmt_profile(struct mrc_context *mrc_ctx,
				 uint64_t ev_fmt_profile_id,
				 struct mrc_ctl_ev_fmt_profile_attr *attr,
				 int attr_mask);

/* ---- EVs ----------------------------------------------------------------- */

/* STEV and UDP: the expanded value in the first 4 bytes, host order. */
typedef uint8_t mrc_ctl_ev_t[MRC_CTL_EV_MAX_BYTES];

struct mrc_ctl_ev {
	mrc_ctl_ev_t val;
	uint8_t port; /* 1-based */
};

enum mrc_ctl_ev_state {
	MRC_CTL_EV_GOOD = 1 << 0,
	MRC_CTL_EV_ASSUMED_BAD = 1 << 1,
	MRC_CTL_EV_DENIED = 1 << 2,
	MRC_CTL_EV_UNKNOWN = (int)(1u << 31),
};

/* ---- EV profiles ----------------------------------------------------- */

enum mrc_ctl_ev_mode {
	MRC_CTL_EV_MODE_AUTO = 1 << 0, /* the device picks (mrc: profile 0) */
	MRC_CTL_EV_MODE_EXP = 1 << 1, /* the controller lists every EV */
	MRC_CTL_EV_MODE_GEN = 1 << 2, /* generated from the fields' ranges */
};

enum mrc_ctl_ev_op {
	MRC_CTL_EV_OP_REPLACE_EV,
	MRC_CTL_EV_OP_MODIFY_EV_STATE,
	MRC_CTL_EV_OP_QUERY_EV_STATE,
	MRC_CTL_EV_OP_QUERY_EV_ARRAY,
};

enum mrc_ctl_ev_fields_op {
	MRC_CTL_EV_FIELDS_OP_MODIFY_FIELDS,
	MRC_CTL_EV_FIELDS_OP_QUERY_FIELDS,
};

enum mrc_ctl_ev_profile_attr_mask {
	MRC_CTL_EV_PROFILE_STATE = 1 << 0,
	MRC_CTL_EV_PROFILE_CUR_STATE = 1 << 1,
	MRC_CTL_EV_PROFILE_MODE = 1 << 2,
	MRC_CTL_EV_PROFILE_FMT_ID = 1 << 3,
	MRC_CTL_EV_PROFILE_COUNT = 1 << 4,
	MRC_CTL_EV_PROFILE_MIN_ACTIVE = 1 << 5,
	MRC_CTL_EV_PROFILE_EVENT_MASK = 1 << 6,
	MRC_CTL_EV_PROFILE_EV_OP = 1 << 7,
	MRC_CTL_EV_PROFILE_EV_FIELDS_OP = 1 << 8,
	MRC_CTL_EV_PROFILE_VENDOR_CFG = (int)(1u << 31),
};

/*
 * One field of a profile's EVs. A compact EV (what the controller writes
 * and what generation counts in) expands field by field: start from
 * init_val, then each set bit of mask, from the most significant, takes
 * the compact EV's next most significant bit. Fields are then placed side
 * by side at the format's widths (field i in format field i, right
 * aligned, the spare high bits zero). A fixed part of the EV is a field
 * with init_val set and mask, min_val and max_val all zero.
 * Rules (EINVAL): init_val and mask fit in width; max_val fits in as many
 * bits as mask has; min_val <= max_val; width <= the format field's.
 * More fields than the format has, or more bits: E2BIG.
 */
struct mrc_ctl_ev_field {
	uint32_t width;
	uint32_t init_val;
	uint32_t min_val; /* generated EVs: this field's values, counted */
	uint32_t max_val; /* in the mask bits, run from min to max */
	uint32_t mask;
};

enum mrc_ctl_ev_op_flags {
	MRC_CTL_EV_OP_F_ALL_COPIES = 1 << 0, /* REPLACE_EV: every match */
};

/*
 * One entry of an EV operation. REPLACE_EV: ev (matched on value and
 * port) becomes ev_new with state; MODIFY_EV_STATE: ev gets state;
 * QUERY_EV_STATE: state is filled for ev; QUERY_EV_ARRAY: ev and state
 * are filled, entry i for array index i.
 */
struct mrc_ctl_ev_op_entry {
	struct mrc_ctl_ev ev;
	struct mrc_ctl_ev ev_new;
	enum mrc_ctl_ev_state state;
	uint32_t flags; /* enum mrc_ctl_ev_op_flags */
};

/*
 * An EV profile: the EVs QPs that name it spray over.
 *
 * To OFFLINE needs MODE, and for EXP and GEN also FMT_ID, COUNT and the
 * fields (EV_FIELDS_OP MODIFY_FIELDS). An EXP array starts unpopulated and
 * every entry must be replaced before ONLINE; to ONLINE also needs
 * MIN_ACTIVE and EVENT_MASK, and an ONLINE format profile. OFFLINE allows
 * everything; ONLINE allows STATE (to OFFLINE, EBUSY while QPs use it),
 * EVENT_MASK, REPLACE_EV (EBUSY while QPs use it), MODIFY_EV_STATE
 * (DENIED and back: GOOD means "allowed again") and the queries. An
 * EV_OP takes at most ev_op_max_entries entries (E2BIG). EV_OP and EV_FIELDS_OP together: EINVAL. An EV_OP runs entry
 * by entry and stops at the first that fails (ENOENT: no such EV).
 * Errors: E2BIG (arrays longer than the device allows; a query array too
 * short, with the needed length written back), EINVAL, ENOENT, EBUSY,
 * EPERM, EIO.
 *
 * EV state is kept per QP (docs/health.md says why); a profile EV's state
 * is DENIED when denied, else ASSUMED_BAD when any QP has it so, else GOOD.
 */
struct mrc_ctl_ev_profile_attr {
	enum mrc_ctl_profile_state profile_state;
	enum mrc_ctl_profile_state cur_profile_state;
	enum mrc_ctl_ev_mode ev_mode;
	uint64_t ev_fmt_profile_id;
	uint32_t ev_count; /* EVs in the array */
	uint32_t ev_min_active; /* <= ev_count */
	int ev_event_mask; /* MRC_CTL_EV_GOOD | MRC_CTL_EV_ASSUMED_BAD */
	struct {
		enum mrc_ctl_ev_op op;
		struct mrc_ctl_ev_op_entry *entries;
		int entry_count; /* in: array length; out: as used */
	} ev_op;
	struct {
		enum mrc_ctl_ev_fields_op op;
		struct mrc_ctl_ev_field *fields;
		int field_count; /* in: array length; out: as used */
	} ev_fields_op;
	uint8_t vendor_cfg[MRC_CTL_MAX_VENDOR_CFG_SIZE]; /* must be zero */
};

int mrc_ctl_modify_ev_profile(struct mrc_context *mrc_ctx,
			      uint64_t ev_profile_id,
			      struct mrc_ctl_ev_profile_attr *attr,
			      int attr_mask);
int mrc_ctl_query_ev_profile(struct mrc_context *mrc_ctx,
			     uint64_t ev_profile_id,
			     struct mrc_ctl_ev_profile_attr *attr,
			     int attr_mask);

/* ---- CC profiles ----------------------------------------------------- */

enum mrc_ctl_cc_profile_attr_mask {
	MRC_CTL_CC_PROFILE_STATE = 1 << 0,
	MRC_CTL_CC_PROFILE_CUR_STATE = 1 << 1,
	MRC_CTL_CC_PROFILE_ALGORITHM = 1 << 2,
	MRC_CTL_CC_PROFILE_CONFIG = 1 << 3,
	MRC_CTL_CC_PROFILE_VENDOR_CFG = (int)(1u << 31),
};

/*
 * To OFFLINE needs ALGORITHM (one of device_attr.cc.algorithms, or NULL:
 * no congestion control); to ONLINE needs CONFIG (struct
 * mrc_ctl_cc_nscc_cfg for "uet-1.0-nscc", ignored for NULL). A query
 * returns the library's copy of the algorithm name and, in cc_config, a
 * pointer into attr's own storage that stays valid until the next query
 * with the same attr.
 */
struct mrc_ctl_cc_profile_attr {
	enum mrc_ctl_profile_state profile_state;
	enum mrc_ctl_profile_state cur_profile_state;
	const char *algorithm;
	const void *cc_config;
	uint8_t vendor_cfg[MRC_CTL_MAX_VENDOR_CFG_SIZE]; /* must be zero */
};

/* UET 1.0 NSCC parameters. */
struct mrc_ctl_cc_nscc_cfg {
	uint8_t disable_qa; /* non-zero: no quick adapt */
	uint32_t adjust_bytes_threshold; /* bytes */
	uint32_t adjust_period_threshold; /* ns */
	uint32_t base_rtt; /* ns */
	float eta;
	float fi;
	float fi_scale;
	float gamma;
	float max_md_jump;
	uint32_t max_cwnd; /* bytes */
	uint8_t qa_gate;
	uint32_t qa_threshold; /* ns */
	uint32_t target_delay; /* ns */
};

int mrc_ctl_modify_cc_profile(struct mrc_context *mrc_ctx,
			      uint64_t cc_profile_id,
			      struct mrc_ctl_cc_profile_attr *attr,
			      int attr_mask);
int mrc_ctl_query_cc_profile(struct mrc_context *mrc_ctx,
			     uint64_t cc_profile_id,
			     struct mrc_ctl_cc_profile_attr *attr,
			     int attr_mask);

/* ---- EV events --------------------------------------------------------- */

/*
 * One EV state change of a profile EV that its profile's ev_event_mask
 * selects. drop_count: events lost just before this one (exact here,
 * MRC_CTL_OPT_CAP_EV_EVENT_PRECISE_DROP_CNT).
 */
struct mrc_ctl_ev_event {
	uint64_t profile_id;
	struct mrc_ctl_ev ev;
	uint32_t drop_count;
#if MRC_CTL_API_VER_USED >= MRC_CTL_API_VER(1, 0, 1)
	enum mrc_ctl_ev_state state;
#endif
};

/*
 * An EV event queue holds at least cqe events; when it is full, further
 * events are counted, not queued, and the count arrives with the next one
 * that fits. Destroy it with mrc_destroy_cq(). With a channel, a new event
 * wakes it as a completion does (mrc_req_notify_cq arms it).
 */
struct mrc_cq *mrc_ctl_create_ev_event_cq(struct mrc_context *mrc_ctx, int cqe,
					  void *cq_context,
					  struct mrc_comp_channel *channel,
					  int comp_vector);

/* Returns how many events it wrote (0..num_entries), or -errno. */
int mrc_ctl_poll_ev_event(struct mrc_cq *ev_cq, int num_entries,
			  struct mrc_ctl_ev_event *ev_event);

/* ---- endpoint requests (probes) --------------------------------------- */

enum mrc_ctl_ep_op_type {
	MRC_CTL_EP_OP_EV_PROBE,
	/*
	 * Tells the peer at dgid which of our ports are up (port_status bit
	 * p-1: port p): its QPs to us stop using EVs that lead to our ports
	 * said down, until told they are up (docs/controller.md). Needs a QP
	 * of ours in RTS to dgid (ENOTCONN otherwise); answered by the peer.
	 */
	MRC_CTL_EP_OP_PORT_STATUS_UPDATE,
};

struct mrc_ctl_ep_req {
	uint16_t req_id; /* unique among outstanding requests */
	union ibv_gid sgid; /* ours (RoCEv2 GID: IPv4-mapped or IPv6) */
	union ibv_gid dgid; /* the peer's, on any plane */
	enum mrc_ctl_ev_fmt_mode ev_fmt_mode; /* STEV or UDP */
	struct mrc_ctl_ev req_ev; /* the EV and port the probe leaves by */
	union {
		struct {
			/* bit p-1 set: our port p is up; clear: down */
			uint32_t port_status;
		} port_status_update;
	} op;
};

struct mrc_ctl_ep_rsp {
	uint16_t req_id;
	uint8_t port; /* where the answer came in (1-based) */
	unsigned int rtt; /* ns */
	uint8_t adj_svc_time; /* rtt excludes the responder's service time */
};

/*
 * Sends every request, then waits up to rsp_timeout ns for the answers,
 * which fill rsp in the order they arrive. *num_rsp is set also when the
 * call fails with ETIMEDOUT (some answers missing). Errors: EINVAL,
 * ENOTSUP, EAGAIN, ENOMEM, EPERM, EIO, ETIMEDOUT, and for port status
 * updates ENOTCONN (no QP of ours in RTS to a dgid, or its peer not yet
 * heard from).
 */
int mrc_ctl_ep_batch_send_wait(struct mrc_context *mrc_ctx, uint8_t req_tc,
			       enum mrc_ctl_ep_op_type op_type,
			       struct mrc_ctl_ep_req *req, int num_req,
			       uint32_t rsp_timeout, struct mrc_ctl_ep_rsp *rsp,
			       int *num_rsp);

#ifdef __cplusplus
}
#endif

#endif /* MRC_CTL_H */
