// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for mrcd's configuration file (daemon/config.c), built
 * with ASan and UBSan: the input is a file, read the way mrcd reads one
 * (config_load, through a memfd), and line by line (config_parse_line,
 * config_finish); a configuration that loads is checked again as a SIGHUP
 * would check it (config_reload_check) against the defaults and itself.
 * Beyond what the sanitizers catch, it asserts what config.h promises:
 * a failure leaves the configuration untouched and says "FILE:LINE:" or
 * "FILE:" and why; a success gives a port and an anchor; a configuration
 * may always be reloaded as itself.
 *
 *   fuzz_config [libFuzzer options] [CORPUS...]   (tests/fuzz/run.sh)
 */
#define _GNU_SOURCE
#include <assert.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "config.h"

static void says_where(const char *err, const char *file)
{
	size_t n = strlen(file);

	assert(err[0]);
	assert(!strncmp(err, file, n) && err[n] == ':');
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct mrcd_config c, before, defaults, again;
	char err[512], path[64], line[CONFIG_LINE_MAX + 2];
	unsigned int lineno = 0;
	size_t at = 0;
	int fd, rc;

	/* As mrcd reads it: a file. */
	fd = memfd_create("mrcd.conf", MFD_CLOEXEC);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	config_defaults(&c);
	before = c;
	err[0] = 0;
	rc = config_load(path, &c, err, sizeof(err));
	if (rc) {
		says_where(err, path);
		assert(!memcmp(&c, &before, sizeof(c)));
	} else {
		assert(c.nports > 0 && c.anchor[0]);
		config_defaults(&defaults);
		(void)config_reload_check(&c, &c, err, sizeof(err));
		assert(config_reload_check(&c, &c, err, sizeof(err)) == 0);
		(void)config_reload_check(&defaults, &c, err, sizeof(err));
		again = c;
		(void)config_reload_check(&again, &defaults, err, sizeof(err));
	}
	close(fd);

	/* Line by line, each one cut at the longest line mrcd takes. */
	config_defaults(&c);
	while (at < size) {
		size_t n = 0;

		while (at + n < size && data[at + n] != '\n' &&
		       n < sizeof(line) - 1)
			n++;
		memcpy(line, data + at, n);
		line[n] = 0;
		at += n + 1;
		err[0] = 0;
		if (config_parse_line(&c, "fuzz.conf", ++lineno, line, err,
				      sizeof(err)))
			says_where(err, "fuzz.conf");
	}
	err[0] = 0;
	if (config_finish(&c, err, sizeof(err)))
		assert(err[0]);
	return 0;
}
