/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains the packet builder the BPF fixture tests and tools use
 * to make input and expected output frames: small calls that append one
 * header each, then pkt_finish() to fill lengths and checksums.
 *
 *	pkt_init(&p);
 *	pkt_eth(&p, PKT_MAC_A, PKT_MAC_B);
 *	pkt_ipv4(&p, "198.18.0.2", "198.18.1.2", 0);
 *	pkt_udp(&p, 20000, 4791);
 *	pkt_pattern(&p, 100, 7);
 *	pkt_finish(&p);
 */
#ifndef MRC_TEST_PKT_H
#define MRC_TEST_PKT_H

#include <stddef.h>
#include <stdint.h>

#define PKT_MAX 9216

extern const uint8_t PKT_MAC_A[6];
extern const uint8_t PKT_MAC_B[6];

struct pkt {
	uint8_t data[PKT_MAX];
	size_t len;
	size_t l3_off; /* IPv4 or IPv6 header */
	size_t l4_off; /* UDP header */
	size_t payload_off; /* after the last header */
	int family; /* AF_INET, AF_INET6 or 0 */
	int udp_csum; /* fill the UDP checksum (always for IPv6) */
};

void pkt_init(struct pkt *p);
void pkt_eth(struct pkt *p, const uint8_t dst[6], const uint8_t src[6]);
/* tos is the whole IPv4 TOS / IPv6 traffic class byte (DSCP << 2 | ECN). */
void pkt_ipv4(struct pkt *p, const char *src, const char *dst, uint8_t tos);
void pkt_ipv6(struct pkt *p, const char *src, const char *dst, uint8_t tclass);
void pkt_udp(struct pkt *p, uint16_t sport, uint16_t dport);
/* RoCEv2 BTH (include/mrc/wire.h): opcode, destination QP, PSN. */
void pkt_bth(struct pkt *p, uint8_t opcode, uint32_t qpn, uint32_t psn,
	     int ack_req);
/* MRC headers after the BTH (include/mrc/wire.h), host-order arguments. */
void pkt_reth(struct pkt *p, uint64_t va, uint32_t rkey, uint32_t len);
void pkt_immdt(struct pkt *p, uint32_t imm);
void pkt_dext(struct pkt *p, uint8_t flags, uint16_t ev, uint32_t msg_id,
	      uint32_t msg_len, uint32_t echo);
void pkt_aeth(struct pkt *p, uint8_t syndrome, uint32_t msn);
/* sack: 8 words, most significant bit first, host order; NULL: none. */
void pkt_aext(struct pkt *p, uint8_t flags, uint16_t ev, uint8_t reason,
	      uint32_t cum_psn, uint32_t ack_psn, uint32_t echo,
	      const uint32_t *sack);
/* A probe's PEXT; tx_ts is the prober's clock in ns. */
void pkt_pext(struct pkt *p, uint16_t ev, uint8_t ev_idx, uint32_t seq,
	      uint64_t tx_ts, uint32_t svc_ns);
void pkt_bytes(struct pkt *p, const void *buf, size_t len);
/* len payload bytes (seed + i * 7) & 0xff: recognisable, differs by seed. */
void pkt_pattern(struct pkt *p, size_t len, uint8_t seed);
/* Fill IP and UDP lengths, the IPv4 header checksum, the UDP checksum. */
void pkt_finish(struct pkt *p);

/* Set the TTL / hop limit (call pkt_finish() after, for the checksum). */
void pkt_set_ttl(struct pkt *p, uint8_t ttl);

/* Accessors for fields tests look at, host byte order. */
uint8_t pkt_ttl(const uint8_t *frame);
uint8_t pkt_tclass(const uint8_t *frame);
/* 0 when the frame's IPv4 header and UDP checksums are valid (or absent). */
int pkt_verify_csums(const uint8_t *frame, size_t len);

#endif /* MRC_TEST_PKT_H */
