// SPDX-License-Identifier: GPL-2.0-only
/*
 * vrnic hardware model: the MR translation cache (mrc).
 *
 * A NIC translates an lkey or rkey through its MPT entry (the MR's bounds,
 * rights and PD) and the MR's MTT, both in host memory, and keeps the
 * translations it used last on chip: mrc.entries entries of the LRU CAM in
 * cam.c, tagged by the key's MPT index (the key without its low byte).  A
 * hit costs nothing; a miss reads the MPT entry and the MTT entries the
 * access needs over PCIe (model.c's DMA accounting).
 *
 * Copyright (c) 2026 The vrnic authors
 */

#include "mrc.h"

/**
 * vrnic_model_mr_access - an access through an MR key: look the
 *	translation up in the MR cache
 * @m:		the model
 * @key:	the lkey or rkey
 * @pages:	MTT entries the access needs
 * @res:	hit, miss or eviction
 * @miss:	on a miss, the cost of fetching the MPT and MTT entries
 *
 * Context: any.  Return: true when the clock accounts (@res is valid).
 */
bool vrnic_model_mr_access(struct vrnic_model *m, u32 key, u32 pages,
			   enum vrnic_cam_result *res,
			   struct vrnic_dma_cost *miss)
{
	if (likely(READ_ONCE(m->knob[VRNIC_KNOB_CLOCK_MODE]) == VRNIC_CLOCK_OFF))
		return false;
	*res = vrnic_cam_lookup(&m->mrc, key >> 8);
	if (*res == VRNIC_CAM_HIT) {
		vrnic_mcnt_inc(m, VRNIC_MCNT_MRC_HITS);
		return true;
	}
	vrnic_mcnt_inc(m, VRNIC_MCNT_MRC_MISSES);
	if (*res == VRNIC_CAM_EVICT)
		vrnic_mcnt_inc(m, VRNIC_MCNT_MRC_EVICTIONS);
	vrnic_model_dma(m, VRNIC_DMA_TO_DEVICE,
			VRNIC_MPT_ENTRY_BYTES + pages * VRNIC_MTT_ENTRY_BYTES,
			VRNIC_DMA_MPT, miss);
	return true;
}

/**
 * vrnic_model_mr_invalidate - the MR behind @key changed or went away
 * @m:		the model
 * @key:	its lkey or rkey
 *
 * Whatever the clock: a stale translation must not hit later.
 */
void vrnic_model_mr_invalidate(struct vrnic_model *m, u32 key)
{
	vrnic_cam_invalidate(&m->mrc, key >> 8);
}

/**
 * vrnic_model_mr_resident - is @key's translation in the MR cache?
 * @m:		the model
 * @key:	the lkey or rkey
 * @resident:	the answer
 *
 * Context: any.  Return: true when the clock accounts (the cache is only
 * used then, and @resident is valid).
 */
bool vrnic_model_mr_resident(struct vrnic_model *m, u32 key, bool *resident)
{
	if (READ_ONCE(m->knob[VRNIC_KNOB_CLOCK_MODE]) == VRNIC_CLOCK_OFF)
		return false;
	*resident = vrnic_cam_resident(&m->mrc, key >> 8);
	return true;
}
