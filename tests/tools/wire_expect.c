// SPDX-License-Identifier: GPL-2.0
/*
 * The pcap and the expected decode for the dissector test (wire_expect.h).
 * Values are written as tshark -T fields prints them: decimal, or 0x and
 * the field's full width in hex where deploy/mrc.lua says base.HEX,
 * booleans 0 or 1, bytes as plain hex, repeated fields joined by commas.
 */
#include <arpa/inet.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "csum.h"
#include "mrc/wire.h"
#include "wire_expect.h"

#define ETH_LEN 14
#define IP4_LEN 20
#define UDP_LEN 8

int capture_open(struct capture *c, const char *path)
{
	/* pcap: magic, version 2.4, no zone, no sigfigs, snaplen, Ethernet */
	const uint32_t hdr[6] = { 0xa1b2c3d4, 0x00040002, 0, 0, 65535, 1 };
	char name[4096];

	c->frames = 0;
	snprintf(name, sizeof(name), "%s.pcap", path);
	c->pcap = fopen(name, "w");
	snprintf(name, sizeof(name), "%s.expect", path);
	c->expect = fopen(name, "w");
	if (!c->pcap || !c->expect) {
		perror(name);
		return -1;
	}
	return fwrite(hdr, sizeof(hdr), 1, c->pcap) == 1 ? 0 : -1;
}

int capture_close(struct capture *c)
{
	int rc = 0;

	if (c->pcap && fclose(c->pcap))
		rc = -1;
	if (c->expect && fclose(c->expect))
		rc = -1;
	return rc;
}

/* caplen of the frame's len bytes, as a capture's snap length keeps them. */
static void put_frame(struct capture *c, const uint8_t *f, size_t caplen,
		      size_t len)
{
	/* One frame a millisecond, from 1 s. */
	uint32_t rec[4] = { 1 + c->frames / 1000, c->frames % 1000 * 1000,
			    (uint32_t)caplen, (uint32_t)len };

	c->frames++;
	fwrite(rec, sizeof(rec), 1, c->pcap);
	fwrite(f, caplen, 1, c->pcap);
}

static void field(struct capture *c, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void field(struct capture *c, const char *name, const char *fmt, ...)
{
	va_list ap;

	fprintf(c->expect, "%u\t%s\t", c->frames, name);
	va_start(ap, fmt);
	vfprintf(c->expect, fmt, ap);
	va_end(ap);
	fputc('\n', c->expect);
}

static void bth(struct capture *c, const struct mrc_bth *b)
{
	uint32_t dqpn = ntohl(b->dqpn), psn = ntohl(b->psn);

	field(c, "mrc.bth.opcode", "0x%02x", b->opcode);
	field(c, "mrc.bth.se", "%u", (unsigned int)(b->flags >> 7));
	field(c, "mrc.bth.migreq", "%u", (unsigned int)(b->flags >> 6 & 1));
	field(c, "mrc.bth.padcnt", "%u", (unsigned int)(b->flags >> 4 & 3));
	field(c, "mrc.bth.tver", "%u", (unsigned int)(b->flags & 15));
	field(c, "mrc.bth.pkey", "0x%04x", ntohs(b->pkey));
	field(c, "mrc.bth.reserved", "0x%02x", dqpn >> 24);
	field(c, "mrc.bth.dest_qp", "%u", dqpn & MRC_BTH_QPN_MASK);
	field(c, "mrc.bth.ackreq", "%u", psn >> 31);
	field(c, "mrc.bth.psn", "%u", psn & MRC_BTH_PSN_MASK);
}

static void hex(struct capture *c, const char *name, const uint8_t *b,
		size_t len)
{
	size_t i;

	fprintf(c->expect, "%u\t%s\t", c->frames, name);
	for (i = 0; i < len; i++)
		fprintf(c->expect, "%02x", b[i]);
	fputc('\n', c->expect);
}

static void data(struct capture *c, const uint8_t *h, size_t len)
{
	const struct mrc_bth *b = (const void *)h;
	const struct mrc_reth *r = (const void *)(b + 1);
	const struct mrc_dext *d = (const void *)(r + 1);
	size_t hl = MRC_DATA_HDR_LEN;

	field(c, "mrc.reth.va", "0x%08x%08x", ntohl(r->va_hi), ntohl(r->va_lo));
	field(c, "mrc.reth.rkey", "0x%08x", ntohl(r->rkey));
	field(c, "mrc.reth.len_bytes", "%u", ntohl(r->len));
	if (b->opcode == MRC_OP_WRITE_ONLY_IMM) {
		const struct mrc_immdt *i = (const void *)(r + 1);

		field(c, "mrc.immdt", "0x%08x", ntohl(i->imm));
		d = (const void *)(i + 1);
		hl = MRC_DATA_IMM_HDR_LEN;
	}
	field(c, "mrc.dext.version", "%u", d->version);
	field(c, "mrc.dext.flags", "0x%02x", d->flags);
	field(c, "mrc.dext.flags.last", "%u",
	      (unsigned int)!!(d->flags & MRC_DF_LAST));
	field(c, "mrc.dext.flags.retx", "%u",
	      (unsigned int)!!(d->flags & MRC_DF_RETX));
	field(c, "mrc.dext.ev", "%u", ntohs(d->ev));
	field(c, "mrc.dext.msg_id", "%u", ntohl(d->msg_id));
	field(c, "mrc.dext.msg_len_bytes", "%u", ntohl(d->msg_len));
	field(c, "mrc.dext.echo", "0x%08x", ntohl(d->echo));
	field(c, "mrc.payload_len_bytes", "%zu", len - hl);
	if (len > hl)
		hex(c, "mrc.payload", h + hl, len - hl);
}

static void ack(struct capture *c, const uint8_t *h)
{
	const struct mrc_aeth *ae = (const void *)(h + sizeof(struct mrc_bth));
	const struct mrc_aext *a = (const void *)(ae + 1);
	uint32_t cum = ntohl(a->cum_psn), w, bit, n = 0;

	field(c, "mrc.aeth.syndrome", "0x%02x", ntohl(ae->syn_msn) >> 24);
	field(c, "mrc.aeth.msn", "%u", ntohl(ae->syn_msn) & 0xffffff);
	field(c, "mrc.aext.version", "%u", a->version);
	field(c, "mrc.aext.flags", "0x%02x", a->flags);
	field(c, "mrc.aext.flags.nack", "%u",
	      (unsigned int)!!(a->flags & MRC_AF_NACK));
	field(c, "mrc.aext.flags.ecn_ce", "%u",
	      (unsigned int)!!(a->flags & MRC_AF_ECN_CE));
	field(c, "mrc.aext.ev", "%u", ntohs(a->ev));
	field(c, "mrc.aext.nack_reason", "%u", a->nack_reason);
	field(c, "mrc.aext.pad", "0x%02x", a->pad);
	field(c, "mrc.aext.svc_64ns", "%u", ntohs(a->svc));
	field(c, "mrc.aext.svc_ns", "%u", ntohs(a->svc) * MRC_SVC_UNIT_NS);
	field(c, "mrc.aext.cum_psn", "%u", cum);
	field(c, "mrc.aext.ack_psn", "%u", ntohl(a->ack_psn));
	field(c, "mrc.aext.echo", "0x%08x", ntohl(a->echo));
	fprintf(c->expect, "%u\tmrc.aext.sack\t", c->frames);
	for (w = 0; w < MRC_SACK_BITS / 32; w++)
		fprintf(c->expect, "%s0x%08x", w ? "," : "", ntohl(a->sack[w]));
	fputc('\n', c->expect);
	for (w = 0; w < MRC_SACK_BITS; w++) {
		bit = ntohl(a->sack[w / 32]) >> (31 - w % 32) & 1;
		if (!bit)
			continue;
		if (!n++)
			fprintf(c->expect, "%u\tmrc.aext.sacked_psn\t",
				c->frames);
		else
			fputc(',', c->expect);
		fprintf(c->expect, "%u", (cum + 1 + w) & MRC_BTH_PSN_MASK);
	}
	if (n)
		fputc('\n', c->expect);
}

static void probe(struct capture *c, const uint8_t *h)
{
	const struct mrc_pext *p = (const void *)(h + sizeof(struct mrc_bth));

	field(c, "mrc.pext.version", "%u", p->version);
	field(c, "mrc.pext.flags", "0x%02x", p->flags);
	field(c, "mrc.pext.ev", "%u", ntohs(p->ev));
	field(c, "mrc.pext.ev_idx", "%u", p->ev_idx);
	hex(c, "mrc.pext.pad", p->pad, sizeof(p->pad));
	field(c, "mrc.pext.seq", "%u", ntohl(p->seq));
	field(c, "mrc.pext.tx_ts_ns", "%llu",
	      (unsigned long long)ntohl(p->tx_ts_hi) << 32 |
		      ntohl(p->tx_ts_lo));
	field(c, "mrc.pext.svc_ns", "%u", ntohl(p->svc_ns));
}

static void ctl_msg(struct capture *c, const uint8_t *h)
{
	const struct mrc_cext *x = (const void *)(h + sizeof(struct mrc_bth));

	field(c, "mrc.cext.version", "%u", x->version);
	field(c, "mrc.cext.type", "%u", x->type);
	field(c, "mrc.cext.flags", "0x%02x", x->flags);
	field(c, "mrc.cext.flags.dyn_mpr", "%u",
	      (unsigned int)!!(x->flags & MRC_CTLF_DYN_MPR));
	field(c, "mrc.cext.pad", "0x%02x", x->pad0);
	field(c, "mrc.cext.sqpn", "%u", ntohl(x->sqpn));
	field(c, "mrc.cext.seq", "%u", ntohl(x->seq));
	field(c, "mrc.cext.token", "0x%08x", ntohl(x->token));
	if (x->type <= MRC_CTL_PSU_ANSWER)
		field(c, "mrc.cext.port_status", "0x%08x", ntohl(x->value));
	else
		field(c, "mrc.cext.window_psns", "%u", ntohl(x->value));
}

void capture_frame(struct capture *c, const uint8_t *f, size_t len)
{
	size_t off = udp_payload(f);
	const uint8_t *h = f + off;

	put_frame(c, f, len, len);
	bth(c, (const void *)h);
	switch (h[0]) {
	case MRC_OP_WRITE_ONLY:
	case MRC_OP_WRITE_ONLY_IMM:
		data(c, h, len - off);
		break;
	case MRC_OP_ACK:
		ack(c, h);
		break;
	case MRC_OP_CTL:
		ctl_msg(c, h);
		break;
	default:
		probe(c, h);
	}
}

void capture_bad(struct capture *c, const uint8_t *f, size_t len,
		 const char *expert)
{
	capture_snapped(c, f, len, len, expert);
}

void capture_snapped(struct capture *c, const uint8_t *f, size_t caplen,
		     size_t len, const char *expert)
{
	put_frame(c, f, caplen, len);
	fprintf(c->expect, "%u\t%s\n", c->frames, expert);
}

size_t udp_payload(const uint8_t *f)
{
	if (f[ETH_LEN] >> 4 == 6)
		return ETH_LEN + 40 + UDP_LEN;
	return ETH_LEN + (size_t)(f[ETH_LEN] & 15) * 4 + UDP_LEN;
}

size_t frame_resize(uint8_t *f, size_t payload_len)
{
	uint8_t *ip = f + ETH_LEN, *udp = f + udp_payload(f) - UDP_LEN;
	size_t ulen = UDP_LEN + payload_len;
	size_t tot = (size_t)(udp - ip) + ulen;

	ip[2] = (uint8_t)(tot >> 8);
	ip[3] = (uint8_t)tot;
	udp[4] = (uint8_t)(ulen >> 8);
	udp[5] = (uint8_t)ulen;
	frame_fix(f);
	return ETH_LEN + tot;
}

void frame_fix(uint8_t *f)
{
	uint8_t *ip = f + ETH_LEN, *udp = f + udp_payload(f) - UDP_LEN;
	size_t ulen = (size_t)udp[4] << 8 | udp[5];
	uint64_t sum;
	uint16_t v;

	ip[10] = ip[11] = 0;
	v = mrc_csum(ip, (size_t)(ip[0] & 15) * 4);
	ip[10] = (uint8_t)(v >> 8);
	ip[11] = (uint8_t)v;
	udp[6] = udp[7] = 0;
	sum = mrc_csum_add(0, ip + 12, 8) + IPPROTO_UDP + ulen;
	v = mrc_csum_fold(mrc_csum_add(sum, udp, ulen));
	v = v ? v : 0xffff;
	udp[6] = (uint8_t)(v >> 8);
	udp[7] = (uint8_t)v;
}
