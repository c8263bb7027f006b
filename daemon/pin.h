/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains pinning: the device's maps and programs in bpffs, so
 * operators can inspect a running device with bpftool and a later mrcd can
 * find it.
 */
#ifndef MRC_DAEMON_PIN_H
#define MRC_DAEMON_PIN_H

#include <stddef.h>
#include <stdint.h>

#define MRCD_PIN_DIR_DEFAULT "/sys/fs/bpf/mrc"

/*
 * Makes dir/abi<MRC_ABI_VERSION>/{maps,progs}, before anything is loaded
 * or attached: it refuses (-EEXIST) when that directory is already there,
 * another mrcd's or a stopped one's that was not cleaned up, so a second
 * mrcd on the same device changes nothing of the first's. 0 or -errno;
 * messages on stderr name the path.
 */
int dev_pin_claim(const char *dir);
/* Pins program fd as progs/name in one step: under a temporary name,
 * then renamed over the old pin (a killed mrcd never leaves it missing). */
int dev_pin_prog(int fd, const char *dir, const char *name);
/* Removes what dev_pin_claim and dev_pin made (nothing else). */
void dev_unpin(const char *dir);
/*
 * Holds dir/abi<N> for this mrcd (flock, released however it ends): an
 * fd to keep open, or -EBUSY when another running mrcd has it.
 */
int dev_pin_lock(const char *dir);
/* Whether dir/abi<N> is there: a device a stopped mrcd left running. */
int dev_pin_present(const char *dir);
/* Pins fd as dir/abi<N>/sub/name, replacing what is there. 0 or -errno. */
int dev_pin_obj(int fd, const char *dir, const char *sub, const char *name);
/* The object pinned as dir/abi<N>/sub/name: an fd, or -errno. */
int dev_pin_get(const char *dir, const char *sub, const char *name);
void dev_pin_del(const char *dir, const char *sub, const char *name);
/* QP qpn's send queue as sq/QPN: pins fd (-1: removes the pin). */
int dev_pin_sq(const char *dir, uint32_t qpn, int fd);
/* The send queue pinned for qpn: an fd, or -errno. */
int dev_pin_sq_get(const char *dir, uint32_t qpn);

#endif /* MRC_DAEMON_PIN_H */
