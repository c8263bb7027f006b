# SPDX-License-Identifier: GPL-2.0
#
# make install, make uninstall (PREFIX, DESTDIR), included by the Makefile
# after PROGS and TOOLS. uninstall removes exactly what install wrote, then
# mrc's own directories (libexec/mrc, /etc/mrc) if empty. make
# install-headers installs the public headers alone.
#
#   sbin     mrcd
#   bin      mrcctl, mrc-perf
#   lib      libmrc.so.2 (soname), libmrc.so -> libmrc.so.2, libmrc.a,
#            pkgconfig/libmrc.pc
#   include  mrc.h, mrc_api_ver.h, mrc_ctl.h, mrc_ctl_api_ver.h, mrc_ext.h
#   libexec/mrc  the test fabric: testbed and its tools
#   share    man8/mrcd.8.gz, man8/mrcctl.8.gz, man5/mrcd.conf.5.gz,
#            bash-completion/completions/mrcctl
#   unit     mrcd.service;  /etc/mrc/mrcd.conf.example
#   wireshark  mrc.lua, the dissector, in Wireshark's global Lua plugins

BINDIR       ?= $(PREFIX)/bin
SBINDIR      ?= $(PREFIX)/sbin
# Libraries go in the multiarch directory, lib/x86_64-linux-gnu on Debian:
# its policy requires that for PREFIX=/usr, and for /usr/local ld.so
# (/etc/ld.so.conf.d/x86_64-linux-gnu.conf) and pkg-config (its default
# path) already search $(PREFIX)/lib/$(MULTIARCH), so one rule serves both.
# MULTIARCH is `$(CC) -dumpmachine` (gcc's triplet). Elsewhere set LIBDIR.
LIBDIR       ?= $(PREFIX)/lib$(if $(MULTIARCH),/$(MULTIARCH))
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
INCLUDEDIR   ?= $(PREFIX)/include
LIBEXECDIR   ?= $(PREFIX)/libexec/mrc
MANDIR       ?= $(PREFIX)/share/man
BASHCOMPDIR  ?= $(PREFIX)/share/bash-completion/completions
# Host configuration is in /etc whatever the PREFIX: the unit, mrcd's
# documentation and the admin look for /etc/mrc/mrcd.conf.
SYSCONFDIR   ?= /etc
# systemd searches $(PREFIX)/lib/systemd/system for PREFIX=/usr/local; for
# PREFIX=/usr, Debian 12's systemd.pc says /lib/systemd/system (with merged
# /usr the same directory as /usr/lib/systemd/system).
UNITDIR      ?= $(if $(filter /usr,$(PREFIX)),/lib/systemd/system,$(PREFIX)/lib/systemd/system)
# Debian's Wireshark and tshark load Lua plugins from their own global
# folder (`tshark -G folders`: "Global Lua Plugins") and the user's, never
# from /usr/local: the dissector goes there whatever the PREFIX, as the
# configuration goes to /etc. tests/system/002-install.sh checks the
# folder against the installed tshark.
WIRESHARK_LUADIR ?= /usr/lib$(if $(MULTIARCH),/$(MULTIARCH))/wireshark/plugins

# libmrc.pc's Version: the application API's, from mrc_api_ver.h.
LIBMRC_VERSION := $(or $(shell sed -n 's/^.define MRC_API_CURRENT_VERSION[[:space:]]*MRC_API_VER(\([0-9]*\), *\([0-9]*\), *\([0-9]*\)).*/\1.\2.\3/p' include/mrc_api_ver.h),1.0.0)

# The public API, and only it: these include nothing of include/mrc/ (the
# daemon's protocol, the data path's layouts), and make lint installs them
# alone into a scratch DESTDIR and compiles each on its own
# (tests/lint/headers.sh).
INST_HDRS    := include/mrc.h include/mrc_api_ver.h include/mrc_ctl.h \
		include/mrc_ctl_api_ver.h include/mrc_ext.h
INST_MAN8    := mrcd.8 mrcctl.8
INST_MAN5    := mrcd.conf.5
# Gzipped, as Debian policy has it; -n keeps the output reproducible.
INST_MANGZ   := $(addprefix $(BUILD)/deploy/,$(addsuffix .gz,$(INST_MAN8) $(INST_MAN5)))
INST_LIBEXEC := tests/testbed/testbed $(TOOLS)

$(BUILD)/deploy/%.gz: deploy/%
	$(call msg,GZIP,$@)
	@mkdir -p $(@D)
	$(Q)gzip -9nc $< > $@

.PHONY: install install-headers uninstall

install-headers: $(INST_HDRS)
	$(call msg,INSTALL,$(DESTDIR)$(INCLUDEDIR)/mrc*.h)
	$(Q)install -d $(DESTDIR)$(INCLUDEDIR)
	$(Q)install -m 0644 $(INST_HDRS) $(DESTDIR)$(INCLUDEDIR)/

# libmrc.pc and mrcd.service depend on PREFIX and friends: written anew on
# every install. The unit in the tree names /usr/local/sbin and /etc/mrc.
install: install-headers $(BUILD)/daemon/mrcd $(BUILD)/tools/mrcctl \
		$(BUILD)/tools/mrc-perf $(BUILD)/libmrc.so.2 $(BUILD)/libmrc.a \
		$(INST_LIBEXEC) $(INST_MANGZ) deploy/libmrc.pc.in \
		deploy/mrcd.service deploy/mrcd.conf deploy/mrcctl.bash-completion \
		deploy/mrc.lua
	$(call msg,GEN,$(BUILD)/deploy/libmrc.pc)
	@mkdir -p $(BUILD)/deploy
	$(Q)sed -e 's|@PREFIX@|$(PREFIX)|' \
		-e 's|@LIBDIR@|$(patsubst $(PREFIX)/%,$${exec_prefix}/%,$(LIBDIR))|' \
		-e 's|@INCLUDEDIR@|$(patsubst $(PREFIX)/%,$${prefix}/%,$(INCLUDEDIR))|' \
		-e 's|@VERSION@|$(LIBMRC_VERSION)|' deploy/libmrc.pc.in > $(BUILD)/deploy/libmrc.pc
	$(call msg,GEN,$(BUILD)/deploy/mrcd.service)
	$(Q)sed -e 's|/usr/local/sbin/|$(SBINDIR)/|g' -e 's|/etc/mrc/|$(SYSCONFDIR)/mrc/|g' \
		deploy/mrcd.service > $(BUILD)/deploy/mrcd.service
	$(call msg,INSTALL,$(DESTDIR)$(SBINDIR)/mrcd)
	$(Q)install -d $(DESTDIR)$(SBINDIR) $(DESTDIR)$(BINDIR)
	$(Q)install -m 0755 $(BUILD)/daemon/mrcd $(DESTDIR)$(SBINDIR)/
	$(call msg,INSTALL,$(DESTDIR)$(BINDIR)/mrcctl mrc-perf)
	$(Q)install -m 0755 $(BUILD)/tools/mrcctl $(BUILD)/tools/mrc-perf $(DESTDIR)$(BINDIR)/
	$(call msg,INSTALL,$(DESTDIR)$(LIBDIR)/libmrc.so.2 libmrc.so libmrc.a)
	$(Q)install -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(PKGCONFIGDIR)
	$(Q)install -m 0755 $(BUILD)/libmrc.so.2 $(DESTDIR)$(LIBDIR)/
	$(Q)ln -sfn libmrc.so.2 $(DESTDIR)$(LIBDIR)/libmrc.so
	$(Q)install -m 0644 $(BUILD)/libmrc.a $(DESTDIR)$(LIBDIR)/
	$(call msg,INSTALL,$(DESTDIR)$(PKGCONFIGDIR)/libmrc.pc)
	$(Q)install -m 0644 $(BUILD)/deploy/libmrc.pc $(DESTDIR)$(PKGCONFIGDIR)/
	$(call msg,INSTALL,$(DESTDIR)$(LIBEXECDIR))
	$(Q)install -d $(DESTDIR)$(LIBEXECDIR)
	$(Q)install -m 0755 $(INST_LIBEXEC) $(DESTDIR)$(LIBEXECDIR)/
	$(call msg,INSTALL,$(DESTDIR)$(UNITDIR)/mrcd.service)
	$(Q)install -d $(DESTDIR)$(UNITDIR)
	$(Q)install -m 0644 $(BUILD)/deploy/mrcd.service $(DESTDIR)$(UNITDIR)/
	$(call msg,INSTALL,$(DESTDIR)$(SYSCONFDIR)/mrc/mrcd.conf.example)
	$(Q)install -d $(DESTDIR)$(SYSCONFDIR)/mrc
	$(Q)install -m 0644 deploy/mrcd.conf $(DESTDIR)$(SYSCONFDIR)/mrc/mrcd.conf.example
	$(call msg,INSTALL,$(DESTDIR)$(MANDIR)/man8 man5)
	$(Q)install -d $(DESTDIR)$(MANDIR)/man8 $(DESTDIR)$(MANDIR)/man5
	$(Q)install -m 0644 $(addprefix $(BUILD)/deploy/,$(addsuffix .gz,$(INST_MAN8))) $(DESTDIR)$(MANDIR)/man8/
	$(Q)install -m 0644 $(addprefix $(BUILD)/deploy/,$(addsuffix .gz,$(INST_MAN5))) $(DESTDIR)$(MANDIR)/man5/
	$(call msg,INSTALL,$(DESTDIR)$(BASHCOMPDIR)/mrcctl)
	$(Q)install -d $(DESTDIR)$(BASHCOMPDIR)
	$(Q)install -m 0644 deploy/mrcctl.bash-completion $(DESTDIR)$(BASHCOMPDIR)/mrcctl
	$(call msg,INSTALL,$(DESTDIR)$(WIRESHARK_LUADIR)/mrc.lua)
	$(Q)install -d $(DESTDIR)$(WIRESHARK_LUADIR)
	$(Q)install -m 0644 deploy/mrc.lua $(DESTDIR)$(WIRESHARK_LUADIR)/
	$(Q)if [ -z "$(DESTDIR)" ]; then ldconfig || true; fi

# Never touches $(SYSCONFDIR)/mrc/mrcd.conf: install never wrote it.
uninstall:
	$(call msg,UNINSTALL,$(DESTDIR)$(PREFIX))
	$(Q)rm -f $(DESTDIR)$(SBINDIR)/mrcd \
		$(addprefix $(DESTDIR)$(BINDIR)/,mrcctl mrc-perf) \
		$(addprefix $(DESTDIR)$(LIBDIR)/,libmrc.so.2 libmrc.so libmrc.a) \
		$(DESTDIR)$(PKGCONFIGDIR)/libmrc.pc \
		$(addprefix $(DESTDIR)$(INCLUDEDIR)/,$(notdir $(INST_HDRS))) \
		$(addprefix $(DESTDIR)$(LIBEXECDIR)/,$(notdir $(INST_LIBEXEC))) \
		$(DESTDIR)$(UNITDIR)/mrcd.service \
		$(DESTDIR)$(SYSCONFDIR)/mrc/mrcd.conf.example \
		$(addprefix $(DESTDIR)$(MANDIR)/man8/,$(addsuffix .gz,$(INST_MAN8))) \
		$(addprefix $(DESTDIR)$(MANDIR)/man5/,$(addsuffix .gz,$(INST_MAN5))) \
		$(DESTDIR)$(BASHCOMPDIR)/mrcctl \
		$(DESTDIR)$(WIRESHARK_LUADIR)/mrc.lua
	$(Q)rmdir $(DESTDIR)$(LIBEXECDIR) $(DESTDIR)$(SYSCONFDIR)/mrc 2>/dev/null || true
	$(Q)if [ -z "$(DESTDIR)" ]; then ldconfig || true; fi
