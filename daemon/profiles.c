// SPDX-License-Identifier: GPL-2.0
/*
 * The controller's profiles (profiles.h): EV format, EV and CC profiles,
 * their state machine and the attributes each step needs, as the OCP MRC
 * 1.0 controller API documents them (include/mrc_ctl.h).
 *
 * A modify call works on a copy of the profile and installs it only when
 * every attribute and the state change it asks for are valid, so a failed
 * call changes nothing. The one exception is the API's own: an EV_OP runs
 * entry by entry and stops at the first entry that fails, the entries
 * before it staying applied.
 */
#include <errno.h>
#include <string.h>

#include "mrc/cc_default.h"
#include "nscc_params.h"
#include "profiles.h"

const char *const prof_cc_algorithms[] = { "uet-1.0-nscc", NULL };

#define FMT_MASK                                      \
	((uint32_t)MRC_CTL_EV_FMT_PROFILE_STATE |     \
	 (uint32_t)MRC_CTL_EV_FMT_PROFILE_CUR_STATE | \
	 (uint32_t)MRC_CTL_EV_FMT_PROFILE_MODE |      \
	 (uint32_t)MRC_CTL_EV_FMT_PROFILE_OP |        \
	 (uint32_t)MRC_CTL_EV_FMT_VENDOR_CFG)
#define EV_MASK                                      \
	((uint32_t)MRC_CTL_EV_PROFILE_STATE |        \
	 (uint32_t)MRC_CTL_EV_PROFILE_CUR_STATE |    \
	 (uint32_t)MRC_CTL_EV_PROFILE_MODE |         \
	 (uint32_t)MRC_CTL_EV_PROFILE_FMT_ID |       \
	 (uint32_t)MRC_CTL_EV_PROFILE_COUNT |        \
	 (uint32_t)MRC_CTL_EV_PROFILE_MIN_ACTIVE |   \
	 (uint32_t)MRC_CTL_EV_PROFILE_EVENT_MASK |   \
	 (uint32_t)MRC_CTL_EV_PROFILE_EV_OP |        \
	 (uint32_t)MRC_CTL_EV_PROFILE_EV_FIELDS_OP | \
	 (uint32_t)MRC_CTL_EV_PROFILE_VENDOR_CFG)
#define CC_MASK                                   \
	((uint32_t)MRC_CTL_CC_PROFILE_STATE |     \
	 (uint32_t)MRC_CTL_CC_PROFILE_CUR_STATE | \
	 (uint32_t)MRC_CTL_CC_PROFILE_ALGORITHM | \
	 (uint32_t)MRC_CTL_CC_PROFILE_CONFIG |    \
	 (uint32_t)MRC_CTL_CC_PROFILE_VENDOR_CFG)

/* The EV states a profile reports events for. */
#define EV_EVENTS ((uint32_t)MRC_CTL_EV_GOOD | (uint32_t)MRC_CTL_EV_ASSUMED_BAD)

void prof_init(struct profiles *p, uint32_t port_mask)
{
	p->port_mask = port_mask;

	/* EV profile 0: the device's own; mrcd picks each QP's EVs. */
	p->ev[0].state = MRC_CTL_PROFILE_ONLINE;
	p->ev[0].have = PROF_HAVE_MODE | PROF_HAVE_MIN_ACTIVE |
			PROF_HAVE_EVENT_MASK;
	p->ev[0].mode = MRC_CTL_EV_MODE_AUTO;
	p->ev[0].event_mask = (int)EV_EVENTS;

	/* CC profile 0: no congestion control, usable at once. */
	p->cc[0].state = MRC_CTL_PROFILE_ONLINE;
	p->cc[0].have = PROF_HAVE_ALGORITHM | PROF_HAVE_CONFIG;
	p->cc[0].algo = PROF_CC_NONE;
}

/* ---- helpers shared by the three kinds ------------------------------- */

static int vendor_cfg_zero(const uint8_t *cfg)
{
	unsigned int i;

	for (i = 0; i < MRC_CTL_MAX_VENDOR_CFG_SIZE; i++)
		if (cfg[i])
			return 0;
	return 1;
}

/*
 * The checks every modify and query starts with: no unknown mask bit, the
 * vendor configuration (which we have none of) zero when given.
 */
/*
 * Whether a profile that has the attributes in have (PROF_HAVE_*) may
 * enter state to: OFFLINE needs to_offline, ONLINE needs to_online, INIT
 * needs nothing (it clears the profile).
 */
static int has_needs(uint32_t have, uint32_t to, uint32_t to_offline,
		     uint32_t to_online)
{
	uint32_t need = to == MRC_CTL_PROFILE_OFFLINE ? to_offline :
			to == MRC_CTL_PROFILE_ONLINE  ? to_online :
							0;

	return (have & need) == need;
}

static int mask_check(uint32_t mask, uint32_t known, uint32_t vendor_bit,
		      const uint8_t *vendor_cfg)
{
	if (mask & ~known)
		return -EINVAL;
	if (mask & vendor_bit && !vendor_cfg_zero(vendor_cfg))
		return -EINVAL;
	return 0;
}

/*
 * Whether a profile may go from cur to to: INIT -> OFFLINE -> ONLINE ->
 * OFFLINE -> INIT, and staying where it is (a no-op).
 */
static int state_step(uint32_t cur, uint32_t to)
{
	if (to > MRC_CTL_PROFILE_ONLINE)
		return -EINVAL;
	if (to == cur)
		return 0;
	switch (cur) {
	case MRC_CTL_PROFILE_INIT:
	case MRC_CTL_PROFILE_ONLINE:
		return to == MRC_CTL_PROFILE_OFFLINE ? 0 : -EINVAL;
	case MRC_CTL_PROFILE_OFFLINE:
		return 0;
	}
	return -EINVAL;
}

/* ---- EV format profiles ---------------------------------------------- */

static int fmt_mode_valid(uint32_t mode)
{
	return mode == MRC_CTL_EV_FMT_MODE_STEV ||
	       mode == MRC_CTL_EV_FMT_MODE_SRV6 ||
	       mode == MRC_CTL_EV_FMT_MODE_UDP;
}

/* Whether an ONLINE EV profile sprays over format fmt_id. */
static int fmt_used_online(const struct profiles *p, uint64_t fmt_id)
{
	int i;

	for (i = 1; i < PROF_MAX_EV; i++)
		if (p->ev[i].state == MRC_CTL_PROFILE_ONLINE &&
		    p->ev[i].have & PROF_HAVE_FMT_ID &&
		    p->ev[i].fmt_id == fmt_id)
			return 1;
	return 0;
}

int prof_fmt_modify(struct profiles *p, uint64_t id,
		    const struct mrc_ctl_ev_fmt_profile_attr *attr, int mask)
{
	uint32_t m = (uint32_t)mask, to;
	struct prof_fmt *cur, c;
	int modify_fields = 0, err;

	if (id >= PROF_MAX_FMT || !attr)
		return -EINVAL;
	err = mask_check(m, FMT_MASK, (uint32_t)MRC_CTL_EV_FMT_VENDOR_CFG,
			 attr->vendor_cfg);
	if (err)
		return err;
	if (m & MRC_CTL_EV_FMT_PROFILE_CUR_STATE)
		return -EINVAL; /* query only */
	if (m & MRC_CTL_EV_FMT_PROFILE_OP) {
		switch (attr->ev_fmt_op.op) {
		case MRC_CTL_EV_FMT_OP_MODIFY_FIELDS:
			modify_fields = 1;
			break;
		case MRC_CTL_EV_FMT_OP_QUERY_FIELDS:
			break; /* allowed, and nothing to do */
		default:
			return -EINVAL;
		}
	}
	cur = &p->fmt[id];
	to = cur->state;
	if (m & MRC_CTL_EV_FMT_PROFILE_STATE) {
		to = attr->profile_state;
		err = state_step(cur->state, to);
		if (err)
			return err;
	}
	if (cur->state == MRC_CTL_PROFILE_ONLINE) {
		/* ONLINE allows STATE (to OFFLINE) only. */
		if (m & MRC_CTL_EV_FMT_PROFILE_MODE || modify_fields)
			return -EINVAL;
		if (to == MRC_CTL_PROFILE_OFFLINE && fmt_used_online(p, id))
			return -EBUSY;
	}

	c = *cur;
	if (m & MRC_CTL_EV_FMT_PROFILE_MODE) {
		if (!fmt_mode_valid(attr->ev_fmt_mode))
			return -EINVAL;
		c.mode = attr->ev_fmt_mode;
		c.have |= PROF_HAVE_MODE;
		/* Fields given earlier must still fit the new mode. */
		if (c.have & PROF_HAVE_FIELDS && !modify_fields) {
			err = ev_fmt_check(c.mode, c.fields, c.nfields);
			if (err)
				return err;
		}
	}
	if (modify_fields) {
		const struct mrc_ctl_ev_fmt_field *ff =
			attr->ev_fmt_op.fmt_fields;
		int n = attr->ev_fmt_op.fmt_field_count;

		/* Fields are checked against a mode: it comes first. */
		if (!(c.have & PROF_HAVE_MODE) || n < 1 || !ff)
			return -EINVAL;
		if (n > MRC_EV_FMT_MAX_FIELDS)
			return -E2BIG;
		err = ev_fmt_check(c.mode, ff, n);
		if (err)
			return err;
		memset(c.fields, 0, sizeof(c.fields));
		memcpy(c.fields, ff, (size_t)n * sizeof(*ff));
		c.nfields = n;
		c.have |= PROF_HAVE_FIELDS;
	}

	if (to != cur->state &&
	    !has_needs(c.have, to, PROF_HAVE_MODE, PROF_HAVE_FIELDS))
		return -EINVAL;
	if (to != cur->state && to == MRC_CTL_PROFILE_INIT)
		memset(&c, 0, sizeof(c));
	c.state = to;
	*cur = c;
	return 0;
}

int prof_fmt_query(struct profiles *p, uint64_t id,
		   struct mrc_ctl_ev_fmt_profile_attr *attr, int mask)
{
	uint32_t m = (uint32_t)mask;
	const struct prof_fmt *f;
	int err;

	if (id >= PROF_MAX_FMT || !attr)
		return -EINVAL;
	err = mask_check(m, FMT_MASK, (uint32_t)MRC_CTL_EV_FMT_VENDOR_CFG,
			 attr->vendor_cfg);
	if (err)
		return err;
	if (m & MRC_CTL_EV_FMT_PROFILE_OP) {
		if (attr->ev_fmt_op.op != MRC_CTL_EV_FMT_OP_QUERY_FIELDS)
			return -EINVAL;
		if (attr->ev_fmt_op.fmt_field_count < 0 ||
		    (attr->ev_fmt_op.fmt_field_count > 0 &&
		     !attr->ev_fmt_op.fmt_fields))
			return -EINVAL;
	}
	f = &p->fmt[id];
	if (m & MRC_CTL_EV_FMT_PROFILE_STATE)
		attr->profile_state = f->state;
	if (m & MRC_CTL_EV_FMT_PROFILE_CUR_STATE)
		attr->cur_profile_state = f->state;
	if (m & MRC_CTL_EV_FMT_PROFILE_MODE)
		attr->ev_fmt_mode = f->mode;
	if (m & MRC_CTL_EV_FMT_PROFILE_OP) {
		if (attr->ev_fmt_op.fmt_field_count < f->nfields) {
			attr->ev_fmt_op.fmt_field_count = f->nfields;
			return -E2BIG;
		}
		if (f->nfields)
			memcpy(attr->ev_fmt_op.fmt_fields, f->fields,
			       (size_t)f->nfields * sizeof(f->fields[0]));
		attr->ev_fmt_op.fmt_field_count = f->nfields;
	}
	return 0;
}

/* ---- EV profiles ------------------------------------------------------ */

/* The compact value a controller's EV carries: val's first 4 bytes. */
static uint32_t ev_cval(const struct mrc_ctl_ev *ev)
{
	uint32_t v;

	memcpy(&v, ev->val, sizeof(v));
	return v;
}

static void ev_put(struct mrc_ctl_ev *ev, const struct prof_ev_ent *e)
{
	memset(ev, 0, sizeof(*ev));
	memcpy(ev->val, &e->cval, sizeof(e->cval));
	ev->port = e->port;
}

static int port_valid(const struct profiles *p, unsigned int port)
{
	return port >= 1 && port < 32 && p->port_mask & (1u << port);
}

/*
 * Index of the first entry at or after from that holds compact value cval
 * on port; -ENOENT when none does.
 */
static int ev_find(const struct prof_ev *e, uint32_t cval, uint8_t port,
		   uint32_t from)
{
	uint32_t i;

	for (i = from; i < e->count; i++)
		if (e->ev[i].cval == cval && e->ev[i].port == port)
			return (int)i;
	return -ENOENT;
}

/*
 * The compact value of the idx-th generated EV: each field with mask bits
 * counts from min_val to max_val, the last one fastest, and the fields'
 * counts sit side by side, the first field's highest (ev_expand's order).
 */
static uint32_t gen_compact(const struct mrc_ctl_ev_field *f, int nf,
			    uint64_t idx)
{
	uint32_t v[MRC_EV_MAX_FIELDS] = { 0 };
	uint64_t c = 0, n;
	int i;

	for (i = nf - 1; i >= 0; i--) {
		if (!f[i].mask)
			continue;
		n = (uint64_t)f[i].max_val - f[i].min_val + 1;
		v[i] = f[i].min_val + (uint32_t)(idx % n);
		idx /= n;
	}
	for (i = 0; i < nf; i++)
		if (f[i].mask)
			c = c << __builtin_popcount(f[i].mask) | v[i];
	return (uint32_t)c;
}

/*
 * Entry e's expanded values from its compact one under c's fields and
 * format fmt: val always (as ev_expand gives it), sval under an SRV6
 * format, else zero. A format taken offline and changed under an OFFLINE
 * profile may no longer fit its fields: ev_expand_srv6 then leaves sval
 * zero, and ev_online_check, which refuses such a profile, expands every
 * entry again before it goes ONLINE.
 */
static void ent_expand(const struct prof_fmt *fmt, const struct prof_ev *c,
		       struct prof_ev_ent *e)
{
	e->val = ev_expand(c->fields, c->nfields, fmt->fields, fmt->nfields,
			   e->cval);
	memset(e->sval, 0, sizeof(e->sval));
	if (fmt->mode == MRC_CTL_EV_FMT_MODE_SRV6)
		ev_expand_srv6(c->fields, c->nfields, fmt->fields, fmt->nfields,
			       e->cval, e->sval);
}

/*
 * Lay out the array of an EV profile entering OFFLINE, or staying there
 * with a new mode, format, count or fields: an explicit array starts
 * unpopulated (keeping its entries when only the count changed), a
 * generated one is generated, its ports taken round-robin.
 */
static int ev_layout(const struct profiles *p, struct prof_ev *c,
		     int keep_entries)
{
	const struct prof_fmt *fmt;
	uint8_t ports[32];
	unsigned int nports = 0, port;
	uint32_t i;
	int err;

	if (!(c->have & PROF_HAVE_MODE) || !(c->have & PROF_HAVE_FMT_ID) ||
	    !(c->have & PROF_HAVE_COUNT) || !(c->have & PROF_HAVE_FIELDS))
		return -EINVAL;
	fmt = &p->fmt[c->fmt_id];
	if (fmt->state != MRC_CTL_PROFILE_ONLINE)
		return -EINVAL;
	err = ev_fields_check(c->fields, c->nfields, fmt->fields, fmt->nfields);
	if (err)
		return err;

	if (c->mode == MRC_CTL_EV_MODE_EXP) {
		/*
		 * Entries past count are always zero, so keeping the
		 * array only clears what a smaller count drops.
		 */
		i = keep_entries ? c->count : 0;
		memset(&c->ev[i], 0, sizeof(c->ev) - i * sizeof(c->ev[0]));
		return 0;
	}

	/* Generated. */
	if (ev_gen_count(c->fields, c->nfields) < c->count)
		return -EINVAL;
	for (port = 1; port < 32; port++)
		if (p->port_mask & (1u << port))
			ports[nports++] = (uint8_t)port;
	if (!nports)
		return -EINVAL;
	memset(c->ev, 0, sizeof(c->ev));
	for (i = 0; i < c->count; i++) {
		/* The i-th EV of ev_generate(): its compact one, expanded. */
		c->ev[i].cval = gen_compact(c->fields, c->nfields, i);
		ent_expand(fmt, c, &c->ev[i]);
		c->ev[i].port = ports[i % nports];
	}
	return 0;
}

/*
 * What OFFLINE -> ONLINE needs beyond what OFFLINE has. The format may
 * have been taken offline and changed meanwhile, so the fields are
 * checked against it again and every EV expanded afresh.
 */
static int ev_online_check(const struct profiles *p, struct prof_ev *c)
{
	const struct prof_fmt *fmt = &p->fmt[c->fmt_id];
	uint32_t i;
	int err;

	if (!(c->have & PROF_HAVE_MIN_ACTIVE) ||
	    !(c->have & PROF_HAVE_EVENT_MASK) || c->min_active > c->count)
		return -EINVAL;
	if (fmt->state != MRC_CTL_PROFILE_ONLINE)
		return -EINVAL;
	err = ev_fields_check(c->fields, c->nfields, fmt->fields, fmt->nfields);
	if (err)
		return err;
	for (i = 0; i < c->count; i++)
		if (!c->ev[i].port)
			return -EINVAL; /* an explicit EV never written */
	for (i = 0; i < c->count; i++)
		ent_expand(fmt, c, &c->ev[i]);
	return 0;
}

/* REPLACE_EV: the first match of e->ev (every one with ALL_COPIES). */
static int ev_replace(const struct profiles *p, struct prof_ev *c,
		      const struct mrc_ctl_ev_op_entry *e)
{
	const struct prof_fmt *fmt = &p->fmt[c->fmt_id];
	uint32_t cval = ev_cval(&e->ev), nval = ev_cval(&e->ev_new);
	unsigned int bits = ev_compact_bits(c->fields, c->nfields);
	int i;

	if (e->flags & ~(uint32_t)MRC_CTL_EV_OP_F_ALL_COPIES)
		return -EINVAL;
	if (!port_valid(p, e->ev_new.port))
		return -EINVAL;
	if (bits < 32 && nval >> bits)
		return -EINVAL;
	i = ev_find(c, cval, e->ev.port, 0);
	if (i < 0)
		return i;
	do {
		struct prof_ev_ent *ent = &c->ev[i];

		ent->cval = nval;
		ent_expand(fmt, c, ent);
		ent->port = e->ev_new.port;
		ent->denied = e->state == MRC_CTL_EV_DENIED;
		if (!(e->flags & MRC_CTL_EV_OP_F_ALL_COPIES))
			break;
		i = ev_find(c, cval, e->ev.port, (uint32_t)i + 1);
	} while (i >= 0);
	return 0;
}

/*
 * MODIFY_EV_STATE: deny an EV, or allow it again (GOOD; the data path
 * then probes it). Copies of one EV are one path: all of them change.
 * ASSUMED_BAD is the data path's verdict alone.
 */
static int ev_set_state(struct prof_ev *c, const struct mrc_ctl_ev_op_entry *e)
{
	uint32_t cval = ev_cval(&e->ev);
	uint8_t denied;
	int i;

	if (e->flags & ~(uint32_t)MRC_CTL_EV_OP_F_ALL_COPIES)
		return -EINVAL;
	if (e->state == MRC_CTL_EV_DENIED)
		denied = 1;
	else if (e->state == MRC_CTL_EV_GOOD)
		denied = 0;
	else
		return -EINVAL;
	if (!e->ev.port)
		return -ENOENT; /* an unpopulated entry is no EV */
	i = ev_find(c, cval, e->ev.port, 0);
	if (i < 0)
		return i;
	for (; i >= 0; i = ev_find(c, cval, e->ev.port, (uint32_t)i + 1))
		c->ev[i].denied = denied;
	return 0;
}

/* The checks an EV_OP's arguments get in a modify and in a query. */
static int ev_op_check(const struct mrc_ctl_ev_profile_attr *attr)
{
	if (attr->ev_op.op > MRC_CTL_EV_OP_QUERY_EV_ARRAY)
		return -EINVAL;
	if (!attr->ev_op.entries || attr->ev_op.entry_count < 1)
		return -EINVAL;
	if (attr->ev_op.entry_count > PROF_OP_MAX_ENTRIES)
		return -E2BIG;
	return 0;
}

/* The EV_FIELDS_OP MODIFY_FIELDS of a modify into c. */
static int ev_fields_take(struct prof_ev *c,
			  const struct mrc_ctl_ev_profile_attr *attr)
{
	int n = attr->ev_fields_op.field_count;

	if (n < 1 || !attr->ev_fields_op.fields)
		return -EINVAL;
	if (n > MRC_EV_MAX_FIELDS)
		return -E2BIG;
	memset(c->fields, 0, sizeof(c->fields));
	memcpy(c->fields, attr->ev_fields_op.fields,
	       (size_t)n * sizeof(c->fields[0]));
	c->nfields = n;
	c->have |= PROF_HAVE_FIELDS;
	return 0;
}

/* The plain attributes of a modify into c. */
static int ev_attrs_take(struct prof_ev *c,
			 const struct mrc_ctl_ev_profile_attr *attr, uint32_t m)
{
	if (m & MRC_CTL_EV_PROFILE_MODE) {
		/* AUTO is profile 0's alone. */
		if (attr->ev_mode != MRC_CTL_EV_MODE_EXP &&
		    attr->ev_mode != MRC_CTL_EV_MODE_GEN)
			return -EINVAL;
		c->mode = attr->ev_mode;
		c->have |= PROF_HAVE_MODE;
	}
	if (m & MRC_CTL_EV_PROFILE_FMT_ID) {
		if (attr->ev_fmt_profile_id >= PROF_MAX_FMT)
			return -EINVAL;
		c->fmt_id = attr->ev_fmt_profile_id;
		c->have |= PROF_HAVE_FMT_ID;
	}
	if (m & MRC_CTL_EV_PROFILE_COUNT) {
		if (!attr->ev_count)
			return -EINVAL;
		if (attr->ev_count > PROF_EV_MAX_COUNT)
			return -E2BIG;
		c->count = attr->ev_count;
		c->have |= PROF_HAVE_COUNT;
	}
	if (m & MRC_CTL_EV_PROFILE_MIN_ACTIVE) {
		c->min_active = attr->ev_min_active;
		c->have |= PROF_HAVE_MIN_ACTIVE;
	}
	if (m & MRC_CTL_EV_PROFILE_EVENT_MASK) {
		if ((uint32_t)attr->ev_event_mask & ~EV_EVENTS)
			return -EINVAL;
		c->event_mask = attr->ev_event_mask;
		c->have |= PROF_HAVE_EVENT_MASK;
	}
	return 0;
}

int prof_ev_modify(struct profiles *p, uint64_t id,
		   struct mrc_ctl_ev_profile_attr *attr, int mask)
{
	const uint32_t layout_bits = MRC_CTL_EV_PROFILE_MODE |
				     MRC_CTL_EV_PROFILE_FMT_ID |
				     MRC_CTL_EV_PROFILE_COUNT;
	uint32_t m = (uint32_t)mask, to;
	int modify_fields = 0, relayout, i, err;
	struct prof_ev *cur, c;

	if (id == 0 || id >= PROF_MAX_EV || !attr)
		return -EINVAL; /* profile 0 is the device's own */
	err = mask_check(m, EV_MASK, (uint32_t)MRC_CTL_EV_PROFILE_VENDOR_CFG,
			 attr->vendor_cfg);
	if (err)
		return err;
	if (m & MRC_CTL_EV_PROFILE_CUR_STATE)
		return -EINVAL; /* query only */
	if (m & MRC_CTL_EV_PROFILE_EV_OP && m & MRC_CTL_EV_PROFILE_EV_FIELDS_OP)
		return -EINVAL;
	if (m & MRC_CTL_EV_PROFILE_EV_FIELDS_OP) {
		switch (attr->ev_fields_op.op) {
		case MRC_CTL_EV_FIELDS_OP_MODIFY_FIELDS:
			modify_fields = 1;
			break;
		case MRC_CTL_EV_FIELDS_OP_QUERY_FIELDS:
			break; /* allowed, and nothing to do */
		default:
			return -EINVAL;
		}
	}
	cur = &p->ev[id];
	if (m & MRC_CTL_EV_PROFILE_EV_OP) {
		err = ev_op_check(attr);
		if (err)
			return err;
		if (cur->state == MRC_CTL_PROFILE_INIT)
			return -EINVAL; /* no array yet */
	}
	to = cur->state;
	if (m & MRC_CTL_EV_PROFILE_STATE) {
		to = attr->profile_state;
		err = state_step(cur->state, to);
		if (err)
			return err;
	}
	if (cur->state == MRC_CTL_PROFILE_ONLINE) {
		/*
		 * QPs spray over the array as it is: nothing that would lay
		 * it out anew while ONLINE.
		 */
		if (m & (layout_bits | MRC_CTL_EV_PROFILE_MIN_ACTIVE) ||
		    modify_fields)
			return -EINVAL;
		if (to == MRC_CTL_PROFILE_OFFLINE && cur->users)
			return -EBUSY;
	}

	c = *cur;
	err = ev_attrs_take(&c, attr, m);
	if (err)
		return err;
	if (modify_fields) {
		err = ev_fields_take(&c, attr);
		if (err)
			return err;
	}
	relayout = to != MRC_CTL_PROFILE_INIT &&
		   (cur->state == MRC_CTL_PROFILE_INIT || m & layout_bits ||
		    modify_fields);
	if (relayout) {
		int keep = cur->state != MRC_CTL_PROFILE_INIT &&
			   !modify_fields &&
			   (m & layout_bits) == MRC_CTL_EV_PROFILE_COUNT;

		err = ev_layout(p, &c, keep);
		if (err)
			return err;
	}

	if (m & MRC_CTL_EV_PROFILE_EV_OP) {
		struct mrc_ctl_ev_op_entry *ent = attr->ev_op.entries;
		int op = attr->ev_op.op;

		if (op == MRC_CTL_EV_OP_REPLACE_EV &&
		    c.mode != MRC_CTL_EV_MODE_EXP)
			return -EINVAL;
		/* QPs spray over the array as they took it at RTS: a value
		 * replaced under them would name another path. */
		if (op == MRC_CTL_EV_OP_REPLACE_EV &&
		    cur->state == MRC_CTL_PROFILE_ONLINE && cur->users)
			return -EBUSY;
		for (i = 0, err = 0; i < attr->ev_op.entry_count; i++) {
			if (op == MRC_CTL_EV_OP_REPLACE_EV)
				err = ev_replace(p, &c, &ent[i]);
			else if (op == MRC_CTL_EV_OP_MODIFY_EV_STATE)
				err = ev_set_state(&c, &ent[i]);
			if (err)
				break;
		}
		if (err) {
			/*
			 * The entries before the failing one stay applied,
			 * nothing else of the call does. When the call also
			 * laid the array out anew they were made on an array
			 * that is not installed, and go with it.
			 */
			if (!relayout)
				memcpy(cur->ev, c.ev, sizeof(cur->ev));
			return err;
		}
	}

	if (to != cur->state) {
		switch (to) {
		case MRC_CTL_PROFILE_INIT:
			memset(&c, 0, sizeof(c));
			break;
		case MRC_CTL_PROFILE_OFFLINE:
			break; /* ev_layout checked what entering needs */
		case MRC_CTL_PROFILE_ONLINE:
			err = ev_online_check(p, &c);
			if (err)
				return err;
			break;
		}
	}
	c.state = to;
	*cur = c;
	return 0;
}

/* An array entry's state as the API reports it. */
static enum mrc_ctl_ev_state ev_state_of(const struct profiles *p, uint64_t id,
					 int idx)
{
	const struct prof_ev_ent *e = &p->ev[id].ev[idx];

	if (!e->port)
		return MRC_CTL_EV_UNKNOWN; /* unpopulated */
	if (e->denied)
		return MRC_CTL_EV_DENIED;
	if (p->ev_runtime_state)
		return (enum mrc_ctl_ev_state)p->ev_runtime_state(p->ctx, id,
								  idx);
	return MRC_CTL_EV_GOOD;
}

static int ev_query_op(const struct profiles *p, uint64_t id,
		       struct mrc_ctl_ev_profile_attr *attr)
{
	const struct prof_ev *e = &p->ev[id];
	struct mrc_ctl_ev_op_entry *ent = attr->ev_op.entries;
	uint32_t i;
	int k, idx;

	if (attr->ev_op.op == MRC_CTL_EV_OP_QUERY_EV_ARRAY) {
		if ((uint32_t)attr->ev_op.entry_count < e->count) {
			attr->ev_op.entry_count = (int)e->count;
			return -E2BIG;
		}
		for (i = 0; i < e->count; i++) {
			ev_put(&ent[i].ev, &e->ev[i]);
			ent[i].state = ev_state_of(p, id, (int)i);
		}
		attr->ev_op.entry_count = (int)e->count;
		return 0;
	}
	/* QUERY_EV_STATE */
	for (k = 0; k < attr->ev_op.entry_count; k++) {
		if (!ent[k].ev.port)
			return -ENOENT;
		idx = ev_find(e, ev_cval(&ent[k].ev), ent[k].ev.port, 0);
		if (idx < 0)
			return idx;
		ent[k].state = ev_state_of(p, id, idx);
	}
	return 0;
}

int prof_ev_query(struct profiles *p, uint64_t id,
		  struct mrc_ctl_ev_profile_attr *attr, int mask)
{
	uint32_t m = (uint32_t)mask;
	const struct prof_ev *e;
	int err;

	if (id >= PROF_MAX_EV || !attr)
		return -EINVAL;
	err = mask_check(m, EV_MASK, (uint32_t)MRC_CTL_EV_PROFILE_VENDOR_CFG,
			 attr->vendor_cfg);
	if (err)
		return err;
	if (m & MRC_CTL_EV_PROFILE_EV_OP && m & MRC_CTL_EV_PROFILE_EV_FIELDS_OP)
		return -EINVAL;
	e = &p->ev[id];
	if (m & MRC_CTL_EV_PROFILE_EV_OP) {
		err = ev_op_check(attr);
		if (err)
			return err;
		if (attr->ev_op.op != MRC_CTL_EV_OP_QUERY_EV_STATE &&
		    attr->ev_op.op != MRC_CTL_EV_OP_QUERY_EV_ARRAY)
			return -EINVAL;
		if (e->state == MRC_CTL_PROFILE_INIT)
			return -EINVAL; /* no array yet */
	}
	if (m & MRC_CTL_EV_PROFILE_EV_FIELDS_OP) {
		if (attr->ev_fields_op.op != MRC_CTL_EV_FIELDS_OP_QUERY_FIELDS)
			return -EINVAL;
		if (attr->ev_fields_op.field_count < 0 ||
		    (attr->ev_fields_op.field_count > 0 &&
		     !attr->ev_fields_op.fields))
			return -EINVAL;
	}

	if (m & MRC_CTL_EV_PROFILE_STATE)
		attr->profile_state = e->state;
	if (m & MRC_CTL_EV_PROFILE_CUR_STATE)
		attr->cur_profile_state = e->state;
	if (m & MRC_CTL_EV_PROFILE_MODE)
		attr->ev_mode = e->mode;
	if (m & MRC_CTL_EV_PROFILE_FMT_ID)
		attr->ev_fmt_profile_id = e->fmt_id;
	if (m & MRC_CTL_EV_PROFILE_COUNT)
		attr->ev_count = e->count;
	if (m & MRC_CTL_EV_PROFILE_MIN_ACTIVE)
		attr->ev_min_active = e->min_active;
	if (m & MRC_CTL_EV_PROFILE_EVENT_MASK)
		attr->ev_event_mask = e->event_mask;
	if (m & MRC_CTL_EV_PROFILE_EV_OP)
		return ev_query_op(p, id, attr);
	if (m & MRC_CTL_EV_PROFILE_EV_FIELDS_OP) {
		if (attr->ev_fields_op.field_count < e->nfields) {
			attr->ev_fields_op.field_count = e->nfields;
			return -E2BIG;
		}
		if (e->nfields)
			memcpy(attr->ev_fields_op.fields, e->fields,
			       (size_t)e->nfields * sizeof(e->fields[0]));
		attr->ev_fields_op.field_count = e->nfields;
	}
	return 0;
}

/* ---- CC profiles ------------------------------------------------------ */

int prof_cc_modify(struct profiles *p, uint64_t id,
		   const struct mrc_ctl_cc_profile_attr *attr, int mask)
{
	uint32_t m = (uint32_t)mask, to, algo;
	struct prof_cc *cur, c;
	int err;

	if (id == 0 || id >= PROF_MAX_CC || !attr)
		return -EINVAL; /* profile 0 is the device's own */
	err = mask_check(m, CC_MASK, (uint32_t)MRC_CTL_CC_PROFILE_VENDOR_CFG,
			 attr->vendor_cfg);
	if (err)
		return err;
	if (m & MRC_CTL_CC_PROFILE_CUR_STATE)
		return -EINVAL; /* query only */
	cur = &p->cc[id];
	to = cur->state;
	if (m & MRC_CTL_CC_PROFILE_STATE) {
		to = attr->profile_state;
		err = state_step(cur->state, to);
		if (err)
			return err;
	}
	if (cur->state == MRC_CTL_PROFILE_ONLINE) {
		/* No MRC_CTL_OPT_CAP_CC_PROFILE_MODIFY_ONLINE. */
		if (m &
		    (MRC_CTL_CC_PROFILE_ALGORITHM | MRC_CTL_CC_PROFILE_CONFIG))
			return -EINVAL;
		if (to == MRC_CTL_PROFILE_OFFLINE && cur->users)
			return -EBUSY;
	}

	c = *cur;
	if (m & MRC_CTL_CC_PROFILE_ALGORITHM) {
		if (!attr->algorithm)
			algo = PROF_CC_NONE;
		else if (!strcmp(attr->algorithm, prof_cc_algorithms[0]))
			algo = PROF_CC_NSCC;
		else
			return -EINVAL;
		/* A configuration is its algorithm's: a new one needs one. */
		if (c.have & PROF_HAVE_ALGORITHM && algo != c.algo) {
			c.have &= ~PROF_HAVE_CONFIG;
			memset(&c.nscc, 0, sizeof(c.nscc));
		}
		c.algo = algo;
		c.have |= PROF_HAVE_ALGORITHM;
	}
	if (m & MRC_CTL_CC_PROFILE_CONFIG) {
		if (!(c.have & PROF_HAVE_ALGORITHM))
			return -EINVAL; /* nothing to read it as */
		if (c.algo == PROF_CC_NSCC) {
			const struct mrc_ctl_cc_nscc_cfg *n = attr->cc_config;
			char why[128];

			if (!n ||
			    nscc_params_from_cfg(
				    n,
				    n->max_cwnd < PROF_CC_MTU_BYTES &&
						    n->max_cwnd >=
							    MRC_NSCC_MTU_MIN ?
					    n->max_cwnd :
					    PROF_CC_MTU_BYTES,
				    &c.params, why, sizeof(why)))
				return -EINVAL;
			memcpy(&c.nscc, n, sizeof(c.nscc));
		}
		c.have |= PROF_HAVE_CONFIG;
	}

	if (to != cur->state &&
	    !has_needs(c.have, to, PROF_HAVE_ALGORITHM, PROF_HAVE_CONFIG))
		return -EINVAL;
	if (to != cur->state && to == MRC_CTL_PROFILE_INIT)
		memset(&c, 0, sizeof(c));
	c.state = to;
	*cur = c;
	return 0;
}

int prof_cc_offer_default(struct profiles *p)
{
	struct mrc_ctl_cc_profile_attr a = {
		.profile_state = MRC_CTL_PROFILE_OFFLINE,
		.algorithm = prof_cc_algorithms[0],
		.cc_config = &mrc_cc_soft_nscc,
	};
	int err;

	err = prof_cc_modify(p, PROF_CC_DEFAULT, &a,
			     MRC_CTL_CC_PROFILE_STATE |
				     MRC_CTL_CC_PROFILE_ALGORITHM |
				     MRC_CTL_CC_PROFILE_CONFIG);
	a.profile_state = MRC_CTL_PROFILE_ONLINE;
	return err ? err :
		     prof_cc_modify(p, PROF_CC_DEFAULT, &a,
				    MRC_CTL_CC_PROFILE_STATE);
}

int prof_cc_query(struct profiles *p, uint64_t id,
		  struct mrc_ctl_cc_profile_attr *attr, int mask)
{
	uint32_t m = (uint32_t)mask;
	const struct prof_cc *c;
	int err;

	if (id >= PROF_MAX_CC || !attr)
		return -EINVAL;
	err = mask_check(m, CC_MASK, (uint32_t)MRC_CTL_CC_PROFILE_VENDOR_CFG,
			 attr->vendor_cfg);
	if (err)
		return err;
	c = &p->cc[id];
	if (m & MRC_CTL_CC_PROFILE_STATE)
		attr->profile_state = c->state;
	if (m & MRC_CTL_CC_PROFILE_CUR_STATE)
		attr->cur_profile_state = c->state;
	if (m & MRC_CTL_CC_PROFILE_ALGORITHM) {
		attr->algorithm = NULL;
		if (c->have & PROF_HAVE_ALGORITHM && c->algo == PROF_CC_NSCC)
			attr->algorithm = prof_cc_algorithms[0];
	}
	if (m & MRC_CTL_CC_PROFILE_CONFIG) {
		/* mrcd's glue copies it out before anything can change it. */
		attr->cc_config = NULL;
		if (c->have & PROF_HAVE_CONFIG && c->algo == PROF_CC_NSCC)
			attr->cc_config = &c->nscc;
	}
	return 0;
}

/* ---- QPs --------------------------------------------------------------- */

int prof_qp_use(struct profiles *p, uint64_t ev_id, uint64_t cc_id)
{
	struct prof_ev *e;
	struct prof_cc *c;

	if (ev_id >= PROF_MAX_EV || cc_id >= PROF_MAX_CC)
		return -ENOENT;
	e = &p->ev[ev_id];
	c = &p->cc[cc_id];
	if (e->state != MRC_CTL_PROFILE_ONLINE ||
	    c->state != MRC_CTL_PROFILE_ONLINE)
		return -EINVAL;
	e->users++;
	c->users++;
	return 0;
}

void prof_qp_release(struct profiles *p, uint64_t ev_id, uint64_t cc_id)
{
	if (ev_id < PROF_MAX_EV && p->ev[ev_id].users)
		p->ev[ev_id].users--;
	if (cc_id < PROF_MAX_CC && p->cc[cc_id].users)
		p->cc[cc_id].users--;
}

uint32_t prof_ev_used(const struct profiles *p)
{
	uint32_t n = 0;
	int i;

	for (i = 0; i < PROF_MAX_EV; i++)
		if (p->ev[i].state != MRC_CTL_PROFILE_INIT)
			n += p->ev[i].count;
	return n;
}
