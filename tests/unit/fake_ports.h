/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Four ports for the module tests that need planes and links: port p is
 * "pP" on plane 198.18.16P.0/20 with next hop 02:00:00:00:00:0P, has
 * carrier and is enabled, and the fake device's port p has ifindex 20 + p.
 */
#ifndef MRC_TESTS_FAKE_PORTS_H
#define MRC_TESTS_FAKE_PORTS_H

#include <stdio.h>
#include <string.h>

#include "dev.h"
#include "links.h"
#include "plane.h"
#include "mrc_ctl.h"

#define FAKE_PORTS 4

static inline int fake_ports(struct port_spec *port, struct links *l,
			     struct dev *d)
{
	char err[128], spec[96];
	int p;

	memset(l, 0, sizeof(*l));
	l->nports = FAKE_PORTS;
	for (p = 0; p < FAKE_PORTS; p++) {
		l->up[p] = 1;
		l->admin[p] = MRC_CTL_PORT_ADMIN_ENABLED;
		snprintf(spec, sizeof(spec),
			 "p%d,mac=02:00:00:00:00:0%d,plane=198.18.%d.0/20", p,
			 p, 16 * p);
		if (port_spec_parse(spec, &port[p], err, sizeof(err)))
			return -1;
		d->port[p].ifindex = 20 + p;
	}
	return 0;
}

#endif /* MRC_TESTS_FAKE_PORTS_H */
