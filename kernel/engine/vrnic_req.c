// SPDX-License-Identifier: GPL-2.0-only
/*
 * vrnic: the requester.  Takes send WQEs in order, copies each into the
 * engine's context once, and turns it into packets of at most the path
 * MTU (IBA 9.4).  Runs as the QP's engines do
 * (vrnic_qp_run(): its work, a doorbell, a receive softirq), one context
 * at a time.
 *
 * Copyright (c) 2026 The vrnic authors
 */

#include "vrnic.h"
#include "vrnic_mr.h"
#include "vrnic_qp.h"
#include "vrnic_verbs.h"
#include "engine/vrnic_comp.h"
#include "engine/vrnic_req.h"
#include "engine/vrnic_wr.h"
#include "hw/clock.h"
#include "mem/vrnic_mem.h"
#include "mem/vrnic_mw.h"
#include "obj/vrnic_qp_obj.h"
#include "tx/vrnic_tx.h"
#include "wire/vrnic_hdr.h"
#include "wire/vrnic_opcode.h"
#include "wire/vrnic_psn.h"

/* RESET: nothing to send.  Context: modify_qp, the engines held. */
void vrnic_req_reset(struct vrnic_qp *qp)
{
	memset(&qp->req, 0, sizeof(qp->req));
}

/* RTR to RTS: the first PSN is the QP's sq_psn.  As vrnic_req_reset(). */
void vrnic_req_start(struct vrnic_qp *qp)
{
	qp->req.psn = qp->attr.sq_psn;
}

/* The send WQE at @index of the SQ, in the queue's memory. */
static const struct rxe_send_wqe *vrnic_sq_slot(struct vrnic_qp *qp, u32 index)
{
	return vrnic_queue_slot(&qp->sq.queue, index);
}

/**
 * vrnic_req_load_fixed - the fields of a WQE that has no gather list
 * @s:	the WQE in the queue
 * @w:	its copy, the common fields read
 *
 * REG_MR, LOCAL_INV, BIND_MW and ATOMIC WRITE carry all they need in the
 * WQE itself, so no length is checked for them.
 *
 * Return: true if @w is one of these (and now loaded), false otherwise.
 */
static bool vrnic_req_load_fixed(const struct rxe_send_wqe *s,
				 struct vrnic_swqe *w)
{
	if (w->opcode == IB_WR_REG_MR) {
		w->reg_mr = READ_ONCE(s->wr.wr.reg.mr);
		w->rkey = READ_ONCE(s->wr.wr.reg.key);
		w->reg_access = READ_ONCE(s->wr.wr.reg.access);
		return true;
	}
	if (w->opcode == IB_WR_LOCAL_INV) {
		w->rkey = READ_ONCE(s->wr.ex.invalidate_rkey);
		return true;
	}
	if (w->opcode == IB_WR_BIND_MW) {
		w->remote_addr = READ_ONCE(s->wr.wr.mw.addr);
		w->compare_add = READ_ONCE(s->wr.wr.mw.length);
		w->mr_lkey = READ_ONCE(s->wr.wr.mw.mr_lkey);
		w->mw_rkey = READ_ONCE(s->wr.wr.mw.mw_rkey);
		w->rkey = READ_ONCE(s->wr.wr.mw.rkey);
		w->reg_access = READ_ONCE(s->wr.wr.mw.access);
		return true;
	}
	if (w->opcode == VRNIC_WR_FLUSH) {
		const struct vrnic_rxe_flush *f = (const void *)&s->wr.wr;

		/*
		 * No payload, no SGE: the range travels in the RETH, the
		 * placement type and selectivity level in the FETH.  The
		 * responder checks them; the value read here is what goes.
		 */
		w->remote_addr = READ_ONCE(f->remote_addr);
		w->rkey = READ_ONCE(f->rkey);
		w->compare_add = READ_ONCE(s->dma.length);
		w->swap = READ_ONCE(f->type) |
			  (u64)READ_ONCE(f->level) << VRNIC_FETH_SEL_SHIFT;
		w->length = 0;
		w->num_sge = 0;
		return true;
	}
	if (w->opcode == VRNIC_WR_ATOMIC_WRITE) {
		/* The 8 bytes travel in the WQE (librxe's dma.atomic_wr). */
		w->remote_addr = READ_ONCE(s->wr.wr.rdma.remote_addr);
		w->rkey = READ_ONCE(s->wr.wr.rdma.rkey);
		memcpy(&w->compare_add, s->dma.inline_data, sizeof(u64));
		w->length = sizeof(u64);
		w->num_sge = 0;
		return true;
	}
	return false;
}

/**
 * vrnic_req_load_length - the message length of a WQE, checked
 * @qp:	the QP
 * @s:	the WQE in the queue
 * @w:	its copy; sets @w->length
 *
 * Return: IB_WC_SUCCESS, or IB_WC_LOC_LEN_ERR.
 */
static int vrnic_req_load_length(struct vrnic_qp *qp,
				 const struct rxe_send_wqe *s,
				 struct vrnic_swqe *w)
{
	u64 length = 0;
	u32 i;

	if (w->send_flags & IB_SEND_INLINE) {
		length = READ_ONCE(s->dma.length);
		if (length > qp->sq.max_inline || vrnic_wr_is_read_atomic(w->opcode))
			return IB_WC_LOC_LEN_ERR;
	} else {
		if (w->num_sge > qp->sq.max_sge)
			return IB_WC_LOC_LEN_ERR;
		for (i = 0; i < w->num_sge; i++)
			length += READ_ONCE(s->dma.sge[i].length);
	}
	if (length > VRNIC_MAX_MSG_SIZE)
		return IB_WC_LOC_LEN_ERR;
	w->length = length;
	return IB_WC_SUCCESS;
}

/**
 * vrnic_req_load_remote - the remote address, key, atomic operands and
 *	immediate data of a WQE
 * @s:	the WQE in the queue
 * @w:	its copy, its length set
 *
 * Return: IB_WC_SUCCESS, or IB_WC_LOC_LEN_ERR for an atomic not of 8 bytes.
 */
static int vrnic_req_load_remote(const struct rxe_send_wqe *s,
				 struct vrnic_swqe *w)
{
	switch (w->opcode) {
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
	case IB_WR_RDMA_READ:
		w->remote_addr = READ_ONCE(s->wr.wr.rdma.remote_addr);
		w->rkey = READ_ONCE(s->wr.wr.rdma.rkey);
		break;
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		w->remote_addr = READ_ONCE(s->wr.wr.atomic.remote_addr);
		w->rkey = READ_ONCE(s->wr.wr.atomic.rkey);
		w->compare_add = READ_ONCE(s->wr.wr.atomic.compare_add);
		w->swap = READ_ONCE(s->wr.wr.atomic.swap);
		if (w->length != sizeof(u64))
			return IB_WC_LOC_LEN_ERR;
		break;
	default:
		break;
	}
	if (w->opcode == IB_WR_SEND_WITH_INV)
		w->imm = (__force __be32)READ_ONCE(s->wr.ex.invalidate_rkey);
	else
		w->imm = READ_ONCE(s->wr.ex.imm_data);
	return IB_WC_SUCCESS;
}

/**
 * vrnic_req_load_ud - the destination of a UD WQE
 * @qp:	the QP, a UD one
 * @s:	the WQE in the queue
 * @w:	its copy, its length set
 *
 * Return: IB_WC_SUCCESS, or IB_WC_LOC_LEN_ERR for a message over the MTU.
 */
static int vrnic_req_load_ud(struct vrnic_qp *qp, const struct rxe_send_wqe *s,
			     struct vrnic_swqe *w)
{
	w->dst_qpn = READ_ONCE(s->wr.wr.ud.remote_qpn) & 0xffffff;
	w->qkey = READ_ONCE(s->wr.wr.ud.remote_qkey);
	/*
	 * IBA 10.2.5: a Q_Key with the high-order bit set stands for
	 * the QP's own.  Done here, for user and kernel WQEs alike: a
	 * user WQE is read from the ring as its writer left it, and
	 * without this an unprivileged process could send with the
	 * GSI Q_Key (0x80010000) or any other controlled one.
	 */
	if (w->qkey & VRNIC_QKEY_CONTROLLED)
		w->qkey = READ_ONCE(qp->attr.qkey);
	w->ah_num = READ_ONCE(s->wr.wr.ud.ah_num);
	if (w->length > qp->mtu)
		return IB_WC_LOC_LEN_ERR;
	return IB_WC_SUCCESS;
}

/**
 * vrnic_req_load - copy the WQE at @index into the engine's context and
 *	validate it
 * @qp:		the QP
 * @index:	the WQE's slot in the SQ
 * @w:		the engine's copy, overwritten
 *
 * Return: 0 (IB_WC_SUCCESS), or an IB_WC_* error status for the WQE.
 */
static int vrnic_req_load(struct vrnic_qp *qp, u32 index, struct vrnic_swqe *w)
{
	const struct rxe_send_wqe *s = vrnic_sq_slot(qp, index);
	int status;

	/* The engine fetches the whole WQE slot from the mapped queue. */
	vrnic_dma_account(to_vdev(qp->ibqp.device), VRNIC_DMA_TO_DEVICE,
			  vrnic_queue_elem_size(&qp->sq.queue), VRNIC_DMA_SQ_WQE);
	memset(w, 0, sizeof(*w));
	w->wr_id = READ_ONCE(s->wr.wr_id);
	w->opcode = READ_ONCE(s->wr.opcode);
	w->send_flags = READ_ONCE(s->wr.send_flags);
	w->num_sge = READ_ONCE(s->dma.num_sge);

	if (!vrnic_wr_allowed(qp->ibqp.qp_type, qp->is_user, w->opcode))
		return IB_WC_LOC_QP_OP_ERR;
	if (vrnic_req_load_fixed(s, w))
		return IB_WC_SUCCESS;
	status = vrnic_req_load_length(qp, s, w);
	if (status != IB_WC_SUCCESS)
		return status;
	status = vrnic_req_load_remote(s, w);
	if (status != IB_WC_SUCCESS)
		return status;
	if (vrnic_qp_is_ud(qp))
		return vrnic_req_load_ud(qp, s, w);
	return IB_WC_SUCCESS;
}

/*
 * Gather @len payload bytes of the WQE at @index, from byte @offset, into
 * @buf: from its inline data, or through its SGEs' MRs.  The SGEs are read
 * from the queue again and every one is checked (lkey, PD, bounds).
 */
static int vrnic_req_gather(struct vrnic_qp *qp, u32 index,
			    const struct vrnic_swqe *w, u32 offset, void *buf,
			    u32 len)
{
	const struct rxe_send_wqe *s = vrnic_sq_slot(qp, index);

	if (!len)
		return 0;
	if (w->send_flags & IB_SEND_INLINE) {
		memcpy(buf, s->dma.inline_data + offset, len);
		return 0;
	}
	return vrnic_sge_copy(to_vdev(qp->ibqp.device), qp->ibqp.pd, s->dma.sge,
			      w->num_sge, offset, buf, len, 0,
			      VRNIC_DMA_TO_DEVICE, &qp->pf);
}

/* BIND_MW (IBA 10.6.7.2): bind a window.  Return: an IB_WC_* status. */
static int vrnic_req_bind_mw(struct vrnic_qp *qp, const struct vrnic_swqe *w)
{
	struct vrnic_mw_bind b = {
		.addr = w->remote_addr,
		.length = w->compare_add,
		.mr_lkey = w->mr_lkey,
		.mw_rkey = w->mw_rkey,
		.rkey = w->rkey,
		.access = w->reg_access,
	};

	if (vrnic_mw_bind(to_vdev(qp->ibqp.device), qp, &b))
		return IB_WC_MW_BIND_ERR;
	return IB_WC_SUCCESS;
}

/*
 * REG_MR and LOCAL_INV (IBA 10.6.3.4, 10.6.5): make a fast-registration
 * MR valid under a new key with the page list map_mr_sg loaded, or
 * invalid; LOCAL_INV of a window's rkey invalidates the window (type 2
 * only, 10.6.7.2.5); BIND_MW binds one.  An MR with windows bound to it
 * is not invalidated (as rxe: the windows would outlive their memory).
 * Return: an IB_WC_* status.
 */
static int vrnic_req_local(struct vrnic_qp *qp, struct vrnic_swqe *w)
{
	struct vrnic_dev *vdev = to_vdev(qp->ibqp.device);
	struct vrnic_mr *mr;
	int status = IB_WC_SUCCESS;

	if (w->opcode == IB_WR_BIND_MW)
		return vrnic_req_bind_mw(qp, w);
	if (w->opcode == IB_WR_REG_MR) {
		/* Only a kernel consumer posts it: the MR pointer is its own. */
		mr = to_vmr(w->reg_mr);
		if (mr->type != VRNIC_MR_FRWR || mr->ibmr.pd != qp->ibqp.pd ||
		    vrnic_key_index(w->rkey) != vrnic_key_index(mr->ibmr.lkey) ||
		    READ_ONCE(mr->state) == VRNIC_MR_VALID)
			return IB_WC_MW_BIND_ERR;
		mr->access = w->reg_access;
		vrnic_mr_uncache(vdev, mr->ibmr.lkey);
		mr->ibmr.lkey = w->rkey;
		mr->ibmr.rkey = w->rkey;
		/* Publish the keys and page list before the MR turns valid. */
		smp_store_release(&mr->state, VRNIC_MR_VALID);
		return IB_WC_SUCCESS;
	}

	if (vrnic_key_is_mw(w->rkey))
		return vrnic_mw_invalidate(vdev, qp, w->rkey, false) ?
		       IB_WC_MW_BIND_ERR : IB_WC_SUCCESS;
	mr = vrnic_mr_get(vdev, w->rkey);
	if (!mr)
		return IB_WC_MW_BIND_ERR;
	if (mr->type != VRNIC_MR_FRWR || mr->ibmr.pd != qp->ibqp.pd ||
	    vrnic_mr_has_mw(mr)) {
		status = IB_WC_MW_BIND_ERR;
	} else {
		WRITE_ONCE(mr->state, VRNIC_MR_INVALID);
		vrnic_mr_uncache(vdev, w->rkey);
	}
	vrnic_mr_put(mr);
	return status;
}

/* BTH opcode for a SEND or WRITE packet at the given place in its message. */
static u8 vrnic_req_opcode(struct vrnic_qp *qp, const struct vrnic_swqe *w,
			   bool first, bool last)
{
	u8 base = qp->ibqp.qp_type == IB_QPT_UC ? VRNIC_TRANSPORT_UC :
						   VRNIC_TRANSPORT_RC;

	switch (w->opcode) {
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM: {
		bool imm = w->opcode == IB_WR_RDMA_WRITE_WITH_IMM;

		if (first && last)
			return base | (imm ? VRNIC_OP_RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE :
					     VRNIC_OP_RC_RDMA_WRITE_ONLY);
		if (first)
			return base | VRNIC_OP_RC_RDMA_WRITE_FIRST;
		if (last)
			return base | (imm ? VRNIC_OP_RC_RDMA_WRITE_LAST_WITH_IMMEDIATE :
					     VRNIC_OP_RC_RDMA_WRITE_LAST);
		return base | VRNIC_OP_RC_RDMA_WRITE_MIDDLE;
	}
	case VRNIC_WR_ATOMIC_WRITE:
		return VRNIC_OP_RC_ATOMIC_WRITE;
	case IB_WR_SEND_WITH_INV:
		if (first && last)
			return VRNIC_OP_RC_SEND_ONLY_WITH_INVALIDATE;
		if (last)
			return VRNIC_OP_RC_SEND_LAST_WITH_INVALIDATE;
		return first ? VRNIC_OP_RC_SEND_FIRST : VRNIC_OP_RC_SEND_MIDDLE;
	default: {
		bool imm = w->opcode == IB_WR_SEND_WITH_IMM;

		if (vrnic_qp_is_ud(qp))
			return imm ? VRNIC_OP_UD_SEND_ONLY_WITH_IMMEDIATE :
				     VRNIC_OP_UD_SEND_ONLY;
		if (first && last)
			return base | (imm ? VRNIC_OP_RC_SEND_ONLY_WITH_IMMEDIATE :
					     VRNIC_OP_RC_SEND_ONLY);
		if (first)
			return base | VRNIC_OP_RC_SEND_FIRST;
		if (last)
			return base | (imm ? VRNIC_OP_RC_SEND_LAST_WITH_IMMEDIATE :
					     VRNIC_OP_RC_SEND_LAST);
		return base | VRNIC_OP_RC_SEND_MIDDLE;
	}
	}
}

/*
 * The WQE at the requester's index failed locally.  The requester stays on
 * it, so nothing after it is sent; it completes in order with @status and
 * takes the QP to ERR.
 */
static void vrnic_req_finish(struct vrnic_qp *qp, struct vrnic_swqe *w,
			     int status)
{
	w->status = status;
	w->done = true;
}

/*
 * Read and atomic requests of @w not answered yet; @sent: bytes of it
 * requested so far.  A READ's requests are its chunks, and its responses
 * arrive in order, so whole chunks answered are resp_bytes / chunk.
 */
static u32 vrnic_req_rd_atomic_open(struct vrnic_qp *qp,
				    const struct vrnic_swqe *w, u32 sent)
{
	u32 chunk = vrnic_read_chunk(qp->mtu);

	if (w->done || !vrnic_wr_is_read_atomic(w->opcode))
		return 0;
	if (w->opcode != IB_WR_RDMA_READ || !w->length)
		return 1;
	/* Just rewound to the first response missing: nothing is asked. */
	if (sent <= w->resp_bytes)
		return 0;
	return DIV_ROUND_UP(sent, chunk) - w->resp_bytes / chunk;
}

/*
 * May the next request of @w go now: is a responder resource free for a
 * read or atomic (max_rd_atomic, IBA 9.5), and is every earlier read and
 * atomic answered for a fenced WQE's start?
 */
static bool vrnic_req_rd_atomic_ok(struct vrnic_qp *qp, const struct vrnic_swqe *w)
{
	u32 i, inflight, limit = max_t(u32, qp->attr.max_rd_atomic, 1);
	bool need = vrnic_wr_is_read_atomic(w->opcode);
	bool fence = (w->send_flags & IB_SEND_FENCE) && qp->req.offset == 0;

	if (!need && !fence)
		return true;
	/* This WQE's own chunks already requested. */
	inflight = vrnic_req_rd_atomic_open(qp, w, qp->req.offset);
	for (i = vrnic_queue_consumer(&qp->sq.queue); i != qp->req.index;
	     i = (i + 1) & qp->sq.queue.mask)
		inflight += vrnic_req_rd_atomic_open(qp, &qp->swqe[i],
						     qp->swqe[i].length);
	if (fence && inflight)
		return false;
	return !need || inflight < limit;
}

/* The PSNs a WQE takes: its packets, or a READ's response packets. */
static u32 vrnic_req_npkts(struct vrnic_qp *qp, const struct vrnic_swqe *w)
{
	if (vrnic_wr_is_atomic(w->opcode))
		return 1;
	return max_t(u32, DIV_ROUND_UP(w->length, qp->mtu), 1);
}

/* Where the READ request that starts at req.offset ends: a chunk boundary. */
static u32 vrnic_req_read_end(struct vrnic_qp *qp, const struct vrnic_swqe *w)
{
	u32 chunk = vrnic_read_chunk(qp->mtu);

	return min_t(u64, w->length, (u64)rounddown(qp->req.offset, chunk) + chunk);
}

/* Response packets (PSNs) of the READ request that starts at req.offset. */
static u32 vrnic_req_read_pkts(struct vrnic_qp *qp, const struct vrnic_swqe *w)
{
	u32 len = vrnic_req_read_end(qp, w) - qp->req.offset;

	return max_t(u32, DIV_ROUND_UP(len, qp->mtu), 1);
}

/*
 * The address vector of a packet of @w: the QP's, or for UD a copy of the
 * AH's that the WQE names, taken under the AH table's lock so that a
 * process destroying the AH meanwhile cannot free it under us; the copy
 * holds its source GID attribute until the caller's rdma_destroy_ah_attr().
 * Return: the vector, or NULL if the WQE names no AH of the QP's PD.
 */
static const struct rdma_ah_attr *vrnic_req_av(struct vrnic_qp *qp,
					       const struct vrnic_swqe *w,
					       struct rdma_ah_attr *copy)
{
	struct vrnic_dev *vdev = to_vdev(qp->ibqp.device);
	struct vrnic_ah *ah;
	unsigned long flags;

	if (!vrnic_qp_is_ud(qp))
		return &qp->attr.ah_attr;
	xa_lock_irqsave(&vdev->ahs, flags);
	ah = xa_load(&vdev->ahs, w->ah_num);
	if (ah && ah->ibah.pd == qp->ibqp.pd)
		rdma_copy_ah_attr(copy, &ah->attr);
	else
		ah = NULL;
	xa_unlock_irqrestore(&vdev->ahs, flags);
	return ah ? copy : NULL;
}

/**
 * enum vrnic_req_step - what one step of the requester did
 * @VRNIC_REQ_WAIT:	nothing to do now: the window is full, a read or
 *			atomic waits for a responder resource or a fence, an
 *			RNR NAK is waited out, or a failed WQE is reached
 *			again.  What ends the wait runs the requester again.
 * @VRNIC_REQ_PROGRESS:	a packet went out, or a WQE was finished without
 *			one (local work, a complete WQE stepped over).
 * @VRNIC_REQ_FAILED:	the WQE failed locally and completes with an error;
 *			the QP has a failed WQE to flush.
 * @VRNIC_REQ_NOMEM:	no packet could be built; the requester stays where
 *			it is and stops this round.
 * @VRNIC_REQ_FAULT:	the payload is in an on-demand MR's page not mapped
 *			(qp->pf): the requester stays where it is until the
 *			QP's work has faulted it in.
 */
enum vrnic_req_step {
	VRNIC_REQ_WAIT,
	VRNIC_REQ_PROGRESS,
	VRNIC_REQ_FAILED,
	VRNIC_REQ_NOMEM,
	VRNIC_REQ_FAULT,
};

/* On to the first packet of the next WQE. */
static void vrnic_req_next_wqe(struct vrnic_qp *qp)
{
	qp->req.index = (qp->req.index + 1) & qp->sq.queue.mask;
	qp->req.offset = 0;
}

/**
 * vrnic_req_local_wqe - do the local work (REG_MR, LOCAL_INV, BIND_MW) of @w
 * @qp:	the QP
 * @w:	the WQE at the requester's index
 *
 * Local work is done in order when the requester reaches it, and takes no
 * PSN.
 *
 * Return: VRNIC_REQ_PROGRESS, or VRNIC_REQ_FAILED.
 */
static enum vrnic_req_step vrnic_req_local_wqe(struct vrnic_qp *qp,
					       struct vrnic_swqe *w)
{
	int status = vrnic_req_local(qp, w);

	if (status != IB_WC_SUCCESS) {
		vrnic_req_finish(qp, w, status);
		return VRNIC_REQ_FAILED;
	}
	w->status = IB_WC_SUCCESS;
	w->done = true;
	w->last_psn = vrnic_psn_sub(qp->req.psn, 1);
	vrnic_req_next_wqe(qp);
	return VRNIC_REQ_PROGRESS;
}

/*
 * Whether a packet at req.psn whose last PSN is @last fits the @window of
 * PSNs not acknowledged.  With nothing outstanding it goes whatever its
 * size (a READ longer than the window).
 */
static bool vrnic_req_in_window(const struct vrnic_qp *qp, u32 last,
				u32 window)
{
	return !vrnic_psn_after(qp->req.psn, qp->comp.una) ||
	       vrnic_psn_diff(last, qp->comp.una) < window;
}

/**
 * vrnic_req_rc_may_send - may the next packet of @w go on an RC QP now
 * @qp:	the QP, an RC one
 * @w:	the WQE at the requester's index
 *
 * Not while the packet (a READ: its last response) lies beyond the window
 * of PSNs not acknowledged, a read or atomic waits for a responder resource
 * or a fence (vrnic_req_rd_atomic_ok()), or an RNR NAK is waited out.
 *
 * Return: true if it may.
 */
static bool vrnic_req_rc_may_send(struct vrnic_qp *qp,
				  const struct vrnic_swqe *w)
{
	u32 psn = qp->req.psn;
	/* The last PSN this packet (a READ: its responses) takes. */
	u32 last = psn;
	u32 window = qp->comp.window;

	if (w->opcode == IB_WR_RDMA_READ) {
		last = vrnic_psn_add(psn, vrnic_req_read_pkts(qp, w) - 1);
		window = min(window, qp->comp.read_ceiling);
	}
	if (!vrnic_req_in_window(qp, last, window))
		return false;
	if (!vrnic_req_rd_atomic_ok(qp, w))
		return false;
	if (time_before(jiffies, qp->comp.rnr_until)) {
		/* Waiting out an RNR NAK: the timer wakes us. */
		if (!vrnic_comp_timer_armed(qp))
			vrnic_comp_arm(qp);
		return false;
	}
	return true;
}

/**
 * vrnic_req_read - build the next request of an RDMA READ
 * @qp:		the QP
 * @w:		the READ, at the requester's index
 * @psn:	the request's PSN (req.psn)
 * @dst_qpn:	the destination QP
 * @skbp:	the packet built, on VRNIC_REQ_PROGRESS
 *
 * The next chunk, from where the responses stopped; the request takes a
 * PSN for each of its response packets.
 *
 * Return: VRNIC_REQ_PROGRESS, or VRNIC_REQ_NOMEM.
 */
static enum vrnic_req_step vrnic_req_read(struct vrnic_qp *qp,
					  struct vrnic_swqe *w, u32 psn,
					  u32 dst_qpn, struct sk_buff **skbp)
{
	u32 off = qp->req.offset, end = vrnic_req_read_end(qp, w);
	u32 npkts = vrnic_req_read_pkts(qp, w);
	struct sk_buff *skb;

	skb = vrnic_pkt_build(qp, VRNIC_OP_RC_RDMA_READ_REQUEST, psn,
			      dst_qpn, 0, true, false);
	if (!skb)
		return VRNIC_REQ_NOMEM;
	vrnic_reth_set(vrnic_hdr_at(skb->data, VRNIC_HDR_RETH),
		       w->remote_addr + off, w->rkey, end - off);
	if (off == 0)
		w->resp_bytes = 0;
	qp->req.psn = vrnic_psn_add(psn, npkts);
	if (end == w->length)
		vrnic_req_next_wqe(qp);
	else
		qp->req.offset = end;
	*skbp = skb;
	return VRNIC_REQ_PROGRESS;
}

/**
 * vrnic_req_atomic - build the request of a COMPARE_SWAP or FETCH_ADD
 * @qp:		the QP
 * @w:		the atomic, at the requester's index
 * @psn:	the request's PSN (req.psn)
 * @dst_qpn:	the destination QP
 * @skbp:	the packet built, on VRNIC_REQ_PROGRESS
 *
 * Return: VRNIC_REQ_PROGRESS, or VRNIC_REQ_NOMEM.
 */
static enum vrnic_req_step vrnic_req_atomic(struct vrnic_qp *qp,
					    struct vrnic_swqe *w, u32 psn,
					    u32 dst_qpn, struct sk_buff **skbp)
{
	bool cas = w->opcode == IB_WR_ATOMIC_CMP_AND_SWP;
	struct sk_buff *skb;

	skb = vrnic_pkt_build(qp, cas ? VRNIC_OP_RC_COMPARE_SWAP :
					VRNIC_OP_RC_FETCH_ADD,
			      psn, dst_qpn, 0, true, false);
	if (!skb)
		return VRNIC_REQ_NOMEM;
	vrnic_atmeth_set(vrnic_hdr_at(skb->data, VRNIC_HDR_ATMETH),
			 w->remote_addr, w->rkey,
			 cas ? w->swap : w->compare_add, w->compare_add);
	w->last_psn = psn;
	qp->req.psn = vrnic_psn_next(psn);
	vrnic_req_next_wqe(qp);
	*skbp = skb;
	return VRNIC_REQ_PROGRESS;
}

/**
 * vrnic_req_flush - build the request of a FLUSH (IBTA 1.5)
 * @qp:		the QP
 * @w:		the FLUSH, at the requester's index
 * @psn:	the request's PSN (req.psn)
 * @dst_qpn:	the destination QP
 * @skbp:	the packet built, on VRNIC_REQ_PROGRESS
 *
 * One packet, FETH and RETH, no payload; the responder answers it with an
 * empty RDMA READ response, which vrnic_comp_read_resp() takes as a READ
 * of 0 bytes.
 *
 * Return: VRNIC_REQ_PROGRESS, or VRNIC_REQ_NOMEM.
 */
static enum vrnic_req_step vrnic_req_flush(struct vrnic_qp *qp,
					   struct vrnic_swqe *w, u32 psn,
					   u32 dst_qpn, struct sk_buff **skbp)
{
	struct sk_buff *skb;

	skb = vrnic_pkt_build(qp, VRNIC_OP_RC_FLUSH, psn, dst_qpn, 0, true,
			      false);
	if (!skb)
		return VRNIC_REQ_NOMEM;
	vrnic_feth_set(vrnic_hdr_at(skb->data, VRNIC_HDR_FETH),
		       w->swap & VRNIC_FETH_PLT_MASK,
		       w->swap >> VRNIC_FETH_SEL_SHIFT);
	vrnic_reth_set(vrnic_hdr_at(skb->data, VRNIC_HDR_RETH),
		       w->remote_addr, w->rkey, (u32)w->compare_add);
	w->last_psn = psn;
	qp->req.psn = vrnic_psn_next(psn);
	vrnic_req_next_wqe(qp);
	*skbp = skb;
	return VRNIC_REQ_PROGRESS;
}

/* Fill the extension headers that the opcode of @skb has, from @w. */
static void vrnic_req_ext_hdrs(struct vrnic_qp *qp, const struct vrnic_swqe *w,
			       struct sk_buff *skb)
{
	void *hdr;

	hdr = vrnic_hdr_at(skb->data, VRNIC_HDR_RETH);
	if (hdr)
		vrnic_reth_set(hdr, w->remote_addr, w->rkey, w->length);
	hdr = vrnic_hdr_at(skb->data, VRNIC_HDR_IMMDT);
	if (hdr)
		vrnic_immdt_set(hdr, w->imm);
	hdr = vrnic_hdr_at(skb->data, VRNIC_HDR_IETH);
	if (hdr)
		vrnic_ieth_set(hdr, (__force u32)w->imm);
	hdr = vrnic_hdr_at(skb->data, VRNIC_HDR_DETH);
	if (hdr)
		vrnic_deth_set(hdr, w->qkey, qp->ibqp.qp_num);
}

/**
 * vrnic_req_data - build the next packet of a SEND, a WRITE or an ATOMIC
 *	WRITE
 * @qp:		the QP
 * @index:	the WQE's slot in the SQ (the requester's index)
 * @w:		the WQE
 * @psn:	the packet's PSN (req.psn)
 * @dst_qpn:	the destination QP
 * @skbp:	the packet built, on VRNIC_REQ_PROGRESS
 *
 * Up to an MTU of payload from req.offset.
 *
 * Return: VRNIC_REQ_PROGRESS, VRNIC_REQ_NOMEM, VRNIC_REQ_FAULT (a page of
 * an on-demand MR to fault in first), or VRNIC_REQ_FAILED if the payload
 * could not be gathered (the WQE completes with a protection error).
 */
static enum vrnic_req_step vrnic_req_data(struct vrnic_qp *qp, u32 index,
					  struct vrnic_swqe *w, u32 psn,
					  u32 dst_qpn, struct sk_buff **skbp)
{
	bool rc = qp->ibqp.qp_type == IB_QPT_RC;
	u32 paylen = min(w->length - qp->req.offset, qp->mtu);
	bool first = qp->req.offset == 0;
	bool last = qp->req.offset + paylen == w->length;
	u32 nth = qp->req.offset / qp->mtu + 1;	/* of the message */
	/*
	 * An ACK twice per window within a long message: one opens half of
	 * the window while the other half is on the wire (every 64 packets
	 * at the default window of 128, every 32 at the floor of 64 a loss
	 * brings it down to).  Every 16, the responder sent four
	 * ACKs per 64 KiB WRITE where rxe sends one, and the early expiries
	 * they delayed resent thousands of packets a run on a clean link.
	 * And an ACK for the packet that fills the window
	 * (one PSN after a timeout): the requester waits for it to send on.
	 */
	u32 half = max_t(u32, qp->comp.window / 2, 1);
	bool ackreq = rc && (last || nth % half == 0 ||
			     vrnic_psn_diff(psn, qp->comp.una) + 1 >=
			     (s32)qp->comp.window);
	u8 opcode = vrnic_req_opcode(qp, w, first, last);
	struct sk_buff *skb;
	void *payload;
	int err = 0;

	skb = vrnic_pkt_build(qp, opcode, psn, dst_qpn, paylen, ackreq,
			      last && (w->send_flags & IB_SEND_SOLICITED));
	if (!skb)
		return VRNIC_REQ_NOMEM;
	vrnic_req_ext_hdrs(qp, w, skb);
	payload = skb->data + vrnic_hdr_len(opcode);
	if (w->opcode == VRNIC_WR_ATOMIC_WRITE)
		memcpy(payload, &w->compare_add, sizeof(w->compare_add));
	else
		err = vrnic_req_gather(qp, index, w, qp->req.offset, payload,
				       paylen);
	if (err == -EAGAIN) {
		kfree_skb(skb);
		return VRNIC_REQ_FAULT;
	}
	if (err) {
		kfree_skb(skb);
		vrnic_req_finish(qp, w, IB_WC_LOC_PROT_ERR);
		return VRNIC_REQ_FAILED;
	}
	qp->req.psn = vrnic_psn_next(psn);
	qp->req.offset += paylen;
	if (last) {
		w->last_psn = psn;
		vrnic_req_next_wqe(qp);
		/* Nothing acknowledges UC and UD: done once sent. */
		if (!rc)
			w->done = true;
	}
	*skbp = skb;
	return VRNIC_REQ_PROGRESS;
}

/**
 * vrnic_req_packet - build and send the next packet of @w
 * @qp:		the QP
 * @index:	the WQE's slot in the SQ (the requester's index)
 * @w:		the WQE, cleared to go
 *
 * Return: VRNIC_REQ_PROGRESS, VRNIC_REQ_NOMEM, or VRNIC_REQ_FAILED (a UD
 * WQE naming no AH of the QP's PD, or a payload not gathered).
 */
static enum vrnic_req_step vrnic_req_packet(struct vrnic_qp *qp, u32 index,
					    struct vrnic_swqe *w)
{
	u32 psn = qp->req.psn, dst_qpn;
	struct rdma_ah_attr ud_av = {};
	const struct rdma_ah_attr *av;
	enum vrnic_req_step ret;
	struct sk_buff *skb;

	av = vrnic_req_av(qp, w, &ud_av);
	if (!av) {
		vrnic_req_finish(qp, w, IB_WC_LOC_QP_OP_ERR);
		return VRNIC_REQ_FAILED;
	}
	dst_qpn = vrnic_qp_is_ud(qp) ? w->dst_qpn : qp->attr.dest_qp_num;

	switch (w->opcode) {
	case IB_WR_RDMA_READ:
		ret = vrnic_req_read(qp, w, psn, dst_qpn, &skb);
		break;
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		ret = vrnic_req_atomic(qp, w, psn, dst_qpn, &skb);
		break;
	case VRNIC_WR_FLUSH:
		ret = vrnic_req_flush(qp, w, psn, dst_qpn, &skb);
		break;
	default:
		ret = vrnic_req_data(qp, index, w, psn, dst_qpn, &skb);
		break;
	}

	if (ret == VRNIC_REQ_PROGRESS) {
		vrnic_pkt_send(qp, skb, av, dst_qpn);
		if (qp->ibqp.qp_type == IB_QPT_RC) {
			vrnic_comp_sent(qp, psn);
			if (!vrnic_comp_timer_armed(qp))
				vrnic_comp_arm(qp);
		}
	}
	if (av == &ud_av)
		rdma_destroy_ah_attr(&ud_av);
	return ret;
}

/**
 * vrnic_req_one - one step of the requester on the WQE at its index
 * @qp:	the QP, its engines running
 *
 * Send the next packet of the WQE, or finish it without one (local work, a
 * WQE already complete stepped over).
 *
 * Return: what was done, an &enum vrnic_req_step.
 */
static enum vrnic_req_step vrnic_req_one(struct vrnic_qp *qp)
{
	u32 mask = qp->sq.queue.mask, index = qp->req.index & mask;
	struct vrnic_swqe *w = &qp->swqe[index];
	u32 psn = qp->req.psn;

	if (qp->req.index != qp->req.next_new && w->done) {
		/*
		 * Reached again after a rewind: a failed WQE stops the
		 * requester until the QP goes to ERR; a finished one (a read
		 * answered while a later SEND was lost) is stepped over.
		 */
		if (w->status != IB_WC_SUCCESS)
			return VRNIC_REQ_WAIT;
		vrnic_req_step_over(&qp->req, w->last_psn, mask);
		return VRNIC_REQ_PROGRESS;
	}
	if (qp->req.index == qp->req.next_new) {
		int status = vrnic_req_load(qp, index, w);

		qp->req.next_new = (qp->req.next_new + 1) & mask;
		w->first_psn = psn;
		if (status != IB_WC_SUCCESS) {
			vrnic_req_finish(qp, w, status);
			return VRNIC_REQ_FAILED;
		}
	}
	if (vrnic_wr_is_local(w->opcode))
		return vrnic_req_local_wqe(qp, w);
	if (qp->ibqp.qp_type == IB_QPT_RC && !vrnic_req_rc_may_send(qp, w))
		return VRNIC_REQ_WAIT;
	if (qp->req.offset == 0) {
		/* Known from the start: ACKs may cover a WQE not fully sent. */
		w->first_psn = psn;
		w->last_psn = vrnic_psn_add(psn, vrnic_req_npkts(qp, w) - 1);
	}
	return vrnic_req_packet(qp, index, w);
}

/*
 * May the requester send?  In RTS, yes.  In SQD (IBA 10.3.1) it finishes
 * what it had begun: the first time it runs in SQD it marks the end of
 * the drain after the last WQE it has taken up (the one it is in the
 * middle of, or the furthest it reached before a rewind); it sends up
 * to there, resends included, and no further.  Leaving SQD ends the
 * drain.
 */
static bool vrnic_req_may_run(struct vrnic_qp *qp)
{
	enum ib_qp_state state = READ_ONCE(qp->state);

	if (state != IB_QPS_SQD) {
		qp->req.draining = false;
		qp->req.drain_told = false;
		return state == IB_QPS_RTS;
	}
	if (!qp->req.draining) {
		qp->req.draining = true;
		qp->req.drain_end = qp->req.next_new;
	}
	return true;
}

/* SQD: the requester has sent all it may until the QP is back in RTS. */
static bool vrnic_req_drain_reached(const struct vrnic_qp *qp)
{
	return qp->req.draining && qp->req.index == qp->req.drain_end;
}

/*
 * SQD and every WQE begun before it completed: the send queue is drained.
 * Raise IB_EVENT_SQ_DRAINED once if the consumer asked for it
 * (IB_QP_EN_SQD_ASYNC_NOTIFY with the move to SQD).
 */
static void vrnic_req_drained(struct vrnic_qp *qp)
{
	if (!vrnic_req_drain_reached(qp) || qp->req.drain_told ||
	    vrnic_queue_consumer(&qp->sq.queue) != qp->req.drain_end ||
	    READ_ONCE(qp->state) != IB_QPS_SQD)
		return;
	qp->req.drain_told = true;
	if (READ_ONCE(qp->attr.en_sqd_async_notify))
		vrnic_qp_event(qp, IB_EVENT_SQ_DRAINED);
}

/*
 * Would the requester send now, were it run again?  Not once it has sent
 * all the doorbell told it, reached the end of an SQD drain, or (RC) the
 * next packet waits for a response, a fence or an RNR delay: what ends
 * that wait runs it.  Asked when a round's budget ran out, so that a
 * window just filled does not wake the worker to find it full (a wakeup
 * per ACK on a streaming QP).
 */
static bool vrnic_req_more(struct vrnic_qp *qp)
{
	const struct vrnic_swqe *w;

	if (qp->req.index == vrnic_doorbell_pi(&qp->db) ||
	    vrnic_req_drain_reached(qp))
		return false;
	if (qp->ibqp.qp_type != IB_QPT_RC)
		return true;
	if (qp->req.index == qp->req.next_new) {
		/* Not taken up yet: whatever it is takes at least this PSN. */
		return vrnic_req_in_window(qp, qp->req.psn, qp->comp.window);
	}
	w = &qp->swqe[qp->req.index & qp->sq.queue.mask];
	/* As vrnic_req_one(): a failed WQE stops it, a finished one not. */
	if (w->done)
		return w->status == IB_WC_SUCCESS;
	if (vrnic_wr_is_local(w->opcode))
		return true;
	return vrnic_req_rc_may_send(qp, w);
}

/**
 * vrnic_req_run - send up to @budget packets
 * @qp:		the QP, its engines held
 * @budget:	packets to send at most
 *
 * Return: true if there is more to send now (the budget ran out and the
 * next packet may go, vrnic_req_more()) or a failed WQE to flush.  A
 * requester that waits (its window full, an RNR NAK, a fence, the
 * modeled link) is run again by what ends the wait: a response, the QP's
 * timer, the pace timer.
 */
bool vrnic_req_run(struct vrnic_qp *qp, unsigned int budget)
{
	struct vrnic_model *m = &to_vdev(qp->ibqp.device)->model;
	enum vrnic_req_step step = VRNIC_REQ_WAIT;
	unsigned int sent = 0;
	u64 wait;

	vrnic_engines_assert_held(qp);

	if (!vrnic_req_may_run(qp))
		return false;
	while (sent < budget) {
		/* As far as the doorbell told the NIC, not the live index. */
		if (qp->req.index == vrnic_doorbell_pi(&qp->db))
			break;
		if (vrnic_req_drain_reached(qp))
			break;
		/* clock.mode pace: the modeled link is behind; come back. */
		wait = vrnic_model_pace_wait(m);
		if (wait) {
			vrnic_qp_pace(qp, wait);
			break;
		}
		step = vrnic_req_one(qp);
		if (step != VRNIC_REQ_PROGRESS)
			break;
		sent++;
	}
	vrnic_comp_retire(qp);
	vrnic_req_drained(qp);
	return (sent == budget && vrnic_req_more(qp)) ||
	       step == VRNIC_REQ_FAILED;
}
