// SPDX-License-Identifier: GPL-2.0
/* The pcap and pcapng writers of mrcctl capture (pcap.h). */
#include <errno.h>
#include <string.h>

#include "pcap.h"

struct pcap_file_hdr {
	uint32_t magic;
	uint16_t major, minor;
	int32_t thiszone; /* always 0 */
	uint32_t sigfigs; /* always 0 */
	uint32_t snaplen;
	uint32_t linktype;
};

struct pcap_rec_hdr {
	uint32_t ts_sec;
	uint32_t ts_nsec; /* nanoseconds: PCAP_MAGIC_NS */
	uint32_t cap_len;
	uint32_t len;
};

_Static_assert(sizeof(struct pcap_file_hdr) == 24, "pcap file header");
_Static_assert(sizeof(struct pcap_rec_hdr) == 16, "pcap record header");

static int put(FILE *f, const void *p, size_t n)
{
	if (n && fwrite(p, 1, n, f) != n)
		return errno ? -errno : -EIO;
	return 0;
}

int pcap_write_header(FILE *f, uint32_t snaplen)
{
	struct pcap_file_hdr h = {
		.magic = PCAP_MAGIC_NS,
		.major = 2,
		.minor = 4,
		.snaplen = snaplen,
		.linktype = PCAP_LINKTYPE_ETHERNET,
	};

	return put(f, &h, sizeof(h));
}

int pcap_write_record(FILE *f, uint64_t ts_ns, uint32_t len, uint32_t cap_len,
		      const void *data)
{
	struct pcap_rec_hdr h = {
		.ts_sec = (uint32_t)(ts_ns / 1000000000u),
		.ts_nsec = (uint32_t)(ts_ns % 1000000000u),
		.cap_len = cap_len,
		.len = len,
	};
	int err;

	if (cap_len > len)
		return -EINVAL;
	err = put(f, &h, sizeof(h));
	return err ? err : put(f, data, cap_len);
}

/* ---- pcapng --------------------------------------------------------------- */

#define PCAPNG_OPT_END 0
#define PCAPNG_OPT_COMMENT 1
#define PCAPNG_IF_NAME 2
#define PCAPNG_IF_TSRESOL 9
#define PCAPNG_EPB_FLAGS 2

static const uint8_t zeros[4];

static size_t pad4(size_t n)
{
	return (n + 3) & ~(size_t)3;
}

/* An option: code, length, the value padded to 4 bytes. */
static int put_opt(FILE *f, uint16_t code, const void *v, uint16_t n)
{
	uint16_t h[2] = { code, n };
	int err = put(f, h, sizeof(h));

	if (!err)
		err = put(f, v, n);
	return err ? err : put(f, zeros, pad4(n) - n);
}

int pcapng_write_header(FILE *f, uint32_t snaplen, const char *ifname)
{
	struct {
		uint32_t type, len, magic;
		uint16_t major, minor;
		int64_t section_len;
		uint32_t len2;
	} __attribute__((packed)) shb = {
		.type = PCAPNG_SHB,
		.len = sizeof(shb),
		.magic = PCAPNG_BYTE_ORDER,
		.major = 1,
		.minor = 0,
		.section_len = -1, /* not known: written as a stream */
		.len2 = sizeof(shb),
	};
	struct {
		uint32_t type, len;
		uint16_t linktype, reserved;
		uint32_t snaplen;
	} idb = { .type = PCAPNG_IDB,
		  .linktype = PCAP_LINKTYPE_ETHERNET,
		  .snaplen = snaplen };
	const char *name = *ifname ? ifname : "?"; /* never an empty option */
	uint16_t name_len = (uint16_t)strnlen(name, 64);
	uint8_t tsresol = 9; /* 10^-9 s: nanoseconds */
	uint32_t len;
	int err;

	_Static_assert(sizeof(shb) == 28, "pcapng section header");
	_Static_assert(sizeof(idb) == 16, "pcapng interface block head");
	/* head, if_name, if_tsresol, end of options, the length again */
	len = (uint32_t)(sizeof(idb) + 4 + pad4(name_len) + 4 + 4 + 4 + 4);
	idb.len = len;
	err = put(f, &shb, sizeof(shb));
	if (!err)
		err = put(f, &idb, sizeof(idb));
	if (!err)
		err = put_opt(f, PCAPNG_IF_NAME, name, name_len);
	if (!err)
		err = put_opt(f, PCAPNG_IF_TSRESOL, &tsresol, 1);
	if (!err)
		err = put_opt(f, PCAPNG_OPT_END, NULL, 0);
	return err ? err : put(f, &len, sizeof(len));
}

int pcapng_write_record(FILE *f, uint64_t ts_ns, uint32_t len, uint32_t cap_len,
			const void *data, uint32_t dir, const char *comment)
{
	struct {
		uint32_t type, len, ifid, ts_hi, ts_lo, cap_len, orig_len;
	} h = {
		.type = PCAPNG_EPB,
		.ts_hi = (uint32_t)(ts_ns >> 32),
		.ts_lo = (uint32_t)ts_ns,
		.cap_len = cap_len,
		.orig_len = len,
	};
	uint32_t flags = dir;
	size_t clen = comment ? strlen(comment) : 0;
	int err;

	_Static_assert(sizeof(h) == 28, "pcapng packet block head");
	if (cap_len > len ||
	    (dir != PCAPNG_INBOUND && dir != PCAPNG_OUTBOUND) ||
	    clen > PCAPNG_COMMENT_MAX)
		return -EINVAL;
	/*
	 * head, data padded, epb_flags, opt_comment padded, end of options,
	 * the length again
	 */
	h.len = (uint32_t)(sizeof(h) + pad4(cap_len) + 8 +
			   (clen ? 4 + pad4(clen) : 0) + 4 + 4);
	err = put(f, &h, sizeof(h));
	if (!err)
		err = put(f, data, cap_len);
	if (!err)
		err = put(f, zeros, pad4(cap_len) - cap_len);
	if (!err)
		err = put_opt(f, PCAPNG_EPB_FLAGS, &flags, sizeof(flags));
	if (!err && clen)
		err = put_opt(f, PCAPNG_OPT_COMMENT, comment, (uint16_t)clen);
	if (!err)
		err = put_opt(f, PCAPNG_OPT_END, NULL, 0);
	return err ? err : put(f, &h.len, sizeof(h.len));
}
