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

int vrnic_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		     enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct vrnic_dev *vdev = to_vdev(ibsrq->device);
	struct vrnic_srq *srq = to_vsrq(ibsrq);
	unsigned long flags;
	int err;

	/* Resizing is not offered (no IB_DEVICE_SRQ_RESIZE). */
	if (mask & ~IB_SRQ_LIMIT)
		return -EOPNOTSUPP;
	err = vrnic_srq_check_attr(vdev, attr, mask, srq->queue.mask);
	if (err)
		return err;

	spin_lock_irqsave(&srq->lock, flags);
	srq->limit = attr->srq_limit;
	spin_unlock_irqrestore(&srq->lock, flags);
	return 0;
}

int vrnic_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	struct vrnic_srq *srq = to_vsrq(ibsrq);

	attr->max_wr = srq->queue.mask;
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
