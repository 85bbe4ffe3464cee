// SPDX-License-Identifier: GPL-2.0-only
/*
 * vrnic: the memory region verbs: registration (a user MR is pinned with
 * ib_umem_get(), which maps it with the DMA API against the device's DMA
 * device), fast registration, and deregistration.  What the engines do
 * with an MR is mem/vrnic_mem.c.
 *
 * Copyright (c) 2026 The vrnic authors
 */

#include <linux/random.h>
#include <linux/slab.h>
#include <rdma/ib_umem.h>
#include <rdma/iter.h>
#include <rdma/rdma_user_rxe.h>

#include "vrnic.h"
#include "vrnic_compat.h"
#include "vrnic_mr.h"
#include "mem/vrnic_mem.h"
#include "mem/vrnic_mw.h"
#include "mem/vrnic_odp.h"
#include "verbs/vrnic_mr_verbs.h"

/* Allocate the MR's MPT index and keys.  The key byte starts random. */
static int vrnic_mr_publish(struct vrnic_dev *vdev, struct vrnic_mr *mr)
{
	u32 index;
	int err;

	refcount_set(&mr->users, 1);
	init_completion(&mr->done);
	err = xa_alloc_cyclic(&vdev->mrs, &index, mr, XA_LIMIT(1, VRNIC_MAX_MR),
			      &vdev->next_mr, GFP_KERNEL);
	if (err < 0)
		return err;
	mr->ibmr.lkey = index << 8 | get_random_u8();
	mr->ibmr.rkey = mr->ibmr.lkey;
	return 0;
}

static void vrnic_mr_unpublish(struct vrnic_dev *vdev, struct vrnic_mr *mr)
{
	xa_erase(&vdev->mrs, vrnic_key_index(mr->ibmr.lkey));
	if (!refcount_dec_and_test(&mr->users))
		wait_for_completion(&mr->done);
}

struct ib_mr *vrnic_get_dma_mr(struct ib_pd *ibpd, int access)
{
	struct vrnic_dev *vdev = to_vdev(ibpd->device);
	struct vrnic_mr *mr;
	int err;

	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->type = VRNIC_MR_DMA;
	mr->state = VRNIC_MR_VALID;
	mr->access = access;
	mr->ibmr.length = U64_MAX;
	err = vrnic_mr_publish(vdev, mr);
	if (err) {
		kfree(mr);
		return ERR_PTR(err);
	}
	return &mr->ibmr;
}

/*
 * Pin and map [start, start + length) and fill the MTT, one DMA address
 * per page.  *@pinned: when the pinning ended (the rest is the MTT's).
 */
static int vrnic_mr_pin(struct ib_device *ibdev, struct vrnic_mr *mr,
			u64 start, u64 length, int access, u64 *pinned)
{
	struct ib_block_iter biter;
	struct ib_umem *umem;
	size_t npages;
	u32 i = 0;
	int err;

	umem = ib_umem_get(ibdev, start, length, access);
	*pinned = ktime_get_ns();
	if (IS_ERR(umem))
		return PTR_ERR(umem);
	npages = ib_umem_num_dma_blocks(umem, PAGE_SIZE);
	if (npages > U32_MAX) {
		err = -EINVAL;
		goto err_umem;
	}
	mr->mtt = kvcalloc(npages, sizeof(*mr->mtt), GFP_KERNEL);
	if (!mr->mtt) {
		err = -ENOMEM;
		goto err_umem;
	}
	rdma_umem_for_each_dma_block(umem, &biter, PAGE_SIZE)
		mr->mtt[i++] = rdma_block_iter_dma_address(&biter);
	mr->umem = umem;
	mr->type = VRNIC_MR_USER;
	mr->page_shift = PAGE_SHIFT;
	mr->npages = npages;
	return 0;

err_umem:
	ib_umem_release(umem);
	return err;
}

/*
 * A user MR: pinned with an MTT, or on demand (IB_ACCESS_ON_DEMAND:
 * nothing pinned or mapped until the engines touch it, mem/vrnic_odp.c).
 * Implicit ODP (the whole address space, start 0 and length U64_MAX) is
 * not supported.
 */
struct ib_mr *vrnic_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
				u64 iova, int access, struct ib_udata *udata)
{
	struct vrnic_dev *vdev = to_vdev(ibpd->device);
	struct vrnic_mr *mr;
	u64 t0, t1, t2;
	int err;

	if ((access & IB_ACCESS_ON_DEMAND) && !start && length == U64_MAX)
		return ERR_PTR(-EOPNOTSUPP);	/* implicit ODP */
	if (!length || length > vdev->attr.max_mr_size)
		return ERR_PTR(-EINVAL);
	if (access & ~(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |
		       IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC |
		       IB_ACCESS_MW_BIND | IB_ACCESS_RELAXED_ORDERING |
		       IB_ACCESS_ON_DEMAND | VRNIC_ACCESS_FLUSH_GLOBAL))
		return ERR_PTR(-EOPNOTSUPP);

	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);

	/*
	 * What registration costs the host: pinning and mapping, the MTT
	 * (an on-demand MR's registration has neither: its time counts as
	 * the pinning's).
	 */
	t0 = ktime_get_ns();
	if (access & IB_ACCESS_ON_DEMAND) {
		err = vrnic_odp_reg(ibpd->device, mr, start, length, access);
		mr->type = VRNIC_MR_ODP;
		t1 = ktime_get_ns();
	} else {
		err = vrnic_mr_pin(ibpd->device, mr, start, length, access, &t1);
	}
	t2 = ktime_get_ns();
	if (err)
		goto err_free;

	mr->state = VRNIC_MR_VALID;
	mr->access = access;
	mr->max_pages = mr->npages;
	mr->ibmr.iova = iova;
	mr->ibmr.length = length;
	mr->ibmr.page_size = 1U << mr->page_shift;

	err = vrnic_mr_publish(vdev, mr);
	if (err)
		goto err_release;
	vrnic_count(vdev, VRNIC_CNT_MR_REGS);
	atomic64_add(t1 - t0, &vdev->cnt[VRNIC_CNT_MR_REG_PIN_NS]);
	if (mr->type == VRNIC_MR_USER) {
		atomic64_add(t2 - t1, &vdev->cnt[VRNIC_CNT_MR_REG_MTT_NS]);
		atomic64_add(mr->npages, &vdev->cnt[VRNIC_CNT_MR_MTT_ENTRIES]);
	}
	return &mr->ibmr;

err_release:
	kvfree(mr->mtt);
	ib_umem_release(mr->umem);
err_free:
	kfree(mr);
	return ERR_PTR(err);
}

struct ib_mr *vrnic_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
			     u32 max_num_sg)
{
	struct vrnic_dev *vdev = to_vdev(ibpd->device);
	struct vrnic_mr *mr;
	int err;

	if (type != IB_MR_TYPE_MEM_REG)
		return ERR_PTR(-EOPNOTSUPP);
	if (!max_num_sg || max_num_sg > vdev->attr.max_fast_reg_page_list_len)
		return ERR_PTR(-EINVAL);

	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->mtt = kcalloc(max_num_sg, sizeof(*mr->mtt), GFP_KERNEL);
	if (!mr->mtt) {
		err = -ENOMEM;
		goto err_free;
	}
	mr->type = VRNIC_MR_FRWR;
	mr->state = VRNIC_MR_INVALID;
	mr->max_pages = max_num_sg;
	err = vrnic_mr_publish(vdev, mr);
	if (err)
		goto err_mtt;
	return &mr->ibmr;

err_mtt:
	kfree(mr->mtt);
err_free:
	kfree(mr);
	return ERR_PTR(err);
}

static int vrnic_mr_set_page(struct ib_mr *ibmr, u64 addr)
{
	struct vrnic_mr *mr = to_vmr(ibmr);

	if (mr->npages >= mr->max_pages)
		return -ENOMEM;
	mr->mtt[mr->npages++] = addr;
	return 0;
}

/*
 * Load the page list of a fast-registration MR from a DMA-mapped SG list.
 * The MR becomes usable when a REG_MR work request executes.
 */
int vrnic_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		    unsigned int *sg_offset)
{
	struct vrnic_mr *mr = to_vmr(ibmr);

	mr->npages = 0;
	mr->page_shift = ilog2(ibmr->page_size);
	return ib_sg_to_pages(ibmr, sg, sg_nents, sg_offset, vrnic_mr_set_page);
}

/*
 * Deregister an MR.  One with memory windows bound to it is refused with
 * -EBUSY and stays as it was (IBA 10.6.7.2.6; rxe refuses too).
 */
int vrnic_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct vrnic_dev *vdev = to_vdev(ibmr->device);
	struct vrnic_mr *mr = to_vmr(ibmr);
	u64 t0;
	int err;

	err = vrnic_mr_forbid_mw(mr);
	if (err)
		return err;
	vrnic_mr_unpublish(vdev, mr);
	vrnic_mr_uncache(vdev, ibmr->lkey);
	if (mr->umem) {
		/* Unmapping and unpinning: the other half of an MR's cost. */
		t0 = ktime_get_ns();
		ib_umem_release(mr->umem);
		atomic64_add(ktime_get_ns() - t0, &vdev->cnt[VRNIC_CNT_MR_DEREG_NS]);
		vrnic_count(vdev, VRNIC_CNT_MR_DEREGS);
	}
	if (mr->type == VRNIC_MR_USER)
		kvfree(mr->mtt);
	else
		kfree(mr->mtt);
	vrnic_mr_retire(mr);
	return 0;
}

/*
 * Allocate a memory window (ibv_alloc_mw()): a type 1 window is valid at
 * once, bound to nothing; a type 2 window is free until a bind.  Its
 * index comes after the MRs' and its key byte starts random.
 */
int vrnic_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata)
{
	struct vrnic_dev *vdev = to_vdev(ibmw->device);
	struct vrnic_mw *mw;
	u32 index;
	int err;

	mw = kzalloc(sizeof(*mw), GFP_KERNEL);
	if (!mw)
		return -ENOMEM;
	refcount_set(&mw->users, 1);
	init_completion(&mw->done);
	spin_lock_init(&mw->lock);
	mw->type = ibmw->type;
	mw->pd = ibmw->pd;
	mw->state = ibmw->type == IB_MW_TYPE_2 ? VRNIC_MW_FREE : VRNIC_MW_VALID;
	/* Reserve the index; the window is looked up once its key is set. */
	err = xa_alloc_cyclic(&vdev->mws, &index, NULL,
			      XA_LIMIT(VRNIC_MIN_MW_INDEX, VRNIC_MAX_MW_INDEX),
			      &vdev->next_mw, GFP_KERNEL);
	if (err < 0) {
		kfree(mw);
		return err;
	}
	mw->rkey = index << 8 | get_random_u8();
	err = xa_err(xa_store(&vdev->mws, index, mw, GFP_KERNEL));
	if (err) {
		xa_erase(&vdev->mws, index);
		kfree(mw);
		return err;
	}
	to_vibmw(ibmw)->mw = mw;
	ibmw->rkey = mw->rkey;
	return 0;
}

/* Deallocate a window, bound or not: its binding goes with it (as rxe's). */
int vrnic_dealloc_mw(struct ib_mw *ibmw)
{
	struct vrnic_dev *vdev = to_vdev(ibmw->device);

	vrnic_mw_kill(vdev, to_vibmw(ibmw)->mw);
	return 0;
}
