// SPDX-License-Identifier: GPL-2.0
/*
 * mrcctl capture's packet socket: the packets the kernel stack sends out
 * of a port (mrcd's probes, which it writes to its own packet socket; the
 * low-latency path's, which mrc_tc_tx redirects to the port's egress; the
 * port's ARP, TCP and mrcd-to-mrcd control messages). None of them passes
 * an XDP hook, but every one passes dev_queue_xmit's taps, as tcpdump's
 * do. A classic BPF filter keeps only PACKET_OUTGOING: what arrives is the
 * XDP capture's (mrc_cap_xdp sees it before the stack does), and without
 * the filter every arriving frame the receive program passes to the stack
 * would be copied here for nothing.
 */
#include <errno.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <linux/filter.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>

#include "capture_sock.h"

#define CAP_SOCK_RCVBUF (4 << 20) /* bytes: a burst of probes and TCP */

int cap_sock_open(int ifindex)
{
	struct sock_filter code[] = {
		/* A = skb->pkt_type */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, SKF_AD_OFF + SKF_AD_PKTTYPE),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PACKET_OUTGOING, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, 0xffffffffu), /* all of it */
		BPF_STMT(BPF_RET | BPF_K, 0),
	};
	struct sock_fprog prog = { .len = sizeof(code) / sizeof(code[0]),
				   .filter = code };
	struct sockaddr_ll sll = { .sll_family = AF_PACKET,
				   .sll_protocol = htons(ETH_P_ALL),
				   .sll_ifindex = ifindex };
	int fd, one = 1, rcvbuf = CAP_SOCK_RCVBUF, err;

	/*
	 * Protocol 0: nothing is queued before bind, so no frame the filter
	 * would refuse slips in ahead of it.
	 */
	fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	if (setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog)) ||
	    setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one)) ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf)) ||
	    bind(fd, (struct sockaddr *)&sll, sizeof(sll))) {
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

int cap_sock_drain(int fd, uint8_t *buf, uint32_t size, cap_sock_fn fn,
		   void *ctx)
{
	char cbuf[CMSG_SPACE(sizeof(struct timespec))];
	struct sockaddr_ll from;
	struct iovec iov = { .iov_base = buf, .iov_len = size };
	struct msghdr m;
	struct cmsghdr *c;
	struct timespec ts;
	ssize_t n;
	int got = 0;

	for (;;) {
		memset(&m, 0, sizeof(m));
		m.msg_name = &from;
		m.msg_namelen = sizeof(from);
		m.msg_iov = &iov;
		m.msg_iovlen = 1;
		m.msg_control = cbuf;
		m.msg_controllen = sizeof(cbuf);
		/* MSG_TRUNC: the frame's whole length, however much fits. */
		n = recvmsg(fd, &m, MSG_TRUNC | MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return errno == EAGAIN ? got : -errno;
		}
		if (from.sll_pkttype != PACKET_OUTGOING)
			continue; /* the filter's job; never counted twice */
		ts.tv_sec = 0;
		ts.tv_nsec = 0;
		for (c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c))
			if (c->cmsg_level == SOL_SOCKET &&
			    c->cmsg_type == SCM_TIMESTAMPNS)
				memcpy(&ts, CMSG_DATA(c), sizeof(ts));
		if (!ts.tv_sec) /* no stamp: now is the best there is */
			clock_gettime(CLOCK_REALTIME, &ts);
		fn(ctx,
		   (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec,
		   (uint32_t)n, (uint32_t)n < size ? (uint32_t)n : size, buf);
		got++;
	}
}

int cap_sock_drops(int fd, uint64_t *drops)
{
	struct tpacket_stats st = { 0 };
	socklen_t len = sizeof(st);

	/* The kernel's count since the last read, which it then clears. */
	if (getsockopt(fd, SOL_PACKET, PACKET_STATISTICS, &st, &len))
		return -errno;
	*drops += st.tp_drops;
	return 0;
}
