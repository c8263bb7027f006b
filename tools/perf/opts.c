// SPDX-License-Identifier: GPL-2.0
/*
 * mrc-perf's command line (opts.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opts.h"
#include "perf.h"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: mrc-perf server [ADDR] [-p PORT] [--wait S]\n"
		"       mrc-perf client HOST [OPTIONS]\n"
		"\n"
		"Options (client; the server learns them from the client):\n"
		"  -t, --test bw|rate|lat   RDMA WRITE goodput (default), WRITE_IMM\n"
		"                           message rate, or WRITE_IMM ping-pong latency\n"
		"  -s, --size BYTES         message size (bw 1M, rate 64, lat 8);\n"
		"                           suffixes K, M, G\n"
		"      --sweep MIN-MAX      one row per size, doubling from MIN to MAX\n"
		"  -d, --depth N            WRs in flight per QP, 1-%u (default %u)\n"
		"  -D, --seconds S          duration of a bw/rate row (default %.0f)\n"
		"                           or the time limit with --iters; SIGUSR1\n"
		"                           ends a bw row now, as if its time were up\n"
		"  -n, --iters N            WRs (bw, rate) or round trips (lat,\n"
		"                           default %u, first %u are warm-up)\n"
		"  -q, --qps N              QP pairs, 1-%u (default 1)\n"
		"      --verify             check every byte at the server\n"
		"      --imm                bw with WRITE_IMM\n"
		"      --transport T        mrc (default), tcp or both (lat only)\n"
		"      --mpr N              PSNs in flight, units of 128 (default:\n"
		"                           the device's largest)\n"
		"      --timeout N          ACK timeout 1.024 us x 2^N (default 14)\n"
		"      --ev-profile N       this side's QPs name EV profile N (default 0,\n"
		"                           the device's own; see mrcctl ev-profile)\n"
		"      --cc-profile N       ...and CC profile N (default 0: none)\n"
		"      --dynamic-mpr        this side's QPs enable dynamic MPR (in\n"
		"                           effect when the peer's do too)\n"
		"      --mpr-dest N         this side's QPs accept N x 128 PSNs\n"
		"                           (default: as --mpr)\n"
		"      --vary-mpr-dest N@S  server: S seconds into the first row, its\n"
		"                           QPs accept N x 128 PSNs (dynamic MPR)\n"
		"      --timeline FILE      bw: a CSV of goodput, retransmissions and EVs\n"
		"                           in use each ms, FILE.events.csv, and a PNG\n"
		"                           (gnuplot); with --at, a failover summary\n"
		"      --at MS:CMD          bw: run sh -c CMD MS ms into the run (up to\n"
		"                           6; the first is the fault, the next its heal)\n"
		"      --retry L,E          linear, exponential retries (default 7,7;\n"
		"                           E=25: forever)\n"
		"      --mtu BYTES          path MTU 256-4096, both sides (default:\n"
		"                           the port's active MTU; mrc cuts a larger one\n"
		"                           to what the ports carry, so on links of one\n"
		"                           MTU 4096 fills every frame)\n"
		"      --sge N              scatter entries per WRITE, 1-%u\n"
		"      --idle-us N          both sides: after %u empty polls wait\n"
		"                           for a completion event, at most N us\n"
		"                           (default %u, --test lat: 0; 0: spin,\n"
		"                           and TCP ping-pong spins on its socket)\n"
		"  -p, --port PORT          side channel TCP port (default %s)\n"
		"      --wait S             server: wait S for a client (default\n"
		"                           120); client: retry connecting (10)\n"
		"  -j, --json               one JSON object instead of a table\n"
		"  -h, --help               this text\n",
		PERF_MAX_DEPTH, PERF_MAX_DEPTH, PERF_SECONDS_DEFAULT,
		PERF_LAT_ITERS_DEFAULT, PERF_WARMUP_ITERS, PERF_MAX_QPS,
		PERF_MAX_SGE, PERF_IDLE_POLLS, PERF_IDLE_US_DEFAULT,
		PERF_PORT_DEFAULT);
}

static int bad_value(const char *opt, const char *val, const char *want)
{
	pr_err("bad value for %s: '%s' (%s)", opt, val, want);
	return -EINVAL;
}

static int parse_u64(const char *opt, const char *s, uint64_t min, uint64_t max,
		     bool suffix, uint64_t *out)
{
	unsigned long long v;
	char *end;
	char want[96];

	snprintf(want, sizeof(want), "expected %" PRIu64 " to %" PRIu64 "%s",
		 min, max, suffix ? ", suffixes K M G" : "");
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *s == '-')
		return bad_value(opt, s, want);
	if (suffix && *end) {
		unsigned int shift = *end == 'K' || *end == 'k' ? 10 :
				     *end == 'M' || *end == 'm' ? 20 :
				     *end == 'G' || *end == 'g' ? 30 :
								  64;

		if (shift == 64 || end[1] || v > (ULLONG_MAX >> shift))
			return bad_value(opt, s, want);
		v <<= shift;
		end++;
	}
	if (*end || v < min || v > max)
		return bad_value(opt, s, want);
	*out = v;
	return 0;
}

static int parse_uint(const char *opt, const char *s, unsigned int min,
		      unsigned int max, unsigned int *out)
{
	uint64_t v;
	int err = parse_u64(opt, s, min, max, false, &v);

	if (!err)
		*out = (unsigned int)v;
	return err;
}

static int parse_seconds(const char *opt, const char *s, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	if (errno || end == s || *end || !(*out > 0) || *out > 86400)
		return bad_value(opt, s, "seconds, more than 0, at most 86400");
	return 0;
}

static int parse_sweep(const char *s, struct perf_opts *o)
{
	char min[32], *dash = strchr(s, '-');
	int err;

	if (!dash || (size_t)(dash - s) >= sizeof(min))
		return bad_value("--sweep", s, "expected MIN-MAX");
	memcpy(min, s, (size_t)(dash - s));
	min[dash - s] = '\0';
	err = parse_u64("--sweep", min, 1, PERF_MAX_SIZE_BYTES, true,
			&o->sweep_min_bytes);
	if (!err)
		err = parse_u64("--sweep", dash + 1, o->sweep_min_bytes,
				PERF_MAX_SIZE_BYTES, true, &o->sweep_max_bytes);
	o->sweep = true;
	return err;
}

static int parse_retry(const char *s, struct perf_opts *o)
{
	unsigned int l, e;
	int n = -1;

	if (sscanf(s, "%u,%u%n", &l, &e, &n) != 2 || n < 0 || s[n] || l > 7 ||
	    e > 25)
		return bad_value("--retry", s, "expected L,E with L<=7, E<=25");
	o->retry_linear = l;
	o->retry_exp = e;
	return 0;
}

static int parse_choice(const char *opt, const char *s,
			const char *const *names, unsigned int n,
			unsigned int *out)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (!strcmp(s, names[i])) {
			*out = i;
			return 0;
		}
	return bad_value(opt, s, "see --help");
}

enum {
	OPT_SWEEP = 256,
	OPT_VERIFY,
	OPT_IMM,
	OPT_TRANSPORT,
	OPT_MPR,
	OPT_TIMEOUT,
	OPT_RETRY,
	OPT_TIMELINE,
	OPT_AT,
	OPT_MTU,
	OPT_SGE,
	OPT_WAIT,
	OPT_IDLE,
	OPT_EV_PROFILE,
	OPT_CC_PROFILE,
	OPT_DYN_MPR,
	OPT_MPR_DEST,
	OPT_VARY_MPR,
};

static const struct option long_opts[] = {
	{ "test", required_argument, NULL, 't' },
	{ "size", required_argument, NULL, 's' },
	{ "sweep", required_argument, NULL, OPT_SWEEP },
	{ "depth", required_argument, NULL, 'd' },
	{ "seconds", required_argument, NULL, 'D' },
	{ "iters", required_argument, NULL, 'n' },
	{ "qps", required_argument, NULL, 'q' },
	{ "verify", no_argument, NULL, OPT_VERIFY },
	{ "imm", no_argument, NULL, OPT_IMM },
	{ "transport", required_argument, NULL, OPT_TRANSPORT },
	{ "mpr", required_argument, NULL, OPT_MPR },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "retry", required_argument, NULL, OPT_RETRY },
	{ "timeline", required_argument, NULL, OPT_TIMELINE },
	{ "at", required_argument, NULL, OPT_AT },
	{ "mtu", required_argument, NULL, OPT_MTU },
	{ "sge", required_argument, NULL, OPT_SGE },
	{ "port", required_argument, NULL, 'p' },
	{ "wait", required_argument, NULL, OPT_WAIT },
	{ "idle-us", required_argument, NULL, OPT_IDLE },
	{ "ev-profile", required_argument, NULL, OPT_EV_PROFILE },
	{ "cc-profile", required_argument, NULL, OPT_CC_PROFILE },
	{ "dynamic-mpr", no_argument, NULL, OPT_DYN_MPR },
	{ "mpr-dest", required_argument, NULL, OPT_MPR_DEST },
	{ "vary-mpr-dest", required_argument, NULL, OPT_VARY_MPR },
	{ "json", no_argument, NULL, 'j' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int parse_opt(int c, const char *arg, struct perf_opts *o)
{
	static const char *const xports[] = { "", "mrc", "tcp", "both" };
	unsigned int v = 0;
	int err = 0;

	switch (c) {
	case 't':
		err = parse_choice("--test", arg, test_names, 3, &v);
		o->test = (enum perf_test)v;
		break;
	case 's':
		o->size_set = true;
		return parse_u64("--size", arg, 1, PERF_MAX_SIZE_BYTES, true,
				 &o->size_bytes);
	case OPT_SWEEP:
		return parse_sweep(arg, o);
	case 'd':
		return parse_uint("--depth", arg, 1, PERF_MAX_DEPTH, &o->depth);
	case 'D':
		o->seconds_set = true;
		return parse_seconds("--seconds", arg, &o->seconds);
	case 'n':
		return parse_u64("--iters", arg, 1, 1ull << 40, false,
				 &o->iters);
	case 'q':
		return parse_uint("--qps", arg, 1, PERF_MAX_QPS, &o->qps);
	case OPT_VERIFY:
		o->verify = true;
		break;
	case OPT_IMM:
		o->imm = true;
		break;
	case OPT_TRANSPORT:
		err = parse_choice("--transport", arg, xports, 4, &v);
		o->transport = v;
		break;
	case OPT_MPR:
		return parse_uint("--mpr", arg, 1, 255, &o->mpr);
	case OPT_TIMEOUT:
		return parse_uint("--timeout", arg, 0, 24, &o->timeout);
	case OPT_TIMELINE:
		o->timeline = arg;
		return 0;
	case OPT_AT:
		if (o->nat == TL_MAX_AT) {
			pr_err("--at: at most %d", TL_MAX_AT);
			return -EINVAL;
		}
		o->at[o->nat++] = arg;
		return 0;
	case OPT_RETRY:
		return parse_retry(arg, o);
	case OPT_MTU:
		err = parse_uint("--mtu", arg, 256, 4096, &o->mtu_bytes);
		if (!err && (o->mtu_bytes & (o->mtu_bytes - 1)))
			err = bad_value("--mtu", arg, "a power of 2");
		break;
	case OPT_EV_PROFILE:
		return parse_uint("--ev-profile", arg, 0, 63, &o->ev_profile);
	case OPT_CC_PROFILE:
		return parse_uint("--cc-profile", arg, 0, 15, &o->cc_profile);
	case OPT_DYN_MPR:
		o->dyn_mpr = true;
		break;
	case OPT_MPR_DEST:
		return parse_uint("--mpr-dest", arg, 1, 255, &o->mpr_dest);
	case OPT_VARY_MPR: {
		char tail;

		if (sscanf(arg, "%u@%lf%c", &o->vary_mpr, &o->vary_after_s,
			   &tail) != 2 ||
		    !o->vary_mpr || o->vary_mpr > 255 ||
		    !(o->vary_after_s >= 0) || o->vary_after_s > 3600)
			return bad_value("--vary-mpr-dest", arg,
					 "N@SECONDS, N 1..255");
		break;
	}
	case OPT_SGE:
		return parse_uint("--sge", arg, 1, PERF_MAX_SGE, &o->sge);
	case 'p':
		o->port = arg;
		break;
	case OPT_WAIT:
		return parse_seconds("--wait", arg, &o->wait_s);
	case OPT_IDLE:
		o->idle_set = true;
		return parse_uint("--idle-us", arg, 0, 100000, &o->idle_us);
	case 'j':
		o->json = true;
		break;
	default:
		return -EINVAL;
	}
	return err;
}

/* Options that make no sense together, and defaults that depend on --test. */
static int check_opts(struct perf_opts *o)
{
	if (!o->size_set)
		o->size_bytes = o->test == TEST_BW   ? 1 << 20 :
				o->test == TEST_RATE ? 64 :
						       8;
	/* Latency is measured spinning, as on a hardware NIC (and TCP's
	 * ping-pong spins on its socket too): a sleep is a timer's latency. */
	if (!o->idle_set && o->test == TEST_LAT)
		o->idle_us = 0;
	if ((o->timeline || o->nat) &&
	    (o->test != TEST_BW || o->sweep || o->server)) {
		pr_err("--timeline and --at are for one --test bw row (no --sweep)");
		return -EINVAL;
	}
	if (o->transport & XPORT_TCP && o->test != TEST_LAT) {
		pr_err("--transport tcp is only for --test lat");
		return -EINVAL;
	}
	if (o->verify && o->test == TEST_LAT) {
		pr_err("--verify works with --test bw and rate, not lat");
		return -EINVAL;
	}
	if (o->imm && o->test != TEST_BW) {
		pr_err("--imm is for --test bw (rate and lat always use it)");
		return -EINVAL;
	}
	if (o->sweep && o->sweep_max_bytes / o->sweep_min_bytes > (1ull << 40))
		return -EINVAL;
	if ((o->sweep ? o->sweep_min_bytes : o->size_bytes) < o->sge) {
		pr_err("--sge %u needs messages of at least %u bytes", o->sge,
		       o->sge);
		return -EINVAL;
	}
	if (o->test == TEST_LAT &&
	    (o->sweep ? o->sweep_max_bytes : o->size_bytes) > (64u << 20)) {
		pr_err("--size is at most 64M for --test lat");
		return -EINVAL;
	}
	return 0;
}

int parse_args(int argc, char **argv, struct perf_opts *o)
{
	int c, err;

	*o = (struct perf_opts){
		.port = PERF_PORT_DEFAULT,
		.transport = XPORT_MRC,
		.depth = PERF_MAX_DEPTH,
		.seconds = PERF_SECONDS_DEFAULT,
		.qps = 1,
		.timeout = 14,
		.retry_linear = 7,
		.retry_exp = 7,
		.sge = 1,
		.idle_us = PERF_IDLE_US_DEFAULT,
	};
	while ((c = getopt_long(argc, argv, "t:s:d:D:n:q:p:jh", long_opts,
				NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			exit(0);
		}
		if (c == '?') {
			fprintf(stderr, "Try 'mrc-perf --help'.\n");
			return -EINVAL;
		}
		err = parse_opt(c, optarg, o);
		if (err)
			return err;
	}
	if (optind >= argc) {
		pr_err("say 'server' or 'client HOST' (see --help)");
		return -EINVAL;
	}
	if (!strcmp(argv[optind], "server")) {
		o->server = true;
		o->host = optind + 1 < argc ? argv[optind + 1] : NULL;
		if (!o->wait_s)
			o->wait_s = 120;
		return optind + 2 < argc ? bad_value("server", argv[optind + 2],
						     "one listen address") :
					   0;
	}
	if (strcmp(argv[optind], "client")) {
		pr_err("unknown mode '%s': say 'server' or 'client HOST'",
		       argv[optind]);
		return -EINVAL;
	}
	if (optind + 2 != argc) {
		pr_err("client needs exactly one HOST");
		return -EINVAL;
	}
	o->host = argv[optind + 1];
	if (!o->wait_s)
		o->wait_s = 10;
	return check_opts(o);
}
