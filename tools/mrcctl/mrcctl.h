/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains what mrcctl's files share: the object and command
 * tables, the argument cursor and its parsers, error reporting (usage
 * errors exit 1, errors of the device API exit 2), the names of states
 * and modes, and the device every command talks to. The JSON value tree
 * and the output table that prints both aligned text and JSON are in the
 * internal library (lib/common/json.h, table.h).
 *
 * Every function that can fail returns 0 or the exit status it has
 * already reported (MRCCTL_EXIT_USAGE, MRCCTL_EXIT_RUNTIME), so callers
 * just pass a non-zero result on.
 */
#ifndef MRCCTL_H
#define MRCCTL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "json.h"
#include "mrc_ext.h"
#include "mrc/ev_fields.h"
#include "mrc/mrcd_proto.h" /* the socket mrcd listens on */
#include "table.h"
#include "xalloc.h"

#pragma GCC poison u8 u16 u32 u64

#define MRCCTL_EXIT_USAGE 1
#define MRCCTL_EXIT_RUNTIME 2

#define PRINTF(f, a) __attribute__((format(printf, f, a)))
#define ARRAY_SIZE(x) (sizeof(x) / sizeof((x)[0]))

/* ---- objects and commands (main.c) ------------------------------------ */

struct args {
	int argc;
	char **argv;
	int i; /* the next word */
	const char *cmd; /* "ev-fmt set": names the command in errors */
};

struct cmd {
	const char *name;
	int (*fn)(struct args *a);
};

/*
 * One object. cmds (without "help", which every object has) run by name;
 * with no word the first one runs. An object with run instead takes its
 * keywords right after its name (probe, monitor); form names them in the
 * summary line of its help.
 */
struct object {
	const char *name;
	const char *what; /* one line for `mrcctl help` */
	const struct cmd *cmds;
	int ncmds;
	int (*run)(struct args *a);
	const char *form;
	const char *const *usage; /* forms after "mrcctl NAME ", NULL-ended */
	const char *const *defs; /* "STATE := ..." lines, NULL-ended */
	int streams; /* prints as it goes (monitor): no buffering */
};

extern const struct object obj_dev, obj_port, obj_ev_fmt, obj_ev_profile,
	obj_ev, obj_cc_profile, obj_qp, obj_probe, obj_monitor, obj_capture;

/* Help fragments shared by several objects. */
#define HELP_PROFILE_STATE "STATE := { init | offline | online }"
#define HELP_NUMBER "N, ID, VAL := decimal, or hexadecimal with 0x"
#define HELP_EV "VAL := a compact EV value (up to 32 bits); P := port, 1..255"

/* ---- options and output (main.c) --------------------------------------- */

struct mrcctl_opts {
	int json;
	int pretty;
};
extern struct mrcctl_opts opts;

/* Where a command prints its one document (buffered until it succeeds). */
extern FILE *out;
/* Set by a command that fails but whose output must still be printed. */
extern int out_keep;

/* ---- errors (main.c) ------------------------------------------------------ */

int err_usage(const char *fmt, ...) PRINTF(1, 2);
int err_runtime(const char *fmt, ...) PRINTF(1, 2);
/* "CONTEXT: CALL: strerror(err)", exit 2. */
int err_api(int err, const char *call, const char *fmt, ...) PRINTF(3, 4);
/* The errno of a failed call returning -1 (errno set) or -errno. */
int api_errno(int rc);

/* ---- the argument cursor (args.c) ------------------------------------ */

static inline int args_left(const struct args *a)
{
	return a->i < a->argc;
}

/* word's index in words: exact, else a unique prefix; -1 none, -2 several. */
int find_word(const char *word, const char *const *words, int n);
/*
 * word as one of words[0..n-1]: an exact match, else a unique prefix.
 * what names the kind of word in errors ("object", "command", "state"),
 * of (if not NULL) what it belongs to ("port", "ev-fmt set").
 */
int match_word(const char *word, const char *const *words, int n,
	       const char *what, const char *of, int *idx);
/* The next word as a keyword of a->cmd. */
int arg_keyword(struct args *a, const char *const *kws, int n, int *idx);
/* The keyword at idx given a second time: an error. */
int arg_once(unsigned int *seen, int idx, const char *const *kws);
/*
 * The value of key (the next word). key in capitals names a positional
 * argument ("ID"), otherwise the keyword the value follows.
 */
int arg_u64(struct args *a, const char *key, uint64_t min, uint64_t max,
	    uint64_t *v);
int arg_u32(struct args *a, const char *key, uint32_t min, uint32_t max,
	    uint32_t *v);
int arg_port(struct args *a, const char *key, uint8_t *port);
int arg_float(struct args *a, const char *key, float *v);
int arg_choice(struct args *a, const char *key, const char *const *words, int n,
	       int *idx);
int arg_gid(struct args *a, const char *key, union ibv_gid *gid);
/* No words left, or an error naming the first extra one. */
int arg_end(const struct args *a);
/* key missing from a command that needs it. */
int arg_required(const struct args *a, const char *key);

/* s as a number: decimal, or hexadecimal after 0x; -EINVAL, -ERANGE. */
int parse_u64(const char *s, uint64_t *v);

/* Prints the JSON document of a command without output: null. */
void print_null(void);

/* ---- names (names.c) ------------------------------------------------------- */

extern const char *const profile_state_words[3]; /* init offline online */
extern const char *const fmt_mode_words[3]; /* stev udp srv6 */
extern const enum mrc_ctl_ev_fmt_mode fmt_mode_values[3];
extern const char *const ev_state_words[3]; /* good assumed-bad denied */
extern const enum mrc_ctl_ev_state ev_state_values[3];

const char *profile_state_name(uint32_t s);
const char *fmt_mode_name(uint32_t mode);
const char *ev_mode_name(uint32_t mode);
const char *ev_state_str(uint32_t s);
const char *qp_state_name(uint32_t s);
/* Names of the set bits of an enum mrc_ctl_attr_opt mask, in a JSON
 * array and as text ("a, b"). */
struct jv *opt_cap_names(uint32_t mask, char **text);
/* A GID (or any 16-byte address) as text; IPv4-mapped ones as ::ffff:a.b.c.d */
char *gid_str(const uint8_t gid[16]);
char *mac_str(const uint8_t mac[6]);
/* An EV value (first 4 bytes, host order) and back. */
uint32_t ev_val(const struct mrc_ctl_ev *ev);
void ev_set(struct mrc_ctl_ev *ev, uint32_t val, uint8_t port);
/* The w low bits of v in binary. */
char *bin_str(uint32_t v, unsigned int w);
/* A round trip in ns as a µs cell, or "-"/null before the first sample. */
void put_us(struct tbl *t, const char *key, const char *head, uint32_t ns);

/* ---- profiles, shared by several objects ---------------------------------- */

/*
 * An EV format profile's state and, past INIT, its mode and fields
 * (ev_fmt.c); an EV profile's state and, past INIT, everything else and
 * its fields (ev_profile.c). The field arrays are the caller's to free.
 */
int fmt_query(struct mrc_context *ctx, uint64_t id,
	      struct mrc_ctl_ev_fmt_profile_attr *attr,
	      struct mrc_ctl_ev_fmt_field **ff, int *nff);
int evp_query(struct mrc_context *ctx, uint64_t id,
	      struct mrc_ctl_ev_profile_attr *attr, struct mrc_ctl_ev_field **f,
	      int *nf);
/* A one-entry EV operation that changes EV profile id. */
int evp_ev_modify(struct mrc_context *ctx, uint64_t id, enum mrc_ctl_ev_op op,
		  struct mrc_ctl_ev_op_entry *e);
/* ev-profile set, add, replace (ev_profile_set.c). */
int evp_do_set(struct args *a);
int evp_do_add(struct args *a);
int evp_do_replace(struct args *a);
/* "VAL port P" after key ("ev", "with"): an EV as the API names it. */
int arg_ev(struct args *a, const char *key, struct mrc_ctl_ev *ev);

/*
 * `OBJECT show [ID]` for a profile kind (profile_show.c): one profile, or
 * every id below max(device) that is not INIT. row() queries profile id
 * and, when all is 0 or the profile is not INIT, adds its row to t; 0 or
 * an exit code.
 */
int profile_show(struct args *a,
		 uint32_t (*max)(const struct mrc_ctl_device_attr *d),
		 int (*row)(struct mrc_context *ctx, uint64_t id, int all,
			    struct tbl *t));
/* ev expand (ev_expand.c), ev trace (trace.c). */
int ev_do_expand(struct args *a);
int ev_do_trace(struct args *a);
/* The EVs of QP qpn (UINT32_MAX: of all), ev.c; every QP, qp.c. The
 * arrays are the caller's to free. */
int ev_list(struct mrc_context *ctx, uint32_t qpn, struct mrcx_ev_info **evs,
	    int *n);
int qp_list(struct mrc_context *ctx, struct mrcx_qp_info **qps, int *n);

/*
 * What an EV profile's compact EVs expand by (ev_expand.c): its state and
 * mode and, past INIT and not AUTO, its fields and its format's
 * (QUERY_FIELDS of both); fmt_mode 0 when there is no format (INIT, AUTO,
 * a format in INIT). 0 or an exit code; ev_expander_free frees the arrays.
 */
struct ev_expander {
	uint32_t state; /* enum mrc_ctl_profile_state */
	uint32_t mode; /* enum mrc_ctl_ev_mode */
	uint64_t fmt_id;
	uint32_t fmt_mode; /* enum mrc_ctl_ev_fmt_mode */
	struct mrc_ctl_ev_field *f;
	int nf;
	struct mrc_ctl_ev_fmt_field *ff;
	int nff;
};
int ev_expander_load(struct mrc_context *ctx, uint64_t id,
		     struct ev_expander *x);
void ev_expander_free(struct ev_expander *x);
/*
 * An SRv6 EV as the path it names: text columns SRV6 (the destination,
 * and " srh " and the segment) and USIDS ("0200 1102 | ..."), and a JSON
 * "srv6" object { "dst", "usids": [ "0200", ... ], "srh" (null: none),
 * "srh_usids" }. put_srv6_none: the same fields empty (null).
 */
void put_srv6(struct tbl *t, const uint8_t v[MRC_CTL_EV_MAX_BYTES]);
void put_srv6_none(struct tbl *t);
/*
 * put_srv6 of compact EV val under x when x's format is SRV6 (1), nothing
 * for any other (0).
 */
int put_srv6_ev(struct tbl *t, const struct ev_expander *x, uint32_t val);

/*
 * The EV array of EV profile id as `ev-profile evs` prints it (and, for
 * an SRV6 format, the path of each EV). 0 or an exit code.
 */
int evp_print_evs(struct mrc_context *ctx, uint64_t id);
/* ev-profile usid (ev_profile_usid.c). */
int evp_do_usid(struct args *a);

/*
 * The testbed's SRv6 uSID plan (usid_plan.c; docs/controller.md): F3216,
 * a 32-bit block, spine S's uSID 0x02SS, the leaf of host H on plane P
 * 0xP1HH; the route to host H over spine S on plane P is
 * block:02SS:P1HH::. As an SRV6 format of 32+16+4+12 bits and a
 * generated EV profile counting spines, then planes (fastest).
 */
#define USID_FIELDS 4
#define USID_MAX_SPINES 256 /* SS: 8 bits */
#define USID_MAX_PLANES 16 /* P: 4 bits */
#define USID_MAX_HOST 255 /* HH: 8 bits */
struct usid_plan {
	uint64_t id; /* the EV profile */
	uint64_t fmt_id; /* its format profile */
	uint32_t block; /* host order: fdbb:bb00 is 0xfdbbbb00 */
	uint32_t spines, planes, host;
};
/* "ID fmt ID block PREFIX spines N planes N host H" into u. */
int usid_parse(struct args *a, struct usid_plan *u);
/* The plan's format fields and EV profile fields. */
void usid_fields(const struct usid_plan *u,
		 struct mrc_ctl_ev_fmt_field ff[USID_FIELDS],
		 struct mrc_ctl_ev_field f[USID_FIELDS]);

/* ---- the device (ctl.c) ------------------------------------------------ */

const char *ctl_socket(void);
/* The controller context, opened on first use. */
int ctl_open(struct mrc_context **ctx);
int ctl_query_device(struct mrc_ctl_device_attr *attr);
/* Every port of the device: *ports is the caller's to free. */
int ctl_port_list(struct mrc_context *ctx, struct mrcx_port_info **ports,
		  int *n);
void ctl_close(void);

#endif /* MRCCTL_H */
