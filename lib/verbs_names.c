// SPDX-License-Identifier: GPL-2.0
/*
 * The verbs entry points libmrc defines (verbs_names.h), one list: a call
 * added to libmrc and not here stays bound to whichever library the
 * dynamic linker found first.
 */
#include <infiniband/verbs.h>

#include "gid.h"
#include "verbs_names.h"

/* The header's macros would name inline wrappers, not the symbols. */
#undef ibv_query_port
#undef ibv_reg_mr
#undef ibv_reg_mr_iova

/* clang-format off */
#define VERBS_CALLS(X) \
	X(ibv_get_device_list) \
	X(ibv_free_device_list) \
	X(ibv_get_device_name) \
	X(ibv_get_device_guid) \
	X(ibv_get_device_index) \
	X(ibv_open_device) \
	X(ibv_close_device) \
	X(ibv_query_device) \
	X(ibv_query_port) \
	X(ibv_query_gid) \
	X(ibv_query_pkey) \
	X(_ibv_query_gid_ex) \
	X(_ibv_query_gid_table) \
	X(ibv_query_gid_type) \
	X(ibv_alloc_pd) \
	X(ibv_dealloc_pd) \
	X(ibv_reg_mr) \
	X(ibv_reg_mr_iova) \
	X(ibv_reg_mr_iova2) \
	X(ibv_reg_dmabuf_mr) \
	X(ibv_dereg_mr) \
	X(ibv_create_comp_channel) \
	X(ibv_create_cq) \
	X(ibv_destroy_cq) \
	X(ibv_create_qp) \
	X(ibv_modify_qp) \
	X(ibv_query_qp) \
	X(ibv_destroy_qp) \
	X(ibv_get_async_event) \
	X(ibv_ack_async_event) \
	X(ibv_event_type_str) \
	X(ibv_wc_status_str) \
	X(ibv_fork_init)
/* clang-format on */

#define NAME(f) #f,
#define ADDR(f) (void *)&f,

const char *const verbs_names[] = { VERBS_CALLS(NAME) };
void *const verbs_addrs[] = { VERBS_CALLS(ADDR) };
const size_t verbs_count = sizeof(verbs_names) / sizeof(verbs_names[0]);
