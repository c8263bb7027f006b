/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains mrcd's configuration file (deploy/mrcd.conf.5): one
 * directive per line, parsed and checked here without side effects, so
 * that mrcd can refuse to start on a bad file, and on SIGHUP keep what it
 * runs with when the new file is bad or changes what needs a restart.
 */
#ifndef MRC_DAEMON_CONFIG_H
#define MRC_DAEMON_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "plane.h"
#include "mrc/abi.h"

#define CONFIG_FILE_DEFAULT "/etc/mrc/mrcd.conf"
#define CONFIG_LINE_MAX 1023 /* bytes in a line, without its newline */
#define CONFIG_PATH_MAX 256 /* bytes in a path value, with the NUL */

/* Path health's timers (docs/health.md): the defaults of the probe-*,
 * flap-hold-* and gray-interval-ms keys; mrcd runs with the values in
 * force. */
#define HEALTH_PROBE_OK 3 /* consecutive answers: GOOD again */
#define HEALTH_PROBE_TIMEOUT_NS 2000000ull /* a probe unanswered: failed */
#define HEALTH_BACKOFF_MIN_NS 1000000ull /* first wait, and after a fail */
#define HEALTH_BACKOFF_MAX_NS 64000000ull
#define HEALTH_HOLD_MIN_NS 10000000ull /* a flapping EV answers this long */
#define HEALTH_HOLD_MAX_NS 1000000000ull
#define GRAY_INTERVAL_NS 100000000ull /* between looks at EVs' RTTs */

enum config_log_level {
	CONFIG_LOG_ERROR,
	CONFIG_LOG_WARNING,
	CONFIG_LOG_INFO, /* the default: what mrcd logs without -v */
	CONFIG_LOG_DEBUG, /* what -v adds */
};

/* Every key, in the order of the man page; indexes mrcd_config.line. */
enum config_key {
	CONFIG_PORT,
	CONFIG_ANCHOR,
	CONFIG_SOCKET,
	CONFIG_PIN_DIR,
	CONFIG_IPV6,
	CONFIG_LOG_LEVEL,
	CONFIG_PROBE_BACKOFF_MIN_MS,
	CONFIG_PROBE_BACKOFF_MAX_MS,
	CONFIG_PROBE_ANSWERS,
	CONFIG_PROBE_TIMEOUT_MS,
	CONFIG_FLAP_HOLD_MIN_MS,
	CONFIG_FLAP_HOLD_MAX_MS,
	CONFIG_GRAY_INTERVAL_MS,
	CONFIG_GRAY_FACTOR,
	CONFIG_REORDER_US,
	CONFIG_ACK_EVERY,
	CONFIG_AUTO_EVS_PER_PORT,
	CONFIG_AUTO_EV_BASE,
	CONFIG_MAX_CLIENTS,
	CONFIG_TX_THREADS,
	CONFIG_TX_LANES,
	CONFIG_ACK_CLOCK,
	CONFIG_NKEYS
};

struct mrcd_config {
	char file[CONFIG_PATH_MAX]; /* read from ("" before config_load) */
	struct port_spec port[MRC_MAX_PORTS]; /* in plane order */
	unsigned int port_line[MRC_MAX_PORTS];
	int nports;
	char anchor[16]; /* "": none given (required) */
	char socket[108]; /* fits sun_path */
	char pin_dir[CONFIG_PATH_MAX]; /* "": pin-dir none */
	int ipv6;
	enum config_log_level log_level;
	/* Path health (docs/health.md); all of these apply on SIGHUP. */
	uint32_t probe_backoff_min_ms;
	uint32_t probe_backoff_max_ms;
	uint32_t probe_answers; /* consecutive answers: GOOD again */
	uint32_t probe_timeout_ms;
	uint32_t flap_hold_min_ms;
	uint32_t flap_hold_max_ms;
	uint32_t gray_interval_ms;
	uint32_t gray_factor;
	uint32_t reorder_us; /* for QPs reaching RTS after it is set */
	uint32_t ack_every; /* coalesced ACKs (wire.md); likewise */
	/* mrcd's own EVs for QPs without an EV profile. */
	uint32_t auto_evs_per_port;
	uint32_t auto_ev_base; /* first UDP source port */
	uint32_t max_clients;
	uint32_t tx_threads; /* 0: one per CPU mrcd may run on */
	uint32_t tx_lanes; /* calls at once for one QP at most; 0: TXT_LANES_MAX;
			     * 1 (the default): no lanes */
	int ack_clock; /* CC QPs send from their ACKs (the default: yes) */
	/* Where each key was given (port: the first port line); 0: default. */
	unsigned int line[CONFIG_NKEYS];
};

/* The configuration without a file: every default, no port, no anchor. */
void config_defaults(struct mrcd_config *c);

/*
 * Reads path into *c: defaults, then each line, then config_finish().
 * Returns 0, or -1 with err set to "FILE:LINE: reason" ("FILE: reason"
 * when the file cannot be read or something is missing from all of it);
 * *c is changed only on success.
 */
int config_load(const char *path, struct mrcd_config *c, char *err,
		size_t errlen);

/*
 * One line (without its newline; comments and blank lines are fine) into
 * *c, naming file and lineno in errors. Returns 0 or -1 with err set.
 */
int config_parse_line(struct mrcd_config *c, const char *file,
		      unsigned int lineno, const char *line, char *err,
		      size_t errlen);

/*
 * What only the whole file can say, run by config_load after the last
 * line: a port and an anchor are given, the anchor is no port, plane
 * prefixes are of the ipv6 family, minimums are not above maximums, and
 * the auto EVs of all ports fit in a QP (without auto-evs-per-port, more
 * than 4 ports get MRC_QP_EVS / ports each). Messages name c->file.
 * Returns 0 or -1 with err set.
 */
int config_finish(struct mrcd_config *c, char *err, size_t errlen);

/*
 * Whether mrcd running with old can take new on SIGHUP: 0 if every change
 * applies at run time, else -1 with err naming the first key (by its line
 * in new) that needs a restart: "FILE:LINE: 'socket' cannot change at run
 * time; restart mrcd" ("FILE: ..." when new no longer gives the key).
 */
int config_reload_check(const struct mrcd_config *old,
			const struct mrcd_config *new, char *err,
			size_t errlen);

/* "error", "warning", "info" or "debug". */
const char *config_log_level_name(enum config_log_level l);

#endif /* MRC_DAEMON_CONFIG_H */
