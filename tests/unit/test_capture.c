// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of mrcctl capture's pieces that need no kernel: the argument
 * parser (tools/mrcctl/capture_args.c over args.c) and the pcap and
 * pcapng writers (tools/mrcctl/pcap.c), whose bytes are checked against
 * the formats libpcap and the pcapng draft define.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "mrcctl.h"
#include "mrcctl_stubs.h"
#include "capture.h"
#include "pcap.h"
#include "mrc/capture.h"

/* What capture_args.c needs from main.c besides mrcctl_stubs.c. */
struct mrcctl_opts opts;
FILE *out;
int out_keep;

/* parse "WORDS" (split at spaces) into o; the exit code */
static int parse(const char *words, struct cap_opts *o)
{
	struct args a;

	stub_args(&a, "capture", words);
	return cap_parse(&a, o);
}

static void defaults(void **state)
{
	struct cap_opts o;

	(void)state;
	assert_int_equal(parse("dev p0 -w x.pcap", &o), 0);
	assert_string_equal(o.dev, "p0");
	assert_string_equal(o.file, "x.pcap");
	assert_int_equal(o.classes, MRC_CAP_ALL);
	assert_int_equal(o.dir, CAP_DIR_IN); /* classic pcap, as before */
	assert_int_equal(o.qpn_on, 0);
	assert_int_equal(o.snaplen, CAP_SNAPLEN_MAX);
	/* Both bounds hold without being asked for. */
	assert_int_equal(o.count, CAP_COUNT_DEFAULT);
	assert_int_equal(o.seconds, CAP_SECONDS_DEFAULT);
}

static void every_keyword(void **state)
{
	struct cap_opts o;

	(void)state;
	assert_int_equal(parse("write - dev eth1 dir in qpn 0x1234 class "
			       "ack,nack snaplen 128 count 5 duration 3",
			       &o),
			 0);
	assert_string_equal(o.file, "-");
	assert_string_equal(o.dev, "eth1");
	assert_int_equal(o.qpn_on, 1);
	assert_int_equal(o.qpn, 0x1234);
	assert_int_equal(o.classes, MRC_CAP_ACK | MRC_CAP_NACK);
	assert_int_equal(o.snaplen, 128);
	assert_int_equal(o.count, 5);
	assert_int_equal(o.seconds, 3);
	assert_int_equal(o.dir, CAP_DIR_IN);
	assert_int_equal(parse("dev p0 -w f dir out", &o), 0);
	assert_int_equal(o.dir, CAP_DIR_OUT);
	assert_int_equal(parse("dev p0 -w f dir both", &o), 0);
	assert_int_equal(o.dir, CAP_DIR_IN | CAP_DIR_OUT);
	assert_int_equal(parse("dev p0 -w f dir b", &o), 0);
	assert_int_equal(o.dir, CAP_DIR_IN | CAP_DIR_OUT);
	/* Unique prefixes, as everywhere in mrcctl. */
	assert_int_equal(parse("de p0 -w f cl pro,d sn 64 co 1 du 1", &o), 0);
	assert_int_equal(o.classes, MRC_CAP_PROBE | MRC_CAP_DATA);
	assert_int_equal(o.snaplen, 64);
}

/* Each bad word: exit 1, and the message names it. */
static void bad_words(void **state)
{
	static const struct {
		const char *words, *named;
	} cases[] = {
		{ "-w f", "dev IFNAME" },
		{ "dev p0", "-w FILE" },
		{ "dev p0 -w f count 0", "count" },
		{ "dev p0 -w f count 10000001", "count" },
		{ "dev p0 -w f duration 0", "duration" },
		{ "dev p0 -w f duration 86401", "duration" },
		{ "dev p0 -w f snaplen 13", "snaplen" },
		{ "dev p0 -w f snaplen 16385", "snaplen" },
		{ "dev p0 -w f qpn 0x1000000", "qpn" },
		{ "dev p0 -w f qpn x", "qpn" },
		{ "dev p0 -w f class data,bogus", "bogus" },
		{ "dev p0 -w f class", "class" },
		{ "dev p0 -w f dir sideways", "sideways" },
		{ "dev p0 -w f dir", "dir" },
		{ "dev p0 -w f dir in dir out", "given twice" },
		{ "dev p0 -w f -w g", "given twice" },
		{ "dev p0 -w f write g", "given twice" },
		{ "dev p0 dev p1 -w f", "given twice" },
		{ "dev p0 -w", "FILE" },
		{ "dev 0123456789abcdef -w f", "0123456789abcdef" },
		{ "dev p0 -w f bogus", "bogus" },
		{ "dev p0 -w f d x", "ambiguous" }, /* dev, dir, duration */
	};
	struct cap_opts o;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(parse(cases[i].words, &o), MRCCTL_EXIT_USAGE);
		if (!strstr(last_err, cases[i].named))
			fail_msg("'%s': '%s' does not name '%s'",
				 cases[i].words, last_err, cases[i].named);
	}
}

static uint32_t le32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4); /* the writer's own byte order, as libpcap's */
	return v;
}

static void pcap_bytes(void **state)
{
	const uint8_t frame[60] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 1, 2 };
	uint8_t *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream((char **)&buf, &len);

	(void)state;
	assert_non_null(f);
	assert_int_equal(pcap_write_header(f, 128), 0);
	assert_int_equal(
		pcap_write_record(f, 1700000000123456789ull, 60, 20, frame), 0);
	/* A snap length longer than the frame is a caller's bug. */
	assert_int_equal(pcap_write_record(f, 0, 10, 11, frame), -EINVAL);
	fclose(f);
	assert_int_equal(len, 24 + 16 + 20);
	assert_int_equal(le32(buf), 0xa1b23c4d); /* nanosecond pcap */
	assert_int_equal(buf[4] | buf[5] << 8, 2); /* version 2.4 */
	assert_int_equal(buf[6] | buf[7] << 8, 4);
	assert_int_equal(le32(buf + 8), 0); /* thiszone */
	assert_int_equal(le32(buf + 12), 0); /* sigfigs */
	assert_int_equal(le32(buf + 16), 128); /* snaplen */
	assert_int_equal(le32(buf + 20), 1); /* LINKTYPE_ETHERNET */
	assert_int_equal(le32(buf + 24), 1700000000u); /* seconds */
	assert_int_equal(le32(buf + 28), 123456789u); /* nanoseconds */
	assert_int_equal(le32(buf + 32), 20); /* captured */
	assert_int_equal(le32(buf + 36), 60); /* on the wire */
	assert_memory_equal(buf + 40, frame, 20);
	free(buf);
}

static uint16_t le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

/*
 * pcapng: section header, interface 0 (Ethernet, named, nanoseconds),
 * then one enhanced packet block per frame with its direction; every
 * block's length at both ends, every block a multiple of 4 bytes.
 */
static void pcapng_bytes(void **state)
{
	const uint8_t frame[61] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 1, 2 };
	const uint64_t ts = 1700000000123456789ull;
	uint8_t *buf = NULL, *b;
	size_t len = 0, off;
	FILE *f = open_memstream((char **)&buf, &len);
	uint32_t n, dirs[2] = { 0 }, i = 0;
	char big[PCAPNG_COMMENT_MAX + 2] = { 0 };

	(void)state;
	assert_non_null(f);
	assert_int_equal(pcapng_write_header(f, 128, "p0"), 0);
	assert_int_equal(pcapng_write_record(f, ts, 61, 21, frame,
					     PCAPNG_INBOUND, NULL),
			 0);
	assert_int_equal(pcapng_write_record(f, ts + 1, 61, 61, frame,
					     PCAPNG_OUTBOUND, "XDP_TX"),
			 0);
	assert_int_equal(pcapng_write_record(f, 0, 10, 11, frame,
					     PCAPNG_INBOUND, NULL),
			 -EINVAL);
	assert_int_equal(pcapng_write_record(f, 0, 10, 10, frame, 3, NULL),
			 -EINVAL);
	memset(big, 'x', sizeof(big) - 1);
	assert_int_equal(pcapng_write_record(f, 0, 10, 10, frame,
					     PCAPNG_OUTBOUND, big),
			 -EINVAL);
	fclose(f);
	/* Section header: type, length, byte order, 1.0, length unknown. */
	assert_int_equal(le32(buf), 0x0a0d0d0a);
	assert_int_equal(le32(buf + 4), 28);
	assert_int_equal(le32(buf + 8), 0x1a2b3c4d);
	assert_int_equal(le16(buf + 12), 1);
	assert_int_equal(le16(buf + 14), 0);
	assert_int_equal(le32(buf + 16), 0xffffffffu);
	assert_int_equal(le32(buf + 20), 0xffffffffu);
	assert_int_equal(le32(buf + 24), 28);
	/* Interface: Ethernet, snaplen, if_name "p0", if_tsresol 9. */
	b = buf + 28;
	assert_int_equal(le32(b), 1);
	n = le32(b + 4);
	assert_int_equal(n, 16 + 8 + 8 + 4 + 4);
	assert_int_equal(le16(b + 8), 1);
	assert_int_equal(le32(b + 12), 128);
	assert_int_equal(le16(b + 16), 2);
	assert_int_equal(le16(b + 18), 2);
	assert_memory_equal(b + 20, "p0", 2);
	assert_int_equal(le16(b + 24), 9);
	assert_int_equal(le16(b + 26), 1);
	assert_int_equal(b[28], 9);
	assert_int_equal(le32(b + 32), 0); /* end of options */
	assert_int_equal(le32(b + n - 4), n);
	/* The packets. */
	for (off = 28 + n; off < len; off += n, i++) {
		b = buf + off;
		n = le32(b + 4);
		assert_int_equal(n % 4, 0);
		assert_true(off + n <= len);
		assert_int_equal(le32(b + n - 4), n);
		assert_int_equal(le32(b), 6);
		assert_int_equal(le32(b + 8), 0); /* interface 0 */
		assert_int_equal((uint64_t)le32(b + 12) << 32 | le32(b + 16),
				 ts + i);
		assert_int_equal(le32(b + 20), i ? 61 : 21);
		assert_int_equal(le32(b + 24), 61);
		assert_memory_equal(b + 28, frame, i ? 61 : 21);
		b += 28 + ((le32(b + 20) + 3) & ~3u);
		assert_int_equal(le16(b), 2); /* epb_flags */
		assert_int_equal(le16(b + 2), 4);
		assert_true(i < 2);
		dirs[i] = le32(b + 4) & 3;
		if (i) { /* opt_comment "XDP_TX", padded to 8 */
			assert_int_equal(le16(b + 8), 1);
			assert_int_equal(le16(b + 10), 6);
			assert_memory_equal(b + 12, "XDP_TX\0\0", 8);
			b += 12;
		}
		assert_int_equal(le32(b + 8), 0); /* end of options */
	}
	assert_int_equal(i, 2);
	assert_int_equal(off, len);
	assert_int_equal(dirs[0], 1); /* inbound */
	assert_int_equal(dirs[1], 2); /* outbound */
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(defaults),	cmocka_unit_test(every_keyword),
		cmocka_unit_test(bad_words),	cmocka_unit_test(pcap_bytes),
		cmocka_unit_test(pcapng_bytes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
