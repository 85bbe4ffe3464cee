// SPDX-License-Identifier: GPL-2.0-only
/*
 * vrnic: the QP as its engines and the receive path see it: lookup by
 * number with a reference (RCU, struct vrnic_qp_ref), the source address
 * check, state transitions and the move to ERR on an error, and the pace
 * timer's arming.
 *
 * Copyright (c) 2026 The vrnic authors
 */

#include <linux/ip.h>
#include <net/ipv6.h>

#include "vrnic.h"
#include "vrnic_qp.h"
#include "hw/clock.h"
#include "obj/vrnic_qp_obj.h"
#include "probe/vrnic_trace.h"

static const char * const vrnic_qp_state_names[] = {
	[IB_QPS_RESET]	= "RESET",
	[IB_QPS_INIT]	= "INIT",
	[IB_QPS_RTR]	= "RTR",
	[IB_QPS_RTS]	= "RTS",
	[IB_QPS_SQD]	= "SQD",
	[IB_QPS_SQE]	= "SQE",
	[IB_QPS_ERR]	= "ERR",
};

static const char * const vrnic_qp_cause_names[VRNIC_QP_CAUSE_COUNT] = {
	[VRNIC_QP_CAUSE_VERB]		= "verb",
	[VRNIC_QP_CAUSE_ERROR]		= "error",
	[VRNIC_QP_CAUSE_RETRY]		= "retry",
	[VRNIC_QP_CAUSE_DESTROY]	= "destroy",
};

const char *vrnic_qp_state_name(enum ib_qp_state state)
{
	if ((unsigned int)state >= ARRAY_SIZE(vrnic_qp_state_names))
		return "?";
	return vrnic_qp_state_names[state];
}

/**
 * vrnic_qp_get - look a QP up by number and take a reference
 * @vdev:	the device
 * @qpn:	the QP number
 *
 * Context: any; the lookup is RCU-safe.
 * Return: the QP, or NULL; drop it with vrnic_qp_put().
 */
struct vrnic_qp *vrnic_qp_get(struct vrnic_dev *vdev, u32 qpn)
{
	struct vrnic_qp_ref *ref;
	struct vrnic_qp *qp = NULL;

	rcu_read_lock();
	ref = xa_load(&vdev->qps, qpn);
	qp = vrnic_qp_ref_try(ref);
	rcu_read_unlock();
	return qp;
}

/**
 * vrnic_qp_ref_try - take a lookup's reference through a table entry
 * @ref:	what xa_load() of the QPN table returned, or NULL
 *
 * Context: inside the rcu_read_lock() section of that xa_load(): @ref may
 * have left the table since, and its destroy may have returned, but
 * vrnic_qp_ref_retire() keeps it in memory until the section ends.
 * Return: the QP with a reference taken, or NULL once destroy began.
 */
struct vrnic_qp *vrnic_qp_ref_try(struct vrnic_qp_ref *ref)
{
	return ref && refcount_inc_not_zero(&ref->users) ? ref->qp : NULL;
}

/**
 * vrnic_qp_ref_retire - free a QP's table entry once no lookup can hold it
 * @ref:	the entry, out of the table and at zero users
 *
 * A grace period after, so that a lookup that loaded it just before it
 * left the table still finds its count (zero) in memory (issue 17, item 3).
 */
void vrnic_qp_ref_retire(struct vrnic_qp_ref *ref)
{
	kfree_rcu(ref, rcu);
}

/**
 * vrnic_qp_addr_ok - does an RC or UC packet come from the QP's peer?
 * @qp:		the QP the packet's BTH names
 * @skb:	the packet, its network header at the IP header
 *
 * A connected QP takes packets only from the address its address vector
 * names, sent to the address it sends from (as rxe's check_addr()).
 * Without this, anyone who can reach UDP port 4791 and guess a QPN (they
 * are handed out in order) could complete a UC receive with a forged
 * SEND, move an RC QP to the error state with a bad request at the PSN
 * it expects, or have a READ replayed at its real peer.  Datagram QPs
 * take packets from anyone: their Q_Key is the check.
 *
 * Context: any; lockless (@qp->addr_seq).
 */
bool vrnic_qp_addr_ok(struct vrnic_qp *qp, const struct sk_buff *skb)
{
	struct in6_addr src, dst;
	unsigned int seq;
	bool ok;

	if (qp->ibqp.qp_type != IB_QPT_RC && qp->ibqp.qp_type != IB_QPT_UC)
		return true;
	if (ip_hdr(skb)->version == 4) {
		ipv6_addr_set_v4mapped(ip_hdr(skb)->saddr, &src);
		ipv6_addr_set_v4mapped(ip_hdr(skb)->daddr, &dst);
	} else {
		src = ipv6_hdr(skb)->saddr;
		dst = ipv6_hdr(skb)->daddr;
	}
	do {
		seq = read_seqcount_begin(&qp->addr_seq);
		ok = ipv6_addr_equal(&src, &qp->peer_addr) &&
		     ipv6_addr_equal(&dst, &qp->local_addr);
	} while (read_seqcount_retry(&qp->addr_seq, seq));
	return ok;
}

/* Drop a reference to a QP's table entry; the last one wakes destroy. */
void vrnic_qp_ref_put(struct vrnic_qp_ref *ref)
{
	if (refcount_dec_and_test(&ref->users))
		complete(&ref->done);
}

void vrnic_qp_put(struct vrnic_qp *qp)
{
	vrnic_qp_ref_put(qp->ref);
}

/* Record a transition and trace it.  Caller holds qp->state_lock. */
void vrnic_qp_set_state(struct vrnic_qp *qp, enum ib_qp_state new,
			enum vrnic_qp_cause cause)
{
	struct vrnic_dev *vdev = to_vdev(qp->ibqp.device);

	vrnic_dbg(vdev, "qp %u %s => %s (%s)\n", qp->ibqp.qp_num,
		  vrnic_qp_state_name(qp->state), vrnic_qp_state_name(new),
		  vrnic_qp_cause_names[cause]);
	trace_qp_state(&qp->ibqp, qp->state, new, cause);
	qp->state = new;
	qp->attr.qp_state = new;
}

/**
 * vrnic_qp_error - move a QP to ERR on its own (not through modify_qp)
 * @qp:		the QP
 * @cause:	why, for the trace
 *
 * Raises IB_EVENT_QP_FATAL.  The flush of the queues is the execution
 * layer's: the run of the engines that called this sees the QP in ERR
 * and flushes it in its next round, or returns that work remains so its
 * caller schedules the QP's work (exec/vrnic_exec.c, vrnic_qp_engines()).
 * Context: the QP's engines; the caller holds a reference.
 */
void vrnic_qp_error(struct vrnic_qp *qp, enum vrnic_qp_cause cause)
{
	unsigned long flags;
	bool was_err;

	spin_lock_irqsave(&qp->state_lock, flags);
	was_err = qp->state == IB_QPS_ERR;
	if (!was_err)
		vrnic_qp_set_state(qp, IB_QPS_ERR, cause);
	spin_unlock_irqrestore(&qp->state_lock, flags);
	if (was_err)
		return;

	vrnic_qp_event(qp, IB_EVENT_QP_FATAL);
}

/**
 * vrnic_qp_event - raise an affiliated asynchronous event of @qp
 * @qp:		the QP
 * @type:	IB_EVENT_QP_FATAL, IB_EVENT_SQ_DRAINED, ...
 *
 * Context: any (the core's and uverbs' handlers take spinlocks only).
 */
void vrnic_qp_event(struct vrnic_qp *qp, enum ib_event_type type)
{
	trace_async_event(qp->ibqp.device, type, qp->ibqp.qp_num);
	if (qp->ibqp.event_handler) {
		struct ib_event ev = {
			.device = qp->ibqp.device,
			.element.qp = &qp->ibqp,
			.event = type,
		};

		qp->ibqp.event_handler(&ev, qp->ibqp.qp_context);
	}
}

/**
 * vrnic_qp_pace - the requester stops for @wait_ns (clock.mode pace)
 * @qp:		the QP, its engines running
 * @wait_ns:	until the modeled link has caught up
 *
 * Context: the QP's engines (any context).
 */
void vrnic_qp_pace(struct vrnic_qp *qp, u64 wait_ns)
{
	if (hrtimer_is_queued(&qp->pace_timer))
		return;
	hrtimer_start(&qp->pace_timer, ns_to_ktime(wait_ns), HRTIMER_MODE_REL);
	vrnic_model_pace_count(&to_vdev(qp->ibqp.device)->model, wait_ns);
}
