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

struct ib_mr *vrnic_get_dma_mr(struct ib_pd *ibpd, int access);
struct ib_mr *vrnic_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
				u64 iova, int access, struct ib_udata *udata);
struct ib_mr *vrnic_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
			     u32 max_num_sg);
int vrnic_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		    unsigned int *sg_offset);
int vrnic_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata);

struct vrnic_mr *vrnic_mr_get(struct vrnic_dev *vdev, u32 key);
struct vrnic_mr *vrnic_mr_try(struct vrnic_mr *mr, u32 key);
void vrnic_mr_retire(struct vrnic_mr *mr);
void vrnic_mr_cache_access(struct vrnic_dev *vdev, u32 key, u32 pages);
void vrnic_mr_uncache(struct vrnic_dev *vdev, u32 key);
void vrnic_mr_put(struct vrnic_mr *mr);
int vrnic_mr_check(struct vrnic_mr *mr, struct ib_pd *pd, int access,
		   u64 iova, u64 len);
int vrnic_mr_copy(struct vrnic_dev *vdev, struct vrnic_mr *mr, u64 iova,
		  void *buf, u32 len, enum vrnic_dma_dir dir);
struct rxe_sge;
int vrnic_sge_copy(struct vrnic_dev *vdev, struct ib_pd *pd,
		   const struct rxe_sge *sge, u32 num_sge, u32 offset,
		   void *buf, u32 len, int access, enum vrnic_dma_dir dir);

#endif /* VRNIC_MR_H */
