// SPDX-License-Identifier: GPL-2.0
/*
 * Garbled mrc frames for the dissector test (wire_expect.h): each header
 * cut short, an unknown version, a payload longer than its RETH, no UDP
 * checksum, bytes after an ACK or probe, an EV that is not the source
 * port, an AETH that contradicts its AEXT, a capture's snap length in a
 * header and in the payload (no trim); then random frames. tshark
 * must name each with an expert info, never stop at a Lua error.
 */
#include <string.h>

#include "mrc/wire.h"
#include "wire_expect.h"

#define BTH sizeof(struct mrc_bth)
#define RETH sizeof(struct mrc_reth)
#define AETH sizeof(struct mrc_aeth)

static uint8_t f[4096];

/* f = src, its UDP payload cut or grown to plen (zeros), checksums new. */
static size_t sized(const uint8_t *src, size_t len, size_t plen)
{
	memset(f, 0, sizeof(f));
	memcpy(f, src, len);
	return frame_resize(f, plen);
}

/* f = src with byte at header offset off set to v, checksums new. */
static size_t poked(const uint8_t *src, size_t len, size_t off, uint8_t v)
{
	size_t n = sized(src, len, len - udp_payload(src));

	f[udp_payload(f) + off] = v;
	frame_fix(f);
	return n;
}

static void cut(struct capture *bad, const uint8_t *src, size_t len,
		size_t plen)
{
	capture_bad(bad, f, sized(src, len, plen), "mrc.truncated");
}

static void data(struct capture *bad, const uint8_t *w, size_t wlen,
		 const uint8_t *i, size_t ilen)
{
	size_t pl = wlen - udp_payload(w), n;

	cut(bad, w, wlen, BTH - 4);
	cut(bad, w, wlen, BTH + RETH - 6);
	cut(bad, w, wlen, MRC_DATA_HDR_LEN - 6);
	cut(bad, i, ilen, BTH + RETH + 2);
	cut(bad, i, ilen, MRC_DATA_IMM_HDR_LEN - 1);
	capture_bad(bad, f, poked(w, wlen, BTH + RETH, 2), "mrc.bad_version");
	/* RETH length 100 (byte 15 of it), the payload 1024 */
	n = poked(w, wlen, BTH + 12, 0);
	f[udp_payload(f) + BTH + 14] = 0;
	f[udp_payload(f) + BTH + 15] = 100;
	frame_fix(f);
	capture_bad(bad, f, n, "mrc.long_payload");
	n = sized(w, wlen, pl);
	f[udp_payload(f) - 2] = f[udp_payload(f) - 1] = 0;
	capture_bad(bad, f, n, "mrc.no_checksum");
	capture_bad(bad, f, poked(w, wlen, BTH + RETH + 3, 0x01),
		    "mrc.ev_mismatch");
	/* A snap length in the DEXT, in the payload: not a trim. */
	capture_snapped(bad, w, udp_payload(w) + BTH + RETH + 4, wlen,
			"mrc.snapped");
	capture_snapped(bad, w, udp_payload(w) + MRC_DATA_HDR_LEN + 100, wlen,
			"!mrc.trimmed");
}

static void ack(struct capture *bad, const uint8_t *a, size_t alen)
{
	cut(bad, a, alen, BTH + 2);
	cut(bad, a, alen, BTH + AETH + 30);
	capture_bad(bad, f, poked(a, alen, BTH + AETH, 0), "mrc.bad_version");
	capture_bad(bad, f, sized(a, alen, MRC_ACK_LEN + 4), "mrc.trailing");
	capture_bad(bad, f, poked(a, alen, BTH, MRC_AETH_NAK | MRC_NACK_RKEY),
		    "mrc.syndrome_mismatch");
	capture_snapped(bad, a, udp_payload(a) + BTH + AETH + 20, alen,
			"mrc.snapped");
}

static void probe(struct capture *bad, const uint8_t *p, size_t plen)
{
	cut(bad, p, plen, BTH + 20);
	capture_bad(bad, f, sized(p, plen, MRC_PROBE_LEN + 1), "mrc.trailing");
	capture_bad(bad, f, poked(p, plen, BTH, 9), "mrc.bad_version");
}

/* Random bytes after a BTH opcode of mrc's, 1 to 120 of them. */
static void noise(struct capture *bad, const uint8_t *w, size_t wlen)
{
	static const uint8_t ops[] = { MRC_OP_WRITE_ONLY, MRC_OP_WRITE_ONLY_IMM,
				       MRC_OP_ACK, MRC_OP_PROBE,
				       MRC_OP_PROBE_ANSWER };
	uint32_t x = 0x2545f491, k, j;

	for (k = 0; k < 20; k++) {
		size_t plen, n, off;

		x = x * 1103515245u + 12345u;
		plen = 1 + (x >> 16) % 120;
		n = sized(w, wlen, plen);
		off = udp_payload(f);
		for (j = 0; j < plen; j++) {
			x = x * 1103515245u + 12345u;
			f[off + j] = (uint8_t)(x >> 16);
		}
		f[off] = ops[k % sizeof(ops)];
		frame_fix(f);
		capture_bad(bad, f, n, "*");
	}
}

void garble(struct capture *bad, const uint8_t *w, size_t wlen,
	    const uint8_t *i, size_t ilen, const uint8_t *a, size_t alen,
	    const uint8_t *p, size_t plen)
{
	data(bad, w, wlen, i, ilen);
	ack(bad, a, alen);
	probe(bad, p, plen);
	noise(bad, w, wlen);
}
