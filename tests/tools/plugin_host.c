// SPDX-License-Identifier: GPL-2.0
/*
 * Loads a plugin the way NCCL loads its net plugins, dlopen(RTLD_NOW),
 * after this program has the system libibverbs loaded itself (it links
 * it), and runs the plugin's entry point with the rest of the command:
 *
 *   plugin_host PLUGIN.so SYMBOL [ARGS...]
 *
 * SYMBOL is int SYMBOL(int argc, char **argv); its value is the exit code.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <infiniband/verbs.h>

int main(int argc, char **argv)
{
	int (*entry)(int, char **);
	struct ibv_device **l;
	int n = 0;
	void *h;

	if (argc < 3) {
		fprintf(stderr,
			"usage: plugin_host PLUGIN.so SYMBOL [ARGS...]\n");
		return 2;
	}
	/* What the host itself sees, before the plugin: the system's list. */
	l = ibv_get_device_list(&n);
	printf("plugin_host: libibverbs lists %d device(s)\n", l ? n : 0);
	if (l)
		ibv_free_device_list(l);
	fflush(stdout);
	h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "plugin_host: %s\n", dlerror());
		return 2;
	}
	*(void **)&entry = dlsym(h, argv[2]);
	if (!entry) {
		fprintf(stderr, "plugin_host: %s\n", dlerror());
		return 2;
	}
	return entry(argc - 2, argv + 2);
}
