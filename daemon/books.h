/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains mrcd's books: which connection owns which protection
 * domain, memory region, completion queue and queue pair, what each QP was
 * set up with, and the controller's profiles and port states. They live in
 * a pinned map (PIN_DIR/abi<N>/maps/mrcd_books), written at every change,
 * so a restarted mrcd, after a stop or a SIGKILL, finds every object of
 * the running data path and its owner again (docs/mrcd.md, "Restart").
 */
#ifndef MRC_DAEMON_BOOKS_H
#define MRC_DAEMON_BOOKS_H

#include <stdint.h>

#include "clients.h"
#include "objects.h"
#include "profiles.h"
#include "mrc/abi.h"

struct links;

#define BOOKS_MAGIC 0x4d524342u /* "MRCB" */
/* Any change of the layout below: a new version, refused by the old. */
#define BOOKS_VERSION 2 /* 2: prof_ev_ent.sval (SRv6 EVs) */

/*
 * What the books keep of a client and of a QP: one table each of fields
 * of struct client (clients.h) and struct qp_ent (objects.h), X(type,
 * name, dimension), which makes the booked struct below and both copies
 * (books_client/books_qp out, books_adopt back), so a field is booked by
 * adding it here and nowhere else. Owners are client slots + 1; 0: free.
 * The session is written last and read first (books_client).
 */
#define BOOK_CLIENT_FIELDS(X)                  \
	X(uint64_t, start_ticks, /* scalar */) \
	X(uint32_t, pid, )                     \
	X(uint32_t, uid, )
#define BOOK_QP_FIELDS(X)         \
	X(uint32_t, state, )      \
	X(uint32_t, pd, )         \
	X(uint32_t, send_cq, )    \
	X(uint32_t, recv_cq, )    \
	X(uint32_t, nev, )        \
	X(uint32_t, peer_qpn, )   \
	X(uint32_t, prof_held, )  \
	X(uint64_t, db_token, )   \
	X(uint64_t, timeout_ns, ) \
	X(uint64_t, ev_prof, )    \
	X(uint64_t, cc_prof, )    \
	X(uint8_t, peer_gid, [16])

#define BOOK_FIELD(type, name, dim) type name dim;
struct book_client {
	uint64_t session; /* 0: slot free */
	BOOK_CLIENT_FIELDS(BOOK_FIELD)
};

struct book_qp {
	uint32_t owner;
	BOOK_QP_FIELDS(BOOK_FIELD)
};
#undef BOOK_FIELD
/* The layout BOOKS_VERSION names: a field added to a table is a new
 * version. */
_Static_assert(sizeof(struct book_client) == 24, "book_client: version");
_Static_assert(sizeof(struct book_qp) == 80, "book_qp: version");

struct books {
	uint32_t magic, version;
	uint32_t size; /* sizeof(struct books) */
	uint32_t lowlat_made_qdisc; /* the clsact qdisc on lo is the device's */
	uint64_t generation; /* mrcds that ran this device, this one included */
	int32_t port_admin[MRC_MAX_PORTS];
	struct book_client client[MRCD_MAX_CLIENTS];
	uint16_t pd_owner[MRCD_MAX_PD];
	uint16_t mr_owner[MRC_MAX_MR];
	uint16_t cq_owner[MRC_MAX_CQ];
	uint32_t mr_pd[MRC_MAX_MR];
	struct book_qp qp[MRC_MAX_QP];
	struct profiles prof; /* without its callback (ev_runtime_state, ctx) */
};

/* What the books are of, and the pinned books themselves. */
struct books_ctx {
	const char *pin_dir;
	struct clients *cl;
	struct objects *obj;
	struct profiles *prof; /* the controller's */
	struct links *links; /* port admin states */
	struct books *b; /* the pinned books, mmapped; NULL: none */
	int fd;
};

/* New books for a new device, pinned. 0 or -errno (said on stderr). */
int books_create(struct books_ctx *bk);
/*
 * The pinned books of a running device, mapped and checked (layout,
 * magic, version, size) before anything of the device is touched. 0 or
 * -errno (said on stderr).
 */
int books_check(struct books_ctx *bk);
/*
 * books_check's books read into m: every booked client becomes an orphan
 * slot (fd -1, its session and pid kept) owning its objects, QPs get their
 * bookkeeping (not their send queues: serve_adopt_qp), profiles and port
 * states return, profile users are counted from the QPs. Into modules as
 * their init functions leave them: an EV profile booked untouched is not
 * written (it is INIT, zero, already).
 */
int books_adopt(struct books_ctx *bk);
/*
 * Writes, before the reply to the request that changed it: a client's
 * entry, a QP's, the PD/MR/CQ owner tables, or everything.
 */
void books_client(struct books_ctx *bk, const struct client *c);
void books_qp(struct books_ctx *bk, uint32_t qpn);
void books_objs(struct books_ctx *bk);
void books_save(struct books_ctx *bk);
/*
 * A controller's modify, booked in part: the ports' admin states and the
 * format and CC profiles (some 3 KB), and EV profile ev_id if it is one
 * (11 KB; -1: none). The 64 EV profiles are 720 KB, which the books used
 * to take whole at every controller request.
 */
void books_prof(struct books_ctx *bk, int ev_id);
/*
 * What a takeover (books_adopt, then each QP's send queue) changed: every
 * client entry (the orphans), the owner tables, and the QPs booked with
 * an owner they no longer have. The rest is as booked.
 */
void books_adopted(struct books_ctx *bk);
void books_close(struct books_ctx *bk);

#endif /* MRC_DAEMON_BOOKS_H */
