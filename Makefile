# SPDX-License-Identifier: GPL-2.0
#
# mrc: a software MRC device where eBPF is the NIC.
#
#   make deps     install the Debian packages the build and tests need
#   make          build everything into build/
#   make test     unit tests (no root), plain and under ASan/UBSan
#   make check    everything: unit, BPF fixture and network-namespace tests
#   make bench    benchmarks (figures, not pass/fail)
#   make verify   load every BPF object, print verified instruction counts
#   make lint     clang-format, shellcheck, cppcheck, the installed headers alone
#   make demo     testbed up, traffic, a failure, the result, testbed down
#   make soak     mrcd 10 minutes under a mixed load: no growth, measured
#   make install  mrcd, mrcctl, mrc-perf, libmrc, headers, unit, man pages,
#                 the Wireshark dissector
#                 (PREFIX=/usr/local, DESTDIR); make uninstall reverses it
#
# V=1 shows full commands.

BUILD      ?= build
PREFIX     ?= /usr/local
DESTDIR    ?=
NPROC      := $(shell nproc 2>/dev/null || echo 1)
CLANG      ?= clang
BPFTOOL    ?= bpftool
CC         ?= gcc

MULTIARCH  := $(shell $(CC) -dumpmachine 2>/dev/null)
LIBS_BPF   := $(shell pkg-config --libs libbpf 2>/dev/null || echo -lbpf -lelf -lz)
LIBS_CMOCKA := $(shell pkg-config --libs cmocka 2>/dev/null || echo -lcmocka)

# -fno-strict-aliasing: headers are rewritten through both struct fields and
# __u16 words (for checksums), as in the kernel, which builds the same way.
BPF_CFLAGS := -g -O2 -target bpf -mcpu=v3 -fno-strict-aliasing -Wall -Wextra -Werror \
	      -Iinclude -I/usr/include/$(MULTIARCH)
CFLAGS     ?= -O2 -g
CFLAGS     += -std=gnu11 -Wall -Wextra -Wformat-signedness -Werror \
	      -Iinclude -I$(BUILD)/tests/fabric -I$(BUILD)/bpf
SAN_FLAGS  := -fsanitize=address,undefined -fno-sanitize-recover=all \
	      -fno-omit-frame-pointer

ifeq ($(V),1)
Q =
msg =
else
Q = @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

.DEFAULT_GOAL := all
.DELETE_ON_ERROR:
.SECONDARY:
.PHONY: all deps test check bench verify lint demo fuzz soak install uninstall clean \
	unit-tests bpf-tests system-tests

# --- BPF objects and skeletons ------------------------------------------------
BPF_SRCS   := $(wildcard bpf/*.bpf.c tests/fabric/*.bpf.c)
BPF_OBJS   := $(patsubst %.bpf.c,$(BUILD)/%.bpf.o,$(BPF_SRCS))
BPF_HDRS   := $(wildcard bpf/lib/*.h include/mrc/*.h tests/fabric/*.h)

$(BUILD)/%.tmp.bpf.o: %.bpf.c $(BPF_HDRS) Makefile
	$(call msg,BPF,$@)
	@mkdir -p $(@D)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(BUILD)/%.bpf.o: $(BUILD)/%.tmp.bpf.o
	$(call msg,GEN-OBJ,$@)
	$(Q)$(BPFTOOL) gen object $@ $<

# The skeleton's name is the file's stem with "mrc_" added when missing:
# fabric.bpf.c -> struct mrc_fab (see SKEL_NAME_fabric).
SKEL_NAME_fabric := mrc_fab
SKEL_NAME_fabgen := fabgen
SKEL_NAME_pass := mrc_fab_pass
$(BUILD)/%.skel.h: $(BUILD)/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name $(or $(SKEL_NAME_$(notdir $*)),$(notdir $*)) > $@

# --- userspace ----------------------------------------------------------------
PROGS := $(BUILD)/daemon/mrcd $(BUILD)/libmrc.a $(BUILD)/libmrc.so.2 \
	 $(BUILD)/tools/mrc-perf $(BUILD)/tools/mrcctl
TOOLS := $(BUILD)/tests/fabricctl $(BUILD)/tests/flowgen $(BUILD)/tests/fabgen \
	 $(BUILD)/tests/mrc_xfer $(BUILD)/tests/mrc_api_check \
	 $(BUILD)/tests/mptcp_bulk $(BUILD)/tests/ctl_e2e
# Fuzzers (tests/fuzz/): make fuzz runs them long, make check a seeded slice.
FUZZERS := $(BUILD)/tests/fuzz_rx $(BUILD)/tests/fuzz_ack $(BUILD)/tests/fuzz_tc \
	   $(BUILD)/tests/fuzz_fabric \
	   $(BUILD)/tests/fuzz_config $(BUILD)/tests/fuzz_link_msg \
	   $(BUILD)/tests/fuzz_mrcd $(BUILD)/daemon/mrcd-asan
# Built for the tests, never installed: the service manager's stand-in, a
# raw MRCD_RESUME, the fuzzers, a blind injector.
TEST_TOOLS := $(BUILD)/tests/notify_listen $(BUILD)/tests/mrcd_resume \
	      $(BUILD)/tests/mrcd_limits $(FUZZERS) \
	      $(BUILD)/tests/inject $(BUILD)/tests/nl_forge $(BUILD)/tests/srv6_send \
	      $(BUILD)/tests/wire_pcap $(BUILD)/tests/icrc_cost \
	      $(BUILD)/tests/xdp_limits $(BUILD)/tests/jit_lines \
	      $(BUILD)/tests/pauses
DEV_SKELS := $(BUILD)/bpf/mrc_xdp_rx.skel.h $(BUILD)/bpf/mrc_xdp_tx.skel.h \
	     $(BUILD)/bpf/mrc_xdp_ack_tx.skel.h $(BUILD)/bpf/mrc_pump_gone.skel.h \
	     $(BUILD)/bpf/mrc_xdp_ctl.skel.h $(BUILD)/bpf/mrc_build_id.h

# The data path's build identity, the SHA-256 of its objects: a restarted
# mrcd reuses the running programs only when theirs is its own
# (docs/mrcd.md, "Takeover").
DEV_BPF_OBJS := $(patsubst %,$(BUILD)/bpf/%.bpf.o,mrc_xdp_rx mrc_xdp_tx mrc_xdp_ack_tx mrc_xdp_ctl mrc_tc_tx mrc_pump_gone)
$(BUILD)/bpf/mrc_build_id.h: $(DEV_BPF_OBJS)
	$(call msg,GEN,$@)
	$(Q)printf '#define MRC_BUILD_ID "%s"\n' "$$(cat $^ | sha256sum | cut -c1-64)" >$@

$(BUILD)/tests/mrc_xfer: tests/tools/mrc_xfer.c daemon/dev.c daemon/dev_lowlat.c daemon/pin.c lib/doorbell.c \
		daemon/log.c daemon/clock.c daemon/nscc_params.c lib/common/cc_default.c \
		daemon/dev.h daemon/log.h bpf/lib/nscc.h \
		$(DEV_SKELS) $(wildcard include/mrc/*.h)
	$(call msg,CC,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -Idaemon -o $@ $(filter %.c,$^) $(LIBS_BPF)

# libmrc: the OCP MRC application API and the soft verbs device. Programs
# link it alone or beside -libverbs, in either order: it defines the verbs
# calls they make and rebinds them to itself at load (lib/bind.c).
LIBMRC_SRCS := lib/verbs.c lib/context.c lib/cq.c lib/qp.c lib/compat.c lib/gid.c \
	       lib/doorbell.c lib/ctl.c lib/log.c lib/bind.c lib/verbs_names.c \
	       lib/devlist.c lib/plain_cq.c lib/plain_qp.c lib/verbs_plain.c \
	       lib/verbs_async.c lib/verbs_str.c
LIBMRC_OBJS := $(patsubst lib/%.c,$(BUILD)/lib/%.o,$(LIBMRC_SRCS))
LIBMRC_HDRS := include/mrc.h include/mrc_api_ver.h include/mrc_ext.h lib/internal.h lib/log.h lib/compat.h lib/gid.h \
	       lib/bind.h lib/devlist.h lib/plain.h lib/verbs_names.h \
	       include/mrc_ctl.h include/mrc_ctl_api_ver.h \
	       $(wildcard include/mrc/*.h)
LIBS_MRC   := $(BUILD)/libmrc.a -lpthread -ldl

# libmrc-common: the userspace code mrcd, libmrc and the tools share, built
# once (never installed): message framing (msg.c), checksums (csum.c), EV
# field expansion (ev_fields.c), JSON values (json.c), output tables
# (table.c) and allocation for the tools (xalloc.c). -fPIC for
# libmrc.so.2, hidden so that libmrc.so.2 exports none of it. The
# sanitizer variant is mrcd-asan's.
COMMON_SRCS := $(wildcard lib/common/*.c)
COMMON_OBJS := $(patsubst lib/common/%.c,$(BUILD)/lib/common/%.o,$(COMMON_SRCS))
COMMON_HDRS := $(wildcard lib/common/*.h) lib/csum.h $(LIBMRC_HDRS)
COMMON_CFLAGS := -fPIC -fvisibility=hidden -Ilib -Ilib/common
# What libmrc calls of it: an installed libmrc.a must link on its own.
LIBMRC_COMMON := $(BUILD)/lib/common/msg.o $(BUILD)/lib/common/ev_fields.o

$(BUILD)/lib/common/%.o: lib/common/%.c $(COMMON_HDRS)
	$(call msg,CC,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(COMMON_CFLAGS) -c $< -o $@

$(BUILD)/san/lib/common/%.o: lib/common/%.c $(COMMON_HDRS)
	$(call msg,CC-SAN,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(SAN_FLAGS) $(COMMON_CFLAGS) -c $< -o $@

$(BUILD)/libmrc-common.a: $(COMMON_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(BUILD)/libmrc-common-san.a: $(patsubst $(BUILD)/%,$(BUILD)/san/%,$(COMMON_OBJS))
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(BUILD)/lib/%.o: lib/%.c $(LIBMRC_HDRS)
	$(call msg,CC,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -fPIC -fvisibility=default -c $< -o $@

$(BUILD)/libmrc.a: $(LIBMRC_OBJS) $(LIBMRC_COMMON)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(BUILD)/libmrc.so.2: $(LIBMRC_OBJS) $(BUILD)/libmrc-common.a
	$(call msg,LD,$@)
	$(Q)$(CC) -shared -Wl,-soname,libmrc.so.2 -Wl,-Bsymbolic-functions -o $@ $^ -lpthread -ldl

# mrc-perf: one file per job (tools/perf/*.c).
PERF_SRCS := $(wildcard tools/perf/*.c)
$(BUILD)/tools/mrc-perf: $(PERF_SRCS) $(wildcard tools/perf/*.h) \
		$(BUILD)/libmrc.a $(LIBMRC_HDRS)
	$(call msg,CC,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -Itools/perf -o $@ $(filter %.c,$^) $(LIBS_MRC)

# mrcctl: one file per object (tools/mrcctl/OBJECT.c) around main.c.
MRCCTL_SRCS := $(wildcard tools/mrcctl/*.c)
# capture.c loads bpf/mrc_capture.bpf.c (its skeleton), hence libbpf.
$(BUILD)/tools/mrcctl: $(MRCCTL_SRCS) $(wildcard tools/mrcctl/*.h) \
		$(BUILD)/libmrc.a $(BUILD)/libmrc-common.a $(COMMON_HDRS) \
		$(BUILD)/bpf/mrc_capture.skel.h
	$(call msg,CC,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -Itools/mrcctl -Ilib/common -I$(BUILD)/bpf -o $@ $(filter %.c,$^) \
		$(BUILD)/libmrc.a $(BUILD)/libmrc-common.a -lpthread $(LIBS_BPF)

MRCD_SRCS := daemon/mrcd.c daemon/serve.c daemon/plane.c daemon/dev.c \
	     daemon/dev_lowlat.c daemon/pin.c daemon/health.c daemon/links.c \
	     daemon/link_msg.c \
	     daemon/gray.c daemon/ctl.c daemon/profiles.c daemon/config.c \
	     daemon/notify.c daemon/books.c daemon/log.c daemon/loop.c \
	     daemon/pump.c daemon/events.c daemon/clients.c daemon/objects.c \
	     daemon/probe.c daemon/clock.c daemon/nscc_params.c daemon/peer.c \
	     daemon/txthreads.c lib/doorbell.c
$(BUILD)/daemon/mrcd: $(MRCD_SRCS) $(wildcard daemon/*.h) $(DEV_SKELS) \
		$(BUILD)/bpf/mrc_tc_tx.skel.h $(BUILD)/libmrc-common.a \
		$(wildcard include/mrc/*.h)
	$(call msg,CC,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -Idaemon -Ilib -o $@ $(filter %.c %.a,$^) $(LIBS_BPF) -lmnl

# mrcd under ASan and UBSan, for the socket protocol fuzzer (150).
$(BUILD)/daemon/mrcd-asan: $(MRCD_SRCS) $(wildcard daemon/*.h) $(DEV_SKELS) \
		$(BUILD)/bpf/mrc_tc_tx.skel.h $(BUILD)/libmrc-common-san.a \
		$(wildcard include/mrc/*.h)
	$(call msg,CC,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(SAN_FLAGS) -Idaemon -Ilib -o $@ $(filter %.c %.a,$^) $(LIBS_BPF) -lmnl

$(BUILD)/tests/fuzz_mrcd: tests/fuzz/fuzz_mrcd.c $(BUILD)/libmrc-common.a \
		$(wildcard include/mrc/*.h)
	$(call msg,CC,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -o $@ $(filter %.c %.a,$^)

$(BUILD)/tests/mrc_api_check: tests/tools/mrc_api_check.c $(BUILD)/libmrc.a \
		$(LIBMRC_HDRS)
	$(call msg,CC,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -o $@ $< $(LIBS_MRC) $(LIBS_CMOCKA)

$(BUILD)/tests/fuzz_rx: tests/fuzz/fuzz_rx.c tests/fuzz/model.h $(BUILD)/bpf/mrc_xdp_rx.skel.h \
		$(wildcard include/mrc/*.h)
	$(call msg,CC,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -o $@ $< $(LIBS_BPF)

$(BUILD)/tests/fuzz_ack: tests/fuzz/fuzz_ack.c tests/fuzz/model.h $(BUILD)/bpf/mrc_xdp_rx.skel.h \
		$(BUILD)/bpf/mrc_xdp_tx.skel.h tests/lib/tx_call.h $(wildcard include/mrc/*.h)
	$(call msg,CC,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -Itests/lib -o $@ $< $(LIBS_BPF)

$(BUILD)/tests/fuzz_tc: tests/fuzz/fuzz_tc.c tests/fuzz/model.h $(BUILD)/bpf/mrc_xdp_rx.skel.h \
		$(BUILD)/bpf/mrc_tc_tx.skel.h $(wildcard include/mrc/*.h)
	$(call msg,CC,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -o $@ $< $(LIBS_BPF)

$(BUILD)/tests/fuzz_fabric: tests/fuzz/fuzz_fabric.c tests/fuzz/model.h \
		$(BUILD)/tests/fabric/fabric.skel.h $(wildcard tests/fabric/*.h)
	$(call msg,CC,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -Itests/fabric -o $@ $< $(LIBS_BPF)

# libFuzzer targets: clang, with ASan and UBSan.
FUZZ_CFLAGS := -g -O1 -std=gnu11 -Wall -Wextra -Werror -Iinclude -Idaemon \
	       -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
$(BUILD)/tests/fuzz_config: tests/fuzz/fuzz_config.c daemon/config.c daemon/plane.c \
		$(wildcard daemon/config.h daemon/plane.h include/mrc/*.h)
	$(call msg,CLANG,$@)
	@mkdir -p $(@D)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) -o $@ $(filter %.c,$^)

$(BUILD)/tests/fuzz_link_msg: tests/fuzz/fuzz_link_msg.c daemon/link_msg.c \
		daemon/link_msg.h
	$(call msg,CLANG,$@)
	@mkdir -p $(@D)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) -o $@ $(filter %.c,$^)

$(BUILD)/tests/inject: tests/tools/inject.c tests/lib/pkt.c $(BUILD)/libmrc-common.a \
		$(wildcard include/mrc/*.h tests/lib/*.h)
	$(call msg,CC,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -Itests/lib -Ilib -o $@ $(filter %.c %.a,$^) $(LIBS_BPF)

# Hand-made SRv6 frames into a plane (tests/system/168-srv6-usid.sh).
$(BUILD)/tests/srv6_send: tests/tools/srv6_send.c
	$(call msg,CC,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -o $@ $<

# Packets of every kind from the real programs, as pcaps for the dissector
# test (tests/system/003-dissector.sh).
$(BUILD)/tests/wire_pcap: tests/tools/wire_pcap.c tests/tools/wire_expect.c \
		tests/tools/wire_garble.c tests/tools/wire_expect.h tests/lib/pkt.c \
		$(BUILD)/libmrc-common.a $(BUILD)/bpf/mrc_xdp_rx.skel.h \
		$(BUILD)/bpf/mrc_xdp_tx.skel.h $(wildcard include/mrc/*.h tests/lib/*.h)
	$(call msg,CC,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -Itests/lib -Itests/tools -Ilib -o $@ $(filter %.c %.a,$^) $(LIBS_BPF)

# What a RoCE ICRC would cost (tests/bench/icrc.sh, docs/wire.md).
$(BUILD)/tests/icrc_cost: tests/bench/icrc_cost.c $(BUILD)/tests/bench/icrc_cost.skel.h
	$(call msg,CC,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -I$(BUILD)/tests/bench -o $@ $< $(LIBS_BPF)

# How long the machine stops a CPU by itself (tests/bench/failover.sh,
# limits.sh).
$(BUILD)/tests/pauses: tests/bench/pauses.c
	$(call msg,CC,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -o $@ $< -lpthread

# Sampled JIT addresses to source lines (tests/bench/profile.sh).
$(BUILD)/tests/jit_lines: tests/bench/jit_lines.c
	$(call msg,CC,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -o $@ $< $(LIBS_BPF)

# The machine's limits beside the data path's figures (tests/bench/limits.sh,
# docs/perf.md).
$(BUILD)/tests/xdp_limits: tests/bench/xdp_limits.c $(BUILD)/tests/bench/xdp_limits.skel.h
	$(call msg,CC,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -I$(BUILD)/tests/bench -o $@ $< $(LIBS_BPF)

$(BUILD)/tests/nl_forge: tests/tools/nl_forge.c
	$(call msg,CC,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -o $@ $<

$(BUILD)/tests/notify_listen: tests/tools/notify_listen.c
	$(call msg,CC,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -o $@ $<

$(BUILD)/tests/mrcd_limits: tests/tools/mrcd_limits.c $(BUILD)/libmrc-common.a \
		include/mrc/mrcd_proto.h
	$(call msg,CC,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -o $@ $(filter %.c %.a,$^)

$(BUILD)/tests/mrcd_resume: tests/tools/mrcd_resume.c $(BUILD)/libmrc-common.a \
		include/mrc/mrcd_proto.h
	$(call msg,CC,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -o $@ $(filter %.c %.a,$^)

$(BUILD)/tests/ctl_e2e: tests/tools/ctl_e2e.c $(BUILD)/libmrc.a $(LIBMRC_HDRS)
	$(call msg,CC,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -o $@ $< $(LIBS_MRC)

$(BUILD)/tests/fabricctl: tests/fabric/fabricctl.c tests/fabric/fault_parse.c \
		$(BUILD)/tests/fabric/fabric.skel.h $(BUILD)/tests/fabric/pass.skel.h \
		$(wildcard tests/fabric/*.h)
	$(call msg,CC,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -o $@ $(filter %.c,$^) $(LIBS_BPF) -lm

$(BUILD)/tests/fabgen: tests/fabric/fabgen.c $(BUILD)/tests/fabric/fabgen.skel.h \
		$(BUILD)/libmrc-common.a lib/csum.h
	$(call msg,CC,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -Ilib -o $@ $(filter %.c %.a,$^) $(LIBS_BPF)

# The failover benchmark's MPTCP baseline, with mrc-perf's timeline code.
$(BUILD)/tests/mptcp_bulk: tests/tools/mptcp_bulk.c tools/perf/timeline.c \
		tools/perf/timeline.h $(BUILD)/libmrc.a $(LIBMRC_HDRS)
	$(call msg,CC,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -Itools/perf -o $@ $(filter %.c,$^) $(LIBS_MRC)

$(BUILD)/tests/flowgen: tests/tools/flowgen.c
	$(call msg,CC,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -o $@ $<

all: $(BPF_OBJS) $(TOOLS) $(TEST_TOOLS) $(PROGS)

# --- unit tests (cmocka, no root) ---------------------------------------------
# One binary per tests/unit/test_X.c; UNIT_SRCS_X lists what it links.
UNIT_TESTS := $(patsubst tests/unit/%.c,%,$(wildcard tests/unit/test_*.c))
UNIT_SRCS_test_csum        := lib/common/csum.c
UNIT_SRCS_test_fault_parse := tests/fabric/fault_parse.c
UNIT_SRCS_test_pkt         := tests/lib/pkt.c lib/common/csum.c
UNIT_SRCS_test_gray        := daemon/gray.c
UNIT_SRCS_test_nscc        := daemon/nscc_params.c bpf/lib/nscc.h \
			      lib/common/cc_default.c
UNIT_SRCS_test_ev_fields   := lib/common/ev_fields.c
UNIT_SRCS_test_profiles    := daemon/profiles.c daemon/nscc_params.c \
			      lib/common/ev_fields.c lib/common/cc_default.c
UNIT_SRCS_test_config      := daemon/config.c daemon/plane.c
UNIT_SRCS_test_perf_report := tools/perf/report.c tools/perf/fields.c \
			      tools/perf/names.c tools/perf/timeline.c
UNIT_SRCS_test_perf_timeline := tools/perf/timeline.c
UNIT_LIBS_test_perf_timeline := -lpthread
# mrcd's modules over tests/unit/fake_device.c (the device, probe frames,
# the clock): the module under test and the real modules below it.
UNIT_FAKE_DEV := tests/unit/fake_device.c daemon/log.c
UNIT_SRCS_test_health      := daemon/health.c daemon/gray.c daemon/links.c \
			      daemon/link_msg.c daemon/loop.c daemon/config.c \
			      daemon/plane.c $(UNIT_FAKE_DEV)
UNIT_LIBS_test_health      := -lmnl
UNIT_SRCS_test_pump        := daemon/pump.c daemon/txthreads.c daemon/loop.c \
			      $(UNIT_FAKE_DEV)
UNIT_LIBS_test_pump        := -lpthread
UNIT_SRCS_test_peer        := daemon/peer.c $(UNIT_SRCS_test_health)
UNIT_LIBS_test_peer        := -lmnl
UNIT_SRCS_test_ctl         := daemon/ctl.c daemon/objects.c daemon/profiles.c \
			      daemon/peer.c \
			      daemon/nscc_params.c lib/common/cc_default.c \
			      lib/common/ev_fields.c lib/common/msg.c \
			      $(UNIT_SRCS_test_health)
UNIT_LIBS_test_ctl         := -lmnl
UNIT_SRCS_test_serve       := daemon/serve.c daemon/clients.c daemon/pump.c \
			      daemon/txthreads.c \
			      $(UNIT_SRCS_test_ctl)
UNIT_LIBS_test_serve       := -lmnl -lpthread
# The books on plain memory; pin.c for the link (the test pins nothing).
UNIT_SRCS_test_books       := daemon/books.c daemon/pin.c daemon/log.c
UNIT_LIBS_test_books       := -lbpf
UNIT_SRCS_test_clients     := daemon/clients.c daemon/loop.c daemon/log.c \
			      daemon/clock.c lib/common/msg.c
UNIT_SRCS_test_lib_log     := lib/log.c
UNIT_LIBS_test_lib_log     := -lpthread
UNIT_SRCS_test_lib_compat  := lib/compat.c lib/gid.c lib/log.c
UNIT_LIBS_test_lib_compat  := -lpthread
UNIT_SRCS_test_lib_verbs   := lib/plain_cq.c lib/plain_qp.c lib/verbs_plain.c \
			      lib/verbs_async.c lib/verbs_str.c lib/devlist.c \
			      lib/gid.c
UNIT_LIBS_test_lib_verbs   := -lpthread
UNIT_SRCS_test_lib_post    := lib/qp.c lib/cq.c lib/doorbell.c lib/compat.c \
			      lib/gid.c lib/log.c
UNIT_LIBS_test_lib_post    := -lpthread
UNIT_SRCS_test_lib_bind    := lib/bind.c
UNIT_MRCCTL_STUBS := tests/unit/mrcctl_stubs.c tools/mrcctl/args.c
UNIT_SRCS_test_capture     := tools/mrcctl/capture_args.c $(UNIT_MRCCTL_STUBS) \
			      tools/mrcctl/pcap.c lib/common/xalloc.c
UNIT_CFLAGS_test_capture   := -Itools/mrcctl -Ilib/common
UNIT_SRCS_test_usid        := tools/mrcctl/usid_plan.c $(UNIT_MRCCTL_STUBS) \
			      lib/common/ev_fields.c lib/common/xalloc.c
UNIT_CFLAGS_test_usid      := -Itools/mrcctl -Ilib/common
UNIT_SRCS_test_trace       := tools/mrcctl/trace_args.c $(UNIT_MRCCTL_STUBS) \
			      lib/common/ev_fields.c lib/common/xalloc.c
UNIT_CFLAGS_test_trace     := -Itools/mrcctl -Ilib/common
UNIT_LIBS_test_lib_bind    := -lpthread -ldl

UNIT_HDRS := $(wildcard include/*.h include/mrc/*.h tests/lib/*.h \
	       tests/fabric/*.h lib/*.h lib/common/*.h tools/perf/*.h \
	       daemon/*.h tests/unit/*.h tools/mrcctl/*.h)

define unit_rule
$(BUILD)/unit/$(1): tests/unit/$(1).c $$(UNIT_SRCS_$(1)) $$(UNIT_HDRS)
	$$(call msg,CC,$$@)
	@mkdir -p $$(@D)
	$$(Q)$$(CC) $$(CFLAGS) $$(UNIT_CFLAGS_$(1)) -Itests/lib -Ilib -Itests/fabric -Idaemon -o $$@ $$(filter %.c,$$^) $$(LIBS_CMOCKA) $$(UNIT_LIBS_$(1)) -lm
$(BUILD)/unit-san/$(1): tests/unit/$(1).c $$(UNIT_SRCS_$(1)) $$(UNIT_HDRS)
	$$(call msg,CC-SAN,$$@)
	@mkdir -p $$(@D)
	$$(Q)$$(CC) $$(CFLAGS) $$(SAN_FLAGS) $$(UNIT_CFLAGS_$(1)) -Itests/lib -Ilib -Itests/fabric -Idaemon -o $$@ $$(filter %.c,$$^) $$(LIBS_CMOCKA) $$(UNIT_LIBS_$(1)) -lm
endef
$(foreach t,$(UNIT_TESTS),$(eval $(call unit_rule,$(t))))

UNIT_BINS := $(addprefix $(BUILD)/unit/,$(UNIT_TESTS)) \
	     $(addprefix $(BUILD)/unit-san/,$(UNIT_TESTS))

# Plain, under ASan/UBSan, and the plain ones again under valgrind (leaks
# and file descriptors), as run-unit.sh's VALGRIND=1 does.
test: $(UNIT_BINS)
	$(Q)tests/run-unit.sh $(UNIT_BINS)
	$(Q)VALGRIND=1 tests/run-unit.sh $(addprefix $(BUILD)/unit/,$(UNIT_TESTS))

# --- BPF fixture tests (root: BPF_PROG_TEST_RUN) ------------------------------
BPF_TESTS := $(patsubst tests/bpf/%.c,%,$(wildcard tests/bpf/test_*.c))
BPF_TEST_SKEL_test_fabric_faults := $(BUILD)/tests/fabric/fabric.skel.h
BPF_TEST_SKEL_test_fabric_srv6 := $(BUILD)/tests/fabric/fabric.skel.h
BPF_TEST_SKEL_test_xdp_rx := $(BUILD)/bpf/mrc_xdp_rx.skel.h
BPF_TEST_SKEL_test_ack := $(BUILD)/bpf/mrc_xdp_rx.skel.h $(BUILD)/bpf/mrc_xdp_tx.skel.h
BPF_TEST_SKEL_test_loopback := $(BUILD)/bpf/mrc_xdp_rx.skel.h $(BUILD)/bpf/mrc_xdp_tx.skel.h $(BUILD)/bpf/mrc_xdp_ack_tx.skel.h $(BUILD)/bpf/mrc_pump_gone.skel.h
BPF_TEST_SKEL_test_capture_out := $(BUILD)/bpf/mrc_xdp_rx.skel.h $(BUILD)/bpf/mrc_xdp_tx.skel.h $(BUILD)/bpf/mrc_capture.skel.h
BPF_TEST_SKEL_test_tc_tx := $(BUILD)/bpf/mrc_xdp_rx.skel.h $(BUILD)/bpf/mrc_tc_tx.skel.h
BPF_TEST_SKEL_test_health := $(DEV_SKELS)
BPF_TEST_SKEL_test_dev_sq := $(DEV_SKELS)
# Beyond the fixture library: the daemon's device layer, for test_dev_sq.
BPF_TEST_SRC_test_dev_sq := daemon/dev.c daemon/pin.c daemon/log.c \
	daemon/clock.c daemon/nscc_params.c lib/doorbell.c
BPF_TEST_SKEL_test_dev_reuse := $(DEV_SKELS) $(BUILD)/bpf/mrc_tc_tx.skel.h
BPF_TEST_SRC_test_dev_reuse := $(BPF_TEST_SRC_test_dev_sq)

define bpf_test_rule
$(BUILD)/bpftest/$(1): tests/bpf/$(1).c tests/lib/pkt.c tests/lib/fixture.c $$(BPF_TEST_SRC_$(1)) $(BUILD)/libmrc-common.a $$(BPF_TEST_SKEL_$(1)) $$(wildcard tests/lib/*.h include/mrc/*.h tests/fabric/*.h daemon/*.h)
	$$(call msg,CC,$$@)
	@mkdir -p $$(@D)
	$$(Q)$$(CC) $$(CFLAGS) -Itests/lib -Ilib -Itests/fabric -Idaemon -o $$@ $$(filter %.c %.a,$$^) $$(LIBS_BPF) $$(LIBS_CMOCKA) -lm
endef
$(foreach t,$(BPF_TESTS),$(eval $(call bpf_test_rule,$(t))))
BPF_TEST_BINS := $(addprefix $(BUILD)/bpftest/,$(BPF_TESTS))

bpf-tests: $(BPF_TEST_BINS)
	$(Q)tests/run-unit.sh $(BPF_TEST_BINS)

system-tests: all
	$(Q)tests/run-system.sh

# The build as many jobs at once as there are CPUs (94 s against 166 s
# on 2 CPUs from a clean clone); each job's output kept together.
check: deps
	$(Q)$(MAKE) --no-print-directory -j$(NPROC) -Otarget all
	$(Q)$(MAKE) --no-print-directory -j$(NPROC) -Otarget $(UNIT_BINS) $(BPF_TEST_BINS)
	$(Q)tests/run-all.sh "$(UNIT_BINS)" "$(BPF_TEST_BINS)"

bench: deps all
	$(Q)tests/bench/run.sh

verify: $(BPF_OBJS)
	$(Q)tests/verify.sh $(BPF_OBJS)

demo: deps all
	$(Q)tests/demo.sh

# At least 10^7 frames through each packet fuzzer (FUZZ_FRAMES), 10^6
# inputs through each libFuzzer target (FUZZ_FRAMES / 10); FUZZ_SEED.
FUZZ_FRAMES ?= 10000000
fuzz: deps all
	$(Q)FUZZ_MRCD=1 tests/fuzz/run.sh $(FUZZ_FRAMES) $(FUZZ_SEED)

# mrcd for 10 minutes under a mixed load: no growth (tests/soak.sh).
soak: deps all
	$(Q)tests/soak.sh 600

deps:
	$(Q)deploy/deps.sh

LINT_C  := $(shell git ls-files '*.c' '*.h' 2>/dev/null)
LINT_USER_C := $(filter-out %.bpf.c bpf/%,$(LINT_C))
LINT_SH := $(shell git ls-files '*.sh' .ci/run tests/testbed 2>/dev/null)
lint:
	$(call msg,FORMAT,$(words $(LINT_C)) files)
	$(Q)clang-format --dry-run --Werror $(LINT_C)
	$(call msg,SHCHECK,$(words $(LINT_SH)) files)
	$(Q)printf '%s\n' $(LINT_SH) | xargs -P "$$(nproc)" -n 8 shellcheck -x -S warning
	$(call msg,CPPCHECK,$(words $(LINT_USER_C)) files)
	$(Q)cppcheck -q --error-exitcode=1 --enable=warning,performance,portability \
		--inline-suppr --suppress=missingIncludeSystem \
		--library=tests/lint/libbpf.cfg -Iinclude -Ilib -Itests/lib \
		-Itests/fabric $(LINT_USER_C)
	$(call msg,HEADERS,the installed headers on their own)
	$(Q)CC="$(CC)" tests/lint/headers.sh
	$(call msg,LAYERS,daemon/ depends downward)
	$(Q)tests/lint/layers.sh
	$(Q)tests/lint/layers_selftest.sh

# make install / uninstall (PREFIX, DESTDIR): deploy/install.mk.
include deploy/install.mk

clean:
	$(call msg,CLEAN,$(BUILD))
	$(Q)rm -rf $(BUILD)
