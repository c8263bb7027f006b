// SPDX-License-Identifier: GPL-2.0
/*
 * icrc_cost [REPEAT]: ns per frame of the Internet checksum and of CRC32
 * (the RoCE ICRC's), byte-wise and sliced by 8, in XDP programs
 * (icrc_cost.bpf.c) through BPF_PROG_TEST_RUN, for frames of 64 to 3000
 * bytes; each CRC checked against this file's own. One JSON object a
 * line. Needs root. docs/wire.md, "No ICRC", quotes it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "icrc_cost.skel.h"

static uint32_t table[8][256];

/* CRC32 (reflected 0xedb88320, as Ethernet and the ICRC) tables. */
static void tables(void)
{
	uint32_t i, k, c;

	for (i = 0; i < 256; i++) {
		c = i;
		for (k = 0; k < 8; k++)
			c = c & 1 ? c >> 1 ^ 0xedb88320u : c >> 1;
		table[0][i] = c;
	}
	for (k = 1; k < 8; k++)
		for (i = 0; i < 256; i++)
			table[k][i] = table[k - 1][i] >> 8 ^
				      table[0][table[k - 1][i] & 0xff];
}

static uint32_t crc32(const uint8_t *p, size_t len)
{
	uint32_t c = ~0u;

	while (len--)
		c = table[0][(c ^ *p++) & 0xff] ^ c >> 8;
	return ~c;
}

int main(int argc, char **argv)
{
	static const unsigned int sizes[] = { 64, 1024, 1500, 3000 };
	static uint8_t frame[3000];
	unsigned int repeat = argc > 1 ? (unsigned int)atoi(argv[1]) : 50000;
	struct icrc_cost *skel;
	struct bpf_program *prog[3];
	const char *name[3] = { "checksum", "crc32_bytewise", "crc32_slice8" };
	int k, i, rc = 0;

	tables();
	for (i = 0; i < (int)sizeof(frame); i++)
		frame[i] = (uint8_t)(i * 131 + 7);
	libbpf_set_print(NULL);
	skel = icrc_cost__open();
	if (!skel)
		return 1;
	memcpy((void *)skel->rodata->crc_t, table, sizeof(table));
	if (icrc_cost__load(skel)) {
		fprintf(stderr, "icrc_cost: load failed\n");
		icrc_cost__destroy(skel);
		return 1;
	}
	prog[0] = skel->progs.mrc_sum;
	prog[1] = skel->progs.mrc_crc1;
	prog[2] = skel->progs.mrc_crc8;
	for (k = 0; k < 3; k++) {
		printf("{\"what\": \"%s\"", name[k]);
		for (i = 0; i < 4; i++) {
			LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = frame,
				    .data_size_in = sizes[i], .repeat = repeat);

			if (bpf_prog_test_run_opts(bpf_program__fd(prog[k]),
						   &o)) {
				perror("icrc_cost: test run");
				rc = 1;
				break;
			}
			if (k && skel->bss->result != crc32(frame, sizes[i])) {
				fprintf(stderr, "icrc_cost: %s wrong at %u\n",
					name[k], sizes[i]);
				rc = 1;
			}
			printf(", \"ns_%u_bytes\": %u", sizes[i], o.duration);
		}
		printf("}\n");
	}
	icrc_cost__destroy(skel);
	return rc;
}
