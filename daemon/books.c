// SPDX-License-Identifier: GPL-2.0
/*
 * mrcd's books in a pinned, mmapable array map: pages of 4 KiB holding
 * one struct books, written in place. A write is a copy of mrcd's tables
 * (a few hundred KiB, at control-path rate); a SIGKILL in the middle of
 * one leaves at most the object being changed out of step, which the
 * adoption checks against the data path (an entry without its send queue
 * is dropped, a data-path entry nobody owns is removed).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "books.h"
#include "links.h"
#include "log.h"
#include "pin.h"

#define BOOKS_PAGE 4096u
#define BOOKS_PAGES ((sizeof(struct books) + BOOKS_PAGE - 1) / BOOKS_PAGE)
#define BOOKS_NAME "mrcd_books"

/* One field of the tables in books.h, from the live object (o) to its
 * entry in the books (e), and back; the same size both sides. */
#define BOOK_OUT(type, name, dim)                                  \
	_Static_assert(sizeof(e->name) == sizeof(o->name), #name); \
	memcpy(&e->name, &o->name, sizeof(e->name));
#define BOOK_IN(type, name, dim)                                   \
	_Static_assert(sizeof(e->name) == sizeof(o->name), #name); \
	memcpy(&o->name, &e->name, sizeof(o->name));

static int books_map(struct books_ctx *bk, int fd)
{
	void *p = mmap(NULL, BOOKS_PAGES * BOOKS_PAGE, PROT_READ | PROT_WRITE,
		       MAP_SHARED, fd, 0);

	if (p == MAP_FAILED)
		return -errno;
	bk->b = p;
	bk->fd = fd;
	return 0;
}

int books_create(struct books_ctx *bk)
{
	LIBBPF_OPTS(bpf_map_create_opts, o, .map_flags = BPF_F_MMAPABLE);
	int fd, err;

	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, BOOKS_NAME, 4, BOOKS_PAGE,
			    BOOKS_PAGES, &o);
	if (fd < 0) {
		log_err("creating %s: %s\n", BOOKS_NAME, strerror(errno));
		return -errno;
	}
	err = books_map(bk, fd);
	if (err) {
		close(fd);
		return err;
	}
	/* Whole before it is pinned: a pin is a device someone may adopt. */
	bk->b->magic = BOOKS_MAGIC;
	bk->b->version = BOOKS_VERSION;
	bk->b->size = sizeof(struct books);
	bk->b->generation = 1;
	books_save(bk);
	err = dev_pin_obj(fd, bk->pin_dir, "maps", BOOKS_NAME);
	if (err)
		books_close(bk);
	return err;
}

static uint16_t owner_of(struct books_ctx *bk, const struct client *c)
{
	return c ? (uint16_t)(c - bk->cl->client + 1) : 0;
}

/*
 * A client's entry: its session last (0 first), so a SIGKILL between the
 * stores leaves a free slot, never a session with another's pid.
 */
void books_client(struct books_ctx *bk, const struct client *c)
{
	struct book_client *bc;

	if (!bk->b)
		return;
	bc = &bk->b->client[c - bk->cl->client];
	__atomic_store_n(&bc->session, 0, __ATOMIC_RELEASE);
	if (c->conn.fd < 0 && !c->orphan)
		return;
	{
		struct book_client *e = bc;
		const struct client *o = c;

		BOOK_CLIENT_FIELDS(BOOK_OUT)
	}
	__atomic_store_n(&bc->session, c->session, __ATOMIC_RELEASE);
}

/* A QP's entry, its owner written last for the same reason. */
void books_qp(struct books_ctx *bk, uint32_t qpn)
{
	const struct qp_ent *q = &bk->obj->qp[qpn];
	struct book_qp *bq;

	if (!bk->b)
		return;
	bq = &bk->b->qp[qpn];
	__atomic_store_n(&bq->owner, 0, __ATOMIC_RELEASE);
	if (!q->owner)
		return;
	{
		struct book_qp *e = bq;
		const struct qp_ent *o = q;

		BOOK_QP_FIELDS(BOOK_OUT)
	}
	__atomic_store_n(&bq->owner, owner_of(bk, q->owner), __ATOMIC_RELEASE);
}

void books_objs(struct books_ctx *bk)
{
	struct books *b = bk->b;
	uint32_t i;

	if (!b)
		return;
	for (i = 0; i < MRCD_MAX_PD; i++)
		b->pd_owner[i] = owner_of(bk, bk->obj->pd_owner[i]);
	for (i = 0; i < MRC_MAX_MR; i++) {
		b->mr_pd[i] = bk->obj->mr_pd[i];
		b->mr_owner[i] = owner_of(bk, bk->obj->mr_owner[i]);
	}
	for (i = 0; i < MRC_MAX_CQ; i++)
		b->cq_owner[i] = owner_of(bk, bk->obj->cq_owner[i]);
}

void books_prof(struct books_ctx *bk, int ev_id)
{
	struct books *b = bk->b;
	uint32_t i;

	if (!b)
		return;
	for (i = 0; i < MRC_MAX_PORTS; i++)
		b->port_admin[i] = bk->links->admin[i];
	b->prof.port_mask = bk->prof->port_mask;
	memcpy(b->prof.fmt, bk->prof->fmt, sizeof(b->prof.fmt));
	memcpy(b->prof.cc, bk->prof->cc, sizeof(b->prof.cc));
	if (ev_id >= 0 && ev_id < PROF_MAX_EV)
		b->prof.ev[ev_id] = bk->prof->ev[ev_id];
}

/* The profiles and port states whole: a new device's books, a handover. */
static void books_prof_all(struct books_ctx *bk)
{
	if (!bk->b)
		return;
	books_prof(bk, -1);
	memcpy(bk->b->prof.ev, bk->prof->ev, sizeof(bk->b->prof.ev));
}

/* Every client entry and the owner tables. */
static void books_owners(struct books_ctx *bk)
{
	uint32_t i;

	for (i = 0; i < MRCD_MAX_CLIENTS; i++)
		books_client(bk, &bk->cl->client[i]);
	books_objs(bk);
}

void books_save(struct books_ctx *bk)
{
	uint32_t i;

	books_owners(bk);
	for (i = 0; i < MRC_MAX_QP; i++)
		books_qp(bk, i);
	books_prof_all(bk);
}

void books_adopted(struct books_ctx *bk)
{
	uint32_t i;

	if (!bk->b)
		return;
	books_owners(bk);
	for (i = 0; i < MRC_MAX_QP; i++)
		if (bk->b->qp[i].owner && !bk->obj->qp[i].owner)
			books_qp(bk, i);
}

/* The client slot an owner entry names, if booked; NULL otherwise. */
static struct client *booked(struct books_ctx *bk, uint32_t owner)
{
	if (!owner || owner > MRCD_MAX_CLIENTS ||
	    !bk->b->client[owner - 1].session)
		return NULL;
	return &bk->cl->client[owner - 1];
}

int books_check(struct books_ctx *bk)
{
	struct bpf_map_info info = {};
	uint32_t len = sizeof(info);
	struct books *b;
	int fd, err;

	fd = dev_pin_get(bk->pin_dir, "maps", BOOKS_NAME);
	if (fd < 0) {
		log_err("the running device has no %s: %s\n", BOOKS_NAME,
			strerror(-fd));
		return fd;
	}
	if (bpf_obj_get_info_by_fd(fd, &info, &len) ||
	    info.type != BPF_MAP_TYPE_ARRAY || info.value_size != BOOKS_PAGE ||
	    info.max_entries != BOOKS_PAGES ||
	    !(info.map_flags & BPF_F_MMAPABLE)) {
		log_err("the running device's %s has another layout (%u pages, this mrcd: %zu): another mrcd build made it\n",
			BOOKS_NAME, info.max_entries, (size_t)BOOKS_PAGES);
		close(fd);
		return -EPROTO;
	}
	err = books_map(bk, fd);
	if (err) {
		close(fd);
		return err;
	}
	b = bk->b;
	if (b->magic != BOOKS_MAGIC || b->version != BOOKS_VERSION ||
	    b->size != sizeof(struct books)) {
		log_err("the running device's %s are version %u (%u bytes), this mrcd's %u (%zu bytes): another mrcd build made them\n",
			BOOKS_NAME, b->version, b->size,
			(unsigned int)BOOKS_VERSION, sizeof(struct books));
		books_close(bk);
		return -EPROTO;
	}
	return 0;
}

int books_adopt(struct books_ctx *bk)
{
	struct books *b = bk->b;
	uint32_t i;

	b->generation++;
	for (i = 0; i < MRCD_MAX_PD; i++)
		bk->obj->pd_owner[i] = booked(bk, b->pd_owner[i]);
	for (i = 0; i < MRC_MAX_MR; i++) {
		bk->obj->mr_owner[i] = booked(bk, b->mr_owner[i]);
		bk->obj->mr_pd[i] = b->mr_pd[i];
	}
	for (i = 0; i < MRC_MAX_CQ; i++)
		bk->obj->cq_owner[i] = booked(bk, b->cq_owner[i]);
	for (i = 0; i < MRC_MAX_QP; i++) {
		const struct book_qp *bq = &b->qp[i];
		struct qp_ent *q = &bk->obj->qp[i];

		memset(q, 0, sizeof(*q));
		q->db_fd = -1;
		q->owner = booked(bk, bq->owner);
		if (!q->owner)
			continue;
		{
			const struct book_qp *e = bq;
			struct qp_ent *o = q;

			BOOK_QP_FIELDS(BOOK_IN)
		}
	}
	/* Every client waits for its process to resume (one that owns
	 * nothing yet would otherwise find its session gone). */
	for (i = 0; i < MRCD_MAX_CLIENTS; i++) {
		struct client *c = &bk->cl->client[i];

		if (!b->client[i].session)
			continue;
		c->session = b->client[i].session;
		{
			const struct book_client *e = &b->client[i];
			struct client *o = c;

			BOOK_CLIENT_FIELDS(BOOK_IN)
		}
		c->orphan = 1;
	}
	for (i = 0; i < MRC_MAX_PORTS; i++)
		bk->links->admin[i] = b->port_admin[i];
	/* The format and CC tables whole; an EV profile only if it was ever
	 * given anything (a state or an attribute): the others are INIT and
	 * zero already, as prof_init leaves them, and their share of the 720
	 * KB is not written (docs/mrcd.md). */
	bk->prof->port_mask = b->prof.port_mask;
	memcpy(bk->prof->fmt, b->prof.fmt, sizeof(bk->prof->fmt));
	memcpy(bk->prof->cc, b->prof.cc, sizeof(bk->prof->cc));
	for (i = 0; i < PROF_MAX_EV; i++)
		if (b->prof.ev[i].state != MRC_CTL_PROFILE_INIT ||
		    b->prof.ev[i].have) {
			bk->prof->ev[i] = b->prof.ev[i];
			bk->prof->ev[i].users = 0; /* counted below */
		}
	/* Users are counted from the QPs, not trusted from a write a
	 * SIGKILL may have cut short. */
	for (i = 0; i < PROF_MAX_CC; i++)
		bk->prof->cc[i].users = 0;
	for (i = 0; i < MRC_MAX_QP; i++) {
		const struct qp_ent *q = &bk->obj->qp[i];

		if (!q->owner || !q->prof_held || q->ev_prof >= PROF_MAX_EV ||
		    q->cc_prof >= PROF_MAX_CC) {
			bk->obj->qp[i].prof_held = 0;
			continue;
		}
		bk->prof->ev[q->ev_prof].users++;
		bk->prof->cc[q->cc_prof].users++;
	}
	return 0;
}

void books_close(struct books_ctx *bk)
{
	if (bk->b)
		munmap(bk->b, BOOKS_PAGES * BOOKS_PAGE);
	if (bk->fd >= 0)
		close(bk->fd);
	bk->b = NULL;
	bk->fd = -1;
}
