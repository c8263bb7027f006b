// SPDX-License-Identifier: GPL-2.0
/*
 * mrcctl capture: a pcap of the frames that arrive on one of the device's
 * ports and that its transmit program sends out of it, as the data path
 * sees them. tcpdump on a port sees nothing of the
 * XDP data path, so the frames are taken from the port's XDP hook itself:
 * for the length of the capture, bpf/mrc_capture.bpf.c stands in front of
 * mrc_xdp_rx on the port (an atomic XDP_FLAGS_REPLACE), copies what passes
 * the filter into a perf event array and tail-calls mrc_xdp_rx, which does
 * what it always does; at the end mrc_xdp_rx is put back the same way.
 * Without a capture nothing of this is loaded and the data path pays
 * nothing.
 *
 * What leaves ('dir out') leaves by three ways, and each has its hook for
 * the length of the capture. The transmit program sends every packet it
 * builds through mrc_tx_port, a devmap whose entries may carry a program
 * the kernel runs on each frame just before it is sent: the port's entry
 * carries mrc_cap_out, which copies the same way and lets the frame go.
 * mrcd's own frames (probes, control messages to a peer's mrcd) leave
 * through it too (the control program's MRC_DP_EMIT).
 * The frames mrc_xdp_rx turns around with XDP_TX (ACKs, NACKs, probe
 * answers) pass its mrc_turn_hook, a program array it tail-calls: that
 * holds mrc_cap_turn, which copies those of this port and returns XDP_TX.
 * Skbs (the low-latency path's packets, ARP, TCP) pass the kernel's
 * packet taps: a packet socket takes them (capture_sock.c). In pcapng all
 * but the transmit program's data carry a comment saying which way they
 * left. This
 * kernel refuses the fentry and fexit programs that could see all of it
 * without hooks (docs/mrcd.md).
 *
 * This is the one mrcctl command that loads BPF (STYLE.md 28 keeps the
 * rest to mrcd's socket and read-only maps): a capture, like tcpdump's, is
 * the operator's own tool, lives as long as the command and changes
 * nothing the device owns.
 */
#define _GNU_SOURCE /* pipe2 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <linux/if_link.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "mrcctl.h"
#include "capture.h"
#include "capture_sock.h"
#include "dpmaps.h"
#include "pcap.h"
#include "mrc/capture.h"
#include "mrc_capture.skel.h"
#include "../../bpf/lib/capture_class.h"

#define CAP_PAGES 256 /* perf ring pages per CPU: 1 MiB */
#define CAP_POLL_MS 100
#define CAP_LOCK_DIR "/run/lock" /* Debian's, root's to write */

/* ---- running it ---------------------------------------------------------- */

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

struct cap_run {
	FILE *f;
	int ng; /* pcapng, with each packet's direction */
	const struct cap_opts *o; /* the filter, for the packet socket's */
	uint64_t sock_seen; /* the stack's frames leaving the port */
	uint64_t sock_matched; /* of those, frames the filter kept */
	uint64_t sock_drops; /* frames the packet socket's queue dropped */
	const char *file;
	uint32_t count; /* the bound */
	uint64_t written; /* packets in the file */
	uint64_t over; /* arrived in the ring after the bound was reached */
	uint64_t lost; /* records the perf ring lost (its own count) */
	uint64_t bad; /* samples too short for their record */
	int64_t mono_to_real_ns;
	int err; /* the first write error, -errno */
};

/*
 * What pcapng says of a frame that left by a way other than the transmit
 * program's (tshark: frame.comment), so a reader can tell them apart.
 * Through mrc_tx_port leave the transmit program's data and the frames
 * mrcd builds whole (probes, control messages: MRC_DP_EMIT), no data.
 */
static const char *const via_comments[] = {
	[MRC_CAP_VIA_XDP_TX] = "turned around by mrc_xdp_rx (XDP_TX)",
	[MRC_CAP_VIA_STACK] = "sent by the kernel stack",
};
#define MRCD_FRAME_COMMENT "built by mrcd, sent through mrc_tx_port"

static const char *frame_comment(uint32_t via, uint32_t cls)
{
	if (via == MRC_CAP_VIA_TX_PORT)
		return cls == MRC_CAP_DATA ? NULL : MRCD_FRAME_COMMENT;
	return via < ARRAY_SIZE(via_comments) ? via_comments[via] : NULL;
}

/* One frame to the file (ts_ns: CLOCK_REALTIME), within the bound. */
static void put_frame(struct cap_run *r, uint64_t ts_ns, uint32_t len,
		      uint32_t cap_len, const uint8_t *data, uint32_t via,
		      uint32_t cls)
{
	int err;

	if (r->written >= r->count || r->err) {
		r->over++;
		return;
	}
	if (r->ng)
		err = pcapng_write_record(r->f, ts_ns, len, cap_len, data,
					  via == MRC_CAP_VIA_RX ?
						  PCAPNG_INBOUND :
						  PCAPNG_OUTBOUND,
					  frame_comment(via, cls));
	else
		err = pcap_write_record(r->f, ts_ns, len, cap_len, data);
	if (err)
		r->err = err;
	else
		r->written++;
}

static void on_sample(void *ctx, int cpu, void *data, uint32_t size)
{
	struct cap_run *r = ctx;
	struct mrc_cap_rec rec;

	(void)cpu;
	if (size < sizeof(rec)) {
		r->bad++;
		return;
	}
	memcpy(&rec, data, sizeof(rec));
	if (rec.cap_len > size - sizeof(rec) || rec.cap_len > rec.pkt_len ||
	    rec.via > MRC_CAP_VIA_XDP_TX) {
		r->bad++;
		return;
	}
	put_frame(r, (uint64_t)((int64_t)rec.ts_ns + r->mono_to_real_ns),
		  rec.pkt_len, rec.cap_len, (const uint8_t *)data + sizeof(rec),
		  rec.via, rec.cls);
}

/* A frame of the packet socket: filtered as the programs filter theirs. */
static void on_sock_frame(void *ctx, uint64_t ts_ns, uint32_t len,
			  uint32_t cap_len, const uint8_t *data)
{
	struct cap_run *r = ctx;
	uint32_t cls, qpn;

	r->sock_seen++;
	cls = mrc_cap_classify(
		data, cap_len < MRC_CAP_HDR ? cap_len : MRC_CAP_HDR, &qpn);
	if (!(cls & r->o->classes) || (r->o->qpn_on && qpn != r->o->qpn))
		return;
	r->sock_matched++;
	put_frame(r, ts_ns, len,
		  cap_len < r->o->snaplen ? cap_len : r->o->snaplen, data,
		  MRC_CAP_VIA_STACK, cls);
}

static void on_lost(void *ctx, int cpu, unsigned long long n)
{
	(void)cpu;
	((struct cap_run *)ctx)->lost += n;
}

static int64_t clock_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* A program's name; 0 or -errno. */
static int prog_name(int fd, char name[BPF_OBJ_NAME_LEN])
{
	struct bpf_prog_info info = {};
	uint32_t len = sizeof(info);

	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return -errno;
	memcpy(name, info.name, BPF_OBJ_NAME_LEN);
	name[BPF_OBJ_NAME_LEN - 1] = '\0';
	return 0;
}

/*
 * The receive program a capture killed without its cleanup left behind
 * its own (entry 0 of its mrc_cap_next): a new fd, or -errno.
 */
static int stale_rx(int cap_fd)
{
	uint32_t ids[DP_MAX_MAPS], key = 0, id;
	char name[BPF_OBJ_NAME_LEN];
	int n, fd, rx;

	n = dp_prog_maps(cap_fd, ids, name);
	if (n < 0)
		return n;
	fd = dp_map_named(ids, n, BPF_MAP_TYPE_PROG_ARRAY, "mrc_cap_next",
			  NULL);
	if (fd < 0)
		return fd;
	if (bpf_map_lookup_elem(fd, &key, &id))
		rx = -errno; /* emptied with its last fd */
	else if ((rx = bpf_prog_get_fd_by_id(id)) < 0)
		rx = -errno;
	close(fd);
	return rx;
}

/*
 * mrc_xdp_rx as attached to another interface of this network namespace
 * (every port of a device runs the same program): a new fd, or -errno.
 * Only if exactly one program of that name is found.
 */
static int rx_of_other_port(int ifindex)
{
	struct if_nameindex *ifs = if_nameindex(), *i;
	char name[BPF_OBJ_NAME_LEN];
	uint32_t id, found = 0;
	int fd, rx = -ENOENT;

	if (!ifs)
		return -errno;
	for (i = ifs; i->if_index; i++) {
		id = 0;
		if ((int)i->if_index == ifindex ||
		    bpf_xdp_query_id((int)i->if_index, XDP_FLAGS_DRV_MODE,
				     &id) ||
		    !id || id == found)
			continue;
		fd = bpf_prog_get_fd_by_id(id);
		if (fd < 0)
			continue;
		if (prog_name(fd, name) || strcmp(name, "mrc_xdp_rx")) {
			close(fd);
			continue;
		}
		if (found) { /* two devices here: which one is not known */
			close(fd);
			close(rx);
			rx = -ENOTUNIQ;
			break;
		}
		found = id;
		rx = fd;
	}
	if_freenameindex(ifs);
	return rx;
}

/*
 * The capture's lock on the port: an flock on a file named after the
 * network namespace and the ifindex, held for the whole capture, so that
 * a capture program on the port with the lock free is a dead capture's.
 */
static int lock_port(const char *dev, int ifindex, int *lock_fd)
{
	struct stat st;
	char path[128];

	if (stat("/proc/self/ns/net", &st))
		return err_api(errno, "stat /proc/self/ns/net", "dev %s", dev);
	snprintf(path, sizeof(path), CAP_LOCK_DIR "/mrcctl-capture-%lu-%d.lock",
		 (unsigned long)st.st_ino, ifindex);
	*lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (*lock_fd < 0)
		return err_api(errno, "open", "capture lock %s", path);
	if (flock(*lock_fd, LOCK_EX | LOCK_NB)) {
		close(*lock_fd);
		*lock_fd = -1;
		return err_runtime("dev %s: a capture already runs on it", dev);
	}
	return 0;
}

/*
 * The port's receive program: a new fd, or an exit code. A dead
 * capture's program (mrcctl killed by SIGKILL) is replaced by the receive
 * program behind it first.
 */
static int find_rx(const char *dev, int ifindex, int *fd)
{
	LIBBPF_OPTS(bpf_xdp_attach_opts, swap);
	char name[BPF_OBJ_NAME_LEN];
	uint32_t id = 0;
	int err, rx;

	err = bpf_xdp_query_id(ifindex, XDP_FLAGS_DRV_MODE, &id);
	if (err)
		return err_api(-err, "bpf_xdp_query_id", "dev %s", dev);
	if (!id)
		return err_runtime("dev %s: no XDP program on it (not a port"
				   " of a running mrcd?)",
				   dev);
	*fd = bpf_prog_get_fd_by_id(id);
	if (*fd < 0)
		return err_api(errno, "bpf_prog_get_fd_by_id", "dev %s", dev);
	err = prog_name(*fd, name);
	if (!err && !strcmp(name, "mrc_cap_xdp")) {
		rx = stale_rx(*fd);
		if (rx < 0) /* its program array emptied with its last fd */
			rx = rx_of_other_port(ifindex);
		if (rx < 0) {
			close(*fd);
			return err_api(-rx,
				       "finding mrc_xdp_rx behind a dead"
				       " capture",
				       "dev %s", dev);
		}
		swap.old_prog_fd = *fd;
		err = bpf_xdp_attach(ifindex, rx,
				     XDP_FLAGS_DRV_MODE | XDP_FLAGS_REPLACE,
				     &swap);
		close(*fd);
		*fd = rx;
		if (err) {
			close(rx);
			return err_api(-err,
				       "putting mrc_xdp_rx back after a"
				       " dead capture",
				       "dev %s", dev);
		}
		fprintf(stderr,
			"mrcctl: dev %s: put mrc_xdp_rx back in place"
			" of a dead capture's program\n",
			dev);
		err = prog_name(*fd, name);
	}
	if (err) {
		close(*fd);
		return err_api(-err, "bpf_obj_get_info_by_fd", "dev %s", dev);
	}
	if (strcmp(name, "mrc_xdp_rx")) {
		close(*fd);
		return err_runtime("dev %s: its XDP program is '%s', not"
				   " mrcd's mrc_xdp_rx",
				   dev, name);
	}
	return 0;
}

/* ---- the transmit side: the port's entry in mrc_tx_port -------------------- */

/* The port's entry in its device's mrc_tx_port, the transmit devmap. */
struct cap_txport {
	int fd; /* mrc_tx_port; -1: not found */
	uint32_t key; /* the port's index in it */
	uint32_t ifindex;
};

/*
 * The id of the mrc_tx_port of the mrc_xdp_tx that shares its maps with
 * rx_fd (every program of a device uses the receive program's maps; the
 * device's pins may be anywhere or nowhere, and other devices, of other
 * namespaces, have their own); 0 or -errno.
 */
static int tx_port_id(int rx_fd, uint32_t *out)
{
	uint32_t rx_ids[DP_MAX_MAPS], ids[DP_MAX_MAPS], id = 0, mid;
	char name[BPF_OBJ_NAME_LEN];
	int nrx, n, i, j, fd, mfd, shared;

	*out = 0;
	nrx = dp_prog_maps(rx_fd, rx_ids, name);
	if (nrx < 0)
		return nrx;
	while (!bpf_prog_get_next_id(id, &id)) {
		fd = bpf_prog_get_fd_by_id(id);
		if (fd < 0)
			continue; /* gone meanwhile */
		n = dp_prog_maps(fd, ids, name);
		close(fd);
		if (n <= 0 || strcmp(name, "mrc_xdp_tx"))
			continue;
		for (shared = 0, i = 0; i < n && !shared; i++)
			for (j = 0; j < nrx && !shared; j++)
				shared = ids[i] == rx_ids[j];
		if (!shared)
			continue;
		mfd = dp_map_named(ids, n, BPF_MAP_TYPE_DEVMAP, "mrc_tx_port",
				   &mid);
		if (mfd < 0)
			continue;
		close(mfd);
		if (*out && *out != mid)
			return -ENOTUNIQ;
		*out = mid;
	}
	return *out ? 0 : -ENOENT;
}

/*
 * The port's entry in its device's mrc_tx_port, t->fd open; 0 or an exit
 * code, said on stderr only if loud. A program a dead capture left in it
 * (mrc_cap_out, with the port's lock free, which the caller holds) is
 * taken out first, and that is always said.
 */
#define TX_ERR(call) (loud ? (call) : MRCCTL_EXIT_RUNTIME)
static int find_tx_port(const char *dev, int ifindex, int rx_fd,
			struct cap_txport *t, int loud)
{
	struct bpf_devmap_val v;
	struct bpf_map_info mi = {};
	uint32_t len = sizeof(mi), id;
	char name[BPF_OBJ_NAME_LEN];
	int err, fd;

	t->fd = -1;
	t->ifindex = (uint32_t)ifindex;
	err = tx_port_id(rx_fd, &id);
	if (err)
		return TX_ERR(err_api(-err, "finding the device's mrc_tx_port",
				      "dev %s", dev));
	t->fd = bpf_map_get_fd_by_id(id);
	if (t->fd < 0)
		return TX_ERR(
			err_api(errno, "bpf_map_get_fd_by_id", "dev %s", dev));
	if (bpf_obj_get_info_by_fd(t->fd, &mi, &len))
		return TX_ERR(err_api(errno, "bpf_obj_get_info_by_fd", "dev %s",
				      dev));
	if (mi.value_size != sizeof(v))
		return TX_ERR(err_runtime(
			"dev %s: its device's mrc_tx_port has %u-byte"
			" values, not struct bpf_devmap_val: an"
			" mrcd too old for 'dir out'",
			dev, mi.value_size));
	for (t->key = 0; t->key < mi.max_entries; t->key++) {
		memset(&v, 0, sizeof(v));
		if (!bpf_map_lookup_elem(t->fd, &t->key, &v) &&
		    v.ifindex == t->ifindex)
			break;
	}
	if (t->key == mi.max_entries)
		return TX_ERR(
			err_runtime("dev %s: not in its device's mrc_tx_port"
				    " (mrcd does not send out of it)",
				    dev));
	if (!v.bpf_prog.id)
		return 0;
	fd = bpf_prog_get_fd_by_id(v.bpf_prog.id);
	err = fd < 0 ? -errno : prog_name(fd, name);
	if (fd >= 0)
		close(fd);
	if (err)
		return TX_ERR(err_api(-err, "reading its egress program",
				      "dev %s", dev));
	if (strcmp(name, "mrc_cap_out"))
		return TX_ERR(
			err_runtime("dev %s: its mrc_tx_port entry runs '%s',"
				    " not a capture's (mrcd sets none)",
				    dev, name));
	v = (struct bpf_devmap_val){ .ifindex = t->ifindex };
	if (bpf_map_update_elem(t->fd, &t->key, &v, BPF_EXIST))
		return TX_ERR(err_api(
			errno, "taking a dead capture's egress program out",
			"dev %s", dev));
	fprintf(stderr,
		"mrcctl: dev %s: took a dead capture's egress program"
		" out of mrc_tx_port\n",
		dev);
	return 0;
}
#undef TX_ERR

/*
 * The port's entry back to no program, if it still has ours (prog_id):
 * one mrcd rewrote meanwhile stays as it is. 0, -ESTALE (not ours) or
 * -errno.
 */
static int tx_port_restore(const struct cap_txport *t, uint32_t prog_id)
{
	struct bpf_devmap_val v = {};

	if (bpf_map_lookup_elem(t->fd, &t->key, &v))
		return -errno;
	if (v.ifindex != t->ifindex || v.bpf_prog.id != prog_id)
		return -ESTALE;
	v = (struct bpf_devmap_val){ .ifindex = t->ifindex };
	return bpf_map_update_elem(t->fd, &t->key, &v, BPF_EXIST) ? -errno : 0;
}

/* ---- the turnarounds: the device's mrc_turn_hook --------------------------- */

/* The device's mrc_turn_hook, held by this capture. */
struct cap_turn {
	int fd; /* mrc_turn_hook; -1: not taken */
	int lock_fd; /* the device's turnaround lock */
	uint32_t prog_id; /* mrc_cap_turn's id, in it */
};

static void turn_close(struct cap_turn *t)
{
	if (t->fd >= 0)
		close(t->fd);
	if (t->lock_fd >= 0)
		close(t->lock_fd); /* the lock goes with it */
	t->fd = t->lock_fd = -1;
}

/*
 * The turnaround lock: an flock on a file named after the network
 * namespace and the hook's map id. One receive program serves every port
 * of a device, so one capture at a time of any of its ports can hold the
 * hook; a capture program in it with the lock free is a dead capture's.
 */
#define TURN_ERR(call) (loud ? (call) : MRCCTL_EXIT_RUNTIME)
static int lock_turn(const char *dev, uint32_t map_id, int *lock_fd, int loud)
{
	struct stat st;
	char path[128];

	if (stat("/proc/self/ns/net", &st))
		return TURN_ERR(err_api(errno, "stat /proc/self/ns/net",
					"dev %s", dev));
	snprintf(path, sizeof(path), CAP_LOCK_DIR "/mrcctl-turn-%lu-%u.lock",
		 (unsigned long)st.st_ino, map_id);
	*lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (*lock_fd < 0)
		return TURN_ERR(
			err_api(errno, "open", "capture lock %s", path));
	if (flock(*lock_fd, LOCK_EX | LOCK_NB)) {
		close(*lock_fd);
		*lock_fd = -1;
		return TURN_ERR(
			err_runtime("dev %s: a capture of another port of its"
				    " device takes what the device turns"
				    " around (one at a time can: a single"
				    " receive program serves every port);"
				    " 'dir in' can run beside it",
				    dev));
	}
	return 0;
}

/*
 * The device's mrc_turn_hook (one of rx_fd's maps), held: t->fd open and
 * the lock taken; 0 or an exit code. The mrcd of a build before the hook
 * has none: t->fd stays -1, that is said, and the capture goes on without
 * the turnarounds. A program a dead capture left in it is taken out first
 * (with the lock ours, it is a dead one's), and that is always said.
 * Errors are said only if loud: a 'dir in' capture looks only to repair.
 */
static int find_turn_hook(const char *dev, int rx_fd, struct cap_turn *t,
			  int loud)
{
	uint32_t ids[DP_MAX_MAPS], key = 0, id, map_id = 0;
	char name[BPF_OBJ_NAME_LEN];
	int n, fd, err;

	t->fd = t->lock_fd = -1;
	t->prog_id = 0;
	n = dp_prog_maps(rx_fd, ids, name);
	if (n < 0)
		return TURN_ERR(err_api(-n, "reading mrc_xdp_rx's maps",
					"dev %s", dev));
	fd = dp_map_named(ids, n, BPF_MAP_TYPE_PROG_ARRAY, "mrc_turn_hook",
			  &map_id);
	t->fd = fd < 0 ? -1 : fd;
	if (t->fd < 0) {
		if (loud)
			fprintf(stderr,
				"mrcctl: dev %s: its mrcd has no mrc_turn_hook (an"
				" older build): the ACKs, NACKs and probe answers it"
				" turns around are not captured\n",
				dev);
		return 0;
	}
	err = lock_turn(dev, map_id, &t->lock_fd, loud);
	if (err) {
		turn_close(t);
		return err;
	}
	if (bpf_map_lookup_elem(t->fd, &key, &id))
		return 0; /* empty, as mrcd leaves it */
	fd = bpf_prog_get_fd_by_id(id);
	err = fd < 0 ? -errno : prog_name(fd, name);
	if (fd >= 0)
		close(fd);
	if (!err && strcmp(name, "mrc_cap_turn")) {
		turn_close(t);
		return TURN_ERR(
			err_runtime("dev %s: its device's mrc_turn_hook runs"
				    " '%s', not a capture's (mrcd sets none)",
				    dev, name));
	}
	if (!err && bpf_map_delete_elem(t->fd, &key))
		err = -errno;
	if (err) {
		turn_close(t);
		return TURN_ERR(err_api(-err,
					"taking a dead capture's program out"
					" of mrc_turn_hook",
					"dev %s", dev));
	}
	fprintf(stderr,
		"mrcctl: dev %s: took a dead capture's program out of"
		" mrc_turn_hook\n",
		dev);
	return 0;
}

#undef TURN_ERR

/*
 * The hook back to empty, if it still holds ours (t->prog_id); 0, -ESTALE
 * (not ours: nobody else writes it while we hold the lock) or -errno.
 */
static int turn_restore(const struct cap_turn *t)
{
	uint32_t key = 0, id;

	if (bpf_map_lookup_elem(t->fd, &key, &id))
		return errno == ENOENT ? -ESTALE : -errno;
	if (id != t->prog_id)
		return -ESTALE;
	return bpf_map_delete_elem(t->fd, &key) ? -errno : 0;
}

static uint32_t prog_id(int fd)
{
	struct bpf_prog_info info = {};
	uint32_t len = sizeof(info);

	return bpf_obj_get_info_by_fd(fd, &info, &len) ? 0 : info.id;
}

static uint64_t stat_sum(int fd, uint32_t key)
{
	int ncpu = libbpf_num_possible_cpus(), i;
	uint64_t *v, sum = 0;

	if (ncpu <= 0)
		return 0;
	v = xcalloc((size_t)ncpu, sizeof(*v));
	if (!bpf_map_lookup_elem(fd, &key, v))
		for (i = 0; i < ncpu; i++)
			sum += v[i];
	free(v);
	return sum;
}

static const char *const dir_names[] = { "", "in", "out", "both" };

static void summary(const struct cap_opts *o, const struct cap_run *r,
		    const uint64_t *st)
{
	FILE *f = strcmp(o->file, "-") ? stdout : stderr;
	uint64_t sent =
		st[MRC_CAP_OUT_SEEN] + st[MRC_CAP_TURN_SEEN] + r->sock_seen;
	uint64_t sent_matched = st[MRC_CAP_OUT_MATCHED] +
				st[MRC_CAP_TURN_MATCHED] + r->sock_matched;
	uint64_t matched = st[MRC_CAP_MATCHED] + sent_matched;
	uint64_t full = st[MRC_CAP_OUTPUT_FAILED] +
			st[MRC_CAP_OUT_OUTPUT_FAILED] +
			st[MRC_CAP_TURN_OUTPUT_FAILED];
	struct jv *j;

	if (!opts.json) {
		fprintf(stderr,
			"mrcctl capture: %" PRIu64 " packets written to %s;"
			" arrived %" PRIu64 ", sent %" PRIu64 " (by mrc_xdp_tx"
			" %" PRIu64 ", turned around %" PRIu64
			", by the stack %" PRIu64 "), matched %" PRIu64
			", over the bound %" PRIu64 ", lost %" PRIu64
			" (perf ring full %" PRIu64 ", lost records %" PRIu64
			", socket queue %" PRIu64
			"), not handed to mrc_xdp_rx %" PRIu64 "\n",
			r->written, strcmp(o->file, "-") ? o->file : "stdout",
			st[MRC_CAP_SEEN], sent, st[MRC_CAP_OUT_SEEN],
			st[MRC_CAP_TURN_SEEN], r->sock_seen, matched, r->over,
			full + r->lost + r->bad + r->sock_drops, full,
			r->lost + r->bad, r->sock_drops,
			st[MRC_CAP_TAIL_FAILED]);
		return;
	}
	j = jv_obj();
	jv_add(j, "dev", jv_str(o->dev));
	jv_add(j, "file", jv_str(o->file));
	jv_add(j, "dir", jv_str(dir_names[o->dir & 3]));
	jv_add(j, "packets_written", jv_u64(r->written));
	jv_add(j, "packets_arrived", jv_u64(st[MRC_CAP_SEEN]));
	jv_add(j, "packets_sent", jv_u64(sent));
	jv_add(j, "packets_sent_tx_port", jv_u64(st[MRC_CAP_OUT_SEEN]));
	jv_add(j, "packets_sent_xdp_tx", jv_u64(st[MRC_CAP_TURN_SEEN]));
	jv_add(j, "packets_sent_stack", jv_u64(r->sock_seen));
	jv_add(j, "packets_matched", jv_u64(matched));
	jv_add(j, "packets_arrived_matched", jv_u64(st[MRC_CAP_MATCHED]));
	jv_add(j, "packets_sent_matched", jv_u64(sent_matched));
	jv_add(j, "packets_sent_tx_port_matched",
	       jv_u64(st[MRC_CAP_OUT_MATCHED]));
	jv_add(j, "packets_sent_xdp_tx_matched",
	       jv_u64(st[MRC_CAP_TURN_MATCHED]));
	jv_add(j, "packets_sent_stack_matched", jv_u64(r->sock_matched));
	jv_add(j, "packets_over_bound", jv_u64(r->over));
	jv_add(j, "packets_lost_ring_full", jv_u64(full));
	jv_add(j, "packets_lost_records", jv_u64(r->lost + r->bad));
	jv_add(j, "packets_lost_socket", jv_u64(r->sock_drops));
	jv_add(j, "packets_not_to_rx", jv_u64(st[MRC_CAP_TAIL_FAILED]));
	jv_print(f, j, opts.pretty);
	jv_free(j);
}

/* What the guard undoes: the swap, the devmap entry, or both. */
struct cap_undo {
	int ifindex;
	int rx_fd; /* mrc_xdp_rx */
	int cap_fd; /* mrc_cap_xdp in its place; -1: 'dir in' not taken */
	struct cap_txport tx; /* tx.fd -1: 'dir out' not taken */
	uint32_t out_id; /* mrc_cap_out's id, in tx's entry */
	struct cap_turn turn; /* turn.fd -1: the turnarounds not taken */
};

/*
 * The guard: a child that outlives a capture killed without its cleanup
 * (SIGKILL, a crash) and undoes what the capture did. It waits for the
 * end of a pipe whose other end only the capture holds; when that closes
 * it takes mrc_cap_turn out of the device's mrc_turn_hook and mrc_cap_out
 * out of the port's mrc_tx_port entry if they are still there, and swaps
 * mrc_xdp_rx in for the capture program, which the kernel does only if
 * the capture program is still there (a capture that ended well has
 * undone all of it already). Until then it also holds the
 * program array, which the kernel would empty with its last file
 * descriptor, and the port's lock (and the device's turnaround lock).
 */
static void guard(int rfd, const struct cap_undo *u)
{
	LIBBPF_OPTS(bpf_xdp_attach_opts, swap, .old_prog_fd = u->cap_fd);
	int nul = open("/dev/null", O_RDWR);
	char c;

	/* Its swap fails after a clean end ("does not match"): no noise. */
	libbpf_set_print(NULL);
	signal(SIGINT, SIG_IGN); /* a ^C to the group is the capture's */
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	if (nul >= 0) { /* never keep a pipe to a pcap reader open */
		dup2(nul, STDIN_FILENO);
		dup2(nul, STDOUT_FILENO);
	}
	while (read(rfd, &c, 1) < 0 && errno == EINTR)
		;
	if (u->turn.fd >= 0)
		turn_restore(&u->turn);
	if (u->tx.fd >= 0)
		tx_port_restore(&u->tx, u->out_id);
	if (u->cap_fd >= 0)
		bpf_xdp_attach(u->ifindex, u->rx_fd,
			       XDP_FLAGS_DRV_MODE | XDP_FLAGS_REPLACE, &swap);
	_exit(0);
}

static int libbpf_quiet(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	if (level != LIBBPF_WARN)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static int capture_run(struct args *a)
{
	struct sigaction sa = { .sa_handler = on_signal }, old_int, old_term;
	LIBBPF_OPTS(bpf_xdp_attach_opts, swap_in);
	LIBBPF_OPTS(bpf_xdp_attach_opts, swap_out);
	struct cap_run r = { 0 };
	struct perf_buffer_opts pbo = { .sz = sizeof(pbo) };
	struct mrc_capture *skel = NULL;
	struct perf_buffer *pb = NULL;
	uint64_t st[MRC_CAP_NSTATS] = { 0 };
	struct cap_undo u = { .rx_fd = -1,
			      .cap_fd = -1,
			      .tx = { .fd = -1 },
			      .turn = { .fd = -1, .lock_fd = -1 } };
	struct pollfd pfd[2];
	uint8_t *sock_buf = NULL;
	struct bpf_devmap_val out_val;
	int64_t deadline;
	int rc, err, ifindex, key = 0, attached = 0, out_set = 0, turn_set = 0;
	int sock_fd = -1, turn_fd = -1;
	int lock_fd = -1, guard_pipe[2] = { -1, -1 }, out_fd = -1;
	pid_t guard_pid = -1;
	struct cap_opts o;
	uint32_t i;

	rc = cap_parse(a, &o);
	if (rc)
		return rc;
	ifindex = (int)if_nametoindex(o.dev);
	if (!ifindex)
		return err_runtime("dev %s: no such interface", o.dev);
	u.ifindex = ifindex;
	rc = lock_port(o.dev, ifindex, &lock_fd);
	if (rc)
		return rc;
	rc = find_rx(o.dev, ifindex, &u.rx_fd);
	if (rc) {
		close(lock_fd);
		return rc;
	}
	/*
	 * The devmap entry and the turnaround hook are looked at on every
	 * capture, so that what a dead capture left in them is repaired by
	 * the next capture of either direction; only 'dir out' needs them.
	 */
	if (o.dir & CAP_DIR_OUT) {
		rc = find_tx_port(o.dev, ifindex, u.rx_fd, &u.tx, 1);
		if (!rc)
			rc = find_turn_hook(o.dev, u.rx_fd, &u.turn, 1);
		if (!rc) {
			sock_fd = cap_sock_open(ifindex);
			if (sock_fd < 0)
				rc = err_api(-sock_fd,
					     "opening a packet socket for"
					     " what the stack sends",
					     "dev %s", o.dev);
		}
		if (rc)
			goto out_rx;
	} else {
		if (find_tx_port(o.dev, ifindex, u.rx_fd, &u.tx, 0) &&
		    u.tx.fd >= 0) {
			close(u.tx.fd);
			u.tx.fd = -1;
		}
		/* Repaired if a dead capture left it; never taken. */
		if (!find_turn_hook(o.dev, u.rx_fd, &u.turn, 0))
			turn_close(&u.turn);
	}
	libbpf_set_print(libbpf_quiet);
	skel = mrc_capture__open();
	if (!skel) {
		rc = err_api(errno, "opening the capture program", "dev %s",
			     o.dev);
		goto out_rx;
	}
	skel->rodata->cap_classes = o.classes;
	skel->rodata->cap_qpn_on = (uint32_t)o.qpn_on;
	skel->rodata->cap_qpn = o.qpn;
	skel->rodata->cap_snaplen = o.snaplen;
	skel->rodata->cap_ifindex = (uint32_t)ifindex;
	bpf_program__set_autoload(skel->progs.mrc_cap_xdp,
				  !!(o.dir & CAP_DIR_IN));
	bpf_program__set_autoload(skel->progs.mrc_cap_out,
				  !!(o.dir & CAP_DIR_OUT));
	bpf_program__set_autoload(skel->progs.mrc_cap_turn, u.turn.fd >= 0);
	err = mrc_capture__load(skel);
	if (err) {
		rc = err_api(-err, "loading the capture program", "dev %s",
			     o.dev);
		goto out_skel;
	}
	if (o.dir & CAP_DIR_IN) {
		u.cap_fd = bpf_program__fd(skel->progs.mrc_cap_xdp);
		if (bpf_map_update_elem(bpf_map__fd(skel->maps.mrc_cap_next),
					&key, &u.rx_fd, BPF_ANY)) {
			rc = err_api(errno,
				     "putting mrc_xdp_rx behind the capture",
				     "dev %s", o.dev);
			goto out_skel;
		}
	}
	if (o.dir & CAP_DIR_OUT) {
		out_fd = bpf_program__fd(skel->progs.mrc_cap_out);
		u.out_id = prog_id(out_fd);
	}
	if (u.turn.fd >= 0) {
		turn_fd = bpf_program__fd(skel->progs.mrc_cap_turn);
		u.turn.prog_id = prog_id(turn_fd);
	}
	if (!(o.dir & CAP_DIR_OUT) && u.tx.fd >= 0) {
		close(u.tx.fd); /* looked at above; nothing to undo */
		u.tx.fd = -1;
	}
	r.file = o.file;
	r.o = &o;
	r.count = o.count;
	r.ng = o.dir != CAP_DIR_IN;
	if (!strcmp(o.file, "-")) {
		r.f = stdout;
	} else {
		r.f = fopen(o.file, "wb");
		if (!r.f) {
			rc = err_api(errno, "fopen", "-w %s", o.file);
			goto out_skel;
		}
	}
	err = r.ng ? pcapng_write_header(r.f, o.snaplen, o.dev) :
		     pcap_write_header(r.f, o.snaplen);
	if (err) {
		rc = err_api(-err, "writing", "-w %s", o.file);
		goto out_file;
	}
	pb = perf_buffer__new(bpf_map__fd(skel->maps.mrc_cap_ring), CAP_PAGES,
			      on_sample, on_lost, &r, &pbo);
	if (!pb) {
		rc = err_api(errno, "perf_buffer__new", "dev %s", o.dev);
		goto out_file;
	}
	r.mono_to_real_ns =
		clock_ns(CLOCK_REALTIME) - clock_ns(CLOCK_MONOTONIC);
	/* No SA_RESTART: a signal ends the poll at once. */
	sigemptyset(&sa.sa_mask);
	stop = 0;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	if (pipe2(guard_pipe, O_CLOEXEC)) {
		rc = err_api(errno, "pipe2", "dev %s", o.dev);
		goto out_signals;
	}
	fflush(NULL); /* nothing buffered twice */
	guard_pid = fork();
	if (guard_pid < 0) {
		rc = err_api(errno, "fork", "dev %s", o.dev);
		goto out_signals;
	}
	if (!guard_pid) {
		close(guard_pipe[1]);
		guard(guard_pipe[0], &u);
	}
	close(guard_pipe[0]);
	guard_pipe[0] = -1;
	if (o.dir & CAP_DIR_OUT) {
		/*
		 * The kernel swaps the entry whole (RCU): frames already
		 * queued for the port leave with the old one.
		 */
		out_val = (struct bpf_devmap_val){ .ifindex = u.tx.ifindex,
						   .bpf_prog.fd = out_fd };
		if (bpf_map_update_elem(u.tx.fd, &u.tx.key, &out_val,
					BPF_EXIST)) {
			rc = err_api(errno,
				     "setting the capture's egress program"
				     " in mrc_tx_port",
				     "dev %s", o.dev);
			goto out_signals;
		}
		out_set = 1;
	}
	if (u.turn.fd >= 0) {
		if (bpf_map_update_elem(u.turn.fd, &key, &turn_fd, BPF_ANY)) {
			rc = err_api(errno,
				     "setting the capture's program in"
				     " mrc_turn_hook",
				     "dev %s", o.dev);
			goto out_signals;
		}
		turn_set = 1;
	}
	if (o.dir & CAP_DIR_IN) {
		swap_in.old_prog_fd = u.rx_fd;
		err = bpf_xdp_attach(ifindex, u.cap_fd,
				     XDP_FLAGS_DRV_MODE | XDP_FLAGS_REPLACE,
				     &swap_in);
		if (err) {
			rc = err_api(-err,
				     "putting the capture in front of"
				     " mrc_xdp_rx",
				     "dev %s", o.dev);
			goto out_signals;
		}
		attached = 1;
	}
	deadline = clock_ns(CLOCK_MONOTONIC) + (int64_t)o.seconds * 1000000000;
	pfd[0] = (struct pollfd){ .fd = perf_buffer__epoll_fd(pb),
				  .events = POLLIN };
	pfd[1] = (struct pollfd){ .fd = sock_fd, .events = POLLIN };
	if (sock_fd >= 0)
		sock_buf = xcalloc(1, CAP_SNAPLEN_MAX);
	while (!stop && r.written < o.count && !r.err &&
	       clock_ns(CLOCK_MONOTONIC) < deadline) {
		/* Both kinds, whichever woke us: each read is cheap. */
		if (poll(pfd, sock_fd >= 0 ? 2 : 1, CAP_POLL_MS) < 0 &&
		    errno != EINTR) {
			rc = err_api(errno, "poll", "dev %s", o.dev);
			break;
		}
		err = perf_buffer__consume(pb);
		if (!err && sock_fd >= 0)
			err = cap_sock_drain(sock_fd, sock_buf, CAP_SNAPLEN_MAX,
					     on_sock_frame, &r);
		if (err < 0 && err != -EINTR) {
			rc = err_api(-err, "reading the captured frames",
				     "dev %s", o.dev);
			break;
		}
	}
out_signals:
	if (turn_set) {
		err = turn_restore(&u.turn);
		if (err && !rc)
			rc = err == -ESTALE ?
				     err_runtime("dev %s: its device's"
						 " mrc_turn_hook was rewritten"
						 " during the capture: frames"
						 " turned around after that"
						 " are missing",
						 o.dev) :
				     err_api(-err,
					     "taking the capture's program"
					     " out of mrc_turn_hook",
					     "dev %s", o.dev);
	}
	if (out_set) {
		err = tx_port_restore(&u.tx, u.out_id);
		if (err && !rc)
			rc = err == -ESTALE ?
				     err_runtime("dev %s: its mrc_tx_port entry"
						 " was rewritten during the"
						 " capture (mrcd re-added the"
						 " port?): frames sent after"
						 " that are missing",
						 o.dev) :
				     err_api(-err,
					     "taking the egress program out"
					     " of mrc_tx_port",
					     "dev %s", o.dev);
	}
	if (attached) {
		swap_out.old_prog_fd = u.cap_fd;
		err = bpf_xdp_attach(ifindex, u.rx_fd,
				     XDP_FLAGS_DRV_MODE | XDP_FLAGS_REPLACE,
				     &swap_out);
		if (err && !rc)
			rc = err_api(-err,
				     "putting mrc_xdp_rx back (someone"
				     " replaced the capture?)",
				     "dev %s", o.dev);
	}
	if (attached || out_set) {
		/* What reached the ring and the socket before the undo. */
		perf_buffer__consume(pb);
		if (sock_fd >= 0) {
			cap_sock_drain(sock_fd, sock_buf, CAP_SNAPLEN_MAX,
				       on_sock_frame, &r);
			cap_sock_drops(sock_fd, &r.sock_drops);
		}
		for (i = 0; i < MRC_CAP_NSTATS; i++)
			st[i] = stat_sum(bpf_map__fd(skel->maps.mrc_cap_stats),
					 i);
	}
	if (guard_pipe[1] >= 0)
		close(guard_pipe[1]); /* the guard finds nothing to do */
	if (guard_pid > 0)
		waitpid(guard_pid, NULL, 0);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	perf_buffer__free(pb);
	if (fflush(r.f) && !r.err)
		r.err = -errno;
	if (r.err && !rc)
		rc = err_api(-r.err, "writing", "-w %s", o.file);
	if (attached || out_set)
		summary(&o, &r, st);
out_file:
	if (r.f != stdout && fclose(r.f) && !rc)
		rc = err_api(errno, "closing", "-w %s", o.file);
out_skel:
	mrc_capture__destroy(skel);
out_rx:
	free(sock_buf);
	if (sock_fd >= 0)
		close(sock_fd);
	turn_close(&u.turn);
	if (u.tx.fd >= 0)
		close(u.tx.fd);
	close(u.rx_fd);
	close(lock_fd); /* the lock goes with it */
	return rc;
}

static const char *const defs[] = {
	"IFNAME := a port of the device (an interface mrcd attached to);"
	" FILE := a pcap file, - for stdout",
	"CLASS := { data | ack | nack | probe | other | all }[,CLASS...]"
	" (default all)",
	"QPN := the BTH destination QP; BYTES := 14.." CAP_SNAPLEN_MAX_STR
	" bytes kept of each frame (default " CAP_SNAPLEN_MAX_STR ")",
	"N := packets to write, then stop (default " CAP_COUNT_DEFAULT_STR
	"); SEC := seconds, then stop (default " CAP_SECONDS_DEFAULT_STR ")",
	"DIR := in (what arrives; the default, classic pcap) | out (what"
	" leaves: the transmit program's data and resends and mrcd's probes,"
	" the ACKs, NACKs and probe answers the receive program turns around,"
	" and what the kernel stack sends: the low-latency path, ARP, TCP)"
	" | both; out and both write pcapng with each packet's direction."
	" One capture at a time per device can take what leaves. See"
	" mrcctl(8).",
	"A summary goes to stderr (-j: JSON on stdout, stderr with -w -).",
	NULL,
};

const struct object obj_capture = {
	.name = "capture",
	.what = "write a pcap of the frames the data path receives on a port"
		" or sends out of it",
	.run = capture_run,
	.form = "dev IFNAME -w FILE [ dir DIR ] [ qpn QPN ] [ class CLASS ]",
	.usage = (const char *const[]){ " [ snaplen BYTES ] [ count N ]"
					" [ duration SEC ]",
					NULL },
	.defs = defs,
	.streams = 1,
};
