// SPDX-License-Identifier: GPL-2.0
/*
 * Packet builder for tests: frames laid out byte by byte in network order,
 * so the same bytes a BPF program sees are what the test compares.
 */
#include <arpa/inet.h>
#include <assert.h>
#include <string.h>
#include <sys/socket.h>

#include "csum.h"
#include "mrc/wire.h"
#include "pkt.h"

const uint8_t PKT_MAC_A[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x0a };
const uint8_t PKT_MAC_B[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x0b };

static uint8_t *put(struct pkt *p, size_t len)
{
	uint8_t *at = p->data + p->len;

	assert(p->len + len <= PKT_MAX);
	memset(at, 0, len);
	p->len += len;
	p->payload_off = p->len;
	return at;
}

static void put16(uint8_t *at, uint16_t v)
{
	at[0] = v >> 8;
	at[1] = v & 0xff;
}

void pkt_init(struct pkt *p)
{
	memset(p, 0, sizeof(*p));
}

void pkt_eth(struct pkt *p, const uint8_t dst[6], const uint8_t src[6])
{
	uint8_t *eth = put(p, 14);

	memcpy(eth, dst, 6);
	memcpy(eth + 6, src, 6);
	/* The ethertype is filled in by the next header. */
}

static void set_ethertype(struct pkt *p, uint16_t type)
{
	if (p->len >= 14)
		put16(p->data + 12, type);
}

void pkt_ipv4(struct pkt *p, const char *src, const char *dst, uint8_t tos)
{
	uint8_t *ip;

	set_ethertype(p, 0x0800);
	p->l3_off = p->len;
	p->family = AF_INET;
	ip = put(p, 20);
	ip[0] = 0x45;
	ip[1] = tos;
	put16(ip + 4, 0x1234); /* id */
	put16(ip + 6, 0x4000); /* DF */
	ip[8] = 64; /* ttl */
	ip[9] = 17; /* UDP */
	assert(inet_pton(AF_INET, src, ip + 12) == 1);
	assert(inet_pton(AF_INET, dst, ip + 16) == 1);
}

void pkt_ipv6(struct pkt *p, const char *src, const char *dst, uint8_t tclass)
{
	uint8_t *ip;

	set_ethertype(p, 0x86dd);
	p->l3_off = p->len;
	p->family = AF_INET6;
	ip = put(p, 40);
	ip[0] = 0x60 | tclass >> 4;
	ip[1] = (uint8_t)(tclass << 4);
	ip[6] = 17;
	ip[7] = 64; /* hop limit */
	assert(inet_pton(AF_INET6, src, ip + 8) == 1);
	assert(inet_pton(AF_INET6, dst, ip + 24) == 1);
}

void pkt_udp(struct pkt *p, uint16_t sport, uint16_t dport)
{
	uint8_t *udp;

	p->l4_off = p->len;
	udp = put(p, 8);
	put16(udp, sport);
	put16(udp + 2, dport);
}

void pkt_bth(struct pkt *p, uint8_t opcode, uint32_t qpn, uint32_t psn,
	     int ack_req)
{
	struct mrc_bth bth = {
		.opcode = opcode,
		.pkey = htons(MRC_PKEY_DEFAULT),
		.dqpn = htonl(qpn & MRC_BTH_QPN_MASK),
		.psn = htonl((psn & MRC_BTH_PSN_MASK) |
			     (ack_req ? MRC_BTH_ACKREQ : 0)),
	};

	memcpy(put(p, sizeof(bth)), &bth, sizeof(bth));
}

void pkt_reth(struct pkt *p, uint64_t va, uint32_t rkey, uint32_t len)
{
	struct mrc_reth h = {
		.va_hi = htonl(va >> 32),
		.va_lo = htonl(va & 0xffffffff),
		.rkey = htonl(rkey),
		.len = htonl(len),
	};

	memcpy(put(p, sizeof(h)), &h, sizeof(h));
}

void pkt_immdt(struct pkt *p, uint32_t imm)
{
	struct mrc_immdt h = { .imm = htonl(imm) };

	memcpy(put(p, sizeof(h)), &h, sizeof(h));
}

void pkt_dext(struct pkt *p, uint8_t flags, uint16_t ev, uint32_t msg_id,
	      uint32_t msg_len, uint32_t echo)
{
	struct mrc_dext h = {
		.version = MRC_WIRE_VERSION,
		.flags = flags,
		.ev = htons(ev),
		.msg_id = htonl(msg_id),
		.msg_len = htonl(msg_len),
		.echo = htonl(echo),
	};

	memcpy(put(p, sizeof(h)), &h, sizeof(h));
}

void pkt_aeth(struct pkt *p, uint8_t syndrome, uint32_t msn)
{
	struct mrc_aeth h = { .syn_msn = htonl((uint32_t)syndrome << 24 |
					       (msn & 0xffffff)) };

	memcpy(put(p, sizeof(h)), &h, sizeof(h));
}

void pkt_aext(struct pkt *p, uint8_t flags, uint16_t ev, uint8_t reason,
	      uint32_t cum_psn, uint32_t ack_psn, uint32_t echo,
	      const uint32_t *sack)
{
	struct mrc_aext h = {
		.version = MRC_WIRE_VERSION,
		.flags = flags,
		.ev = htons(ev),
		.nack_reason = reason,
		.cum_psn = htonl(cum_psn),
		.ack_psn = htonl(ack_psn),
		.echo = htonl(echo),
	};
	int i;

	for (i = 0; sack && i < MRC_SACK_BITS / 32; i++)
		h.sack[i] = htonl(sack[i]);
	memcpy(put(p, sizeof(h)), &h, sizeof(h));
}

void pkt_pext(struct pkt *p, uint16_t ev, uint8_t ev_idx, uint32_t seq,
	      uint64_t tx_ts, uint32_t svc_ns)
{
	struct mrc_pext h = {
		.version = MRC_WIRE_VERSION,
		.ev = htons(ev),
		.ev_idx = ev_idx,
		.seq = htonl(seq),
		.tx_ts_hi = htonl((uint32_t)(tx_ts >> 32)),
		.tx_ts_lo = htonl((uint32_t)tx_ts),
		.svc_ns = htonl(svc_ns),
	};

	memcpy(put(p, sizeof(h)), &h, sizeof(h));
}

void pkt_bytes(struct pkt *p, const void *buf, size_t len)
{
	size_t off = p->len;

	memcpy(put(p, len), buf, len);
	p->payload_off = off;
}

void pkt_pattern(struct pkt *p, size_t len, uint8_t seed)
{
	size_t off = p->len, i;
	uint8_t *b = put(p, len);

	for (i = 0; i < len; i++)
		b[i] = (uint8_t)(seed + i * 7);
	p->payload_off = off;
}

static uint64_t pseudo_sum(const uint8_t *ip, int family, size_t l4_len)
{
	uint64_t sum;

	if (family == AF_INET)
		sum = mrc_csum_add(0, ip + 12, 8);
	else
		sum = mrc_csum_add(0, ip + 8, 32);
	return sum + 17 + l4_len;
}

void pkt_finish(struct pkt *p)
{
	uint8_t *ip = p->data + p->l3_off, *udp = p->data + p->l4_off;
	size_t l4_len = p->len - p->l4_off;
	uint16_t c;

	if (p->family == AF_INET) {
		put16(ip + 2, p->len - p->l3_off);
		put16(ip + 10, 0);
		put16(ip + 10, mrc_csum(ip, 20));
	} else if (p->family == AF_INET6) {
		put16(ip + 4, l4_len);
	}
	if (!p->l4_off)
		return;
	put16(udp + 4, l4_len);
	put16(udp + 6, 0);
	if (p->family == AF_INET6 || p->udp_csum) {
		c = mrc_csum_fold(mrc_csum_add(
			pseudo_sum(ip, p->family, l4_len), udp, l4_len));
		put16(udp + 6, c ? c : 0xffff);
	}
}

void pkt_set_ttl(struct pkt *p, uint8_t ttl)
{
	p->data[p->l3_off + (p->family == AF_INET ? 8 : 7)] = ttl;
}

uint8_t pkt_ttl(const uint8_t *frame)
{
	return frame[12] == 0x08 ? frame[14 + 8] : frame[14 + 7];
}

uint8_t pkt_tclass(const uint8_t *frame)
{
	if (frame[12] == 0x08)
		return frame[14 + 1];
	return (uint8_t)(frame[14] << 4 | frame[15] >> 4);
}

int pkt_verify_csums(const uint8_t *frame, size_t len)
{
	const uint8_t *ip = frame + 14, *udp;
	int v4 = frame[12] == 0x08;
	size_t ihl = v4 ? (ip[0] & 0xf) * 4u : 40u, l4_len;

	if (len < 14 + ihl + 8)
		return -1;
	if (v4 && mrc_csum(ip, ihl))
		return -1;
	udp = ip + ihl;
	l4_len = (size_t)(udp[4] << 8 | udp[5]);
	if (l4_len < 8 || udp + l4_len > frame + len)
		return -1;
	if (v4 && !udp[6] && !udp[7])
		return 0; /* no checksum */
	return mrc_csum_fold(mrc_csum_add(
		       pseudo_sum(ip, v4 ? AF_INET : AF_INET6, l4_len), udp,
		       l4_len)) ?
		       -1 :
		       0;
}
