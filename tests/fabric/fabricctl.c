// SPDX-License-Identifier: GPL-2.0
/*
 * fabricctl: loads the test fabric's forwarding program into one router
 * namespace, and configures and reads its faults and counters.
 *
 *   fabricctl [-j] attach  NODE [--srv6 BLOCK] IFNAME...
 *   fabricctl      detach  NODE IFNAME...
 *   fabricctl      fault   NODE IFNAME ACTION...
 *   fabricctl      queue   NODE IFNAME { off | rate RATE QUEUE-OPTS... }
 *   fabricctl [-j] show    NODE
 *   fabricctl      sid     NODE { ADDR me [PORT] | ADDR next PORT | ADDR del }
 *                           PORT := IFNAME MAC [via NH6]
 *   fabricctl [-j] sids    NODE
 *   fabricctl  queue-watch NODE IFNAME [interval MS] [count N]
 *
 * attach also turns transmit checksum offload off on each interface it
 * attaches to (see tx_csum_off).
 *
 * NODE is "NETNS:PINDIR": the network namespace (a name under /run/netns)
 * the interfaces live in, and the bpffs directory the maps are pinned in.
 * The tool enters the namespace only (not its mount namespace), so the pins
 * go to the host's bpffs and outlive this process; the attached programs
 * live as long as their interfaces.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <net/ethernet.h>
#include <netinet/ether.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <linux/ethtool.h>
#include <linux/if_link.h>
#include <linux/sockios.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "fabric_abi.h"
#include "fault_parse.h"
#include "fabric.skel.h"
#include "pass.skel.h"

static const char *const counter_names[] = {
#define FAB_X_NAME(name, str) str,
	FAB_COUNTERS(FAB_X_NAME)
#undef FAB_X_NAME
};

static int json;

static const char *const map_pins[] = { "fault", "sport", "stats", "tx",
					"queue", "sid",	  "qsrc" };
#define N_PINS (sizeof(map_pins) / sizeof(map_pins[0]))

struct node {
	char netns[NAME_MAX + 1];
	char pindir[PATH_MAX / 2];
};

static int usage(void)
{
	fprintf(stderr,
		"Usage: fabricctl [-j] attach NODE [--srv6 BLOCK] IFNAME...\n"
		"       fabricctl detach NODE IFNAME...\n"
		"       fabricctl pass NODE IFNAME... (kernel forwarding: XDP_PASS)\n"
		"       fabricctl fault NODE IFNAME ACTION...\n"
		"       fabricctl queue NODE IFNAME { off | rate RATE [buffer BYTES]\n"
		"                 [ecn KMIN[-KMAX] [ecn-prob PROB]] [full drop|trim]\n"
		"                 [keep N] [dscp D] [trim-class CLASSID]\n"
		"                 [backlog-from qdisc|model] }\n"
		"       fabricctl [-j] show NODE\n"
		"       fabricctl sid NODE { ADDR me [PORT] | ADDR next PORT |\n"
		"                 ADDR del }  PORT := IFNAME MAC [via NH6]\n"
		"       fabricctl [-j] sids NODE\n"
		"       fabricctl queue-watch NODE IFNAME [interval MS] [count N]\n"
		"NODE := NETNS:PINDIR  (attach --srv6 BLOCK: an SRv6 uSID router)\n"
		"ADDR := BLOCK:USID:: (F3216), e.g. fdbb:bb00:0101::\n"
		"ACTION := { clear | blackhole { on | off } | drop PROB |\n"
		"            sport-drop { PORTS | none } | corrupt PROB [offset N] |\n"
		"            dup PROB | trim PROB keep N [dscp D] | ecn PROB |\n"
		"            via-stack { on | off } | dir { in | out | both } }\n"
		"PROB := { 0.02 | 2%% | 1 | 0 }  PORTS := 20000-20063,30000\n");
	return 2;
}

static int parse_node(const char *arg, struct node *n)
{
	const char *colon = strchr(arg, ':');

	if (!colon || colon == arg || !colon[1] ||
	    (size_t)(colon - arg) >= sizeof(n->netns) ||
	    strlen(colon + 1) >= sizeof(n->pindir)) {
		fprintf(stderr, "fabricctl: bad NODE '%s': want NETNS:PINDIR\n",
			arg);
		return -EINVAL;
	}
	memcpy(n->netns, arg, colon - arg);
	n->netns[colon - arg] = '\0';
	strcpy(n->pindir, colon + 1);
	return 0;
}

static int enter_netns(const char *name)
{
	char path[PATH_MAX];
	int fd, err = 0;

	snprintf(path, sizeof(path), "/run/netns/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		fprintf(stderr, "fabricctl: netns %s: %s\n", name,
			strerror(-err));
		return err;
	}
	if (setns(fd, CLONE_NEWNET)) {
		err = -errno;
		fprintf(stderr, "fabricctl: entering netns %s: %s\n", name,
			strerror(-err));
	}
	close(fd);
	return err;
}

static int ifindex_of(const char *ifname)
{
	unsigned int idx = if_nametoindex(ifname);

	if (!idx) {
		fprintf(stderr, "fabricctl: no interface '%s': %s\n", ifname,
			strerror(errno));
		return -ENODEV;
	}
	return (int)idx;
}

/* An interface ioctl on ifname (of this namespace): 0 or -errno. */
static int if_ioctl(const char *ifname, unsigned long req, struct ifreq *ifr)
{
	int fd, err = 0;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	snprintf(ifr->ifr_name, sizeof(ifr->ifr_name), "%s", ifname);
	if (ioctl(fd, req, ifr))
		err = -errno;
	close(fd);
	return err;
}

/*
 * A checksum left to "hardware" (CHECKSUM_PARTIAL, veth's default) is lost
 * when XDP forwards the frame, and the receiver drops it as corrupt: an
 * interface the fabric forwards on computes its checksums in software, as
 * `ethtool -K IFNAME tx-checksumming off` would have it.
 */
static int tx_csum_off(const char *ifname)
{
	struct ethtool_value ev = { .cmd = ETHTOOL_STXCSUM, .data = 0 };
	struct ifreq ifr = { .ifr_data = (void *)&ev };
	int err = if_ioctl(ifname, SIOCETHTOOL, &ifr);

	if (err)
		fprintf(stderr, "fabricctl: checksums in software on %s: %s\n",
			ifname, strerror(-err));
	return err;
}

static int open_pinned(const struct node *n, const char *name)
{
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", n->pindir, name);
	fd = bpf_obj_get(path);
	if (fd < 0)
		fprintf(stderr, "fabricctl: opening %s: %s\n", path,
			strerror(errno));
	return fd < 0 ? -errno : fd;
}

/* BLOCK:USID:: into a table key: the first 32 bits and the next 16. */
static int parse_sid(const char *arg, struct fab_sid_key *k)
{
	struct in6_addr a;

	if (inet_pton(AF_INET6, arg, &a) != 1) {
		fprintf(stderr,
			"fabricctl: bad uSID address '%s': want BLOCK:USID:: "
			"like fdbb:bb00:0101::\n",
			arg);
		return -EINVAL;
	}
	memset(k, 0, sizeof(*k));
	memcpy(&k->block, &a.s6_addr[0], 4);
	memcpy(&k->usid, &a.s6_addr[4], 2);
	if (!k->block || !k->usid) {
		fprintf(stderr,
			"fabricctl: '%s': the block and the uSID must not be "
			"0\n",
			arg);
		return -EINVAL;
	}
	return 0;
}

/* BLOCK as fdbb:bb00:: or fdbb:bb00::/32: 32 bits, the rest zero. */
static int parse_block(const char *arg, struct fab_sid_key *k)
{
	char buf[INET6_ADDRSTRLEN];
	struct in6_addr a;
	size_t len = strcspn(arg, "/");
	int i, rest = 0;

	if (len < sizeof(buf)) {
		memcpy(buf, arg, len);
		buf[len] = 0;
	}
	if (len >= sizeof(buf) || inet_pton(AF_INET6, buf, &a) != 1 ||
	    (arg[len] && strcmp(arg + len, "/32"))) {
		fprintf(stderr,
			"fabricctl: bad block '%s': want a /32 like "
			"fdbb:bb00::/32\n",
			arg);
		return -EINVAL;
	}
	for (i = 4; i < 16; i++)
		rest |= a.s6_addr[i];
	memset(k, 0, sizeof(*k));
	memcpy(&k->block, &a.s6_addr[0], 4);
	if (rest || !k->block) {
		fprintf(stderr,
			"fabricctl: block '%s': want 32 bits, not 0, the rest "
			"zero\n",
			arg);
		return -EINVAL;
	}
	return 0;
}

/* cmd_attach's result when an interface's checksums stay offloaded. */
#define ATTACH_NO_CSUM 3

static int cmd_attach(const struct node *n, int argc, char **argv)
{
	struct bpf_map *maps[N_PINS];
	struct fab_sid_key block = {};
	struct mrc_fab *skel;
	char path[PATH_MAX];
	int i, err;

	if (argc >= 2 && !strcmp(argv[0], "--srv6")) {
		if (parse_block(argv[1], &block))
			return -EINVAL;
		argc -= 2;
		argv += 2;
		if (!argc)
			return usage();
	}

	/*
	 * Checksums in software first, on every interface, whether the
	 * program then loads or not: a router left to forward in the kernel
	 * still hands frames to XDP neighbours. Exit status 3 says this
	 * step failed (the testbed gives up), not XDP.
	 */
	for (i = 0; i < argc; i++) {
		if (ifindex_of(argv[i]) < 0 || tx_csum_off(argv[i]))
			return ATTACH_NO_CSUM;
	}
	if (mkdir(n->pindir, 0700) && errno != EEXIST) {
		err = -errno;
		fprintf(stderr, "fabricctl: mkdir %s: %s\n", n->pindir,
			strerror(-err));
		return err;
	}
	skel = mrc_fab__open();
	if (!skel) {
		err = -errno;
		fprintf(stderr, "fabricctl: opening the fabric program: %s\n",
			strerror(-err));
		return err;
	}
	skel->rodata->fab_srv6_block = block.block;
	err = mrc_fab__load(skel);
	if (err) {
		fprintf(stderr, "fabricctl: loading the fabric program: %s\n",
			strerror(-err));
		goto out;
	}
	for (i = 0; i < argc; i++) {
		LIBBPF_OPTS(bpf_tc_hook, hook, .attach_point = BPF_TC_INGRESS);
		LIBBPF_OPTS(bpf_tc_opts, tc, .handle = 1, .priority = 1);
		LIBBPF_OPTS(bpf_tc_opts, tcq, .handle = 1, .priority = 1);
		struct fab_stats zero = {};
		int idx = ifindex_of(argv[i]);
		__u32 key = idx, val = idx;

		if (idx < 0) {
			err = idx;
			goto out;
		}
		err = bpf_map__update_elem(skel->maps.mrc_fab_tx, &key,
					   sizeof(key), &val, sizeof(val), 0);
		if (!err) {
			/* Per-CPU value: bpf_map_update_elem wants them all. */
			size_t sz = sizeof(zero) * libbpf_num_possible_cpus();
			void *zeros = calloc(1, sz);

			err = zeros ? bpf_map_update_elem(
					      bpf_map__fd(
						      skel->maps.mrc_fab_stats),
					      &key, zeros, BPF_ANY) :
				      -ENOMEM;
			free(zeros);
		}
		if (err) {
			fprintf(stderr, "fabricctl: maps for %s: %s\n", argv[i],
				strerror(-err));
			goto out;
		}
		err = bpf_xdp_attach(idx,
				     bpf_program__fd(skel->progs.mrc_fab_xdp),
				     XDP_FLAGS_DRV_MODE, NULL);
		if (err) {
			fprintf(stderr, "fabricctl: attaching XDP to %s: %s\n",
				argv[i], strerror(-err));
			goto out;
		}
		hook.ifindex = idx;
		err = bpf_tc_hook_create(&hook);
		if (err && err != -EEXIST) {
			fprintf(stderr, "fabricctl: clsact on %s: %s\n",
				argv[i], strerror(-err));
			goto out;
		}
		tc.prog_fd = bpf_program__fd(skel->progs.mrc_fab_tc_dup);
		err = bpf_tc_attach(&hook, &tc);
		if (err) {
			fprintf(stderr, "fabricctl: tc ingress on %s: %s\n",
				argv[i], strerror(-err));
			goto out;
		}
		/* The congestion point: idle until `queue` configures one. */
		hook.attach_point = BPF_TC_EGRESS;
		tcq.prog_fd = bpf_program__fd(skel->progs.mrc_fab_tc_queue);
		err = bpf_tc_attach(&hook, &tcq);
		if (err) {
			fprintf(stderr, "fabricctl: tc egress on %s: %s\n",
				argv[i], strerror(-err));
			goto out;
		}
	}
	maps[0] = skel->maps.mrc_fab_fault;
	maps[1] = skel->maps.mrc_fab_sport;
	maps[2] = skel->maps.mrc_fab_stats;
	maps[3] = skel->maps.mrc_fab_tx;
	maps[4] = skel->maps.mrc_fab_queue;
	maps[5] = skel->maps.mrc_fab_sid;
	maps[6] = skel->maps.mrc_fab_qsrc;
	for (i = 0; i < (int)N_PINS; i++) {
		snprintf(path, sizeof(path), "%s/%s", n->pindir, map_pins[i]);
		unlink(path); /* a re-attach replaces the old maps */
		err = bpf_map__pin(maps[i], path);
		if (err) {
			fprintf(stderr, "fabricctl: pinning %s: %s\n", path,
				strerror(-err));
			goto out;
		}
	}
out:
	/* Attached programs and pinned maps keep living without us. */
	mrc_fab__destroy(skel);
	return err;
}

/*
 * pass: tests/fabric/pass.bpf.c on each interface, for a router that
 * forwards in the kernel (testbed up --kernel) but must accept frames a
 * host's XDP program sends it; no maps, nothing pinned.
 */
static int cmd_pass(int argc, char **argv)
{
	struct mrc_fab_pass *skel = mrc_fab_pass__open_and_load();
	int i, idx, err = 0;

	if (!skel) {
		err = -errno;
		fprintf(stderr, "fabricctl: loading the pass program: %s\n",
			strerror(-err));
		return err;
	}
	for (i = 0; i < argc && !err; i++) {
		idx = ifindex_of(argv[i]);
		if (idx < 0) {
			err = idx;
			break;
		}
		err = bpf_xdp_attach(idx,
				     bpf_program__fd(skel->progs.mrc_fab_pass),
				     XDP_FLAGS_DRV_MODE, NULL);
		if (err)
			fprintf(stderr, "fabricctl: attaching XDP to %s: %s\n",
				argv[i], strerror(-err));
	}
	/* The attached program keeps living without us. */
	mrc_fab_pass__destroy(skel);
	return err;
}

static int cmd_detach(const struct node *n, int argc, char **argv)
{
	char path[PATH_MAX];
	int i, idx, err = 0;

	for (i = 0; i < argc; i++) {
		LIBBPF_OPTS(bpf_tc_hook, hook,
			    .attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS);

		idx = ifindex_of(argv[i]);
		if (idx < 0) {
			err = idx;
			continue;
		}
		bpf_xdp_detach(idx, XDP_FLAGS_DRV_MODE, NULL);
		hook.ifindex = idx;
		bpf_tc_hook_destroy(&hook);
	}
	for (i = 0; i < (int)N_PINS; i++) {
		snprintf(path, sizeof(path), "%s/%s", n->pindir, map_pins[i]);
		unlink(path);
	}
	rmdir(n->pindir);
	return err;
}

struct sport_ctx {
	int fd;
	__u32 ifindex;
	int add;
};

static int sport_set(uint16_t port, void *arg)
{
	struct sport_ctx *c = arg;
	struct fab_sport_key k = { .ifindex = c->ifindex, .sport = port };
	__u8 one = 1;

	if (c->add)
		return bpf_map_update_elem(c->fd, &k, &one, BPF_ANY) ? -errno :
								       0;
	return 0;
}

/* Remove every sport entry of one interface. */
static void sport_clear(int fd, __u32 ifindex)
{
	struct fab_sport_key k, next, *prev = NULL;

	while (!bpf_map_get_next_key(fd, prev, &next)) {
		k = next;
		if (k.ifindex == ifindex && !bpf_map_delete_elem(fd, &k)) {
			prev = NULL; /* restart: deleting breaks iteration */
			continue;
		}
		prev = &k;
	}
}

static int bad_arg(const char *action, const char *val, const char *want)
{
	fprintf(stderr, "fabricctl: %s: bad value '%s': want %s\n", action,
		val ? val : "(missing)", want);
	return -EINVAL;
}

/* A whole number of at most max for action's value, into *v. */
static int arg_max(const char *action, const char *val, unsigned long max,
		   const char *want, unsigned long *v)
{
	char *end;

	*v = val ? strtoul(val, &end, 0) : 0;
	if (!val || *end || *v > max)
		return bad_arg(action, val, want);
	return 0;
}

static int on_off(const char *action, const char *v, int *on)
{
	if (v && !strcmp(v, "on"))
		*on = 1;
	else if (v && !strcmp(v, "off"))
		*on = 0;
	else
		return bad_arg(action, v, "on or off");
	return 0;
}

static int cmd_fault(const struct node *n, int argc, char **argv)
{
	struct sport_ctx sc = { .add = 1 };
	struct fab_fault f = {};
	int ffd = -1, sfd = -1, i, idx, err, on;
	unsigned long v;
	__u32 key;

	if (argc < 2)
		return usage();
	idx = ifindex_of(argv[0]);
	if (idx < 0)
		return idx;
	key = idx;
	ffd = open_pinned(n, "fault");
	sfd = open_pinned(n, "sport");
	if (ffd < 0 || sfd < 0) {
		err = ffd < 0 ? ffd : sfd;
		goto out;
	}
	if (bpf_map_lookup_elem(ffd, &key, &f))
		f.dir_mask = FAB_DIR_IN | FAB_DIR_OUT;
	sc.fd = sfd;
	sc.ifindex = key;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i],
			   *val = i + 1 < argc ? argv[i + 1] : NULL;

		err = 0;
		if (!strcmp(a, "clear")) {
			memset(&f, 0, sizeof(f));
			f.dir_mask = FAB_DIR_IN | FAB_DIR_OUT;
			sport_clear(sfd, key);
			continue;
		}
		i++; /* every other action takes a value */
		if (!strcmp(a, "blackhole") || !strcmp(a, "via-stack")) {
			__u32 flag = a[0] == 'b' ? FAB_F_BLACKHOLE :
						   FAB_F_VIA_STACK;

			err = on_off(a, val, &on);
			if (!err)
				f.flags = on ? f.flags | flag : f.flags & ~flag;
		} else if (!strcmp(a, "drop")) {
			if (fault_parse_prob(val, &f.drop_prob))
				err = bad_arg(a, val, "a probability");
		} else if (!strcmp(a, "ecn")) {
			if (fault_parse_prob(val, &f.ecn_prob))
				err = bad_arg(a, val, "a probability");
		} else if (!strcmp(a, "dup")) {
			if (fault_parse_prob(val, &f.dup_prob))
				err = bad_arg(a, val, "a probability");
		} else if (!strcmp(a, "corrupt")) {
			if (fault_parse_prob(val, &f.corrupt_prob))
				err = bad_arg(a, val, "a probability");
		} else if (!strcmp(a, "offset")) {
			err = arg_max(a, val, 0xffff, "0..65535", &v);
			f.corrupt_offset_bytes = v;
		} else if (!strcmp(a, "trim")) {
			if (fault_parse_prob(val, &f.trim_prob))
				err = bad_arg(a, val, "a probability");
		} else if (!strcmp(a, "keep")) {
			err = arg_max(a, val, FAB_TRIM_KEEP_MAX, "0..512 bytes",
				      &v);
			f.trim_keep_bytes = v;
		} else if (!strcmp(a, "dscp")) {
			err = arg_max(a, val, 63, "0..63", &v);
			f.trim_dscp = v;
		} else if (!strcmp(a, "dir")) {
			if (val && !strcmp(val, "in"))
				f.dir_mask = FAB_DIR_IN;
			else if (val && !strcmp(val, "out"))
				f.dir_mask = FAB_DIR_OUT;
			else if (val && !strcmp(val, "both"))
				f.dir_mask = FAB_DIR_IN | FAB_DIR_OUT;
			else
				err = bad_arg(a, val, "in, out or both");
		} else if (!strcmp(a, "sport-drop")) {
			sport_clear(sfd, key);
			f.flags &= ~FAB_F_SPORT_DROP;
			if (val && strcmp(val, "none")) {
				err = fault_parse_ports(val, sport_set, &sc);
				if (err == -EINVAL || err == -ERANGE)
					err = bad_arg(
						a, val,
						"ports like 20000-20063,30000");
				else if (!err)
					f.flags |= FAB_F_SPORT_DROP;
			}
		} else {
			fprintf(stderr,
				"fabricctl: unknown fault action '%s'\n", a);
			err = -EINVAL;
		}
		if (err)
			goto out;
	}
	err = bpf_map_update_elem(ffd, &key, &f, BPF_ANY) ? -errno : 0;
	if (err)
		fprintf(stderr, "fabricctl: writing fault of %s: %s\n", argv[0],
			strerror(-err));
out:
	if (ffd >= 0)
		close(ffd);
	if (sfd >= 0)
		close(sfd);
	return err;
}

/* The htb class testbed shape queues trimmed packets in, ahead of data. */
#define FAB_TRIM_CLASS_DEFAULT 0x10010u /* 1:10 */

/* "KMIN" or "KMIN-KMAX", in bytes. */
static int parse_ecn(char *v, struct fab_queue_cfg *c)
{
	char *dash = v ? strchr(v, '-') : NULL;
	uint32_t lo, hi;

	if (dash)
		*dash = 0;
	if (fault_parse_bytes(v, UINT32_MAX, &lo) ||
	    (dash && fault_parse_bytes(dash + 1, UINT32_MAX, &hi)))
		return -EINVAL;
	if (!dash)
		hi = lo;
	if (!hi || hi < lo)
		return -EINVAL;
	c->ecn_min_bytes = lo;
	c->ecn_max_bytes = hi;
	return 0;
}

static int queue_arg(const char *a, char *val, struct fab_queue_cfg *c,
		     int *have_buffer)
{
	unsigned long v;
	uint32_t b;
	char *end;

	if (!strcmp(a, "rate")) {
		uint64_t r;

		if (fault_parse_rate(val, &r))
			return bad_arg(a, val, "a rate like 200mbit or 1gbit");
		c->rate_bytes_per_s = r;
	} else if (!strcmp(a, "buffer")) {
		if (fault_parse_bytes(val, UINT32_MAX, &b) || !b)
			return bad_arg(a, val, "bytes like 65536 or 64k");
		c->buffer_bytes = b;
		*have_buffer = 1;
	} else if (!strcmp(a, "ecn")) {
		if (parse_ecn(val, c))
			return bad_arg(a, val,
				       "KMIN or KMIN-KMAX bytes, KMAX > 0");
	} else if (!strcmp(a, "ecn-prob")) {
		if (fault_parse_prob(val, &c->ecn_max_prob))
			return bad_arg(a, val, "a probability");
	} else if (!strcmp(a, "full")) {
		if (val && !strcmp(val, "drop"))
			c->full = FAB_Q_FULL_DROP;
		else if (val && !strcmp(val, "trim"))
			c->full = FAB_Q_FULL_TRIM;
		else
			return bad_arg(a, val, "drop or trim");
	} else if (!strcmp(a, "keep")) {
		if (arg_max(a, val, FAB_TRIM_KEEP_MAX, "0..512 bytes", &v))
			return -EINVAL;
		c->trim_keep_bytes = v;
	} else if (!strcmp(a, "dscp")) {
		if (arg_max(a, val, 63, "0..63", &v))
			return -EINVAL;
		c->trim_dscp = v;
	} else if (!strcmp(a, "backlog-from")) {
		if (val && !strcmp(val, "qdisc"))
			c->backlog_from = FAB_Q_FROM_QDISC;
		else if (val && !strcmp(val, "model"))
			c->backlog_from = FAB_Q_FROM_MODEL;
		else
			return bad_arg(a, val, "qdisc or model");
	} else if (!strcmp(a, "trim-class")) {
		v = val ? strtoul(val, &end, 16) : 0;
		if (!val || *end != ':' || v > 0xffff)
			return bad_arg(a, val, "an htb class like 1:10");
		b = v << 16;
		v = strtoul(end + 1, &end, 16);
		if (*end || v > 0xffff)
			return bad_arg(a, val, "an htb class like 1:10");
		c->trim_class = b | v;
	} else {
		fprintf(stderr, "fabricctl: unknown queue option '%s'\n", a);
		return -EINVAL;
	}
	return 0;
}

/*
 * queue IFNAME off, or rate RATE [...]: make IFNAME's egress a congestion
 * point (struct fab_queue_cfg), or plain again. Configuring starts the
 * model empty. Without a buffer, the queue holds what the tbf testbed shape
 * used to: 50 ms at RATE plus 32 KiB.
 */
static int cmd_queue(const struct node *n, int argc, char **argv)
{
	struct fab_queue q = {
		.cfg = { .ecn_max_prob = FAB_PROB_ALWAYS,
			 .trim_keep_bytes = 64,
			 .trim_class = FAB_TRIM_CLASS_DEFAULT },
	};
	int fd, idx, i, err = 0, have_buffer = 0;
	__u32 key;

	if (argc < 2)
		return usage();
	idx = ifindex_of(argv[0]);
	if (idx < 0)
		return idx;
	key = idx;
	fd = open_pinned(n, "queue");
	if (fd < 0)
		return fd;
	if (argc == 2 && !strcmp(argv[1], "off")) {
		if (bpf_map_delete_elem(fd, &key) && errno != ENOENT)
			err = -errno;
		goto out;
	}
	for (i = 1; i < argc && !err; i += 2)
		err = queue_arg(argv[i], i + 1 < argc ? argv[i + 1] : NULL,
				&q.cfg, &have_buffer);
	if (err)
		goto out;
	if (!q.cfg.rate_bytes_per_s) {
		fprintf(stderr, "fabricctl: queue %s: rate is required\n",
			argv[0]);
		err = -EINVAL;
		goto out;
	}
	if (!have_buffer) {
		__u64 b = q.cfg.rate_bytes_per_s / 20 + 32768;

		q.cfg.buffer_bytes = b > UINT32_MAX ? UINT32_MAX : b;
	}
	if (q.cfg.ecn_max_bytes > q.cfg.buffer_bytes) {
		fprintf(stderr,
			"fabricctl: queue %s: ecn %u-%u is beyond the buffer of "
			"%u bytes\n",
			argv[0], q.cfg.ecn_min_bytes, q.cfg.ecn_max_bytes,
			q.cfg.buffer_bytes);
		err = -EINVAL;
		goto out;
	}
	if (bpf_map_update_elem(fd, &key, &q, BPF_F_LOCK))
		err = -errno;
out:
	if (err && err != -EINVAL)
		fprintf(stderr, "fabricctl: queue of %s: %s\n", argv[0],
			strerror(-err));
	close(fd);
	return err;
}

/* The wait (us, a bucket's upper edge) below which pct % of packets were. */
static unsigned int wait_pct_us(const struct fab_queue_state *s, double pct)
{
	__u64 n = 0, seen = 0;
	int i;

	for (i = 0; i < FAB_Q_WAIT_BUCKETS; i++)
		n += s->wait_hist[i];
	for (i = 0; i < FAB_Q_WAIT_BUCKETS && n; i++) {
		seen += s->wait_hist[i];
		if (seen >= pct / 100 * n)
			break;
	}
	return (i + 1) * FAB_Q_WAIT_BUCKET_NS / 1000;
}

static void print_queue(const struct fab_queue *q)
{
	const struct fab_queue_cfg *c = &q->cfg;
	int i, last = -1;

	for (i = 0; i < FAB_Q_WAIT_BUCKETS; i++)
		if (q->st.wait_hist[i])
			last = i;

	if (json) {
		printf(",\"queue\":{\"rate_bytes_per_s\":%llu,"
		       "\"buffer_bytes\":%u,\"ecn_min_bytes\":%u,"
		       "\"ecn_max_bytes\":%u,\"ecn_max_prob\":%.6f,"
		       "\"full\":\"%s\",\"trim_keep_bytes\":%u,"
		       "\"trim_dscp\":%u,\"trim_class\":\"%x:%x\","
		       "\"backlog_from\":\"%s\",\"backlog_bytes\":%llu,"
		       "\"hwm_bytes\":%llu,\"qdisc_reads_failed\":%llu",
		       (unsigned long long)c->rate_bytes_per_s, c->buffer_bytes,
		       c->ecn_min_bytes, c->ecn_max_bytes,
		       fault_prob_value(c->ecn_max_prob),
		       c->full == FAB_Q_FULL_TRIM ? "trim" : "drop",
		       c->trim_keep_bytes, c->trim_dscp, c->trim_class >> 16,
		       c->trim_class & 0xffff,
		       c->backlog_from == FAB_Q_FROM_MODEL ? "model" : "qdisc",
		       (unsigned long long)q->st.backlog_bytes,
		       (unsigned long long)q->st.hwm_bytes,
		       (unsigned long long)q->st.qdisc_reads_failed);
		/* Buckets of FAB_Q_WAIT_BUCKET_NS, to the last one used. */
		printf(",\"wait_hist_10us\":[");
		for (i = 0; i <= last; i++)
			printf("%s%llu", i ? "," : "",
			       (unsigned long long)q->st.wait_hist[i]);
		printf("]}");
		return;
	}
	printf("    queue rate %llubit buffer %u",
	       (unsigned long long)c->rate_bytes_per_s * 8, c->buffer_bytes);
	if (c->ecn_max_bytes)
		printf(" ecn %u-%u ecn-prob %g", c->ecn_min_bytes,
		       c->ecn_max_bytes, fault_prob_value(c->ecn_max_prob));
	if (c->full == FAB_Q_FULL_TRIM)
		printf(" full trim keep %u dscp %u trim-class %x:%x",
		       c->trim_keep_bytes, c->trim_dscp, c->trim_class >> 16,
		       c->trim_class & 0xffff);
	else
		printf(" full drop");
	printf(" backlog-from %s\n      backlog_bytes %llu hwm_bytes %llu",
	       c->backlog_from == FAB_Q_FROM_MODEL ? "model" : "qdisc",
	       (unsigned long long)q->st.backlog_bytes,
	       (unsigned long long)q->st.hwm_bytes);
	if (q->st.qdisc_reads_failed)
		printf(" qdisc_reads_failed %llu",
		       (unsigned long long)q->st.qdisc_reads_failed);
	if (last >= 0)
		printf(" wait_p50_us %u wait_p99_us %u wait_max_us %u",
		       wait_pct_us(&q->st, 50), wait_pct_us(&q->st, 99),
		       (unsigned int)((last + 1) * FAB_Q_WAIT_BUCKET_NS /
				      1000));
	printf("\n");
}

static void print_fault(const struct fab_fault *f)
{
	const char *dir = f->dir_mask == FAB_DIR_IN  ? "in" :
			  f->dir_mask == FAB_DIR_OUT ? "out" :
						       "both";

	if (json) {
		printf(",\"fault\":{\"dir\":\"%s\",\"blackhole\":%s,"
		       "\"via_stack\":%s,\"sport_drop\":%s,\"drop_prob\":%.6f,"
		       "\"corrupt_prob\":%.6f,\"corrupt_offset_bytes\":%u,"
		       "\"dup_prob\":%.6f,\"trim_prob\":%.6f,"
		       "\"trim_keep_bytes\":%u,\"trim_dscp\":%u,"
		       "\"ecn_prob\":%.6f}",
		       dir, f->flags & FAB_F_BLACKHOLE ? "true" : "false",
		       f->flags & FAB_F_VIA_STACK ? "true" : "false",
		       f->flags & FAB_F_SPORT_DROP ? "true" : "false",
		       fault_prob_value(f->drop_prob),
		       fault_prob_value(f->corrupt_prob),
		       f->corrupt_offset_bytes, fault_prob_value(f->dup_prob),
		       fault_prob_value(f->trim_prob), f->trim_keep_bytes,
		       f->trim_dscp, fault_prob_value(f->ecn_prob));
		return;
	}
	printf("    fault dir %s%s%s%s", dir,
	       f->flags & FAB_F_BLACKHOLE ? " blackhole" : "",
	       f->flags & FAB_F_VIA_STACK ? " via-stack" : "",
	       f->flags & FAB_F_SPORT_DROP ? " sport-drop" : "");
	if (f->drop_prob)
		printf(" drop %g", fault_prob_value(f->drop_prob));
	if (f->corrupt_prob)
		printf(" corrupt %g offset %u",
		       fault_prob_value(f->corrupt_prob),
		       f->corrupt_offset_bytes);
	if (f->dup_prob)
		printf(" dup %g", fault_prob_value(f->dup_prob));
	if (f->trim_prob)
		printf(" trim %g keep %u dscp %u",
		       fault_prob_value(f->trim_prob), f->trim_keep_bytes,
		       f->trim_dscp);
	if (f->ecn_prob)
		printf(" ecn %g", fault_prob_value(f->ecn_prob));
	printf("\n");
}

static int cmd_show(const struct node *n)
{
	int ncpu = libbpf_num_possible_cpus();
	struct fab_stats *per_cpu = NULL;
	int sfd, ffd, qfd, err = 0, first = 1;
	__u32 key, *prev = NULL;

	sfd = open_pinned(n, "stats");
	ffd = open_pinned(n, "fault");
	qfd = open_pinned(n, "queue"); /* an older attach has none */
	if (sfd < 0 || ffd < 0 || ncpu <= 0) {
		err = sfd < 0 ? sfd : ffd < 0 ? ffd : -EINVAL;
		goto out;
	}
	per_cpu = calloc(ncpu, sizeof(*per_cpu));
	if (!per_cpu) {
		err = -ENOMEM;
		goto out;
	}
	if (json)
		printf("[");
	while (!bpf_map_get_next_key(sfd, prev, &key)) {
		struct fab_stats sum = {};
		char ifname[IF_NAMESIZE] = "?";
		struct fab_queue q;
		struct fab_fault f;
		int c, k;

		prev = &key;
		if (bpf_map_lookup_elem(sfd, &key, per_cpu))
			continue;
		for (c = 0; c < ncpu; c++)
			for (k = 0; k < FAB_CNT_MAX; k++)
				sum.cnt[k] += per_cpu[c].cnt[k];
		if_indextoname(key, ifname);
		if (json)
			printf("%s{\"ifname\":\"%s\",\"ifindex\":%u",
			       first ? "" : ",", ifname, key);
		else
			printf("%s (ifindex %u)\n", ifname, key);
		for (k = 0; k < FAB_CNT_MAX; k++) {
			if (json)
				printf(",\"%s\":%llu", counter_names[k],
				       (unsigned long long)sum.cnt[k]);
			else if (sum.cnt[k])
				printf("    %-16s %llu\n", counter_names[k],
				       (unsigned long long)sum.cnt[k]);
		}
		if (!bpf_map_lookup_elem(ffd, &key, &f))
			print_fault(&f);
		if (qfd >= 0 &&
		    !bpf_map_lookup_elem_flags(qfd, &key, &q, BPF_F_LOCK))
			print_queue(&q);
		if (json)
			printf("}");
		first = 0;
	}
	if (json)
		printf("]\n");
out:
	free(per_cpu);
	if (sfd >= 0)
		close(sfd);
	if (ffd >= 0)
		close(ffd);
	if (qfd >= 0)
		close(qfd);
	return err;
}

/* The MAC address of an interface of this namespace. */
static int mac_of(const char *ifname, __u8 mac[6])
{
	struct ifreq ifr = {};
	int err = if_ioctl(ifname, SIOCGIFHWADDR, &ifr);

	if (err)
		fprintf(stderr, "fabricctl: MAC of %s: %s\n", ifname,
			strerror(-err));
	else
		memcpy(mac, ifr.ifr_hwaddr.sa_data, 6);
	return err;
}

/*
 * IFNAME MAC [via NH6]: where an entry sends packets, as ifindex and both
 * MACs, and the neighbour's address whose route says the link is up.
 */
static int sid_port(int argc, char **argv, struct fab_sid *v)
{
	const char *ifname = argv[0], *mac = argc > 1 ? argv[1] : NULL;
	struct ether_addr *ea = mac ? ether_aton(mac) : NULL;
	int idx;

	if (argc == 4 && !strcmp(argv[2], "via")) {
		if (inet_pton(AF_INET6, argv[3], v->nh6) != 1 || !v->nh6[0])
			return bad_arg("via", argv[3],
				       "the neighbour's IPv6 address");
	} else if (argc != 2) {
		return bad_arg("sid", argc > 2 ? argv[2] : NULL,
			       "IFNAME MAC [via NH6]");
	}

	if (!ifname || !ea)
		return bad_arg("sid", mac ? mac : ifname,
			       "IFNAME and a MAC like 02:01:00:00:01:02");
	idx = ifindex_of(ifname);
	if (idx < 0)
		return idx;
	v->ifindex = idx;
	memcpy(v->dmac, ea->ether_addr_octet, 6);
	return mac_of(ifname, v->smac);
}

/*
 * sid ADDR me [PORT]: ADDR's uSID is this node's own (uN); at the end of
 * a packet's route, deliver it out of PORT (IFNAME MAC [via NH6]).
 * sid ADDR next PORT: packets whose active uSID is ADDR's go out of
 * IFNAME to MAC, the neighbour owning it; with via, only while the FIB
 * routes NH6 out of IFNAME (the link is up). sid ADDR del: no entry.
 */
static int cmd_sid(const struct node *n, int argc, char **argv)
{
	struct fab_sid_key k;
	struct fab_sid v = {};
	int fd, err;

	if (argc < 2 || parse_sid(argv[0], &k))
		return usage();
	fd = open_pinned(n, "sid");
	if (fd < 0)
		return fd;
	if (!strcmp(argv[1], "del") && argc == 2) {
		err = bpf_map_delete_elem(fd, &k) ? -errno : 0;
	} else if (!strcmp(argv[1], "me")) {
		v.kind = FAB_SID_ME;
		err = argc > 2 ? sid_port(argc - 2, argv + 2, &v) : 0;
		if (!err)
			err = bpf_map_update_elem(fd, &k, &v, BPF_ANY) ?
				      -errno :
				      0;
	} else if (!strcmp(argv[1], "next") && argc >= 4) {
		v.kind = FAB_SID_NEXT;
		err = sid_port(argc - 2, argv + 2, &v);
		if (!err)
			err = bpf_map_update_elem(fd, &k, &v, BPF_ANY) ?
				      -errno :
				      0;
	} else {
		close(fd);
		return usage();
	}
	if (err && err != -EINVAL)
		fprintf(stderr, "fabricctl: sid %s: %s\n", argv[0],
			strerror(-err));
	close(fd);
	return err;
}

static const char *const srv6_names[] = {
#define FAB_X_NAME(name, str) str,
	FAB_SRV6_DROPS(FAB_X_NAME)
#undef FAB_X_NAME
};
static const enum fab_counter srv6_drops[] = {
#define FAB_X_ENUM(name, str) FAB_CNT_##name,
	FAB_SRV6_DROPS(FAB_X_ENUM)
#undef FAB_X_ENUM
};
#define N_SRV6_DROPS (sizeof(srv6_drops) / sizeof(srv6_drops[0]))

/* The SRv6 drop counters, summed over the node's interfaces. */
static int srv6_drop_sums(const struct node *n, __u64 *sum)
{
	int ncpu = libbpf_num_possible_cpus(), fd, c;
	__u32 key, *prev = NULL;
	struct fab_stats *pc;
	size_t i;

	fd = open_pinned(n, "stats");
	if (fd < 0 || ncpu <= 0)
		return fd < 0 ? fd : -EINVAL;
	pc = calloc(ncpu, sizeof(*pc));
	if (!pc) {
		close(fd);
		return -ENOMEM;
	}
	while (!bpf_map_get_next_key(fd, prev, &key)) {
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, pc))
			continue;
		for (c = 0; c < ncpu; c++)
			for (i = 0; i < N_SRV6_DROPS; i++)
				sum[i] += pc[c].cnt[srv6_drops[i]];
	}
	free(pc);
	close(fd);
	return 0;
}

/* sids: the node's uSID table with each entry's packets, then its drops. */
static int cmd_sids(const struct node *n)
{
	__u64 drops[N_SRV6_DROPS] = {};
	struct fab_sid_key k, *prev = NULL;
	int fd, err, first = 1;
	size_t i;

	fd = open_pinned(n, "sid");
	if (fd < 0)
		return fd;
	err = srv6_drop_sums(n, drops);
	if (err) {
		close(fd);
		return err;
	}
	printf(json ? "{\"sids\":[" : "");
	while (!bpf_map_get_next_key(fd, prev, &k)) {
		char addr[INET6_ADDRSTRLEN], ifname[IF_NAMESIZE] = "-";
		char via[INET6_ADDRSTRLEN];
		struct in6_addr a = {};
		struct fab_sid v;

		prev = &k;
		if (bpf_map_lookup_elem(fd, &k, &v))
			continue;
		memcpy(&a.s6_addr[0], &k.block, 4);
		memcpy(&a.s6_addr[4], &k.usid, 2);
		inet_ntop(AF_INET6, &a, addr, sizeof(addr));
		if (v.ifindex)
			if_indextoname(v.ifindex, ifname);
		strcpy(via, "-");
		if (v.nh6[0])
			inet_ntop(AF_INET6, v.nh6, via, sizeof(via));
		if (json)
			printf("%s{\"sid\":\"%s\",\"usid\":\"%04x\","
			       "\"kind\":\"%s\",\"ifname\":\"%s\","
			       "\"dmac\":\"%s\",\"via\":\"%s\","
			       "\"packets\":%llu}",
			       first ? "" : ",", addr, ntohs(k.usid),
			       v.kind == FAB_SID_ME ? "me" : "next", ifname,
			       ether_ntoa((struct ether_addr *)v.dmac), via,
			       (unsigned long long)v.packets);
		else
			printf("    usid %04x %-22s %-4s %-6s %s via %s packets "
			       "%llu\n",
			       ntohs(k.usid), addr,
			       v.kind == FAB_SID_ME ? "me" : "next", ifname,
			       v.ifindex ?
				       ether_ntoa((struct ether_addr *)v.dmac) :
				       "-",
			       via, (unsigned long long)v.packets);
		first = 0;
	}
	printf(json ? "],\"drops\":{" : "    srv6 drops:");
	for (i = 0; i < N_SRV6_DROPS; i++)
		printf(json ? "%s\"%s\":%llu" : "%s%s %llu",
		       json ? (i ? "," : "") : " ", srv6_names[i] + 10,
		       (unsigned long long)drops[i]);
	printf(json ? "}}\n" : "\n");
	close(fd);
	return 0;
}

/* "interval MS" or "count N": a whole number in 1..max (arg_max). */
static int watch_arg(const char *key, const char *val, unsigned long max,
		     const char *want, unsigned long *v)
{
	if (arg_max(key, val, max, want, v))
		return -EINVAL;
	return *v ? 0 : bad_arg(key, val, want);
}

/*
 * queue-watch: what each source has queued at IFNAME's congestion point
 * (mrc_fab_qsrc), count times, every interval ms at multiples of it on
 * the realtime clock, so that watchers of several nodes sample together.
 * A line per source and sample: "T_NS ADDR PACKETS BYTES", totals since
 * the interface was attached.
 */
static int cmd_queue_watch(const struct node *n, int argc, char **argv)
{
	unsigned long interval_ms = 100, cnt = 1;
	struct fab_qsrc_key k, next;
	struct timespec ts;
	int i, fd, idx, err = 0;
	__u64 t;

	if (argc < 1)
		return usage();
	idx = ifindex_of(argv[0]);
	if (idx < 0)
		return idx;
	for (i = 1; i < argc; i += 2) {
		const char *val = i + 1 < argc ? argv[i + 1] : NULL;

		int err2;

		if (!strcmp(argv[i], "interval"))
			err2 = watch_arg("queue-watch interval", val, 3600000,
					 "1..3600000 ms", &interval_ms);
		else if (!strcmp(argv[i], "count"))
			err2 = watch_arg("queue-watch count", val, 100000000,
					 "1..100000000", &cnt);
		else {
			fprintf(stderr,
				"fabricctl: queue-watch: unknown '%s': want "
				"interval MS or count N\n",
				argv[i]);
			return 2;
		}
		if (err2)
			return 2;
	}
	fd = open_pinned(n, "qsrc");
	if (fd < 0)
		return fd;
	clock_gettime(CLOCK_REALTIME, &ts);
	t = (__u64)ts.tv_sec * 1000000000ull + ts.tv_nsec;
	for (; cnt > 0 && !err; cnt--) {
		char addr[INET6_ADDRSTRLEN];
		struct fab_qsrc val;
		void *prev = NULL;

		/* The next multiple of the interval, after the last sample. */
		t = (t / (interval_ms * 1000000ull) + 1) *
		    (interval_ms * 1000000ull);
		ts.tv_sec = t / 1000000000ull;
		ts.tv_nsec = t % 1000000000ull;
		while (clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &ts,
				       NULL) == EINTR)
			;
		while (!bpf_map_get_next_key(fd, prev, &next)) {
			k = next;
			prev = &k;
			if (k.ifindex != (__u32)idx ||
			    bpf_map_lookup_elem(fd, &k, &val))
				continue;
			if (IN6_IS_ADDR_V4MAPPED((struct in6_addr *)k.addr))
				inet_ntop(AF_INET, &k.addr[12], addr,
					  sizeof(addr));
			else
				inet_ntop(AF_INET6, k.addr, addr, sizeof(addr));
			printf("%llu %s %llu %llu\n", (unsigned long long)t,
			       addr, (unsigned long long)val.packets,
			       (unsigned long long)val.bytes);
		}
		if (fflush(stdout))
			err = -errno;
	}
	close(fd);
	return err;
}

static int silent_print(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	if (level == LIBBPF_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

int main(int argc, char **argv)
{
	struct node n;
	int err;

	if (argc > 1 && !strcmp(argv[1], "-j")) {
		json = 1;
		argv++;
		argc--;
	}
	if (argc < 3)
		return usage();
	libbpf_set_print(silent_print);
	if (parse_node(argv[2], &n) || enter_netns(n.netns))
		return 1;
	if (!strcmp(argv[1], "attach") && argc > 3)
		err = cmd_attach(&n, argc - 3, argv + 3);
	else if (!strcmp(argv[1], "pass") && argc > 3)
		err = cmd_pass(argc - 3, argv + 3);
	else if (!strcmp(argv[1], "detach") && argc > 3)
		err = cmd_detach(&n, argc - 3, argv + 3);
	else if (!strcmp(argv[1], "fault"))
		err = cmd_fault(&n, argc - 3, argv + 3);
	else if (!strcmp(argv[1], "queue"))
		err = cmd_queue(&n, argc - 3, argv + 3);
	else if (!strcmp(argv[1], "show") && argc == 3)
		err = cmd_show(&n);
	else if (!strcmp(argv[1], "sid"))
		err = cmd_sid(&n, argc - 3, argv + 3);
	else if (!strcmp(argv[1], "sids") && argc == 3)
		err = cmd_sids(&n);
	else if (!strcmp(argv[1], "queue-watch"))
		err = cmd_queue_watch(&n, argc - 3, argv + 3);
	else
		return usage();
	return err == 2 || err == ATTACH_NO_CSUM ? err : err ? 1 : 0;
}
