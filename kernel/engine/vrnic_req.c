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
#include "mem/vrnic_mem.h"
#include "obj/vrnic_qp_obj.h"
#include "tx/vrnic_tx.h"
#include "wire/vrnic_hdr.h"
#include "wire/vrnic_opcode.h"
#include "wire/vrnic_psn.h"

/* Ask for an ACK at least this often within a long message. */
#define VRNIC_ACKREQ_PKTS	16

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

/*
 * Copy the WQE at @index into the engine's context and validate it.
 * Return: 0, or an IB_WC_* error status for the WQE.
 */
static int vrnic_req_load(struct vrnic_qp *qp, u32 index, struct vrnic_swqe *w)
{
	const struct rxe_send_wqe *s = vrnic_sq_slot(qp, index);
	u64 length = 0;
	u32 i;

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
	if (w->opcode == IB_WR_REG_MR) {
		w->reg_mr = READ_ONCE(s->wr.wr.reg.mr);
		w->rkey = READ_ONCE(s->wr.wr.reg.key);
		w->reg_access = READ_ONCE(s->wr.wr.reg.access);
		return IB_WC_SUCCESS;
	}
	if (w->opcode == IB_WR_LOCAL_INV) {
		w->rkey = READ_ONCE(s->wr.ex.invalidate_rkey);
		return IB_WC_SUCCESS;
	}
	if (w->opcode == VRNIC_WR_ATOMIC_WRITE) {
		/* The 8 bytes travel in the WQE (librxe's dma.atomic_wr). */
		w->remote_addr = READ_ONCE(s->wr.wr.rdma.remote_addr);
		w->rkey = READ_ONCE(s->wr.wr.rdma.rkey);
		memcpy(&w->compare_add, s->dma.inline_data, sizeof(u64));
		w->length = sizeof(u64);
		w->num_sge = 0;
		return IB_WC_SUCCESS;
	}

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
	if (vrnic_qp_is_ud(qp)) {
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
	}
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
			      VRNIC_DMA_TO_DEVICE);
}

/*
 * REG_MR and LOCAL_INV (IBA 10.6.3.4, 10.6.5): make a fast-registration
 * MR valid under a new key with the page list map_mr_sg loaded, or
 * invalid.  Return: an IB_WC_* status.
 */
static int vrnic_req_local(struct vrnic_qp *qp, struct vrnic_swqe *w)
{
	struct vrnic_mr *mr;
	int status = IB_WC_SUCCESS;

	if (w->opcode == IB_WR_REG_MR) {
		mr = to_vmr(w->reg_mr);
		if (mr->type != VRNIC_MR_FRWR || mr->ibmr.pd != qp->ibqp.pd ||
		    vrnic_key_index(w->rkey) != vrnic_key_index(mr->ibmr.lkey) ||
		    READ_ONCE(mr->state) == VRNIC_MR_VALID)
			return IB_WC_MW_BIND_ERR;
		mr->access = w->reg_access;
		vrnic_mr_uncache(to_vdev(qp->ibqp.device), mr->ibmr.lkey);
		mr->ibmr.lkey = w->rkey;
		mr->ibmr.rkey = w->rkey;
		/* Publish the keys and page list before the MR turns valid. */
		smp_store_release(&mr->state, VRNIC_MR_VALID);
		return IB_WC_SUCCESS;
	}

	mr = vrnic_mr_get(to_vdev(qp->ibqp.device), w->rkey);
	if (!mr)
		return IB_WC_MW_BIND_ERR;
	if (mr->type != VRNIC_MR_FRWR || mr->ibmr.pd != qp->ibqp.pd) {
		status = IB_WC_MW_BIND_ERR;
	} else {
		WRITE_ONCE(mr->state, VRNIC_MR_INVALID);
		vrnic_mr_uncache(to_vdev(qp->ibqp.device), w->rkey);
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

/*
 * Send the next packet of the WQE at the requester's index.
 * Return: 1 sent, 0 nothing to do now, -errno stop (the WQE failed or the
 * net refused; the caller stops this round).
 */
static int vrnic_req_one(struct vrnic_qp *qp)
{
	u32 mask = qp->sq.queue.mask, index = qp->req.index & mask;
	struct vrnic_swqe *w = &qp->swqe[index];
	const struct rdma_ah_attr *av;
	u32 psn = qp->req.psn, dst_qpn;
	bool rc = qp->ibqp.qp_type == IB_QPT_RC;
	struct sk_buff *skb;
	struct rdma_ah_attr ud_av = {};
	int ret = 1;
	u8 opcode;
	void *hdr;
	int err;

	if (qp->req.index != qp->req.next_new && w->done) {
		/*
		 * Reached again after a rewind: a failed WQE stops the
		 * requester until the QP goes to ERR; a finished one (a read
		 * answered while a later SEND was lost) is stepped over.
		 */
		if (w->status != IB_WC_SUCCESS)
			return 0;
		vrnic_req_step_over(&qp->req, w->last_psn, qp->sq.queue.mask);
		return 1;
	}
	if (qp->req.index == qp->req.next_new) {
		int status = vrnic_req_load(qp, index, w);

		qp->req.next_new = (qp->req.next_new + 1) & mask;
		w->first_psn = psn;
		if (status != IB_WC_SUCCESS) {
			vrnic_req_finish(qp, w, status);
			return -EINVAL;
		}
	}
	if (w->opcode == IB_WR_REG_MR || w->opcode == IB_WR_LOCAL_INV) {
		/* Local work: done in order when the requester reaches it. */
		int status = vrnic_req_local(qp, w);

		if (status != IB_WC_SUCCESS) {
			vrnic_req_finish(qp, w, status);
			return -EINVAL;
		}
		w->status = IB_WC_SUCCESS;
		w->done = true;
		w->last_psn = vrnic_psn_sub(psn, 1);
		qp->req.index = (qp->req.index + 1) & mask;
		qp->req.offset = 0;
		return 1;
	}
	if (rc) {
		/* The last PSN this packet (a READ: its responses) takes. */
		u32 last = psn;

		if (w->opcode == IB_WR_RDMA_READ)
			last = vrnic_psn_add(psn, vrnic_req_read_pkts(qp, w) - 1);
		if (psn != qp->comp.una && vrnic_psn_after(psn, qp->comp.una) &&
		    vrnic_psn_diff(last, qp->comp.una) >= qp->comp.window)
			return 0;
		if (!vrnic_req_rd_atomic_ok(qp, w))
			return 0;
		if (time_before(jiffies, qp->comp.rnr_until)) {
			/* Waiting out an RNR NAK: the timer wakes us. */
			if (!timer_pending(&qp->timer))
				vrnic_comp_arm(qp);
			return 0;
		}
	}
	if (qp->req.offset == 0) {
		/* Known from the start: ACKs may cover a WQE not fully sent. */
		w->first_psn = psn;
		w->last_psn = vrnic_psn_add(psn, vrnic_req_npkts(qp, w) - 1);
	}

	av = vrnic_req_av(qp, w, &ud_av);
	if (!av) {
		vrnic_req_finish(qp, w, IB_WC_LOC_QP_OP_ERR);
		return -EINVAL;
	}
	dst_qpn = vrnic_qp_is_ud(qp) ?
		  w->dst_qpn : qp->attr.dest_qp_num;

	switch (w->opcode) {
	case IB_WR_RDMA_READ: {
		/* The next chunk, from where the responses stopped. */
		u32 off = qp->req.offset, end = vrnic_req_read_end(qp, w);
		u32 npkts = vrnic_req_read_pkts(qp, w);

		skb = vrnic_pkt_build(qp, VRNIC_OP_RC_RDMA_READ_REQUEST, psn,
				      dst_qpn, 0, true, false);
		if (!skb) {
			ret = -ENOMEM;
			goto out;
		}
		vrnic_reth_set(vrnic_hdr_at(skb->data, VRNIC_HDR_RETH),
			       w->remote_addr + off, w->rkey, end - off);
		if (off == 0)
			w->resp_bytes = 0;
		qp->req.psn = vrnic_psn_add(psn, npkts);
		if (end == w->length) {
			qp->req.index = (qp->req.index + 1) & mask;
			qp->req.offset = 0;
		} else {
			qp->req.offset = end;
		}
		break;
	}
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		opcode = w->opcode == IB_WR_ATOMIC_CMP_AND_SWP ?
			 VRNIC_OP_RC_COMPARE_SWAP : VRNIC_OP_RC_FETCH_ADD;
		skb = vrnic_pkt_build(qp, opcode, psn, dst_qpn, 0, true, false);
		if (!skb) {
			ret = -ENOMEM;
			goto out;
		}
		vrnic_atmeth_set(vrnic_hdr_at(skb->data, VRNIC_HDR_ATMETH),
				 w->remote_addr, w->rkey,
				 w->opcode == IB_WR_ATOMIC_CMP_AND_SWP ? w->swap :
									  w->compare_add,
				 w->compare_add);
		w->last_psn = psn;
		qp->req.psn = vrnic_psn_next(psn);
		qp->req.index = (qp->req.index + 1) & mask;
		qp->req.offset = 0;
		break;
	default: {
		u32 paylen = min(w->length - qp->req.offset, qp->mtu);
		bool first = qp->req.offset == 0;
		bool last = qp->req.offset + paylen == w->length;
		u32 nth = qp->req.offset / qp->mtu + 1;	/* of the message */
		/*
		 * An ACK at least every 16 packets, and for the packet that
		 * fills the window (one PSN after a timeout): the requester
		 * waits for that ACK to send the next.
		 */
		bool ackreq = rc && (last || nth % VRNIC_ACKREQ_PKTS == 0 ||
				     vrnic_psn_diff(psn, qp->comp.una) + 1 >=
				     (s32)qp->comp.window);

		opcode = vrnic_req_opcode(qp, w, first, last);
		skb = vrnic_pkt_build(qp, opcode, psn, dst_qpn, paylen, ackreq,
				      last && (w->send_flags & IB_SEND_SOLICITED));
		if (!skb) {
			ret = -ENOMEM;
			goto out;
		}
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
		if (w->opcode == VRNIC_WR_ATOMIC_WRITE) {
			memcpy(skb->data + vrnic_hdr_len(opcode), &w->compare_add,
			       sizeof(w->compare_add));
			err = 0;
		} else {
			err = vrnic_req_gather(qp, index, w, qp->req.offset,
					       skb->data + vrnic_hdr_len(opcode),
					       paylen);
		}
		if (err) {
			kfree_skb(skb);
			vrnic_req_finish(qp, w, IB_WC_LOC_PROT_ERR);
			ret = -EINVAL;
			goto out;
		}
		qp->req.psn = vrnic_psn_next(psn);
		qp->req.offset += paylen;
		if (last) {
			w->last_psn = psn;
			qp->req.index = (qp->req.index + 1) & mask;
			qp->req.offset = 0;
			/* Nothing acknowledges UC and UD: done once sent. */
			if (!rc)
				w->done = true;
		}
		break;
	}
	}

	vrnic_pkt_send(qp, skb, av, dst_qpn);
	if (rc) {
		vrnic_comp_sent(qp, psn);
		if (!timer_pending(&qp->timer))
			vrnic_comp_arm(qp);
	}
out:
	if (av == &ud_av)
		rdma_destroy_ah_attr(&ud_av);
	return ret;
}

/**
 * vrnic_req_run - send up to @budget packets
 * Return: true if there is more to send now (the budget ran out) or a
 * failed WQE to flush.  A requester that waits (its window full, an RNR
 * NAK, a fence, the modeled link) is run again by what ends the wait: a
 * response, the QP's timer, the pace timer.
 */
bool vrnic_req_run(struct vrnic_qp *qp, unsigned int budget)
{
	struct vrnic_model *m = &to_vdev(qp->ibqp.device)->model;
	unsigned int sent = 0;
	int ret = 0;
	u64 wait;

	vrnic_engines_assert_held(qp);

	if (READ_ONCE(qp->state) != IB_QPS_RTS)
		return false;
	while (sent < budget) {
		/* As far as the doorbell told the NIC, not the live index. */
		if (qp->req.index == vrnic_doorbell_pi(&qp->db))
			break;
		/* clock.mode pace: the modeled link is behind; come back. */
		wait = vrnic_model_pace_wait(m);
		if (wait) {
			vrnic_qp_pace(qp, wait);
			break;
		}
		ret = vrnic_req_one(qp);
		if (ret <= 0)
			break;
		sent++;
	}
	vrnic_comp_retire(qp);
	return (sent == budget && qp->req.index != vrnic_doorbell_pi(&qp->db)) ||
	       ret == -EINVAL;
}
