// SPDX-License-Identifier: GPL-2.0
/*
 * The merged device list (devlist.h). Lists handed out are remembered by
 * address, not marked in memory before the array: a list the real
 * libibverbs made (reached by a reference libmrc did not rebind) must be
 * told apart without reading outside it.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "devlist.h"

struct handed {
	struct ibv_device **list;
	struct ibv_device **real;
	struct handed *next;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct handed *lists;

struct ibv_device **devlist_merge(struct ibv_device **real, int nreal,
				  struct ibv_device *soft, int *n)
{
	struct handed *h = malloc(sizeof(*h));
	struct ibv_device **list;
	int i, k = 0;

	if (nreal < 0 || !real)
		nreal = 0;
	list = calloc(nreal + 2, sizeof(*list));
	if (!h || !list) {
		free(h);
		free(list);
		errno = ENOMEM;
		return NULL;
	}
	for (i = 0; i < nreal && real[i]; i++)
		list[k++] = real[i];
	if (soft)
		list[k++] = soft;
	*n = k;
	h->list = list;
	h->real = real;
	pthread_mutex_lock(&lock);
	h->next = lists;
	lists = h;
	pthread_mutex_unlock(&lock);
	return list;
}

int devlist_release(struct ibv_device **list, struct ibv_device ***real)
{
	struct handed **p, *h = NULL;

	pthread_mutex_lock(&lock);
	for (p = &lists; *p; p = &(*p)->next)
		if ((*p)->list == list) {
			h = *p;
			*p = h->next;
			break;
		}
	pthread_mutex_unlock(&lock);
	if (!h)
		return 0;
	*real = h->real;
	free(h->list);
	free(h);
	return 1;
}
