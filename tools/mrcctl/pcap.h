/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains the pcap writer of mrcctl capture: the classic
 * libpcap file format with nanosecond timestamps (magic 0xa1b23c4d),
 * link type Ethernet, in the host's byte order as libpcap writes it.
 * tcpdump, tshark and Wireshark read it.
 */
#ifndef MRCCTL_PCAP_H
#define MRCCTL_PCAP_H

#include <stdint.h>
#include <stdio.h>

#define PCAP_MAGIC_NS 0xa1b23c4du
#define PCAP_LINKTYPE_ETHERNET 1

/* The 24-byte file header; 0 or -errno. */
int pcap_write_header(FILE *f, uint32_t snaplen);
/*
 * One record: its time (ns since the epoch), the frame's length on the
 * wire and cap_len bytes of it; 0 or -errno.
 */
int pcap_write_record(FILE *f, uint64_t ts_ns, uint32_t len, uint32_t cap_len,
		      const void *data);

#endif /* MRCCTL_PCAP_H */
