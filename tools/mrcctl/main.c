// SPDX-License-Identifier: GPL-2.0
/*
 * mrcctl: the operator CLI of the MRC device's controller,
 *
 *	mrcctl [OPTIONS] OBJECT { COMMAND | help }
 *
 * in the manner of ip(8), rdma(8) and bpftool(8). This file holds main,
 * the options, batch files, the dispatch by object and command, help and
 * error reporting; each object lives in its own tools/mrcctl/OBJECT.c.
 *
 * A command writes its one document into a memory buffer that reaches
 * stdout only when the command succeeds, so that with -j a failure prints
 * nothing but its {"error": ...} object.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "mrcctl.h"

struct mrcctl_opts opts;
FILE *out;
int out_keep;

static char *errmsg; /* the first error of the running command */
static const char *err_where; /* "FILE:LINE" in a batch */

static const struct object *const objects[] = {
	&obj_dev,	 &obj_port, &obj_ev_fmt, &obj_ev_profile, &obj_ev,
	&obj_cc_profile, &obj_qp,   &obj_probe,	 &obj_monitor,	  &obj_capture,
};
#define NOBJ ((int)ARRAY_SIZE(objects))

/* ---- errors -------------------------------------------------------------- */

static int set_error(int rc, char *msg)
{
	if (errmsg)
		free(msg); /* keep the first: it is the cause */
	else
		errmsg = msg;
	return rc;
}

int err_usage(const char *fmt, ...)
{
	va_list ap;
	char *m;

	va_start(ap, fmt);
	m = xvasprintf(fmt, ap);
	va_end(ap);
	return set_error(MRCCTL_EXIT_USAGE, m);
}

int err_runtime(const char *fmt, ...)
{
	va_list ap;
	char *m;

	va_start(ap, fmt);
	m = xvasprintf(fmt, ap);
	va_end(ap);
	return set_error(MRCCTL_EXIT_RUNTIME, m);
}

int err_api(int err, const char *call, const char *fmt, ...)
{
	const char *hint = err == EPERM ? " (needs CAP_NET_ADMIN)" :
			   err == ECONNRESET || err == EPIPE ?
					  " (mrcd went away)" :
					  "";
	va_list ap;
	char *ctx;

	va_start(ap, fmt);
	ctx = xvasprintf(fmt, ap);
	va_end(ap);
	set_error(MRCCTL_EXIT_RUNTIME,
		  xasprintf("%s%s%s: %s%s", ctx, *ctx ? ": " : "", call,
			    strerror(err), hint));
	free(ctx);
	return MRCCTL_EXIT_RUNTIME;
}

int api_errno(int rc)
{
	if (rc < -1)
		return -rc;
	return errno ? errno : EIO;
}

static char *join_words(int argc, char **argv)
{
	size_t n = 1;
	char *s;
	int i;

	for (i = 0; i < argc; i++)
		n += strlen(argv[i]) + 1;
	s = xmalloc(n);
	*s = '\0';
	for (i = 0; i < argc; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, argv[i]);
	}
	return s;
}

/* Prints the pending error: on stderr, or as JSON on stdout with -j. */
static void report_error(int argc, char **argv)
{
	char *msg, *cmd;
	struct jv *o;

	if (!errmsg)
		errmsg = xstrdup("failed");
	msg = err_where ? xasprintf("%s: %s", err_where, errmsg) :
			  xstrdup(errmsg);
	if (opts.json && !out_keep) {
		cmd = join_words(argc, argv);
		o = jv_obj();
		jv_add(o, "error", jv_str(msg));
		jv_add(o, "command", jv_str(cmd));
		jv_print(stdout, o, opts.pretty);
		fflush(stdout);
		jv_free(o);
		free(cmd);
	} else {
		fprintf(stderr, "mrcctl: %s\n", msg);
	}
	free(msg);
	free(errmsg);
	errmsg = NULL;
}

/* ---- help ---------------------------------------------------------------- */

void print_null(void)
{
	if (opts.json)
		fprintf(out, "null\n");
}

static void print_list(FILE *f, const char *const *words, int n,
		       const char *last)
{
	int i;

	fprintf(f, "{ ");
	for (i = 0; i < n; i++)
		fprintf(f, "%s%s", i ? " | " : "", words[i]);
	if (last)
		fprintf(f, "%s%s", n ? " | " : "", last);
	fprintf(f, " }");
}

static void usage_main(FILE *f)
{
	const char *names[NOBJ];
	int i;

	for (i = 0; i < NOBJ; i++)
		names[i] = objects[i]->name;
	fprintf(f, "Usage: mrcctl [ OPTIONS ] OBJECT { COMMAND | help }\n"
		   "       mrcctl [ OPTIONS ] -b FILE\n"
		   "       mrcctl help\n"
		   "OBJECT := ");
	print_list(f, names, NOBJ, NULL);
	fprintf(f,
		"\nOPTIONS := { -j[son] | -p[retty] | -b[atch] FILE |"
		" -s[ocket] PATH | -V[ersion] | -h[elp] }\n"
		"Objects, commands and keywords may be cut to a unique prefix"
		" (\"ev-p sh\").\n\n");
	for (i = 0; i < NOBJ; i++)
		fprintf(f, "  %-12s %s\n", objects[i]->name, objects[i]->what);
	fprintf(f, "\nSee 'mrcctl OBJECT help' and mrcctl(8).\n");
}

/* The object's command names and "help", in a new array. */
static const char **command_names(const struct object *o, int *n)
{
	const char **names = xcalloc((size_t)o->ncmds + 1, sizeof(*names));
	int i;

	for (i = 0; i < o->ncmds; i++)
		names[i] = o->cmds[i].name;
	names[i] = "help";
	*n = i + 1;
	return names;
}

static void usage_object(FILE *f, const struct object *o)
{
	const char **names;
	int i, n;

	fprintf(f, "Usage: mrcctl %s ", o->name);
	if (o->run) {
		fprintf(f, "{ %s | help }", o->form);
	} else {
		names = command_names(o, &n);
		print_list(f, names, n, NULL);
		free(names);
	}
	fputc('\n', f);
	if (o->run)
		fprintf(f, "       mrcctl %s %s\n", o->name, o->form);
	for (i = 0; o->usage && o->usage[i]; i++) {
		const char *u = o->usage[i];

		if (*u == ' ') /* a continued form: indent it */
			fprintf(f, "%*s%s\n", (int)strlen(o->name) + 18, "",
				u + strspn(u, " "));
		else
			fprintf(f, "       mrcctl %s %s\n", o->name, u);
	}
	fprintf(f, "       mrcctl %s help\n", o->name);
	for (i = 0; o->defs && o->defs[i]; i++)
		fprintf(f, "%s\n", o->defs[i]);
}

/* ---- dispatch ------------------------------------------------------------ */

/* OBJECT help: argv[next] on must be empty. */
static int help_object(const struct object *o, const struct args *a, int next)
{
	if (next < a->argc)
		return err_usage("unexpected '%s' after 'help'", a->argv[next]);
	if (opts.json)
		print_null();
	else
		usage_object(out, o);
	return 0;
}

static int run_object(const struct object *o, struct args *a)
{
	const char **names;
	int n, idx = 0, rc = 0;
	char *cmd;

	if (o->run) {
		/*
		 * Keywords follow the object; none of probe's or monitor's
		 * starts with 'h', so a prefix of "help" is help.
		 */
		if (args_left(a) && *a->argv[a->i] &&
		    !strncmp(a->argv[a->i], "help", strlen(a->argv[a->i])))
			return help_object(o, a, a->i + 1);
		a->cmd = o->name;
		return o->run(a);
	}
	names = command_names(o, &n);
	if (args_left(a))
		rc = match_word(a->argv[a->i++], names, n, "command", o->name,
				&idx);
	free(names);
	if (rc)
		return rc;
	if (idx == n - 1)
		return help_object(o, a, a->i);
	cmd = xasprintf("%s %s", o->name, o->cmds[idx].name);
	a->cmd = cmd;
	rc = o->cmds[idx].fn(a);
	free(cmd);
	return rc;
}

static int dispatch(int argc, char **argv)
{
	const char *names[NOBJ + 1];
	struct args a = { .argc = argc, .argv = argv, .i = 1 };
	int i, idx, rc;

	if (argc < 1)
		return err_usage("missing OBJECT (try 'mrcctl help')");
	for (i = 0; i < NOBJ; i++)
		names[i] = objects[i]->name;
	names[NOBJ] = "help";
	rc = match_word(argv[0], names, NOBJ + 1, "object", NULL, &idx);
	if (rc)
		return rc;
	if (idx == NOBJ) {
		if (argc > 1)
			return err_usage("unexpected '%s' after 'help'",
					 argv[1]);
		if (opts.json)
			print_null();
		else
			usage_main(out);
		return 0;
	}
	return run_object(objects[idx], &a);
}

/* Whether argv names a streaming object; errors are dispatch()'s. */
static int streams(int argc, char **argv)
{
	int i, hit = -1;

	for (i = 0; argc > 0 && i < NOBJ; i++) {
		if (!strcmp(argv[0], objects[i]->name))
			return objects[i]->streams;
		if (!strncmp(argv[0], objects[i]->name, strlen(argv[0])))
			hit = hit == -1 ? i : -2;
	}
	return hit >= 0 && objects[hit]->streams;
}

/* One command: its document reaches stdout only when it succeeds. */
static int run_command(int argc, char **argv)
{
	char *buf = NULL;
	size_t len = 0;
	int rc;

	out_keep = 0;
	if (streams(argc, argv)) {
		out = stdout;
		rc = dispatch(argc, argv);
		fflush(stdout);
	} else {
		out = open_memstream(&buf, &len);
		if (!out) {
			fprintf(stderr, "mrcctl: out of memory\n");
			return MRCCTL_EXIT_RUNTIME;
		}
		rc = dispatch(argc, argv);
		fclose(out);
		if (!rc || out_keep)
			fwrite(buf, 1, len, stdout);
		fflush(stdout);
		free(buf);
		out = stdout;
	}
	if (rc)
		report_error(argc, argv);
	return rc;
}

/* ---- batch files --------------------------------------------------------- */

/* Splits line into words in place; '#' starting a word ends the line. */
static int split_words(char *line, char ***argv)
{
	int n = 0, cap = 0;
	char *p = line;

	*argv = NULL;
	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
			p++;
		if (!*p || *p == '#')
			break;
		if (n + 1 >= cap) {
			cap = cap ? 2 * cap : 8;
			*argv = xrealloc(*argv, (size_t)cap, sizeof(**argv));
		}
		(*argv)[n++] = p;
		while (*p && *p != ' ' && *p != '\t' && *p != '\n' &&
		       *p != '\r')
			p++;
		if (*p)
			*p++ = '\0';
	}
	if (*argv)
		(*argv)[n] = NULL;
	return n;
}

static int run_batch(const char *path)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	char *line = NULL, **argv, *where = NULL;
	unsigned long lineno = 0;
	size_t cap = 0;
	int argc, rc = 0;

	if (!f) {
		err_usage("cannot open batch file %s: %s", path,
			  strerror(errno));
		report_error(0, NULL);
		return MRCCTL_EXIT_USAGE;
	}
	while (!rc && getline(&line, &cap, f) >= 0) {
		lineno++;
		argc = split_words(line, &argv);
		if (argc) {
			where = xasprintf("%s:%lu", path, lineno);
			err_where = where;
			rc = run_command(argc, argv);
			err_where = NULL;
			free(where);
		}
		free(argv);
	}
	if (!rc && ferror(f)) {
		err_runtime("cannot read batch file %s: %s", path,
			    strerror(errno));
		report_error(0, NULL);
		rc = MRCCTL_EXIT_RUNTIME;
	}
	free(line);
	if (f != stdin)
		fclose(f);
	return rc;
}

/* ---- main ---------------------------------------------------------------- */

static void print_version(void)
{
	uint32_t cur = 0, last = 0, vcur = 0, vlast = 0;

	mrc_ctl_query_version(&cur, &last, &vcur, &vlast);
	if (opts.json) {
		struct jv *o = jv_obj();
		char *v = xasprintf("%u.%u.%u", cur >> 24, (cur >> 16) & 0xff,
				    cur & 0xffff);

		jv_add(o, "ctl_api_version", jv_str(v));
		jv_print(stdout, o, opts.pretty);
		jv_free(o);
		free(v);
		return;
	}
	printf("mrcctl, controller API %u.%u.%u (oldest served %u.%u.%u)\n",
	       cur >> 24, (cur >> 16) & 0xff, cur & 0xffff, last >> 24,
	       (last >> 16) & 0xff, last & 0xffff);
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "pretty", no_argument, NULL, 'p' },
		{ "batch", required_argument, NULL, 'b' },
		{ "socket", required_argument, NULL, 's' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *batch = NULL;
	int c, rc, version = 0, help = 0;

	out = stdout;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+jpb:s:Vh", lopts, NULL)) != -1) {
		switch (c) {
		case 'j':
			opts.json = 1;
			break;
		case 'p':
			opts.json = opts.pretty = 1;
			break;
		case 'b':
			batch = optarg;
			break;
		case 's':
			if (!*optarg) {
				err_usage("empty socket path for -s");
				report_error(0, NULL);
				return MRCCTL_EXIT_USAGE;
			}
			setenv(MRCD_SOCKET_ENV, optarg, 1);
			break;
		case 'V':
			version = 1;
			break;
		case 'h':
			help = 1;
			break;
		default:
			if (optopt && strchr("bs", optopt))
				err_usage("option -%c needs a value", optopt);
			else if (optopt)
				err_usage("unknown option -%c", optopt);
			else
				err_usage("unknown option '%s'",
					  argv[optind - 1]);
			report_error(0, NULL);
			return MRCCTL_EXIT_USAGE;
		}
	}
	if (version) {
		print_version();
		return 0;
	}
	if (help) {
		usage_main(stdout);
		return 0;
	}
	if (batch) {
		if (optind < argc) {
			err_usage("unexpected '%s' with -b", argv[optind]);
			report_error(argc - optind, argv + optind);
			return MRCCTL_EXIT_USAGE;
		}
		rc = run_batch(batch);
	} else if (optind == argc && !opts.json) {
		usage_main(stderr);
		return MRCCTL_EXIT_USAGE;
	} else {
		rc = run_command(argc - optind, argv + optind);
	}
	ctl_close();
	return rc;
}
