// SPDX-License-Identifier: GPL-2.0-only
/*
 * vrnic: queue pair objects and the QP state machine (IBA 10.3).
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
#include "vrnic_net.h"
#include "vrnic_opcode.h"
#include "vrnic_psn.h"
#include "vrnic_qp.h"
#include "vrnic_recv.h"
#include "vrnic_trace.h"
#include "vrnic_verbs.h"

/*
 * Rounds of the QP's work before it requeues; it stops sooner when the
 * CPU is wanted (vrnic_qp_engines()).
 */
#define VRNIC_WORK_ROUNDS	64
#define VRNIC_WORK_PKTS		32
/* Received packets a QP holds for its engines; more are dropped. */
#define VRNIC_RX_QUEUE_MAX	4096
#define VRNIC_DOORBELL_ROUNDS	2	/* in the poster's system call */
#define VRNIC_ACK_MODERATION_NS	(100 * NSEC_PER_USEC)

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

/* The completion opcode of a send work request (IB_WR_* to IB_WC_*). */
enum ib_wc_opcode vrnic_wr_wc_opcode(u32 wr_opcode)
{
	switch (wr_opcode) {
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		return IB_WC_RDMA_WRITE;
	case IB_WR_RDMA_READ:
	case IB_WR_RDMA_READ_WITH_INV:
		return IB_WC_RDMA_READ;
	case IB_WR_ATOMIC_CMP_AND_SWP:
		return IB_WC_COMP_SWAP;
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		return IB_WC_FETCH_ADD;
	case IB_WR_LOCAL_INV:
		return IB_WC_LOCAL_INV;
	case IB_WR_REG_MR:
		return IB_WC_REG_MR;
	case VRNIC_WR_ATOMIC_WRITE:
		return VRNIC_WC_ATOMIC_WRITE;
	case IB_WR_SEND:
	case IB_WR_SEND_WITH_IMM:
	case IB_WR_SEND_WITH_INV:
	default:
		return IB_WC_SEND;
	}
}

/* Complete one WQE with IB_WC_WR_FLUSH_ERR; nonzero: the CQ is full. */
static int vrnic_qp_post_flushed(struct vrnic_qp *qp, struct vrnic_cq *cq,
				 u64 wr_id, enum ib_wc_opcode opcode)
{
	struct ib_wc wc = {
		.wr_id	= wr_id,
		.opcode	= opcode,
		.status	= IB_WC_WR_FLUSH_ERR,
		.qp	= &qp->ibqp,
	};

	return vrnic_cq_post(cq, &wc, false);
}

/* WQEs a flush takes off its queue per hold of the queue's lock. */
#define VRNIC_FLUSH_BATCH	16

/*
 * Flush one work queue: at most the WQEs it held when the flush began,
 * VRNIC_FLUSH_BATCH at a time under the queue's lock, their completions
 * posted after it is dropped.
 *
 * Bounded because a user queue's producer index is the user's to move: a
 * flush that ran until the queue was empty (or the CQ full, whose consumer
 * is the user's too) followed a process that kept both moving, with IRQs
 * off, for as long as it liked.  Posted outside the lock because posting
 * may call the CQ's completion handler, and a kernel consumer may post
 * its next WR from there, which takes the queue's lock.
 */
static void vrnic_qp_flush_queue(struct vrnic_qp *qp, struct vrnic_wq *wq,
				 struct vrnic_cq *cq, bool send)
{
	struct {
		u64		wr_id;
		enum ib_wc_opcode opcode;
	} batch[VRNIC_FLUSH_BATCH];
	unsigned long flags;
	u32 left, n, i;

	spin_lock_irqsave(&wq->lock, flags);
	left = vrnic_queue_count(&wq->queue);
	spin_unlock_irqrestore(&wq->lock, flags);

	while (left) {
		spin_lock_irqsave(&wq->lock, flags);
		for (n = 0; n < min_t(u32, left, VRNIC_FLUSH_BATCH); n++) {
			const void *head = vrnic_queue_head(&wq->queue);

			if (!head)
				break;
			/* User memory: read each field once, trust none. */
			if (send) {
				const struct rxe_send_wqe *wqe = head;

				batch[n].wr_id = READ_ONCE(wqe->wr.wr_id);
				batch[n].opcode =
					vrnic_wr_wc_opcode(READ_ONCE(wqe->wr.opcode));
			} else {
				const struct rxe_recv_wqe *wqe = head;

				batch[n].wr_id = READ_ONCE(wqe->wr_id);
				batch[n].opcode = IB_WC_RECV;
			}
			vrnic_queue_advance_consumer(&wq->queue);
		}
		spin_unlock_irqrestore(&wq->lock, flags);
		if (!n)
			break;
		left -= n;
		for (i = 0; i < n; i++) {
			/* A full CQ has raised IB_EVENT_CQ_ERR. */
			if (vrnic_qp_post_flushed(qp, cq, batch[i].wr_id,
						  batch[i].opcode))
				return;
		}
	}
}

/*
 * Complete the WQEs left on the QP's queues with IB_WC_WR_FLUSH_ERR, in
 * order (IBA 10.3.1, "Error": outstanding and new WRs are flushed): those
 * there when the flush began; WRs posted later go in the next one (a
 * doorbell, or a kernel consumer's post, runs the engines, which flush in
 * ERR).  Error completions are generated whatever the WR's signaling.
 * Context: the QP's engines; takes the queues' and CQs' locks, one at a
 * time.
 */
static void vrnic_qp_flush(struct vrnic_qp *qp)
{
	vrnic_qp_flush_queue(qp, &qp->sq, qp->scq, true);
	/*
	 * The receive WQE a multi-packet SEND had taken off its queue (or
	 * the SRQ) is the oldest outstanding receive: it is flushed first,
	 * not lost with the responder's state at RESET.
	 */
	if (qp->resp.has_wqe && qp->rcq) {
		qp->resp.has_wqe = false;
		vrnic_qp_post_flushed(qp, qp->rcq, qp->resp.wr_id, IB_WC_RECV);
	}
	if (!qp->srq)
		vrnic_qp_flush_queue(qp, &qp->rq, qp->rcq, false);
}

/* Caller holds qp->state_lock. */
static void vrnic_qp_set_state(struct vrnic_qp *qp, enum ib_qp_state new,
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
 * Schedules the flush of the queues and raises IB_EVENT_QP_FATAL.
 * Context: any; the caller holds a reference.
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

	/* The QP's work flushes the queues. */
	vrnic_qp_schedule(qp);
	trace_async_event(qp->ibqp.device, IB_EVENT_QP_FATAL, qp->ibqp.qp_num);
	if (qp->ibqp.event_handler) {
		struct ib_event ev = {
			.device = qp->ibqp.device,
			.element.qp = &qp->ibqp,
			.event = IB_EVENT_QP_FATAL,
		};

		qp->ibqp.event_handler(&ev, qp->ibqp.qp_context);
	}
}

/**
 * vrnic_qp_schedule - run the QP's engines soon
 *
 * The caller holds a reference; the queued work takes its own.
 */
void vrnic_qp_schedule(struct vrnic_qp *qp)
{
	refcount_inc(&qp->ref->users);
	if (!queue_work(vrnic_wq, &qp->work))
		vrnic_qp_put(qp);
}

static bool vrnic_qp_run(struct vrnic_qp *qp, unsigned int rounds,
			 bool defer_ack);

/*
 * Whether this CPU's receive softirq is inside an inline run of some QP's
 * engines.  Softirq context is not preempted or migrated, so a plain
 * per-CPU count is enough.
 */
static DEFINE_PER_CPU(unsigned int, vrnic_rx_inline);

/*
 * Queue a validated packet for the QP's engines.  Context: softirq (the
 * netdev's receive), or a task with BHs off (delivery to our own address).
 *
 * Like a NIC driver's NAPI poll, the receive softirq takes a lone packet
 * through the engines itself, for one bounded round: that saves a worker
 * wakeup per message for latency-bound traffic.  Anything more (a queue
 * building up, a READ request whose responses may be many) goes to the
 * QP's work, as does everything in task context.
 */
void vrnic_qp_rx(struct vrnic_qp *qp, struct sk_buff *skb)
{
	/* Not for READs: their responses, and those left of one, are many. */
	bool inline_ok = in_serving_softirq() &&
			 !(vrnic_pkt(skb)->flags & VRNIC_OPF_READ) &&
			 !READ_ONCE(qp->resp.rd.active);

	/*
	 * Bounded, as a NIC's receive buffer is: the engines may be busy for
	 * a while (a long READ answered a budget at a time), and a peer that
	 * keeps sending meanwhile must not grow our memory without end.  A
	 * packet dropped here is lost as on the wire; RC resends it.
	 */
	if (unlikely(skb_queue_len_lockless(&qp->rx) >= VRNIC_RX_QUEUE_MAX)) {
		vrnic_count(to_vdev(qp->ibqp.device), VRNIC_CNT_RX_DROP_BUSY);
		kfree_skb(skb);
		vrnic_qp_schedule(qp);
		return;
	}
	skb_queue_tail(&qp->rx, skb);
	/*
	 * One level only.  An inline run can send to our own address, and
	 * that delivery comes back here in the same softirq: running the
	 * next QP inline too would nest once per distinct QP along a chain
	 * (UD QPs each holding a WQE for the next, say) until the stack
	 * overflows.  A nested packet waits for its QP's work instead.
	 */
	if (inline_ok && skb_queue_len(&qp->rx) == 1 &&
	    !__this_cpu_read(vrnic_rx_inline)) {
		bool busy;

		__this_cpu_inc(vrnic_rx_inline);
		busy = vrnic_qp_run(qp, 1, true);
		__this_cpu_dec(vrnic_rx_inline);
		if (busy)
			vrnic_qp_schedule(qp);
		return;
	}
	vrnic_qp_schedule(qp);
}

/* Post a completion; an overflowing CQ takes the QP down (IBA 11.4.2.1). */
void vrnic_qp_complete(struct vrnic_qp *qp, struct vrnic_cq *cq,
		       const struct ib_wc *wc, bool solicited)
{
	if (vrnic_cq_post(cq, wc, solicited))
		vrnic_qp_error(qp, VRNIC_QP_CAUSE_ERROR);
}

/*
 * clock.mode pace: the responder answers a READ or an atomic (its reads
 * of host memory go on the device's modeled link) only once the link has
 * caught up, as the requester sends; the pace timer runs the engines
 * again.  Everything behind it in the receive queue waits with it: a
 * QP's packets are taken in order.
 */
static bool vrnic_qp_resp_paced(struct vrnic_qp *qp)
{
	u64 wait = vrnic_model_pace_wait(&to_vdev(qp->ibqp.device)->model);
	unsigned long flags;
	struct sk_buff *skb;
	bool hold;

	if (likely(!wait))
		return false;
	spin_lock_irqsave(&qp->rx.lock, flags);
	skb = skb_peek(&qp->rx);
	hold = qp->resp.rd.active ||
	       (skb && (vrnic_pkt(skb)->flags &
			(VRNIC_OPF_READ | VRNIC_OPF_ATOMIC)));
	spin_unlock_irqrestore(&qp->rx.lock, flags);
	if (hold)
		vrnic_qp_pace(qp, wait);
	return hold;
}

/*
 * The QP's engines: completer and responder for queued packets, then the
 * requester, for at most @rounds rounds.  @defer_ack leaves a coalesced
 * ACK to the work (the receive softirq's lone packets: the work, woken
 * once, answers all that arrived meanwhile).  Return: true if work
 * remains for the caller to schedule: packets queued, a READ still being
 * answered, a requester with more to send, an ACK held back, a QP gone to
 * ERR and not flushed yet.  Not what ends by itself: a paced responder
 * (the pace timer runs it), a requester that waits for a response.
 *
 * The engines stop early, with more to do, when the scheduler wants the
 * CPU: the work requeues and its worker yields between items.  A round's
 * budget counts packets taken, and a READ request taken sends up to 16
 * responses, so a worker (WQ_HIGHPRI, nice -20) answering a queue of
 * READs could otherwise hold its CPU for a long time under a slow
 * kernel, and with it ksoftirqd, which carries that CPU's packets in
 * both directions once it is awake: the requester then heard nothing,
 * its timer expired again and again, and it gave up (retry exceeded)
 * with its responses queued behind the worker.
 */
static bool vrnic_qp_engines(struct vrnic_qp *qp, unsigned int rounds,
			     bool defer_ack)
{
	bool busy = false, more = false, paced = false, flushed = false;
	unsigned int round, n;
	struct sk_buff *skb;

	for (round = 0; round < rounds; round++) {
		enum ib_qp_state state = READ_ONCE(qp->state);

		busy = false;
		if (state == IB_QPS_RESET || state == IB_QPS_ERR) {
			skb_queue_purge(&qp->rx);
			if (state == IB_QPS_ERR)
				vrnic_qp_flush(qp);
			flushed = true;
			break;
		}
		paced = false;
		/*
		 * A READ being answered goes first, a budget of responses
		 * per round; until its last response is out, the packets
		 * behind it wait (a QP's requests execute in order).
		 */
		if (qp->resp.rd.active) {
			paced = vrnic_qp_resp_paced(qp);
			if (paced)
				goto requester;
			busy = true;
			/* Its MR gone, the READ took the QP to ERR: stop. */
			if (vrnic_resp_read_pending(qp) ||
			    READ_ONCE(qp->state) == IB_QPS_ERR)
				goto requester;
		}
		for (n = 0; n < VRNIC_WORK_PKTS; n++) {
			paced = vrnic_qp_resp_paced(qp);
			if (paced)
				break;
			skb = skb_dequeue(&qp->rx);
			if (!skb)
				break;
			if (vrnic_pkt(skb)->flags & VRNIC_OPF_REQ)
				vrnic_resp_rx(qp, skb);
			else
				vrnic_comp_rx(qp, skb);
			busy = true;
			/*
			 * An error stops the QP: nothing after it executes.
			 * A READ left with responses to send goes on next
			 * round, before anything behind it.  A CPU wanted
			 * elsewhere stops the round early.
			 */
			if (READ_ONCE(qp->state) == IB_QPS_ERR ||
			    qp->resp.rd.active || need_resched())
				break;
		}
requester:
		if (READ_ONCE(qp->state) == IB_QPS_ERR)
			continue;	/* the next round (or the work) flushes */
		/*
		 * One ACK for the batch (coalescing, IBA 9.7.5.1.1).  A lone
		 * packet is answered at once unless ACKs went out recently:
		 * adaptive moderation, as NICs do with interrupts.
		 */
		if (!defer_ack ||
		    local_clock() - qp->resp.ack_ns > VRNIC_ACK_MODERATION_NS)
			vrnic_resp_flush_ack(qp);
		if (xchg(&qp->timed_out, false))
			vrnic_comp_timeout(qp);
		more = vrnic_req_run(qp, VRNIC_WORK_PKTS);
		if (more)
			busy = true;
		/* modify_qp waits for the engines: this round is the last. */
		if (!busy || need_resched() ||
		    test_bit(VRNIC_QP_HOLD, &qp->engine))
			break;
	}
	/*
	 * Work that remains, not work done: a lone packet taken inline must
	 * not wake the worker to find nothing (a wakeup per message, two on
	 * a ping-pong's critical path).
	 */
	switch (READ_ONCE(qp->state)) {
	case IB_QPS_ERR:
		return !flushed;
	case IB_QPS_RESET:
		return false;	/* what it held went with the reset */
	default:
		break;
	}
	if (!paced && (qp->resp.rd.active || !skb_queue_empty_lockless(&qp->rx)))
		return true;
	return more || qp->resp.ack_pending;
}

/*
 * Run the engines in the caller's context, unless they are running
 * already: then the runner goes round once more for us (VRNIC_QP_AGAIN is
 * set before RUNNING is tried, and looked at after it is dropped, so no
 * request is lost).  The engines of a QP never run concurrently.
 * Return: true if work remains; the caller schedules the QP's work.
 */
static bool vrnic_qp_run(struct vrnic_qp *qp, unsigned int rounds,
			 bool defer_ack)
{
	bool busy = false;

	set_bit(VRNIC_QP_AGAIN, &qp->engine);
	/* AGAIN is visible before RUNNING is tried: pairs with the one below. */
	smp_mb__after_atomic();
	while (test_bit(VRNIC_QP_AGAIN, &qp->engine) &&
	       !test_bit(VRNIC_QP_HOLD, &qp->engine) &&
	       !test_and_set_bit_lock(VRNIC_QP_RUNNING, &qp->engine)) {
		clear_bit(VRNIC_QP_AGAIN, &qp->engine);
		busy = vrnic_qp_engines(qp, rounds, defer_ack);
		clear_bit_unlock(VRNIC_QP_RUNNING, &qp->engine);
		/* RUNNING is clear before AGAIN is looked at: pairs with above. */
		smp_mb__after_atomic();
		if (busy)
			break;
	}
	return busy;
}

/*
 * The QP's work: a bounded number of rounds, then it requeues itself so
 * one busy QP cannot hold a worker forever.
 */
static void vrnic_qp_work(struct work_struct *work)
{
	struct vrnic_qp *qp = container_of(work, struct vrnic_qp, work);

	if (vrnic_qp_run(qp, VRNIC_WORK_ROUNDS, false))
		vrnic_qp_schedule(qp);
	vrnic_qp_put(qp);
}

/* The modeled link caught up (hard irq): run the requester again. */
static enum hrtimer_restart vrnic_qp_pace_expire(struct hrtimer *t)
{
	struct vrnic_qp *qp = container_of(t, struct vrnic_qp, pace_timer);

	if (refcount_inc_not_zero(&qp->ref->users)) {
		vrnic_qp_schedule(qp);
		vrnic_qp_put(qp);
	}
	return HRTIMER_NORESTART;
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

/* The doorbell block reads the SQ's producer index (under its lock). */
static u32 vrnic_qp_db_producer(struct vrnic_doorbell *db)
{
	return vrnic_queue_producer(&container_of(db, struct vrnic_qp, db)->sq.queue);
}

/* The doorbell's batch timer released WQEs (hard irq): run the requester. */
static void vrnic_qp_db_run(struct vrnic_doorbell *db,
			    const struct vrnic_db_event *ev)
{
	struct vrnic_qp *qp = container_of(db, struct vrnic_qp, db);

	trace_doorbell(qp->ibqp.device, qp->ibqp.qp_num, ev->mode, ev->action,
		       ev->wqes, ev->released, ev->wait_ns);
	if (!refcount_inc_not_zero(&qp->ref->users))
		return;
	vrnic_qp_schedule(qp);
	vrnic_qp_put(qp);
}

static void vrnic_qp_timer(struct timer_list *t)
{
	struct vrnic_qp *qp = from_timer(qp, t, timer);

	if (!refcount_inc_not_zero(&qp->ref->users))
		return;
	WRITE_ONCE(qp->timed_out, true);
	vrnic_qp_schedule(qp);
	vrnic_qp_put(qp);
}

/**
 * vrnic_pkt_build - an skb holding a packet's headers and room for payload
 * @qp:		the sending QP
 * @opcode:	BTH opcode
 * @psn:	BTH PSN
 * @dst_qpn:	BTH destination QP
 * @paylen:	payload bytes that follow the headers
 * @ackreq:	ask for an acknowledge
 * @se:		solicited event
 *
 * The extension headers are zeroed for the caller to fill; the payload
 * starts at skb->data + vrnic_hdr_len(opcode).
 */
struct sk_buff *vrnic_pkt_build(struct vrnic_qp *qp, u8 opcode, u32 psn,
				u32 dst_qpn, u32 paylen, bool ackreq, bool se)
{
	struct vrnic_dev *vdev = to_vdev(qp->ibqp.device);
	struct vrnic_bth_fields f = {
		.opcode = opcode,
		.se = se,
		.ackreq = ackreq,
		.pad = vrnic_pad_for(paylen),
		.pkey = IB_DEFAULT_PKEY_FULL,
		.qpn = dst_qpn,
		.psn = psn,
	};
	unsigned int hlen = vrnic_hdr_len(opcode);
	unsigned int len = hlen + paylen + f.pad + 4;
	struct sk_buff *skb;

	skb = vrnic_net_alloc_skb(vdev, len);
	if (!skb)
		return NULL;
	__skb_put(skb, len);
	memset(skb->data + hlen + paylen, 0, f.pad + 4);
	if (vrnic_build_hdrs(skb->data, len, &f) < 0) {
		kfree_skb(skb);
		return NULL;
	}
	return skb;
}

int vrnic_pkt_send(struct vrnic_qp *qp, struct sk_buff *skb,
		   const struct rdma_ah_attr *av, u32 dst_qpn)
{
	struct vrnic_dev *vdev = to_vdev(qp->ibqp.device);
	int err;

	vrnic_qpc_access(vdev, qp->ibqp.qp_num);
	err = vrnic_net_xmit(vdev, &qp->path, skb, av, qp->ibqp.qp_num,
			     dst_qpn);
	vrnic_count(vdev, err ? VRNIC_CNT_TX_ERR : VRNIC_CNT_TX_PKTS);
	return err;
}

/**
 * vrnic_qpc_access - the engine reaches for QP @qpn's context, once per
 *	packet it sends or receives: the model's QPC cache hits, or fetches
 *	the context (and writes back the one it evicts)
 * @vdev:	the device
 * @qpn:	the QP
 *
 * Nothing but a branch while clock.mode is off.  Context: any.
 */
void vrnic_qpc_access(struct vrnic_dev *vdev, u32 qpn)
{
	struct vrnic_dma_cost fetch, wb;
	enum vrnic_cam_result res;
	u32 bytes;

	if (!vrnic_model_qpc_access(&vdev->model, qpn, &res, &fetch, &wb))
		return;
	trace_qpc_cache(&vdev->ibdev, qpn, res);
	if (res == VRNIC_CAM_HIT)
		return;
	bytes = READ_ONCE(vdev->model.knob[VRNIC_KNOB_QPC_CTX_BYTES]);
	trace_dma(&vdev->ibdev, 0, VRNIC_DMA_QPC, bytes, fetch.tlps,
		  fetch.link_bytes, fetch.ns);
	if (res == VRNIC_CAM_EVICT)
		trace_dma(&vdev->ibdev, 1, VRNIC_DMA_QPC, bytes, wb.tlps,
			  wb.link_bytes, wb.ns);
}

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

int vrnic_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		    struct ib_udata *udata)
{
	struct vrnic_dev *vdev = to_vdev(ibqp->device);
	struct vrnic_qp *qp = to_vqp(ibqp);
	struct rxe_create_qp_resp resp = {};
	struct ib_ucontext *uctx = NULL;
	unsigned int sq_wr, rq_wr;
	size_t sq_payload;
	u32 qpn;
	int err;

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
	err = vrnic_qp_check_cap(vdev, init);
	if (err)
		return err;
	if (udata) {
		if (udata->outlen < sizeof(resp))
			return -EINVAL;
		uctx = vrnic_udata_uctx(udata);
	}
	qp->ref = kmalloc(sizeof(*qp->ref), GFP_KERNEL);
	if (!qp->ref)
		return -ENOMEM;
	/* A context on the modeled NIC (qpc.mode onchip has a limit). */
	err = vrnic_model_qp_create(&vdev->model, init->qp_type == IB_QPT_GSI,
				    &vdev->ibdev.dev);
	if (err)
		goto err_ref;

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
	INIT_WORK(&qp->work, vrnic_qp_work);
	skb_queue_head_init(&qp->rx);
	/* RC and UC have one address vector: their route is kept. */
	err = vrnic_path_init(&qp->path, vdev, init->qp_type == IB_QPT_RC ||
			      init->qp_type == IB_QPT_UC);
	if (err)
		goto err_model;
	timer_setup(&qp->timer, vrnic_qp_timer, 0);
	vrnic_doorbell_init(&qp->db, &vdev->model, vrnic_qp_db_producer,
			    vrnic_qp_db_run);
	hrtimer_init(&qp->pace_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	qp->pace_timer.function = vrnic_qp_pace_expire;
	qp->mtu = 256;

	/* A send WQE holds the larger of its SGE list and its inline data. */
	sq_payload = max_t(size_t, init->cap.max_send_sge * sizeof(struct rxe_sge),
			   init->cap.max_inline_data);
	sq_payload = max_t(size_t, sq_payload, sizeof(struct rxe_sge));
	sq_wr = max_t(u32, init->cap.max_send_wr, 1);
	err = vrnic_queue_init(&qp->sq.queue, &sq_wr,
			       sizeof(struct rxe_send_wqe) + sq_payload,
			       udata ? VRNIC_QUEUE_FROM_USER : VRNIC_QUEUE_FROM_KERNEL);
	if (err)
		goto err_path;
	qp->swqe = kvcalloc(qp->sq.queue.mask + 1, sizeof(*qp->swqe), GFP_KERNEL);
	if (!qp->swqe) {
		err = -ENOMEM;
		goto err_sq;
	}
	/* The queue rounded the element up; hand the room to the user. */
	sq_payload = vrnic_queue_elem_size(&qp->sq.queue) - sizeof(struct rxe_send_wqe);
	qp->sq.max_sge = min_t(u32, sq_payload / sizeof(struct rxe_sge),
			       vdev->attr.max_send_sge);
	qp->sq.max_inline = min_t(u32, sq_payload, VRNIC_MAX_INLINE);

	if (init->qp_type == IB_QPT_RC) {
		qp->replay = kcalloc(VRNIC_MAX_RD_ATOMIC, sizeof(*qp->replay),
				     GFP_KERNEL);
		if (!qp->replay) {
			err = -ENOMEM;
			goto err_sq;
		}
	}

	if (!qp->srq) {
		rq_wr = max_t(u32, init->cap.max_recv_wr, 1);
		qp->rq.max_sge = max_t(u32, init->cap.max_recv_sge, 1);
		err = vrnic_queue_init(&qp->rq.queue, &rq_wr,
				       vrnic_recv_wqe_size(qp->rq.max_sge),
				       udata ? VRNIC_QUEUE_FROM_USER :
					       VRNIC_QUEUE_FROM_KERNEL);
		if (err)
			goto err_sq;
	}

	if (udata) {
		if (!qp->srq) {
			err = vrnic_queue_mmap_info(&qp->rq.queue, uctx, &resp.rq_mi);
			if (err)
				goto err_rq;
		}
		err = vrnic_queue_mmap_info(&qp->sq.queue, uctx, &resp.sq_mi);
		if (err)
			goto err_rq;
		err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err)
			goto err_rq;
	}

	/* Publish last: from here the receive path can find the QP. */
	if (init->qp_type == IB_QPT_GSI) {
		qpn = 1;
		err = xa_insert(&vdev->qps, qpn, qp->ref, GFP_KERNEL);
	} else {
		err = xa_alloc_cyclic(&vdev->qps, &qpn, qp->ref,
				      XA_LIMIT(VRNIC_MIN_QPN, VRNIC_MAX_QPN),
				      &vdev->next_qpn, GFP_KERNEL);
		err = err < 0 ? err : 0;
	}
	if (err)
		goto err_rq;
	ibqp->qp_num = qpn;

	init->cap.max_send_wr = sq_wr;
	init->cap.max_send_sge = qp->sq.max_sge;
	init->cap.max_inline_data = qp->sq.max_inline;
	if (!qp->srq) {
		init->cap.max_recv_wr = rq_wr;
		init->cap.max_recv_sge = qp->rq.max_sge;
	}
	atomic_inc(&vdev->num_qp);
	return 0;

err_rq:
	if (!qp->srq)
		vrnic_queue_cleanup(&qp->rq.queue);
err_sq:
	kfree(qp->replay);
	kvfree(qp->swqe);
	vrnic_queue_cleanup(&qp->sq.queue);
err_path:
	vrnic_path_fini(&qp->path);
err_model:
	/* No QPN yet: QP 0 is never a vrnic QP, so nothing is uncached. */
	vrnic_model_qp_destroy(&vdev->model, 0, init->qp_type == IB_QPT_GSI);
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
	if (mask & (IB_QP_ALT_PATH | IB_QP_PATH_MIG_STATE))
		return -EOPNOTSUPP;	/* no automatic path migration */
	if (mask & IB_QP_EN_SQD_ASYNC_NOTIFY)
		return -EOPNOTSUPP;
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
		memset(&qp->req, 0, sizeof(qp->req));
		memset(&qp->comp, 0, sizeof(qp->comp));
		memset(&qp->resp, 0, sizeof(qp->resp));
		if (qp->replay)
			memset(qp->replay, 0,
			       VRNIC_MAX_RD_ATOMIC * sizeof(*qp->replay));
		break;
	case IB_QPS_RTR:
		if (qp->ibqp.qp_type == IB_QPT_RC || qp->ibqp.qp_type == IB_QPT_UC)
			mtu = min(mtu, qp->attr.path_mtu ? qp->attr.path_mtu : mtu);
		qp->mtu = ib_mtu_enum_to_int(mtu);
		qp->resp.epsn = qp->attr.rq_psn;
		qp->resp.acked_psn = vrnic_psn_sub(qp->attr.rq_psn, 1);
		qp->resp.msn = 0;
		qp->resp.nak_sent = false;
		break;
	case IB_QPS_RTS:
		if (qp->ibqp.qp_type == IB_QPT_UD || qp->ibqp.qp_type == IB_QPT_GSI)
			qp->mtu = ib_mtu_enum_to_int(mtu);
		if (qp->state == IB_QPS_RTR) {
			qp->req.psn = qp->attr.sq_psn;
			qp->comp.una = qp->attr.sq_psn;
			qp->comp.window = vrnic_comp_max_window();
			qp->comp.retry = qp->attr.retry_cnt;
			qp->comp.rnr_retry = qp->attr.rnr_retry;
			qp->comp.heard = false;
			qp->comp.deferred = 0;
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
}

/*
 * Keep the QP's engines from running, for a change they must not see
 * half done: take their RUNNING bit as a runner would, waiting out a run
 * in progress (bounded by its rounds).  Whoever finds them held sets
 * AGAIN and leaves, so on release the work runs what was asked meanwhile.
 * Context: process (modify_qp); not from the engines themselves, which a
 * comp_handler runs in (atomic there: it cannot modify a QP).
 */
static void vrnic_qp_engines_hold(struct vrnic_qp *qp)
{
	might_sleep();
	/*
	 * HOLD first: no runner starts once it is seen, and one running
	 * ends its round early, so busy traffic cannot starve the wait.
	 */
	set_bit(VRNIC_QP_HOLD, &qp->engine);
	/* HOLD is visible before RUNNING is tried, as AGAIN in vrnic_qp_run(). */
	smp_mb__after_atomic();
	while (test_and_set_bit_lock(VRNIC_QP_RUNNING, &qp->engine))
		usleep_range(20, 100);
}

static void vrnic_qp_engines_release(struct vrnic_qp *qp)
{
	clear_bit_unlock(VRNIC_QP_RUNNING, &qp->engine);
	clear_bit(VRNIC_QP_HOLD, &qp->engine);
	/* Both are clear before AGAIN is looked at, as in vrnic_qp_run(). */
	smp_mb__after_atomic();
	if (test_bit(VRNIC_QP_AGAIN, &qp->engine))
		vrnic_qp_schedule(qp);
}

int vrnic_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		    struct ib_udata *udata)
{
	struct rdma_ah_attr av = {};
	struct vrnic_qp *qp = to_vqp(ibqp);
	enum ib_qp_state new;
	unsigned long flags;
	bool flush = false;
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
		vrnic_qp_engines_hold(qp);

	spin_lock_irqsave(&qp->state_lock, flags);
	err = vrnic_qp_modify_check(&to_vdev(ibqp->device)->attr, qp->state,
				    ibqp->qp_type, attr, mask);
	if (err)
		goto out;
	new = (mask & IB_QP_STATE) ? attr->qp_state : qp->state;

	vrnic_qp_store_attr(qp, attr, mask);
	if (mask & IB_QP_AV) {
		swap(av, qp->attr.ah_attr);
		vrnic_path_reset_route(&qp->path);
		write_seqcount_begin(&qp->addr_seq);
		memcpy(&qp->local_addr,
		       qp->attr.ah_attr.grh.sgid_attr->gid.raw,
		       sizeof(qp->local_addr));
		memcpy(&qp->peer_addr, qp->attr.ah_attr.grh.dgid.raw,
		       sizeof(qp->peer_addr));
		write_seqcount_end(&qp->addr_seq);
	}
	if (mask & IB_QP_STATE) {
		/* Leaving RESET: sends librxe wrote there were refused. */
		if (new == IB_QPS_RESET || qp->state == IB_QPS_RESET) {
			vrnic_queue_reset(&qp->sq.queue);
			vrnic_doorbell_reset(&qp->db);
		}
		if (new == IB_QPS_RESET && !qp->srq)
			vrnic_queue_reset(&qp->rq.queue);
		flush = new == IB_QPS_ERR && qp->state != IB_QPS_ERR;
		vrnic_qp_enter(qp, new);
		vrnic_qp_set_state(qp, new, VRNIC_QP_CAUSE_VERB);
	}
out:
	spin_unlock_irqrestore(&qp->state_lock, flags);
	if (hold)
		vrnic_qp_engines_release(qp);
	/* The replaced vector, or the new one if the change was refused. */
	rdma_destroy_ah_attr(&av);
	if (flush)
		vrnic_qp_schedule(qp);	/* the work flushes */
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
	del_timer_sync(&qp->timer);
	/* The timers' callbacks take no reference now. */
	vrnic_doorbell_fini(&qp->db);
	hrtimer_cancel(&qp->pace_timer);
	cancel_work_sync(&qp->work);
	skb_queue_purge(&qp->rx);
	vrnic_path_fini(&qp->path);

	rdma_destroy_ah_attr(&qp->attr.ah_attr);
	kfree(qp->replay);
	kvfree(qp->swqe);
	if (!qp->srq)
		vrnic_queue_cleanup(&qp->rq.queue);
	vrnic_queue_cleanup(&qp->sq.queue);
	vrnic_model_qp_destroy(&vdev->model, ibqp->qp_num,
			       ibqp->qp_type == IB_QPT_GSI);
	atomic_dec(&vdev->num_qp);
	/* A lookup may still be trying the count: see struct vrnic_qp_ref. */
	vrnic_qp_ref_retire(qp->ref);
	return 0;
}

/*
 * The doorbell: librxe writes send WQEs into the mapped SQ and then issues
 * a POST_SEND command with no work requests; kernel consumers arrive here
 * after vrnic_post_send() queued their WQEs.  The doorbell block
 * (hw/doorbell.c, doorbell.mode) decides when the requester learns of them;
 * the requester engine is the QP's work: it flushes a QP in ERR and sends
 * from one in RTS.
 */
static void vrnic_qp_doorbell(struct vrnic_qp *qp)
{
	struct vrnic_dev *vdev = to_vdev(qp->ibqp.device);
	struct vrnic_db_event ev;
	bool busy, run;

	/* The requester still has released WQEs to send: it is polling. */
	busy = READ_ONCE(qp->req.index) != vrnic_doorbell_pi(&qp->db);
	run = vrnic_doorbell_ring(&qp->db, qp->sq.queue.mask, busy, &ev);
	trace_doorbell(qp->ibqp.device, qp->ibqp.qp_num, ev.mode, ev.action,
		       ev.wqes, ev.released, ev.wait_ns);
	if (ev.mode == VRNIC_DB_SHADOW)
		vrnic_dma_account(vdev, VRNIC_DMA_TO_DEVICE, VRNIC_DBR_BYTES,
				  VRNIC_DMA_DBR);
	/* batch: held for more WQEs, or for the timer. */
	if (!run)
		return;
	/*
	 * librxe rings from its process, in a system call: like rxe, use
	 * that context to start sending now rather than wake a worker.
	 * Kernel consumers may post from any context; they get the work.
	 */
	if (qp->is_user) {
		if (vrnic_qp_run(qp, VRNIC_DOORBELL_ROUNDS, false))
			vrnic_qp_schedule(qp);
		return;
	}
	vrnic_qp_schedule(qp);
}

/* Write one kernel send WR into the SQ in the rxe WQE layout. */
static int vrnic_post_one_send(struct vrnic_qp *qp, const struct ib_send_wr *wr)
{
	struct rxe_send_wqe *wqe;
	u64 length = 0;
	int i;

	switch (wr->opcode) {
	case IB_WR_SEND:
	case IB_WR_SEND_WITH_IMM:
	case IB_WR_SEND_WITH_INV:
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
	case IB_WR_RDMA_READ:
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		break;
	case IB_WR_REG_MR:
	case IB_WR_LOCAL_INV:
		if (qp->ibqp.qp_type == IB_QPT_UD || qp->ibqp.qp_type == IB_QPT_GSI)
			return -EINVAL;
		break;
	default:
		return -EOPNOTSUPP;
	}
	if (wr->num_sge < 0 || wr->num_sge > qp->sq.max_sge)
		return -EINVAL;
	for (i = 0; i < wr->num_sge; i++)
		length += wr->sg_list[i].length;
	if (length > VRNIC_MAX_MSG_SIZE)
		return -EINVAL;
	if ((wr->send_flags & IB_SEND_INLINE) && length > qp->sq.max_inline)
		return -EINVAL;
	if (vrnic_queue_full(&qp->sq.queue))
		return -ENOMEM;

	wqe = vrnic_queue_producer_slot(&qp->sq.queue);
	memset(wqe, 0, sizeof(*wqe));
	wqe->wr.wr_id = wr->wr_id;
	wqe->wr.opcode = wr->opcode;
	wqe->wr.send_flags = wr->send_flags;
	if (wr->opcode == IB_WR_SEND_WITH_INV || wr->opcode == IB_WR_LOCAL_INV)
		wqe->wr.ex.invalidate_rkey = wr->ex.invalidate_rkey;
	else
		wqe->wr.ex.imm_data = wr->ex.imm_data;

	switch (wr->opcode) {
	case IB_WR_REG_MR:
		wqe->wr.wr.reg.mr = reg_wr(wr)->mr;
		wqe->wr.wr.reg.key = reg_wr(wr)->key;
		wqe->wr.wr.reg.access = reg_wr(wr)->access;
		break;
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
	case IB_WR_RDMA_READ:
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
	if (qp->ibqp.qp_type == IB_QPT_UD || qp->ibqp.qp_type == IB_QPT_GSI) {
		/* A controlled Q_Key is replaced by the requester's parse. */
		wqe->wr.wr.ud.remote_qpn = ud_wr(wr)->remote_qpn;
		wqe->wr.wr.ud.remote_qkey = ud_wr(wr)->remote_qkey;
		wqe->wr.wr.ud.ah_num = to_vah(ud_wr(wr)->ah)->num;
	}

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
		vrnic_qp_doorbell(qp);
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
	vrnic_qp_doorbell(qp);
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
