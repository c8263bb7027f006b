// SPDX-License-Identifier: GPL-2.0
/* Ports as planes: the --port grammar and peer addresses per plane. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plane.h"

static int parse_mac(const char *s, uint8_t mac[6])
{
	unsigned int b[6];
	char tail;
	int i;

	if (sscanf(s, "%x:%x:%x:%x:%x:%x%c", &b[0], &b[1], &b[2], &b[3], &b[4],
		   &b[5], &tail) != 6)
		return -1;
	for (i = 0; i < 6; i++) {
		if (b[i] > 255)
			return -1;
		mac[i] = b[i];
	}
	return 0;
}

static int parse_prefix(const char *s, struct port_spec *p)
{
	char addr[64], *slash, *end;
	long len;

	if (strlen(s) >= sizeof(addr))
		return -1;
	strcpy(addr, s);
	slash = strchr(addr, '/');
	if (!slash)
		return -1;
	*slash = 0;
	len = strtol(slash + 1, &end, 10);
	if (*end || end == slash + 1)
		return -1;
	memset(p->prefix, 0, sizeof(p->prefix));
	if (inet_pton(AF_INET, addr, p->prefix) == 1)
		p->v6 = 0;
	else if (inet_pton(AF_INET6, addr, p->prefix) == 1)
		p->v6 = 1;
	else
		return -1;
	if (len < 0 || len > (p->v6 ? 128 : 32))
		return -1;
	p->prefix_len = len;
	return 0;
}

int port_spec_parse(const char *s, struct port_spec *p, char *err,
		    size_t errlen)
{
	char buf[256], *tok, *save = NULL;
	int first = 1;

	memset(p, 0, sizeof(*p));
	p->prefix_len = -1;
	if (strlen(s) >= sizeof(buf)) {
		snprintf(err, errlen, "port '%.32s...' is too long", s);
		return -1;
	}
	strcpy(buf, s);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save), first = 0) {
		if (first) {
			if (!*tok || strlen(tok) >= sizeof(p->ifname) ||
			    strchr(tok, '=')) {
				snprintf(
					err, errlen,
					"port '%s': expected an interface name first",
					s);
				return -1;
			}
			strcpy(p->ifname, tok);
		} else if (!strncmp(tok, "mac=", 4)) {
			if (parse_mac(tok + 4, p->mac)) {
				snprintf(err, errlen,
					 "port '%s': bad MAC address '%s'", s,
					 tok + 4);
				return -1;
			}
			p->has_mac = 1;
		} else if (!strncmp(tok, "plane=", 6)) {
			if (parse_prefix(tok + 6, p)) {
				snprintf(
					err, errlen,
					"port '%s': bad plane prefix '%s' (want ADDRESS/LEN)",
					s, tok + 6);
				return -1;
			}
		} else {
			snprintf(
				err, errlen,
				"port '%s': unknown attribute '%s' (mac=, plane=)",
				s, tok);
			return -1;
		}
	}
	if (first) {
		snprintf(err, errlen, "empty port");
		return -1;
	}
	return 0;
}

static const uint8_t v4_mapped[12] = { [10] = 0xff, [11] = 0xff };

void plane_gid(const uint8_t *addr, int v6, uint8_t gid[16])
{
	if (v6) {
		memcpy(gid, addr, 16);
	} else {
		memcpy(gid, v4_mapped, 12);
		memcpy(gid + 12, addr, 4);
	}
}

/* Bit i (from the most significant) of a len-byte address is a prefix bit. */
static int in_prefix(const uint8_t *a, const uint8_t *pfx, int bits)
{
	int i;

	for (i = 0; i < bits; i++) {
		uint8_t m = 0x80 >> (i % 8);

		if ((a[i / 8] & m) != (pfx[i / 8] & m))
			return 0;
	}
	return 1;
}

int plane_peer_addrs(const struct port_spec *ports, int n,
		     const uint8_t gid[16], uint8_t out[][16])
{
	const uint8_t *addr;
	int v6, from = -1, i, b, bytes;

	v6 = memcmp(gid, v4_mapped, 12) != 0;
	addr = v6 ? gid : gid + 12;
	bytes = v6 ? 16 : 4;
	for (i = 0; i < n && from < 0; i++)
		if (ports[i].v6 == v6 && ports[i].prefix_len >= 0 &&
		    in_prefix(addr, ports[i].prefix, ports[i].prefix_len))
			from = i;
	if (from < 0)
		return -EADDRNOTAVAIL;
	for (i = 0; i < n; i++) {
		memset(out[i], 0, 16);
		if (ports[i].v6 != v6 || ports[i].prefix_len < 0)
			return -EADDRNOTAVAIL;
		/* Prefix bits from plane i, host bits from the peer. */
		for (b = 0; b < bytes * 8; b++) {
			uint8_t m = 0x80 >> (b % 8);
			const uint8_t *src = b < ports[i].prefix_len ?
						     ports[i].prefix :
						     addr;

			out[i][b / 8] |= src[b / 8] & m;
		}
	}
	return 0;
}
