/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains the one list of reasons the data path drops or NACKs a
 * packet. BPF counts them in mrc_drop (per-CPU array indexed by reason);
 * userspace prints the names from the same list. Each entry: name, text,
 * and the NACK the receiver answers with (MRC_NACK_NONE: dropped silently).
 */
#ifndef MRC_DROP_H
#define MRC_DROP_H

#include "wire.h"

#define MRC_DROP_REASONS(X)                                        \
	X(TRUNCATED, "truncated_header", MRC_NACK_NONE)            \
	X(BAD_VERSION, "bad_version", MRC_NACK_NONE)               \
	X(BAD_OPCODE, "bad_opcode", MRC_NACK_NONE)                 \
	X(NO_CHECKSUM, "no_udp_checksum", MRC_NACK_NONE)           \
	X(CHECKSUM, "bad_checksum", MRC_NACK_CHECKSUM)             \
	X(UNKNOWN_QP, "unknown_qp", MRC_NACK_NONE)                 \
	X(QP_STATE, "qp_not_ready", MRC_NACK_QP_STATE)             \
	X(PSN_WINDOW, "psn_window", MRC_NACK_PSN_WINDOW)           \
	X(DUPLICATE, "duplicate", MRC_NACK_NONE)                   \
	X(BAD_RKEY, "bad_rkey", MRC_NACK_RKEY)                     \
	X(BOUNDS, "out_of_bounds", MRC_NACK_BOUNDS)                \
	X(OVERSIZED, "oversized_payload", MRC_NACK_NONE)           \
	X(BAD_LENGTH, "bad_length", MRC_NACK_NONE)                 \
	X(TRIMMED, "trimmed", MRC_NACK_TRIMMED)                    \
	X(PLACE_FAILED, "place_failed", MRC_NACK_NONE)             \
	X(CQ_OVERFLOW, "cq_overflow", MRC_NACK_NONE)               \
	X(DB_LENGTH, "doorbell_length", MRC_NACK_NONE)             \
	X(DB_MAGIC, "doorbell_magic", MRC_NACK_NONE)               \
	X(DB_UNKNOWN_QP, "doorbell_unknown_qp", MRC_NACK_NONE)     \
	X(DB_TOKEN, "doorbell_token", MRC_NACK_NONE)               \
	X(STRAY_PROBE_ANSWER, "stray_probe_answer", MRC_NACK_NONE) \
	X(PROBE_EV, "probe_bad_ev_index", MRC_NACK_NONE)           \
	X(ACK_STALE, "ack_not_in_flight", MRC_NACK_NONE)           \
	X(ACK_ECHO, "ack_bad_echo", MRC_NACK_NONE)                 \
	X(CQ_FULL, "cq_full", MRC_NACK_NONE)                       \
	X(SRV6_MALFORMED, "srv6_malformed", MRC_NACK_NONE)         \
	X(SRV6_SEGMENTS_LEFT, "srv6_segments_left", MRC_NACK_NONE) \
	X(SRV6_NOT_END, "srv6_route_not_ended", MRC_NACK_NONE)     \
	X(SRV6_NO_ROUTE, "srv6_no_return_route", MRC_NACK_NONE)

#define MRC_X_DROP_ENUM(name, str, nack) MRC_DROP_##name,
enum mrc_drop_reason {
	MRC_DROP_NONE = 0,
	MRC_DROP_REASONS(MRC_X_DROP_ENUM) MRC_DROP_MAX
};
#undef MRC_X_DROP_ENUM

#endif /* MRC_DROP_H */
