// SPDX-License-Identifier: GPL-2.0
/*
 * srv6_send: send hand-made SRv6 frames from a host's port into a testbed
 * plane in SRv6 mode (docs/testbed.md), for tests/system/168-srv6-usid.sh:
 * an outer IPv6 header to a uSID container, an optional SRH, an inner
 * IPv6 header and a UDP datagram, through an AF_PACKET socket, so any
 * field can be made wrong on purpose.
 *
 *   srv6_send --netns NS --dev IF --dmac MAC --src ADDR --dst CONTAINER
 *             [--seg ADDR]... [--sl N] [--last N] [--type N] [--hlim N]
 *             [--inner-dst ADDR] [--cut BYTES] [--count N] [--sport N]
 *
 * --seg adds an SRH segment (in list order: the first is Segment List[0],
 * the final one); --sl and --last default to the segments less one; --cut
 * shortens each frame to BYTES. Prints {"frames": N}.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <netinet/ether.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAX_SEGS 8
#define PAYLOAD 64

struct opts {
	const char *netns, *dev, *src, *dst, *inner_dst;
	const char *seg[MAX_SEGS];
	int nseg, sl, last, type, hlim, cut, sport;
	long count;
	uint8_t dmac[6];
};

static int die(const char *what, const char *arg)
{
	fprintf(stderr, "srv6_send: %s%s%s\n", what, arg ? ": " : "",
		arg ? arg : "");
	return 1;
}

static void put16(uint8_t *at, uint16_t v)
{
	at[0] = v >> 8;
	at[1] = v & 0xff;
}

static uint16_t udp6_csum(const uint8_t *ip6, const uint8_t *udp, size_t len)
{
	uint32_t sum = 17 + len;
	size_t i;

	for (i = 8; i < 40; i += 2)
		sum += ip6[i] << 8 | ip6[i + 1];
	for (i = 0; i + 1 < len; i += 2)
		sum += udp[i] << 8 | udp[i + 1];
	if (len & 1)
		sum += udp[len - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	sum = ~sum & 0xffff;
	return sum ? sum : 0xffff;
}

static int ip6hdr(uint8_t *h, uint16_t plen, uint8_t nh, uint8_t hlim,
		  const char *src, const char *dst)
{
	h[0] = 0x60;
	put16(h + 4, plen);
	h[6] = nh;
	h[7] = hlim;
	return inet_pton(AF_INET6, src, h + 8) == 1 &&
			       inet_pton(AF_INET6, dst, h + 24) == 1 ?
		       0 :
		       -1;
}

/* The frame into buf; its length, or -1 on a bad address. */
static int build(const struct opts *o, const uint8_t smac[6], uint8_t *buf)
{
	size_t srh_len = o->nseg ? 8 + 16 * o->nseg : 0, i;
	uint8_t *ip = buf + 14, *udp = ip + 40 + srh_len + 40;
	size_t len = 14 + 40 + srh_len + 40 + 8 + PAYLOAD;

	memset(buf, 0, len);
	memcpy(buf, o->dmac, 6);
	memcpy(buf + 6, smac, 6);
	put16(buf + 12, ETH_P_IPV6);
	if (ip6hdr(ip, srh_len + 40 + 8 + PAYLOAD, o->nseg ? 43 : 41, o->hlim,
		   o->src, o->dst))
		return -1;
	if (o->nseg) {
		uint8_t *srh = ip + 40;

		srh[0] = 41;
		srh[1] = 2 * o->nseg;
		srh[2] = o->type;
		srh[3] = o->sl >= 0 ? o->sl : o->nseg - 1;
		srh[4] = o->last >= 0 ? o->last : o->nseg - 1;
		for (i = 0; i < (size_t)o->nseg; i++)
			if (inet_pton(AF_INET6, o->seg[i], srh + 8 + 16 * i) !=
			    1)
				return -1;
	}
	if (ip6hdr(udp - 40, 8 + PAYLOAD, 17, 64, o->src, o->inner_dst))
		return -1;
	put16(udp, o->sport);
	put16(udp + 2, 9000);
	put16(udp + 4, 8 + PAYLOAD);
	for (i = 0; i < PAYLOAD; i++)
		udp[8 + i] = i;
	put16(udp + 6, udp6_csum(udp - 40, udp, 8 + PAYLOAD));
	if (o->cut > 0 && (size_t)o->cut < len)
		len = o->cut;
	return (int)len;
}

static int enter_netns(const char *name)
{
	char path[256];
	int fd, err;

	snprintf(path, sizeof(path), "/run/netns/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = setns(fd, CLONE_NEWNET) ? -errno : 0;
	close(fd);
	return err;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "netns", 1, 0, 'n' },
		{ "dev", 1, 0, 'd' },
		{ "dmac", 1, 0, 'm' },
		{ "src", 1, 0, 's' },
		{ "dst", 1, 0, 't' },
		{ "seg", 1, 0, 'g' },
		{ "sl", 1, 0, 'l' },
		{ "last", 1, 0, 'L' },
		{ "type", 1, 0, 'y' },
		{ "hlim", 1, 0, 'h' },
		{ "inner-dst", 1, 0, 'i' },
		{ "cut", 1, 0, 'c' },
		{ "count", 1, 0, 'k' },
		{ "sport", 1, 0, 'p' },
		{ 0, 0, 0, 0 },
	};
	struct opts o = { .sl = -1,
			  .last = -1,
			  .type = 4,
			  .hlim = 64,
			  .inner_dst = "fd00:1:0:2::2",
			  .count = 1,
			  .sport = 20000 };
	struct sockaddr_ll sll = { .sll_family = AF_PACKET };
	struct ether_addr *ea = NULL;
	struct ifreq ifr = {};
	uint8_t buf[2048], smac[6];
	long sent = 0;
	int c, fd, len;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'n':
			o.netns = optarg;
			break;
		case 'd':
			o.dev = optarg;
			break;
		case 's':
			o.src = optarg;
			break;
		case 't':
			o.dst = optarg;
			break;
		case 'i':
			o.inner_dst = optarg;
			break;
		case 'm':
			ea = ether_aton(optarg);
			if (!ea)
				return die("bad MAC", optarg);
			memcpy(o.dmac, ea->ether_addr_octet, 6);
			break;
		case 'g':
			if (o.nseg == MAX_SEGS)
				return die("too many segments", NULL);
			o.seg[o.nseg++] = optarg;
			break;
		case 'l':
			o.sl = atoi(optarg);
			break;
		case 'L':
			o.last = atoi(optarg);
			break;
		case 'y':
			o.type = atoi(optarg);
			break;
		case 'h':
			o.hlim = atoi(optarg);
			break;
		case 'c':
			o.cut = atoi(optarg);
			break;
		case 'k':
			o.count = atol(optarg);
			break;
		case 'p':
			o.sport = atoi(optarg);
			break;
		default:
			return die("bad option (see the source's head)", NULL);
		}
	}
	if (!o.netns || !o.dev || !ea || !o.src || !o.dst)
		return die("need --netns --dev --dmac --src --dst", NULL);
	if (enter_netns(o.netns))
		return die("cannot enter netns", o.netns);
	fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return die("AF_PACKET socket", strerror(errno));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", o.dev);
	if (ioctl(fd, SIOCGIFHWADDR, &ifr))
		return die("no such device", o.dev);
	memcpy(smac, ifr.ifr_hwaddr.sa_data, 6);
	sll.sll_ifindex = (int)if_nametoindex(o.dev);
	sll.sll_halen = 6;
	memcpy(sll.sll_addr, o.dmac, 6);
	len = build(&o, smac, buf);
	if (len < 0)
		return die("bad address", NULL);
	for (; sent < o.count; sent++)
		if (sendto(fd, buf, len, 0, (struct sockaddr *)&sll,
			   sizeof(sll)) != len)
			break;
	close(fd);
	printf("{\"frames\": %ld}\n", sent);
	return sent == o.count ? 0 : 1;
}
