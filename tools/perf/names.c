// SPDX-License-Identifier: GPL-2.0
/*
 * The names mrc-perf prints: its tests, completion statuses and QP states.
 */
#define _GNU_SOURCE
#include <stddef.h>

#include <mrc.h>

#include "perf.h"

const char *const test_names[3] = { "bw", "rate", "lat" };

/*
 * Completion status names, our own short wording for each enum
 * ibv_wc_status value, so no verbs library is needed to print them.
 */
const char *wc_status_name(unsigned int status)
{
	static const char *const names[] = {
		[IBV_WC_SUCCESS] = "success",
		[IBV_WC_LOC_LEN_ERR] = "local length error",
		[IBV_WC_LOC_QP_OP_ERR] = "local QP operation error",
		[IBV_WC_LOC_EEC_OP_ERR] = "local EE context operation error",
		[IBV_WC_LOC_PROT_ERR] = "local protection error",
		[IBV_WC_WR_FLUSH_ERR] = "flushed: QP in error state",
		[IBV_WC_MW_BIND_ERR] = "memory window bind error",
		[IBV_WC_BAD_RESP_ERR] = "bad response",
		[IBV_WC_LOC_ACCESS_ERR] = "local access error",
		[IBV_WC_REM_INV_REQ_ERR] = "remote: invalid request",
		[IBV_WC_REM_ACCESS_ERR] = "remote access error (rkey/bounds)",
		[IBV_WC_REM_OP_ERR] = "remote operation error",
		[IBV_WC_RETRY_EXC_ERR] = "retries exhausted (peer unreachable)",
		[IBV_WC_RNR_RETRY_EXC_ERR] =
			"receiver-not-ready retries exhausted",
		[IBV_WC_LOC_RDD_VIOL_ERR] = "local RDD violation",
		[IBV_WC_REM_INV_RD_REQ_ERR] = "remote: invalid read request",
		[IBV_WC_REM_ABORT_ERR] = "remote aborted",
		[IBV_WC_INV_EECN_ERR] = "invalid EE context number",
		[IBV_WC_INV_EEC_STATE_ERR] = "invalid EE context state",
		[IBV_WC_FATAL_ERR] = "fatal error",
		[IBV_WC_RESP_TIMEOUT_ERR] = "response timeout",
		[IBV_WC_GENERAL_ERR] = "general error",
	};

	if (status < sizeof(names) / sizeof(names[0]) && names[status])
		return names[status];
	return "unknown status";
}

const char *qp_state_name(int state)
{
	static const char *const names[] = {
		[IBV_QPS_RESET] = "RESET", [IBV_QPS_INIT] = "INIT",
		[IBV_QPS_RTR] = "RTR",	   [IBV_QPS_RTS] = "RTS",
		[IBV_QPS_SQD] = "SQD",	   [IBV_QPS_SQE] = "SQE",
		[IBV_QPS_ERR] = "ERR",
	};

	if (state >= 0 && (size_t)state < sizeof(names) / sizeof(names[0]) &&
	    names[state])
		return names[state];
	return "unknown";
}
