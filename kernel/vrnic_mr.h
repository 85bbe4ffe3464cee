/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vrnic: memory regions and their translation tables.
 *
 * Copyright (c) 2026 The vrnic authors
 */

#ifndef VRNIC_MR_H
#define VRNIC_MR_H

#include <linux/completion.h>
#include <linux/refcount.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_verbs.h>

#include "hw/dma.h"

struct vrnic_dev;

enum vrnic_mr_type {
	VRNIC_MR_DMA,		/* get_dma_mr: DMA addresses, any length */
	VRNIC_MR_USER,		/* reg_user_mr: pinned user pages */
	VRNIC_MR_FRWR,		/* alloc_mr: pages set by map_mr_sg + REG_MR */
};

enum vrnic_mr_state {
	VRNIC_MR_INVALID,	/* FRWR not registered yet, or invalidated */
	VRNIC_MR_VALID,
};

/**
 * struct vrnic_mr - a memory region
 * @ibmr:	the core MR; lkey == rkey == index << 8 | key byte
 * @users:	references held by the data path while it touches the MR;
 *		dereg waits for them through @done
 * @type:	how the MR was made
 * @state:	FRWR MRs are valid between REG_MR and LOCAL_INV
 * @access:	IB_ACCESS_* flags
 * @page_shift:	log2 of the translation page size
 * @mtt:	the MR's translation table: the DMA address of every page,
 *		as the kernel DMA API returned it for the netdev's DMA device
 *		(or, with virtual DMA, the kernel virtual address)
 * @npages:	entries in use in @mtt
 * @max_pages:	entries allocated in @mtt
 * @umem:	the pinned user memory of a user MR
 * @rcu:	frees the MR a grace period after it left the key table, as
 *		vrnic_mr_get() may still be incrementing @users
 */
struct vrnic_mr {
	struct ib_mr		ibmr;
	refcount_t		users;
	struct completion	done;
	enum vrnic_mr_type	type;
	enum vrnic_mr_state	state;
	int			access;
	unsigned int		page_shift;
	u64			*mtt;
	u32			npages;
	u32			max_pages;
	struct ib_umem		*umem;
	struct rcu_head		rcu;
};

static inline struct vrnic_mr *to_vmr(struct ib_mr *mr)
{
	return container_of(mr, struct vrnic_mr, ibmr);
}

static inline u32 vrnic_key_index(u32 key)
{
	return key >> 8;
}

#endif /* VRNIC_MR_H */
