// SPDX-License-Identifier: GPL-2.0-only
/*
 * vrnic: shared receive queues (IBA 10.2.9).
 *
 * Copyright (c) 2026 The vrnic authors
 */

#include <rdma/uverbs_ioctl.h>

#include "vrnic.h"
#include "vrnic_verbs.h"
#include "obj/vrnic_queue.h"
#include "verbs/vrnic_srq.h"

static int vrnic_srq_check_attr(struct vrnic_dev *vdev,
				const struct ib_srq_attr *attr,
				enum ib_srq_attr_mask mask, u32 cur_max_wr)
{
	if (mask & IB_SRQ_MAX_WR) {
		if (attr->max_wr < 1 || attr->max_wr > vdev->attr.max_srq_wr)
			return -EINVAL;
	}
	if (mask & IB_SRQ_LIMIT) {
		u32 max_wr = (mask & IB_SRQ_MAX_WR) ? attr->max_wr : cur_max_wr;

		if (attr->srq_limit > max_wr)
			return -EINVAL;
	}
	return 0;
}

int vrnic_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		     struct ib_udata *udata)
{
	struct vrnic_dev *vdev = to_vdev(ibsrq->device);
	struct vrnic_srq *srq = to_vsrq(ibsrq);
	struct rxe_create_srq_resp resp = {};
	unsigned int max_wr = init->attr.max_wr;
	int err;

	if (init->srq_type != IB_SRQT_BASIC)
		return -EOPNOTSUPP;
	if (init->attr.max_sge < 1 ||
	    init->attr.max_sge > vdev->attr.max_srq_sge)
		return -EINVAL;
	err = vrnic_srq_check_attr(vdev, &init->attr,
				   IB_SRQ_MAX_WR | IB_SRQ_LIMIT, 0);
	if (err)
		return err;
	if (udata && udata->outlen < sizeof(resp))
		return -EINVAL;

	spin_lock_init(&srq->lock);
	srq->max_sge = init->attr.max_sge;
	srq->limit = init->attr.srq_limit;
	err = vrnic_queue_init(&srq->queue, &max_wr,
			       vrnic_recv_wqe_size(srq->max_sge),
			       udata ? VRNIC_QUEUE_FROM_USER :
				       VRNIC_QUEUE_FROM_KERNEL);
	if (err)
		return err;

	err = xa_alloc_cyclic(&vdev->srqs, &srq->num, srq,
			      XA_LIMIT(VRNIC_MIN_SRQN, VRNIC_MAX_SRQN),
			      &vdev->next_srqn, GFP_KERNEL);
	if (err < 0)
		goto err_queue;

	if (udata) {
		err = vrnic_queue_mmap_info(&srq->queue, vrnic_udata_uctx(udata), &resp.mi);
		if (err)
			goto err_num;
		resp.srq_num = srq->num;
		err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err)
			goto err_num;
	}
	init->attr.max_wr = max_wr;
	return 0;

err_num:
	xa_erase(&vdev->srqs, srq->num);
err_queue:
	vrnic_queue_cleanup(&srq->queue);
	return err;
}

/*
 * IB_SRQ_MAX_WR: move the SRQ to a ring of at least @max_wr slots.  The
 * receives posted and not yet taken move along, oldest first, under the
 * lock the responder takes to take one, so none is lost or taken twice.
 * librxe holds its SRQ lock across the command (no post in between) and
 * maps the new ring from the mmap info written to the address its
 * command names (struct rxe_modify_srq_cmd), as rxe does.  A process that
 * posts anyway can only garble its own receives: the user's producer
 * index is read once and masked, and the responder bounds every WQE.
 */
static int vrnic_srq_resize(struct vrnic_srq *srq, u32 max_wr,
			    struct ib_udata *udata)
{
	struct rxe_modify_srq_cmd cmd = {};
	struct vrnic_queue new, old;
	unsigned int n = max_wr;
	struct mminfo mi = {};
	unsigned long flags;
	int err;

	if (udata) {
		if (udata->inlen < sizeof(cmd))
			return -EINVAL;
		err = ib_copy_from_udata(&cmd, udata, sizeof(cmd));
		if (err)
			return err;
	}
	err = vrnic_queue_init(&new, &n, vrnic_queue_elem_size(&srq->queue),
			       srq->queue.dir);
	if (err)
		return err;
	if (udata) {
		err = vrnic_queue_mmap_info(&new, vrnic_udata_uctx(udata), &mi);
		if (err)
			goto err_new;
	}

	spin_lock_irqsave(&srq->lock, flags);
	err = READ_ONCE(srq->limit) > n ? -EINVAL :
	      vrnic_queue_move(&new, &srq->queue);
	if (err) {
		spin_unlock_irqrestore(&srq->lock, flags);
		goto err_new;
	}
	old = srq->queue;
	srq->queue = new;
	spin_unlock_irqrestore(&srq->lock, flags);
	vrnic_queue_cleanup(&old);

	/*
	 * The SRQ has moved; a process that named a bad address for the
	 * mmap info cannot find the new ring and has only itself to blame.
	 */
	if (udata && copy_to_user(u64_to_user_ptr(cmd.mmap_info_addr), &mi,
				  sizeof(mi)))
		return -EFAULT;
	return 0;

err_new:
	vrnic_queue_cleanup(&new);
	return err;
}

int vrnic_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		     enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct vrnic_dev *vdev = to_vdev(ibsrq->device);
	struct vrnic_srq *srq = to_vsrq(ibsrq);
	unsigned long flags;
	int err;

	if (mask & ~(IB_SRQ_LIMIT | IB_SRQ_MAX_WR))
		return -EINVAL;
	err = vrnic_srq_check_attr(vdev, attr, mask,
				   READ_ONCE(srq->queue.mask));
	if (err)
		return err;

	if (mask & IB_SRQ_MAX_WR) {
		err = vrnic_srq_resize(srq, attr->max_wr, udata);
		if (err)
			return err;
	}
	if (mask & IB_SRQ_LIMIT) {
		spin_lock_irqsave(&srq->lock, flags);
		srq->limit = attr->srq_limit;
		spin_unlock_irqrestore(&srq->lock, flags);
	}
	return 0;
}

int vrnic_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	struct vrnic_srq *srq = to_vsrq(ibsrq);

	attr->max_wr = READ_ONCE(srq->queue.mask);
	attr->max_sge = srq->max_sge;
	attr->srq_limit = READ_ONCE(srq->limit);
	return 0;
}

int vrnic_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	struct vrnic_dev *vdev = to_vdev(ibsrq->device);
	struct vrnic_srq *srq = to_vsrq(ibsrq);

	xa_erase(&vdev->srqs, srq->num);
	vrnic_queue_cleanup(&srq->queue);
	return 0;
}

int vrnic_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
			const struct ib_recv_wr **bad_wr)
{
	struct vrnic_srq *srq = to_vsrq(ibsrq);
	unsigned long flags;
	int err = 0;

	spin_lock_irqsave(&srq->lock, flags);
	for (; wr; wr = wr->next) {
		err = vrnic_queue_post_recv(&srq->queue, wr, srq->max_sge);
		if (err)
			break;
	}
	spin_unlock_irqrestore(&srq->lock, flags);
	if (err)
		*bad_wr = wr;
	return err;
}
