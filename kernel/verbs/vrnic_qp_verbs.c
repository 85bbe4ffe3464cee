// SPDX-License-Identifier: GPL-2.0-only
/*
 * vrnic: the QP verbs: create, modify (the QP state machine, IBA 10.3),
 * query and destroy.  What runs a QP is the execution layer
 * (exec/vrnic_exec.c).
 *
 * Lock order: qp->state_lock, then a work queue's lock, then a CQ's lock.
 *
 * Copyright (c) 2026 The vrnic authors
 */

#include <rdma/ib_mad.h>
#include <rdma/uverbs_ioctl.h>

#include <linux/delay.h>
#include <linux/ip.h>
#include <linux/sched/clock.h>
#include <net/ipv6.h>

#include "vrnic.h"
#include "vrnic_qp.h"
#include "vrnic_verbs.h"
#include "engine/vrnic_comp.h"
#include "engine/vrnic_req.h"
#include "engine/vrnic_resp.h"
#include "exec/vrnic_exec.h"
#include "hw/model.h"
#include "hw/qpc.h"
#include "mem/vrnic_mw.h"
#include "net/vrnic_net.h"
#include "obj/vrnic_qp_obj.h"
#include "obj/vrnic_queue.h"
#include "verbs/vrnic_qp_verbs.h"
#include "wire/vrnic_psn.h"

static int vrnic_qp_check_cap(struct vrnic_dev *vdev, struct ib_qp_init_attr *init)
{
	struct ib_qp_cap *cap = &init->cap;

	if (cap->max_send_wr > vdev->attr.max_qp_wr ||
	    cap->max_send_sge > vdev->attr.max_send_sge ||
	    cap->max_inline_data > VRNIC_MAX_INLINE)
		return -EINVAL;
	if (!init->srq && (cap->max_recv_wr > vdev->attr.max_qp_wr ||
			   cap->max_recv_sge > vdev->attr.max_recv_sge))
		return -EINVAL;
	return 0;
}

/* The type, flags, CQs and sizes a QP is asked for: 0 or -errno. */
static int vrnic_qp_check_init(struct vrnic_dev *vdev,
			       struct ib_qp_init_attr *init,
			       struct ib_udata *udata)
{
	switch (init->qp_type) {
	case IB_QPT_RC:
	case IB_QPT_UC:
	case IB_QPT_UD:
		break;
	case IB_QPT_GSI:
		if (udata)
			return -EINVAL;
		break;
	default:
		return -EOPNOTSUPP;
	}
	if (init->create_flags)
		return -EOPNOTSUPP;
	if (!init->send_cq || (!init->srq && !init->recv_cq))
		return -EINVAL;
	if (udata && udata->outlen < sizeof(struct rxe_create_qp_resp))
		return -EINVAL;
	return vrnic_qp_check_cap(vdev, init);
}

/* Locks, references and RESET: the QP before anything is allocated. */
static void vrnic_qp_init_fields(struct vrnic_qp *qp,
				 const struct ib_qp_init_attr *init,
				 struct ib_udata *udata)
{
	refcount_set(&qp->ref->users, 1);
	init_completion(&qp->ref->done);
	qp->ref->qp = qp;
	spin_lock_init(&qp->state_lock);
	seqcount_spinlock_init(&qp->addr_seq, &qp->state_lock);
	spin_lock_init(&qp->sq.lock);
	spin_lock_init(&qp->rq.lock);
	qp->state = IB_QPS_RESET;
	qp->attr.qp_state = IB_QPS_RESET;
	qp->is_user = udata;
	qp->sig_all = init->sq_sig_type == IB_SIGNAL_ALL_WR;
	qp->scq = to_vcq(init->send_cq);
	qp->rcq = init->recv_cq ? to_vcq(init->recv_cq) : NULL;
	qp->srq = init->srq ? to_vsrq(init->srq) : NULL;
	qp->mtu = 256;
}

/*
 * Free the QP's queues and what the engines keep beside them: any part of
 * what vrnic_qp_alloc_queues() allocated (the QP starts zeroed).
 */
static void vrnic_qp_free_queues(struct vrnic_qp *qp)
{
	kfree(qp->replay);
	kvfree(qp->swqe);
	if (!qp->srq)
		vrnic_queue_cleanup(&qp->rq.queue);
	vrnic_queue_cleanup(&qp->sq.queue);
}

/* The send queue and the requester's context of each of its WQEs. */
static int vrnic_qp_alloc_sq(struct vrnic_qp *qp, struct vrnic_dev *vdev,
			     const struct ib_qp_init_attr *init, bool user,
			     u32 *sq_wr)
{
	size_t payload;
	int err;

	/* A send WQE holds the larger of its SGE list and its inline data. */
	payload = max_t(size_t, init->cap.max_send_sge * sizeof(struct rxe_sge),
			init->cap.max_inline_data);
	payload = max_t(size_t, payload, sizeof(struct rxe_sge));
	*sq_wr = max_t(u32, init->cap.max_send_wr, 1);
	err = vrnic_queue_init(&qp->sq.queue, sq_wr,
			       sizeof(struct rxe_send_wqe) + payload,
			       user ? VRNIC_QUEUE_FROM_USER : VRNIC_QUEUE_FROM_KERNEL);
	if (err)
		return err;
	qp->swqe = kvcalloc(qp->sq.queue.mask + 1, sizeof(*qp->swqe), GFP_KERNEL);
	if (!qp->swqe)
		return -ENOMEM;
	/* The queue rounded the element up; hand the room to the user. */
	payload = vrnic_queue_elem_size(&qp->sq.queue) - sizeof(struct rxe_send_wqe);
	qp->sq.max_sge = min_t(u32, payload / sizeof(struct rxe_sge),
			       vdev->attr.max_send_sge);
	qp->sq.max_inline = min_t(u32, payload, VRNIC_MAX_INLINE);
	return 0;
}

/*
 * The SQ, the responder's record of the READs and atomics it executed
 * (RC), and the RQ unless an SRQ serves the QP.  On an error, what was
 * allocated is freed.  @sq_wr, @rq_wr: the slots given.
 */
static int vrnic_qp_alloc_queues(struct vrnic_qp *qp, struct vrnic_dev *vdev,
				 const struct ib_qp_init_attr *init, bool user,
				 u32 *sq_wr, u32 *rq_wr)
{
	int err;

	err = vrnic_qp_alloc_sq(qp, vdev, init, user, sq_wr);
	if (!err && init->qp_type == IB_QPT_RC) {
		qp->replay = kcalloc(VRNIC_MAX_RD_ATOMIC, sizeof(*qp->replay),
				     GFP_KERNEL);
		if (!qp->replay)
			err = -ENOMEM;
	}
	if (!err && !qp->srq) {
		*rq_wr = max_t(u32, init->cap.max_recv_wr, 1);
		qp->rq.max_sge = max_t(u32, init->cap.max_recv_sge, 1);
		err = vrnic_queue_init(&qp->rq.queue, rq_wr,
				       vrnic_recv_wqe_size(qp->rq.max_sge),
				       user ? VRNIC_QUEUE_FROM_USER :
					      VRNIC_QUEUE_FROM_KERNEL);
	}
	if (err)
		vrnic_qp_free_queues(qp);
	return err;
}

/* Tell librxe where to map the queues it shares with the QP. */
static int vrnic_qp_tell_user(struct vrnic_qp *qp, struct ib_udata *udata)
{
	struct ib_ucontext *uctx = vrnic_udata_uctx(udata);
	struct rxe_create_qp_resp resp = {};
	int err = 0;

	if (!qp->srq)
		err = vrnic_queue_mmap_info(&qp->rq.queue, uctx, &resp.rq_mi);
	err = err ?: vrnic_queue_mmap_info(&qp->sq.queue, uctx, &resp.sq_mi);
	return err ?: ib_copy_to_udata(udata, &resp, sizeof(resp));
}

/* Give the QP its number: from here the receive path can find it. */
static int vrnic_qp_publish(struct vrnic_dev *vdev, struct vrnic_qp *qp,
			    bool gsi, u32 *qpn)
{
	int err;

	if (gsi) {
		*qpn = 1;
		return xa_insert(&vdev->qps, *qpn, qp->ref, GFP_KERNEL);
	}
	err = xa_alloc_cyclic(&vdev->qps, qpn, qp->ref,
			      XA_LIMIT(VRNIC_MIN_QPN, VRNIC_MAX_QPN),
			      &vdev->next_qpn, GFP_KERNEL);
	return err < 0 ? err : 0;
}

int vrnic_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		    struct ib_udata *udata)
{
	struct vrnic_dev *vdev = to_vdev(ibqp->device);
	struct vrnic_qp *qp = to_vqp(ibqp);
	bool gsi = init->qp_type == IB_QPT_GSI;
	u32 sq_wr, rq_wr = 0, qpn;
	int err;

	err = vrnic_qp_check_init(vdev, init, udata);
	if (err)
		return err;
	qp->ref = kmalloc(sizeof(*qp->ref), GFP_KERNEL);
	if (!qp->ref)
		return -ENOMEM;
	/* A context on the modeled NIC (qpc.mode onchip has a limit). */
	err = vrnic_model_qp_create(&vdev->model, gsi, &vdev->ibdev.dev);
	if (err)
		goto err_ref;
	vrnic_qp_init_fields(qp, init, udata);
	/* RC and UC have one address vector: their route is kept. */
	err = vrnic_path_init(&qp->path, vdev, init->qp_type == IB_QPT_RC ||
			      init->qp_type == IB_QPT_UC);
	if (err)
		goto err_model;
	vrnic_exec_qp_init(qp);
	err = vrnic_qp_alloc_queues(qp, vdev, init, udata, &sq_wr, &rq_wr);
	if (err)
		goto err_path;
	err = udata ? vrnic_qp_tell_user(qp, udata) : 0;
	/* Last: from here the receive path can find the QP. */
	err = err ?: vrnic_qp_publish(vdev, qp, gsi, &qpn);
	if (err)
		goto err_queues;
	ibqp->qp_num = qpn;

	init->cap.max_send_wr = sq_wr;
	init->cap.max_send_sge = qp->sq.max_sge;
	init->cap.max_inline_data = qp->sq.max_inline;
	if (!qp->srq) {
		init->cap.max_recv_wr = rq_wr;
		init->cap.max_recv_sge = qp->rq.max_sge;
	}
	return 0;

err_queues:
	vrnic_qp_free_queues(qp);
err_path:
	vrnic_path_fini(&qp->path);
err_model:
	/* No QPN yet: QP 0 is never a vrnic QP, so nothing is uncached. */
	vrnic_model_qp_destroy(&vdev->model, 0, gsi);
err_ref:
	kfree(qp->ref);
	return err;
}

static int vrnic_qp_check_attr(const struct ib_device_attr *dattr,
			       const struct ib_qp_attr *attr, int mask)
{
	if ((mask & IB_QP_PORT) && attr->port_num != VRNIC_PORT)
		return -EINVAL;
	if ((mask & IB_QP_PKEY_INDEX) && attr->pkey_index >= VRNIC_PKEY_TBL_LEN)
		return -EINVAL;
	if ((mask & IB_QP_PATH_MTU) &&
	    (attr->path_mtu < IB_MTU_256 || attr->path_mtu > IB_MTU_4096))
		return -EINVAL;
	if ((mask & IB_QP_MAX_QP_RD_ATOMIC) &&
	    attr->max_rd_atomic > dattr->max_qp_init_rd_atom)
		return -EINVAL;
	if ((mask & IB_QP_MAX_DEST_RD_ATOMIC) &&
	    attr->max_dest_rd_atomic > dattr->max_qp_rd_atom)
		return -EINVAL;
	if ((mask & IB_QP_TIMEOUT) && attr->timeout > 31)
		return -EINVAL;
	if ((mask & IB_QP_RETRY_CNT) && attr->retry_cnt > 7)
		return -EINVAL;
	if ((mask & IB_QP_RNR_RETRY) && attr->rnr_retry > 7)
		return -EINVAL;
	if ((mask & IB_QP_MIN_RNR_TIMER) && attr->min_rnr_timer > 31)
		return -EINVAL;
	if (mask & IB_QP_AV) {
		/* RoCE addresses by GID: a GRH and a resolved source GID. */
		if (!(rdma_ah_get_ah_flags(&attr->ah_attr) & IB_AH_GRH) ||
		    !attr->ah_attr.grh.sgid_attr)
			return -EINVAL;
	}
	/*
	 * No alternate path: on RoCE ib_core refuses IB_QP_ALT_PATH itself
	 * (-EINVAL, _ib_modify_qp()), before a driver sees it.  With no
	 * alternate path loaded the migration state can only be MIGRATED
	 * (IBA 17.2.8): a consumer that sets it so, as many copy it from
	 * an attribute template, is answered as on rxe; ARMED and REARM,
	 * which arm a path that cannot exist, are refused.
	 */
	if (mask & IB_QP_ALT_PATH)
		return -EOPNOTSUPP;
	if ((mask & IB_QP_PATH_MIG_STATE) &&
	    attr->path_mig_state != IB_MIG_MIGRATED)
		return -EINVAL;
	return 0;
}

/**
 * vrnic_qp_modify_check - may modify_qp do this?
 * @dattr:	the device's attributes (its limits)
 * @state:	the QP's current state
 * @type:	the QP's type
 * @attr:	the attributes asked for
 * @mask:	which of them
 *
 * The QP state table of IBA 10.3.1 (through ib_modify_qp_is_ok(): which
 * transitions exist and which attributes each requires or allows) plus
 * vrnic's own limits.  Pure: KUnit tests it without a device.
 * Return: 0, -EINVAL, or -EOPNOTSUPP for what vrnic does not offer.
 */
int vrnic_qp_modify_check(const struct ib_device_attr *dattr,
			  enum ib_qp_state state, enum ib_qp_type type,
			  const struct ib_qp_attr *attr, int mask)
{
	enum ib_qp_state cur, new;
	int err;

	if (mask & ~IB_QP_ATTR_STANDARD_BITS)
		return -EOPNOTSUPP;
	err = vrnic_qp_check_attr(dattr, attr, mask);
	if (err)
		return err;
	cur = (mask & IB_QP_CUR_STATE) ? attr->cur_qp_state : state;
	new = (mask & IB_QP_STATE) ? attr->qp_state : cur;
	/* IBA 11.2.4.2 (C11-10): a given current state must be right. */
	if (cur != state && !(cur == IB_QPS_SQE && state == IB_QPS_RTS))
		return -EINVAL;
	if (!ib_modify_qp_is_ok(cur, new, type, mask))
		return -EINVAL;
	return 0;
}

/*
 * Engine state on entering a state.  Caller holds qp->state_lock, and
 * for RESET the engines are held (vrnic_qp_engines_hold()); for the
 * others they have nothing to work on yet (INIT takes no packet, RTR
 * sends nothing but answers), so it is not racing.
 */
static void vrnic_qp_enter(struct vrnic_qp *qp, enum ib_qp_state new)
{
	struct vrnic_dev *vdev = to_vdev(qp->ibqp.device);
	enum ib_mtu mtu = vrnic_active_mtu(vdev);

	switch (new) {
	case IB_QPS_RESET:
		vrnic_req_reset(qp);
		vrnic_comp_reset(qp);
		vrnic_resp_reset(qp);
		break;
	case IB_QPS_RTR:
		if (qp->ibqp.qp_type == IB_QPT_RC || qp->ibqp.qp_type == IB_QPT_UC)
			mtu = min(mtu, qp->attr.path_mtu ? qp->attr.path_mtu : mtu);
		qp->mtu = ib_mtu_enum_to_int(mtu);
		vrnic_resp_start(qp);
		break;
	case IB_QPS_RTS:
		if (vrnic_qp_is_ud(qp))
			qp->mtu = ib_mtu_enum_to_int(mtu);
		if (qp->state == IB_QPS_RTR) {
			vrnic_req_start(qp);
			vrnic_comp_start(qp);
		}
		break;
	default:
		break;
	}
}

/* Copy what modify_qp set into the QP.  Caller holds qp->state_lock. */
static void vrnic_qp_store_attr(struct vrnic_qp *qp, struct ib_qp_attr *attr,
				int mask)
{
	struct ib_qp_attr *a = &qp->attr;

	if (mask & IB_QP_ACCESS_FLAGS)
		a->qp_access_flags = attr->qp_access_flags;
	if (mask & IB_QP_PKEY_INDEX)
		a->pkey_index = attr->pkey_index;
	if (mask & IB_QP_PORT)
		a->port_num = attr->port_num;
	if (mask & IB_QP_QKEY)
		a->qkey = attr->qkey;
	if (mask & IB_QP_PATH_MTU)
		a->path_mtu = attr->path_mtu;
	if (mask & IB_QP_TIMEOUT)
		a->timeout = attr->timeout;
	if (mask & IB_QP_RETRY_CNT)
		a->retry_cnt = attr->retry_cnt;
	if (mask & IB_QP_RNR_RETRY)
		a->rnr_retry = attr->rnr_retry;
	if (mask & IB_QP_RQ_PSN)
		a->rq_psn = attr->rq_psn & 0xffffff;
	if (mask & IB_QP_MAX_QP_RD_ATOMIC)
		a->max_rd_atomic = attr->max_rd_atomic;
	if (mask & IB_QP_MIN_RNR_TIMER)
		a->min_rnr_timer = attr->min_rnr_timer;
	if (mask & IB_QP_SQ_PSN)
		a->sq_psn = attr->sq_psn & 0xffffff;
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC)
		a->max_dest_rd_atomic = attr->max_dest_rd_atomic;
	if (mask & IB_QP_DEST_QPN)
		a->dest_qp_num = attr->dest_qp_num & 0xffffff;
	/* The core takes it with RTS->SQD only: that drain's event. */
	if (mask & IB_QP_EN_SQD_ASYNC_NOTIFY)
		WRITE_ONCE(a->en_sqd_async_notify,
			   !!attr->en_sqd_async_notify);
	else if ((mask & IB_QP_STATE) && attr->qp_state == IB_QPS_SQD &&
		 qp->state != IB_QPS_SQD)
		WRITE_ONCE(a->en_sqd_async_notify, 0);
}

/*
 * Install the address vector in @av, handing the replaced one back in
 * @av (its source GID reference is dropped by the caller, outside the
 * lock).  Caller holds qp->state_lock, and the engines are held.
 */
static void vrnic_qp_swap_av(struct vrnic_qp *qp, struct rdma_ah_attr *av)
{
	swap(*av, qp->attr.ah_attr);
	vrnic_path_reset_route(&qp->path);
	write_seqcount_begin(&qp->addr_seq);
	memcpy(&qp->local_addr, qp->attr.ah_attr.grh.sgid_attr->gid.raw,
	       sizeof(qp->local_addr));
	memcpy(&qp->peer_addr, qp->attr.ah_attr.grh.dgid.raw,
	       sizeof(qp->peer_addr));
	write_seqcount_end(&qp->addr_seq);
}

/* modify_qp's state change.  Caller holds qp->state_lock. */
static void vrnic_qp_transition(struct vrnic_qp *qp, enum ib_qp_state new)
{
	/* Leaving RESET: sends librxe wrote there were refused. */
	if (new == IB_QPS_RESET || qp->state == IB_QPS_RESET) {
		vrnic_queue_reset(&qp->sq.queue);
		vrnic_doorbell_reset(&qp->db);
	}
	if (new == IB_QPS_RESET && !qp->srq)
		vrnic_queue_reset(&qp->rq.queue);
	vrnic_qp_enter(qp, new);
	vrnic_qp_set_state(qp, new, VRNIC_QP_CAUSE_VERB);
}

int vrnic_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		    struct ib_udata *udata)
{
	struct rdma_ah_attr av = {};
	struct vrnic_qp *qp = to_vqp(ibqp);
	enum ib_qp_state new;
	unsigned long flags;
	bool flush = false, kick = false;
	bool hold;
	int err;

	if (mask & ~IB_QP_ATTR_STANDARD_BITS)
		return -EOPNOTSUPP;
	/*
	 * A controlled Q_Key (the GSI's among them) is for privileged
	 * consumers (IBA 10.2.5), as upstream uverbs now enforces too.
	 */
	if (udata && (mask & IB_QP_QKEY) &&
	    (attr->qkey & VRNIC_QKEY_CONTROLLED) && !capable(CAP_NET_RAW))
		return -EPERM;
	/*
	 * The engines read the address vector without a lock, to send (the
	 * responder answers in SQD, where IBA lets SQD->SQD change the AV),
	 * and RESET wipes the state they work on: neither happens while
	 * they run.  The replaced vector (its source GID reference) is
	 * dropped only once none can be using it.
	 */
	hold = (mask & IB_QP_AV) ||
	       ((mask & IB_QP_STATE) && attr->qp_state == IB_QPS_RESET);
	/*
	 * Taking and dropping the source GID reference may sleep, so the new
	 * address vector is copied here and swapped in under the lock.
	 */
	if (mask & IB_QP_AV)
		rdma_copy_ah_attr(&av, &attr->ah_attr);
	if (hold)
		vrnic_exec_hold(qp);

	spin_lock_irqsave(&qp->state_lock, flags);
	err = vrnic_qp_modify_check(&to_vdev(ibqp->device)->attr, qp->state,
				    ibqp->qp_type, attr, mask);
	if (err)
		goto out;
	new = (mask & IB_QP_STATE) ? attr->qp_state : qp->state;

	vrnic_qp_store_attr(qp, attr, mask);
	if (mask & IB_QP_AV)
		vrnic_qp_swap_av(qp, &av);
	if (mask & IB_QP_STATE) {
		flush = new == IB_QPS_ERR && qp->state != IB_QPS_ERR;
		/* Into SQD, or back to RTS from it: the requester decides. */
		kick = new == IB_QPS_SQD ||
		       (qp->state == IB_QPS_SQD && new == IB_QPS_RTS);
		vrnic_qp_transition(qp, new);
	}
out:
	spin_unlock_irqrestore(&qp->state_lock, flags);
	if (hold)
		vrnic_exec_release(qp);
	/* The replaced vector, or the new one if the change was refused. */
	rdma_destroy_ah_attr(&av);
	/*
	 * The work flushes; in SQD it sees whether the queue is drained,
	 * back in RTS it sends what was posted meanwhile.
	 */
	if (flush || kick)
		vrnic_qp_schedule(qp);
	return err;
}

int vrnic_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		   struct ib_qp_init_attr *init)
{
	struct vrnic_qp *qp = to_vqp(ibqp);
	unsigned long flags;

	spin_lock_irqsave(&qp->state_lock, flags);
	*attr = qp->attr;
	/* The stored sgid_attr reference stays ours. */
	attr->ah_attr.grh.sgid_attr = NULL;
	attr->qp_state = qp->state;
	attr->cur_qp_state = qp->state;
	spin_unlock_irqrestore(&qp->state_lock, flags);

	attr->cap.max_send_wr = qp->sq.queue.mask;
	attr->cap.max_send_sge = qp->sq.max_sge;
	attr->cap.max_inline_data = qp->sq.max_inline;
	attr->cap.max_recv_wr = qp->srq ? 0 : qp->rq.queue.mask;
	attr->cap.max_recv_sge = qp->srq ? 0 : qp->rq.max_sge;
	attr->sq_draining = 0;

	memset(init, 0, sizeof(*init));
	init->event_handler = ibqp->event_handler;
	init->qp_context = ibqp->qp_context;
	init->send_cq = ibqp->send_cq;
	init->recv_cq = ibqp->recv_cq;
	init->srq = ibqp->srq;
	init->cap = attr->cap;
	init->sq_sig_type = qp->sig_all ? IB_SIGNAL_ALL_WR : IB_SIGNAL_REQ_WR;
	init->qp_type = ibqp->qp_type;
	init->port_num = VRNIC_PORT;
	return 0;
}

int vrnic_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct vrnic_dev *vdev = to_vdev(ibqp->device);
	struct vrnic_qp *qp = to_vqp(ibqp);
	unsigned long flags;

	spin_lock_irqsave(&qp->state_lock, flags);
	vrnic_qp_set_state(qp, IB_QPS_RESET, VRNIC_QP_CAUSE_DESTROY);
	spin_unlock_irqrestore(&qp->state_lock, flags);

	/*
	 * No new lookups; wait for the ones in flight.  uverbs does not let
	 * a post_send (a doorbell running the engines) overlap destroy.
	 */
	xa_erase(&vdev->qps, ibqp->qp_num);
	vrnic_qp_put(qp);
	wait_for_completion(&qp->ref->done);
	/* The timers' callbacks take no reference now. */
	vrnic_exec_qp_stop(qp);
	/* Its type 2 windows: no access comes through it any more. */
	vrnic_mw_qp_gone(vdev, qp);
	vrnic_path_fini(&qp->path);

	rdma_destroy_ah_attr(&qp->attr.ah_attr);
	vrnic_qp_free_queues(qp);
	vrnic_model_qp_destroy(&vdev->model, ibqp->qp_num,
			       ibqp->qp_type == IB_QPT_GSI);
	/* A lookup may still be trying the count: see struct vrnic_qp_ref. */
	vrnic_qp_ref_retire(qp->ref);
	return 0;
}
