// SPDX-License-Identifier: GPL-2.0-only
/*
 * vrnic: posting work requests.  A kernel consumer's WRs are written
 * into the queues in the rxe WQE layout (librxe writes its own into the
 * mapped queues), then the doorbell (exec/vrnic_exec.c) starts the
 * requester.
 *
 * Copyright (c) 2026 The vrnic authors
 */

#include <rdma/ib_verbs.h>

#include "vrnic.h"
#include "vrnic_qp.h"
#include "vrnic_verbs.h"
#include "engine/vrnic_wr.h"
#include "exec/vrnic_exec.h"
#include "obj/vrnic_queue.h"
#include "verbs/vrnic_post.h"

/*
 * A kernel send WR against the requester's rules (engine/vrnic_wr.c) and
 * the QP's sizes, told at once.  @length: its bytes.  Return: 0 or -errno.
 */
static int vrnic_post_check(struct vrnic_qp *qp, const struct ib_send_wr *wr,
			    u64 *length)
{
	int i;

	if (!vrnic_wr_info(wr->opcode))
		return -EOPNOTSUPP;
	if (!vrnic_wr_allowed(qp->ibqp.qp_type, false, wr->opcode))
		return -EINVAL;
	if (wr->num_sge < 0 || wr->num_sge > qp->sq.max_sge)
		return -EINVAL;
	for (i = 0; i < wr->num_sge; i++)
		*length += wr->sg_list[i].length;
	if (*length > VRNIC_MAX_MSG_SIZE)
		return -EINVAL;
	if ((wr->send_flags & IB_SEND_INLINE) && *length > qp->sq.max_inline)
		return -EINVAL;
	/* Its 8 bytes travel in the WQE, as librxe's do: inline data. */
	if (wr->opcode == VRNIC_WR_ATOMIC_WRITE &&
	    (!(wr->send_flags & IB_SEND_INLINE) || *length != sizeof(u64)))
		return -EINVAL;
	return 0;
}

/* The WR's fields in the rxe WQE layout, but its data. */
static void vrnic_post_fill_wr(struct vrnic_qp *qp, struct rxe_send_wqe *wqe,
			       const struct ib_send_wr *wr)
{
	memset(wqe, 0, sizeof(*wqe));
	wqe->wr.wr_id = wr->wr_id;
	wqe->wr.opcode = wr->opcode;
	wqe->wr.send_flags = wr->send_flags;
	if (wr->opcode == IB_WR_SEND_WITH_INV || wr->opcode == IB_WR_LOCAL_INV)
		wqe->wr.ex.invalidate_rkey = wr->ex.invalidate_rkey;
	else
		wqe->wr.ex.imm_data = wr->ex.imm_data;

	/* As u32: the enum of the 6.1 headers has no ATOMIC WRITE. */
	switch ((u32)wr->opcode) {
	case IB_WR_REG_MR:
		wqe->wr.wr.reg.mr = reg_wr(wr)->mr;
		wqe->wr.wr.reg.key = reg_wr(wr)->key;
		wqe->wr.wr.reg.access = reg_wr(wr)->access;
		break;
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
	case IB_WR_RDMA_READ:
	case VRNIC_WR_ATOMIC_WRITE:
		wqe->wr.wr.rdma.remote_addr = rdma_wr(wr)->remote_addr;
		wqe->wr.wr.rdma.rkey = rdma_wr(wr)->rkey;
		break;
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		wqe->wr.wr.atomic.remote_addr = atomic_wr(wr)->remote_addr;
		wqe->wr.wr.atomic.rkey = atomic_wr(wr)->rkey;
		wqe->wr.wr.atomic.compare_add = atomic_wr(wr)->compare_add;
		wqe->wr.wr.atomic.swap = atomic_wr(wr)->swap;
		break;
	default:
		break;
	}
	if (vrnic_qp_is_ud(qp)) {
		/* A controlled Q_Key is replaced by the requester's parse. */
		wqe->wr.wr.ud.remote_qpn = ud_wr(wr)->remote_qpn;
		wqe->wr.wr.ud.remote_qkey = ud_wr(wr)->remote_qkey;
		wqe->wr.wr.ud.ah_num = to_vah(ud_wr(wr)->ah)->num;
	}
}

/* The WR's data: copied inline, or its SGE list. */
static void vrnic_post_fill_data(struct rxe_send_wqe *wqe,
				 const struct ib_send_wr *wr, u64 length)
{
	int i;

	if (wr->send_flags & IB_SEND_INLINE) {
		u8 *p = wqe->dma.inline_data;

		for (i = 0; i < wr->num_sge; i++) {
			memcpy(p, (void *)(uintptr_t)wr->sg_list[i].addr,
			       wr->sg_list[i].length);
			p += wr->sg_list[i].length;
		}
		wqe->dma.length = length;
		wqe->dma.num_sge = wr->num_sge;
	} else {
		vrnic_dma_info_fill(&wqe->dma, wr->sg_list, wr->num_sge, length);
	}
}

/* Write one kernel send WR into the SQ in the rxe WQE layout. */
static int vrnic_post_one_send(struct vrnic_qp *qp, const struct ib_send_wr *wr)
{
	struct rxe_send_wqe *wqe;
	u64 length = 0;
	int err;

	err = vrnic_post_check(qp, wr, &length);
	if (err)
		return err;
	if (vrnic_queue_full(&qp->sq.queue))
		return -ENOMEM;
	wqe = vrnic_queue_producer_slot(&qp->sq.queue);
	vrnic_post_fill_wr(qp, wqe, wr);
	vrnic_post_fill_data(wqe, wr, length);
	vrnic_queue_advance_producer(&qp->sq.queue);
	return 0;
}

int vrnic_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		    const struct ib_send_wr **bad_wr)
{
	struct vrnic_qp *qp = to_vqp(ibqp);
	unsigned long flags;
	int err = 0;

	/*
	 * The send queue of a QP in RESET takes no work request: an
	 * immediate error (IBA 10.3.1, as rxe answers).  What librxe wrote
	 * into the ring meanwhile is dropped on RESET->INIT, so it cannot
	 * run later in a QP that reported it failed.  INIT and RTR queue
	 * work for RTS, as NICs do.
	 */
	if (READ_ONCE(qp->state) == IB_QPS_RESET) {
		*bad_wr = wr;
		return -EINVAL;
	}
	if (qp->is_user) {
		if (wr) {
			*bad_wr = wr;
			return -EINVAL;
		}
		vrnic_exec_doorbell(qp);
		return 0;
	}
	spin_lock_irqsave(&qp->sq.lock, flags);
	for (; wr; wr = wr->next) {
		err = vrnic_post_one_send(qp, wr);
		if (err)
			break;
	}
	spin_unlock_irqrestore(&qp->sq.lock, flags);
	if (err)
		*bad_wr = wr;
	vrnic_exec_doorbell(qp);
	return err;
}

int vrnic_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		    const struct ib_recv_wr **bad_wr)
{
	struct vrnic_qp *qp = to_vqp(ibqp);
	unsigned long flags;
	int err = 0;

	if (qp->srq || qp->is_user || READ_ONCE(qp->state) == IB_QPS_RESET) {
		*bad_wr = wr;
		return -EINVAL;
	}
	spin_lock_irqsave(&qp->rq.lock, flags);
	for (; wr; wr = wr->next) {
		err = vrnic_queue_post_recv(&qp->rq.queue, wr, qp->rq.max_sge);
		if (err)
			break;
	}
	spin_unlock_irqrestore(&qp->rq.lock, flags);
	if (err)
		*bad_wr = wr;
	else if (READ_ONCE(qp->state) == IB_QPS_ERR)
		vrnic_qp_schedule(qp);
	return err;
}
