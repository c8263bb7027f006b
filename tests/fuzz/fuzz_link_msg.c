// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the rtnetlink link messages mrcd reads
 * (daemon/link_msg.c), built with ASan and UBSan: the input is one
 * datagram as recvmsg() returns it. Beyond what the sanitizers catch, the
 * links reported are checked against the target's own walk of the
 * datagram, written from netlink(7): every message's length covers its
 * header and fits in what is left (as a size, whatever its top bit); a message
 * flagged NLM_F_DUMP_INTR or an NLMSG_ERROR that is short or not 0 ends
 * the datagram as an error, NLMSG_DONE or an NLMSG_ERROR of 0 ends it
 * well; RTM_NEWLINK and RTM_DELLINK holding a whole ifinfomsg are
 * reported, in order, up only for RTM_NEWLINK with IFF_UP and IFF_RUNNING.
 *
 *   fuzz_link_msg [libFuzzer options] [CORPUS...]   (tests/fuzz/run.sh)
 */
#include <assert.h>
#include <stdint.h>
#include <string.h>
#include <linux/if.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "link_msg.h"

#define NLINKS_MAX 4096

struct link {
	int ifindex, up;
};

static struct link got[NLINKS_MAX];
static int ngot;

static void on_link(int ifindex, int up, void *arg)
{
	(void)arg;
	assert(ngot < NLINKS_MAX);
	got[ngot].ifindex = ifindex;
	got[ngot].up = up;
	ngot++;
}

static uint32_t u32_at(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v)); /* netlink is in host order */
	return v;
}

static uint16_t u16_at(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* The model: the links the datagram reports, and whether it is an error. */
static int walk(const uint8_t *d, size_t size, struct link *want, int *nwant)
{
	size_t off = 0;

	*nwant = 0;
	while (size - off >= 16) {
		uint32_t len = u32_at(d + off), flags, ifl;
		uint16_t type = u16_at(d + off + 4);
		int32_t error;

		if (len < 16 || len > size - off)
			break;
		flags = u16_at(d + off + 6);
		if (flags & NLM_F_DUMP_INTR)
			return -1;
		if ((type == RTM_NEWLINK || type == RTM_DELLINK) &&
		    len - 16 >= sizeof(struct ifinfomsg)) {
			want[*nwant].ifindex = (int)u32_at(d + off + 16 + 4);
			ifl = u32_at(d + off + 16 + 8);
			want[*nwant].up = type == RTM_NEWLINK &&
					  (ifl & IFF_UP) && (ifl & IFF_RUNNING);
			(*nwant)++;
		} else if (type == NLMSG_ERROR) {
			if (len < 16 + sizeof(struct nlmsgerr))
				return -1;
			memcpy(&error, d + off + 16, sizeof(error));
			return error ? -1 : 0;
		} else if (type == NLMSG_DONE) {
			return 0;
		}
		/* NLMSG_ALIGN, without overflowing size_t arithmetic. */
		if (NLMSG_ALIGN(len) > size - off)
			break;
		off += NLMSG_ALIGN(len);
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct link want[NLINKS_MAX];
	int nwant, rc, bad, i;

	if (size > 16 * NLINKS_MAX)
		return 0;
	ngot = 0;
	bad = walk(data, size, want, &nwant);
	rc = link_msg_parse(data, size, on_link, NULL);
	/* An error stops the datagram; what came before it stands. */
	assert((rc < 0) == (bad < 0));
	assert(ngot == nwant);
	assert(rc < 0 || rc == ngot);
	for (i = 0; i < ngot; i++)
		assert(got[i].ifindex == want[i].ifindex &&
		       got[i].up == want[i].up);
	return 0;
}
