// SPDX-License-Identifier: GPL-2.0
/*
 * The soft device: loads the receive and transmit programs (the transmit
 * program shares every map of the receive program), attaches them, and
 * creates memory regions, completion queues and queue pairs as map entries
 * and inner maps. Functions return 0 or -errno and say what failed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/if_link.h>
#include <linux/if_packet.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "clock.h"
#include "dev.h"
#include "log.h"
#include "nscc_params.h"
#include "pin.h"
#include "mrc_xdp_rx.skel.h"
#include "mrc_xdp_tx.skel.h"
#include "mrc_xdp_ack_tx.skel.h"
#include "mrc_pump_gone.skel.h"
#include "mrc_xdp_ctl.skel.h"
#include "mrc_build_id.h"
#include "mrc/doorbell.h"

/*
 * The largest frame the transmit program builds: DEV_PAYLOAD_MAX with
 * Ethernet and every header. Live frames must fit a page with its
 * headroom, so MRC_MAX_PAYLOAD-sized packets wait for multi-buffer support.
 */
#define TX_FRAME_MAX (14 + MRC_DATA_OVERHEAD(1) + DEV_PAYLOAD_MAX)
_Static_assert(TX_FRAME_MAX + 1 <= DEV_LIVE_FRAME_MAX, "a live frame");
_Static_assert(DEV_PAYLOAD_MAX <= MRC_MAX_PAYLOAD, "the programs place it");

static int err_msg(int err, const char *what, const char *obj)
{
	log_err("%s%s%s: %s\n", what, obj ? " " : "", obj ? obj : "",
		strerror(err < 0 ? -err : err));
	return err < 0 ? err : -err;
}

/* One set of maps: every other program uses the receive program's. */
static int share_maps(struct dev *d, struct bpf_object *obj)
{
	struct bpf_map *m, *same;
	int err;

	bpf_object__for_each_map(m, obj)
	{
		if (bpf_map__is_internal(m))
			continue; /* .bss, .rodata: the program's own */
		same = bpf_object__find_map_by_name(d->rx->obj,
						    bpf_map__name(m));
		if (!same)
			return err_msg(-ENOENT, "no map to share for",
				       bpf_map__name(m));
		err = bpf_map__reuse_fd(m, bpf_map__fd(same));
		if (err)
			return err_msg(err, "sharing map", bpf_map__name(m));
	}
	return 0;
}

/*
 * The receive program's maps become the ones pinned in dir (a running
 * device's), each checked against this build's definition first: a map
 * of another layout is refused by name, never misread. (The kernel adds
 * BPF_F_RDONLY_PROG to device maps itself: not a difference.)
 */
static int reuse_pinned(struct dev *d, const char *dir)
{
	struct bpf_map_info info = {};
	uint32_t len = sizeof(info);
	struct bpf_map *m;
	const char *name;
	int fd, err;

	bpf_object__for_each_map(m, d->rx->obj)
	{
		if (bpf_map__is_internal(m))
			continue;
		name = bpf_map__name(m);
		fd = dev_pin_get(dir, "maps", name);
		if (fd < 0) {
			log_err("the running device has no map %s (%s): another mrcd build made it\n",
				name, strerror(-fd));
			return -EPROTO;
		}
		memset(&info, 0, sizeof(info));
		len = sizeof(info);
		err = bpf_obj_get_info_by_fd(fd, &info, &len) ? -errno : 0;
		if (err) {
			close(fd);
			return err_msg(err, "reading the pinned map", name);
		}
		if (info.type != bpf_map__type(m) ||
		    info.key_size != bpf_map__key_size(m) ||
		    info.value_size != bpf_map__value_size(m) ||
		    info.max_entries != bpf_map__max_entries(m) ||
		    (info.map_flags & ~BPF_F_RDONLY_PROG) !=
			    (bpf_map__map_flags(m) & ~BPF_F_RDONLY_PROG)) {
			log_err("the running device's map %s has another layout (type %u, key %u B, value %u B, %u entries, flags %#x; this mrcd: %u, %u B, %u B, %u, %#x): another mrcd build made it\n",
				name, info.type, info.key_size, info.value_size,
				info.max_entries, info.map_flags,
				bpf_map__type(m), bpf_map__key_size(m),
				bpf_map__value_size(m), bpf_map__max_entries(m),
				bpf_map__map_flags(m));
			close(fd);
			return -EPROTO;
		}
		err = bpf_map__reuse_fd(m, fd);
		close(fd);
		if (err)
			return err_msg(err, "reusing the pinned map", name);
	}
	return 0;
}

/*
 * The build record (maps/mrcd_build): what the running programs are, so
 * a restarted mrcd of the same build runs them instead of loading and
 * verifying its own (the receive program alone is some 900k verifier
 * instructions, half a second). Written by dev_pin once the programs are
 * pinned, so it never describes programs the pins do not hold. A
 * program is reused only if its pin is, in every respect recorded, what
 * this build's mrcd loaded: the tag (the kernel's hash of its
 * instructions), the type and the exact set of maps it uses (the pinned
 * ones this mrcd just checked, and its own .bss/.rodata). A record of
 * another layout or build, a missing pin, any mismatch: load afresh.
 */
#define BUILD_MAGIC 0x4d524349u /* "MRCI" */
#define BUILD_VERSION 2 /* 2: mrc_xdp_ack_tx recorded */
#define BUILD_MAPS 32 /* maps one program may use, at most */
#define BUILD_ID_LEN 96

struct build_prog {
	uint8_t tag[BPF_TAG_SIZE];
	uint32_t type; /* enum bpf_prog_type; 0: none recorded */
	uint32_t nmaps;
	uint32_t own; /* bit i: map_id[i] is the program's own (.bss, ...) */
	uint32_t map_id[BUILD_MAPS]; /* ascending */
};

struct build_rec {
	uint32_t magic, version;
	char id[BUILD_ID_LEN]; /* dev_build_id() */
	struct build_prog prog[DEV_NPROGS];
};

static const char *const prog_name[DEV_NPROGS] = {
	[DEV_PROG_RX] = "mrc_xdp_rx",	[DEV_PROG_TX] = "mrc_xdp_tx",
	[DEV_PROG_CTL] = "mrc_xdp_ctl", [DEV_PROG_ACK] = "mrc_xdp_ack_tx",
	[DEV_PROG_TC] = "mrc_tc_tx",
};

const char *dev_build_id(void)
{
	static char id[BUILD_ID_LEN];
	const char *test;

	test = getenv("MRCD_TEST_BUILD_ID");
	snprintf(id, sizeof(id), "%s%s%s", MRC_BUILD_ID,
		 test && *test ? ":" : "", test && *test ? test : "");
	return id;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* The ids of the data path's maps (the receive program's, pinned). */
static int data_map_ids(struct dev *d, uint32_t *ids, int max)
{
	struct bpf_map_info info;
	struct bpf_map *m;
	uint32_t len;
	int n = 0;

	bpf_object__for_each_map(m, d->rx->obj)
	{
		if (bpf_map__is_internal(m))
			continue;
		if (n == max)
			return -E2BIG;
		memset(&info, 0, sizeof(info));
		len = sizeof(info);
		if (bpf_obj_get_info_by_fd(bpf_map__fd(m), &info, &len))
			return -errno;
		ids[n++] = info.id;
	}
	return n;
}

/*
 * Program fd as the record has it: type, tag, its maps (ascending) and
 * which are not among ids[n] (the data path's). name: its kernel name.
 */
static int prog_describe(int fd, const uint32_t *ids, int n,
			 struct build_prog *bp, char name[BPF_OBJ_NAME_LEN])
{
	uint32_t map_id[BUILD_MAPS + 1], len, i;
	struct bpf_prog_info info = {};
	int j;

	memset(bp, 0, sizeof(*bp));
	memset(map_id, 0, sizeof(map_id)); /* valgrind: the kernel fills it */
	info.nr_map_ids = BUILD_MAPS + 1;
	info.map_ids = (uint64_t)(uintptr_t)map_id;
	len = sizeof(info);
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return -errno;
	if (info.nr_map_ids > BUILD_MAPS)
		return -E2BIG;
	memcpy(bp->tag, info.tag, sizeof(bp->tag));
	memcpy(name, info.name, BPF_OBJ_NAME_LEN);
	name[BPF_OBJ_NAME_LEN - 1] = 0;
	bp->type = info.type;
	bp->nmaps = info.nr_map_ids;
	qsort(map_id, bp->nmaps, sizeof(map_id[0]), cmp_u32);
	for (i = 0; i < bp->nmaps; i++) {
		bp->map_id[i] = map_id[i];
		for (j = 0; j < n && ids[j] != map_id[i]; j++)
			;
		if (j == n)
			bp->own |= 1u << i;
	}
	return 0;
}

static uint32_t prog_id(int fd)
{
	struct bpf_prog_info info = {};
	uint32_t len = sizeof(info);

	return fd >= 0 && !bpf_obj_get_info_by_fd(fd, &info, &len) ? info.id :
								     0;
}

/*
 * A record mrcd pins for the next one (maps/name: one array entry of size
 * bytes, the mrcd_build and mrcd_pump_rec records), if it has this
 * layout: its fd, or -errno (-EPROTO: another layout).
 */
static int rec_get(const char *dir, const char *name, uint32_t size)
{
	struct bpf_map_info info = {};
	uint32_t len = sizeof(info);
	int fd = dev_pin_get(dir, "maps", name);

	if (fd < 0)
		return fd;
	if (bpf_obj_get_info_by_fd(fd, &info, &len) ||
	    info.type != BPF_MAP_TYPE_ARRAY || info.key_size != 4 ||
	    info.value_size != size || info.max_entries != 1) {
		close(fd);
		return -EPROTO;
	}
	return fd;
}

/* rec written as record name, the map made and pinned if there is none of
 * its layout: 0 or -errno (said). */
static int rec_put(const char *dir, const char *name, const void *rec,
		   uint32_t size)
{
	uint32_t key = 0;
	int fd = rec_get(dir, name, size), err = 0;

	if (fd < 0) {
		fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, name, 4, size, 1, NULL);
		if (fd < 0)
			return err_msg(-errno, "creating the record", name);
		err = dev_pin_obj(fd, dir, "maps", name);
	}
	if (!err && bpf_map_update_elem(fd, &key, rec, BPF_ANY))
		err = err_msg(-errno, "writing the record", name);
	close(fd);
	return err;
}

/*
 * The transmit program's .bss as the pinned one (maps/mrcd_tx_bss, mrcd
 * writes the QP to send for there): mapped where the skeleton has it,
 * as loading would. own: the ids the record gives the program for its
 * own maps.
 */
static int tx_bss_adopt(struct dev *d, const char *dir,
			const struct build_prog *bp)
{
	struct bpf_map_info info = {};
	uint32_t len = sizeof(info), i;
	long page = sysconf(_SC_PAGESIZE);
	size_t sz = ((size_t)bpf_map__value_size(d->tx->maps.bss) + 7) / 8 * 8;
	int fd = dev_pin_get(dir, "maps", "mrcd_tx_bss"), err = -EPROTO;
	void *p;

	if (fd < 0)
		return fd;
	if (bpf_obj_get_info_by_fd(fd, &info, &len)) {
		err = -errno;
		goto out;
	}
	for (i = 0; i < bp->nmaps; i++)
		if (bp->map_id[i] == info.id && (bp->own & (1u << i)))
			break;
	if (i == bp->nmaps || info.type != BPF_MAP_TYPE_ARRAY ||
	    info.value_size != bpf_map__value_size(d->tx->maps.bss) ||
	    info.max_entries != 1 || !(info.map_flags & BPF_F_MMAPABLE))
		goto out;
	sz = (sz + page - 1) / page * page;
	p = mmap(d->tx->bss, sz, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
		 fd, 0);
	err = p == MAP_FAILED ? -errno : 0;
out:
	close(fd);
	return err;
}

/*
 * The running programs, if the record says they are this build's and
 * every pin is the program recorded: 0 (d->prog_fd[] set, d->reused).
 * Otherwise 1, the reason logged: load afresh.
 */
static int reuse_progs(struct dev *d, const char *dir)
{
	uint32_t ids[BUILD_MAPS];
	char name[BPF_OBJ_NAME_LEN], why[160] = "";
	int fd[DEV_NPROGS] = { -1, -1, -1, -1, -1 }, rfd, n, p, err;
	enum bpf_prog_type want[DEV_NPROGS] = {
		[DEV_PROG_RX] = bpf_program__type(d->rx->progs.mrc_xdp_rx),
		[DEV_PROG_TX] = bpf_program__type(d->tx->progs.mrc_xdp_tx),
		[DEV_PROG_CTL] = bpf_program__type(d->ctl->progs.mrc_xdp_ctl),
		[DEV_PROG_ACK] =
			bpf_program__type(d->ack_tx->progs.mrc_xdp_ack_tx),
		[DEV_PROG_TC] = BPF_PROG_TYPE_SCHED_CLS,
	};
	struct build_prog now;
	struct build_rec rec;
	uint32_t key = 0;

	rfd = rec_get(dir, "mrcd_build", sizeof(rec));
	if (rfd < 0) {
		snprintf(why, sizeof(why), "%s maps/mrcd_build (%s)",
			 rfd == -EPROTO ? "another layout of" : "no",
			 strerror(-rfd));
		goto fresh;
	}
	err = bpf_map_lookup_elem(rfd, &key, &rec) ? -errno : 0;
	close(rfd);
	if (err || rec.magic != BUILD_MAGIC || rec.version != BUILD_VERSION) {
		snprintf(why, sizeof(why),
			 "maps/mrcd_build unreadable or of another version");
		goto fresh;
	}
	rec.id[BUILD_ID_LEN - 1] = 0;
	if (strcmp(rec.id, dev_build_id())) {
		snprintf(
			why, sizeof(why),
			"they are of another build (%.12s...%s, this mrcd %.12s...%s)",
			rec.id, strchr(rec.id, ':') ? strchr(rec.id, ':') : "",
			dev_build_id(),
			strchr(dev_build_id(), ':') ?
				strchr(dev_build_id(), ':') :
				"");
		goto fresh;
	}
	n = data_map_ids(d, ids, BUILD_MAPS);
	if (n < 0) {
		snprintf(why, sizeof(why), "reading the maps' ids: %s",
			 strerror(-n));
		goto fresh;
	}
	for (p = 0; p < DEV_NPROGS; p++) {
		/* Without a recorded tc program, dev_lowlat loads one. */
		if (p == DEV_PROG_TC && !rec.prog[p].type)
			break;
		fd[p] = dev_pin_get(dir, "progs", prog_name[p]);
		err = fd[p] < 0 ? fd[p] :
				  prog_describe(fd[p], ids, n, &now, name);
		if (err) {
			snprintf(why, sizeof(why), "progs/%s: %s", prog_name[p],
				 strerror(-err));
		} else if (now.type != (uint32_t)want[p] ||
			   strcmp(name, prog_name[p])) {
			snprintf(why, sizeof(why),
				 "progs/%s is another program (%s, type %u)",
				 prog_name[p], name, now.type);
		} else if (memcmp(&now, &rec.prog[p], sizeof(now))) {
			snprintf(why, sizeof(why),
				 "progs/%s is not the program recorded (%s)",
				 prog_name[p],
				 memcmp(now.tag, rec.prog[p].tag,
					sizeof(now.tag)) ?
					 "another tag" :
					 "other maps");
		}
		if (why[0])
			goto fresh;
	}
	err = tx_bss_adopt(d, dir, &rec.prog[DEV_PROG_TX]);
	if (err) {
		snprintf(why, sizeof(why), "maps/mrcd_tx_bss: %s",
			 strerror(-err));
		goto fresh;
	}
	memcpy(d->prog_fd, fd, sizeof(fd));
	d->reused = 1;
	log_info(
		"reusing the running programs of this build (%.12s...): mrc_xdp_rx id %u, mrc_xdp_tx id %u, mrc_xdp_ctl id %u, mrc_xdp_ack_tx id %u, mrc_tc_tx %s%u\n",
		dev_build_id(), prog_id(fd[DEV_PROG_RX]),
		prog_id(fd[DEV_PROG_TX]), prog_id(fd[DEV_PROG_CTL]),
		prog_id(fd[DEV_PROG_ACK]),
		fd[DEV_PROG_TC] >= 0 ? "id " : "loaded: none recorded ",
		prog_id(fd[DEV_PROG_TC]));
	return 0;
fresh:
	for (p = 0; p < DEV_NPROGS; p++)
		if (fd[p] >= 0)
			close(fd[p]);
	log_info(
		"loading the data path's programs afresh: the running ones are not reusable: %s\n",
		why);
	return 1;
}

/*
 * Pins the transmit program's .bss (reused, it is the pinned one
 * already) and writes the record of the programs now pinned.
 */
static int build_record_write(struct dev *d, const char *dir, int tc_fd)
{
	struct build_rec rec = { .magic = BUILD_MAGIC,
				 .version = BUILD_VERSION };
	uint32_t ids[BUILD_MAPS];
	char name[BPF_OBJ_NAME_LEN];
	int n, p, err = 0;

	if (!d->reused) {
		err = dev_pin_obj(bpf_map__fd(d->tx->maps.bss), dir, "maps",
				  "mrcd_tx_bss");
		if (err)
			return err;
	}
	snprintf(rec.id, sizeof(rec.id), "%s", dev_build_id());
	n = data_map_ids(d, ids, BUILD_MAPS);
	if (n < 0)
		return err_msg(n, "reading the ids of", "the device's maps");
	for (p = 0; p < DEV_NPROGS && !err; p++) {
		int pfd = p == DEV_PROG_TC ? tc_fd : d->prog_fd[p];

		if (pfd >= 0)
			err = prog_describe(pfd, ids, n, &rec.prog[p], name);
		if (err)
			return err_msg(err, "describing", prog_name[p]);
	}
	return rec_put(dir, "mrcd_build", &rec, sizeof(rec));
}

/*
 * A device without a record only costs the next mrcd a fresh load:
 * never a reason to stop this one.
 */
static void build_record(struct dev *d, const char *dir, int tc_fd)
{
	if (build_record_write(d, dir, tc_fd)) {
		dev_pin_del(dir, "maps", "mrcd_build");
		log_info(
			"no record of the programs (see above): the next mrcd loads its own\n");
	}
}

int dev_take_tc(struct dev *d)
{
	int fd = d->prog_fd[DEV_PROG_TC];

	d->prog_fd[DEV_PROG_TC] = -1;
	return fd;
}

static int dev_load(struct dev *d, const char *adopt_dir)
{
	int err, p;

	memset(d, 0, sizeof(*d));
	for (p = 0; p < DEV_NPROGS; p++)
		d->prog_fd[p] = -1;
	d->rx = mrc_xdp_rx__open();
	if (!d->rx)
		return err_msg(-errno, "opening", "mrc_xdp_rx");
	d->tx = mrc_xdp_tx__open();
	if (!d->tx)
		return err_msg(-errno, "opening", "mrc_xdp_tx");
	d->ctl = mrc_xdp_ctl__open();
	if (!d->ctl)
		return err_msg(-errno, "opening", "mrc_xdp_ctl");
	d->ack_tx = mrc_xdp_ack_tx__open();
	if (!d->ack_tx)
		return err_msg(-errno, "opening", "mrc_xdp_ack_tx");
	if (adopt_dir) {
		err = reuse_pinned(d, adopt_dir);
		if (err)
			return err;
		if (!reuse_progs(d, adopt_dir))
			goto loaded;
	}
	err = mrc_xdp_rx__load(d->rx);
	if (err)
		return err_msg(err, "loading", "mrc_xdp_rx");
	err = share_maps(d, d->tx->obj);
	if (err)
		return err;
	err = mrc_xdp_tx__load(d->tx);
	if (err)
		return err_msg(err, "loading", "mrc_xdp_tx");
	err = share_maps(d, d->ctl->obj);
	if (err)
		return err;
	err = mrc_xdp_ctl__load(d->ctl);
	if (err)
		return err_msg(err, "loading", "mrc_xdp_ctl");
	err = share_maps(d, d->ack_tx->obj);
	if (err)
		return err;
	err = mrc_xdp_ack_tx__load(d->ack_tx);
	if (err)
		return err_msg(err, "loading", "mrc_xdp_ack_tx");
	d->prog_fd[DEV_PROG_RX] = bpf_program__fd(d->rx->progs.mrc_xdp_rx);
	d->prog_fd[DEV_PROG_TX] = bpf_program__fd(d->tx->progs.mrc_xdp_tx);
	d->prog_fd[DEV_PROG_CTL] = bpf_program__fd(d->ctl->progs.mrc_xdp_ctl);
	d->prog_fd[DEV_PROG_ACK] =
		bpf_program__fd(d->ack_tx->progs.mrc_xdp_ack_tx);
loaded:
	if (getrandom(&d->next_rkey_rand, sizeof(d->next_rkey_rand), 0) < 0)
		return err_msg(-errno, "getrandom", NULL);
	return 0;
}

int dev_ack_clock(struct dev *d, int on)
{
	int fd = bpf_map__fd(d->rx->maps.mrc_ack_clock);
	int pfd = d->prog_fd[DEV_PROG_ACK];
	uint32_t key = 0;

	if (!on) {
		if (bpf_map_delete_elem(fd, &key) && errno != ENOENT)
			return err_msg(-errno, "emptying", "mrc_ack_clock");
		return 0;
	}
	if (bpf_map_update_elem(fd, &key, &pfd, BPF_ANY))
		return err_msg(-errno, "setting", "mrc_ack_clock");
	return 0;
}

/* Attaches prog to the raw tracepoint tp and pins its link as
 * progs/name: attached from then on, whatever becomes of this mrcd. */
static int pump_hook(struct bpf_program *prog, const char *tp, const char *dir,
		     const char *name)
{
	struct bpf_link *link = bpf_program__attach_raw_tracepoint(prog, tp);
	int err;

	if (!link)
		return err_msg(-errno, "attaching", name);
	/* Pinned, the link stays when this mrcd's fds close. */
	err = dev_pin_prog(bpf_link__fd(link), dir, name);
	bpf_link__destroy(link);
	return err;
}

static int pump_set(struct dev *d, const struct mrc_pump *pump)
{
	uint32_t key = 0;

	if (bpf_map_update_elem(bpf_map__fd(d->rx->maps.mrc_pump), &key, pump,
				BPF_ANY))
		return err_msg(-errno, "setting", "mrc_pump");
	return 0;
}

/*
 * The pump's watch an mrcd of this build left: the record it wrote once
 * its watch was attached (this build's id, the four programs' ids), the
 * claim and leave programs pinned as recorded, and each pinned link
 * running the recorded program. Anything else: 1 (load afresh).
 */
#define PUMP_REC_MAGIC 0x4d524350u /* "MRCP" */
enum { PUMP_CLAIM, PUMP_LEAVE, PUMP_KILL, PUMP_EXIT, PUMP_NPROGS };
static const char *const pump_pin[PUMP_NPROGS] = {
	"mrc_pump_claim", "mrc_pump_leave", "mrc_pump_kill", "mrc_pump_exit"
};

struct pump_rec {
	uint32_t magic;
	uint32_t prog_id[PUMP_NPROGS];
	char id[BUILD_ID_LEN]; /* dev_build_id() */
};

static uint32_t link_prog_id(int fd)
{
	struct bpf_link_info info = {};
	uint32_t len = sizeof(info);

	return bpf_obj_get_info_by_fd(fd, &info, &len) ? 0 : info.prog_id;
}

static int pump_reuse(struct dev *d, const char *dir)
{
	int fd[PUMP_NPROGS] = { -1, -1, -1, -1 }, rfd, i, ok;
	uint32_t key = 0, id;
	struct pump_rec rec;

	rfd = rec_get(dir, "mrcd_pump_rec", sizeof(rec));
	if (rfd < 0)
		return 1;
	ok = !bpf_map_lookup_elem(rfd, &key, &rec) &&
	     rec.magic == PUMP_REC_MAGIC;
	close(rfd);
	rec.id[BUILD_ID_LEN - 1] = 0;
	if (!ok || strcmp(rec.id, dev_build_id()))
		return 1;
	/* The claim and leave programs are kept; the links only looked at. */
	for (i = 0; i < PUMP_NPROGS && ok; i++) {
		fd[i] = dev_pin_get(dir, "progs", pump_pin[i]);
		id = fd[i] < 0	     ? 0 :
		     i <= PUMP_LEAVE ? prog_id(fd[i]) :
				       link_prog_id(fd[i]);
		ok = id && id == rec.prog_id[i];
		if (i > PUMP_LEAVE && fd[i] >= 0)
			close(fd[i]);
	}
	if (!ok) {
		for (i = 0; i <= PUMP_LEAVE; i++)
			if (fd[i] >= 0)
				close(fd[i]);
		return 1;
	}
	d->pump_claim_fd = fd[PUMP_CLAIM];
	d->pump_leave_fd = fd[PUMP_LEAVE];
	d->pump_reused = 1;
	log_info(
		"reusing the pump's watch of this build: mrc_pump_claim id %u, mrc_pump_kill link to id %u, mrc_pump_exit link to id %u\n",
		rec.prog_id[PUMP_CLAIM], rec.prog_id[PUMP_KILL],
		rec.prog_id[PUMP_EXIT]);
	return 0;
}

/* The claim and leave programs pinned, then the record that names them
 * and the links' programs: written last, so a record is never of pins
 * half made. */
static int pump_record(struct dev *d, const char *dir)
{
	struct pump_rec rec = { .magic = PUMP_REC_MAGIC };
	int err;

	snprintf(rec.id, sizeof(rec.id), "%s", dev_build_id());
	rec.prog_id[PUMP_CLAIM] = prog_id(d->pump_claim_fd);
	rec.prog_id[PUMP_LEAVE] = prog_id(d->pump_leave_fd);
	rec.prog_id[PUMP_KILL] =
		prog_id(bpf_program__fd(d->pump->progs.mrc_pump_kill));
	rec.prog_id[PUMP_EXIT] =
		prog_id(bpf_program__fd(d->pump->progs.mrc_pump_exit));
	err = dev_pin_prog(d->pump_claim_fd, dir, pump_pin[PUMP_CLAIM]) ?:
		      dev_pin_prog(d->pump_leave_fd, dir, pump_pin[PUMP_LEAVE]);
	return err ?: rec_put(dir, "mrcd_pump_rec", &rec, sizeof(rec));
}

int dev_pump_watch(struct dev *d, const char *dir)
{
	/* A fallback only: getpid() is this PID namespace's. */
	const struct mrc_pump pump = { .tgid = (uint32_t)getpid() };
	LIBBPF_OPTS(bpf_test_run_opts, o);
	int err = 0;

	d->pump_claim_fd = d->pump_leave_fd = -1;
	if (d->reused && !pump_reuse(d, dir))
		goto claim;
	/* No record while the pins change: a start cut short here leaves
	 * the next mrcd to load its own. */
	dev_pin_del(dir, "maps", "mrcd_pump_rec");
	d->pump = mrc_pump_gone__open();
	if (!d->pump)
		return pump_set(d, &pump) ?:
			       err_msg(-errno, "opening", "mrc_pump_gone");
	err = share_maps(d, d->pump->obj);
	if (!err) {
		err = mrc_pump_gone__load(d->pump);
		if (err)
			err_msg(err, "loading", "mrc_pump_gone");
	}
	if (!err) {
		d->pump_claim_fd =
			bpf_program__fd(d->pump->progs.mrc_pump_claim);
		d->pump_leave_fd =
			bpf_program__fd(d->pump->progs.mrc_pump_leave);
	}
claim:
	/* Pumped again, watched or not: named by the data path itself. */
	if (!err && bpf_prog_test_run_opts(d->pump_claim_fd, &o))
		err = err_msg(-errno, "running", "mrc_pump_claim");
	d->pump_claimed = !err;
	if (err && pump_set(d, &pump))
		err = -EIO;
	if (d->pump_reused || err)
		return err;
	err = pump_hook(d->pump->progs.mrc_pump_kill, "signal_generate", dir,
			"mrc_pump_kill");
	if (!err)
		err = pump_hook(d->pump->progs.mrc_pump_exit,
				"sched_process_exit", dir, "mrc_pump_exit");
	/* Without a record the next mrcd loads its own: no reason to stop. */
	if (!err && pump_record(d, dir)) {
		dev_pin_del(dir, "maps", "mrcd_pump_rec");
		log_info(
			"no record of the pump's watch (see above): the next mrcd loads its own\n");
	}
	return err;
}

int dev_pump_gone(struct dev *d)
{
	struct mrc_pump pump;
	uint32_t key = 0;
	LIBBPF_OPTS(bpf_test_run_opts, o);

	/*
	 * Claimed (dev_pump_watch): the data path marks, as at a death (the
	 * pump's tgid is the one the claim wrote, which getpid() is not in a
	 * PID namespace). The caller's loads after it, of the queues it
	 * marked, must not pass its stores.
	 */
	if (d->pump_claimed) {
		if (bpf_prog_test_run_opts(d->pump_leave_fd, &o))
			return err_msg(-errno, "running", "mrc_pump_leave");
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		return 0;
	}
	if (bpf_map_lookup_elem(bpf_map__fd(d->rx->maps.mrc_pump), &key, &pump))
		return err_msg(-errno, "reading", "mrc_pump");
	pump.gone = 1;
	pump.gone_ns = now_ns();
	return pump_set(d, &pump);
}

int dev_open(struct dev *d)
{
	return dev_load(d, NULL);
}

int dev_open_pinned(struct dev *d, const char *dir)
{
	return dev_load(d, dir);
}

static int if_mac(const char *ifname, uint8_t mac[6])
{
	struct ifreq ifr = {};
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), err = 0;

	if (fd < 0)
		return -errno;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	if (ioctl(fd, SIOCGIFHWADDR, &ifr))
		err = -errno;
	else
		memcpy(mac, ifr.ifr_hwaddr.sa_data, 6);
	close(fd);
	return err;
}

int dev_link_state(const char *ifname, uint32_t *mtu, int *up)
{
	struct ifreq ifr = {};
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), err = 0;

	*mtu = 0;
	*up = 0;
	if (fd < 0)
		return -errno;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	if (ioctl(fd, SIOCGIFMTU, &ifr))
		err = -errno;
	else
		*mtu = (uint32_t)ifr.ifr_mtu;
	if (!err && ioctl(fd, SIOCGIFFLAGS, &ifr))
		err = -errno;
	else if (!err)
		*up = (ifr.ifr_flags & IFF_UP) && (ifr.ifr_flags & IFF_RUNNING);
	close(fd);
	return err;
}

/* The interface's first global address of the family, 16 bytes. */
static int if_addr(const char *ifname, int v6, uint8_t addr[16])
{
	struct ifaddrs *ifa, *i;
	int err = -EADDRNOTAVAIL;

	if (getifaddrs(&ifa))
		return -errno;
	for (i = ifa; i; i = i->ifa_next) {
		if (!i->ifa_addr || strcmp(i->ifa_name, ifname))
			continue;
		if (!v6 && i->ifa_addr->sa_family == AF_INET) {
			memcpy(addr,
			       &((struct sockaddr_in *)i->ifa_addr)->sin_addr,
			       4);
			err = 0;
			break;
		}
		if (v6 && i->ifa_addr->sa_family == AF_INET6) {
			struct in6_addr *a =
				&((struct sockaddr_in6 *)i->ifa_addr)->sin6_addr;

			if (IN6_IS_ADDR_LINKLOCAL(a))
				continue;
			memcpy(addr, a, 16);
			err = 0;
			break;
		}
	}
	freeifaddrs(ifa);
	return err;
}

int dev_add_port(struct dev *d, int port, const char *ifname,
		 const uint8_t dmac[6], int v6)
{
	struct mrc_port p = { .v6 = v6 };
	/* No egress program: one a dead capture left there goes too. */
	struct bpf_devmap_val tx = {};
	uint32_t key = port, ifindex;
	int err;

	if (port < 0 || port >= MRC_MAX_PORTS)
		return err_msg(-EINVAL, "port index out of range for", ifname);
	ifindex = if_nametoindex(ifname);
	if (!ifindex)
		return err_msg(-errno, "no interface", ifname);
	err = if_mac(ifname, p.smac);
	if (err)
		return err_msg(err, "reading the MAC address of", ifname);
	err = if_addr(ifname, v6, p.saddr);
	if (err)
		return err_msg(err, "no address on", ifname);
	memcpy(p.dmac, dmac, 6);
	p.ifindex = ifindex;
	tx.ifindex = ifindex;
	if (bpf_map_update_elem(bpf_map__fd(d->rx->maps.mrc_port), &key, &p,
				BPF_ANY) ||
	    bpf_map_update_elem(bpf_map__fd(d->rx->maps.mrc_tx_port), &key, &tx,
				BPF_ANY))
		return err_msg(-errno, "port maps for", ifname);
	err = bpf_xdp_attach(ifindex, d->prog_fd[DEV_PROG_RX],
			     XDP_FLAGS_DRV_MODE, NULL);
	if (err)
		return err_msg(err, "attaching XDP to", ifname);
	snprintf(d->port[port].ifname, sizeof(d->port[port].ifname), "%s",
		 ifname);
	d->port[port].ifindex = ifindex;
	d->port[port].attached = 1;
	if (port >= d->nports)
		d->nports = port + 1;
	return 0;
}

int dev_set_anchor(struct dev *d, const char *ifname)
{
	int ifindex = if_nametoindex(ifname), err;

	if (!ifindex)
		return err_msg(-errno, "no interface", ifname);
	err = bpf_xdp_attach(ifindex, d->prog_fd[DEV_PROG_TX],
			     XDP_FLAGS_DRV_MODE, NULL);
	if (err)
		return err_msg(err, "attaching the transmit program to",
			       ifname);
	d->anchor_ifindex = ifindex;
	return 0;
}

int dev_check_live_frame(struct dev *d, const char *ifname)
{
	int ifindex = if_nametoindex(ifname), err;

	if (!ifindex)
		return err_msg(-errno, "no interface", ifname);
	/*
	 * One live frame of the size every transmit call passes, for QP 0
	 * (never handed out: nothing sent, one tx_idle), with ifname as the
	 * frame's ingress, as the anchor will be.
	 */
	d->anchor_ifindex = ifindex;
	err = dev_tx_burst(d, 0, 1, 0, 1);
	d->anchor_ifindex = 0;
	if (err < 0) {
		log_info("a live frame of %u bytes on %s: %s\n",
			 DEV_LIVE_FRAME_MAX, ifname, strerror(-err));
		return err;
	}
	return 0;
}

void dev_close(struct dev *d)
{
	int i;

	for (i = 0; i < d->nports; i++)
		if (d->port[i].attached)
			bpf_xdp_detach(d->port[i].ifindex, XDP_FLAGS_DRV_MODE,
				       NULL);
	if (d->anchor_ifindex)
		bpf_xdp_detach(d->anchor_ifindex, XDP_FLAGS_DRV_MODE, NULL);
	dev_release(d);
}

void dev_release(struct dev *d)
{
	int p;

	/* Reused, the fds are the pins' (a skeleton's close with it). */
	for (p = 0; p < DEV_NPROGS; p++)
		if (d->prog_fd[p] >= 0 && (d->reused || p == DEV_PROG_TC))
			close(d->prog_fd[p]);
	if (d->pump_reused) {
		close(d->pump_claim_fd);
		close(d->pump_leave_fd);
	}
	if (d->tx_skb) {
		close(d->db_fd);
		close(d->emit_fd);
	}
	mrc_pump_gone__destroy(d->pump);
	mrc_xdp_ctl__destroy(d->ctl);
	mrc_xdp_ack_tx__destroy(d->ack_tx);
	mrc_xdp_tx__destroy(d->tx);
	mrc_xdp_rx__destroy(d->rx);
	memset(d, 0, sizeof(*d));
	for (p = 0; p < DEV_NPROGS; p++)
		d->prog_fd[p] = -1;
}

/* Entry key of map m into val: 0 or -errno. */
static int map_get(const struct bpf_map *m, uint32_t key, void *val)
{
	return bpf_map_lookup_elem(bpf_map__fd(m), &key, val) ? -errno : 0;
}

int dev_has(const struct dev *d, enum dev_obj kind, uint32_t idx)
{
	uint32_t id;

	if (!d->rx)
		return 0;
	return !map_get(kind == DEV_SQ ? d->rx->maps.mrc_sq :
			kind == DEV_MR ? d->rx->maps.mrc_mr :
					 d->rx->maps.mrc_cq,
			idx, &id);
}

int dev_has_all(const struct dev *d, enum dev_obj kind, uint8_t *has,
		uint32_t n)
{
	LIBBPF_OPTS(bpf_map_batch_opts, bo);
	uint32_t *keys, *ids, count = n, i, out;
	const struct bpf_map *m;
	int err = 0;

	memset(has, 0, n);
	if (!d->rx)
		return 0;
	m = kind == DEV_SQ ? d->rx->maps.mrc_sq :
	    kind == DEV_MR ? d->rx->maps.mrc_mr :
			     d->rx->maps.mrc_cq;
	if (n > bpf_map__max_entries(m))
		return -EINVAL;
	keys = calloc(n, sizeof(*keys));
	ids = calloc(n, sizeof(*ids));
	/* Empty slots are skipped; the end of the map is ENOENT. */
	if (!keys || !ids ||
	    (bpf_map_lookup_batch(bpf_map__fd(m), NULL, &out, keys, ids, &count,
				  &bo) &&
	     errno != ENOENT)) {
		/* Without batches (an older kernel): one at a time. */
		for (i = 0; i < n; i++)
			has[i] = (uint8_t)dev_has(d, kind, i);
		goto out;
	}
	for (i = 0; i < count && i < n; i++)
		if (keys[i] < n)
			has[keys[i]] = 1;
out:
	free(keys);
	free(ids);
	return err;
}

int dev_port_get(const struct dev *d, uint32_t p, struct mrc_port *port)
{
	return d->rx ? map_get(d->rx->maps.mrc_port, p, port) : -ENODEV;
}

int dev_mr_info(const struct dev *d, uint32_t idx, struct mrc_mr_info *info)
{
	return d->rx ? map_get(d->rx->maps.mrc_mr_info, idx, info) : -ENODEV;
}

int dev_map_fd(const struct dev *d, enum dev_map which)
{
	const struct bpf_map *m = NULL;

	if (!d->rx)
		return -1;
	switch (which) {
	case DEV_MAP_WAKE:
		m = d->rx->maps.mrc_wake;
		break;
	case DEV_MAP_EV_STATS:
		m = d->rx->maps.mrc_ev_stats;
		break;
	case DEV_MAP_PROBE_ARM:
		m = d->rx->maps.mrc_probe_arm;
		break;
	case DEV_MAP_EV_EVENTS:
		m = d->rx->maps.mrc_ev_events;
		break;
	}
	return m ? bpf_map__fd(m) : -1;
}

/* One command of the control program; the QP view after it, if v. */
static int dp_cmd(struct dev *d, struct mrc_dp_cmd *c, struct mrc_qp_view *v)
{
	/* XDP takes a frame of an Ethernet header at least: padded. */
	struct {
		struct mrc_dp_cmd c;
		struct mrc_qp_view v;
	} in = { .c = *c }, out;

	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = &in,
		    .data_size_in = v ? sizeof(in) : 64, .data_out = &out,
		    .data_size_out = sizeof(out));
	_Static_assert(sizeof(struct mrc_dp_cmd) <= 64, "a command fits");
	in.c.magic = MRC_DP_MAGIC;
	if (bpf_prog_test_run_opts(d->prog_fd[DEV_PROG_CTL], &o))
		return -errno;
	if (o.retval != XDP_PASS || o.data_size_out < sizeof(out.c))
		return -EIO;
	if (out.c.result)
		return -(int)out.c.result;
	if (v) {
		if (o.data_size_out < sizeof(out))
			return -EIO;
		*v = out.v;
	}
	return 0;
}

int dev_ev_cmd(struct dev *d, uint32_t op, uint32_t qpn, uint32_t ev_idx,
	       uint32_t reason)
{
	struct mrc_dp_cmd c = {
		.op = op, .qpn = qpn, .ev_idx = ev_idx, .reason = reason
	};

	return dp_cmd(d, &c, NULL);
}

int dev_qp_view(struct dev *d, uint32_t qpn, struct mrc_qp_view *v)
{
	struct mrc_dp_cmd c = { .op = MRC_DP_QP_READ, .qpn = qpn };

	return dp_cmd(d, &c, v);
}

static int add_inner(struct bpf_map *outer, uint32_t key, int fd)
{
	return bpf_map_update_elem(bpf_map__fd(outer), &key, &fd, BPF_ANY) ?
		       -errno :
		       0;
}

int dev_mr_create(struct dev *d, uint32_t idx, uint64_t len, uint32_t pd,
		  uint64_t va, uint32_t head, struct dev_mr *mr)
{
	LIBBPF_OPTS(bpf_map_create_opts, mm,
		    .map_flags = BPF_F_MMAPABLE | BPF_F_INNER_MAP);
	uint32_t chunks = (len + MRC_MR_CHUNK - 1) / MRC_MR_CHUNK;
	struct mrc_mr_info info = { .pd = pd,
				    .va = va,
				    .len = len,
				    .access = 2 /* IBV_ACCESS_REMOTE_WRITE */,
				    .head = head };
	int err;

	memset(mr, 0, sizeof(*mr));
	mr->fd = -1;
	if (idx >= MRC_MAX_MR || !len || !chunks || head >= len ||
	    len > (uint64_t)MRC_MR_CHUNK * 65536)
		return err_msg(-EINVAL, "memory region size or index", NULL);
	mr->fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "mrc_mr", 4, MRC_MR_ELEM,
				chunks, &mm);
	if (mr->fd < 0) {
		err = -errno;
		mr->fd = -1;
		return err_msg(err, "creating a memory region map", NULL);
	}
	mr->map_len = (size_t)chunks * MRC_MR_ELEM;
	mr->map = mmap(NULL, mr->map_len, PROT_READ | PROT_WRITE, MAP_SHARED,
		       mr->fd, 0);
	if (mr->map == MAP_FAILED) {
		err = -errno;
		mr->map = NULL;
		dev_mr_destroy(mr);
		return err_msg(err, "mapping a memory region", NULL);
	}
	err = add_inner(d->rx->maps.mrc_mr, idx, mr->fd);
	if (err) {
		dev_mr_destroy(mr);
		return err_msg(err, "adding a memory region", NULL);
	}
	d->next_rkey_rand = d->next_rkey_rand * 1103515245 + 12345;
	info.rkey = (d->next_rkey_rand << MRC_RKEY_INDEX_BITS) | idx;
	if (!(info.rkey >> MRC_RKEY_INDEX_BITS))
		info.rkey |= 1u << MRC_RKEY_INDEX_BITS; /* never 0 */
	if (bpf_map_update_elem(bpf_map__fd(d->rx->maps.mrc_mr_info), &idx,
				&info, BPF_ANY)) {
		err = -errno;
		dev_mr_remove(d, idx);
		dev_mr_destroy(mr);
		return err_msg(err, "describing a memory region", NULL);
	}
	mr->idx = idx;
	mr->key = info.rkey;
	mr->len = len;
	return 0;
}

uint8_t *dev_mr_at(const struct dev_mr *mr, uint64_t off)
{
	return mr->map + (off / MRC_MR_CHUNK) * MRC_MR_ELEM +
	       off % MRC_MR_CHUNK;
}

void dev_mr_remove(struct dev *d, uint32_t idx)
{
	struct mrc_mr_info none = {};

	bpf_map_update_elem(bpf_map__fd(d->rx->maps.mrc_mr_info), &idx, &none,
			    BPF_ANY);
	bpf_map_delete_elem(bpf_map__fd(d->rx->maps.mrc_mr), &idx);
}

void dev_mr_destroy(struct dev_mr *mr)
{
	if (mr->map)
		munmap(mr->map, mr->map_len);
	if (mr->fd >= 0)
		close(mr->fd);
	mr->map = NULL;
	mr->fd = -1;
}

static int cq_sample(void *ctx, void *data, size_t len)
{
	struct dev_cq *cq = ctx;

	if (len != sizeof(struct mrc_cqe))
		return 0; /* not a completion: skipped, never stops the read */
	if (cq->nout < cq->max) {
		memcpy(&cq->out[cq->nout++], data, len);
		return 0;
	}
	if (cq->nstash == cq->stash_cap) {
		size_t cap = cq->stash_cap ? 2 * cq->stash_cap : 256;
		struct mrc_cqe *s = realloc(cq->stash, cap * sizeof(*s));

		if (!s)
			return -ENOMEM; /* the record is lost: said by the error */
		cq->stash = s;
		cq->stash_cap = cap;
	}
	memcpy(&cq->stash[cq->nstash++], data, len);
	return 0;
}

/* CQ idx's notify word, MRC_CQ_POLLED: its fd or -errno. */
static int cq_notify_map(struct dev *d, uint32_t idx)
{
	LIBBPF_OPTS(bpf_map_create_opts, mm, .map_flags = BPF_F_MMAPABLE);
	int fd, err;

	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "mrc_cq_notify", 4, 4, 1, &mm);
	if (fd < 0)
		return err_msg(-errno, "creating a CQ's notify word", NULL);
	err = add_inner(d->rx->maps.mrc_cq_notify, idx, fd);
	if (err) {
		close(fd);
		return err_msg(err, "adding a CQ's notify word", NULL);
	}
	return fd;
}

int dev_cq_map(struct dev *d, uint32_t idx, int *notify_fd)
{
	int fd, err;

	if (idx >= MRC_MAX_CQ)
		return -EINVAL;
	/* No word the slot's last CQ left applies to this one. */
	bpf_map_delete_elem(bpf_map__fd(d->rx->maps.mrc_cq_notify), &idx);
	if (notify_fd) {
		*notify_fd = cq_notify_map(d, idx);
		if (*notify_fd < 0)
			return *notify_fd;
	}
	fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "mrc_cq", 0, 0,
			    MRC_CQ_RING_BYTES, NULL);
	if (fd < 0) {
		err = err_msg(-errno, "creating a completion ring", NULL);
		goto fail;
	}
	err = add_inner(d->rx->maps.mrc_cq, idx, fd);
	if (err) {
		close(fd);
		err = err_msg(err, "adding a completion ring", NULL);
		goto fail;
	}
	return fd;
fail:
	if (notify_fd) {
		bpf_map_delete_elem(bpf_map__fd(d->rx->maps.mrc_cq_notify),
				    &idx);
		close(*notify_fd);
		*notify_fd = -1;
	}
	return err;
}

void dev_cq_remove(struct dev *d, uint32_t idx)
{
	bpf_map_delete_elem(bpf_map__fd(d->rx->maps.mrc_cq), &idx);
	bpf_map_delete_elem(bpf_map__fd(d->rx->maps.mrc_cq_notify), &idx);
}

int dev_cq_create(struct dev *d, uint32_t idx, struct dev_cq *cq)
{
	int fd, err = 0;

	memset(cq, 0, sizeof(*cq));
	fd = dev_cq_map(d, idx, NULL);
	if (fd < 0)
		return fd;
	cq->rb = ring_buffer__new(fd, cq_sample, cq, NULL);
	if (!cq->rb)
		err = -errno;
	close(fd);
	if (err)
		return err_msg(err, "setting up a completion queue", NULL);
	cq->idx = idx;
	return 0;
}

int dev_cq_poll(struct dev_cq *cq, struct mrc_cqe *out, int max)
{
	size_t lim = max > 0 ? (size_t)max : 0;
	size_t n = cq->nstash < lim ? cq->nstash : lim;
	int err;

	/* What an earlier poll read past its max comes first, in order. */
	if (n) {
		memcpy(out, cq->stash, n * sizeof(*out));
		memmove(cq->stash, cq->stash + n,
			(cq->nstash - n) * sizeof(*out));
		cq->nstash -= n;
	}
	cq->out = out;
	cq->max = max;
	cq->nout = (int)n;
	err = ring_buffer__consume(cq->rb);
	return err < 0 && !cq->nout ? err : cq->nout;
}

void dev_cq_destroy(struct dev_cq *cq)
{
	ring_buffer__free(cq->rb);
	cq->rb = NULL;
	free(cq->stash);
	cq->stash = NULL;
	cq->nstash = cq->stash_cap = 0;
}

/* Fresh send queue maps put in at once, one grace period for them all. */
#define SQ_REFRESH_BATCH 64u

/*
 * Fresh maps in stale slots from qpn on (QP numbers are taken lowest
 * first), in one batch update of mrc_sq: as many as keep the FRESH ones
 * at most SQ_REFRESH_BATCH (each holds an fd), and qpn's at least. A slot
 * in use is never touched. 0 or -errno; the slots it filled are FRESH.
 */
static int sq_refresh(struct dev *d, uint32_t qpn)
{
	LIBBPF_OPTS(bpf_map_create_opts, mm, .map_flags = BPF_F_MMAPABLE);
	LIBBPF_OPTS(bpf_map_batch_opts, bo);
	uint32_t keys[SQ_REFRESH_BATCH], n = 0, done, k, max = 1;
	int fds[SQ_REFRESH_BATCH], err = 0;

	if (d->sq_nfresh + 1 < SQ_REFRESH_BATCH)
		max = SQ_REFRESH_BATCH - d->sq_nfresh;
	for (k = qpn; k < MRC_MAX_QP && n < max; k++) {
		if (d->sq_slot[k] != DEV_SQ_STALE)
			continue;
		fds[n] = bpf_map_create(BPF_MAP_TYPE_ARRAY, "mrc_sq", 4,
					sizeof(struct mrc_sq), 1, &mm);
		if (fds[n] < 0) {
			err = -errno;
			break;
		}
		keys[n++] = k;
	}
	done = n;
	if (n && bpf_map_update_batch(bpf_map__fd(d->rx->maps.mrc_sq), keys,
				      fds, &done, &bo)) {
		err = -errno;
		/* Without batches (an older kernel): the one asked for. */
		done = keys[0] == qpn &&
		       !add_inner(d->rx->maps.mrc_sq, qpn, fds[0]);
	}
	/* mrc_sq holds the maps now: no fd is kept open for them. */
	for (k = 0; k < n; k++) {
		if (k < done) {
			d->sq_slot[keys[k]] = DEV_SQ_FRESH;
			d->sq_nfresh++;
		}
		close(fds[k]);
	}
	return done ? 0 : err;
}

int dev_sq_create(struct dev *d, uint32_t qpn, struct mrc_sq **sq, int *fdp)
{
	uint32_t id;
	int fd = -1, err = 0;

	*sq = NULL;
	if (qpn >= MRC_MAX_QP)
		return -EINVAL;
	if (d->sq_slot[qpn] == DEV_SQ_STALE)
		err = sq_refresh(d, qpn);
	if (!err && d->sq_slot[qpn] != DEV_SQ_FRESH)
		err = d->sq_slot[qpn] == DEV_SQ_USED ? -EBUSY : -ENOMEM;
	/* The fresh map, by the id mrc_sq holds (mrcd is CAP_SYS_ADMIN). */
	if (!err) {
		err = map_get(d->rx->maps.mrc_sq, qpn, &id);
		fd = err ? -1 : bpf_map_get_fd_by_id(id);
		if (!err && fd < 0)
			err = -errno;
	}
	if (err)
		return err_msg(err, "setting up a send queue", NULL);
	*sq = mmap(NULL, sizeof(struct mrc_sq), PROT_READ | PROT_WRITE,
		   MAP_SHARED, fd, 0);
	if (*sq == MAP_FAILED) {
		/* Still fresh: nobody has it mapped. */
		err = -errno;
		*sq = NULL;
		close(fd);
		return err_msg(err, "mapping a send queue", NULL);
	}
	d->sq_slot[qpn] = DEV_SQ_USED;
	d->sq_nfresh--;
	if (fdp)
		*fdp = fd;
	else
		close(fd);
	return 0;
}

void dev_sq_adopt(struct dev *d, uint32_t qpn)
{
	if (qpn < MRC_MAX_QP && d->sq_slot[qpn] != DEV_SQ_USED) {
		if (d->sq_slot[qpn] == DEV_SQ_FRESH)
			d->sq_nfresh--;
		d->sq_slot[qpn] = DEV_SQ_USED;
	}
}

/*
 * QP a->qpn's SRv6 routes (none for another QP: a QP number used again
 * keeps no routes of the last), and their blocks, which the receive
 * program takes IPv6-in-IPv6 to as SRv6.
 */
static int qp_routes(struct dev *d, const struct dev_qp_attr *a)
{
	struct mrc_qp_srv6 *rs = calloc(1, sizeof(*rs));
	uint32_t key = a->qpn, i, p, one = 1, block;
	int err = 0;

	if (!rs)
		return -ENOMEM;
	for (i = 0; a->srv6 && i < a->nev && i < MRC_QP_EVS; i++) {
		p = a->ev_port[i];
		if (p >= MRC_MAX_PORTS) {
			err = -EINVAL;
			goto out;
		}
		rs->route[i] = a->route[i];
		rs->port[i] = (uint8_t)p;
		rs->by_port[p][rs->n_by_port[p]++] = (uint8_t)i;
		memcpy(&block, a->route[i].dst, MRC_SRV6_BLOCK_BYTES);
		if (bpf_map_update_elem(bpf_map__fd(d->rx->maps.mrc_srv6_block),
					&block, &one, BPF_ANY) &&
		    errno != E2BIG) {
			err = -errno;
			goto out;
		}
		rs->nroute = i + 1;
	}
	if (bpf_map_update_elem(bpf_map__fd(d->rx->maps.mrc_qp_srv6), &key, rs,
				BPF_ANY))
		err = -errno;
out:
	free(rs);
	return err;
}

int dev_qp_route(struct dev *d, uint32_t qpn, int idx, uint32_t p,
		 struct mrc_srv6_route *r)
{
	struct mrc_qp_srv6 *rs = calloc(1, sizeof(*rs));
	int err = -ENOENT;

	if (!rs)
		return -ENOMEM;
	if (qpn < MRC_MAX_QP &&
	    !bpf_map_lookup_elem(bpf_map__fd(d->rx->maps.mrc_qp_srv6), &qpn,
				 rs) &&
	    rs->nroute && rs->nroute <= MRC_QP_EVS) {
		if (idx < 0 && p < MRC_MAX_PORTS && rs->n_by_port[p])
			idx = rs->by_port[p][0];
		if (idx >= 0 && (uint32_t)idx < rs->nroute) {
			*r = rs->route[idx];
			err = 0;
		}
	}
	free(rs);
	return err;
}

int dev_qp_config(struct dev *d, const struct dev_qp_attr *a, uint32_t state,
		  int halves)
{
	struct mrc_qp_tx *qt = calloc(1, sizeof(*qt));
	struct mrc_qp_rx *qr = calloc(1, sizeof(*qr));
	uint32_t key = a->qpn, i;
	int err = 0;

	if (!qt || !qr) {
		err = -ENOMEM;
		goto out;
	}
	if (a->qpn >= MRC_MAX_QP || !d->nports || !a->nev ||
	    a->nev > MRC_QP_EVS || a->window > MRC_RX_WINDOW_MAX ||
	    a->mtu > MRC_MAX_PAYLOAD) {
		err = -EINVAL;
		goto out;
	}
	qr->state = state;
	qr->peer_qpn = a->peer_qpn;
	qr->pd = a->pd;
	qr->recv_cq = a->recv_cq;
	qr->window = a->window;
	qr->cum_psn = qr->cqe_psn = a->peer_first_psn;
	qr->ack_psn_hi = (a->peer_first_psn - 1) & MRC_BTH_PSN_MASK;
	qt->state = state == MRC_QPS_RTS ? MRC_QPS_RTS : MRC_QPS_RESET;
	qt->peer_qpn = a->peer_qpn;
	qt->send_cq = a->send_cq;
	qt->window = a->window_tx ? a->window_tx : a->window;
	qt->mtu = a->mtu;
	qt->nev = a->nev;
	qt->timeout_ns = a->timeout_ns;
	qt->retry_linear = a->retry_linear;
	qt->retry_exp = a->retry_exp;
	qt->max_wimm = a->max_wimm;
	qt->db_token = a->db_token;
	d->db_token[a->qpn] = a->db_token;
	qt->clock_no_mrcd_only = (__u8) !!d->tx_skb;
	/* Writing the send half resets it: nothing is in flight under an
	 * older key. */
	if (getrandom(&qt->echo_key, sizeof(qt->echo_key), 0) !=
	    sizeof(qt->echo_key)) {
		err = -errno;
		goto out;
	}
	qt->peer_v6 = a->v6;
	qt->srv6 = (uint8_t) !!a->srv6;
	for (i = 0; i < a->nev; i++) {
		if (a->evs_given && a->ev_port[i] >= d->nports) {
			err = -EINVAL;
			goto out;
		}
		qt->ev[i] = a->evs_given ? a->ev[i] : a->ev_base + i;
		qt->ev_fl[i] = a->evs_given ? a->ev_fl[i] : 0;
		qt->ev_port[i] = a->evs_given ? a->ev_port[i] : i % d->nports;
		evm_set(&qt->port_evs[qt->ev_port[i] % MRC_MAX_PORTS], i);
		qt->ev_state[i] = MRC_EV_GOOD;
	}
	evm_first(&qt->ev_use, a->nev);
	qt->ev_min_active = a->ev_min_active ? a->ev_min_active :
					       (a->nev + 7) / 8;
	qt->reorder_ns = a->reorder_ns ? a->reorder_ns : MRC_REORDER_NS_DEFAULT;
	qt->ack_every = (uint8_t)(!a->ack_every ? MRC_ACK_EVERY_DEFAULT :
				  a->ack_every > MRC_ACK_EVERY_MAX ?
						  MRC_ACK_EVERY_MAX :
						  a->ack_every);
	memcpy(qt->peer_addr, a->peer_addr, sizeof(qt->peer_addr));
	qt->next_psn = qt->una_psn = a->first_psn;
	if (a->cc_slot && a->cc_slot < MRC_CC_SLOTS) {
		qt->cc_slot = a->cc_slot;
		nscc_start(&qt->cc, &a->cc, now_ns(), qt->mtu);
	}
	/* Routes before either half: both answer and send by them. */
	err = qp_routes(d, a);
	if (err)
		goto out;
	/* The send side first: an ACK finds it before data is accepted. */
	if (((halves & DEV_QP_TX) &&
	     bpf_map_update_elem(bpf_map__fd(d->rx->maps.mrc_qp_tx), &key, qt,
				 BPF_ANY)) ||
	    ((halves & DEV_QP_RX) &&
	     bpf_map_update_elem(bpf_map__fd(d->rx->maps.mrc_qp), &key, qr,
				 BPF_ANY)))
		err = -errno;
out:
	free(qt);
	free(qr);
	return err ? err_msg(err, "configuring a queue pair", NULL) : 0;
}

int dev_cc_set(struct dev *d, uint32_t slot, const struct mrc_nscc_params *p)
{
	struct mrc_nscc_params none = {};

	if (!slot || slot >= MRC_CC_SLOTS)
		return -EINVAL;
	if (bpf_map_update_elem(bpf_map__fd(d->rx->maps.mrc_cc), &slot,
				p ? p : &none, BPF_ANY))
		return err_msg(-errno, "writing a CC profile", NULL);
	return 0;
}

/*
 * Only the state changes, under each half's lock in the control program:
 * a read and a write back would undo what the data path did in between.
 */
int dev_qp_set_state(struct dev *d, uint32_t qpn, uint32_t state)
{
	struct mrc_dp_cmd c = { .op = MRC_DP_QP_STATE,
				.qpn = qpn,
				.value = state };

	return dp_cmd(d, &c, NULL);
}

int dev_qp_set_window(struct dev *d, uint32_t qpn, uint32_t psns)
{
	struct mrc_dp_cmd c = { .op = MRC_DP_QP_WINDOW,
				.qpn = qpn,
				.value = psns };

	return dp_cmd(d, &c, NULL);
}

int dev_qp_set_rx_window(struct dev *d, uint32_t qpn, uint32_t psns)
{
	struct mrc_dp_cmd c = { .op = MRC_DP_QP_RX_WINDOW,
				.qpn = qpn,
				.value = psns };

	return dp_cmd(d, &c, NULL);
}

int dev_qp_create(struct dev *d, const struct dev_qp_attr *a,
		  struct mrc_sq **sq)
{
	int err = dev_sq_create(d, a->qpn, sq, NULL);

	if (err)
		return err;
	err = dev_qp_config(d, a, MRC_QPS_RTS, DEV_QP_RX | DEV_QP_TX);
	if (err) {
		dev_qp_destroy(d, a->qpn, *sq);
		*sq = NULL;
	}
	return err;
}

void dev_qp_clear(struct dev *d, uint32_t qpn)
{
	static struct mrc_qp_tx qt;
	static struct mrc_qp_rx qr;

	memset(&qt, 0, sizeof(qt));
	memset(&qr, 0, sizeof(qr));
	bpf_map_update_elem(bpf_map__fd(d->rx->maps.mrc_qp_tx), &qpn, &qt,
			    BPF_ANY);
	bpf_map_update_elem(bpf_map__fd(d->rx->maps.mrc_qp), &qpn, &qr,
			    BPF_ANY);
}

/*
 * The send queue map stays in mrc_sq, STALE: the application may still
 * have it mapped, but with both halves in RESET the data path reads
 * nothing of it, and dev_sq_create replaces it before the number is used
 * again (deleting it here would wait out a grace period of its own).
 */
void dev_qp_destroy(struct dev *d, uint32_t qpn, struct mrc_sq *sq)
{
	dev_qp_clear(d, qpn);
	if (qpn < MRC_MAX_QP) {
		if (d->sq_slot[qpn] == DEV_SQ_FRESH)
			d->sq_nfresh--;
		d->sq_slot[qpn] = DEV_SQ_STALE;
	}
	if (sq)
		munmap(sq, sizeof(*sq));
}

int dev_qp_tx_state(struct dev *d, uint32_t qpn, uint32_t *state, uint32_t *una,
		    uint32_t *next)
{
	struct mrc_qp_view v;
	int err = dev_qp_view(d, qpn, &v);

	if (err)
		return err;
	*state = v.state;
	*una = v.una_psn;
	*next = v.next_psn;
	return 0;
}

int dev_tx_stat(const struct dev *d, uint32_t key, uint64_t *sum)
{
	int ncpu = libbpf_num_possible_cpus(), i, err;

	if (!d->rx || ncpu <= 0)
		return -ENODEV;
	{
		uint64_t v[ncpu];

		err = map_get(d->rx->maps.mrc_tx_stats, key, v);
		if (err)
			return err;
		for (*sum = 0, i = 0; i < ncpu; i++)
			*sum += v[i];
	}
	return 0;
}

/* The calling thread's id, the program's test for its slot (abi.h). */
static uint32_t this_tid(void)
{
	static __thread uint32_t tid;

	if (!tid)
		tid = (uint32_t)gettid();
	return tid;
}

/*
 * One transmit call of up to runs runs for list k, in the slot of the CPU
 * this thread is on. Returns the runs of ours that read the list (0: the
 * thread moved to another CPU before the call began, or another thread
 * took the slot while this one was preempted), or -errno.
 */
static int tx_call(struct dev *d, uint32_t k, uint32_t runs)
{
	static __thread uint8_t frame[TX_FRAME_MAX + 1];
	struct xdp_md ctx = { .data_end = sizeof(frame),
			      .ingress_ifindex = d->anchor_ifindex };
	struct mrc_tx_list *l = &d->tx->bss->tx_list[k];
	uint32_t tid = this_tid(), runs0 = l->runs;
	struct mrc_tx_call *slot;
	int cpu = sched_getcpu(), err = 0;

	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = frame,
		    .data_size_in = sizeof(frame), .ctx_in = &ctx,
		    .ctx_size_in = sizeof(ctx), .repeat = runs,
		    .flags = BPF_F_TEST_XDP_LIVE_FRAMES);

	if (cpu < 0 || cpu >= MRC_TX_CALL_CPUS)
		return cpu < 0 ? -errno : -ERANGE;
	slot = &d->tx->bss->tx_call[cpu];
	/* The thread first: a run of another thread's call preempted on
	 * this CPU then stops there, before it could read our list as its. */
	__atomic_store_n(&slot->tid, tid, __ATOMIC_SEQ_CST);
	slot->list = k;
	if (bpf_prog_test_run_opts(d->prog_fd[DEV_PROG_TX], &o))
		err = -errno;
	/* Cleared, or a later run of ours on that CPU would serve this
	 * list; but only if still ours: another thread on this CPU may have
	 * taken it meanwhile. */
	__atomic_compare_exchange_n(&slot->tid, &tid, 0, 0, __ATOMIC_ACQ_REL,
				    __ATOMIC_ACQUIRE);
	if (err)
		return err;
	return (int)(__atomic_load_n(&l->runs, __ATOMIC_ACQUIRE) - runs0);
}

/* ---- transmit by skb, where live frames are refused -------------------- */

/* Doorbells a sendmmsg call carries. */
#define DEV_TX_SKB_BATCH 64

int dev_tx_by_skb(struct dev *d)
{
	int one = 1, err;

	if (d->tx_skb)
		return 0;
	/* An application's doorbell socket (lib/doorbell.c); and a doorbell
	 * mrc_tc_tx drops (the QP had nothing to send) fails its send with
	 * ENOBUFS (IP_RECVERR), not silently: what counts as sent made a
	 * packet. */
	d->db_fd = mrc_doorbell_socket();
	if (d->db_fd < 0)
		return err_msg(d->db_fd, "opening", "the doorbell socket");
	if (setsockopt(d->db_fd, IPPROTO_IP, IP_RECVERR, &one, sizeof(one))) {
		err = err_msg(-errno, "IP_RECVERR on", "the doorbell socket");
		close(d->db_fd);
		return err;
	}
	/* Protocol 0: it sends only, and receives nothing. */
	d->emit_fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (d->emit_fd < 0) {
		err = err_msg(-errno, "opening", "a packet socket");
		close(d->db_fd);
		return err;
	}
	d->tx_skb = 1;
	return 0;
}

void dev_qp_db_token(struct dev *d, uint32_t qpn, uint64_t token)
{
	if (qpn < MRC_MAX_QP)
		d->db_token[qpn] = token;
}

/*
 * Entry e's packets as doorbells, up to e->left of them: how many made a
 * packet (the first that found nothing to send ends it), or -errno.
 */
static int tx_doorbells(struct dev *d, struct mrc_tx_entry *e)
{
	/* Every datagram of the call is the same doorbell. */
	struct mrc_doorbell db = { .magic = htonl(MRC_DOORBELL_MAGIC),
				   .qpn = e->qpn };
	struct iovec iov = { &db, sizeof(db) };
	struct mmsghdr mm[DEV_TX_SKB_BATCH];
	uint32_t left = e->left, i, n;
	int sent = 0, r;

	db.token = e->qpn < MRC_MAX_QP ? d->db_token[e->qpn] : 0;
	if (!db.token)
		return -ENOKEY;
	memset(mm, 0, sizeof(mm));
	for (i = 0; i < DEV_TX_SKB_BATCH; i++) {
		mm[i].msg_hdr.msg_iov = &iov;
		mm[i].msg_hdr.msg_iovlen = 1;
	}
	while (left) {
		n = left < DEV_TX_SKB_BATCH ? left : DEV_TX_SKB_BATCH;
		r = sendmmsg(d->db_fd, mm, n, 0);
		if (r < 0 && errno != ENOBUFS)
			return sent ? sent : -errno;
		if (r < 0)
			r = 0; /* the first found nothing to send */
		sent += r;
		left -= (uint32_t)r;
		if ((uint32_t)r < n)
			break;
	}
	return sent;
}

static int tx_list_by_skb(struct dev *d, struct mrc_tx_entry *e, uint32_t n)
{
	uint32_t i;
	int r, calls = 0;

	for (i = 0; i < n; i++) {
		r = tx_doorbells(d, &e[i]);
		calls++;
		if (r < 0)
			return r;
		e[i].sent = (uint16_t)r;
	}
	return calls;
}

static int emit_by_skb(struct dev *d, uint32_t port, const void *frame,
		       uint32_t len)
{
	struct sockaddr_ll to = { .sll_family = AF_PACKET, .sll_halen = 6 };

	if (port >= (uint32_t)d->nports || len < 14)
		return -EINVAL;
	to.sll_ifindex = d->port[port].ifindex;
	memcpy(to.sll_addr, frame, 6);
	if (sendto(d->emit_fd, frame, len, 0, (const struct sockaddr *)&to,
		   sizeof(to)) != (ssize_t)len)
		return -errno;
	return 0;
}

int dev_tx_list(struct dev *d, uint32_t k, struct mrc_tx_entry *e, uint32_t n)
{
	struct mrc_tx_list *l;
	uint32_t i, runs;
	int tries = 0, calls = 0, got = 0;

	if (k >= MRC_TX_LISTS || n > MRC_TX_LIST_MAX)
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (!e[i].left)
			return -EINVAL;
	if (d->tx_skb)
		return tx_list_by_skb(d, e, n);
	l = &d->tx->bss->tx_list[k];
	for (i = 0; i < n; i++) {
		e[i].sent = 0;
		l->e[i] = e[i];
	}
	l->n = n;
	l->next = 0;
	/*
	 * Calls until every entry had its runs or gave them up. Each call's
	 * runs are those the entries from next have left, at most
	 * DEV_TX_CALL_RUNS: a call serving many QPs lasts no longer than
	 * one QP's full burst. A thread that moved sent nothing: again,
	 * from the CPU it is on now (a few times, then the caller's poll).
	 */
	while (l->next < n && tries < 4) {
		for (runs = 0, i = l->next; i < n && runs < DEV_TX_CALL_RUNS;
		     i++)
			runs += l->e[i].left;
		if (runs > DEV_TX_CALL_RUNS)
			runs = DEV_TX_CALL_RUNS;
		got = tx_call(d, k, runs);
		calls++;
		if (got < 0)
			break;
		if (!got)
			tries++;
	}
	for (i = 0; i < n; i++)
		e[i].sent = l->e[i].sent;
	return got < 0 ? got : calls;
}

int dev_tx_burst(struct dev *d, uint32_t qpn, uint32_t n, uint32_t lane,
		 uint32_t lanes)
{
	struct mrc_tx_entry e = { .qpn = qpn,
				  .left = (uint16_t)n,
				  .lane = (uint16_t)lane,
				  .lanes = (uint16_t)lanes };
	int err;

	if (!n || n > UINT16_MAX)
		return n ? -EINVAL : 0;
	err = dev_tx_list(d, 0, &e, 1);
	return err < 0 ? err : e.sent;
}

int dev_emit(struct dev *d, uint32_t port, const void *frame, uint32_t len)
{
	struct {
		struct mrc_dp_cmd c;
		uint8_t f[MRC_DP_FRAME_MAX];
	} in = {
		.c = { .magic = MRC_DP_MAGIC, .op = MRC_DP_EMIT, .value = port }
	};
	struct xdp_md ctx = { .data_end = (uint32_t)sizeof(in.c) + len,
			      .ingress_ifindex = d->anchor_ifindex };

	/* One live frame: with one, no run pays for the program's not
	 * being attached (DESIGN.md field notes). */
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = &in,
		    .data_size_in = (uint32_t)sizeof(in.c) + len,
		    .ctx_in = &ctx, .ctx_size_in = sizeof(ctx), .repeat = 1,
		    .flags = BPF_F_TEST_XDP_LIVE_FRAMES);

	if (len > MRC_DP_FRAME_MAX)
		return -EMSGSIZE;
	if (d->tx_skb)
		return emit_by_skb(d, port, frame, len);
	memcpy(in.f, frame, len);
	if (bpf_prog_test_run_opts(d->prog_fd[DEV_PROG_CTL], &o))
		return -errno;
	return 0;
}

/* The device in bpffs (pin.h): its maps, then its programs. */
int dev_pin(struct dev *d, const char *dir, int lowlat_fd, int maps)
{
	struct bpf_map *m;
	int err = 0;

	bpf_object__for_each_map(m, d->rx->obj)
	{
		if (!maps || bpf_map__is_internal(m))
			continue; /* .rodata, .bss: the program's own */
		err = dev_pin_obj(bpf_map__fd(m), dir, "maps",
				  bpf_map__name(m));
		if (err)
			return err;
	}
	err = dev_pin_prog(d->prog_fd[DEV_PROG_RX], dir, "mrc_xdp_rx");
	if (!err)
		err = dev_pin_prog(d->prog_fd[DEV_PROG_TX], dir, "mrc_xdp_tx");
	if (!err)
		err = dev_pin_prog(d->prog_fd[DEV_PROG_CTL], dir,
				   "mrc_xdp_ctl");
	if (!err)
		err = dev_pin_prog(d->prog_fd[DEV_PROG_ACK], dir,
				   "mrc_xdp_ack_tx");
	if (!err && lowlat_fd >= 0)
		err = dev_pin_prog(lowlat_fd, dir, "mrc_tc_tx");
	if (!err)
		build_record(d, dir, lowlat_fd);
	return err;
}
