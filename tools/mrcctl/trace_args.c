// SPDX-License-Identifier: GPL-2.0
/*
 * mrcctl ev trace, the parts that need no device (trace.h): the words,
 * the hops of an SRv6 EV's route, the probe payload and the rule that
 * ends an ECMP trace at the peer.
 */
#include <arpa/inet.h>
#include <string.h>

#include "mrcctl.h"
#include "trace.h"

enum { T_QP, T_EV, T_HOPS, T_PROBES, T_TIMEOUT };
static const char *const kws[] = { "qp", "ev", "max-hops", "probes",
				   "timeout" };

int trace_parse(struct args *a, struct trace_opts *o)
{
	unsigned int seen = 0;
	int rc = 0, kw;

	memset(o, 0, sizeof(*o));
	o->max_hops = TRACE_HOPS_DEFAULT;
	o->probes = TRACE_PROBES_DEFAULT;
	o->timeout_ms = TRACE_TIMEOUT_DEFAULT;
	while (!rc && args_left(a)) {
		rc = arg_keyword(a, kws, ARRAY_SIZE(kws), &kw);
		if (!rc)
			rc = arg_once(&seen, kw, kws);
		if (rc)
			break;
		switch (kw) {
		case T_QP:
			rc = arg_u32(a, "qp", 0, UINT32_MAX - 1, &o->qpn);
			break;
		case T_EV:
			rc = arg_u32(a, "ev", 0, MRCX_QP_EVS - 1, &o->idx);
			o->one = 1;
			break;
		case T_HOPS:
			rc = arg_u32(a, "max-hops", 1, TRACE_HOPS_MAX,
				     &o->max_hops);
			break;
		case T_PROBES:
			rc = arg_u32(a, "probes", 1, TRACE_PROBES_MAX,
				     &o->probes);
			break;
		case T_TIMEOUT:
			rc = arg_u32(a, "timeout", 1, TRACE_TIMEOUT_MAX,
				     &o->timeout_ms);
			break;
		}
	}
	if (!rc && !(seen & 1u << T_QP))
		rc = arg_required(a, "qp QPN");
	return rc;
}

const char *trace_what_name(enum trace_what w)
{
	switch (w) {
	case TRACE_ROUTER:
	case TRACE_NEXT_HOP:
	case TRACE_USID:
		return "router";
	case TRACE_SILENT:
		return "silent";
	case TRACE_PEER:
		return "peer";
	case TRACE_UNREACH:
		return "unreachable";
	}
	return "?";
}

/* hops[n..] from the uSIDs of container c, numbered on from n + 1. */
static int usid_hops(const uint8_t *c, struct trace_hop *hops, int n, int max)
{
	uint16_t usid[MRC_EV_SRV6_USIDS];
	int i, k = ev_srv6_usids(c, usid);
	struct trace_hop *h;

	for (i = 0; i < k && n < max; i++, n++) {
		h = &hops[n];
		memset(h, 0, sizeof(*h));
		h->hop = (uint32_t)n + 1;
		h->what = TRACE_USID;
		h->have_usid = 1;
		h->usid = usid[i];
		/* The node's own address: its block, then its uSID. */
		h->have_addr = 1;
		h->v6 = 1;
		memcpy(h->addr, c, MRC_EV_SRV6_BLOCK_BYTES);
		h->addr[MRC_EV_SRV6_BLOCK_BYTES] = (uint8_t)(usid[i] >> 8);
		h->addr[MRC_EV_SRV6_BLOCK_BYTES + 1] = (uint8_t)usid[i];
	}
	return n;
}

int trace_srv6_hops(const uint8_t v[MRC_CTL_EV_MAX_BYTES],
		    struct trace_hop *hops, int max)
{
	int n = 0;

	if (max < 1)
		return 0;
	/* The router at the other end of the port's link: whatever the
	 * route says, the packet goes there first. */
	memset(&hops[0], 0, sizeof(hops[0]));
	hops[0].hop = 1;
	hops[0].what = TRACE_NEXT_HOP;
	n = usid_hops(v, hops, 1, max);
	if (ev_srv6_has_srh(v))
		n = usid_hops(v + MRC_EV_SRV6_ADDR_BYTES, hops, n, max);
	return n;
}

void trace_payload(uint8_t buf[TRACE_PAYLOAD_LEN], uint32_t token)
{
	uint32_t w;

	memset(buf, 0, TRACE_PAYLOAD_LEN);
	buf[0] = TRACE_OPCODE;
	w = htonl(TRACE_MAGIC);
	memcpy(buf + 4, &w, 4);
	w = htonl(token);
	memcpy(buf + 8, &w, 4);
}

int trace_payload_token(const uint8_t *buf, size_t len, uint32_t *token)
{
	uint32_t w;

	if (len < TRACE_PAYLOAD_LEN || buf[0] != TRACE_OPCODE)
		return -1;
	memcpy(&w, buf + 4, 4);
	if (ntohl(w) != TRACE_MAGIC)
		return -1;
	memcpy(&w, buf + 8, 4);
	*token = ntohl(w);
	return 0;
}

int trace_settle(struct trace_hop *hops, int n, uint32_t max_hops, int *done)
{
	struct trace_hop *h = &hops[n - 1];

	*done = 0;
	if (h->what == TRACE_PEER || h->what == TRACE_UNREACH) {
		*done = 1;
		return n;
	}
	if (h->what == TRACE_SILENT && n >= 2 &&
	    hops[n - 2].what == TRACE_SILENT) {
		hops[n - 2].what = TRACE_PEER;
		*done = 1;
		return n - 1;
	}
	*done = h->hop >= max_hops;
	return n;
}
