// SPDX-License-Identifier: GPL-2.0-only
/*
 * vrnic: driver detail for the resource tracker (rdma res show ... -dd).
 *
 * Each callback copies what it reports into a snapshot on the stack, under
 * the lock that guards it, and only then puts the netlink attributes: the
 * puts may fail with -EMSGSIZE, which goes back to the core so that it
 * retries the object in the next message.  The core holds a restrack
 * reference across the call and drains those references before the driver
 * destroys the object, so the object's queues and tables are there.
 *
 * Adding a field is one more member in a snapshot and one more put in the
 * matching vrnic_res_*_put(); the hardware model's views (QPC and MR cache
 * residency, while clock.mode accounts and the caches are in use) joined
 * that way.
 *
 * Copyright (c) 2026 The vrnic authors
 */

#include <linux/capability.h>
#include <linux/user_namespace.h>
#include <net/netlink.h>
#include <rdma/restrack.h>
#include <uapi/rdma/rdma_netlink.h>

#include "vrnic.h"
#include "vrnic_mr.h"
#include "vrnic_qp.h"
#include "vrnic_verbs.h"
#include "hw/mrc.h"
#include "hw/qpc.h"
#include "obj/vrnic_qp_obj.h"
#include "obs/vrnic_restrack.h"

/* Open the driver attribute table, let @put fill it, close or cancel it. */
static int vrnic_res_table(struct sk_buff *msg, const void *snap,
			   int (*put)(struct sk_buff *msg, const void *snap))
{
	struct nlattr *table;
	int err;

	table = nla_nest_start_noflag(msg, RDMA_NLDEV_ATTR_DRIVER);
	if (!table)
		return -EMSGSIZE;
	err = put(msg, snap);
	if (err) {
		nla_nest_cancel(msg, table);
		return err;
	}
	nla_nest_end(msg, table);
	return 0;
}

/* QP */

struct vrnic_res_qp {
	enum ib_qp_type		type;
	enum ib_qp_state	state;
	struct ib_qp_attr	attr;	/* no AV: only the scalars are read */
	bool			srq;
	u32			sq_outstanding;	/* posted, not completed */
	u32			sq_depth;
	u32			rq_posted;
	u32			rq_depth;
	u32			mtu;
	u32			req_psn;
	u32			una_psn;
	u32			retry_left;
	u32			rnr_retry_left;
	u32			resp_epsn;
	u32			resp_msn;
	bool			model;		/* the clock accounts: */
	bool			qpc_cached;	/* the context is on chip */
};

/*
 * modify_qp, and the reset of the engine state on entry to RESET, RTR and
 * RTS, run under qp->state_lock; the engines update their PSNs and retry
 * counts in the QP's work without it, word by word, so those are read once
 * each.  The queues' buffers live until destroy.
 */
static void vrnic_res_qp_snapshot(struct vrnic_qp *qp, struct vrnic_res_qp *s)
{
	const struct ib_qp_attr *a = &qp->attr;
	unsigned long flags;

	s->type = qp->ibqp.qp_type;
	s->srq = qp->srq;
	s->sq_depth = qp->sq.queue.mask;
	s->rq_depth = qp->srq ? 0 : qp->rq.queue.mask;

	spin_lock_irqsave(&qp->state_lock, flags);
	s->state = qp->state;
	s->attr.qkey = a->qkey;
	s->attr.dest_qp_num = a->dest_qp_num;
	s->attr.timeout = a->timeout;
	s->attr.retry_cnt = a->retry_cnt;
	s->attr.rnr_retry = a->rnr_retry;
	s->attr.max_rd_atomic = a->max_rd_atomic;
	s->attr.max_dest_rd_atomic = a->max_dest_rd_atomic;
	s->attr.min_rnr_timer = a->min_rnr_timer;
	s->sq_outstanding = vrnic_queue_count(&qp->sq.queue);
	s->rq_posted = qp->srq ? 0 : vrnic_queue_count(&qp->rq.queue);
	s->mtu = READ_ONCE(qp->mtu);
	s->req_psn = READ_ONCE(qp->req.psn);
	s->una_psn = READ_ONCE(qp->comp.una);
	s->retry_left = READ_ONCE(qp->comp.retry);
	s->rnr_retry_left = READ_ONCE(qp->comp.rnr_retry);
	s->resp_epsn = READ_ONCE(qp->resp.epsn);
	s->resp_msn = READ_ONCE(qp->resp.msn);
	spin_unlock_irqrestore(&qp->state_lock, flags);
	s->model = vrnic_model_qpc_resident(&to_vdev(qp->ibqp.device)->model,
					    qp->ibqp.qp_num, &s->qpc_cached);
}

/*
 * What a QP reports depends on how far it got: the responder's state exists
 * from RTR, the requester's from RTS (ERR keeps the last of both).  A QP in
 * RESET or INIT reports its queues only.
 */
static int vrnic_res_qp_put(struct sk_buff *msg, const void *snap)
{
	const struct vrnic_res_qp *s = snap;
	bool rc = s->type == IB_QPT_RC;
	bool conn = rc || s->type == IB_QPT_UC;
	bool rtr = s->state >= IB_QPS_RTR;
	bool rts = s->state >= IB_QPS_RTS;

	if (rdma_nl_put_driver_u32(msg, "sq_outstanding", s->sq_outstanding) ||
	    rdma_nl_put_driver_u32(msg, "sq_depth", s->sq_depth))
		return -EMSGSIZE;
	if (!s->srq &&
	    (rdma_nl_put_driver_u32(msg, "rq_posted", s->rq_posted) ||
	     rdma_nl_put_driver_u32(msg, "rq_depth", s->rq_depth)))
		return -EMSGSIZE;
	if (!conn && s->state != IB_QPS_RESET &&
	    rdma_nl_put_driver_u32_hex(msg, "qkey", s->attr.qkey))
		return -EMSGSIZE;
	if ((conn ? rtr : rts) &&
	    rdma_nl_put_driver_u32(msg, "mtu", s->mtu))
		return -EMSGSIZE;
	if (conn && rtr &&
	    (rdma_nl_put_driver_u32(msg, "dest_qpn", s->attr.dest_qp_num) ||
	     rdma_nl_put_driver_u32(msg, "resp_epsn", s->resp_epsn)))
		return -EMSGSIZE;
	if (rc && rtr &&
	    (rdma_nl_put_driver_u32(msg, "resp_msn", s->resp_msn) ||
	     rdma_nl_put_driver_u32(msg, "max_dest_rd_atomic",
				    s->attr.max_dest_rd_atomic) ||
	     rdma_nl_put_driver_u32(msg, "min_rnr_timer",
				    s->attr.min_rnr_timer)))
		return -EMSGSIZE;
	if (rts && rdma_nl_put_driver_u32(msg, "req_psn", s->req_psn))
		return -EMSGSIZE;
	if (rc && rts &&
	    (rdma_nl_put_driver_u32(msg, "una_psn", s->una_psn) ||
	     rdma_nl_put_driver_u32(msg, "retry_left", s->retry_left) ||
	     rdma_nl_put_driver_u32(msg, "retry_cnt", s->attr.retry_cnt) ||
	     rdma_nl_put_driver_u32(msg, "rnr_retry_left",
				    s->rnr_retry_left) ||
	     rdma_nl_put_driver_u32(msg, "rnr_retry", s->attr.rnr_retry) ||
	     rdma_nl_put_driver_u32(msg, "timeout", s->attr.timeout) ||
	     rdma_nl_put_driver_u32(msg, "max_rd_atomic",
				    s->attr.max_rd_atomic)))
		return -EMSGSIZE;
	if (s->model && rdma_nl_put_driver_u32(msg, "qpc_cached", s->qpc_cached))
		return -EMSGSIZE;
	return 0;
}

int vrnic_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *ibqp)
{
	struct vrnic_res_qp s = {};

	vrnic_res_qp_snapshot(to_vqp(ibqp), &s);
	return vrnic_res_table(msg, &s, vrnic_res_qp_put);
}

/* MR */

struct vrnic_res_mr {
	enum vrnic_mr_type	type;
	enum vrnic_mr_state	state;
	u32			access;
	u32			npages;
	u32			max_pages;
	unsigned int		page_shift;
	u64			iova;
	u64			length;
	bool			show_iova;
	bool			model;		/* the clock accounts: */
	bool			mrc_cached;	/* the translation is on chip */
};

static const char * const vrnic_mr_type_names[] = {
	[VRNIC_MR_DMA]	= "dma",
	[VRNIC_MR_USER]	= "user",
	[VRNIC_MR_FRWR]	= "frwr",
	[VRNIC_MR_ODP]	= "odp",
};

/*
 * A user or DMA MR does not change after registration.  A fast-reg MR's
 * page list changes with map_mr_sg and its state and access with REG_MR
 * and invalidation, none of which the core serialises against us: each
 * word is read once, and the result is a recent view, not an atomic one.
 */
static void vrnic_res_mr_snapshot(struct vrnic_mr *mr, struct vrnic_res_mr *s)
{
	s->type = mr->type;
	s->state = READ_ONCE(mr->state);
	s->access = READ_ONCE(mr->access);
	s->npages = READ_ONCE(mr->npages);
	s->max_pages = mr->max_pages;
	s->page_shift = READ_ONCE(mr->page_shift);
	s->iova = READ_ONCE(mr->ibmr.iova);
	s->length = READ_ONCE(mr->ibmr.length);
	/*
	 * Like the keys the core prints, addresses are for the admin only;
	 * asking is no denial worth auditing.
	 */
	s->show_iova = ns_capable_noaudit(&init_user_ns, CAP_NET_ADMIN);
	s->model = mr->type != VRNIC_MR_DMA &&
		   vrnic_model_mr_resident(&to_vdev(mr->ibmr.device)->model,
					   mr->ibmr.lkey, &s->mrc_cached);
}

static int vrnic_res_mr_put(struct sk_buff *msg, const void *snap)
{
	const struct vrnic_res_mr *s = snap;
	bool frwr = s->type == VRNIC_MR_FRWR;
	bool mapped = s->type == VRNIC_MR_USER || s->type == VRNIC_MR_ODP ||
		      (frwr && s->npages);

	/* Every type has its name: a NULL here is an oops in the netlink put. */
	BUILD_BUG_ON(ARRAY_SIZE(vrnic_mr_type_names) != VRNIC_MR_ODP + 1);
	if (rdma_nl_put_driver_string(msg, "type",
				      vrnic_mr_type_names[s->type]) ||
	    rdma_nl_put_driver_string(msg, "state", s->state == VRNIC_MR_VALID ?
				      "valid" : "invalid") ||
	    rdma_nl_put_driver_u32_hex(msg, "access", s->access))
		return -EMSGSIZE;
	/* A DMA MR has no translation table: it spans all of memory. */
	if (s->type != VRNIC_MR_DMA &&
	    rdma_nl_put_driver_u32(msg, "mtt_entries", s->max_pages))
		return -EMSGSIZE;
	if (frwr && rdma_nl_put_driver_u32(msg, "mapped_pages", s->npages))
		return -EMSGSIZE;
	if (mapped &&
	    (rdma_nl_put_driver_u64(msg, "page_size", 1ULL << s->page_shift) ||
	     rdma_nl_put_driver_u64(msg, "length", s->length)))
		return -EMSGSIZE;
	if (mapped && s->show_iova &&
	    rdma_nl_put_driver_u64_hex(msg, "iova", s->iova))
		return -EMSGSIZE;
	if (s->model && rdma_nl_put_driver_u32(msg, "mrc_cached", s->mrc_cached))
		return -EMSGSIZE;
	return 0;
}

int vrnic_fill_res_mr_entry(struct sk_buff *msg, struct ib_mr *ibmr)
{
	struct vrnic_res_mr s = {};

	vrnic_res_mr_snapshot(to_vmr(ibmr), &s);
	return vrnic_res_table(msg, &s, vrnic_res_mr_put);
}

/* CQ */

struct vrnic_res_cq {
	u32	depth;
	u32	used;
	u8	notify;
	bool	overflowed;
	bool	user;
};

static const char *vrnic_cq_notify_name(u8 notify)
{
	switch (notify) {
	case IB_CQ_SOLICITED:
		return "solicited";
	case IB_CQ_NEXT_COMP:
		return "next";
	default:
		return "none";
	}
}

/* resize_cq swaps the ring under cq->lock. */
static void vrnic_res_cq_snapshot(struct vrnic_cq *cq, struct vrnic_res_cq *s)
{
	unsigned long flags;

	spin_lock_irqsave(&cq->lock, flags);
	s->depth = cq->queue.mask;
	s->used = vrnic_queue_count(&cq->queue);
	s->notify = cq->notify;
	s->overflowed = cq->overflowed;
	s->user = vrnic_queue_user(&cq->queue);
	spin_unlock_irqrestore(&cq->lock, flags);
}

static int vrnic_res_cq_put(struct sk_buff *msg, const void *snap)
{
	const struct vrnic_res_cq *s = snap;

	if (rdma_nl_put_driver_u32(msg, "depth", s->depth) ||
	    rdma_nl_put_driver_u32(msg, "used", s->used) ||
	    rdma_nl_put_driver_string(msg, "armed",
				      vrnic_cq_notify_name(s->notify)) ||
	    rdma_nl_put_driver_u32(msg, "overflowed", s->overflowed) ||
	    rdma_nl_put_driver_string(msg, "ring", s->user ? "user" : "kernel"))
		return -EMSGSIZE;
	return 0;
}

int vrnic_fill_res_cq_entry(struct sk_buff *msg, struct ib_cq *ibcq)
{
	struct vrnic_res_cq s = {};

	vrnic_res_cq_snapshot(to_vcq(ibcq), &s);
	return vrnic_res_table(msg, &s, vrnic_res_cq_put);
}
