// SPDX-License-Identifier: GPL-2.0
/*
 * Pinning the device in bpffs:
 *
 *   DIR/abi4/maps/mrc_qp_tx, mrc_ev_stats, ...   every data-path map
 *   DIR/abi4/maps/mrcd_books                     mrcd's books (books.h)
 *   DIR/abi4/progs/mrc_xdp_rx, mrc_xdp_tx, mrc_xdp_ctl, mrc_xdp_ack_tx,
 *                  mrc_tc_tx
 *   DIR/abi4/sq/QPN                              each QP's send queue
 *
 * The abi<N> level is MRC_ABI_VERSION: a daemon built for another map
 * layout looks elsewhere and never misreads what it finds. Inner maps of
 * map-in-map arrays (memory regions, send queues, completion rings) are
 * reached through their outer map, except send queues: a restarted mrcd
 * maps them again, and taking an fd from a map id needs CAP_SYS_ADMIN.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/magic.h>

#include "log.h"
#include "pin.h"
#include "mrc/abi.h"

#define PIN_PATH_MAX 512

static int pin_err(int err, const char *what, const char *path)
{
	log_err("%s %s: %s\n", what, path, strerror(-err));
	return err;
}

static int path_of(char *buf, const char *dir, const char *sub,
		   const char *name)
{
	int n = snprintf(buf, PIN_PATH_MAX, "%s/abi%d%s%s%s%s", dir,
			 MRC_ABI_VERSION, sub ? "/" : "", sub ? sub : "",
			 name ? "/" : "", name ? name : "");

	return n < 0 || n >= PIN_PATH_MAX ? -ENAMETOOLONG : 0;
}

/* mkdir -p, each level created only if missing. */
static int make_dirs(const char *path)
{
	char buf[PIN_PATH_MAX];
	size_t i, n = strlen(path);

	if (n >= sizeof(buf))
		return -ENAMETOOLONG;
	memcpy(buf, path, n + 1);
	for (i = 1; i <= n; i++) {
		if (buf[i] != '/' && buf[i])
			continue;
		buf[i] = 0;
		if (mkdir(buf, 0700) && errno != EEXIST)
			return -errno;
		buf[i] = path[i];
	}
	return 0;
}

int dev_pin_obj(int fd, const char *dir, const char *sub, const char *name)
{
	char path[PIN_PATH_MAX];
	int err = path_of(path, dir, sub, name);

	if (err)
		return pin_err(err, "pin path for", name);
	unlink(path); /* a predecessor's, when adopting: ours replaces it */
	if (bpf_obj_pin(fd, path))
		return pin_err(-errno, "pinning", path);
	return 0;
}

int dev_pin_get(const char *dir, const char *sub, const char *name)
{
	char path[PIN_PATH_MAX];
	int fd;

	if (path_of(path, dir, sub, name))
		return -ENAMETOOLONG;
	fd = bpf_obj_get(path);
	return fd < 0 ? -errno : fd;
}

void dev_pin_del(const char *dir, const char *sub, const char *name)
{
	char path[PIN_PATH_MAX];

	if (!path_of(path, dir, sub, name))
		unlink(path);
}

int dev_pin_sq(const char *dir, uint32_t qpn, int fd)
{
	char name[16];

	snprintf(name, sizeof(name), "%u", qpn);
	if (fd >= 0)
		return dev_pin_obj(fd, dir, "sq", name);
	dev_pin_del(dir, "sq", name);
	return 0;
}

int dev_pin_sq_get(const char *dir, uint32_t qpn)
{
	char name[16];

	snprintf(name, sizeof(name), "%u", qpn);
	return dev_pin_get(dir, "sq", name);
}

int dev_pin_lock(const char *dir)
{
	char path[PIN_PATH_MAX];
	int fd, err;

	err = path_of(path, dir, NULL, NULL);
	if (err)
		return err;
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return pin_err(-errno, "opening", path);
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		err = errno == EWOULDBLOCK ? -EBUSY : -errno;
		if (err == -EBUSY)
			log_err("another mrcd runs the device pinned in %s\n",
				path);
		else
			pin_err(err, "locking", path);
		close(fd);
		return err;
	}
	return fd;
}

int dev_pin_present(const char *dir)
{
	char path[PIN_PATH_MAX];
	struct stat st;

	return !path_of(path, dir, NULL, NULL) && !stat(path, &st) &&
	       S_ISDIR(st.st_mode);
}

int dev_pin_claim(const char *dir)
{
	char path[PIN_PATH_MAX];
	struct statfs fs;
	int err;

	err = path_of(path, dir, NULL, NULL);
	if (err)
		return pin_err(err, "pin directory", dir);
	err = make_dirs(dir);
	if (err == -EPERM && strchr(dir, '.')) {
		log_err("creating %s: bpffs refuses names with a '.'\n", dir);
		return err;
	}
	if (err)
		return pin_err(err, "creating", dir);
	if (statfs(dir, &fs))
		return pin_err(-errno, "checking", dir);
	if (fs.f_type != BPF_FS_MAGIC) {
		log_err("%s is not on a bpf filesystem (mount -t bpf bpf /sys/fs/bpf)\n",
			dir);
		return -EINVAL;
	}
	if (mkdir(path, 0700)) {
		if (errno == EEXIST)
			log_err("%s exists: another mrcd uses it, or one stopped without cleaning up (then remove it: rm -r %s)\n",
				path, path);
		return errno == EEXIST ? -EEXIST :
					 pin_err(-errno, "creating", path);
	}
	if (path_of(path, dir, "maps", NULL) || mkdir(path, 0700) ||
	    path_of(path, dir, "progs", NULL) || mkdir(path, 0700) ||
	    path_of(path, dir, "sq", NULL) || mkdir(path, 0700)) {
		err = pin_err(-errno, "creating", path);
		dev_unpin(dir);
		return err;
	}
	return 0;
}

/*
 * A program pinned as progs/name in one step: pinned under a temporary
 * name, then renamed over the old pin, so a killed mrcd never leaves the
 * name missing.
 */
int dev_pin_prog(int fd, const char *dir, const char *name)
{
	char tmp[64], path[PIN_PATH_MAX], to[PIN_PATH_MAX];
	int err;

	snprintf(tmp, sizeof(tmp), "%s_new", name);
	err = dev_pin_obj(fd, dir, "progs", tmp);
	if (err)
		return err;
	if (path_of(path, dir, "progs", tmp) || path_of(to, dir, "progs", name))
		return -ENAMETOOLONG;
	if (rename(path, to))
		return pin_err(-errno, "renaming", path);
	return 0;
}

/* Unlinks every entry of dir/abiN/sub, then the directory. */
static void unpin_sub(const char *dir, const char *sub)
{
	char path[PIN_PATH_MAX], entry[PIN_PATH_MAX];
	struct dirent *e;
	DIR *dp;

	if (path_of(path, dir, sub, NULL))
		return;
	dp = opendir(path);
	if (!dp)
		return;
	while ((e = readdir(dp))) {
		if (e->d_name[0] == '.')
			continue;
		if (!path_of(entry, dir, sub, e->d_name))
			unlink(entry);
	}
	closedir(dp);
	rmdir(path);
}

void dev_unpin(const char *dir)
{
	char path[PIN_PATH_MAX];

	unpin_sub(dir, "maps");
	unpin_sub(dir, "progs");
	unpin_sub(dir, "sq");
	if (!path_of(path, dir, NULL, NULL))
		rmdir(path);
	rmdir(dir); /* only if empty: it may hold other things */
}
