// SPDX-License-Identifier: GPL-2.0
/*
 * jit_lines ID...: where each source line of loaded BPF programs sits in
 * their JITed code, so a profiler's sampled instruction addresses can be
 * charged to source lines (tests/bench/profile.sh, docs/perf.md). bpftool
 * needs libbfd for its own JIT listing and Debian's has none; the kernel
 * gives the same mapping without a disassembler: each line_info record
 * and the kernel address its first JITed instruction lands at
 * (jited_line_info). One line per record, sorted by address:
 *
 *   ADDRESS_HEX PROG_ID FILE:LINE SOURCE TEXT
 *
 * ADDRESS_HEX is lower case without 0x, as `perf script -F ip` prints it.
 * A line's instructions run from its address to the next record's. Needs
 * root (CAP_SYS_ADMIN for the programs' info and BTF).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

static int dump(uint32_t id)
{
	struct bpf_prog_info info = {};
	uint32_t len = sizeof(info), n, i, rec, jrec;
	struct bpf_line_info *li = NULL;
	__u64 *jli = NULL;
	struct btf *btf = NULL;
	int fd, err = -1;

	fd = bpf_prog_get_fd_by_id(id);
	if (fd < 0) {
		fprintf(stderr, "jit_lines: program %u: %s\n", id,
			strerror(errno));
		return -1;
	}
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		goto out_err;
	n = info.nr_line_info;
	rec = info.line_info_rec_size;
	jrec = info.jited_line_info_rec_size;
	if (!n || info.nr_jited_line_info != n || !info.btf_id ||
	    rec < sizeof(*li) || jrec != sizeof(__u64)) {
		fprintf(stderr,
			"jit_lines: program %u has no JITed line info "
			"(%u lines, %u JITed, BTF %u)\n",
			id, n, info.nr_jited_line_info, info.btf_id);
		goto out;
	}
	li = calloc(n, rec);
	jli = calloc(n, jrec);
	if (!li || !jli)
		goto out_err;
	memset(&info, 0, sizeof(info));
	info.nr_line_info = n;
	info.line_info_rec_size = rec;
	info.line_info = (uintptr_t)li;
	info.nr_jited_line_info = n;
	info.jited_line_info_rec_size = jrec;
	info.jited_line_info = (uintptr_t)jli;
	len = sizeof(info);
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		goto out_err;
	btf = btf__load_from_kernel_by_id(info.btf_id);
	if (!btf)
		goto out_err;
	for (i = 0; i < n; i++) {
		const struct bpf_line_info *l =
			(const void *)((const char *)li + (size_t)i * rec);
		const char *file = btf__name_by_offset(btf, l->file_name_off);
		const char *text = btf__name_by_offset(btf, l->line_off);
		const char *base = file ? strrchr(file, '/') : NULL;

		while (text && (*text == ' ' || *text == '\t'))
			text++;
		printf("%llx %u %s:%u %s\n", (unsigned long long)jli[i], id,
		       base ? base + 1 : (file ? file : "?"),
		       BPF_LINE_INFO_LINE_NUM(l->line_col), text ? text : "");
	}
	err = 0;
	goto out;
out_err:
	fprintf(stderr, "jit_lines: program %u: %s\n", id, strerror(errno));
out:
	btf__free(btf);
	free(li);
	free(jli);
	close(fd);
	return err;
}

int main(int argc, char **argv)
{
	int i, err = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: jit_lines ID...\n");
		return 2;
	}
	for (i = 1; i < argc; i++) {
		char *end;
		unsigned long id = strtoul(argv[i], &end, 10);

		if (!*argv[i] || *end || id > UINT32_MAX) {
			fprintf(stderr, "jit_lines: %s: not a program id\n",
				argv[i]);
			return 2;
		}
		if (dump((uint32_t)id))
			err = 1;
	}
	return err;
}
