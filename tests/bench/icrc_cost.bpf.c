// SPDX-License-Identifier: GPL-2.0
/*
 * What a RoCE ICRC would cost the data path (docs/wire.md, "No ICRC"):
 * three XDP programs over the whole frame, copied 512 bytes at a time
 * into a per-CPU buffer as mrc_data_sum() (bpf/lib/pkt.h) does:
 *
 *   mrc_sum   the Internet checksum, bpf_csum_diff (what mrc does)
 *   mrc_crc1  CRC32, one table lookup per byte
 *   mrc_crc8  CRC32 sliced by 8: eight tables, 8 bytes a step
 *
 * The CRC loops run in bpf_loop() callbacks: a plain bounded loop over
 * nine 512-byte chunks runs past the verifier's 10^6 instructions. The
 * tables are filled by the loader (icrc_cost.c) before load.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

const volatile __u32 crc_t[8][256];

struct icrc_buf {
	__u8 b[516];
};

/* A 512-byte chunk of the frame (and a pad), per CPU. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct icrc_buf);
} mrc_icrc_buf SEC(".maps");

__u32 result; /* the last sum or CRC, for the loader to check */

struct step_ctx {
	struct icrc_buf *buf;
	__u32 crc;
	__u32 base;
};

static long crc_byte(__u64 j, void *c)
{
	struct step_ctx *s = c;

	if (j >= 512)
		return 1;
	s->crc = crc_t[0][(s->crc ^ s->buf->b[j]) & 0xff] ^ (s->crc >> 8);
	return 0;
}

static long crc_tail(__u64 j, void *c)
{
	struct step_ctx *s = c;

	j += s->base;
	if (j >= 512)
		return 1;
	s->crc = crc_t[0][(s->crc ^ s->buf->b[j]) & 0xff] ^ (s->crc >> 8);
	return 0;
}

static long crc_eight(__u64 k, void *c)
{
	struct step_ctx *s = c;
	__u64 j = k * 8;
	__u32 a, b;

	if (j > 504)
		return 1;
	a = *(__u32 *)&s->buf->b[j] ^ s->crc;
	b = *(__u32 *)&s->buf->b[j + 4];
	s->crc = crc_t[7][a & 0xff] ^ crc_t[6][(a >> 8) & 0xff] ^
		 crc_t[5][(a >> 16) & 0xff] ^ crc_t[4][a >> 24] ^
		 crc_t[3][b & 0xff] ^ crc_t[2][(b >> 8) & 0xff] ^
		 crc_t[1][(b >> 16) & 0xff] ^ crc_t[0][b >> 24];
	return 0;
}

enum { DO_SUM, DO_CRC1, DO_CRC8 };

static __always_inline int over_chunks(struct xdp_md *ctx, int what)
{
	struct step_ctx s = { .crc = ~0u };
	__u32 n = ctx->data_end - ctx->data, i, len, key = 0;
	__s64 sum = 0;

	s.buf = bpf_map_lookup_elem(&mrc_icrc_buf, &key);
	if (!s.buf)
		return XDP_ABORTED;
	for (i = 0; i < 9; i++) {
		if (i * 512 >= n)
			break;
		len = n - i * 512;
		if (len > 512)
			len = 512;
		/* Keep the bounds check on the register the helper gets. */
		asm volatile("" : "+r"(len));
		if (len < 1 || len > 512)
			break;
		if (bpf_xdp_load_bytes(ctx, i * 512, s.buf->b, len))
			return XDP_ABORTED;
		if (what == DO_SUM) {
			__u32 words = (len + 3) & 0x3fc;

			if (words > 512)
				words = 512;
			sum = bpf_csum_diff(NULL, 0, (__be32 *)s.buf->b, words,
					    sum);
		} else if (what == DO_CRC1) {
			bpf_loop(len, crc_byte, &s, 0);
		} else {
			bpf_loop(len / 8, crc_eight, &s, 0);
			s.base = len & ~7u;
			if (len % 8)
				bpf_loop(len % 8, crc_tail, &s, 0);
		}
	}
	result = what == DO_SUM ? (__u32)sum : ~s.crc;
	return XDP_DROP;
}

SEC("xdp")
int mrc_sum(struct xdp_md *ctx)
{
	return over_chunks(ctx, DO_SUM);
}

SEC("xdp")
int mrc_crc1(struct xdp_md *ctx)
{
	return over_chunks(ctx, DO_CRC1);
}

SEC("xdp")
int mrc_crc8(struct xdp_md *ctx)
{
	return over_chunks(ctx, DO_CRC8);
}

char LICENSE[] SEC("license") = "GPL";
