// SPDX-License-Identifier: GPL-2.0
/*
 * Probe frames: built here byte for byte the way the transmit program
 * builds data packets (same addresses, same UDP source port, so they hash
 * onto the same path), sent out of the port by the data path as the data
 * leaves (dev_emit: the control program, live frames, mrc_tx_port). Not a
 * packet socket: closing one waits out an RCU grace period
 * (packet_release(), synchronize_net(); 13-16 ms here), which every
 * ending mrcd, a restart's handover, paid.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include <string.h>
#include <sys/random.h>

#include "clock.h"
#include "csum.h"
#include "dev.h"
#include "probe.h"
#include "mrc/wire.h"

/*
 * A QP probe's sequence number, which its answer must return: random, so
 * a host that does not see the probe cannot answer it in the EV's name
 * (docs/security.md). Never 0 (no probe out).
 */
uint32_t probe_nonce(void)
{
	uint32_t r = 0;

	while (!r)
		if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != sizeof(r))
			r = (uint32_t)now_ns() * 0x9e3779b9u;
	return r;
}

void probe_open(struct probe *pr, struct dev *dev, int nports)
{
	pr->dev = dev;
	pr->nports = nports;
	pr->sent = 0;
}

/*
 * The outer IPv6 header (and SRH) of SRv6 route rt at f + 14, around an
 * IPv6 packet of inner bytes (the data path's bpf/lib/srv6.h, in C):
 * returns the bytes it wrote, 40 or 80.
 */
static uint32_t srv6_outer(uint8_t *f, const struct mrc_srv6_route *rt,
			   const uint8_t src[16], uint32_t inner)
{
	static const uint8_t zero[16];
	struct ipv6hdr *o = (void *)(f + 14);
	struct mrc_srh *srh = (void *)(f + 14 + MRC_SRV6_OUTER_LEN);
	uint32_t enc = memcmp(rt->seg, zero, 16) ? MRC_SRV6_ENCAP_MAX :
						   MRC_SRV6_OUTER_LEN;

	*(uint32_t *)o = htonl(6u << 28 | 0x02u << 20); /* ECT(0) */
	o->payload_len = htons((uint16_t)(enc - MRC_SRV6_OUTER_LEN + inner));
	o->nexthdr = enc > MRC_SRV6_OUTER_LEN ? MRC_IPPROTO_ROUTING :
						MRC_IPPROTO_IPV6;
	o->hop_limit = 64;
	memcpy(&o->saddr, src, 16);
	memcpy(&o->daddr, rt->dst, 16);
	if (enc > MRC_SRV6_OUTER_LEN) {
		memset(srh, 0, sizeof(*srh));
		srh->nexthdr = MRC_IPPROTO_IPV6;
		srh->hdr_ext_len = (MRC_SRV6_SRH_LEN - 8) / 8;
		srh->type = MRC_SRH_TYPE;
		srh->segments_left = 1;
		srh->last_entry = 1;
		/* The last segment first (RFC 8754). */
		memcpy(srh->seg[0], rt->seg, 16);
		memcpy(srh->seg[1], rt->dst, 16);
	}
	return enc;
}

/*
 * A frame out of port p to addr (the peer's address on that plane): UDP
 * source port sport to MRC_UDP_PORT, for STEV on IPv6 fl in the flow
 * label, IP TOS tos, with the n bytes at body (BTH on) as UDP payload;
 * rt not NULL: inside that SRv6 route's outer header (IPv6 planes only).
 */
static int frame_send(struct probe *pr, uint32_t p, const uint8_t addr[16],
		      uint16_t sport, uint16_t fl, uint8_t tos,
		      const void *body, uint32_t n,
		      const struct mrc_srv6_route *rt)
{
	uint8_t f[14 + MRC_SRV6_ENCAP_MAX + 40 + 8 + 64] = {};
	struct ethhdr *eth = (void *)f;
	struct mrc_port port;
	struct udphdr *udp;
	uint32_t l3, len, enc = rt ? MRC_SRV6_ENCAP_MAX : 0, off;
	int err;
	uint64_t sum;
	uint16_t ulen;

	if (n > 64)
		return -EMSGSIZE;
	if (p >= (uint32_t)pr->nports || p >= MRC_MAX_PORTS || !pr->dev ||
	    dev_port_get(pr->dev, p, &port))
		return -ENODEV;
	if (rt && !port.v6)
		return -EINVAL;
	memcpy(eth->h_dest, port.dmac, 6);
	memcpy(eth->h_source, port.smac, 6);
	l3 = port.v6 ? 40 : 20;
	ulen = (uint16_t)(sizeof(*udp) + n);
	/* Built with room for the longest outer header, moved up after. */
	off = 14 + enc;
	len = off + l3 + ulen;
	udp = (void *)(f + off + l3);
	if (port.v6) {
		struct ipv6hdr *ip6 = (void *)(f + off);

		eth->h_proto = htons(ETH_P_IPV6);
		*(uint32_t *)ip6 = htonl(6u << 28 | (uint32_t)tos << 20 | fl);
		ip6->payload_len = htons(ulen);
		ip6->nexthdr = IPPROTO_UDP;
		ip6->hop_limit = 64;
		memcpy(&ip6->saddr, port.saddr, 16);
		memcpy(&ip6->daddr, addr, 16);
		sum = mrc_csum_add(0, &ip6->saddr, 32);
	} else {
		struct iphdr *ip = (void *)(f + off);

		eth->h_proto = htons(ETH_P_IP);
		ip->version = 4;
		ip->ihl = 5;
		ip->tos = tos;
		ip->tot_len = htons((uint16_t)(20 + ulen));
		ip->frag_off = htons(0x4000);
		ip->ttl = 64;
		ip->protocol = IPPROTO_UDP;
		memcpy(&ip->saddr, port.saddr, 4);
		memcpy(&ip->daddr, addr, 4);
		ip->check = htons(mrc_csum(ip, 20));
		sum = mrc_csum_add(0, &ip->saddr, 8);
	}
	udp->source = htons(sport);
	udp->dest = htons(MRC_UDP_PORT);
	udp->len = htons(ulen);
	memcpy(udp + 1, body, n);
	{
		uint16_t proto_len[2] = { htons(IPPROTO_UDP), htons(ulen) };
		uint16_t c;

		sum = mrc_csum_add(sum, proto_len, sizeof(proto_len));
		sum = mrc_csum_add(sum, udp, ulen);
		c = mrc_csum_fold(sum);
		udp->check = htons(c ? c : 0xffff);
	}
	if (rt) {
		uint32_t used = srv6_outer(f, rt, port.saddr, l3 + ulen);

		memmove(f + 14 + used, f + off, l3 + ulen);
		len = 14 + used + l3 + ulen;
	}
	err = dev_emit(pr->dev, p, f, len);
	if (err)
		return err;
	pr->sent++;
	return 0;
}

/*
 * One probe frame out of port p to addr (the peer's address on that
 * plane): UDP source port sport, for STEV on IPv6 fl in the flow label,
 * to QP dqpn (MRC_PROBE_QPN: the device), ev_idx and seq echoed back.
 */
int probe_frame(struct probe *pr, uint32_t p, const uint8_t addr[16],
		uint16_t sport, uint16_t fl, uint32_t dqpn, uint8_t ev_idx,
		uint32_t seq, uint8_t tos, const struct mrc_srv6_route *rt)
{
	uint8_t b[MRC_PROBE_LEN] = {};
	struct mrc_bth *bth = (void *)b;
	struct mrc_pext *px = (void *)(bth + 1);
	uint64_t ts;

	bth->opcode = MRC_OP_PROBE;
	bth->pkey = htons(MRC_PKEY_DEFAULT);
	bth->dqpn = htonl(dqpn & MRC_BTH_QPN_MASK);
	px->version = MRC_WIRE_VERSION;
	px->ev = htons(sport);
	px->ev_idx = ev_idx;
	px->seq = htonl(seq);
	ts = now_ns(); /* CLOCK_MONOTONIC, as bpf_ktime_get_ns() */
	px->tx_ts_hi = htonl((uint32_t)(ts >> 32));
	px->tx_ts_lo = htonl((uint32_t)ts);
	return frame_send(pr, p, addr, sport, fl, tos, b, sizeof(b), rt);
}

int probe_ctl_frame(struct probe *pr, uint32_t p, const uint8_t addr[16],
		    uint16_t sport, uint16_t fl, uint32_t dqpn,
		    const struct mrc_cext *cx, uint8_t tos,
		    const struct mrc_srv6_route *rt)
{
	uint8_t b[MRC_CTL_LEN] = {};
	struct mrc_bth *bth = (void *)b;

	bth->opcode = MRC_OP_CTL;
	bth->pkey = htons(MRC_PKEY_DEFAULT);
	bth->dqpn = htonl(dqpn & MRC_BTH_QPN_MASK);
	memcpy(bth + 1, cx, sizeof(*cx));
	return frame_send(pr, p, addr, sport, fl, tos, b, sizeof(b), rt);
}

void probe_close(struct probe *pr)
{
	pr->dev = NULL;
}
