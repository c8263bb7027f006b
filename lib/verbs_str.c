// SPDX-License-Identifier: GPL-2.0
/*
 * ibv_event_type_str and ibv_wc_status_str for every program that links
 * libmrc, whichever device it uses: the names are the enums' own (what a
 * log reader greps for), with a few words of what each means.
 */
#include <infiniband/verbs.h>

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static const char *const event_str[] = {
	[IBV_EVENT_CQ_ERR] = "IBV_EVENT_CQ_ERR: CQ overrun or error",
	[IBV_EVENT_QP_FATAL] = "IBV_EVENT_QP_FATAL: QP failed",
	[IBV_EVENT_QP_REQ_ERR] = "IBV_EVENT_QP_REQ_ERR: invalid request",
	[IBV_EVENT_QP_ACCESS_ERR] = "IBV_EVENT_QP_ACCESS_ERR: access refused",
	[IBV_EVENT_COMM_EST] = "IBV_EVENT_COMM_EST: connection up",
	[IBV_EVENT_SQ_DRAINED] = "IBV_EVENT_SQ_DRAINED: send queue drained",
	[IBV_EVENT_PATH_MIG] = "IBV_EVENT_PATH_MIG: path migrated",
	[IBV_EVENT_PATH_MIG_ERR] =
		"IBV_EVENT_PATH_MIG_ERR: path migration failed",
	[IBV_EVENT_DEVICE_FATAL] = "IBV_EVENT_DEVICE_FATAL: device failed",
	[IBV_EVENT_PORT_ACTIVE] = "IBV_EVENT_PORT_ACTIVE: port up",
	[IBV_EVENT_PORT_ERR] = "IBV_EVENT_PORT_ERR: port down",
	[IBV_EVENT_LID_CHANGE] = "IBV_EVENT_LID_CHANGE: LID changed",
	[IBV_EVENT_PKEY_CHANGE] = "IBV_EVENT_PKEY_CHANGE: P_Key table changed",
	[IBV_EVENT_SM_CHANGE] = "IBV_EVENT_SM_CHANGE: subnet manager changed",
	[IBV_EVENT_SRQ_ERR] = "IBV_EVENT_SRQ_ERR: SRQ failed",
	[IBV_EVENT_SRQ_LIMIT_REACHED] =
		"IBV_EVENT_SRQ_LIMIT_REACHED: SRQ below its limit",
	[IBV_EVENT_QP_LAST_WQE_REACHED] =
		"IBV_EVENT_QP_LAST_WQE_REACHED: last WQE of an SRQ QP",
	[IBV_EVENT_CLIENT_REREGISTER] =
		"IBV_EVENT_CLIENT_REREGISTER: reregister with the SM",
	[IBV_EVENT_GID_CHANGE] = "IBV_EVENT_GID_CHANGE: GID table changed",
	[IBV_EVENT_WQ_FATAL] = "IBV_EVENT_WQ_FATAL: WQ failed",
};

static const char *const status_str[] = {
	[IBV_WC_SUCCESS] = "IBV_WC_SUCCESS: success",
	[IBV_WC_LOC_LEN_ERR] = "IBV_WC_LOC_LEN_ERR: local length error",
	[IBV_WC_LOC_QP_OP_ERR] =
		"IBV_WC_LOC_QP_OP_ERR: local QP operation error",
	[IBV_WC_LOC_EEC_OP_ERR] =
		"IBV_WC_LOC_EEC_OP_ERR: local EE context operation error",
	[IBV_WC_LOC_PROT_ERR] = "IBV_WC_LOC_PROT_ERR: local protection error",
	[IBV_WC_WR_FLUSH_ERR] = "IBV_WC_WR_FLUSH_ERR: flushed (QP in error)",
	[IBV_WC_MW_BIND_ERR] = "IBV_WC_MW_BIND_ERR: memory window bind error",
	[IBV_WC_BAD_RESP_ERR] = "IBV_WC_BAD_RESP_ERR: bad response",
	[IBV_WC_LOC_ACCESS_ERR] = "IBV_WC_LOC_ACCESS_ERR: local access error",
	[IBV_WC_REM_INV_REQ_ERR] =
		"IBV_WC_REM_INV_REQ_ERR: remote invalid request",
	[IBV_WC_REM_ACCESS_ERR] = "IBV_WC_REM_ACCESS_ERR: remote access error",
	[IBV_WC_REM_OP_ERR] = "IBV_WC_REM_OP_ERR: remote operation error",
	[IBV_WC_RETRY_EXC_ERR] = "IBV_WC_RETRY_EXC_ERR: retries exceeded",
	[IBV_WC_RNR_RETRY_EXC_ERR] =
		"IBV_WC_RNR_RETRY_EXC_ERR: receiver not ready, retries exceeded",
	[IBV_WC_LOC_RDD_VIOL_ERR] =
		"IBV_WC_LOC_RDD_VIOL_ERR: local RDD violation",
	[IBV_WC_REM_INV_RD_REQ_ERR] =
		"IBV_WC_REM_INV_RD_REQ_ERR: remote invalid RD request",
	[IBV_WC_REM_ABORT_ERR] = "IBV_WC_REM_ABORT_ERR: remote aborted",
	[IBV_WC_INV_EECN_ERR] =
		"IBV_WC_INV_EECN_ERR: invalid EE context number",
	[IBV_WC_INV_EEC_STATE_ERR] =
		"IBV_WC_INV_EEC_STATE_ERR: invalid EE context state",
	[IBV_WC_FATAL_ERR] = "IBV_WC_FATAL_ERR: fatal error",
	[IBV_WC_RESP_TIMEOUT_ERR] = "IBV_WC_RESP_TIMEOUT_ERR: response timeout",
	[IBV_WC_GENERAL_ERR] = "IBV_WC_GENERAL_ERR: general error",
	[IBV_WC_TM_ERR] = "IBV_WC_TM_ERR: tag matching error",
	[IBV_WC_TM_RNDV_INCOMPLETE] =
		"IBV_WC_TM_RNDV_INCOMPLETE: rendezvous incomplete",
};

const char *ibv_event_type_str(enum ibv_event_type event)
{
	unsigned int e = event;

	return e < ARRAY_LEN(event_str) && event_str[e] ? event_str[e] :
							  "unknown event";
}

const char *ibv_wc_status_str(enum ibv_wc_status status)
{
	unsigned int s = status;

	return s < ARRAY_LEN(status_str) && status_str[s] ? status_str[s] :
							    "unknown status";
}
