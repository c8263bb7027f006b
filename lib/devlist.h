/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains the device list libmrc hands out: the real
 * libibverbs' devices and the soft device, in one NULL-terminated array
 * that ibv_free_device_list gives back as it came.
 */
#ifndef MRC_LIB_DEVLIST_H
#define MRC_LIB_DEVLIST_H

#include <infiniband/verbs.h>

/*
 * real[0..nreal) (real may be NULL), then soft if not NULL, then NULL.
 * *n: the count. NULL with errno ENOMEM. The list remembers real.
 */
struct ibv_device **devlist_merge(struct ibv_device **real, int nreal,
				  struct ibv_device *soft, int *n);

/*
 * Gives back a list devlist_merge made: 1, *real the list it held (to be
 * freed by the real libibverbs; NULL: none); 0 if the list is not one of
 * ours (the real libibverbs made it).
 */
int devlist_release(struct ibv_device **list, struct ibv_device ***real);

#endif /* MRC_LIB_DEVLIST_H */
