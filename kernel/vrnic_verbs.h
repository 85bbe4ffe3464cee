/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vrnic: the small verbs objects (context, PD, AH, CQ, SRQ).
 *
 * Copyright (c) 2026 The vrnic authors
 */

#ifndef VRNIC_VERBS_H
#define VRNIC_VERBS_H

#include <linux/spinlock.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

#include "obj/vrnic_queue.h"

struct vrnic_ucontext {
	struct ib_ucontext	ibuc;
};

/* The user context of a uverbs call, whose mmap entries a queue joins. */
static inline struct ib_ucontext *vrnic_udata_uctx(struct ib_udata *udata)
{
	return &rdma_udata_to_drv_context(udata, struct vrnic_ucontext,
					  ibuc)->ibuc;
}

struct vrnic_pd {
	struct ib_pd		ibpd;
};

/**
 * struct vrnic_ah - an address handle
 * @attr:	the validated attributes (always with a GRH on RoCE)
 * @num:	index in vrnic_dev.ahs, given to librxe in create_ah's
 *		response and named by user UD WQEs
 */
struct vrnic_ah {
	struct ib_ah		ibah;
	struct rdma_ah_attr	attr;
	u32			num;
};

/**
 * struct vrnic_cq - a completion queue
 * @lock:	serialises producers (completions from any engine) and, for
 *		kernel CQs, poll_cq against resize
 * @queue:	struct ib_uverbs_wc elements for user CQs, struct ib_wc for
 *		kernel CQs
 * @notify:	0, IB_CQ_SOLICITED or IB_CQ_NEXT_COMP: armed by
 *		req_notify_cq, disarmed when the event is raised
 * @overflowed:	a completion found the queue full (IB_EVENT_CQ_ERR raised)
 */
struct vrnic_cq {
	struct ib_cq		ibcq;
	spinlock_t		lock;		/* producers, resize */
	struct vrnic_queue	queue;
	u8			notify;
	bool			overflowed;
};

/**
 * struct vrnic_srq - a shared receive queue
 * @lock:	serialises consumers (any QP's responder) and post_srq_recv
 * @queue:	struct rxe_recv_wqe elements
 * @max_sge:	SGEs per WQE
 * @limit:	armed limit, 0 when disarmed (IBA 10.2.9.2)
 * @num:	SRQ number
 */
struct vrnic_srq {
	struct ib_srq		ibsrq;
	spinlock_t		lock;		/* consumers, post_srq_recv */
	struct vrnic_queue	queue;
	u32			max_sge;
	u32			limit;
	u32			num;
};

static inline struct vrnic_pd *to_vpd(struct ib_pd *pd)
{
	return container_of(pd, struct vrnic_pd, ibpd);
}

static inline struct vrnic_ah *to_vah(struct ib_ah *ah)
{
	return container_of(ah, struct vrnic_ah, ibah);
}

static inline struct vrnic_cq *to_vcq(struct ib_cq *cq)
{
	return container_of(cq, struct vrnic_cq, ibcq);
}

static inline struct vrnic_srq *to_vsrq(struct ib_srq *srq)
{
	return container_of(srq, struct vrnic_srq, ibsrq);
}

/* Size of a receive WQE with @max_sge SGEs (rxe ABI). */
static inline size_t vrnic_recv_wqe_size(u32 max_sge)
{
	return sizeof(struct rxe_recv_wqe) + max_sge * sizeof(struct rxe_sge);
}

#endif /* VRNIC_VERBS_H */
