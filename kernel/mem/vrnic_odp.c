// SPDX-License-Identifier: GPL-2.0-only
/*
 * vrnic: on-demand paging MRs (IB_ACCESS_ON_DEMAND), as a NIC with ODP
 * does it.  Registration pins nothing: ib_umem_odp_get() only watches the
 * range through an MMU interval notifier.  The engines copy through the
 * pages ib_core has mapped for the device (ib_umem_odp's dma_list); a page
 * that is not mapped, or not for writing when the engine writes, is a
 * page fault:
 *
 *   - the engine records it in the QP (struct vrnic_odp_fault) and stops,
 *     leaving its work as it was: a requester does not send the packet, a
 *     responder or completer puts the packet back at the head of the QP's
 *     receive queue, a READ being answered keeps its place;
 *   - the QP's work, in process context, faults the range in
 *     (vrnic_odp_resolve() in mem/vrnic_mem.c, vrnic_odp_fault_in() here:
 *     ib_umem_odp_map_dma_and_lock(), that is hmm_range_fault() and the
 *     DMA mapping), then runs the engines again, which take up the same
 *     packet.
 *
 * The engines run in softirq and with BHs off, where no fault can be
 * taken: that is why a fault stops the QP, as a NIC's page fault stalls
 * its QP context until the driver has resolved it.  A range that cannot
 * be faulted in (not mapped in the process any more) fails the engine's
 * next copy as an access outside the MR does: a local protection error,
 * or a remote access error NAK.
 *
 * An invalidation (the process unmaps, frees or migrates pages under the
 * MR) unmaps them under the umem's mutex, after stopping new copies and
 * waiting for those under way (@odp_lock, @odp_busy): no copy ever goes
 * through a page once the invalidation has returned.
 *
 * Copyright (c) 2026 The vrnic authors
 */

#include <linux/mmu_notifier.h>
#include <rdma/ib_umem_odp.h>

#include "vrnic.h"
#include "vrnic_mr.h"
#include "mem/vrnic_odp.h"
#include "probe/vrnic_mutate.h"

static bool vrnic_odp_invalidate(struct mmu_interval_notifier *mni,
				 const struct mmu_notifier_range *range,
				 unsigned long cur_seq)
{
	struct ib_umem_odp *odp = container_of(mni, struct ib_umem_odp, notifier);
	/* NULL until vrnic_odp_reg() has published it: nothing is mapped. */
	struct vrnic_mr *mr = smp_load_acquire(&odp->private);
	unsigned long start, end;

	if (!mmu_notifier_range_blockable(range))
		return false;

	mutex_lock(&odp->umem_mutex);
	mmu_interval_set_seq(mni, cur_seq);
	start = max_t(u64, ib_umem_start(odp), range->start);
	end = min_t(u64, ib_umem_end(odp), range->end);
	if (mr) {
		/* No new copy; the ones under way hold the lock. */
		spin_lock_irq(&mr->odp_lock);
		mr->odp_busy++;
		spin_unlock_irq(&mr->odp_lock);
	}
	/* tools/mutate.sh's odp_stale: the pages stay mapped for the device. */
	if (odp->npages && !vrnic_mutant(odp_stale))
		ib_umem_odp_unmap_dma_pages(odp, start, end);
	if (mr) {
		spin_lock_irq(&mr->odp_lock);
		mr->odp_busy--;
		spin_unlock_irq(&mr->odp_lock);
	}
	mutex_unlock(&odp->umem_mutex);
	vrnic_count(to_vdev(odp->umem.ibdev), VRNIC_CNT_ODP_INVALIDATIONS);
	return true;
}

static const struct mmu_interval_notifier_ops vrnic_odp_ops = {
	.invalidate = vrnic_odp_invalidate,
};

/**
 * vrnic_odp_reg - make @mr an on-demand MR over the process's
 *	[start, start + length)
 * @ibdev:	the device (its DMA device maps the pages as they fault in)
 * @mr:		the MR being registered, not yet published
 * @start:	the user address
 * @length:	bytes
 * @access:	IB_ACCESS_* flags, IB_ACCESS_ON_DEMAND among them
 *
 * Context: process.  Return: 0 or a negative errno.
 */
int vrnic_odp_reg(struct ib_device *ibdev, struct vrnic_mr *mr, u64 start,
		  u64 length, int access)
{
	struct ib_umem_odp *odp;

	spin_lock_init(&mr->odp_lock);
	mr->odp_busy = 0;
	odp = ib_umem_odp_get(ibdev, start, length, access, &vrnic_odp_ops);
	if (IS_ERR(odp))
		return PTR_ERR(odp);
	mr->umem = &odp->umem;
	mr->page_shift = odp->page_shift;
	mr->npages = ib_umem_odp_num_pages(odp);
	/* The invalidation may look at the MR from here. */
	smp_store_release(&odp->private, mr);
	return 0;
}

/*
 * Whether every page of [va, va + len) is mapped for @need.  Context:
 * under @mr's odp_lock.
 */
static bool vrnic_odp_mapped(struct ib_umem_odp *odp, u64 va, u32 len,
			     u64 need)
{
	u64 i = (va - ib_umem_start(odp)) >> odp->page_shift;
	u64 last = (va + len - 1 - ib_umem_start(odp)) >> odp->page_shift;

	for (; i <= last; i++)
		if ((READ_ONCE(odp->dma_list[i]) & need) != need)
			return false;
	return true;
}

/**
 * vrnic_odp_copy - move bytes between an on-demand MR and a buffer
 * @vdev:	the device
 * @mr:		the MR, checked with vrnic_mr_check() for [iova, iova + len)
 * @iova:	start address in the MR's address space
 * @buf:	the engine's buffer
 * @len:	bytes
 * @dir:	VRNIC_DMA_TO_DEVICE reads the MR
 * @pf:		the QP's page fault, recorded here when a page is not mapped
 *
 * Context: any; nothing sleeps.  Return: 0; -EAGAIN when a page of the
 * range is not mapped (for writing, if @dir writes): the fault is recorded
 * in @pf and nothing was copied; -EFAULT when the range is the one @pf
 * could not fault in.
 */
int vrnic_odp_copy(struct vrnic_dev *vdev, struct vrnic_mr *mr, u64 iova,
		   void *buf, u32 len, enum vrnic_dma_dir dir,
		   struct vrnic_odp_fault *pf)
{
	struct ib_umem_odp *odp = to_ib_umem_odp(mr->umem);
	bool write = dir == VRNIC_DMA_FROM_DEVICE;
	u64 need = ODP_READ_ALLOWED_BIT | (write ? ODP_WRITE_ALLOWED_BIT : 0);
	u64 pgsz = 1ULL << odp->page_shift;
	u64 va = mr->umem->address + (iova - mr->ibmr.iova);
	unsigned long flags;
	int err = 0;

	if (!len)
		return 0;
	spin_lock_irqsave(&mr->odp_lock, flags);
	if (mr->odp_busy || !vrnic_odp_mapped(odp, va, len, need)) {
		spin_unlock_irqrestore(&mr->odp_lock, flags);
		if (pf->failed && pf->key == mr->ibmr.lkey) {
			pf->failed = false;
			return -EFAULT;
		}
		pf->failed = false;
		pf->key = mr->ibmr.lkey;
		pf->va = va;
		pf->len = len;
		pf->write = write;
		/* The fields are set before the QP's work sees the fault. */
		smp_store_release(&pf->pending, true);
		return -EAGAIN;
	}
	while (len && !err) {
		u64 off = va & (pgsz - 1);
		u32 chunk = min_t(u64, len, pgsz - off);
		dma_addr_t dma = READ_ONCE(odp->dma_list[(va - ib_umem_start(odp)) >>
							 odp->page_shift]);

		err = vrnic_dma_copy(vdev->dma_dev, (dma & ODP_DMA_ADDR_MASK) + off,
				     buf, chunk, dir);
		va += chunk;
		buf += chunk;
		len -= chunk;
	}
	spin_unlock_irqrestore(&mr->odp_lock, flags);
	return err;
}

/**
 * vrnic_odp_fault_in - fault in the range a QP's engines stopped at
 * @mr:		the on-demand MR @pf names, referenced
 * @pf:		the QP's page fault, pending
 *
 * Faults the range in and maps it for the device (hmm_range_fault(), then
 * the DMA API), as a NIC driver resolves its device's page fault.
 *
 * Context: process; sleeps.  Return: 0, or a negative errno when the
 * range cannot be faulted in (the process no longer maps it, or not
 * writable).
 */
int vrnic_odp_fault_in(struct vrnic_mr *mr, struct vrnic_odp_fault *pf)
{
	struct ib_umem_odp *odp = to_ib_umem_odp(mr->umem);
	/*
	 * A writable MR's pages are faulted in for writing even when the
	 * engine only reads them, as mlx5 does: a read fault of memory never
	 * written maps the shared zero page, which every other MR over such
	 * memory would map for the device too (overlapping DMA mappings,
	 * which the DMA API's debugging refuses), and the first write
	 * through it would need a second fault.
	 */
	bool write = pf->write || odp->umem.writable;
	int ret;

	might_sleep();
	ret = ib_umem_odp_map_dma_and_lock(odp, pf->va, pf->len,
					   ODP_READ_ALLOWED_BIT |
					   (write ? ODP_WRITE_ALLOWED_BIT : 0),
					   true);
	if (ret < 0)
		return ret;
	mutex_unlock(&odp->umem_mutex);
	return 0;
}
