// SPDX-License-Identifier: GPL-2.0-only
/*
 * vrnic: the engines' glue to the hardware model: memory regions as the
 * DMA engine reaches them (lookup by key, checks, copies through the MTT,
 * the MR translation cache), the cost of every DMA, and the QP context
 * cache.
 *
 * A user MR is pinned with ib_umem_get(), which maps it with the DMA API
 * against the device's DMA device (the netdev's PCI function, so behind an
 * IOMMU these are IOVAs).  The MR keeps those DMA addresses, one per page,
 * as its MTT; the DMA engine reaches memory only through them.
 *
 * Copyright (c) 2026 The vrnic authors
 */

#include <linux/random.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <rdma/ib_umem.h>
#include <rdma/rdma_user_rxe.h>

#include "vrnic.h"
#include "vrnic_mr.h"
#include "hw/mrc.h"
#include "hw/qpc.h"
#include "mem/vrnic_mem.h"
#include "mem/vrnic_odp.h"
#include "probe/vrnic_trace.h"

/**
 * vrnic_mr_retire - free an MR once no lookup can hold it
 * @mr:		out of the table, at zero users
 *
 * A lookup that found the MR before it left the table may not have tried
 * its reference yet: free after every such reader is done (issue 17,
 * item 3).
 */
void vrnic_mr_retire(struct vrnic_mr *mr)
{
	kfree_rcu(mr, rcu);
}

/**
 * vrnic_mr_try - take a lookup's reference on an MR a key names
 * @mr:		what xa_load() of the MR table returned, or NULL
 * @key:	the key looked up
 *
 * Context: inside the rcu_read_lock() section of that xa_load().
 * Return: @mr with a reference, or NULL (stale key byte, or dereg begun).
 */
struct vrnic_mr *vrnic_mr_try(struct vrnic_mr *mr, u32 key)
{
	if (mr && (mr->ibmr.lkey != key || !refcount_inc_not_zero(&mr->users)))
		return NULL;
	return mr;
}

/**
 * vrnic_mr_get - find the MR a key names and take a reference
 * @vdev:	the device
 * @key:	an lkey or rkey from a WQE or a packet
 *
 * Context: any.  Return: the MR, or NULL for a key that names none (wrong
 * index, stale key byte, or an MR being deregistered).
 */
struct vrnic_mr *vrnic_mr_get(struct vrnic_dev *vdev, u32 key)
{
	struct vrnic_mr *mr;

	rcu_read_lock();
	mr = vrnic_mr_try(xa_load(&vdev->mrs, vrnic_key_index(key)), key);
	rcu_read_unlock();
	return mr;
}

void vrnic_mr_put(struct vrnic_mr *mr)
{
	if (refcount_dec_and_test(&mr->users))
		complete(&mr->done);
}

/**
 * vrnic_mr_check - may @len bytes at @iova be accessed this way?
 * @mr:		the MR, from vrnic_mr_get()
 * @pd:		the PD of the QP doing the access
 * @access:	IB_ACCESS_* bits needed (0 for a local read)
 * @iova:	the range's start
 * @len:	its length in bytes
 *
 * Return: 0, -EACCES for a PD, state or rights mismatch (IBA 10.6.3), or
 * -EFAULT for a range outside the MR.
 */
int vrnic_mr_check(struct vrnic_mr *mr, struct ib_pd *pd, int access,
		   u64 iova, u64 len)
{
	/* Pairs with REG_MR's release: a valid MR's keys and pages are set. */
	if (mr->ibmr.pd != pd || smp_load_acquire(&mr->state) != VRNIC_MR_VALID)
		return -EACCES;
	if ((mr->access & access) != access)
		return -EACCES;
	if (mr->type == VRNIC_MR_DMA || !len)
		return 0;
	if (iova < mr->ibmr.iova || len > mr->ibmr.length ||
	    iova - mr->ibmr.iova > mr->ibmr.length - len)
		return -EFAULT;
	return 0;
}

/**
 * vrnic_dma_account - cost one DMA of the engine on the modeled NIC
 * @vdev:	the device
 * @dir:	VRNIC_DMA_TO_DEVICE for a read of host memory
 * @len:	bytes
 * @kind:	what it moves
 *
 * Nothing but a branch while clock.mode is off.  Context: any.
 */
void vrnic_dma_account(struct vrnic_dev *vdev, enum vrnic_dma_dir dir, u32 len,
		       enum vrnic_dma_kind kind)
{
	struct vrnic_dma_cost c;

	if (vrnic_model_dma(&vdev->model, dir, len, kind, &c))
		trace_dma(&vdev->ibdev, dir == VRNIC_DMA_FROM_DEVICE, kind, len,
			  c.tlps, c.link_bytes, c.ns);
}

/**
 * vrnic_mr_cache_access - an access through @key needing @pages MTT entries:
 *	the model's MR cache hits, or fetches the MPT and MTT entries
 * @vdev:	the device
 * @key:	the MR's key
 * @pages:	MTT entries the access needs
 *
 * Context: any.
 */
void vrnic_mr_cache_access(struct vrnic_dev *vdev, u32 key, u32 pages)
{
	enum vrnic_cam_result res;
	struct vrnic_dma_cost miss;

	if (!vrnic_model_mr_access(&vdev->model, key, pages, &res, &miss))
		return;
	trace_mr_cache(&vdev->ibdev, key, res, pages);
	if (res != VRNIC_CAM_HIT)
		trace_dma(&vdev->ibdev, 0, VRNIC_DMA_MPT,
			  VRNIC_MPT_ENTRY_BYTES + pages * VRNIC_MTT_ENTRY_BYTES,
			  miss.tlps, miss.link_bytes, miss.ns);
}

/* @key's translation changed or went away: the MR cache must forget it. */
void vrnic_mr_uncache(struct vrnic_dev *vdev, u32 key)
{
	vrnic_model_mr_invalidate(&vdev->model, key);
}

/*
 * What a copy of @len bytes at @iova through @mr's translation costs the
 * model: one MR cache access for the MTT entries of the pages it spans,
 * and the DMA.
 */
static void vrnic_mr_copy_account(struct vrnic_dev *vdev, struct vrnic_mr *mr,
				  u64 iova, u32 len, enum vrnic_dma_dir dir)
{
	if (len)
		vrnic_mr_cache_access(vdev, mr->ibmr.lkey,
				      ((iova + len - 1) >> mr->page_shift) -
				      (iova >> mr->page_shift) + 1);
	vrnic_dma_account(vdev, dir, len, VRNIC_DMA_PAYLOAD);
}

/**
 * vrnic_mr_copy - move bytes between an MR and a buffer through its MTT
 * @vdev:	the device (its DMA device translates the MTT's addresses)
 * @mr:		the MR, checked with vrnic_mr_check()
 * @iova:	start address in the MR's address space
 * @buf:	the engine's buffer
 * @len:	bytes
 * @dir:	VRNIC_DMA_TO_DEVICE reads the MR
 * @pf:		the QP's page fault: where an on-demand MR's copy records one
 *
 * Return: 0, -EFAULT, or -EAGAIN for a page fault of an on-demand MR
 * (recorded in @pf, nothing copied; vrnic_odp_copy()).
 */
int vrnic_mr_copy(struct vrnic_dev *vdev, struct vrnic_mr *mr, u64 iova,
		  void *buf, u32 len, enum vrnic_dma_dir dir,
		  struct vrnic_odp_fault *pf)
{
	u64 pgsz, base, off;
	u32 chunk, idx;
	int err;

	if (mr->type == VRNIC_MR_ODP) {
		err = vrnic_odp_copy(vdev, mr, iova, buf, len, dir, pf);
		/* The MR cache and the DMA, once the pages were there. */
		if (!err && len)
			vrnic_mr_copy_account(vdev, mr, iova, len, dir);
		return err;
	}
	if (mr->type == VRNIC_MR_DMA) {
		vrnic_dma_account(vdev, dir, len, VRNIC_DMA_PAYLOAD);
		return vrnic_dma_copy(vdev->dma_dev, iova, buf, len, dir);
	}

	pgsz = 1ULL << mr->page_shift;
	base = mr->ibmr.iova & ~(pgsz - 1);
	/* Translate first (the MR cache), then move the data. */
	vrnic_mr_copy_account(vdev, mr, iova, len, dir);
	while (len) {
		off = iova - base;
		idx = off >> mr->page_shift;
		if (idx >= mr->npages)
			return -EFAULT;
		off &= pgsz - 1;
		chunk = min_t(u64, len, pgsz - off);
		err = vrnic_dma_copy(vdev->dma_dev, mr->mtt[idx] + off, buf,
				     chunk, dir);
		if (err)
			return err;
		iova += chunk;
		buf += chunk;
		len -= chunk;
	}
	return 0;
}

/**
 * vrnic_sge_copy - move bytes between a buffer and the memory an SGE list
 *	names, checking every SGE's key, PD, rights and bounds
 * @vdev:	the device
 * @pd:		the PD the SGEs' MRs must belong to
 * @sge:	the list; it may sit in memory a process can change (a mapped
 *		work queue), so each field is read once and trusted nowhere
 *		else
 * @num_sge:	entries in @sge, already checked against the queue's limit
 * @offset:	bytes into the list where the copy starts
 * @buf:	the engine's side
 * @len:	bytes to copy
 * @access:	rights needed on the MRs (IB_ACCESS_LOCAL_WRITE to write them)
 * @dir:	VRNIC_DMA_TO_DEVICE reads the list's memory into @buf
 * @pf:		the QP's page fault, for SGEs of on-demand MRs
 *
 * Return: 0, -EACCES for a bad key, PD or rights, -EFAULT for a range
 * outside an MR or beyond the end of the list, -EAGAIN for a page fault
 * (recorded in @pf; the SGEs before it may have been copied: the caller
 * copies the whole range again once it is resolved).
 */
int vrnic_sge_copy(struct vrnic_dev *vdev, struct ib_pd *pd,
		   const struct rxe_sge *sge, u32 num_sge, u32 offset,
		   void *buf, u32 len, int access, enum vrnic_dma_dir dir,
		   struct vrnic_odp_fault *pf)
{
	u32 i;

	for (i = 0; i < num_sge && len; i++) {
		u64 addr = READ_ONCE(sge[i].addr);
		u32 slen = READ_ONCE(sge[i].length);
		u32 lkey = READ_ONCE(sge[i].lkey);
		struct vrnic_mr *mr;
		u32 chunk;
		int err;

		if (offset >= slen) {
			offset -= slen;
			continue;
		}
		chunk = min(len, slen - offset);
		mr = vrnic_mr_get(vdev, lkey);
		if (!mr)
			return -EACCES;
		err = vrnic_mr_check(mr, pd, access, addr + offset, chunk);
		if (!err)
			err = vrnic_mr_copy(vdev, mr, addr + offset, buf, chunk,
					    dir, pf);
		vrnic_mr_put(mr);
		if (err)
			return err;
		buf += chunk;
		len -= chunk;
		offset = 0;
	}
	return len ? -EFAULT : 0;
}

/**
 * vrnic_odp_resolve - resolve a QP's page fault
 * @vdev:	the device
 * @pf:		the QP's page fault, pending
 *
 * Faults its range in (vrnic_odp_fault_in()) and clears @pending.  A range
 * that cannot be faulted in sets @failed: the engines' next copy through
 * it fails as an access outside the MR does.  An MR deregistered
 * meanwhile is not looked for: the engines find its key gone.
 *
 * Context: process (the QP's work); sleeps.
 */
void vrnic_odp_resolve(struct vrnic_dev *vdev, struct vrnic_odp_fault *pf)
{
	struct vrnic_mr *mr = vrnic_mr_get(vdev, pf->key);
	int err = -EFAULT;

	if (mr && mr->type == VRNIC_MR_ODP)
		err = vrnic_odp_fault_in(mr, pf);
	if (mr)
		vrnic_mr_put(mr);
	vrnic_count(vdev, VRNIC_CNT_ODP_PAGE_FAULTS);
	if (err) {
		vrnic_count(vdev, VRNIC_CNT_ODP_FAULT_ERRORS);
		pf->failed = true;
	}
	/* @failed is set before the engines see the fault resolved. */
	smp_store_release(&pf->pending, false);
}

/**
 * vrnic_qpc_access - the engine reaches for QP @qpn's context, once per
 *	packet it sends or receives: the model's QPC cache hits, or fetches
 *	the context (and writes back the one it evicts)
 * @vdev:	the device
 * @qpn:	the QP
 *
 * Nothing but a branch while clock.mode is off.  Context: any.
 */
void vrnic_qpc_access(struct vrnic_dev *vdev, u32 qpn)
{
	struct vrnic_dma_cost fetch, wb;
	enum vrnic_cam_result res;
	u32 bytes;

	if (!vrnic_model_qpc_access(&vdev->model, qpn, &res, &fetch, &wb))
		return;
	trace_qpc_cache(&vdev->ibdev, qpn, res);
	if (res == VRNIC_CAM_HIT)
		return;
	bytes = READ_ONCE(vdev->model.knob[VRNIC_KNOB_QPC_CTX_BYTES]);
	trace_dma(&vdev->ibdev, 0, VRNIC_DMA_QPC, bytes, fetch.tlps,
		  fetch.link_bytes, fetch.ns);
	if (res == VRNIC_CAM_EVICT)
		trace_dma(&vdev->ibdev, 1, VRNIC_DMA_QPC, bytes, wb.tlps,
			  wb.link_bytes, wb.ns);
}
