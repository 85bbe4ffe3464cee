// SPDX-License-Identifier: GPL-2.0-only
/*
 * vrnic: the responder.  Executes requests in PSN order (IBA 9.7.3): SENDs
 * into receive WQEs, RDMA WRITEs and READs against remote keys, atomics;
 * answers with ACKs, read responses, atomic ACKs or NAKs, and replays
 * duplicates without executing them twice.  Runs as the QP's engines do
 * (vrnic_qp_run(): its work, a doorbell, a receive softirq), one context
 * at a time.
 *
 * Copyright (c) 2026 The vrnic authors
 */

#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/log2.h>
#include <linux/sched/clock.h>

#include "vrnic.h"
#include "vrnic_mr.h"
#include "vrnic_qp.h"
#include "vrnic_verbs.h"
#include "engine/vrnic_resp.h"
#include "mem/vrnic_mem.h"
#include "mem/vrnic_mw.h"
#include "obj/vrnic_cqe.h"
#include "obj/vrnic_qp_obj.h"
#include "probe/vrnic_mutate.h"
#include "probe/vrnic_trace.h"
#include "tx/vrnic_tx.h"
#include "wire/vrnic_hdr.h"
#include "wire/vrnic_pkt.h"
#include "wire/vrnic_psn.h"

/*
 * At most this many PSNs are acknowledged by one coalesced ACK: as many
 * as the requester sends between two ACK requests at the window's floor
 * (vrnic_req_data(): twice a window), so that each ACK request in a long
 * batch is answered as it is taken, at any window from the floor up.
 */
#define VRNIC_ACK_COALESCE	(VRNIC_WINDOW_FLOOR / 2)

/* What executing a request asks the responder to answer. */
enum vrnic_resp_verdict {
	VRNIC_RESP_OK,		/* done; ACK if asked */
	VRNIC_RESP_RNR,		/* no receive WQE: RNR NAK */
	VRNIC_RESP_INV_REQ,	/* NAK invalid request */
	VRNIC_RESP_ACCESS,	/* NAK remote access error */
	VRNIC_RESP_OP_ERR,	/* NAK remote operational error */
	VRNIC_RESP_DROP,	/* silently dropped (UC, UD) */
	VRNIC_RESP_ANSWERED,	/* the response was sent already */
	VRNIC_RESP_FAULT,	/* an on-demand MR's page to fault in (qp->pf):
				 * the packet is taken again once resolved
				 */
};

static bool vrnic_resp_is_rc(struct vrnic_qp *qp)
{
	return qp->ibqp.qp_type == IB_QPT_RC;
}

static void vrnic_resp_ack_now(struct vrnic_qp *qp, u8 syndrome, u32 psn)
{
	struct sk_buff *skb;

	skb = vrnic_pkt_build(qp, VRNIC_OP_RC_ACKNOWLEDGE, psn,
			      qp->attr.dest_qp_num, 0, false, false);
	if (!skb)
		return;		/* the requester's timer recovers */
	vrnic_aeth_set(vrnic_hdr_at(skb->data, VRNIC_HDR_AETH), syndrome,
		       qp->resp.msn);
	vrnic_pkt_send(qp, skb, &qp->attr.ah_attr, qp->attr.dest_qp_num);
}

/* RESET: nothing expected, held or replayed.  Context: modify_qp, held. */
void vrnic_resp_reset(struct vrnic_qp *qp)
{
	memset(&qp->resp, 0, sizeof(qp->resp));
	if (qp->replay)
		memset(qp->replay, 0, VRNIC_MAX_RD_ATOMIC * sizeof(*qp->replay));
}

/* RTR: the first PSN expected is the QP's rq_psn.  As vrnic_resp_reset(). */
void vrnic_resp_start(struct vrnic_qp *qp)
{
	qp->resp.epsn = qp->attr.rq_psn;
	qp->resp.acked_psn = vrnic_psn_sub(qp->attr.rq_psn, 1);
	qp->resp.msn = 0;
	qp->resp.nak_sent = false;
}

/**
 * vrnic_resp_take_held - give up the receive WQE a multi-packet SEND holds
 * @qp:		the QP, in ERR
 * @wr_id:	its wr_id, for the flush to complete
 *
 * Context: the QP's engines (the flush).
 * Return: whether a WQE was held.
 */
bool vrnic_resp_take_held(struct vrnic_qp *qp, u64 *wr_id)
{
	if (!qp->resp.has_wqe)
		return false;
	qp->resp.has_wqe = false;
	*wr_id = qp->resp.wr_id;
	return true;
}

/**
 * vrnic_resp_flush_ack - send the coalesced ACK, if one is pending
 * @qp:		the QP, its engines running
 *
 * ACKs are cumulative (IBA 9.7.5.1.1), so the responder answers a batch of
 * requests that asked for one with a single ACK of the newest, sent when
 * the QP's work has taken the packets queued so far, or before any other
 * response so that the requester sees them in PSN order.
 */
void vrnic_resp_flush_ack(struct vrnic_qp *qp)
{
	vrnic_engines_assert_held(qp);

	if (!qp->resp.ack_pending)
		return;
	qp->resp.ack_pending = false;
	qp->resp.acked_psn = qp->resp.ack_psn;
	qp->resp.ack_ns = local_clock();
	if (vrnic_mutant(ack_drop) && !(qp->resp.ack_psn & 63))
		return;
	vrnic_resp_ack_now(qp, VRNIC_AETH_ACK | VRNIC_AETH_CREDITS_INVALID,
			   qp->resp.ack_psn);
}

static void vrnic_resp_send_ack(struct vrnic_qp *qp, u8 syndrome, u32 psn)
{
	if ((syndrome & VRNIC_AETH_TYPE_MASK) != VRNIC_AETH_ACK)
		trace_nak(&qp->ibqp, psn, syndrome, 1);
	vrnic_resp_flush_ack(qp);
	vrnic_resp_ack_now(qp, syndrome, psn);
}

/* Take the next receive WQE, from the QP's RQ or its SRQ, into resp. */
static int vrnic_resp_get_wqe(struct vrnic_qp *qp)
{
	struct vrnic_srq *srq = qp->srq;
	struct vrnic_queue *q = srq ? &srq->queue : &qp->rq.queue;
	u32 max_sge = srq ? srq->max_sge : qp->rq.max_sge;
	const struct rxe_recv_wqe *wqe;
	unsigned long flags = 0;
	bool limit_event = false;
	u64 length = 0;
	int err = 0;
	u32 i;

	if (qp->resp.has_wqe)
		return 0;
	if (srq)
		spin_lock_irqsave(&srq->lock, flags);
	wqe = vrnic_queue_head(q);
	if (!wqe) {
		err = -ENOSPC;
		goto out;
	}
	vrnic_dma_account(to_vdev(qp->ibqp.device), VRNIC_DMA_TO_DEVICE,
			  vrnic_queue_elem_size(q), VRNIC_DMA_RQ_WQE);
	qp->resp.wr_id = READ_ONCE(wqe->wr_id);
	qp->resp.num_sge = READ_ONCE(wqe->dma.num_sge);
	if (qp->resp.num_sge > max_sge)
		qp->resp.num_sge = max_sge;	/* a corrupt WQE cannot reach past */
	for (i = 0; i < qp->resp.num_sge; i++) {
		qp->resp.sge[i].addr = READ_ONCE(wqe->dma.sge[i].addr);
		qp->resp.sge[i].length = READ_ONCE(wqe->dma.sge[i].length);
		qp->resp.sge[i].lkey = READ_ONCE(wqe->dma.sge[i].lkey);
		length += qp->resp.sge[i].length;
	}
	qp->resp.length = min_t(u64, length, U32_MAX);
	qp->resp.offset = 0;
	qp->resp.has_wqe = true;
	vrnic_queue_advance_consumer(q);
	if (srq && srq->limit && vrnic_queue_count(q) < srq->limit) {
		srq->limit = 0;		/* the limit fires once (IBA 10.2.9.2) */
		limit_event = true;
	}
out:
	if (srq)
		spin_unlock_irqrestore(&srq->lock, flags);
	if (limit_event)
		trace_async_event(srq->ibsrq.device, IB_EVENT_SRQ_LIMIT_REACHED,
				  srq->ibsrq.res.id);
	if (limit_event && srq->ibsrq.event_handler) {
		struct ib_event ev = {
			.device = srq->ibsrq.device,
			.element.srq = &srq->ibsrq,
			.event = IB_EVENT_SRQ_LIMIT_REACHED,
		};

		srq->ibsrq.event_handler(&ev, srq->ibsrq.srq_context);
	}
	return err;
}

/* tools/mutate.sh's payload_flip: every 100th byte a request carries. */
static void vrnic_resp_mutate_payload(void *data, u32 len)
{
	u8 *p = data;
	u32 i;

	if (!vrnic_mutant(payload_flip))
		return;
	for (i = 0; i < len; i += 100)
		p[i] ^= 0xff;
}

/* Write @len bytes into the receive WQE at its current offset. */
static int vrnic_resp_scatter(struct vrnic_qp *qp, const void *data, u32 len)
{
	int err;

	if (len > qp->resp.length - qp->resp.offset)
		return -EMSGSIZE;
	vrnic_resp_mutate_payload((void *)data, len);
	err = vrnic_sge_copy(to_vdev(qp->ibqp.device), qp->ibqp.pd, qp->resp.sge,
			     qp->resp.num_sge, qp->resp.offset, (void *)data,
			     len, IB_ACCESS_LOCAL_WRITE, VRNIC_DMA_FROM_DEVICE,
			     &qp->pf);
	if (!err)
		qp->resp.offset += len;
	return err;
}

/* Complete the receive WQE in resp with @status. */
static void vrnic_resp_complete(struct vrnic_qp *qp, struct sk_buff *skb,
				int status, enum ib_wc_opcode opcode)
{
	struct vrnic_pkt *pkt = vrnic_pkt(skb);
	struct ib_wc wc = {
		.wr_id = qp->resp.wr_id,
		.status = status,
		.opcode = opcode,
		.byte_len = qp->resp.offset + vrnic_mutant(byte_len),
		.qp = &qp->ibqp,
		.port_num = VRNIC_PORT,
	};
	struct vrnic_immdt *immdt = vrnic_pkt_hdr(skb, VRNIC_HDR_IMMDT);
	struct vrnic_ieth *ieth = vrnic_pkt_hdr(skb, VRNIC_HDR_IETH);
	struct vrnic_deth *deth = vrnic_pkt_hdr(skb, VRNIC_HDR_DETH);

	if (opcode == IB_WC_RECV_RDMA_WITH_IMM)
		wc.byte_len = qp->resp.write_len;
	if (status == IB_WC_SUCCESS) {
		if (immdt) {
			wc.ex.imm_data = vrnic_immdt_imm(immdt);
			wc.wc_flags |= IB_WC_WITH_IMM;
		}
		if (ieth) {
			wc.ex.invalidate_rkey = vrnic_ieth_rkey(ieth);
			wc.wc_flags |= IB_WC_WITH_INVALIDATE;
		}
		if (deth) {
			wc.src_qp = vrnic_deth_sqp(deth);
			wc.wc_flags |= IB_WC_GRH | IB_WC_WITH_NETWORK_HDR_TYPE;
			wc.network_hdr_type = ip_hdr(skb)->version == 4 ?
					      RDMA_NETWORK_IPV4 :
					      RDMA_NETWORK_IPV6;
		}
	}
	qp->resp.has_wqe = false;
	vrnic_qp_complete(qp, qp->rcq, &wc,
			  vrnic_bth_se((struct vrnic_bth *)skb->data) &&
			  (pkt->flags & VRNIC_OPF_LAST));
}

/*
 * SEND_WITH_INVALIDATE: invalidate the named local rkey (IBA 10.6.5): a
 * fast-registration MR of the QP's PD with no window bound to it, or a
 * type 2 window bound through this QP (10.6.7.2.5).
 */
static int vrnic_resp_invalidate(struct vrnic_qp *qp, u32 rkey)
{
	struct vrnic_dev *vdev = to_vdev(qp->ibqp.device);
	struct vrnic_mr *mr;
	int err = 0;

	if (vrnic_key_is_mw(rkey))
		return vrnic_mw_invalidate(vdev, qp, rkey, true);
	mr = vrnic_mr_get(vdev, rkey);
	if (!mr)
		return -EINVAL;
	if (mr->type != VRNIC_MR_FRWR || mr->ibmr.pd != qp->ibqp.pd ||
	    vrnic_mr_has_mw(mr)) {
		err = -EINVAL;
	} else {
		WRITE_ONCE(mr->state, VRNIC_MR_INVALID);
		vrnic_mr_uncache(to_vdev(qp->ibqp.device), rkey);
	}
	vrnic_mr_put(mr);
	return err;
}

/* The 40 bytes in front of a UD payload (IBA 11.4.1.2; RoCEv2 IPv4 form). */
static void vrnic_resp_grh(struct sk_buff *skb, u8 *grh)
{
	memset(grh, 0, 40);
	if (ip_hdr(skb)->version == 4)
		memcpy(grh + 20, ip_hdr(skb), sizeof(struct iphdr));
	else
		memcpy(grh, ipv6_hdr(skb), sizeof(struct ipv6hdr));
}

static enum vrnic_resp_verdict vrnic_resp_send(struct vrnic_qp *qp,
					       struct sk_buff *skb)
{
	struct vrnic_pkt *pkt = vrnic_pkt(skb);
	bool ud = vrnic_qp_is_ud(qp);
	int err;

	if (pkt->flags & VRNIC_OPF_FIRST) {
		if (vrnic_resp_get_wqe(qp))
			return vrnic_resp_is_rc(qp) ? VRNIC_RESP_RNR : VRNIC_RESP_DROP;
		/*
		 * The WQE is held until the message completes: a first
		 * packet taken again after a page fault finds it (with the
		 * GRH in place if that went in before the fault).
		 */
		if (ud && !qp->resp.offset) {
			u8 grh[40];

			vrnic_resp_grh(skb, grh);
			err = vrnic_resp_scatter(qp, grh, sizeof(grh));
			if (err == -EAGAIN)
				return VRNIC_RESP_FAULT;
			if (err)
				goto len_err;
		}
	} else if (!qp->resp.has_wqe) {
		return vrnic_resp_is_rc(qp) ? VRNIC_RESP_INV_REQ : VRNIC_RESP_DROP;
	}

	err = vrnic_resp_scatter(qp, vrnic_pkt_payload(skb), pkt->paylen);
	if (err == -EAGAIN)
		return VRNIC_RESP_FAULT;
	if (err == -EMSGSIZE)
		goto len_err;
	if (err) {
		vrnic_resp_complete(qp, skb, IB_WC_LOC_PROT_ERR, IB_WC_RECV);
		return VRNIC_RESP_OP_ERR;
	}
	if (pkt->flags & VRNIC_OPF_LAST) {
		struct vrnic_ieth *ieth = vrnic_pkt_hdr(skb, VRNIC_HDR_IETH);

		if (ieth && vrnic_resp_invalidate(qp, vrnic_ieth_rkey(ieth))) {
			vrnic_resp_complete(qp, skb, IB_WC_LOC_QP_OP_ERR, IB_WC_RECV);
			return VRNIC_RESP_INV_REQ;
		}
		vrnic_resp_complete(qp, skb, IB_WC_SUCCESS, IB_WC_RECV);
	}
	return VRNIC_RESP_OK;

len_err:
	vrnic_resp_complete(qp, skb, IB_WC_LOC_LEN_ERR, IB_WC_RECV);
	return ud ? VRNIC_RESP_DROP : VRNIC_RESP_INV_REQ;
}

/* The PD a remote access is checked against: the QP's (IBA 10.6.3.2). */
static struct ib_pd *vrnic_resp_pd(struct vrnic_qp *qp, struct vrnic_mr *mr)
{
	return vrnic_mutant(rkey_pd) ? mr->ibmr.pd : qp->ibqp.pd;
}

/*
 * What an rkey names (an MR, or a window and the MR it is bound to),
 * referenced in @rk, if the QP and the MR or window allow @access over
 * [va, va + len).  Like a NIC's translation, it is looked up and checked
 * once per request.  Return: 0, or -EACCES.
 */
static int vrnic_resp_rkey_get(struct vrnic_qp *qp, u32 rkey, int access,
			       u64 va, u64 len, struct vrnic_rkey *rk)
{
	if (!(qp->attr.qp_access_flags & access))
		return -EACCES;
	if (vrnic_rkey_get(to_vdev(qp->ibqp.device), rkey, rk))
		return -EACCES;
	if (vrnic_rkey_check(rk, rkey, vrnic_resp_pd(qp, rk->mr), qp, access,
			     va, len)) {
		vrnic_rkey_put(rk);
		return -EACCES;
	}
	return 0;
}

/*
 * Check an rkey for @access over [va, va + len) and copy through it.  A
 * zero-length access names no memory: its R_Key and VA are not checked
 * (IBA C9-88), only the QP's access flags.
 */
static int vrnic_resp_rkey_copy(struct vrnic_qp *qp, u32 rkey, int access,
				u64 va, void *buf, u32 len,
				enum vrnic_dma_dir dir)
{
	struct vrnic_rkey rk;
	int err = 0;

	if (!len)
		return qp->attr.qp_access_flags & access ? 0 : -EACCES;
	if (vrnic_resp_rkey_get(qp, rkey, access, va, len, &rk))
		return -EACCES;
	if (buf)
		err = vrnic_rkey_copy(to_vdev(qp->ibqp.device), &rk, va, buf,
				      len, dir, &qp->pf);
	vrnic_rkey_put(&rk);
	return err;
}

static enum vrnic_resp_verdict vrnic_resp_write(struct vrnic_qp *qp,
						struct sk_buff *skb)
{
	struct vrnic_pkt *pkt = vrnic_pkt(skb);
	bool imm = vrnic_pkt_hdr(skb, VRNIC_HDR_IMMDT);
	int err;

	if (pkt->flags & VRNIC_OPF_FIRST) {
		struct vrnic_reth *reth = vrnic_pkt_hdr(skb, VRNIC_HDR_RETH);

		qp->resp.va = vrnic_reth_va(reth);
		qp->resp.rkey = vrnic_reth_rkey(reth);
		qp->resp.resid = vrnic_reth_len(reth);
		qp->resp.write_len = qp->resp.resid;
		if (vrnic_resp_rkey_copy(qp, qp->resp.rkey, IB_ACCESS_REMOTE_WRITE,
					 qp->resp.va, NULL, qp->resp.resid, 0)) {
			qp->resp.write_active = false;
			return vrnic_resp_is_rc(qp) ? VRNIC_RESP_ACCESS : VRNIC_RESP_DROP;
		}
		qp->resp.write_active = true;
	} else if (!qp->resp.write_active) {
		return vrnic_resp_is_rc(qp) ? VRNIC_RESP_INV_REQ : VRNIC_RESP_DROP;
	}
	if (pkt->paylen > qp->resp.resid ||
	    ((pkt->flags & VRNIC_OPF_LAST) && pkt->paylen != qp->resp.resid)) {
		qp->resp.write_active = false;
		return vrnic_resp_is_rc(qp) ? VRNIC_RESP_INV_REQ : VRNIC_RESP_DROP;
	}
	/* A WRITE with immediate needs its receive WQE before it lands. */
	if (imm && vrnic_resp_get_wqe(qp))
		return vrnic_resp_is_rc(qp) ? VRNIC_RESP_RNR : VRNIC_RESP_DROP;

	vrnic_resp_mutate_payload(vrnic_pkt_payload(skb), pkt->paylen);
	err = vrnic_resp_rkey_copy(qp, qp->resp.rkey, IB_ACCESS_REMOTE_WRITE,
				   qp->resp.va, vrnic_pkt_payload(skb),
				   pkt->paylen, VRNIC_DMA_FROM_DEVICE);
	if (err == -EAGAIN)
		return VRNIC_RESP_FAULT;
	if (err) {
		qp->resp.write_active = false;
		return vrnic_resp_is_rc(qp) ? VRNIC_RESP_ACCESS : VRNIC_RESP_DROP;
	}
	qp->resp.va += pkt->paylen;
	qp->resp.resid -= pkt->paylen;
	if (pkt->flags & VRNIC_OPF_LAST) {
		qp->resp.write_active = false;
		if (imm)
			vrnic_resp_complete(qp, skb, IB_WC_SUCCESS,
					    IB_WC_RECV_RDMA_WITH_IMM);
	}
	return VRNIC_RESP_OK;
}

/* Responses of a READ a responder sends per call before it yields. */
#define VRNIC_RESP_READ_BUDGET	32

/* The opcode of a READ's next response: the first, the last, both or none. */
static u8 vrnic_resp_read_opcode(bool first, bool last)
{
	if (first && last)
		return VRNIC_OP_RC_RDMA_READ_RESPONSE_ONLY;
	if (first)
		return VRNIC_OP_RC_RDMA_READ_RESPONSE_FIRST;
	if (last)
		return VRNIC_OP_RC_RDMA_READ_RESPONSE_LAST;
	return VRNIC_OP_RC_RDMA_READ_RESPONSE_MIDDLE;
}

/**
 * vrnic_resp_read_one - send the next response of the READ in qp->resp.rd
 * @qp:		the QP, its engines running
 * @rk:		what its rkey named when this round began (an MR, or a
 *		window and its MR); unused if the READ has no bytes left
 *
 * The MR's or window's key, state and bounds are checked before the
 * payload is copied (see vrnic_resp_read_more()).
 *
 * Return: 0 when the response was sent, -ENOMEM when no packet could be
 * built or -EAGAIN when its payload is in an on-demand MR's page to fault
 * in first (nothing changed: the next round goes on), -EACCES when the
 * rkey no longer allows the READ.
 */
static int vrnic_resp_read_one(struct vrnic_qp *qp, struct vrnic_rkey *rk)
{
	struct vrnic_dev *vdev = to_vdev(qp->ibqp.device);
	typeof(qp->resp.rd) *rd = &qp->resp.rd;
	u32 paylen = min(rd->resid, qp->mtu);
	bool last = rd->resid <= qp->mtu;
	u8 opcode = vrnic_resp_read_opcode(rd->first, last);
	struct sk_buff *out;
	void *aeth;

	if (paylen && vrnic_rkey_check(rk, rd->rkey, vrnic_resp_pd(qp, rk->mr),
				       qp, IB_ACCESS_REMOTE_READ, rd->va,
				       paylen))
		return -EACCES;
	out = vrnic_pkt_build(qp, opcode, rd->psn, qp->attr.dest_qp_num,
			      paylen, false, false);
	if (!out)
		return -ENOMEM;
	aeth = vrnic_hdr_at(out->data, VRNIC_HDR_AETH);
	if (aeth)
		vrnic_aeth_set(aeth, VRNIC_AETH_ACK | VRNIC_AETH_CREDITS_INVALID,
			       qp->resp.msn);
	if (paylen) {
		int err = vrnic_rkey_copy(vdev, rk, rd->va,
					  out->data + vrnic_hdr_len(opcode),
					  paylen, VRNIC_DMA_TO_DEVICE, &qp->pf);

		if (err) {
			kfree_skb(out);
			return err == -EAGAIN ? err : -EACCES;
		}
	}
	vrnic_pkt_send(qp, out, &qp->attr.ah_attr, qp->attr.dest_qp_num);
	rd->psn = vrnic_psn_next(rd->psn);
	rd->va += paylen;
	rd->resid -= paylen;
	rd->first = false;
	if (last)
		rd->active = false;
	return 0;
}

/*
 * Send up to @budget responses of the READ in qp->resp.rd: one per path
 * MTU, AETH on the first and last (IBA 9.7.5.1.4).  A READ may ask for up
 * to 2^31 bytes, and rxe and hardware requesters send such READs (only
 * ours splits them), so it is answered a budget at a time, between which
 * the engines yield the worker (vrnic_resp_read_pending()).
 *
 * The rkey is looked up again on every call, and each packet checks the
 * MR's (or window's) key, state and bounds before its payload is copied:
 * a LOCAL_INV or SEND_WITH_INV that invalidates the MR or window, a
 * REG_MR that gives the MR's index a new key, or a bind that gives the
 * window a new rkey, stops the responses not yet begun (one whose copy is
 * under way still leaves, as from a NIC's DMA engine in flight).
 *
 * Return: VRNIC_RESP_ANSWERED, or VRNIC_RESP_ACCESS when the rkey no
 * longer allows the READ (the READ is then over).
 */
static enum vrnic_resp_verdict vrnic_resp_read_more(struct vrnic_qp *qp,
						    unsigned int budget)
{
	struct vrnic_dev *vdev = to_vdev(qp->ibqp.device);
	typeof(qp->resp.rd) *rd = &qp->resp.rd;
	struct vrnic_rkey rk = {};
	unsigned int n;
	int err;

	if (rd->resid && vrnic_rkey_get(vdev, rd->rkey, &rk))
		goto access;
	for (n = 0; n < budget && rd->active; n++) {
		err = vrnic_resp_read_one(qp, &rk);
		if (err == -ENOMEM || err == -EAGAIN)
			break;	/* no memory, a page fault: the next round goes on */
		if (err)
			goto access;
	}
	vrnic_rkey_put(&rk);
	return VRNIC_RESP_ANSWERED;

access:
	vrnic_rkey_put(&rk);
	rd->active = false;
	return VRNIC_RESP_ACCESS;
}

/*
 * A READ whose rkey went away between its responses: NAK the response
 * the requester waits for (remote access error) and, as after any class C
 * responder error (IBA 9.9.3.1.3), take the QP to ERR.
 */
static void vrnic_resp_read_abort(struct vrnic_qp *qp)
{
	struct vrnic_dev *vdev = to_vdev(qp->ibqp.device);

	vrnic_count(vdev, VRNIC_CNT_REM_ACCESS_ERR);
	vrnic_count(vdev, VRNIC_CNT_RESP_REM_ACCESS);
	vrnic_resp_send_ack(qp, VRNIC_AETH_NAK_REM_ACCESS_ERR, qp->resp.rd.psn);
	vrnic_qp_error(qp, VRNIC_QP_CAUSE_ERROR);
}

/**
 * vrnic_resp_read_pending - go on with the READ being answered
 * @qp:		the QP, its engines running
 *
 * Return: true while the READ has responses left: the engines take no
 * other packet and come back for more.
 */
bool vrnic_resp_read_pending(struct vrnic_qp *qp)
{
	vrnic_engines_assert_held(qp);

	if (!qp->resp.rd.active)
		return false;
	if (vrnic_resp_read_more(qp, VRNIC_RESP_READ_BUDGET) ==
	    VRNIC_RESP_ACCESS) {
		vrnic_resp_read_abort(qp);
		return false;
	}
	return qp->resp.rd.active;
}

/* Keep the next slot of the QP's replay ring (struct vrnic_rd_replay). */
static struct vrnic_rd_replay *vrnic_resp_replay_slot(struct vrnic_qp *qp)
{
	return &qp->replay[qp->resp.replay_next++ % VRNIC_MAX_RD_ATOMIC];
}

/*
 * Answer an RDMA READ request starting at @psn: its first budget of
 * responses now, the rest from vrnic_resp_read_pending().  A new READ is
 * recorded for its duplicates; reads have no side effects, so a duplicate
 * that matches a record (@dup) is read again, its rkey checked again.
 */
static enum vrnic_resp_verdict vrnic_resp_read(struct vrnic_qp *qp,
					       struct sk_buff *skb, bool dup)
{
	struct vrnic_reth *reth = vrnic_pkt_hdr(skb, VRNIC_HDR_RETH);
	u32 psn = vrnic_pkt(skb)->psn, len = vrnic_reth_len(reth);
	u64 va = vrnic_reth_va(reth);
	u32 rkey = vrnic_reth_rkey(reth);
	struct vrnic_rkey rk;

	/*
	 * A message is at most 2^31 bytes (IBA 9.4.4, the device's
	 * max_msg_sz): a longer READ would wrap the PSNs of its responses.
	 */
	if (len > VRNIC_MAX_MSG_SIZE)
		return VRNIC_RESP_INV_REQ;
	/* A zero-length READ names no memory (IBA C9-88): no R_Key check. */
	if (!len) {
		if (!(qp->attr.qp_access_flags & IB_ACCESS_REMOTE_READ))
			return VRNIC_RESP_ACCESS;
	} else {
		if (vrnic_resp_rkey_get(qp, rkey, IB_ACCESS_REMOTE_READ, va,
					len, &rk))
			return VRNIC_RESP_ACCESS;
		vrnic_rkey_put(&rk);
	}
	if (!dup) {
		struct vrnic_rd_replay *r = vrnic_resp_replay_slot(qp);

		r->kind = VRNIC_REPLAY_READ;
		r->psn = psn;
		r->npsn = vrnic_read_npsn(len, qp->mtu);
		r->va = va;
		r->len = len;
		r->rkey = rkey;
		qp->resp.msn++;
		qp->resp.epsn = vrnic_psn_add(psn, r->npsn);
	}
	vrnic_resp_flush_ack(qp);

	qp->resp.rd.active = true;
	qp->resp.rd.first = true;
	qp->resp.rd.psn = psn;
	qp->resp.rd.rkey = rkey;
	qp->resp.rd.va = va;
	qp->resp.rd.resid = len;
	if (vrnic_resp_read_more(qp, VRNIC_RESP_READ_BUDGET) == VRNIC_RESP_ACCESS)
		vrnic_resp_read_abort(qp);
	return VRNIC_RESP_ANSWERED;
}

static void vrnic_resp_atomic_ack(struct vrnic_qp *qp, u32 psn, u64 orig)
{
	struct sk_buff *skb;

	vrnic_resp_flush_ack(qp);
	skb = vrnic_pkt_build(qp, VRNIC_OP_RC_ATOMIC_ACKNOWLEDGE, psn,
			      qp->attr.dest_qp_num, 0, false, false);
	if (!skb)
		return;
	vrnic_aeth_set(vrnic_hdr_at(skb->data, VRNIC_HDR_AETH),
		       VRNIC_AETH_ACK | VRNIC_AETH_CREDITS_INVALID, qp->resp.msn);
	vrnic_atmack_set(vrnic_hdr_at(skb->data, VRNIC_HDR_ATMACK), orig);
	vrnic_pkt_send(qp, skb, &qp->attr.ah_attr, qp->attr.dest_qp_num);
}

/* Execute an atomic once, remember its result for duplicates (9.7.5.1.3). */
static enum vrnic_resp_verdict vrnic_resp_atomic(struct vrnic_qp *qp,
						 struct sk_buff *skb)
{
	struct vrnic_dev *vdev = to_vdev(qp->ibqp.device);
	struct vrnic_atmeth *a = vrnic_pkt_hdr(skb, VRNIC_HDR_ATMETH);
	u64 va = vrnic_atmeth_va(a), orig, val;
	u32 rkey = vrnic_atmeth_rkey(a), psn = vrnic_pkt(skb)->psn;
	struct vrnic_rd_replay *r;
	struct vrnic_rkey rk;
	int err;

	if (va & 7)
		return VRNIC_RESP_INV_REQ;	/* IBA 9.4.5: 8-byte aligned */
	if (vrnic_resp_rkey_get(qp, rkey, IB_ACCESS_REMOTE_ATOMIC, va, 8, &rk))
		return VRNIC_RESP_ACCESS;

	spin_lock_bh(&vdev->atomic_lock);
	err = vrnic_rkey_copy(vdev, &rk, va, &orig, 8, VRNIC_DMA_TO_DEVICE,
			      &qp->pf);
	if (!err) {
		if (vrnic_pkt(skb)->opcode == VRNIC_OP_RC_COMPARE_SWAP)
			val = orig == vrnic_atmeth_compare(a) ?
			      vrnic_atmeth_swap_add(a) : orig;
		else
			val = orig + vrnic_atmeth_swap_add(a);
		/* A fault here leaves the target as it was: nothing is done. */
		err = vrnic_rkey_copy(vdev, &rk, va, &val, 8,
				      VRNIC_DMA_FROM_DEVICE, &qp->pf);
	}
	spin_unlock_bh(&vdev->atomic_lock);
	vrnic_rkey_put(&rk);
	if (err == -EAGAIN)
		return VRNIC_RESP_FAULT;
	if (err)
		return VRNIC_RESP_ACCESS;

	r = vrnic_resp_replay_slot(qp);
	r->kind = VRNIC_REPLAY_ATOMIC;
	r->psn = psn;
	r->npsn = 1;
	r->orig = orig;
	qp->resp.msn++;
	qp->resp.epsn = vrnic_psn_next(psn);
	vrnic_resp_atomic_ack(qp, psn, orig);
	return VRNIC_RESP_ANSWERED;
}

/*
 * RDMA ATOMIC WRITE (IBTA 1.5, 9.4.7): the 8 payload bytes land at an
 * 8-byte aligned address under an rkey with remote write access, as one
 * single-copy-atomic store: no reader sees half of them.  It is answered
 * by an ACK like a WRITE, and a duplicate is acknowledged, not executed.
 */
static enum vrnic_resp_verdict vrnic_resp_atomic_write(struct vrnic_qp *qp,
						       struct sk_buff *skb)
{
	struct vrnic_dev *vdev = to_vdev(qp->ibqp.device);
	struct vrnic_reth *reth = vrnic_pkt_hdr(skb, VRNIC_HDR_RETH);
	u64 va = vrnic_reth_va(reth), val;
	u32 rkey = vrnic_reth_rkey(reth);
	int err;

	if (va & 7 || vrnic_reth_len(reth) != sizeof(val) ||
	    vrnic_pkt(skb)->paylen != sizeof(val))
		return VRNIC_RESP_INV_REQ;
	memcpy(&val, vrnic_pkt_payload(skb), sizeof(val));
	/* Serialised with the atomics so neither sees a torn value. */
	spin_lock_bh(&vdev->atomic_lock);
	err = vrnic_resp_rkey_copy(qp, rkey, IB_ACCESS_REMOTE_WRITE, va, &val,
				   sizeof(val), VRNIC_DMA_FROM_DEVICE);
	spin_unlock_bh(&vdev->atomic_lock);
	if (err == -EAGAIN)
		return VRNIC_RESP_FAULT;
	return err ? VRNIC_RESP_ACCESS : VRNIC_RESP_OK;
}

/* The answer to a FLUSH at @psn: an RDMA READ response without payload. */
static void vrnic_resp_flush_answer(struct vrnic_qp *qp, u32 psn)
{
	struct sk_buff *skb;

	vrnic_resp_flush_ack(qp);
	skb = vrnic_pkt_build(qp, VRNIC_OP_RC_RDMA_READ_RESPONSE_ONLY, psn,
			      qp->attr.dest_qp_num, 0, false, false);
	if (!skb)
		return;		/* the requester's timer asks again */
	vrnic_aeth_set(vrnic_hdr_at(skb->data, VRNIC_HDR_AETH),
		       VRNIC_AETH_ACK | VRNIC_AETH_CREDITS_INVALID, qp->resp.msn);
	vrnic_pkt_send(qp, skb, &qp->attr.ah_attr, qp->attr.dest_qp_num);
}

/*
 * FLUSH (IBTA 1.5, memory placement extensions): what this QP placed
 * before it (all of it: requests execute in PSN order) becomes visible at
 * the placement type the FETH names, over the RETH's range or, at
 * selectivity level MR, all of the MR the rkey names.  The QP needs the
 * access flag of each type asked for (else an invalid request, as rxe
 * answers), and the MR or window the same flags (else a remote access
 * error).  vrnic places data with the CPU in host memory, so global
 * visibility is a store barrier.  Persistence is not offered: the device
 * does not advertise IB_DEVICE_FLUSH_PERSISTENT, so no MR holds that
 * access and such a FLUSH fails its rkey check.  The answer is an empty
 * RDMA READ response, as rxe (6.2 and later) answers; a FLUSH takes a
 * responder resource, and a duplicate of it is answered again.
 */
static enum vrnic_resp_verdict vrnic_resp_flush(struct vrnic_qp *qp,
						struct sk_buff *skb)
{
	struct vrnic_feth *feth = vrnic_pkt_hdr(skb, VRNIC_HDR_FETH);
	struct vrnic_reth *reth = vrnic_pkt_hdr(skb, VRNIC_HDR_RETH);
	unsigned int plt = vrnic_feth_plt(feth), sel = vrnic_feth_sel(feth);
	u32 psn = vrnic_pkt(skb)->psn;
	struct vrnic_rd_replay *r;
	struct vrnic_rkey rk;
	int access = 0;

	if (!plt || plt & ~(VRNIC_FLUSH_GLOBAL | VRNIC_FLUSH_PERSISTENT) ||
	    sel > VRNIC_FLUSH_MR)
		return VRNIC_RESP_INV_REQ;
	if (plt & VRNIC_FLUSH_GLOBAL)
		access |= VRNIC_ACCESS_FLUSH_GLOBAL;
	if (plt & VRNIC_FLUSH_PERSISTENT)
		access |= VRNIC_ACCESS_FLUSH_PERSISTENT;
	if ((qp->attr.qp_access_flags & access) != access)
		return VRNIC_RESP_INV_REQ;
	/* Level MR names no range: only the rkey and its rights count. */
	if (vrnic_resp_rkey_get(qp, vrnic_reth_rkey(reth), access,
				vrnic_reth_va(reth),
				sel == VRNIC_FLUSH_MR ? 0 : vrnic_reth_len(reth),
				&rk))
		return VRNIC_RESP_ACCESS;
	vrnic_rkey_put(&rk);
	/* The placements before it are seen before its answer is. */
	wmb();

	r = vrnic_resp_replay_slot(qp);
	r->kind = VRNIC_REPLAY_FLUSH;
	r->psn = psn;
	r->npsn = 1;
	qp->resp.msn++;
	qp->resp.epsn = vrnic_psn_next(psn);
	vrnic_resp_flush_answer(qp, psn);
	return VRNIC_RESP_ANSWERED;
}

/* A request with a PSN we already executed (IBA 9.9.2.1). */
static void vrnic_resp_duplicate(struct vrnic_qp *qp, struct sk_buff *skb)
{
	struct vrnic_dev *vdev = to_vdev(qp->ibqp.device);
	struct vrnic_pkt *pkt = vrnic_pkt(skb);
	u32 i;

	vrnic_count(vdev, VRNIC_CNT_DUP_REQ);
	if (pkt->flags & VRNIC_OPF_READ) {
		struct vrnic_reth *reth = vrnic_pkt_hdr(skb, VRNIC_HDR_RETH);
		u64 va = vrnic_reth_va(reth);
		u32 len = vrnic_reth_len(reth), rkey = vrnic_reth_rkey(reth);

		for (i = 0; i < VRNIC_MAX_RD_ATOMIC; i++) {
			if (vrnic_replay_read_match(&qp->replay[i], pkt->psn,
						    va, len, rkey, qp->mtu)) {
				vrnic_resp_read(qp, skb, true);
				return;
			}
		}
		/*
		 * Not a resend of any READ a requester within its
		 * max_rd_atomic can still be waiting for (IBA 9.9.2.1: a
		 * duplicate the responder cannot answer is dropped).
		 */
		vrnic_count(vdev, VRNIC_CNT_RX_DROP_DUP);
		return;
	}
	if (pkt->flags & (VRNIC_OPF_ATOMIC | VRNIC_OPF_FLUSH)) {
		for (i = 0; i < VRNIC_MAX_RD_ATOMIC; i++) {
			struct vrnic_rd_replay *r = &qp->replay[i];

			if (r->psn != pkt->psn)
				continue;
			if (r->kind == VRNIC_REPLAY_ATOMIC &&
			    (pkt->flags & VRNIC_OPF_ATOMIC)) {
				vrnic_resp_atomic_ack(qp, pkt->psn, r->orig);
				return;
			}
			/* Its placements are visible already: answer again. */
			if (r->kind == VRNIC_REPLAY_FLUSH &&
			    (pkt->flags & VRNIC_OPF_FLUSH)) {
				vrnic_resp_flush_answer(qp, pkt->psn);
				return;
			}
		}
		/*
		 * Not among the last VRNIC_MAX_RD_ATOMIC: a requester within
		 * its max_rd_atomic cannot be waiting for it any more.
		 */
		vrnic_count(vdev, VRNIC_CNT_RX_DROP_DUP);
		return;
	}
	/*
	 * SEND or WRITE: acknowledge what we have, execute nothing.  A
	 * go-back-N resend brings a run of these: one coalesced ACK answers
	 * the run.
	 */
	qp->resp.ack_pending = true;
	qp->resp.ack_psn = vrnic_psn_sub(qp->resp.epsn, 1);
}

/* UD: no PSN checked, nothing answered; a SEND that cannot land is dropped. */
static enum vrnic_resp_verdict
vrnic_resp_rx_ud(struct vrnic_qp *qp, struct sk_buff *skb)
{
	struct vrnic_dev *vdev = to_vdev(qp->ibqp.device);
	enum vrnic_resp_verdict v = VRNIC_RESP_DROP;

	if (vrnic_pkt(skb)->paylen <= qp->mtu)
		v = vrnic_resp_send(qp, skb);
	if (v == VRNIC_RESP_DROP)
		vrnic_count(vdev, VRNIC_CNT_RX_DROP_REQ);
	return v;
}

/*
 * A PSN past the expected one: a request was lost.  RC asks once for a
 * resend from epsn; UC drops.
 */
static enum vrnic_resp_verdict vrnic_resp_psn_gap(struct vrnic_qp *qp,
						  struct vrnic_pkt *pkt)
{
	vrnic_count(to_vdev(qp->ibqp.device), VRNIC_CNT_OUT_OF_SEQ);
	if (vrnic_resp_is_rc(qp)) {
		if (qp->resp.nak_sent)
			return VRNIC_RESP_DROP;
		qp->resp.nak_sent = true;
		vrnic_count(to_vdev(qp->ibqp.device), VRNIC_CNT_SEQ_NAK_SENT);
		vrnic_resp_send_ack(qp, VRNIC_AETH_NAK_PSN_SEQ_ERR,
				    qp->resp.epsn);
		return VRNIC_RESP_ANSWERED;
	}
	/*
	 * UC: abandon the message in progress (IBA 9.8.3); a receive WQE it
	 * had taken is reused, from its start, by the next.
	 */
	qp->resp.write_active = false;
	qp->resp.offset = 0;
	if (!(pkt->flags & VRNIC_OPF_FIRST))
		return VRNIC_RESP_DROP;
	qp->resp.epsn = pkt->psn;
	return VRNIC_RESP_OK;
}

/**
 * vrnic_resp_check_psn - check a request's PSN against the expected one
 * @qp:		the QP, RC or UC
 * @skb:	the request
 *
 * The PSN first (IBA 9.7.3.1.3): a packet out of sequence says nothing
 * about the request at the expected PSN, whatever else is wrong with it,
 * so it never takes the QP to ERR.
 *
 * Return: VRNIC_RESP_OK to execute the request; VRNIC_RESP_ANSWERED when
 * it was dealt with here (a duplicate, a sequence error NAK);
 * VRNIC_RESP_DROP to drop it.
 */
static enum vrnic_resp_verdict vrnic_resp_check_psn(struct vrnic_qp *qp,
						    struct sk_buff *skb)
{
	struct vrnic_pkt *pkt = vrnic_pkt(skb);
	s32 d = vrnic_psn_diff(pkt->psn, qp->resp.epsn);

	if (d < -(s32)vrnic_mutant(psn_window)) {
		if (!vrnic_resp_is_rc(qp))
			return VRNIC_RESP_DROP;
		vrnic_resp_duplicate(qp, skb);
		return VRNIC_RESP_ANSWERED;
	}
	if (d > 0) {
		enum vrnic_resp_verdict v = vrnic_resp_psn_gap(qp, pkt);

		if (v != VRNIC_RESP_OK)
			return v;
	}
	qp->resp.nak_sent = false;
	return VRNIC_RESP_OK;
}

/* A new READ request (not a duplicate): vrnic_resp_read(). */
static enum vrnic_resp_verdict vrnic_resp_read_new(struct vrnic_qp *qp,
						   struct sk_buff *skb)
{
	return vrnic_resp_read(qp, skb, false);
}

typedef enum vrnic_resp_verdict (*vrnic_resp_handler)(struct vrnic_qp *qp,
						       struct sk_buff *skb);

/*
 * The operation bits of the opcode table's flags (wire/vrnic_opcode.h),
 * one per request opcode, in bit order from VRNIC_OPF_SEND; each indexes
 * the responder's handler of that operation.
 */
#define VRNIC_RESP_OPS	(VRNIC_OPF_SEND | VRNIC_OPF_WRITE | VRNIC_OPF_READ | \
			 VRNIC_OPF_ATOMIC | VRNIC_OPF_ATOMIC_WRITE | \
			 VRNIC_OPF_FLUSH)
#define VRNIC_RESP_OP(bit)	((bit) - ilog2(VRNIC_OPF_SEND))

static const vrnic_resp_handler vrnic_resp_handlers[] = {
	[VRNIC_RESP_OP(ilog2(VRNIC_OPF_SEND))]		= vrnic_resp_send,
	[VRNIC_RESP_OP(ilog2(VRNIC_OPF_WRITE))]		= vrnic_resp_write,
	[VRNIC_RESP_OP(ilog2(VRNIC_OPF_READ))]		= vrnic_resp_read_new,
	[VRNIC_RESP_OP(ilog2(VRNIC_OPF_ATOMIC))]	= vrnic_resp_atomic,
	[VRNIC_RESP_OP(ilog2(VRNIC_OPF_ATOMIC_WRITE))]	= vrnic_resp_atomic_write,
	[VRNIC_RESP_OP(ilog2(VRNIC_OPF_FLUSH))]		= vrnic_resp_flush,
};

/*
 * A request message executed (its first packet; a duplicate is not
 * executed again): counted by operation under the names ConnectX gives
 * these counts (rx_write_requests...).
 */
static void vrnic_resp_count_request(struct vrnic_qp *qp, u32 op)
{
	struct vrnic_dev *vdev = to_vdev(qp->ibqp.device);

	if (op & VRNIC_OPF_WRITE)
		vrnic_count(vdev, VRNIC_CNT_RX_WRITE_REQ);
	else if (op & VRNIC_OPF_READ)
		vrnic_count(vdev, VRNIC_CNT_RX_READ_REQ);
	else if (op & VRNIC_OPF_ATOMIC)
		vrnic_count(vdev, VRNIC_CNT_RX_ATOMIC_REQ);
}

/* Execute the request at the expected PSN. */
static enum vrnic_resp_verdict vrnic_resp_execute(struct vrnic_qp *qp,
						  struct sk_buff *skb)
{
	struct vrnic_pkt *pkt = vrnic_pkt(skb);
	enum vrnic_resp_verdict v;
	vrnic_resp_handler h;
	u32 op;

	if (pkt->paylen > qp->mtu ||
	    (!(pkt->flags & VRNIC_OPF_LAST) && pkt->paylen != qp->mtu))
		return VRNIC_RESP_INV_REQ;	/* IBA 9.7.3.1.1: wrong sizes */

	op = pkt->flags & VRNIC_RESP_OPS;
	h = op ? vrnic_resp_handlers[VRNIC_RESP_OP(__ffs(op))] : NULL;
	if (!h)
		return VRNIC_RESP_INV_REQ;
	v = h(qp, skb);
	if ((v == VRNIC_RESP_OK || v == VRNIC_RESP_ANSWERED) &&
	    (pkt->flags & VRNIC_OPF_FIRST))
		vrnic_resp_count_request(qp, op);
	return v;
}

/* The request in @skb is done: expect the next PSN, ACK it if asked. */
static void vrnic_resp_done(struct vrnic_qp *qp, struct sk_buff *skb)
{
	struct vrnic_pkt *pkt = vrnic_pkt(skb);

	qp->resp.epsn = vrnic_psn_next(pkt->psn);
	if (pkt->flags & VRNIC_OPF_LAST)
		qp->resp.msn++;
	if (vrnic_resp_is_rc(qp) &&
	    vrnic_bth_ackreq((struct vrnic_bth *)skb->data)) {
		qp->resp.ack_pending = true;
		qp->resp.ack_psn = pkt->psn;
		/* Keep the requester's window moving in a long batch. */
		if (vrnic_psn_diff(pkt->psn, qp->resp.acked_psn) >=
		    VRNIC_ACK_COALESCE)
			vrnic_resp_flush_ack(qp);
	}
}

/* The request at @psn failed with @v: NAK it on RC, drop it on UC. */
static void vrnic_resp_error(struct vrnic_qp *qp, u32 psn,
			     enum vrnic_resp_verdict v)
{
	struct vrnic_dev *vdev = to_vdev(qp->ibqp.device);
	u8 syndrome;

	syndrome = v == VRNIC_RESP_ACCESS ? VRNIC_AETH_NAK_REM_ACCESS_ERR :
		   v == VRNIC_RESP_OP_ERR ? VRNIC_AETH_NAK_REM_OP_ERR :
					    VRNIC_AETH_NAK_INVALID_REQ;
	if (v == VRNIC_RESP_ACCESS) {
		vrnic_count(vdev, VRNIC_CNT_REM_ACCESS_ERR);
		vrnic_count(vdev, VRNIC_CNT_RESP_REM_ACCESS);
	}
	if (vrnic_resp_is_rc(qp)) {
		vrnic_resp_send_ack(qp, syndrome, psn);
		/*
		 * IBA 9.9.3.1.2-3: after a class B/C/D responder error the QP
		 * goes to ERR, so nothing that was already in flight behind
		 * the bad request executes.
		 */
		vrnic_qp_error(qp, VRNIC_QP_CAUSE_ERROR);
	} else {
		vrnic_count(vdev, VRNIC_CNT_RX_DROP_REQ);
	}
}

/* Answer a request as @v, what checking or executing it asked for. */
static void vrnic_resp_answer(struct vrnic_qp *qp, struct sk_buff *skb,
			      enum vrnic_resp_verdict v)
{
	struct vrnic_dev *vdev = to_vdev(qp->ibqp.device);
	struct vrnic_pkt *pkt = vrnic_pkt(skb);

	switch (v) {
	case VRNIC_RESP_OK:
		vrnic_resp_done(qp, skb);
		break;
	case VRNIC_RESP_RNR:
		vrnic_count(vdev, VRNIC_CNT_RNR_NAK_SENT);
		vrnic_resp_send_ack(qp, VRNIC_AETH_RNR_NAK |
				    (qp->attr.min_rnr_timer & VRNIC_AETH_VALUE_MASK),
				    pkt->psn);
		break;
	case VRNIC_RESP_ANSWERED:
		break;
	case VRNIC_RESP_DROP:
		vrnic_count(vdev, VRNIC_CNT_RX_DROP_REQ);
		break;
	default:
		vrnic_resp_error(qp, pkt->psn, v);
		break;
	}
}

/**
 * vrnic_resp_rx - take one request packet (consumed, or put back at the
 *	head of qp->rx when it met a page fault: qp->pf)
 * @qp:		the QP, its engines running
 * @skb:	the request, parsed (struct vrnic_pkt)
 */
void vrnic_resp_rx(struct vrnic_qp *qp, struct sk_buff *skb)
{
	enum vrnic_resp_verdict v;

	vrnic_engines_assert_held(qp);

	if (vrnic_qp_is_ud(qp)) {
		v = vrnic_resp_rx_ud(qp, skb);
	} else {
		v = vrnic_resp_check_psn(qp, skb);
		if (v == VRNIC_RESP_OK)
			v = vrnic_resp_execute(qp, skb);
		if (v != VRNIC_RESP_FAULT)
			vrnic_resp_answer(qp, skb, v);
	}
	/* Nothing was executed: the packet is the next one taken. */
	if (v == VRNIC_RESP_FAULT) {
		skb_queue_head(&qp->rx, skb);
		return;
	}
	kfree_skb(skb);
}
