// SPDX-License-Identifier: GPL-2.0
/*
 * The low-latency transmit path's loader: the tc program on lo's egress,
 * sharing the device's maps the way the bulk transmit program does
 * (dev_open). libbpf 1.1 has no tcx links, so this is the clsact qdisc
 * and a filter at a fixed handle and priority, and detaching removes only
 * what attaching added.
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "dev.h"
#include "log.h"
#include "dev_lowlat.h"
#include "mrc_tc_tx.skel.h"
#include "mrc_xdp_rx.skel.h"

#define LOWLAT_HANDLE 0x4d52 /* "MR" */
#define LOWLAT_PRIORITY 1

static struct {
	struct mrc_tc_tx *skel; /* loaded here; NULL: reused */
	int on; /* prog_fd is set */
	int prog_fd; /* the skeleton's, or a running device's (ours to close) */
	int ifindex;
	int made_qdisc; /* the clsact qdisc is ours to remove */
	int attached;
} ll;

static int ll_err(int err, const char *what)
{
	log_err("%s: %s\n", what, strerror(-err));
	return err;
}

/* The program: a running device's of this build (dev_take_tc), or
 * loaded. */
static int ll_load(struct dev *d)
{
	struct bpf_map *m, *same;
	int err, fd = dev_take_tc(d);

	if (fd >= 0) {
		ll.prog_fd = fd;
		ll.on = 1;
		return 0;
	}
	ll.skel = mrc_tc_tx__open();
	if (!ll.skel)
		return ll_err(-errno, "opening mrc_tc_tx");
	bpf_object__for_each_map(m, ll.skel->obj)
	{
		if (strchr(bpf_map__name(m), '.'))
			continue; /* the program's own sections */
		same = bpf_object__find_map_by_name(d->rx->obj,
						    bpf_map__name(m));
		if (!same)
			return ll_err(-ENOENT, "no map of mrc_xdp_rx to share");
		err = bpf_map__reuse_fd(m, bpf_map__fd(same));
		if (err)
			return ll_err(err, "sharing a map with mrc_tc_tx");
	}
	err = mrc_tc_tx__load(ll.skel);
	if (err)
		return ll_err(err, "loading mrc_tc_tx");
	ll.prog_fd = bpf_program__fd(ll.skel->progs.mrc_tc_tx);
	ll.on = 1;
	return 0;
}

/* What this process holds of the program: the skeleton, or the fd. */
static void ll_free(void)
{
	if (ll.skel)
		mrc_tc_tx__destroy(ll.skel);
	else if (ll.on)
		close(ll.prog_fd);
	memset(&ll, 0, sizeof(ll));
}

int dev_lowlat_attach(struct dev *d)
{
	LIBBPF_OPTS(bpf_tc_hook, hook, .attach_point = BPF_TC_EGRESS);
	LIBBPF_OPTS(bpf_tc_opts, opts, .handle = LOWLAT_HANDLE,
		    .priority = LOWLAT_PRIORITY);
	int err;

	if (ll.on)
		return -EBUSY;
	ll.ifindex = if_nametoindex("lo");
	if (!ll.ifindex)
		return ll_err(-errno, "no lo in this network namespace");
	err = ll_load(d);
	if (err)
		goto destroy;
	hook.ifindex = ll.ifindex;
	err = bpf_tc_hook_create(&hook);
	if (err && err != -EEXIST) {
		ll_err(err, "creating the clsact qdisc on lo");
		goto destroy;
	}
	ll.made_qdisc = !err;
	opts.prog_fd = ll.prog_fd;
	/* Replace a filter a killed predecessor left at our handle. */
	opts.flags = BPF_TC_F_REPLACE;
	err = bpf_tc_attach(&hook, &opts);
	if (err) {
		ll_err(err, "attaching mrc_tc_tx to lo egress");
		goto remove_qdisc;
	}
	ll.attached = 1;
	return 0;

remove_qdisc:
	if (ll.made_qdisc) {
		hook.attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS;
		bpf_tc_hook_destroy(&hook);
	}
destroy:
	ll_free();
	return err;
}

int dev_lowlat_prog_fd(void)
{
	return ll.on ? ll.prog_fd : -1;
}

void dev_lowlat_detach(struct dev *d)
{
	LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = ll.ifindex,
		    .attach_point = BPF_TC_EGRESS);
	LIBBPF_OPTS(bpf_tc_opts, opts, .handle = LOWLAT_HANDLE,
		    .priority = LOWLAT_PRIORITY);

	(void)d;
	if (!ll.on)
		return;
	if (ll.attached)
		bpf_tc_detach(&hook, &opts);
	if (ll.made_qdisc) {
		/* Both directions: removes the clsact qdisc itself. */
		hook.attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS;
		bpf_tc_hook_destroy(&hook);
	}
	ll_free();
}

int dev_lowlat_made_qdisc(void)
{
	return ll.made_qdisc;
}

void dev_lowlat_adopt_qdisc(int made)
{
	ll.made_qdisc |= made;
}

void dev_lowlat_release(void)
{
	ll_free();
}
