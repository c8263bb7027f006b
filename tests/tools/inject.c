// SPDX-License-Identifier: GPL-2.0
/*
 * inject: an off-path host forging mrc packets at a QP, for the blind
 * injection test (tests/system/140-blind-injection.sh, docs/security.md).
 * It is given more than an off-path host can know: the victim's QP
 * number, and its PSNs read from the victim's own pinned maps as it runs.
 * What it does not have is the per-QP echo key. From another host's
 * namespace, with the peer's address as its source, it sends:
 *
 *   ack   ACKs naming a PSN in flight with the cumulative PSN at the next
 *         one to send and every SACK bit set ("all of it arrived")
 *   nack  fatal NACKs (rkey) naming PSNs in flight ("fail the QP")
 *   trim  retryable NACKs (trimmed) naming PSNs in flight ("resend")
 *   data  WRITEs into the receiver's window with a guessed rkey, so the
 *         receiver itself NACKs the real sender
 *   probe answers to QP probes for the EVs out of use ("this path works
 *         again"), the EVs' states, source ports and indexes read from
 *         the map; half the sequence numbers small (what a counter would
 *         have used), half random
 *
 *   inject --mode ack|nack|trim|data|probe --pin MAP --qpn N --netns NS
 *          --dev IF --dmac MAC --src IP --dst IP [--seconds S] [--max N]
 *
 * MAP is the victim's pinned mrc_qp_tx (ack, nack, trim, probe) or mrc_qp
 * (data). With nothing in flight as read, ack, nack and trim name the next
 * 16 PSNs to be sent instead.
 * Prints {"frames": N} on exit. Bounded by --seconds (default 5) and --max
 * frames (default 10^7).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "mrc/abi.h"
#include "mrc/wire.h"
#include "pkt.h"

struct opts {
	const char *mode, *pin, *netns, *dev, *src, *dst;
	uint8_t dmac[6];
	uint32_t qpn;
	double seconds;
	long max;
};

static int die(const char *what)
{
	fprintf(stderr, "inject: %s: %s\n", what, strerror(errno));
	return 1;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint32_t rnd32(void)
{
	static uint64_t x = 0x853c49e6748fea9bull;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return (uint32_t)x;
}

/* The victim's PSNs: una and next (send side) or cum (receive side). */
static int psns(int fd, const struct opts *o, uint32_t *lo, uint32_t *hi)
{
	static struct mrc_qp_tx qt;
	static struct mrc_qp_rx qr;
	uint32_t key = o->qpn;

	if (!strcmp(o->mode, "probe")) {
		/* Any time: the EVs are what matters, not the PSNs. */
		if (bpf_map_lookup_elem(fd, &key, &qt))
			return -1;
		*lo = 0;
		*hi = 1;
		return 0;
	}
	if (!strcmp(o->mode, "data")) {
		if (bpf_map_lookup_elem(fd, &key, &qr))
			return -1;
		*lo = qr.cum_psn;
		*hi = qr.cum_psn + (qr.window ? qr.window : 1);
		return 0;
	}
	if (bpf_map_lookup_elem(fd, &key, &qt))
		return -1;
	*lo = qt.una_psn;
	*hi = qt.next_psn;
	return 0;
}

/* The victim's EVs (probe mode), read once. */
static struct mrc_qp_tx victim;

static void forge(struct pkt *p, const struct opts *o, uint32_t psn,
		  uint32_t cum, const uint8_t src_mac[6])
{
	const uint32_t all[8] = { ~0u, ~0u, ~0u, ~0u, ~0u, ~0u, ~0u, ~0u };
	int v6 = strchr(o->dst, ':') != NULL;
	uint16_t ev = (uint16_t)(49152 + rnd32() % 16384);
	static uint32_t sweep;
	uint8_t idx = 0;

	if (!strcmp(o->mode, "probe")) {
		/* An EV out of use, hence probed; any, if none is. */
		uint32_t n = victim.nev ? victim.nev : 1, k;

		idx = (uint8_t)(rnd32() % n % MRC_QP_EVS);
		for (k = 0; k < 64 && victim.ev_state[idx] == MRC_EV_GOOD; k++)
			idx = (uint8_t)(rnd32() % n % MRC_QP_EVS);
		ev = victim.ev[idx];
	}

	pkt_init(p);
	pkt_eth(p, o->dmac, src_mac);
	if (v6)
		pkt_ipv6(p, o->src, o->dst, 0x02);
	else
		pkt_ipv4(p, o->src, o->dst, 0x02);
	pkt_udp(p, ev, MRC_UDP_PORT);
	if (!strcmp(o->mode, "probe")) {
		uint32_t seq = sweep++ % 2 ? rnd32() : 1 + rnd32() % 4096;

		pkt_bth(p, MRC_OP_PROBE_ANSWER, o->qpn, 0, 0);
		pkt_pext(p, ev, idx, seq, 0, 0);
	} else if (!strcmp(o->mode, "data")) {
		pkt_bth(p, MRC_OP_WRITE_ONLY, o->qpn, psn, 0);
		pkt_reth(p, 0x7f0000000000ull, rnd32(), 64);
		pkt_dext(p, MRC_DF_LAST, ev, 1, 64, rnd32());
		pkt_pattern(p, 64, 0x66);
	} else {
		uint8_t reason = !strcmp(o->mode, "nack") ? MRC_NACK_RKEY :
				 !strcmp(o->mode, "trim") ? MRC_NACK_TRIMMED :
							    0;

		pkt_bth(p, MRC_OP_ACK, o->qpn, psn, 0);
		pkt_aeth(p, reason ? MRC_AETH_NAK | reason : MRC_AETH_ACK, 0);
		pkt_aext(p, reason ? MRC_AF_NACK : 0, ev, reason, cum, psn,
			 rnd32(), reason ? NULL : all);
	}
	p->udp_csum = 1;
	pkt_finish(p);
}

static int parse_mac(const char *s, uint8_t mac[6])
{
	return sscanf(s, "%hhx:%hhx:%hhx:%hhx:%hhx:%hhx", &mac[0], &mac[1],
		      &mac[2], &mac[3], &mac[4], &mac[5]) == 6 ?
		       0 :
		       -1;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "mode", required_argument, NULL, 'm' },
		{ "pin", required_argument, NULL, 'p' },
		{ "qpn", required_argument, NULL, 'q' },
		{ "netns", required_argument, NULL, 'n' },
		{ "dev", required_argument, NULL, 'd' },
		{ "dmac", required_argument, NULL, 'M' },
		{ "src", required_argument, NULL, 's' },
		{ "dst", required_argument, NULL, 't' },
		{ "seconds", required_argument, NULL, 'S' },
		{ "max", required_argument, NULL, 'x' },
		{}
	};
	struct opts o = { .seconds = 5, .max = 10000000 };
	struct sockaddr_ll to = { .sll_family = AF_PACKET };
	uint8_t src_mac[6] = { 2, 0, 0, 0, 0, 0x66 };
	static struct pkt p;
	long frames = 0;
	char path[512];
	int c, fd, ns, sk;
	double end;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'm':
			o.mode = optarg;
			break;
		case 'p':
			o.pin = optarg;
			break;
		case 'q':
			o.qpn = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'n':
			o.netns = optarg;
			break;
		case 'd':
			o.dev = optarg;
			break;
		case 'M':
			if (parse_mac(optarg, o.dmac)) {
				fprintf(stderr,
					"inject: --dmac %s: not a MAC\n",
					optarg);
				return 2;
			}
			break;
		case 's':
			o.src = optarg;
			break;
		case 't':
			o.dst = optarg;
			break;
		case 'S':
			o.seconds = atof(optarg);
			break;
		case 'x':
			o.max = atol(optarg);
			break;
		default:
			return 2;
		}
	}
	if (!o.mode || !o.pin || !o.netns || !o.dev || !o.src || !o.dst ||
	    (strcmp(o.mode, "ack") && strcmp(o.mode, "nack") &&
	     strcmp(o.mode, "trim") && strcmp(o.mode, "data") &&
	     strcmp(o.mode, "probe"))) {
		fprintf(stderr,
			"usage: inject --mode ack|nack|trim|data|probe --pin MAP --qpn N --netns NS --dev IF --dmac MAC --src IP --dst IP [--seconds S] [--max N]\n");
		return 2;
	}
	/* The map from here (the host's bpffs), the socket from there. */
	fd = bpf_obj_get(o.pin);
	if (fd < 0)
		return die(o.pin);
	if (!strcmp(o.mode, "probe") &&
	    bpf_map_lookup_elem(fd, &o.qpn, &victim))
		return die("reading the victim's EVs");
	snprintf(path, sizeof(path), "/run/netns/%s", o.netns);
	ns = open(path, O_RDONLY | O_CLOEXEC);
	if (ns < 0 || setns(ns, CLONE_NEWNET))
		return die(path);
	sk = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
	if (sk < 0)
		return die("AF_PACKET socket");
	to.sll_ifindex = (int)if_nametoindex(o.dev);
	to.sll_halen = 6;
	memcpy(to.sll_addr, o.dmac, 6);
	if (!to.sll_ifindex)
		return die(o.dev);
	end = now_s() + o.seconds;
	while (frames < o.max && now_s() < end) {
		uint32_t lo_psn, hi_psn, k;

		if (psns(fd, &o, &lo_psn, &hi_psn))
			return die("reading the victim's QP");
		if (lo_psn == hi_psn) {
			/*
			 * Nothing in flight as read: the victim's transmit
			 * call may take its ACKs within the call itself (its
			 * peer is on the same CPU), so what is in flight
			 * lasts microseconds. Name the next PSNs it will
			 * send: in flight, perhaps, when the frame arrives.
			 */
			hi_psn = (lo_psn + 16) & MRC_BTH_PSN_MASK;
		}
		for (k = 0; k < 64; k++) {
			uint32_t span = (hi_psn - lo_psn) & MRC_BTH_PSN_MASK;
			uint32_t newest = span < 16 ? span : 16;
			/*
			 * Half at the newest PSNs sent, the likeliest to be
			 * still in flight when the frame arrives, half at any.
			 */
			uint32_t psn = (k % 2 ? hi_psn - 1 - rnd32() % newest :
						lo_psn + rnd32() % span) &
				       MRC_BTH_PSN_MASK;

			forge(&p, &o, psn, hi_psn & MRC_BTH_PSN_MASK, src_mac);
			if (sendto(sk, p.data, p.len, 0, (struct sockaddr *)&to,
				   sizeof(to)) < 0) {
				if (errno == ENOBUFS || errno == EAGAIN)
					continue;
				return die("sending");
			}
			frames++;
		}
	}
	printf("{\"frames\": %ld}\n", frames);
	return 0;
}
