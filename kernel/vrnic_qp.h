/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vrnic: queue pairs.
 *
 * Copyright (c) 2026 The vrnic authors
 */

#ifndef VRNIC_QP_H
#define VRNIC_QP_H

#include <linux/completion.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <rdma/ib_verbs.h>

#include "vrnic_queue.h"

struct vrnic_cq;
struct vrnic_srq;

/**
 * struct vrnic_wq - a send or receive work queue
 * @queue:	struct rxe_send_wqe or struct rxe_recv_wqe elements
 * @lock:	serialises kernel producers (post_send, post_recv) and the
 *		flush that empties the queue on entry to ERR
 * @max_sge:	SGEs per WQE
 * @max_inline:	inline bytes per send WQE
 */
struct vrnic_wq {
	struct vrnic_queue	queue;
	spinlock_t		lock;
	u32			max_sge;
	u32			max_inline;
};

/**
 * struct vrnic_qp - a queue pair
 * @ibqp:	the core QP
 * @users:	references from lookups by QPN (receive path, engines); the
 *		creator's reference is dropped by destroy, which then waits
 *		for @done so the core can free the QP
 * @done:	completed when @users reaches zero
 * @state_lock:	protects @state and @attr against concurrent modify_qp and
 *		the engines' error transitions
 * @state:	the current QP state (IBA 10.3.1)
 * @attr:	the attributes set through modify_qp, as last accepted
 * @sq, @rq:	the work queues; @rq is unused when @srq is set
 * @srq:	the shared receive queue, or NULL
 * @scq, @rcq:	send and receive completion queues
 * @sig_all:	every send WR generates a completion (IB_SIGNAL_ALL_WR)
 * @is_user:	the queues are mapped into a process (librxe)
 */
struct vrnic_qp {
	struct ib_qp		ibqp;
	refcount_t		users;
	struct completion	done;

	spinlock_t		state_lock;
	enum ib_qp_state	state;
	struct ib_qp_attr	attr;

	struct vrnic_wq		sq;
	struct vrnic_wq		rq;
	struct vrnic_srq	*srq;
	struct vrnic_cq		*scq;
	struct vrnic_cq		*rcq;
	bool			sig_all;
	bool			is_user;
};

static inline struct vrnic_qp *to_vqp(struct ib_qp *qp)
{
	return container_of(qp, struct vrnic_qp, ibqp);
}

/* Why a QP changed state; reported with every transition. */
enum vrnic_qp_cause {
	VRNIC_QP_CAUSE_VERB,		/* modify_qp */
	VRNIC_QP_CAUSE_ERROR,		/* a completion error */
	VRNIC_QP_CAUSE_RETRY,		/* retry or RNR retry exhausted */
	VRNIC_QP_CAUSE_DESTROY,		/* destroy_qp */
	VRNIC_QP_CAUSE_COUNT
};

const char *vrnic_qp_state_name(enum ib_qp_state state);
struct vrnic_qp *vrnic_qp_get(struct vrnic_dev *vdev, u32 qpn);
void vrnic_qp_put(struct vrnic_qp *qp);
void vrnic_qp_error(struct vrnic_qp *qp, enum vrnic_qp_cause cause);

int vrnic_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		    struct ib_udata *udata);
int vrnic_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		    struct ib_udata *udata);
int vrnic_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		   struct ib_qp_init_attr *init);
int vrnic_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata);
int vrnic_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		    const struct ib_send_wr **bad_wr);
int vrnic_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		    const struct ib_recv_wr **bad_wr);

#endif /* VRNIC_QP_H */
