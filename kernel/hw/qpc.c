// SPDX-License-Identifier: GPL-2.0-only
/*
 * vrnic hardware model: QP context management.
 *
 * A NIC keeps each QP's context (state, PSNs, queue addresses, retry
 * counts) where its engines can reach it for every packet the QP sends or
 * receives.  qpc.mode onchip: all contexts live in on-chip memory, so
 * every access hits and the NIC holds at most qpc.entries QPs (creating
 * one more fails with -ENOMEM).  qpc.mode host: contexts live in host
 * memory and the NIC caches qpc.entries of them (cam.c, LRU); a miss is
 * a PCIe read of qpc.ctx_bytes, and the context it pushes out is written
 * back, as a dirty context must be.  The transport looks a QP's context up
 * once per packet it sends or receives.
 *
 * Copyright (c) 2026 The vrnic authors
 */

#include <linux/device.h>

#include "qpc.h"

/**
 * vrnic_model_qp_create - a QP takes a context
 * @m:		the model
 * @gsi:	it is the GSI QP (its context never blocks a qpc.mode change)
 * @dev:	the device, to name in the log
 *
 * Context: process.  Return: 0, or -ENOMEM when qpc.mode is onchip and
 * all qpc.entries contexts are taken (counted in model_qpc_refused).
 */
int vrnic_model_qp_create(struct vrnic_model *m, bool gsi, struct device *dev)
{
	int err = 0;

	mutex_lock(&m->lock);
	if (m->knob[VRNIC_KNOB_QPC_MODE] == VRNIC_QPC_ONCHIP &&
	    m->qps >= m->knob[VRNIC_KNOB_QPC_ENTRIES]) {
		vrnic_mcnt_inc(m, VRNIC_MCNT_QPC_REFUSED);
		dev_warn_ratelimited(dev, "qpc: all %u on-chip QP contexts are in use (qpc.mode onchip): QP refused; raise model/qpc.entries or use qpc.mode host\n",
				     m->knob[VRNIC_KNOB_QPC_ENTRIES]);
		err = -ENOMEM;
	} else {
		m->qps++;
		m->gsi_qps += gsi;
	}
	mutex_unlock(&m->lock);
	return err;
}

/**
 * vrnic_model_qp_destroy - a QP gives its context back
 * @m:		the model
 * @qpn:	its number (a later QP with the same number starts uncached)
 * @gsi:	as given to vrnic_model_qp_create()
 *
 * Context: process.
 */
void vrnic_model_qp_destroy(struct vrnic_model *m, u32 qpn, bool gsi)
{
	mutex_lock(&m->lock);
	m->qps--;
	m->gsi_qps -= gsi;
	mutex_unlock(&m->lock);
	vrnic_cam_invalidate(&m->qpc, qpn);
}

/**
 * vrnic_model_qpc_access - the engine reaches for QP @qpn's context
 * @m:		the model
 * @qpn:	the QP
 * @res:	hit, miss, or miss that evicted another context
 * @fetch:	on a miss, the cost of reading the context
 * @writeback:	on an eviction, the cost of writing the evicted one back
 *
 * Context: any.  Return: true when the clock accounts (@res is valid).
 */
bool vrnic_model_qpc_access(struct vrnic_model *m, u32 qpn,
			    enum vrnic_cam_result *res,
			    struct vrnic_dma_cost *fetch,
			    struct vrnic_dma_cost *writeback)
{
	u32 bytes;

	if (likely(READ_ONCE(m->knob[VRNIC_KNOB_CLOCK_MODE]) == VRNIC_CLOCK_OFF))
		return false;
	if (READ_ONCE(m->knob[VRNIC_KNOB_QPC_MODE]) == VRNIC_QPC_ONCHIP)
		*res = VRNIC_CAM_HIT;
	else
		*res = vrnic_cam_lookup(&m->qpc, qpn);
	if (*res == VRNIC_CAM_HIT) {
		vrnic_mcnt_inc(m, VRNIC_MCNT_QPC_HITS);
		return true;
	}
	bytes = READ_ONCE(m->knob[VRNIC_KNOB_QPC_CTX_BYTES]);
	vrnic_mcnt_inc(m, VRNIC_MCNT_QPC_MISSES);
	vrnic_model_dma(m, VRNIC_DMA_TO_DEVICE, bytes, VRNIC_DMA_QPC, fetch);
	if (*res == VRNIC_CAM_EVICT) {
		vrnic_mcnt_inc(m, VRNIC_MCNT_QPC_EVICTIONS);
		vrnic_model_dma(m, VRNIC_DMA_FROM_DEVICE, bytes, VRNIC_DMA_QPC,
				writeback);
	}
	return true;
}

/**
 * vrnic_model_qpc_resident - is QP @qpn's context on chip?
 * @m:		the model
 * @qpn:	the QP
 * @resident:	the answer
 *
 * Context: any.  Return: true when the clock accounts (contexts are only
 * tracked then, and @resident is valid).
 */
bool vrnic_model_qpc_resident(struct vrnic_model *m, u32 qpn, bool *resident)
{
	if (READ_ONCE(m->knob[VRNIC_KNOB_CLOCK_MODE]) == VRNIC_CLOCK_OFF)
		return false;
	*resident = READ_ONCE(m->knob[VRNIC_KNOB_QPC_MODE]) == VRNIC_QPC_ONCHIP ||
		    vrnic_cam_resident(&m->qpc, qpn);
	return true;
}
