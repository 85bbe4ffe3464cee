// SPDX-License-Identifier: GPL-2.0-only
/*
 * vrnic: writing completions.  A user CQ is a ring of struct
 * ib_uverbs_wc that librxe polls in place; a kernel CQ holds struct ib_wc
 * for poll_cq.  Completions come from any engine in any context, so the
 * ring's producer side is under cq->lock with interrupts off.
 *
 * Copyright (c) 2026 The vrnic authors
 */

#include <rdma/ib_user_verbs.h>

#include "vrnic.h"
#include "vrnic_qp.h"
#include "vrnic_verbs.h"
#include "mem/vrnic_mem.h"
#include "obj/vrnic_cqe.h"
#include "obj/vrnic_qp_obj.h"
#include "probe/vrnic_trace.h"

/*
 * A user CQE's flags are rdma-core's ibv_wc flags, which librxe hands on
 * as the ring holds them: IBV_WC_WITH_INV is bit 3, where ib_wc's
 * IB_WC_WITH_INVALIDATE (bit 2) would read as IBV_WC_IP_CSUM_OK.
 */
#define VRNIC_UWC_GRH		BIT(0)
#define VRNIC_UWC_WITH_IMM	BIT(1)
#define VRNIC_UWC_WITH_INV	BIT(3)

static u32 vrnic_uwc_flags(int flags)
{
	return (flags & IB_WC_GRH ? VRNIC_UWC_GRH : 0) |
	       (flags & IB_WC_WITH_IMM ? VRNIC_UWC_WITH_IMM : 0) |
	       (flags & IB_WC_WITH_INVALIDATE ? VRNIC_UWC_WITH_INV : 0);
}

/*
 * A datagram's network header type has no field in a user CQE.  A
 * ConnectX reports it in the SL of a RoCE UD receive (bit 3: a UDP
 * header, RoCEv2; bits 2-0: 1 IPv6, 2 IPv4), and UCX reads it there to
 * find the destination GID in the 40 bytes in front of the payload.
 */
static u8 vrnic_uwc_sl(const struct ib_wc *wc)
{
	if (!(wc->wc_flags & IB_WC_WITH_NETWORK_HDR_TYPE))
		return wc->sl;
	return wc->network_hdr_type == RDMA_NETWORK_IPV4 ? 0xa : 0x9;
}

static void vrnic_wc_to_uverbs(struct ib_uverbs_wc *uwc, const struct ib_wc *wc)
{
	memset(uwc, 0, sizeof(*uwc));
	uwc->wr_id = wc->wr_id;
	uwc->status = wc->status;
	uwc->opcode = wc->opcode;
	uwc->vendor_err = wc->vendor_err;
	uwc->byte_len = wc->byte_len;
	uwc->ex.imm_data = (__force __u32)wc->ex.imm_data;
	uwc->qp_num = wc->qp->qp_num;
	uwc->src_qp = wc->src_qp;
	uwc->wc_flags = vrnic_uwc_flags(wc->wc_flags);
	uwc->pkey_index = wc->pkey_index;
	uwc->slid = wc->slid;
	uwc->sl = vrnic_uwc_sl(wc);
	uwc->dlid_path_bits = wc->dlid_path_bits;
	uwc->port_num = wc->port_num;
}

/**
 * vrnic_cq_post - add one completion and raise the completion event
 * @cq:		the CQ
 * @wc:		the completion, in kernel form
 * @solicited:	the completion is for a solicited message (IBA 11.4.2.2)
 *
 * Context: any; takes cq->lock with interrupts disabled.
 * Return: 0, or -EBUSY when the CQ overflowed (IB_EVENT_CQ_ERR raised).
 */
int vrnic_cq_post(struct vrnic_cq *cq, const struct ib_wc *wc, bool solicited)
{
	struct ib_cq *ibcq = &cq->ibcq;
	unsigned long flags;
	bool notify = false;
	void *slot;

	if (wc->status != IB_WC_SUCCESS)
		trace_cqe_error(ibcq, wc);
	spin_lock_irqsave(&cq->lock, flags);
	if (unlikely(vrnic_queue_full(&cq->queue))) {
		bool first = !cq->overflowed;

		cq->overflowed = true;
		spin_unlock_irqrestore(&cq->lock, flags);
		if (first)
			trace_async_event(ibcq->device, IB_EVENT_CQ_ERR,
					  ibcq->res.id);
		if (first && ibcq->event_handler) {
			struct ib_event ev = {
				.device = ibcq->device,
				.element.cq = ibcq,
				.event = IB_EVENT_CQ_ERR,
			};

			ibcq->event_handler(&ev, ibcq->cq_context);
		}
		return -EBUSY;
	}

	slot = vrnic_queue_producer_slot(&cq->queue);
	if (cq->queue.dir == VRNIC_QUEUE_TO_USER)
		vrnic_wc_to_uverbs(slot, wc);
	else
		memcpy(slot, wc, sizeof(*wc));
	vrnic_dma_account(to_vdev(ibcq->device), VRNIC_DMA_FROM_DEVICE,
			  vrnic_queue_elem_size(&cq->queue), VRNIC_DMA_CQE);
	vrnic_queue_advance_producer(&cq->queue);

	if (cq->notify == IB_CQ_NEXT_COMP ||
	    (cq->notify == IB_CQ_SOLICITED &&
	     (solicited || wc->status != IB_WC_SUCCESS))) {
		cq->notify = 0;
		notify = true;
	}
	spin_unlock_irqrestore(&cq->lock, flags);

	if (notify && ibcq->comp_handler)
		ibcq->comp_handler(ibcq, ibcq->cq_context);
	return 0;
}

/* Post a completion; an overflowing CQ takes the QP down (IBA 11.4.2.1). */
void vrnic_qp_complete(struct vrnic_qp *qp, struct vrnic_cq *cq,
		       const struct ib_wc *wc, bool solicited)
{
	if (vrnic_cq_post(cq, wc, solicited))
		vrnic_qp_error(qp, VRNIC_QP_CAUSE_ERROR);
}
