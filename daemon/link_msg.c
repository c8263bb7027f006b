// SPDX-License-Identifier: GPL-2.0
/*
 * rtnetlink link messages, walked by offset: a message's length must
 * cover its header and fit in what is left of the datagram (compared as
 * sizes: libmnl's mnl_nlmsg_ok compares it as an int, so a length of
 * 0xfffffffc passes there and steps back four bytes), a link message must
 * hold a whole struct ifinfomsg before any field of it is read, and every
 * field is copied out (the datagram need not be aligned).
 */
#include <errno.h>
#include <string.h>
#include <linux/if.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "link_msg.h"

int link_msg_parse(const void *buf, size_t len, link_msg_fn fn, void *arg)
{
	const unsigned char *d = buf;
	struct ifinfomsg ifi;
	struct nlmsghdr h;
	struct nlmsgerr e;
	size_t off = 0;
	int n = 0;

	while (len - off >= sizeof(h)) {
		memcpy(&h, d + off, sizeof(h));
		if (h.nlmsg_len < sizeof(h) || h.nlmsg_len > len - off)
			break; /* the rest is no message */
		if (h.nlmsg_flags & NLM_F_DUMP_INTR) {
			errno = EINTR; /* a dump changed under us */
			return -1;
		}
		if ((h.nlmsg_type == RTM_NEWLINK ||
		     h.nlmsg_type == RTM_DELLINK) &&
		    h.nlmsg_len - sizeof(h) >= sizeof(ifi)) {
			memcpy(&ifi, d + off + sizeof(h), sizeof(ifi));
			fn(ifi.ifi_index,
			   h.nlmsg_type == RTM_NEWLINK &&
				   (ifi.ifi_flags & IFF_UP) &&
				   (ifi.ifi_flags & IFF_RUNNING),
			   arg);
			n++;
		} else if (h.nlmsg_type == NLMSG_ERROR) {
			if (h.nlmsg_len - sizeof(h) < sizeof(e)) {
				errno = EBADMSG;
				return -1;
			}
			memcpy(&e, d + off + sizeof(h), sizeof(e));
			if (!e.error)
				return n; /* an acknowledgement: the end */
			/* The kernel's errors are -errno; anything else is
			 * no error number. */
			errno = e.error < 0 && e.error > -4096 ? -e.error :
								 EPROTO;
			return -1;
		} else if (h.nlmsg_type == NLMSG_DONE) {
			return n;
		}
		/* Too short to name a link, or not about links: skipped. */
		if (NLMSG_ALIGN((size_t)h.nlmsg_len) > len - off)
			break;
		off += NLMSG_ALIGN((size_t)h.nlmsg_len);
	}
	return n;
}
