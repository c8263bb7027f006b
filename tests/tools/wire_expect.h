/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains what wire_pcap writes for the dissector test: a pcap
 * of Ethernet frames, and beside it, for every frame, each MRC field and
 * the value the frame carries, decoded with include/mrc/wire.h (the one
 * definition of the layout), or the expert info a garbled frame must get.
 */
#ifndef MRC_TESTS_WIRE_EXPECT_H
#define MRC_TESTS_WIRE_EXPECT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct capture {
	FILE *pcap;
	FILE *expect; /* frame<TAB>field<TAB>value, or frame<TAB>expert */
	uint32_t frames;
};

/* Create path.pcap and path.expect; 0 or -1 (said). */
int capture_open(struct capture *c, const char *path);
int capture_close(struct capture *c);

/*
 * Append an Ethernet / IPv4 or IPv6 / UDP mrc frame and, in the expect file,
 * every MRC field it carries (field names as deploy/mrc.lua has them).
 */
void capture_frame(struct capture *c, const uint8_t *f, size_t len);
/*
 * Append a garbled frame and the expert info it must raise ("!name": must
 * not raise); capture_snapped() keeps only caplen of its len bytes.
 */
void capture_bad(struct capture *c, const uint8_t *f, size_t len,
		 const char *expert);
void capture_snapped(struct capture *c, const uint8_t *f, size_t caplen,
		     size_t len, const char *expert);

/*
 * Frame surgery on an Ethernet / IPv4 / UDP frame: udp_payload() is the
 * UDP payload's offset (IPv6 too); frame_resize() sets the UDP payload's length
 * (IPv4 and UDP lengths follow) and frame_fix() writes the IPv4 header
 * and UDP checksums anew.
 */
size_t udp_payload(const uint8_t *f);
size_t frame_resize(uint8_t *f, size_t payload_len);
void frame_fix(uint8_t *f);

/*
 * Into bad: garbled copies of a WRITE, a WRITE_IMM, an ACK and a probe
 * (Ethernet frames of wlen, ilen, alen, plen bytes), each with the expert
 * info it must raise, then random frames that must raise some error
 * ("*"). wire_garble.c.
 */
void garble(struct capture *bad, const uint8_t *w, size_t wlen,
	    const uint8_t *i, size_t ilen, const uint8_t *a, size_t alen,
	    const uint8_t *p, size_t plen);

#endif /* MRC_TESTS_WIRE_EXPECT_H */
