// SPDX-License-Identifier: GPL-2.0
/*
 * The words of mrcctl capture (capture.h), apart from the command so that
 * tests/unit/test_capture.c reaches them without libbpf.
 */
#include <stdlib.h>
#include <string.h>

#include "mrcctl.h"
#include "capture.h"
#include "mrc/capture.h"
#include "mrc/wire.h"

static const char *const class_words[] = { "data",  "ack",   "nack",
					   "probe", "other", "all" };
static const uint32_t class_bits[] = { MRC_CAP_DATA,  MRC_CAP_ACK,
				       MRC_CAP_NACK,  MRC_CAP_PROBE,
				       MRC_CAP_OTHER, MRC_CAP_ALL };
static const char *const dir_words[] = { "in", "out", "both" };
static const uint32_t dir_bits[] = { CAP_DIR_IN, CAP_DIR_OUT,
				     CAP_DIR_IN | CAP_DIR_OUT };

/* CLASS[,CLASS...] */
static int arg_classes(struct args *a, uint32_t *mask)
{
	char *list, *w, *save = NULL;
	int rc = 0, idx;

	if (!args_left(a))
		return err_usage("missing value for 'class' (want: data, ack,"
				 " nack, probe, other, all, or a list with"
				 " commas)");
	list = xstrdup(a->argv[a->i++]);
	*mask = 0;
	for (w = strtok_r(list, ",", &save); w && !rc;
	     w = strtok_r(NULL, ",", &save)) {
		rc = match_word(w, class_words, ARRAY_SIZE(class_words),
				"class", a->cmd, &idx);
		if (!rc)
			*mask |= class_bits[idx];
	}
	if (!rc && !*mask)
		rc = err_usage("empty value for 'class'");
	free(list);
	return rc;
}

int cap_parse(struct args *a, struct cap_opts *o)
{
	static const char *const kws[] = { "dev",      "dir",	  "qpn",
					   "class",    "snaplen", "count",
					   "duration", "write",	  "-w" };
	enum {
		K_DEV,
		K_DIR,
		K_QPN,
		K_CLASS,
		K_SNAP,
		K_COUNT,
		K_DUR,
		K_W,
		K_W2
	};
	unsigned int seen = 0;
	int rc = 0, kw, dir;

	memset(o, 0, sizeof(*o));
	o->dir = CAP_DIR_IN;
	o->classes = MRC_CAP_ALL;
	o->snaplen = CAP_SNAPLEN_MAX;
	o->count = CAP_COUNT_DEFAULT;
	o->seconds = CAP_SECONDS_DEFAULT;
	while (!rc && args_left(a)) {
		rc = arg_keyword(a, kws, ARRAY_SIZE(kws), &kw);
		if (!rc)
			rc = arg_once(&seen, kw == K_W2 ? K_W : kw, kws);
		if (rc)
			break;
		switch (kw) {
		case K_DEV:
			if (!args_left(a))
				return err_usage("missing value for 'dev'");
			if (!*a->argv[a->i] ||
			    strlen(a->argv[a->i]) >= sizeof(o->dev))
				return err_usage("bad interface name '%s' for"
						 " 'dev'",
						 a->argv[a->i]);
			strcpy(o->dev, a->argv[a->i++]);
			break;
		case K_DIR:
			rc = arg_choice(a, "dir", dir_words,
					ARRAY_SIZE(dir_words), &dir);
			if (!rc)
				o->dir = dir_bits[dir];
			break;
		case K_QPN:
			rc = arg_u32(a, "qpn", 0, MRC_BTH_QPN_MASK, &o->qpn);
			o->qpn_on = 1;
			break;
		case K_CLASS:
			rc = arg_classes(a, &o->classes);
			break;
		case K_SNAP:
			rc = arg_u32(a, "snaplen", CAP_SNAPLEN_MIN,
				     CAP_SNAPLEN_MAX, &o->snaplen);
			break;
		case K_COUNT:
			rc = arg_u32(a, "count", 1, CAP_COUNT_MAX, &o->count);
			break;
		case K_DUR:
			rc = arg_u32(a, "duration", 1, CAP_SECONDS_MAX,
				     &o->seconds);
			break;
		default: /* write, -w */
			if (!args_left(a))
				return err_usage("missing FILE for '%s' (- for"
						 " stdout)",
						 kws[kw]);
			o->file = a->argv[a->i++];
			if (!*o->file)
				return err_usage("empty FILE for '%s'",
						 kws[kw]);
			break;
		}
	}
	if (!rc && !*o->dev)
		rc = arg_required(a, "dev IFNAME");
	if (!rc && !o->file)
		rc = arg_required(a, "-w FILE");
	return rc;
}
