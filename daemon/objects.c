// SPDX-License-Identifier: GPL-2.0
/*
 * The owner tables of mrcd's device objects.
 */
#include <stddef.h>

#include "objects.h"

int objects_owned_by(const struct objects *o, const struct client *c)
{
	uint32_t i;

#define OWNED(x) ((x) && (!c || (x) == c))
	for (i = 0; i < MRC_MAX_QP; i++)
		if (OWNED(o->qp[i].owner))
			return 1;
	for (i = 0; i < MRC_MAX_MR; i++)
		if (OWNED(o->mr_owner[i]))
			return 1;
	for (i = 0; i < MRC_MAX_CQ; i++)
		if (OWNED(o->cq_owner[i]))
			return 1;
	for (i = 0; i < MRCD_MAX_PD; i++)
		if (OWNED(o->pd_owner[i]))
			return 1;
#undef OWNED
	return 0;
}
