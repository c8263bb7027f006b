// SPDX-License-Identifier: GPL-2.0
/*
 * The TCP baseline of --test lat: the same ping-pong as lat.c over the
 * side channel's TCP connection, the client's end and the server's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"
#include "perf.h"
#include "server.h"

/* The same ping-pong over the side channel's TCP connection. */
int client_lat_tcp(struct perf_client *c, uint64_t size, uint64_t iters,
		   struct row_result *res)
{
	uint64_t deadline = now_ns() + c->params.limit_ms * 1000000ull;
	uint64_t i, k = 0, warm = lat_warmup(iters), *rtt;
	uint8_t *buf;
	int err = 0;

	rtt = calloc(iters, sizeof(*rtt));
	buf = calloc(1, size);
	if (!rtt || !buf) {
		free(rtt);
		free(buf);
		return -ENOMEM;
	}
	for (i = 0; i < iters && !g_stop && now_ns() < deadline; i++) {
		uint64_t t0 = now_ns();

		memcpy(buf, &i, size < sizeof(i) ? size : sizeof(i));
		err = write_full(c->fd, buf, size, deadline);
		if (!err)
			err = read_full_mode(c->fd, buf, size, deadline,
					     !c->dev.idle_us);
		if (err)
			break;
		res->msgs++;
		if (i >= warm)
			rtt[k++] = now_ns() - t0;
	}
	res->posted = i;
	res->stopped = i < iters;
	lat_stats(rtt, k, res);
	free(rtt);
	free(buf);
	return err;
}

int server_echo_tcp(struct perf_server *s, const struct sc_start *st,
		    uint64_t deadline, struct sc_done *done)
{
	uint64_t i;
	uint8_t *buf;
	int err = 0;

	buf = malloc(st->size_bytes);
	if (!buf)
		return -ENOMEM;
	for (i = 0; i < st->iters && !err; i++) {
		err = read_full_mode(s->fd, buf, st->size_bytes, deadline,
				     !s->dev.idle_us);
		if (!err)
			err = write_full(s->fd, buf, st->size_bytes, deadline);
	}
	free(buf);
	if (err && err != -ECONNRESET)
		return err;
	return sc_recv(s->fd, SC_DONE, done, sizeof(*done), PERF_IO_TIMEOUT_MS);
}
