// SPDX-License-Identifier: GPL-2.0
/*
 * The maps of a running device's data path, found through the programs
 * attached to its ports (dpmaps.h): capture's hooks and ev trace's peer
 * addresses read them this way.
 */
#include <errno.h>
#include <net/if.h>
#include <string.h>
#include <unistd.h>
#include <linux/if_link.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "dpmaps.h"

int dp_prog_maps(int fd, uint32_t *ids, char name[BPF_OBJ_NAME_LEN])
{
	struct bpf_prog_info info = {};
	uint32_t len = sizeof(info);

	info.nr_map_ids = DP_MAX_MAPS;
	info.map_ids = (uint64_t)(uintptr_t)ids;
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return -errno;
	memcpy(name, info.name, BPF_OBJ_NAME_LEN);
	name[BPF_OBJ_NAME_LEN - 1] = '\0';
	return (int)(info.nr_map_ids < DP_MAX_MAPS ? info.nr_map_ids :
						     DP_MAX_MAPS);
}

int dp_map_named(const uint32_t *ids, int n, uint32_t type, const char *name,
		 uint32_t *id)
{
	struct bpf_map_info mi;
	uint32_t len;
	int i, fd;

	for (i = 0; i < n; i++) {
		fd = bpf_map_get_fd_by_id(ids[i]);
		if (fd < 0)
			continue; /* gone meanwhile */
		memset(&mi, 0, sizeof(mi));
		len = sizeof(mi);
		if (!bpf_obj_get_info_by_fd(fd, &mi, &len) && mi.type == type &&
		    !strcmp(mi.name, name)) {
			if (id)
				*id = mi.id;
			return fd;
		}
		close(fd);
	}
	return -ENOENT;
}

int dp_port_map(const char *ifname, uint32_t type, const char *name)
{
	char prog[BPF_OBJ_NAME_LEN];
	uint32_t ids[DP_MAX_MAPS], id = 0;
	int ifindex, fd, n, err;

	ifindex = (int)if_nametoindex(ifname);
	if (!ifindex)
		return -ENODEV;
	err = bpf_xdp_query_id(ifindex, XDP_FLAGS_DRV_MODE, &id);
	if (err)
		return err;
	if (!id)
		return -ENOENT;
	fd = bpf_prog_get_fd_by_id(id);
	if (fd < 0)
		return -errno;
	n = dp_prog_maps(fd, ids, prog);
	close(fd);
	if (n < 0)
		return n;
	/* A capture stands in front of mrc_xdp_rx: not the device's maps. */
	if (strcmp(prog, "mrc_xdp_rx"))
		return -ENOENT;
	return dp_map_named(ids, n, type, name, NULL);
}
