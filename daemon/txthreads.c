// SPDX-License-Identifier: GPL-2.0
/*
 * mrcd's transmit threads (txthreads.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <string.h>

#include "dev.h"
#include "log.h"
#include "txthreads.h"

_Static_assert(TXT_MAX <= MRC_TX_LISTS, "a transmit list for every share");

static int share_of(const struct txthreads *t, const struct txt_call *c)
{
	return c->share % t->shares;
}

/* Share k's list for dev_tx_list: its calls from calls[*from] on. */
static uint32_t fill(struct txthreads *t, int k, int *from,
		     struct mrc_tx_entry *e, int *idx)
{
	uint32_t n = 0;
	int i;

	for (i = *from; i < t->ncalls && n < MRC_TX_LIST_MAX; i++) {
		struct txt_call *c = &t->calls[i];

		if (share_of(t, c) != k)
			continue;
		e[n] = (struct mrc_tx_entry){ .qpn = c->qpn,
					      .left = (uint16_t)c->burst,
					      .lane = c->lane,
					      .lanes = c->lanes };
		idx[n++] = i;
	}
	*from = i;
	return n;
}

/*
 * The calls of share k, in order: as few transmit calls as its QPs fit
 * in (dev_tx_list, up to MRC_TX_LIST_MAX QPs a list), on list k.
 */
static void make_share(struct txthreads *t, int k)
{
	struct mrc_tx_entry e[MRC_TX_LIST_MAX];
	int idx[MRC_TX_LIST_MAX], from = 0, made = 0, r;
	uint32_t n, i;

	while ((n = fill(t, k, &from, e, idx)) > 0) {
		r = dev_tx_list(t->dev, (uint32_t)k, e, n);
		if (r > 0)
			made += r;
		for (i = 0; i < n; i++)
			t->calls[idx[i]].sent = r < 0 && !e[i].sent ? r :
								      e[i].sent;
	}
	t->made[k] = made;
}

static void *thread_main(void *arg)
{
	struct txt_thread *me = arg;
	struct txthreads *t = me->pool;
	int k;

	pthread_mutex_lock(&t->lock);
	for (;;) {
		while (me->share < 0 && !t->stop)
			pthread_cond_wait(&me->go, &t->lock);
		if (t->stop)
			break;
		k = me->share;
		pthread_mutex_unlock(&t->lock);
		make_share(t, k);
		pthread_mutex_lock(&t->lock);
		me->share = -1;
		if (!--t->busy)
			pthread_cond_signal(&t->done);
	}
	pthread_mutex_unlock(&t->lock);
	return NULL;
}

int txt_start(struct txthreads *t, struct dev *d, uint32_t want)
{
	cpu_set_t set;
	int n, i, err;

	memset(t, 0, sizeof(*t));
	t->dev = d;
	t->shares = 1;
	n = sched_getaffinity(0, sizeof(set), &set) ? 1 : CPU_COUNT(&set);
	if (n > TXT_MAX)
		n = TXT_MAX;
	if (want && (int)want < n)
		n = (int)want;
	if (n <= 1)
		return 0;
	pthread_mutex_init(&t->lock, NULL);
	pthread_cond_init(&t->done, NULL);
	for (i = 0; i < n - 1; i++) {
		struct txt_thread *th = &t->t[i];

		th->pool = t;
		th->share = -1;
		pthread_cond_init(&th->go, NULL);
		err = pthread_create(&th->id, NULL, thread_main, th);
		if (err) {
			pthread_cond_destroy(&th->go);
			log_err("transmit thread %d: %s\n", i + 1,
				strerror(err));
			txt_stop(t);
			return -err;
		}
		t->nthreads = i + 1;
	}
	t->shares = n;
	log_info("transmit calls on %d threads\n", n);
	return 0;
}

void txt_stop(struct txthreads *t)
{
	int i;

	if (!t->nthreads)
		return;
	pthread_mutex_lock(&t->lock);
	t->stop = 1;
	for (i = 0; i < t->nthreads; i++)
		pthread_cond_signal(&t->t[i].go);
	pthread_mutex_unlock(&t->lock);
	for (i = 0; i < t->nthreads; i++) {
		pthread_join(t->t[i].id, NULL);
		pthread_cond_destroy(&t->t[i].go);
	}
	pthread_cond_destroy(&t->done);
	pthread_mutex_destroy(&t->lock);
	t->nthreads = 0;
	t->shares = 1;
}

int txt_count(const struct txthreads *t)
{
	return t->shares;
}

/* The transmit calls the shares made this round. */
static int made(const struct txthreads *t, const uint8_t *has)
{
	int k, sum = 0;

	for (k = 0; k < t->shares; k++)
		if (has[k])
			sum += t->made[k];
	return sum;
}

int txt_run(struct txthreads *t, struct txt_call *calls, int n)
{
	uint8_t has[TXT_MAX] = { 0 };
	int i, k, mine = -1, helper = 0;

	if (n <= 0)
		return 0;
	t->calls = calls;
	t->ncalls = n;
	if (t->shares == 1) {
		make_share(t, 0);
		return t->made[0];
	}
	for (i = 0; i < n; i++)
		has[share_of(t, &calls[i])] = 1;
	pthread_mutex_lock(&t->lock);
	t->busy = 0;
	for (k = 0; k < t->shares; k++) {
		if (!has[k])
			continue;
		if (mine < 0) {
			mine = k; /* the first share with calls: ours */
			continue;
		}
		t->t[helper].share = k;
		t->busy++;
		pthread_cond_signal(&t->t[helper++].go);
	}
	pthread_mutex_unlock(&t->lock);
	make_share(t, mine);
	pthread_mutex_lock(&t->lock);
	while (t->busy)
		pthread_cond_wait(&t->done, &t->lock);
	pthread_mutex_unlock(&t->lock);
	return made(t, has);
}
