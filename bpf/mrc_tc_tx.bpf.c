// SPDX-License-Identifier: GPL-2.0
/*
 * The device's low-latency transmit path: a tc egress program on lo that
 * turns a doorbell into the rung QP's next packet and sends it out of the
 * port its EV belongs to, without waking anyone.
 *
 * An application rings by sending struct mrc_doorbell (include/mrc/abi.h)
 * in a UDP datagram from any local socket to 127.0.0.1:MRC_DOORBELL_PORT.
 * The skb the stack builds for it is the one this program rewrites, in
 * place, into exactly the packet the bulk path would send next (the same
 * pick/build code, bpf/lib/tx.h), then bpf_redirect()s to the port's
 * egress: one sendto() costs what the stack charges for a 16-byte
 * datagram on lo, nothing like the 25 us of a live-frame run.
 *
 *   not IPv4/UDP to 127.0.0.1:4792  -> TC_ACT_OK, untouched (lo carries all
 *                                      local traffic: this test comes first
 *                                      and reads only the linear headers)
 *   bad length / magic / QP / token -> TC_ACT_SHOT, counted by reason
 *   nothing to send                 -> TC_ACT_SHOT, counted as tx_idle
 *   else                            -> the packet, TC_ACT_REDIRECT
 *
 * One doorbell sends one packet; a message of several MTUs takes one
 * doorbell per packet (or the bulk path). docs/lowlat.md has the figures
 * and why the UDP checksum is stored the way ctx.h stores it.
 */
#define MRC_CTX_SKB
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/pkt_cls.h>
#include <linux/udp.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#include "mrc/abi.h"
#include "mrc/drop.h"
#include "lib/maps.h"
#include "lib/tx.h"

#define DB_UDP_LEN (sizeof(struct udphdr) + sizeof(struct mrc_doorbell))
#define DB_IP_LEN (sizeof(struct iphdr) + DB_UDP_LEN)
#define DB_FRAME_LEN (sizeof(struct ethhdr) + DB_IP_LEN)
#define HDRS_LEN \
	(sizeof(struct ethhdr) + sizeof(struct iphdr) + sizeof(struct udphdr))
#define LOOPBACK_ADDR 0x7f000001 /* 127.0.0.1 */
#define IP_MF_OFFSET 0x3fff /* more fragments, fragment offset */
#define IP_OFFSET 0x1fff

static __always_inline int drop(enum mrc_drop_reason why)
{
	mrc_count_drop(why);
	return TC_ACT_SHOT;
}

SEC("tc")
int mrc_tc_tx(struct __sk_buff *skb)
{
	struct mrc_doorbell *db;
	struct mrc_qp_tx *qp;
	struct mrc_port *pt;
	struct udphdr *udp;
	struct iphdr *ip;
	__u32 qpn, port = 0;

	if (skb->protocol != bpf_htons(ETH_P_IP))
		return TC_ACT_OK;
	/*
	 * The stack builds the headers of what it sends in the linear part;
	 * if some sender did not, make them linear (bytes unchanged).
	 */
	if (skb->data + HDRS_LEN > skb->data_end &&
	    (skb->len < HDRS_LEN || bpf_skb_pull_data(skb, HDRS_LEN)))
		return TC_ACT_OK;
	ip = at(skb, sizeof(struct ethhdr), sizeof(*ip) + sizeof(*udp));
	if (!ip || ip->version != 4 || ip->ihl != 5 ||
	    ip->protocol != IPPROTO_UDP ||
	    ip->daddr != bpf_htonl(LOOPBACK_ADDR) ||
	    (ip->frag_off & bpf_htons(IP_OFFSET)))
		return TC_ACT_OK; /* a later fragment has no UDP header */
	udp = (void *)(ip + 1);
	if (udp->dest != bpf_htons(MRC_DOORBELL_PORT))
		return TC_ACT_OK;

	/* A doorbell, or meant to be one: from here on, ours. */
	if ((ip->frag_off & bpf_htons(IP_MF_OFFSET)) ||
	    ip->tot_len != bpf_htons(DB_IP_LEN) ||
	    udp->len != bpf_htons(DB_UDP_LEN) || skb->len != DB_FRAME_LEN)
		return drop(MRC_DROP_DB_LENGTH);
	if (skb->data + DB_FRAME_LEN > skb->data_end &&
	    bpf_skb_pull_data(skb, DB_FRAME_LEN))
		return drop(MRC_DROP_DB_LENGTH);
	db = at(skb, HDRS_LEN, sizeof(*db));
	if (!db)
		return drop(MRC_DROP_DB_LENGTH);
	if (db->magic != bpf_htonl(MRC_DOORBELL_MAGIC))
		return drop(MRC_DROP_DB_MAGIC);
	qpn = db->qpn;
	qp = qpn < MRC_MAX_QP ? bpf_map_lookup_elem(&mrc_qp_tx, &qpn) : NULL;
	if (!qp || qp->state == MRC_QPS_RESET)
		return drop(MRC_DROP_DB_UNKNOWN_QP);
	/* A QP without a token (0) takes no doorbells. */
	if (!qp->db_token || db->token != qp->db_token)
		return drop(MRC_DROP_DB_TOKEN);

	/* One packet a doorbell: each asks for its ACK. */
	if (tx_one(skb, qpn, 1, 0, 1, &port) != TX_SENT)
		return TC_ACT_SHOT; /* counted: tx_idle or tx_build_failed */
	pt = bpf_map_lookup_elem(&mrc_port, &port);
	if (!pt)
		return TC_ACT_SHOT; /* tx_one found it a moment ago */
	return bpf_redirect(pt->ifindex, 0);
}

char LICENSE[] SEC("license") = "GPL";
