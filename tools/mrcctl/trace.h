/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains mrcctl ev trace's options, hops and the parts of it
 * that need no device (trace_args.c): its words, the path an SRv6 EV
 * names, the probe's payload and the rule that tells the peer from a
 * silent router. The command itself is trace.c.
 */
#ifndef MRCCTL_TRACE_H
#define MRCCTL_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "mrc/ev_fields.h"

#define TRACE_HOPS_DEFAULT 16
#define TRACE_HOPS_MAX 64
#define TRACE_PROBES_DEFAULT 3
#define TRACE_PROBES_MAX 10
#define TRACE_TIMEOUT_DEFAULT 1000 /* ms */
#define TRACE_TIMEOUT_MAX 10000

struct trace_opts {
	uint32_t qpn;
	int one; /* only EV idx */
	uint32_t idx;
	uint32_t max_hops;
	uint32_t probes; /* per hop */
	uint32_t timeout_ms; /* per hop */
};

struct args;
/* The words after "ev trace"; 0 or the exit code already reported. */
int trace_parse(struct args *a, struct trace_opts *o);

/* What answered at a hop. */
enum trace_what {
	TRACE_ROUTER, /* an ICMP time exceeded from it (ECMP) */
	TRACE_SILENT, /* no answer: a router that sends no ICMP (now) */
	TRACE_PEER, /* the EV's end: the peer's port */
	TRACE_UNREACH, /* an ICMP destination unreachable: the path ends */
	TRACE_NEXT_HOP, /* SRv6: the port's next hop, before any uSID */
	TRACE_USID, /* SRv6: the node a uSID names */
};

struct trace_hop {
	uint32_t hop; /* 1: the first router */
	enum trace_what what;
	int have_addr;
	uint8_t addr[16]; /* IPv4 in the first 4 bytes unless v6 */
	int v6;
	int have_usid;
	uint16_t usid;
	uint32_t rtt_ns; /* 0: unknown */
	uint32_t sent, answered; /* probes (ECMP); 0, 0 for SRv6 */
};

const char *trace_what_name(enum trace_what w);

/*
 * The hops an SRv6 EV (expanded, MRC_CTL_EV_MAX_BYTES) names after its
 * port: the next hop, then the node of every uSID of the destination and,
 * with an SRH, of the segment, each with its address block:uSID:: (the
 * block of the container it is in). Up to max hops; how many.
 */
int trace_srv6_hops(const uint8_t v[MRC_CTL_EV_MAX_BYTES],
		    struct trace_hop *hops, int max);

/*
 * The probe's UDP payload: a BTH whose opcode no MRC receiver takes
 * (counted as bad_opcode at the peer, never answered, never a NACK), then
 * a magic word and the probe's token, which an ICMP error quotes back.
 */
#define TRACE_PAYLOAD_LEN 12
#define TRACE_OPCODE 0xff
#define TRACE_MAGIC 0x74726163u /* "trac" */
void trace_payload(uint8_t buf[TRACE_PAYLOAD_LEN], uint32_t token);
/* The token of a quoted payload; 0, or -1 when it is not ours. */
int trace_payload_token(const uint8_t *buf, size_t len, uint32_t *token);
#define TRACE_TOKEN(hop, k) ((hop) << 8 | (k))
#define TRACE_TOKEN_HOP(t) ((t) >> 8)
#define TRACE_TOKEN_PROBE(t) ((t)&0xff)

/*
 * After a hop of an ECMP trace: hops[0 .. n-1] are the hops so far, the
 * last the one just probed. The peer's receive program answers nothing,
 * so the peer is a hop nobody answers for; one silent hop alone may be a
 * router that sends no ICMP (rate limits), so it takes a second silent
 * hop after it: the first of the two is then the peer, the second is
 * dropped. Returns the hop count to keep and sets *done when the trace of
 * this EV ends (a peer, an unreachable, or max_hops reached).
 */
int trace_settle(struct trace_hop *hops, int n, uint32_t max_hops, int *done);

#endif /* MRCCTL_TRACE_H */
