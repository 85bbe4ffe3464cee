// SPDX-License-Identifier: GPL-2.0-only
/*
 * vrnic: the completion queue verbs: create, resize, poll, arm, destroy.
 *
 * A user CQ is a ring of struct ib_uverbs_wc that librxe polls in place;
 * a kernel CQ holds struct ib_wc for poll_cq.  Completions are written by
 * obj/vrnic_cqe.c, from any engine in any context, under cq->lock with
 * interrupts off.
 *
 * Copyright (c) 2026 The vrnic authors
 */

#include <rdma/uverbs_ioctl.h>

#include "vrnic.h"
#include "vrnic_compat.h"
#include "vrnic_verbs.h"
#include "obj/vrnic_queue.h"
#include "probe/vrnic_trace.h"
#include "verbs/vrnic_cq.h"

static size_t vrnic_cqe_size(bool user)
{
	return user ? sizeof(struct ib_uverbs_wc) : sizeof(struct ib_wc);
}

int vrnic_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		    struct vrnic_create_cq_arg *arg)
{
	struct ib_udata *udata = vrnic_create_cq_udata(arg);
	struct vrnic_dev *vdev = to_vdev(ibcq->device);
	struct vrnic_cq *cq = to_vcq(ibcq);
	struct rxe_create_cq_resp resp = {};
	unsigned int cqe = attr->cqe;
	bool user = udata;
	int err;

	if (attr->flags)
		return -EOPNOTSUPP;
	if (attr->cqe < 1 || attr->cqe > vdev->attr.max_cqe ||
	    attr->comp_vector >= ibcq->device->num_comp_vectors)
		return -EINVAL;
	if (user && udata->outlen < sizeof(resp))
		return -EINVAL;

	spin_lock_init(&cq->lock);
	err = vrnic_queue_init(&cq->queue, &cqe, vrnic_cqe_size(user),
			       user ? VRNIC_QUEUE_TO_USER : VRNIC_QUEUE_TO_KERNEL);
	if (err)
		return err;

	if (user) {
		err = vrnic_queue_mmap_info(&cq->queue, vrnic_udata_uctx(udata), &resp.mi);
		if (!err)
			err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err)
			goto err_queue;
	}
	ibcq->cqe = cqe;
	return 0;

err_queue:
	vrnic_queue_cleanup(&cq->queue);
	return err;
}

int vrnic_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct vrnic_cq *cq = to_vcq(ibcq);

	vrnic_queue_cleanup(&cq->queue);
	return 0;
}

/**
 * vrnic_resize_cq - move the CQ to a ring of at least @cqe entries
 * @ibcq:	the CQ
 * @cqe:	entries wanted
 * @udata:	the command's, for a user CQ (NULL for a kernel one)
 *
 * Completions not yet polled move along, oldest first.  librxe holds its
 * CQ lock across the command and maps the new ring from the response, so
 * user CQs see no poll in between.
 */
int vrnic_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata)
{
	struct vrnic_dev *vdev = to_vdev(ibcq->device);
	struct vrnic_cq *cq = to_vcq(ibcq);
	struct rxe_resize_cq_resp resp = {};
	struct vrnic_queue new, old;
	unsigned int n = cqe;
	unsigned long flags;
	int err;

	if (cqe < 1 || cqe > vdev->attr.max_cqe)
		return -EINVAL;
	if (udata && udata->outlen < sizeof(resp))
		return -EINVAL;

	err = vrnic_queue_init(&new, &n, vrnic_queue_elem_size(&cq->queue),
			       cq->queue.dir);
	if (err)
		return err;
	if (udata) {
		err = vrnic_queue_mmap_info(&new, vrnic_udata_uctx(udata), &resp.mi);
		if (err) {
			vrnic_queue_cleanup(&new);
			return err;
		}
	}

	spin_lock_irqsave(&cq->lock, flags);
	err = vrnic_queue_move(&new, &cq->queue);
	if (err) {
		spin_unlock_irqrestore(&cq->lock, flags);
		vrnic_queue_cleanup(&new);
		return err;
	}
	old = cq->queue;
	cq->queue = new;
	spin_unlock_irqrestore(&cq->lock, flags);

	vrnic_queue_cleanup(&old);
	ibcq->cqe = n;
	/*
	 * The kernel side has moved to the new ring; a process that gave us
	 * a bad response buffer cannot find it and has only itself to blame.
	 */
	return udata ? ib_copy_to_udata(udata, &resp, sizeof(resp)) : 0;
}

int vrnic_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc)
{
	struct vrnic_cq *cq = to_vcq(ibcq);
	unsigned long flags;
	int n;

	spin_lock_irqsave(&cq->lock, flags);
	for (n = 0; n < num_entries; n++) {
		const struct ib_wc *head = vrnic_queue_head(&cq->queue);

		if (!head)
			break;
		memcpy(&wc[n], head, sizeof(*head));
		vrnic_queue_advance_consumer(&cq->queue);
	}
	spin_unlock_irqrestore(&cq->lock, flags);
	return n;
}

int vrnic_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	struct vrnic_cq *cq = to_vcq(ibcq);
	unsigned long irqflags;
	int ret = 0;

	spin_lock_irqsave(&cq->lock, irqflags);
	/* NEXT_COMP covers SOLICITED: never narrow an armed request. */
	if (cq->notify != IB_CQ_NEXT_COMP)
		cq->notify = flags & IB_CQ_SOLICITED_MASK;
	if ((flags & IB_CQ_REPORT_MISSED_EVENTS) &&
	    !vrnic_queue_empty(&cq->queue))
		ret = 1;
	spin_unlock_irqrestore(&cq->lock, irqflags);
	return ret;
}
