// SPDX-License-Identifier: GPL-2.0-only
/*
 * vrnic: the QP's execution.  The one caller of the engines (requester,
 * responder, completer): when they run and in which context (inline in
 * the receive softirq or the poster's system call, or the QP's work),
 * the QP's receive queue, its timers (retransmit, pace, doorbell batch)
 * and the flush of a QP in ERR.
 *
 * The single-runner rule: a QP's engines never run concurrently; the
 * VRNIC_QP_RUNNING bit of qp->engine is held by whoever runs them
 * (vrnic_qp_run()) and by modify_qp's hold (vrnic_exec_hold()).  The
 * engines assert it (vrnic_engines_assert_held()).
 *
 * Lock order: qp->state_lock, then a work queue's lock, then a CQ's lock.
 *
 * Copyright (c) 2026 The vrnic authors
 */

#include <linux/delay.h>
#include <linux/sched/clock.h>

#include "vrnic.h"
#include "vrnic_qp.h"
#include "vrnic_verbs.h"
#include "engine/vrnic_comp.h"
#include "engine/vrnic_req.h"
#include "engine/vrnic_resp.h"
#include "engine/vrnic_wr.h"
#include "exec/vrnic_exec.h"
#include "hw/clock.h"
#include "mem/vrnic_mem.h"
#include "obj/vrnic_cqe.h"
#include "obj/vrnic_qp_obj.h"
#include "probe/vrnic_trace.h"
#include "wire/vrnic_pkt.h"

/* The engines' work items; WQ_HIGHPRI, unbound. */
static struct workqueue_struct *vrnic_wq;

/*
 * Rounds of the QP's work before it requeues; it stops sooner when the
 * CPU is wanted (vrnic_qp_engines()).
 */
#define VRNIC_WORK_ROUNDS	64
#define VRNIC_WORK_PKTS		32
/*
 * Packets the receive softirq's inline round sends at most (an ACK that
 * opens a window, a response that ends an RNR wait); the rest goes to
 * the QP's work.  See vrnic_qp_send().
 */
#define VRNIC_RX_INLINE_PKTS	8
/* Received packets a QP holds for its engines; more are dropped. */
#define VRNIC_RX_QUEUE_MAX	4096
#define VRNIC_DOORBELL_ROUNDS	2	/* in the poster's system call */
#define VRNIC_ACK_MODERATION_NS	(100 * NSEC_PER_USEC)

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
	u64 wr_id;

	vrnic_qp_flush_queue(qp, &qp->sq, qp->scq, true);
	/*
	 * The receive WQE a multi-packet SEND had taken off its queue (or
	 * the SRQ) is the oldest outstanding receive: it is flushed first,
	 * not lost with the responder's state at RESET.
	 */
	if (qp->rcq && vrnic_resp_take_held(qp, &wr_id))
		vrnic_qp_post_flushed(qp, qp->rcq, wr_id, IB_WC_RECV);
	if (!qp->srq)
		vrnic_qp_flush_queue(qp, &qp->rq, qp->rcq, false);
}

/**
 * vrnic_qp_schedule - run the QP's engines soon
 * @qp:		the QP
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
			 bool rx_inline);

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
 * The responder and the completer, for one round.  A READ being answered
 * goes first, a budget of responses per round; until its last response
 * is out, the packets behind it wait (a QP's requests execute in order).
 * Return: whether anything was done.  @paced: the responder waits for
 * the modeled link (its pace timer runs the engines again).
 */
static bool vrnic_qp_take_packets(struct vrnic_qp *qp, bool *paced)
{
	struct sk_buff *skb;
	bool busy = false;
	unsigned int n;

	*paced = false;
	if (qp->resp.rd.active) {
		*paced = vrnic_qp_resp_paced(qp);
		if (*paced)
			return false;
		/* Its MR gone, the READ took the QP to ERR: stop. */
		if (vrnic_resp_read_pending(qp) ||
		    READ_ONCE(qp->state) == IB_QPS_ERR)
			return true;
		busy = true;
	}
	for (n = 0; n < VRNIC_WORK_PKTS; n++) {
		*paced = vrnic_qp_resp_paced(qp);
		if (*paced)
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
		 * An error stops the QP: nothing after it executes.  A READ
		 * left with responses to send goes on next round, before
		 * anything behind it.  A page fault stops it until the
		 * work has resolved it.  A CPU wanted elsewhere stops the
		 * round early.
		 */
		if (READ_ONCE(qp->state) == IB_QPS_ERR ||
		    qp->resp.rd.active || qp->pf.pending || need_resched())
			break;
	}
	return busy;
}

/*
 * The ACK for the round's requests, an expired retransmit timer, and
 * the requester.  Return: the requester has more to send now.
 *
 * In the receive softirq's inline round (@rx_inline) the requester sends
 * a few packets, not a full budget, and leaves the rest to the QP's work.
 * An ACK opens a window of 32 packets; sent from the softirq for each of
 * several QPs, they keep it long enough that the kernel hands the receive
 * softirq to ksoftirqd (nine runs in ten during a 4-QP WRITE), which
 * shares the CPU evenly with an application polling its CQ.  The work
 * runs at nice -20, ahead of the application, as a NIC's engines are not
 * slowed by the host's polling.
 */
static bool vrnic_qp_send(struct vrnic_qp *qp, bool rx_inline)
{
	/*
	 * One ACK for the batch (coalescing, IBA 9.7.5.1.1).  A lone packet
	 * is answered at once unless ACKs went out recently: adaptive
	 * moderation, as NICs do with interrupts.
	 */
	if (!rx_inline ||
	    local_clock() - qp->resp.ack_ns > VRNIC_ACK_MODERATION_NS)
		vrnic_resp_flush_ack(qp);
	if (xchg(&qp->timed_out, false))
		vrnic_comp_timeout(qp);
	return vrnic_req_run(qp, rx_inline ? VRNIC_RX_INLINE_PKTS :
					     VRNIC_WORK_PKTS);
}

/*
 * Work that remains, not work done: a lone packet taken inline must not
 * wake the worker to find nothing (a wakeup per message, two on a
 * ping-pong's critical path).
 */
static bool vrnic_qp_work_remains(struct vrnic_qp *qp, bool flushed,
				  bool paced, bool more)
{
	switch (READ_ONCE(qp->state)) {
	case IB_QPS_ERR:
		return !flushed;
	case IB_QPS_RESET:
		return false;	/* what it held went with the reset */
	default:
		break;
	}
	/* A page fault: the work resolves it. */
	if (qp->pf.pending)
		return true;
	if (!paced && (qp->resp.rd.active || !skb_queue_empty_lockless(&qp->rx)))
		return true;
	return more || qp->resp.ack_pending;
}

/*
 * The QP's engines: completer and responder for queued packets, then the
 * requester, for at most @rounds rounds.  @rx_inline: the receive
 * softirq's round for a lone packet, which leaves a coalesced ACK to the
 * work (woken once, it answers all that arrived meanwhile) and sends
 * little (vrnic_qp_send()).  Return: true if work
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
			     bool rx_inline)
{
	bool busy, more = false, paced = false, flushed = false;
	unsigned int round;

	for (round = 0; round < rounds; round++) {
		enum ib_qp_state state = READ_ONCE(qp->state);

		if (state == IB_QPS_RESET || state == IB_QPS_ERR) {
			skb_queue_purge(&qp->rx);
			/* A page fault went with the work it stopped. */
			qp->pf.pending = false;
			qp->pf.failed = false;
			if (state == IB_QPS_ERR)
				vrnic_qp_flush(qp);
			flushed = true;
			break;
		}
		/*
		 * A page fault stops the engines, as it stalls a NIC's QP
		 * context, until the QP's work has faulted the page in.
		 */
		if (smp_load_acquire(&qp->pf.pending))
			break;
		busy = vrnic_qp_take_packets(qp, &paced);
		if (READ_ONCE(qp->state) == IB_QPS_ERR)
			continue;	/* the next round (or the work) flushes */
		if (qp->pf.pending)
			break;
		more = vrnic_qp_send(qp, rx_inline);
		busy |= more;
		/* modify_qp waits for the engines: this round is the last. */
		if (!busy || need_resched() ||
		    test_bit(VRNIC_QP_HOLD, &qp->engine))
			break;
	}
	return vrnic_qp_work_remains(qp, flushed, paced, more);
}

/*
 * Run the engines in the caller's context, unless they are running
 * already: then the runner goes round once more for us (VRNIC_QP_AGAIN is
 * set before RUNNING is tried, and looked at after it is dropped, so no
 * request is lost).  The engines of a QP never run concurrently.
 * Return: true if work remains; the caller schedules the QP's work.
 */
static bool vrnic_qp_run(struct vrnic_qp *qp, unsigned int rounds,
			 bool rx_inline)
{
	bool busy = false;

	set_bit(VRNIC_QP_AGAIN, &qp->engine);
	/* AGAIN is visible before RUNNING is tried: pairs with the one below. */
	smp_mb__after_atomic();
	while (test_bit(VRNIC_QP_AGAIN, &qp->engine) &&
	       !test_bit(VRNIC_QP_HOLD, &qp->engine) &&
	       !test_and_set_bit_lock(VRNIC_QP_RUNNING, &qp->engine)) {
		clear_bit(VRNIC_QP_AGAIN, &qp->engine);
		busy = vrnic_qp_engines(qp, rounds, rx_inline);
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

	/*
	 * The engines' page fault: resolved here, where we may sleep, with
	 * the engines stopped on it (they set it and do nothing while it is
	 * pending; a reset or ERR clears it, which a resolve that ends after
	 * it only clears again).
	 */
	if (smp_load_acquire(&qp->pf.pending))
		vrnic_odp_resolve(to_vdev(qp->ibqp.device), &qp->pf);
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

/*
 * Keep the QP's engines from running, for a change they must not see
 * half done: take their RUNNING bit as a runner would, waiting out a run
 * in progress (bounded by its rounds).  Whoever finds them held sets
 * AGAIN and leaves, so on release the work runs what was asked meanwhile.
 * Context: process (modify_qp); not from the engines themselves, which a
 * comp_handler runs in (atomic there: it cannot modify a QP).
 */
void vrnic_exec_hold(struct vrnic_qp *qp)
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

void vrnic_exec_release(struct vrnic_qp *qp)
{
	clear_bit_unlock(VRNIC_QP_RUNNING, &qp->engine);
	clear_bit(VRNIC_QP_HOLD, &qp->engine);
	/* Both are clear before AGAIN is looked at, as in vrnic_qp_run(). */
	smp_mb__after_atomic();
	if (test_bit(VRNIC_QP_AGAIN, &qp->engine))
		vrnic_qp_schedule(qp);
}

/*
 * The doorbell: librxe writes send WQEs into the mapped SQ and then issues
 * a POST_SEND command with no work requests; kernel consumers arrive here
 * after vrnic_post_send() queued their WQEs.  The doorbell block
 * (hw/doorbell.c, doorbell.mode) decides when the requester learns of them;
 * the requester engine is the QP's work: it flushes a QP in ERR and sends
 * from one in RTS.
 */
void vrnic_exec_doorbell(struct vrnic_qp *qp)
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

/**
 * vrnic_exec_qp_init - a new QP's execution: its work, receive queue,
 *	retransmit and pace timers, and doorbell block
 * @qp:		the QP being created
 */
void vrnic_exec_qp_init(struct vrnic_qp *qp)
{
	struct vrnic_dev *vdev = to_vdev(qp->ibqp.device);

	INIT_WORK(&qp->work, vrnic_qp_work);
	skb_queue_head_init(&qp->rx);
	timer_setup(&qp->timer, vrnic_qp_timer, 0);
	vrnic_doorbell_init(&qp->db, &vdev->model, vrnic_qp_db_producer,
			    vrnic_qp_db_run);
	hrtimer_init(&qp->pace_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	qp->pace_timer.function = vrnic_qp_pace_expire;
}

/**
 * vrnic_exec_qp_stop - stop a QP's execution for good
 * @qp:		the QP being destroyed, out of the QPN table and with no
 *		reference left but its creator's: no callback takes one now
 *
 * Context: process; waits for the timers' callbacks and the work.
 */
void vrnic_exec_qp_stop(struct vrnic_qp *qp)
{
	del_timer_sync(&qp->timer);
	vrnic_doorbell_fini(&qp->db);
	hrtimer_cancel(&qp->pace_timer);
	cancel_work_sync(&qp->work);
	skb_queue_purge(&qp->rx);
}

int vrnic_exec_init(void)
{
	vrnic_wq = alloc_workqueue("vrnic", WQ_UNBOUND | WQ_HIGHPRI | WQ_MEM_RECLAIM, 0);
	return vrnic_wq ? 0 : -ENOMEM;
}

void vrnic_exec_exit(void)
{
	destroy_workqueue(vrnic_wq);
}
