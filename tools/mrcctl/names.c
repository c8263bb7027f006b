// SPDX-License-Identifier: GPL-2.0
/*
 * The words mrcctl reads and prints for the controller API's states,
 * modes and capabilities (EV states and event reasons come from
 * include/mrc/ev_names.h, shared with mrcd), and the text forms of
 * addresses, EV values and round trips.
 */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "mrcctl.h"
#include "mrc/ev_names.h"

const char *const profile_state_words[3] = {
	[MRC_CTL_PROFILE_INIT] = "init",
	[MRC_CTL_PROFILE_OFFLINE] = "offline",
	[MRC_CTL_PROFILE_ONLINE] = "online",
};

const char *const fmt_mode_words[3] = { "stev", "udp", "srv6" };
const enum mrc_ctl_ev_fmt_mode fmt_mode_values[3] = {
	MRC_CTL_EV_FMT_MODE_STEV,
	MRC_CTL_EV_FMT_MODE_UDP,
	MRC_CTL_EV_FMT_MODE_SRV6,
};

const char *const ev_state_words[3] = { "good", "assumed-bad", "denied" };
const enum mrc_ctl_ev_state ev_state_values[3] = {
	MRC_CTL_EV_GOOD,
	MRC_CTL_EV_ASSUMED_BAD,
	MRC_CTL_EV_DENIED,
};

const char *profile_state_name(uint32_t s)
{
	return s < ARRAY_SIZE(profile_state_words) ? profile_state_words[s] :
						     "?";
}

const char *fmt_mode_name(uint32_t mode)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(fmt_mode_values); i++)
		if (mode == (uint32_t)fmt_mode_values[i])
			return fmt_mode_words[i];
	return mode ? "?" : "-";
}

const char *ev_mode_name(uint32_t mode)
{
	return mode == MRC_CTL_EV_MODE_AUTO ? "auto" :
	       mode == MRC_CTL_EV_MODE_EXP  ? "exp" :
	       mode == MRC_CTL_EV_MODE_GEN  ? "gen" :
	       mode			    ? "?" :
					      "-";
}

/*
 * The controller API's EV states are the data path's bits (abi.h
 * MRC_EV_*), so the names shared with mrcd apply; UNKNOWN is the API's.
 */
_Static_assert(MRC_CTL_EV_GOOD == MRC_EV_GOOD &&
		       MRC_CTL_EV_ASSUMED_BAD == MRC_EV_ASSUMED_BAD &&
		       MRC_CTL_EV_DENIED == MRC_EV_DENIED,
	       "EV state bits");

const char *ev_state_str(uint32_t s)
{
	return s == (uint32_t)MRC_CTL_EV_UNKNOWN ? "UNKNOWN" :
						   mrc_ev_state_name(s);
}

const char *qp_state_name(uint32_t s)
{
	return s == MRC_QPS_RESET ? "RESET" :
	       s == MRC_QPS_INIT  ? "INIT" :
	       s == MRC_QPS_RTR	  ? "RTR" :
	       s == MRC_QPS_RTS	  ? "RTS" :
	       s == MRC_QPS_ERR	  ? "ERR" :
				    "?";
}

struct jv *opt_cap_names(uint32_t mask, char **text)
{
	static const struct {
		uint32_t bit;
		const char *name;
	} caps[] = {
		{ MRC_CTL_OPT_CAP_EV_PROFILE_MODIFY_ONLINE,
		  "ev_profile_modify_online" },
		{ MRC_CTL_OPT_CAP_CC_PROFILE_MODIFY_ONLINE,
		  "cc_profile_modify_online" },
		{ MRC_CTL_OPT_CAP_EV_EVENT, "ev_event" },
		{ MRC_CTL_OPT_CAP_EV_EXPLICIT_RANGE, "ev_explicit_range" },
		{ MRC_CTL_OPT_CAP_EV_EVENT_PRECISE_DROP_CNT,
		  "ev_event_precise_drop_count" },
		{ MRC_CTL_OPT_CAP_EP_OP_EV_PROBE, "ep_op_ev_probe" },
	};
	struct jv *arr = jv_arr();
	char *s = xstrdup(""), *t;
	uint32_t known = 0;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(caps); i++) {
		known |= caps[i].bit;
		if (!(mask & caps[i].bit))
			continue;
		jv_add(arr, NULL, jv_str(caps[i].name));
		t = xasprintf("%s%s%s", s, *s ? ", " : "", caps[i].name);
		free(s);
		s = t;
	}
	if (mask & ~known) {
		t = xasprintf("%s%s0x%x", s, *s ? ", " : "", mask & ~known);
		free(s);
		s = t;
	}
	if (!*s) {
		free(s);
		s = xstrdup("none");
	}
	*text = s;
	return arr;
}

char *gid_str(const uint8_t gid[16])
{
	char buf[INET6_ADDRSTRLEN];

	if (!inet_ntop(AF_INET6, gid, buf, sizeof(buf)))
		return xstrdup("?");
	return xstrdup(buf);
}

char *mac_str(const uint8_t m[6])
{
	return xasprintf("%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2],
			 m[3], m[4], m[5]);
}

uint32_t ev_val(const struct mrc_ctl_ev *ev)
{
	uint32_t v;

	memcpy(&v, ev->val, sizeof(v));
	return v;
}

void ev_set(struct mrc_ctl_ev *ev, uint32_t val, uint8_t port)
{
	memset(ev, 0, sizeof(*ev));
	memcpy(ev->val, &val, sizeof(val));
	ev->port = port;
}

char *bin_str(uint32_t v, unsigned int w)
{
	char *s = xmalloc((size_t)w + 1);
	unsigned int i;

	for (i = 0; i < w; i++)
		s[i] = (v >> (w - 1 - i)) & 1 ? '1' : '0';
	s[w] = '\0';
	return s;
}

void put_us(struct tbl *t, const char *key, const char *head, uint32_t ns)
{
	if (ns)
		tbl_fixed(t, key, head, ns / 1e3, 3);
	else
		tbl_none(t, key, head);
}
