/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains the pcap writers of mrcctl capture: the classic
 * libpcap file format with nanosecond timestamps (magic 0xa1b23c4d),
 * link type Ethernet, and pcapng with the direction of each packet, both
 * in the host's byte order as libpcap writes them. tcpdump, tshark and
 * Wireshark read both.
 */
#ifndef MRCCTL_PCAP_H
#define MRCCTL_PCAP_H

#include <stdint.h>
#include <stdio.h>

#define PCAP_MAGIC_NS 0xa1b23c4du
#define PCAP_LINKTYPE_ETHERNET 1

/*
 * pcapng (draft-ietf-opsawg-pcapng), for captures with both directions:
 * a section header, one interface (link type Ethernet, nanosecond
 * timestamps, named after the port) and one enhanced packet block per
 * frame whose epb_flags say inbound or outbound.
 */
#define PCAPNG_SHB 0x0a0d0d0au
#define PCAPNG_IDB 1u
#define PCAPNG_EPB 6u
#define PCAPNG_BYTE_ORDER 0x1a2b3c4du
#define PCAPNG_INBOUND 1u /* epb_flags bits 0-1 */
#define PCAPNG_OUTBOUND 2u

/* The 24-byte file header; 0 or -errno. */
int pcap_write_header(FILE *f, uint32_t snaplen);
/*
 * One record: its time (ns since the epoch), the frame's length on the
 * wire and cap_len bytes of it; 0 or -errno.
 */
int pcap_write_record(FILE *f, uint64_t ts_ns, uint32_t len, uint32_t cap_len,
		      const void *data);

/* Section header and interface 0, named ifname; 0 or -errno. */
int pcapng_write_header(FILE *f, uint32_t snaplen, const char *ifname);
#define PCAPNG_COMMENT_MAX 255 /* bytes of a packet's comment */
/*
 * One enhanced packet block on interface 0, PCAPNG_*BOUND, with a comment
 * (opt_comment; NULL: none), which tshark shows as frame.comment; 0 or
 * -errno.
 */
int pcapng_write_record(FILE *f, uint64_t ts_ns, uint32_t len, uint32_t cap_len,
			const void *data, uint32_t dir, const char *comment);

#endif /* MRCCTL_PCAP_H */
