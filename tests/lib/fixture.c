// SPDX-License-Identifier: GPL-2.0
/*
 * BPF fixture runner: each case becomes a cmocka test whose state is the
 * case; the program runs once on the input through BPF_PROG_TEST_RUN with an
 * xdp_md context naming the ingress interface.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "fixture.h"

static int fx_prog_fd = -1;
static int (*fx_reset)(void);

uint64_t fixture_percpu_sum(int map_fd, uint32_t key)
{
	int ncpu = libbpf_num_possible_cpus(), i;
	uint64_t v[ncpu > 0 ? ncpu : 1], sum = 0;

	if (ncpu <= 0 || bpf_map_lookup_elem(map_fd, &key, v))
		return ~0ull;
	for (i = 0; i < ncpu; i++)
		sum += v[i];
	return sum;
}

int fixture_zero_percpu(int map_fd, uint32_t n)
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t zero[ncpu > 0 ? ncpu : 1];
	uint32_t k;

	memset(zero, 0, sizeof(zero));
	for (k = 0; k < n; k++)
		if (bpf_map_update_elem(map_fd, &k, zero, BPF_ANY))
			return -1;
	return 0;
}

int fixture_share_maps(struct bpf_object *obj, struct bpf_object *from)
{
	struct bpf_map *m, *same;

	bpf_object__for_each_map(m, obj)
	{
		if (bpf_map__is_internal(m))
			continue; /* .rodata and .bss: the program's own */
		same = bpf_object__find_map_by_name(from, bpf_map__name(m));
		if (!same || bpf_map__reuse_fd(m, bpf_map__fd(same)))
			return -1;
	}
	return 0;
}

void fixture_diff(const uint8_t *want, size_t want_len, const uint8_t *got,
		  size_t got_len)
{
	size_t i, n = want_len < got_len ? want_len : got_len, from;

	for (i = 0; i < n && want[i] == got[i]; i++)
		;
	fprintf(stderr,
		"  frame length want %zu got %zu; first difference at "
		"byte %zu\n",
		want_len, got_len, i);
	from = i >= 8 ? i - 8 : 0;
	fprintf(stderr, "  want:");
	for (n = from; n < want_len && n < from + 24; n++)
		fprintf(stderr, " %02x", want[n]);
	fprintf(stderr, "\n  got: ");
	for (n = from; n < got_len && n < from + 24; n++)
		fprintf(stderr, " %02x", got[n]);
	fprintf(stderr, "\n");
}

static void run_case(void **state)
{
	const struct fixture *fx = *state;
	static struct pkt in, want;
	static uint8_t out[PKT_MAX + 256];
	struct xdp_md ctx_in = {}, ctx_out = {};
	struct fixture_out res = {};
	int err;

	LIBBPF_OPTS(bpf_test_run_opts, opts);

	if (fx_reset)
		assert_int_equal(fx_reset(), 0);
	if (fx->setup)
		assert_int_equal(fx->setup(), 0);
	pkt_init(&in);
	fx->in(&in);

	ctx_in.data_end = in.len;
	ctx_in.ingress_ifindex = fx->ingress_ifindex ? fx->ingress_ifindex : 1;
	opts.data_in = in.data;
	opts.data_size_in = in.len;
	opts.data_out = out;
	opts.data_size_out = sizeof(out);
	opts.ctx_in = &ctx_in;
	opts.ctx_size_in = sizeof(ctx_in);
	opts.ctx_out = &ctx_out;
	opts.ctx_size_out = sizeof(ctx_out);
	opts.repeat = 1;
	err = bpf_prog_test_run_opts(fx_prog_fd, &opts);
	assert_int_equal(err, 0);
	assert_int_equal(opts.retval, fx->verdict);

	/* The output starts with the metadata; ctx_out.data is its length. */
	assert_true(ctx_out.data <= opts.data_size_out);
	res.meta = out;
	res.meta_len = ctx_out.data;
	res.frame = out + ctx_out.data;
	res.len = opts.data_size_out - ctx_out.data;

	if (fx->verdict != XDP_DROP && (fx->out || !fx->check)) {
		pkt_init(&want);
		(fx->out ? fx->out : fx->in)(&want);
		if (want.len != res.len ||
		    memcmp(want.data, res.frame, res.len)) {
			fixture_diff(want.data, want.len, res.frame, res.len);
			fail_msg("%s: output frame differs", fx->desc);
		}
	}
	if (fx->check && fx->check(&res))
		fail_msg("%s: check failed", fx->desc);
}

int fixture_run_xdp(const char *group, const struct fixture *cases, size_t n,
		    int prog_fd, int (*reset)(void))
{
	struct CMUnitTest *tests = calloc(n, sizeof(*tests));
	size_t i;
	int failed;

	if (!tests)
		return -1;
	fx_prog_fd = prog_fd;
	fx_reset = reset;
	for (i = 0; i < n; i++) {
		tests[i].name = cases[i].desc;
		tests[i].test_func = run_case;
		tests[i].initial_state = (void *)&cases[i];
	}
	failed = _cmocka_run_group_tests(group, tests, n, NULL, NULL);
	free(tests);
	return failed;
}
