/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains mrcd's answers to applications: each request of a
 * client (clients.h) is checked against what the client owns (objects.h),
 * carried out on the device, told to the modules that follow the object
 * (health, the controller, the pump), written to the books, and answered.
 */
#ifndef MRC_DAEMON_SERVE_H
#define MRC_DAEMON_SERVE_H

#include <stddef.h>
#include <stdint.h>

struct books_ctx;
struct client;
struct clients;
struct ctl;
struct dev;
struct health;
struct links;
struct mrcd_config;
struct mrcd_req;
struct objects;
struct peer;
struct port_spec;
struct pump;

/* The modules serve works over; set up by main. */
struct serve {
	struct dev *dev;
	struct objects *obj;
	struct clients *cl;
	struct ctl *ctl;
	struct health *health;
	struct peer *peer; /* QPs' peers: hellos, dynamic MPR */
	struct pump *pump;
	struct books_ctx *books;
	const struct mrcd_config *cfg; /* in force */
	const struct links *links; /* admin states, for HELLO */
	const struct port_spec *port;
	int nports, v6;
	int lowlat; /* the tc doorbell path is attached */
	const char *pin_dir; /* NULL: --no-pin */
};

/* Handles one request of client c; the reply and its fds go back on its
 * connection. 0, or the connection is to be dropped. */
int serve_request(struct serve *s, struct client *c, const struct mrcd_req *req,
		  size_t len);
/* Frees everything c owns. */
void serve_drop_client(struct serve *s, struct client *c);
/*
 * A QP the books gave this mrcd: its send queue mapped again (the pin),
 * a new doorbell, pumping if work is pending, its ASSUMED_BAD EVs probed.
 * 0 or an errno value (the QP is then freed).
 */
int serve_adopt_qp(struct serve *s, uint32_t qpn);

#endif /* MRC_DAEMON_SERVE_H */
