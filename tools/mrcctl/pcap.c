// SPDX-License-Identifier: GPL-2.0
/* The pcap writer of mrcctl capture (pcap.h). */
#include <errno.h>

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
