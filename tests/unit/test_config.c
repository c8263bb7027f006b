// SPDX-License-Identifier: GPL-2.0
/*
 * mrcd's configuration file (daemon/config.c): the defaults, a full file
 * for a 4-port host, every error with its whole message, and which
 * changes SIGHUP may apply.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "config.h"
#include "gray.h"
#include "health.h"
#include "pin.h"
#include "mrc/mrcd_proto.h"

/* The smallest file mrcd starts with. */
#define MINIMAL "port eth0 mac 02:00:00:00:00:01\nanchor anc0\n"

/* text in a new file under /tmp; the caller unlinks path. */
static void write_conf(const char *text, char path[32])
{
	size_t len = strlen(text);
	int fd;

	strcpy(path, "/tmp/test_config.XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	close(fd);
}

static void load_ok(const char *text, struct mrcd_config *c)
{
	char path[32], err[512] = "";
	int rc;

	write_conf(text, path);
	rc = config_load(path, c, err, sizeof(err));
	unlink(path);
	if (rc)
		fail_msg("config_load: %s", err);
}

/*
 * Loading text fails with "PATH" followed by want (":LINE: reason", or
 * ": reason"), and leaves the configuration as it was.
 */
static void load_fails(const char *text, const char *want)
{
	struct mrcd_config c, before;
	char path[32], err[512], exp[600];
	int rc;

	config_defaults(&c);
	c.nports = 3;
	before = c;
	write_conf(text, path);
	rc = config_load(path, &c, err, sizeof(err));
	unlink(path);
	snprintf(exp, sizeof(exp), "%s%s", path, want);
	assert_int_equal(rc, -1);
	assert_string_equal(err, exp);
	assert_memory_equal(&c, &before, sizeof(c));
}

/* One line, as line 7 of mrcd.conf, after the lines in *c. */
static void line_fails(struct mrcd_config *c, const char *line,
		       const char *want)
{
	char err[512];

	assert_int_equal(config_parse_line(c, "mrcd.conf", 7, line, err,
					   sizeof(err)),
			 -1);
	assert_string_equal(err, want);
}

static void defaults(void **state)
{
	struct mrcd_config c;
	unsigned int k;

	(void)state;
	memset(&c, 0xa5, sizeof(c));
	config_defaults(&c);
	assert_string_equal(c.file, "");
	assert_int_equal(c.nports, 0);
	assert_string_equal(c.anchor, "");
	assert_string_equal(c.socket, MRCD_SOCKET_DEFAULT);
	assert_string_equal(c.socket, "/run/mrc/mrcd.sock");
	assert_string_equal(c.pin_dir, MRCD_PIN_DIR_DEFAULT);
	assert_int_equal(c.ipv6, 0);
	assert_int_equal(c.log_level, CONFIG_LOG_INFO);
	assert_int_equal(c.probe_backoff_min_ms, 1);
	assert_int_equal(c.probe_backoff_max_ms, 64);
	assert_int_equal(c.probe_answers, 3);
	assert_int_equal(c.probe_timeout_ms, HEALTH_PROBE_TIMEOUT_NS / 1000000);
	assert_int_equal(c.flap_hold_min_ms, HEALTH_HOLD_MIN_NS / 1000000);
	assert_int_equal(c.flap_hold_max_ms, HEALTH_HOLD_MAX_NS / 1000000);
	assert_int_equal(c.gray_interval_ms, GRAY_INTERVAL_NS / 1000000);
	assert_int_equal(c.gray_factor, GRAY_FACTOR);
	assert_int_equal(c.reorder_us, MRC_REORDER_NS_DEFAULT / 1000);
	assert_int_equal(c.auto_evs_per_port, 16);
	assert_int_equal(c.auto_ev_base, 49152);
	assert_int_equal(c.max_clients, 256);
	assert_int_equal(c.tx_lanes, 1);
	for (k = 0; k < CONFIG_NKEYS; k++)
		assert_int_equal(c.line[k], 0);
	assert_string_equal(config_log_level_name(c.log_level), "info");
}

static const char full[] =
	"# mrcd.conf of a 4-port host\n"
	"\n"
	"port p0 mac 02:00:00:00:00:01 plane 198.18.0.0/20\n"
	"port p1 plane 198.18.16.0/20 mac 02:00:00:00:01:01   # any order\n"
	"\tport p2   mac 02:00:00:00:02:01\n"
	"port p3\n"
	"anchor anc0\n"
	"socket /run/mrc/test.sock\n"
	"pin-dir none\n"
	"ipv6 no\n"
	"log-level debug\n"
	"probe-backoff-min-ms 2\n"
	"probe-backoff-max-ms 128\n"
	"probe-answers 5\n"
	"probe-timeout-ms 7\n"
	"flap-hold-min-ms 20\n"
	"flap-hold-max-ms 2000\n"
	"gray-interval-ms 250\n"
	"gray-factor 12\n"
	"reorder-us 750\n"
	"ack-every 3\n"
	"auto-evs-per-port 8\n"
	"auto-ev-base 32768\n"
	"max-clients 64 # fewer\n"
	"tx-threads 3\n"
	"tx-lanes 2\n"
	"ack-clock no\n"
	"   # the end, without a newline";

static void full_file(void **state)
{
	static const uint8_t mac1[6] = { 2, 0, 0, 0, 1, 1 };
	static const uint8_t pfx1[4] = { 198, 18, 16, 0 };
	struct mrcd_config c;
	unsigned int k;

	(void)state;
	load_ok(full, &c);
	assert_true(!strncmp(c.file, "/tmp/test_config.", 17));
	assert_int_equal(c.nports, 4);
	assert_string_equal(c.port[0].ifname, "p0");
	assert_string_equal(c.port[1].ifname, "p1");
	assert_string_equal(c.port[2].ifname, "p2");
	assert_string_equal(c.port[3].ifname, "p3");
	assert_int_equal(c.port[1].has_mac, 1);
	assert_memory_equal(c.port[1].mac, mac1, 6);
	assert_int_equal(c.port[1].v6, 0);
	assert_int_equal(c.port[1].prefix_len, 20);
	assert_memory_equal(c.port[1].prefix, pfx1, 4);
	assert_int_equal(c.port[2].has_mac, 1);
	assert_int_equal(c.port[2].prefix_len, -1);
	assert_int_equal(c.port[3].has_mac, 0);
	assert_int_equal(c.port[3].prefix_len, -1);
	assert_int_equal(c.port_line[0], 3);
	assert_int_equal(c.port_line[1], 4);
	assert_int_equal(c.port_line[2], 5);
	assert_int_equal(c.port_line[3], 6);
	assert_string_equal(c.anchor, "anc0");
	assert_string_equal(c.socket, "/run/mrc/test.sock");
	assert_string_equal(c.pin_dir, "");
	assert_int_equal(c.ipv6, 0);
	assert_int_equal(c.log_level, CONFIG_LOG_DEBUG);
	assert_int_equal(c.probe_backoff_min_ms, 2);
	assert_int_equal(c.probe_backoff_max_ms, 128);
	assert_int_equal(c.probe_answers, 5);
	assert_int_equal(c.probe_timeout_ms, 7);
	assert_int_equal(c.flap_hold_min_ms, 20);
	assert_int_equal(c.flap_hold_max_ms, 2000);
	assert_int_equal(c.gray_interval_ms, 250);
	assert_int_equal(c.gray_factor, 12);
	assert_int_equal(c.reorder_us, 750);
	assert_int_equal(c.ack_every, 3);
	assert_int_equal(c.auto_evs_per_port, 8);
	assert_int_equal(c.auto_ev_base, 32768);
	assert_int_equal(c.max_clients, 64);
	assert_int_equal(c.tx_threads, 3);
	assert_int_equal(c.tx_lanes, 2);
	assert_int_equal(c.ack_clock, 0);
	/* Every key on its line: port on its first, the rest one a line. */
	assert_int_equal(c.line[CONFIG_PORT], 3);
	for (k = CONFIG_ANCHOR; k < CONFIG_NKEYS; k++)
		assert_int_equal(c.line[k], 7 + k - CONFIG_ANCHOR);
}

/* The same spec as mrcd -p IF,mac=MAC,plane=PREFIX/LEN gives. */
static void port_as_on_command_line(void **state)
{
	struct mrcd_config c;
	struct port_spec p;
	char err[256];

	(void)state;
	load_ok("port p0 plane fd00:0:0:1::/64 mac 02:aa:bb:cc:dd:ee\n"
		"anchor a\nipv6 yes\n",
		&c);
	assert_int_equal(port_spec_parse("p0,mac=02:aa:bb:cc:dd:ee,"
					 "plane=fd00:0:0:1::/64",
					 &p, err, sizeof(err)),
			 0);
	assert_memory_equal(&c.port[0], &p, sizeof(p));
	assert_int_equal(c.port[0].v6, 1);
	assert_int_equal(c.ipv6, 1);
}

static void comments_and_blanks(void **state)
{
	struct mrcd_config c;
	char err[256];

	(void)state;
	config_defaults(&c);
	assert_int_equal(config_parse_line(&c, "f", 1, "", err, sizeof(err)),
			 0);
	assert_int_equal(
		config_parse_line(&c, "f", 2, " \t\r", err, sizeof(err)), 0);
	assert_int_equal(config_parse_line(&c, "f", 3, "#log-level error", err,
					   sizeof(err)),
			 0);
	assert_int_equal(config_parse_line(&c, "f", 4, "log-level warning#",
					   err, sizeof(err)),
			 -1); /* a '#' inside a word is part of it */
	assert_string_equal(
		err,
		"f:4: log-level 'warning#': must be error, warning, info or debug");
	assert_int_equal(config_parse_line(&c, "f", 5,
					   "log-level\twarning #  x y z", err,
					   sizeof(err)),
			 0);
	assert_int_equal(c.log_level, CONFIG_LOG_WARNING);
	assert_int_equal(c.line[CONFIG_LOG_LEVEL], 5);
	assert_int_equal(c.line[CONFIG_ANCHOR], 0);
}

static void unknown_keys(void **state)
{
	struct mrcd_config c;

	(void)state;
	config_defaults(&c);
	line_fails(&c, "probe-backof 3",
		   "mrcd.conf:7: unknown key 'probe-backof'; did you mean "
		   "'probe-backoff-min-ms'?");
	line_fails(&c, "loglevel debug",
		   "mrcd.conf:7: unknown key 'loglevel'; did you mean "
		   "'log-level'?");
	line_fails(&c, "Port eth0",
		   "mrcd.conf:7: unknown key 'Port'; did you mean 'port'?");
	line_fails(&c, "ev-base 1024",
		   "mrcd.conf:7: unknown key 'ev-base'; did you mean "
		   "'auto-ev-base'?");
	line_fails(&c, "reorder-ms 500",
		   "mrcd.conf:7: unknown key 'reorder-ms'; did you mean "
		   "'reorder-us'?");
	line_fails(&c, "no-pin",
		   "mrcd.conf:7: unknown key 'no-pin'; did you mean "
		   "'pin-dir none'?");
	line_fails(&c, "verbose",
		   "mrcd.conf:7: unknown key 'verbose'; did you mean "
		   "'log-level debug'?");
	line_fails(&c, "frobnicate yes",
		   "mrcd.conf:7: unknown key 'frobnicate'");
	line_fails(&c, "-p eth0", "mrcd.conf:7: unknown key '-p'");
}

static void values_missing_or_extra(void **state)
{
	struct mrcd_config c;

	(void)state;
	config_defaults(&c);
	line_fails(&c, "log-level",
		   "mrcd.conf:7: log-level needs a value: error, warning, "
		   "info or debug");
	line_fails(&c, "probe-answers   # three",
		   "mrcd.conf:7: probe-answers needs a value: a number from "
		   "1 to 16");
	line_fails(&c, "port",
		   "mrcd.conf:7: port needs a value: an "
		   "interface name");
	line_fails(&c, "pin-dir",
		   "mrcd.conf:7: pin-dir needs a value: an absolute path or "
		   "none");
	line_fails(&c, "ipv6 yes please",
		   "mrcd.conf:7: ipv6 yes: unexpected 'please' after the "
		   "value");
	line_fails(&c, "socket /run/a b",
		   "mrcd.conf:7: socket /run/a: unexpected 'b' after the "
		   "value");
	assert_int_equal(c.line[CONFIG_IPV6], 0); /* nothing was taken */
}

static void numbers(void **state)
{
	struct mrcd_config c;
	char err[256];

	(void)state;
	config_defaults(&c);
	line_fails(&c, "probe-answers 12x",
		   "mrcd.conf:7: probe-answers: '12x' is not a number");
	line_fails(&c, "probe-answers -1",
		   "mrcd.conf:7: probe-answers: '-1' is not a number");
	line_fails(&c, "probe-answers +3",
		   "mrcd.conf:7: probe-answers: '+3' is not a number");
	line_fails(&c, "probe-answers 0x3",
		   "mrcd.conf:7: probe-answers: '0x3' is not a number");
	line_fails(&c, "probe-answers 3.0",
		   "mrcd.conf:7: probe-answers: '3.0' is not a number");
	line_fails(&c, "probe-answers 0",
		   "mrcd.conf:7: probe-answers 0: must be 1 to 16");
	line_fails(&c, "probe-answers 17",
		   "mrcd.conf:7: probe-answers 17: must be 1 to 16");
	line_fails(&c, "probe-answers 99999999999999999999999",
		   "mrcd.conf:7: probe-answers 99999999999999999999999: must "
		   "be 1 to 16");
	line_fails(&c, "probe-backoff-min-ms 1001",
		   "mrcd.conf:7: probe-backoff-min-ms 1001: must be 1 to "
		   "1000");
	line_fails(&c, "probe-backoff-max-ms 60001",
		   "mrcd.conf:7: probe-backoff-max-ms 60001: must be 1 to "
		   "60000");
	line_fails(&c, "probe-timeout-ms 10001",
		   "mrcd.conf:7: probe-timeout-ms 10001: must be 1 to 10000");
	line_fails(&c, "gray-factor 1",
		   "mrcd.conf:7: gray-factor 1: must be 2 to 100");
	line_fails(&c, "reorder-us 9",
		   "mrcd.conf:7: reorder-us 9: must be 10 to 100000");
	line_fails(&c, "ack-every 0",
		   "mrcd.conf:7: ack-every 0: must be 1 to 64");
	line_fails(&c, "ack-every 65",
		   "mrcd.conf:7: ack-every 65: must be 1 to 64");
	line_fails(&c, "auto-evs-per-port 257",
		   "mrcd.conf:7: auto-evs-per-port 257: must be 1 to 256");
	line_fails(&c, "auto-ev-base 1023",
		   "mrcd.conf:7: auto-ev-base 1023: must be 1024 to 65279");
	line_fails(&c, "auto-ev-base 65280",
		   "mrcd.conf:7: auto-ev-base 65280: must be 1024 to 65279");
	line_fails(&c, "max-clients 1025",
		   "mrcd.conf:7: max-clients 1025: must be 1 to 1024");
	/* Decimal even with a leading zero; bounds are inclusive. */
	assert_int_equal(config_parse_line(&c, "f", 1, "probe-answers 016", err,
					   sizeof(err)),
			 0);
	assert_int_equal(c.probe_answers, 16);
	assert_int_equal(config_parse_line(&c, "f", 2, "auto-ev-base 65279",
					   err, sizeof(err)),
			 0);
	assert_int_equal(c.auto_ev_base, 65279);
}

static void words(void **state)
{
	struct mrcd_config c;
	char err[256];

	(void)state;
	config_defaults(&c);
	line_fails(&c, "log-level verbose",
		   "mrcd.conf:7: log-level 'verbose': must be error, "
		   "warning, info or debug");
	line_fails(&c, "ipv6 1", "mrcd.conf:7: ipv6 '1': must be yes or no");
	line_fails(&c, "socket run/mrcd.sock",
		   "mrcd.conf:7: socket 'run/mrcd.sock': not an absolute "
		   "path");
	line_fails(&c, "pin-dir None",
		   "mrcd.conf:7: pin-dir 'None': not an absolute path");
	line_fails(
		&c,
		"socket /run/mrc/0123456789012345678901234567890123456789"
		"01234567890123456789012345678901234567890123456789012345678",
		"mrcd.conf:7: socket path longer than 107 bytes");
	/* 107 bytes fit in sun_path with its NUL. */
	assert_int_equal(
		config_parse_line(
			&c, "f", 1,
			"socket /run/mrc/0123456789012345678901234567890123456789"
			"0123456789012345678901234567890123456789012345678901234567",
			err, sizeof(err)),
		0);
	assert_int_equal(strlen(c.socket), 107);
	line_fails(&c, "anchor averyveryverylongname",
		   "mrcd.conf:7: anchor 'averyveryverylongname': interface "
		   "name longer than 15 bytes");
	line_fails(&c, "anchor a/b",
		   "mrcd.conf:7: anchor 'a/b': not an interface name");
}

static void ports(void **state)
{
	struct mrcd_config c;
	char err[256];
	int i;

	(void)state;
	config_defaults(&c);
	assert_int_equal(config_parse_line(&c, "mrcd.conf", 3, "port eth1", err,
					   sizeof(err)),
			 0);
	line_fails(&c, "port eth1 mac 02:00:00:00:00:02",
		   "mrcd.conf:7: port eth1 already given on line 3");
	line_fails(&c, "port eth2 mac 02:00:00:00:00",
		   "mrcd.conf:7: port eth2: bad MAC address '02:00:00:00:00'");
	line_fails(&c, "port eth2 mac 02:00:00:00:00:100",
		   "mrcd.conf:7: port eth2: bad MAC address "
		   "'02:00:00:00:00:100'");
	line_fails(&c, "port eth2 mac 02:00:00:00:00:01,plane=10.0.0.0/8",
		   "mrcd.conf:7: port eth2: bad MAC address "
		   "'02:00:00:00:00:01,plane=10.0.0.0/8'");
	line_fails(&c, "port eth2 plane 10.0.0.0/33",
		   "mrcd.conf:7: port eth2: bad plane prefix '10.0.0.0/33' "
		   "(want ADDRESS/LEN)");
	line_fails(&c, "port eth2 plane 10.0.0.0",
		   "mrcd.conf:7: port eth2: bad plane prefix '10.0.0.0' "
		   "(want ADDRESS/LEN)");
	line_fails(&c, "port eth2 plane fd00::/129",
		   "mrcd.conf:7: port eth2: bad plane prefix 'fd00::/129' "
		   "(want ADDRESS/LEN)");
	line_fails(&c, "port eth2 mac",
		   "mrcd.conf:7: port eth2: mac needs a value (a MAC "
		   "address)");
	line_fails(&c, "port eth2 mac 02:00:00:00:00:01 plane",
		   "mrcd.conf:7: port eth2: plane needs a value "
		   "(PREFIX/LEN)");
	line_fails(&c, "port eth2 mac 02:00:00:00:00:01 mac 02:00:00:00:00:02",
		   "mrcd.conf:7: port eth2: mac given twice");
	line_fails(&c, "port eth2 mac=02:00:00:00:00:01",
		   "mrcd.conf:7: port eth2: unexpected "
		   "'mac=02:00:00:00:00:01' (want mac MAC or plane "
		   "PREFIX/LEN)");
	line_fails(&c, "port eth2,mac=02:00:00:00:00:01",
		   "mrcd.conf:7: port 'eth2,mac=02:00:00:00:00:01': not an "
		   "interface name");
	line_fails(&c, "port eth2 mac 02:00:00:00:00:01 plane 10.0.0.0/8 x",
		   "mrcd.conf:7: port eth2: unexpected 'x' (want mac MAC or "
		   "plane PREFIX/LEN)");
	assert_int_equal(c.nports, 1); /* none of those was added */
	for (i = 1; i < MRC_MAX_PORTS; i++) {
		char line[32];

		snprintf(line, sizeof(line), "port eth%d", i + 1);
		assert_int_equal(config_parse_line(&c, "mrcd.conf", 3 + i, line,
						   err, sizeof(err)),
				 0);
	}
	line_fails(&c, "port eth99",
		   "mrcd.conf:7: port eth99: too many ports (at most 8)");
	assert_int_equal(c.line[CONFIG_PORT], 3);
}

static void duplicates(void **state)
{
	struct mrcd_config c;
	char err[256];

	(void)state;
	config_defaults(&c);
	assert_int_equal(config_parse_line(&c, "mrcd.conf", 2, "log-level info",
					   err, sizeof(err)),
			 0);
	line_fails(&c, "log-level debug",
		   "mrcd.conf:7: log-level already given on line 2");
	/* Even with the value it already has, or a bad one. */
	line_fails(&c, "log-level info",
		   "mrcd.conf:7: log-level already given on line 2");
	line_fails(&c, "log-level",
		   "mrcd.conf:7: log-level already given on line 2");
	assert_int_equal(config_parse_line(&c, "mrcd.conf", 4, "pin-dir none",
					   err, sizeof(err)),
			 0);
	line_fails(&c, "pin-dir /sys/fs/bpf/x",
		   "mrcd.conf:7: pin-dir already given on line 4");
	assert_string_equal(c.pin_dir, "");
}

static void long_lines(void **state)
{
	struct mrcd_config c;
	char line[1100], text[1200], err[256];

	(void)state;
	config_defaults(&c);
	/* 1023 bytes: read whole; 1024: an error, not cut short. */
	memset(line, ' ', 1023);
	memcpy(line, "log-level debug", 15);
	memcpy(line + 1023 - 5, "#tail", 5);
	line[1023] = 0;
	assert_int_equal(config_parse_line(&c, "f", 1, line, err, sizeof(err)),
			 0);
	snprintf(text, sizeof(text), "%s%s\n", MINIMAL, line);
	load_ok(text, &c);
	assert_int_equal(c.log_level, CONFIG_LOG_DEBUG);
	line[1023] = 'x';
	line[1024] = 0;
	line_fails(&c, line, "mrcd.conf:7: line longer than 1023 bytes");
	snprintf(text, sizeof(text), "%s%s\nlog-level info\n", MINIMAL, line);
	load_fails(text, ":3: line longer than 1023 bytes");
	/* The same without its newline, at the end of the file. */
	snprintf(text, sizeof(text), "%s%s", MINIMAL, line);
	load_fails(text, ":3: line longer than 1023 bytes");
}

static void file_errors(void **state)
{
	struct mrcd_config c;
	char err[256];

	(void)state;
	config_defaults(&c);
	assert_int_equal(config_load("/nonexistent/mrcd.conf", &c, err,
				     sizeof(err)),
			 -1);
	assert_string_equal(
		err, "/nonexistent/mrcd.conf: No such file or directory");
	assert_int_equal(config_load("/tmp", &c, err, sizeof(err)), -1);
	assert_string_equal(err, "/tmp: Is a directory");
	load_fails("", ": no port given");
	load_fails("# nothing\nanchor anc0\n", ": no port given");
	load_fails("port eth0\n", ": no anchor given");
	load_fails("port eth0\nlog-level debug\nlog-level info\nanchor a\n",
		   ":3: log-level already given on line 2");
	load_fails("port eth0\nanchor a\nipv6 yes\nport eth1\nport eth0\n",
		   ":5: port eth0 already given on line 1");
	load_fails(MINIMAL "max-clients 12x\n",
		   ":3: max-clients: '12x' is not a number");
}

/* A NUL byte would hide the rest of its line: an error. */
static void nul_byte(void **state)
{
	static const char text[] = "port eth0\nanchor a\nlog-level de\0bug\n";
	char path[32], err[256], exp[300];
	struct mrcd_config c;
	int fd;

	(void)state;
	strcpy(path, "/tmp/test_config.XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, sizeof(text) - 1),
			 (ssize_t)sizeof(text) - 1);
	close(fd);
	assert_int_equal(config_load(path, &c, err, sizeof(err)), -1);
	unlink(path);
	snprintf(exp, sizeof(exp), "%s:3: NUL byte in line", path);
	assert_string_equal(err, exp);
}

static void whole_file_checks(void **state)
{
	struct mrcd_config c;

	(void)state;
	load_fails("port eth0\nport eth1\nport eth2\nport eth3\nport eth4\n"
		   "anchor a\nauto-evs-per-port 52\n",
		   ":7: auto-evs-per-port 52 with 5 ports is 260 EVs; a QP has "
		   "at most 256");
	/* Without the key, 16 on each, however many ports. */
	load_ok("port eth0\nport eth1\nport eth2\nport eth3\nport eth4\n"
		"port eth5\nport eth6\nport eth7\nanchor a\n",
		&c);
	assert_int_equal(c.auto_evs_per_port, 16);
	assert_int_equal(c.line[CONFIG_AUTO_EVS_PER_PORT], 0);
	/* 256 EVs over 8 planes. */
	load_ok("port eth0\nport eth1\nport eth2\nport eth3\nport eth4\n"
		"port eth5\nport eth6\nport eth7\nanchor a\n"
		"auto-evs-per-port 32\n",
		&c);
	assert_int_equal(c.auto_evs_per_port, 32);
	load_ok(MINIMAL "auto-evs-per-port 4\n", &c);
	assert_int_equal(c.auto_evs_per_port, 4);
	load_fails("port eth0\nanchor eth1\nport eth1\n",
		   ":2: anchor eth1 is also a port (line 3); the anchor must "
		   "be an idle interface");
	load_fails("port eth0 plane 10.0.0.0/24\nanchor a\nipv6 yes\n",
		   ":1: port eth0: plane 10.0.0.0/24 is IPv4, but ipv6 is yes");
	load_fails("port eth0 plane 10.0.0.0/24\nport eth1 plane fd00::/64\n"
		   "anchor a\n",
		   ":2: port eth1: plane fd00::/64 is IPv6, but ipv6 is no");
	load_fails(MINIMAL "probe-backoff-min-ms 10\nprobe-backoff-max-ms 5\n",
		   ":4: probe-backoff-max-ms 5 is below probe-backoff-min-ms "
		   "10");
	load_fails(MINIMAL "probe-backoff-min-ms 100\n",
		   ":3: probe-backoff-min-ms 100 is above "
		   "probe-backoff-max-ms 64 (its default)");
	load_fails(MINIMAL "flap-hold-max-ms 5\n",
		   ":3: flap-hold-max-ms 5 is below flap-hold-min-ms 10");
	load_ok(MINIMAL "probe-backoff-min-ms 64\nflap-hold-max-ms 10\n", &c);
}

/*
 * deploy/mrcd.conf (when run from the top directory, as make does) loads,
 * and with its "#key value" lines made live gives every key its default.
 */
static void example_file(void **state)
{
	struct mrcd_config c, d;
	char text[8192], line[1100], *p = text;
	unsigned int k;
	FILE *f;

	(void)state;
	f = fopen("deploy/mrcd.conf", "re");
	if (!f)
		skip();
	while (fgets(line, sizeof(line), f)) {
		const char *l = line[0] == '#' && line[1] >= 'a' &&
						line[1] <= 'z' ?
					line + 1 :
					line;

		assert_true(p + strlen(l) < text + sizeof(text));
		p = stpcpy(p, l);
	}
	fclose(f);
	assert_int_equal(config_load("deploy/mrcd.conf", &c, line, 256), 0);
	assert_int_equal(c.nports, 4);
	assert_string_equal(c.anchor, "anc0");
	for (k = CONFIG_SOCKET; k < CONFIG_NKEYS; k++)
		assert_int_equal(c.line[k], 0);
	load_ok(text, &c);
	config_defaults(&d);
	for (k = 0; k < CONFIG_NKEYS; k++)
		assert_int_not_equal(c.line[k], 0); /* every key is shown */
	assert_string_equal(c.socket, d.socket);
	assert_string_equal(c.pin_dir, d.pin_dir);
	memcpy(d.file, c.file, sizeof(d.file));
	memcpy(d.port, c.port, sizeof(d.port));
	memcpy(d.port_line, c.port_line, sizeof(d.port_line));
	d.nports = c.nports;
	memcpy(d.anchor, c.anchor, sizeof(d.anchor));
	memcpy(d.line, c.line, sizeof(d.line));
	assert_memory_equal(&c, &d, sizeof(c));
}

/* old from old_text, new from new_text: the reload check's verdict. */
static void reload(const char *old_text, const char *new_text, const char *want)
{
	struct mrcd_config old, new;
	char err[256] = "", exp[300];
	int rc;

	load_ok(old_text, &old);
	load_ok(new_text, &new);
	rc = config_reload_check(&old, &new, err, sizeof(err));
	if (!want) {
		if (rc)
			fail_msg("reload refused: %s", err);
		return;
	}
	snprintf(exp, sizeof(exp), "%s%s", new.file, want);
	assert_int_equal(rc, -1);
	assert_string_equal(err, exp);
}

#define BASE                                                  \
	"port p0 mac 02:00:00:00:00:01 plane 198.18.0.0/20\n" \
	"port p1 mac 02:00:00:00:01:01\n"                     \
	"anchor anc0\n"

static void reload_run_time(void **state)
{
	(void)state;
	reload(BASE, BASE, NULL);
	reload(BASE,
	       "# moved down a line, same values\n" BASE "socket "
	       "/run/mrc/mrcd.sock\nmax-clients 256\n",
	       NULL);
	reload(BASE,
	       BASE "log-level debug\nprobe-backoff-min-ms 2\n"
		    "probe-backoff-max-ms 100\nprobe-answers 4\n"
		    "probe-timeout-ms 5\nflap-hold-min-ms 1\n"
		    "flap-hold-max-ms 100\ngray-interval-ms 50\n"
		    "gray-factor 4\nreorder-us 1000\n",
	       NULL);
	reload(BASE "log-level debug\nreorder-us 1000\n", BASE, NULL);
}

static void reload_restart(void **state)
{
	(void)state;
	reload(BASE,
	       "port p0 mac 02:00:00:00:00:01 plane 198.18.0.0/20\n"
	       "port p1 mac 02:00:00:00:01:02\nanchor anc0\n",
	       ":2: 'port' cannot change at run time; restart mrcd");
	reload(BASE,
	       "port p0 mac 02:00:00:00:00:01 plane 198.18.0.0/21\n"
	       "port p1 mac 02:00:00:00:01:01\nanchor anc0\n",
	       ":1: 'port' cannot change at run time; restart mrcd");
	reload(BASE,
	       "port p1 mac 02:00:00:00:01:01\n"
	       "port p0 mac 02:00:00:00:00:01 plane 198.18.0.0/20\n"
	       "anchor anc0\n",
	       ":1: 'port' cannot change at run time; restart mrcd");
	reload(BASE, BASE "port p2\n",
	       ":4: 'port' cannot change at run time; restart mrcd");
	reload(BASE,
	       "port p0 mac 02:00:00:00:00:01 plane 198.18.0.0/20\n"
	       "anchor anc0\n",
	       ": 'port' cannot change at run time; restart mrcd");
	reload(BASE,
	       "port p0 mac 02:00:00:00:00:01 plane 198.18.0.0/20\n"
	       "port p1 mac 02:00:00:00:01:01\nanchor anc1\n",
	       ":3: 'anchor' cannot change at run time; restart mrcd");
	reload(BASE, BASE "socket /run/other.sock\n",
	       ":4: 'socket' cannot change at run time; restart mrcd");
	reload(BASE "socket /run/other.sock\n", BASE,
	       ": 'socket' cannot change at run time; restart mrcd");
	reload(BASE, BASE "pin-dir none\n",
	       ":4: 'pin-dir' cannot change at run time; restart mrcd");
	reload(BASE, BASE "pin-dir /sys/fs/bpf/mrc2\n",
	       ":4: 'pin-dir' cannot change at run time; restart mrcd");
	reload("port p0\nanchor a\n", "port p0\nanchor a\nipv6 yes\n",
	       ":3: 'ipv6' cannot change at run time; restart mrcd");
	reload(BASE, BASE "auto-evs-per-port 8\n",
	       ":4: 'auto-evs-per-port' cannot change at run time; restart "
	       "mrcd");
	reload(BASE, BASE "auto-ev-base 1024\n",
	       ":4: 'auto-ev-base' cannot change at run time; restart mrcd");
	reload(BASE, BASE "max-clients 1\n",
	       ":4: 'max-clients' cannot change at run time; restart mrcd");
	/* Several: the first in the new file; run-time ones do not count. */
	reload(BASE,
	       "log-level debug\nmax-clients 1\nsocket /run/x.sock\n" BASE,
	       ":2: 'max-clients' cannot change at run time; restart mrcd");
	reload(BASE "max-clients 8\n", "socket /run/x.sock\n" BASE,
	       ":1: 'socket' cannot change at run time; restart mrcd");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(defaults),
		cmocka_unit_test(full_file),
		cmocka_unit_test(port_as_on_command_line),
		cmocka_unit_test(comments_and_blanks),
		cmocka_unit_test(unknown_keys),
		cmocka_unit_test(values_missing_or_extra),
		cmocka_unit_test(numbers),
		cmocka_unit_test(words),
		cmocka_unit_test(ports),
		cmocka_unit_test(duplicates),
		cmocka_unit_test(long_lines),
		cmocka_unit_test(file_errors),
		cmocka_unit_test(nul_byte),
		cmocka_unit_test(whole_file_checks),
		cmocka_unit_test(example_file),
		cmocka_unit_test(reload_run_time),
		cmocka_unit_test(reload_restart),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
