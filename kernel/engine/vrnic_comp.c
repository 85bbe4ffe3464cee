// SPDX-License-Identifier: GPL-2.0-only
/*
 * vrnic: the completer.  Takes acknowledges, read responses and atomic
 * acknowledges (IBA 9.7.5), retires send WQEs in order into completions,
 * and recovers from loss: go-back-N from a PSN sequence error NAK, after
 * an RNR NAK's delay, or on the retransmit timer.  Runs only from the
 * QP's work (the timer only schedules it).
 *
 * Copyright (c) 2026 The vrnic authors
 */

#include <linux/sched/clock.h>

#include "vrnic.h"
#include "vrnic_mr.h"
#include "vrnic_qp.h"
#include "vrnic_verbs.h"
#include "engine/vrnic_comp.h"
#include "engine/vrnic_wr.h"
#include "mem/vrnic_mem.h"
#include "obj/vrnic_cqe.h"
#include "obj/vrnic_qp_obj.h"
#include "probe/vrnic_mutate.h"
#include "probe/vrnic_trace.h"
#include "wire/vrnic_hdr.h"
#include "wire/vrnic_pkt.h"
#include "wire/vrnic_psn.h"

/* IBA 9.7.5.2.8, table 45: RNR timer codes in microseconds. */
static const u32 vrnic_rnr_usec[32] = {
	655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960,
	1280, 1920, 2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720,
	40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520,
};

/* Timeouts in a row, without progress, waited out while responses arrive. */
#define VRNIC_TIMER_DEFERRALS	16

/* A TCG guest is slow: no retransmit timer shorter than this. */
#define VRNIC_RTO_MIN_US	5000

/*
 * The send window: unacknowledged PSNs a QP keeps in flight (see
 * VRNIC_MAX_INFLIGHT).  A knob, as a NIC's outstanding-packet limit is a
 * firmware setting: the bench measures what the link takes.
 */
static unsigned int vrnic_max_inflight = VRNIC_MAX_INFLIGHT;

static int vrnic_max_inflight_set(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 1, VRNIC_MAX_INFLIGHT_LIMIT);
}

static const struct kernel_param_ops vrnic_max_inflight_ops = {
	.set = vrnic_max_inflight_set,
	.get = param_get_uint,
};
module_param_cb(max_inflight, &vrnic_max_inflight_ops, &vrnic_max_inflight, 0644);
MODULE_PARM_DESC(max_inflight,
		 "unacknowledged PSNs a QP keeps in flight, 1-"
		 __stringify(VRNIC_MAX_INFLIGHT_LIMIT) " (default "
		 __stringify(VRNIC_MAX_INFLIGHT) ")");

/* The send window a QP opens to (read once per use). */
static u32 vrnic_comp_max_window(void)
{
	return READ_ONCE(vrnic_max_inflight);
}

/* RESET: nothing in flight.  Context: modify_qp, the engines held. */
void vrnic_comp_reset(struct vrnic_qp *qp)
{
	memset(&qp->comp, 0, sizeof(qp->comp));
}

/*
 * RTR to RTS: nothing acknowledged before the QP's sq_psn, every retry
 * left, the window at its largest.  As vrnic_comp_reset().
 */
void vrnic_comp_start(struct vrnic_qp *qp)
{
	qp->comp.una = qp->attr.sq_psn;
	qp->comp.window = vrnic_comp_max_window();
	qp->comp.ceiling = qp->comp.window;
	qp->comp.read_ceiling = VRNIC_READ_INFLIGHT;
	qp->comp.retry = qp->attr.retry_cnt;
	qp->comp.rnr_retry = qp->attr.rnr_retry;
	qp->comp.heard = false;
	qp->comp.deferred = 0;
}

static bool vrnic_adaptive_retrans = true;
module_param_named(adaptive_retrans, vrnic_adaptive_retrans, bool, 0644);
MODULE_PARM_DESC(adaptive_retrans,
		 "retransmit after a few measured RTTs when that is sooner than the QP's timeout (default: on)");

/*
 * (Re)start the retransmit timer: 4.096 us * 2^timeout (IBA 9.7.6.1.3;
 * 4 us here).
 *
 * Adaptive retransmission, as ConnectX NICs do it: where the RTT measured
 * on the QP is far below that timeout, the timer is the RTT estimate of
 * RFC 6298 (SRTT + 4 RTTVAR), doubled for each early expiry since the last
 * RTT sample, until it reaches the QP's own timeout.  The doubling is kept
 * until a sample comes (Karn's algorithm, RFC 6298 5.5 and 5.7): a resent
 * PSN gives none, and an estimate that one delay had outgrown would
 * otherwise expire early again at every wait for a response.  An early
 * expiry resends but spends no retry: only expiries of the QP's own
 * timeout do, so the retry count still means what the IBA says, and a
 * dead peer is given up on no sooner than without it.
 */
u64 vrnic_comp_rto_us(u8 timeout, bool adaptive, u32 srtt_us, u32 rttvar_us,
		      u32 early)
{
	u64 usec = timeout ? 4ULL << min_t(u32, timeout, 31) : 1000000;
	u64 rto;

	usec = clamp_t(u64, usec, VRNIC_RTO_MIN_US, 60000000);
	if (!adaptive || !srtt_us)
		return usec;
	rto = max_t(u64, srtt_us + 4ULL * rttvar_us, VRNIC_RTO_MIN_US);
	return min(usec, rto << min_t(u32, early, 16));
}

void vrnic_comp_arm(struct vrnic_qp *qp)
{
	u64 full = vrnic_comp_rto_us(qp->attr.timeout, false, 0, 0, 0);
	u64 usec = vrnic_comp_rto_us(qp->attr.timeout,
				     READ_ONCE(vrnic_adaptive_retrans),
				     qp->comp.srtt_us, qp->comp.rttvar_us,
				     qp->comp.early);

	/* An RNR NAK's delay runs: its end comes first (vrnic_comp_timeout()). */
	if (time_before(jiffies, qp->comp.rnr_until)) {
		qp->comp.rnr_wait = true;
		mod_timer(&qp->timer, qp->comp.rnr_until + 1);
		return;
	}
	qp->comp.rnr_wait = false;
	qp->comp.timer_early = usec < full;
	mod_timer(&qp->timer, jiffies + usecs_to_jiffies(usec));
}

/*
 * The retransmit timer runs, or it ran out and the QP's work has not yet
 * taken the expiry (vrnic_qp_timer() set timed_out).  Either way a send
 * must not start it again: that would move the wait for the oldest PSN
 * past the expiry, and the expiry, taken after it, would look stale.
 */
bool vrnic_comp_timer_armed(const struct vrnic_qp *qp)
{
	return timer_pending(&qp->timer) || READ_ONCE(qp->timed_out);
}

/*
 * The requester sent the packet of @psn (req.psn is one past its PSNs).
 * Time it if none is being timed and it is no resend (Karn's rule: a
 * resent PSN's response may answer either copy).
 */
void vrnic_comp_sent(struct vrnic_qp *qp, u32 psn)
{
	/* What an undo must see acknowledged: past every PSN sent again. */
	if (qp->comp.undo_window &&
	    vrnic_psn_after(qp->req.psn, qp->comp.undo_high))
		qp->comp.undo_high = qp->req.psn;
	if (qp->comp.resending) {
		if (vrnic_psn_before(psn, qp->comp.resent_end))
			return;
		qp->comp.resending = false;
	}
	if (qp->comp.rtt_on)
		return;
	qp->comp.rtt_on = true;
	qp->comp.rtt_psn = psn;
	qp->comp.rtt_start = local_clock();
}

/* One RTT sample of @sample_us into the estimate (RFC 6298, 2.2-2.3). */
void vrnic_rtt_update(u32 *srtt_us, u32 *rttvar_us, u64 sample_us)
{
	/* At least 1 (0 means no estimate); small enough for the sums. */
	u32 s = clamp_t(u64, sample_us, 1, U32_MAX / 8);

	if (!*srtt_us) {
		*srtt_us = s;
		*rttvar_us = s / 2;
		return;
	}
	*rttvar_us = (3 * *rttvar_us + abs((int)*srtt_us - (int)s)) / 4;
	*srtt_us = max((7 * *srtt_us + s) / 8, 1U);
}

/* @una passed the PSN being timed: a sample, and the timer's backoff ends. */
static void vrnic_comp_rtt_sample(struct vrnic_qp *qp)
{
	qp->comp.rtt_on = false;
	qp->comp.early = 0;
	vrnic_rtt_update(&qp->comp.srtt_us, &qp->comp.rttvar_us,
			 div_u64(local_clock() - qp->comp.rtt_start,
				 NSEC_PER_USEC));
}

/*
 * One past the newest send WQE where the requester is: the one at its
 * index counts once part of it is on the wire (a long SEND or WRITE held
 * by the window, a READ between chunks).
 */
static u32 vrnic_comp_req_end(struct vrnic_qp *qp)
{
	return qp->req.offset ? (qp->req.index + 1) & qp->sq.queue.mask :
				qp->req.index;
}

/* A rewind moved the requester back from where it had got to. */
static bool vrnic_comp_behind(struct vrnic_qp *qp)
{
	return qp->comp.resending &&
	       vrnic_psn_before(qp->req.psn, qp->comp.resent_end);
}

/*
 * One past the newest send WQE ever started, and one past the newest PSN
 * ever sent: after a rewind, what went out before it, whose first copies
 * the responder may still acknowledge.
 */
static u32 vrnic_comp_end(struct vrnic_qp *qp)
{
	return vrnic_comp_behind(qp) ? qp->comp.resent_wqe :
				       vrnic_comp_req_end(qp);
}

static u32 vrnic_comp_psn_end(struct vrnic_qp *qp)
{
	return vrnic_comp_behind(qp) ? qp->comp.resent_end : qp->req.psn;
}

/**
 * vrnic_comp_retire - turn done send WQEs into completions, in order
 * @qp:		the QP, its engines running
 *
 * A WQE that failed completes with its error status and takes the QP to
 * ERR; signaled or not, error completions are always generated.
 */
void vrnic_comp_retire(struct vrnic_qp *qp)
{
	struct vrnic_queue *q = &qp->sq.queue;

	while (vrnic_queue_consumer(q) != qp->req.next_new) {
		struct vrnic_swqe *w = &qp->swqe[vrnic_queue_consumer(q)];
		struct ib_wc wc = {};

		if (!w->done)
			break;
		vrnic_queue_advance_consumer(q);
		if (w->status == IB_WC_SUCCESS && !qp->sig_all &&
		    !(w->send_flags & IB_SEND_SIGNALED))
			continue;
		wc.wr_id = w->wr_id;
		wc.status = w->status;
		wc.opcode = vrnic_wr_wc_opcode(w->opcode);
		wc.byte_len = w->length;
		wc.qp = &qp->ibqp;
		vrnic_qp_complete(qp, qp->scq, &wc, false);
		if (w->status != IB_WC_SUCCESS) {
			bool retry = w->status == IB_WC_RETRY_EXC_ERR ||
				     w->status == IB_WC_RNR_RETRY_EXC_ERR;

			vrnic_qp_error(qp, retry ? VRNIC_QP_CAUSE_RETRY :
						   VRNIC_QP_CAUSE_ERROR);
			return;
		}
	}
	/* Nothing unacknowledged: no timer, unless it ends an RNR wait. */
	if (vrnic_queue_consumer(q) == vrnic_comp_end(qp) &&
	    !time_before(jiffies, qp->comp.rnr_until))
		del_timer(&qp->timer);
}

/* Everything before @psn is acknowledged. */
static void vrnic_comp_set_una(struct vrnic_qp *qp, u32 psn)
{
	if (vrnic_psn_after(psn, qp->comp.una))
		qp->comp.una = psn;
}

/**
 * vrnic_window_ceiling_lost - the window's ceiling after a loss
 * @ceiling:	the ceiling before it
 * @max_window:	max_inflight
 *
 * Half of it, to no less than VRNIC_WINDOW_FLOOR (or max_inflight, if
 * that is less).  go-back-N sends again everything behind a loss, so a
 * link that loses (netem's loss2d1, the UDP socket link overrunning a
 * guest's ring in a burst) does best with the smaller window, and one
 * that does not with the larger.
 */
u32 vrnic_window_ceiling_lost(u32 ceiling, u32 max_window)
{
	return max(min(ceiling, max_window) / 2,
		   min_t(u32, VRNIC_WINDOW_FLOOR, max_window));
}

/**
 * vrnic_window_ceiling_grown - the ceiling after an acknowledgment that
 *	made progress
 * @ceiling:	the ceiling before it
 * @max_window:	max_inflight
 *
 * One PSN more, up to max_inflight, as TCP's congestion avoidance
 * (RFC 5681, 3.1): slowly enough that a link losing a packet every few
 * windows keeps it near the floor.
 */
u32 vrnic_window_ceiling_grown(u32 ceiling, u32 max_window)
{
	return ceiling < max_window ? ceiling + 1 : max_window;
}

/**
 * vrnic_read_ceiling_lost - what READs may keep in flight after a loss
 * @read_ceiling:	what they might before it
 *
 * Half, to no less than VRNIC_READ_INFLIGHT_FLOOR, and it does not grow
 * back: a link whose receiver a burst of READ responses overran once
 * (the UDP socket link at 128) loses again at the same size, while 64
 * was never seen to overrun one (see VRNIC_READ_INFLIGHT).
 *
 * Return: the new ceiling.
 */
u32 vrnic_read_ceiling_lost(u32 read_ceiling)
{
	return max_t(u32, read_ceiling / 2, VRNIC_READ_INFLIGHT_FLOOR);
}

/* A loss, the first of a resend: the window's ceilings come down. */
static void vrnic_comp_loss(struct vrnic_qp *qp)
{
	qp->comp.ceiling = vrnic_window_ceiling_lost(qp->comp.ceiling,
						     vrnic_comp_max_window());
	qp->comp.read_ceiling = vrnic_read_ceiling_lost(qp->comp.read_ceiling);
	qp->comp.window = min(qp->comp.window, qp->comp.ceiling);
}

/*
 * Go back to the WQE holding @psn and send again from there (IBA 9.7.5.2).
 * A READ resumes at its first response missing: the responder answers a
 * request for a part of a READ it executed before (IBA 9.7.5.1.3).
 */
static void vrnic_comp_rewind(struct vrnic_qp *qp, u32 psn,
			      enum vrnic_retransmit_reason why)
{
	struct vrnic_queue *q = &qp->sq.queue;
	u32 i, end;

	/*
	 * What goes out again up to here is not timed (Karn's rule), and
	 * responses up to here are still taken: the responder may answer
	 * the first copies.
	 */
	if (!vrnic_comp_behind(qp)) {
		qp->comp.resent_end = qp->req.psn;
		qp->comp.resent_wqe = vrnic_comp_req_end(qp);
		if (why != VRNIC_RETX_RNR_NAK)
			vrnic_comp_loss(qp);
	}
	qp->comp.resending = true;
	qp->comp.rtt_on = false;
	/* A NAK or a missing response shows a loss: nothing to undo. */
	if (why != VRNIC_RETX_TIMEOUT)
		qp->comp.undo_window = 0;
	end = vrnic_comp_end(qp);

	for (i = vrnic_queue_consumer(q); i != end; i = (i + 1) & q->mask) {
		struct vrnic_swqe *w = &qp->swqe[i];

		if (w->done)
			continue;
		if (vrnic_psn_after(psn, w->last_psn))
			continue;
		if (w->opcode == IB_WR_RDMA_READ)
			vrnic_req_rewind(&qp->req, i, w->resp_bytes,
					 vrnic_psn_add(w->first_psn,
						       w->resp_bytes / qp->mtu));
		else if (vrnic_wr_is_atomic(w->opcode) ||
			 vrnic_psn_before(psn, w->first_psn))
			vrnic_req_rewind(&qp->req, i, 0, w->first_psn);
		else
			vrnic_req_rewind(&qp->req, i, vrnic_psn_diff(psn, w->first_psn) *
						qp->mtu, psn);
		vrnic_count(to_vdev(qp->ibqp.device), VRNIC_CNT_RETRANSMITS);
		trace_retransmit(&qp->ibqp, qp->req.psn, why, qp->comp.retry);
		return;
	}
}

/* The oldest WQE not done yet, or NULL. */
static struct vrnic_swqe *vrnic_comp_head(struct vrnic_qp *qp)
{
	struct vrnic_queue *q = &qp->sq.queue;
	u32 i, end = vrnic_comp_end(qp);

	for (i = vrnic_queue_consumer(q); i != end; i = (i + 1) & q->mask)
		if (!qp->swqe[i].done)
			return &qp->swqe[i];
	return NULL;
}

/* Every SEND/WRITE up to @psn is acknowledged (ACKs are cumulative). */
static void vrnic_comp_ack_upto(struct vrnic_qp *qp, u32 psn)
{
	struct vrnic_queue *q = &qp->sq.queue;
	u32 i, end = vrnic_comp_end(qp);

	for (i = vrnic_queue_consumer(q); i != end; i = (i + 1) & q->mask) {
		struct vrnic_swqe *w = &qp->swqe[i];

		if (w->done)
			continue;
		if (vrnic_psn_after(w->last_psn, psn))
			break;
		if (vrnic_wr_is_read_atomic(w->opcode))
			break;
		w->status = IB_WC_SUCCESS;
		w->done = true;
	}
}

/* Scatter read-response or atomic-response bytes into the WQE's SGEs. */
static int vrnic_comp_scatter(struct vrnic_qp *qp, struct vrnic_swqe *w,
			      u32 offset, const void *data, u32 len)
{
	const struct rxe_send_wqe *s = vrnic_queue_slot(&qp->sq.queue,
							w - qp->swqe);

	return vrnic_sge_copy(to_vdev(qp->ibqp.device), qp->ibqp.pd, s->dma.sge,
			      w->num_sge, offset, (void *)data, len,
			      IB_ACCESS_LOCAL_WRITE, VRNIC_DMA_FROM_DEVICE,
			      &qp->pf);
}

static void vrnic_comp_fail(struct vrnic_qp *qp, struct vrnic_swqe *w, int status)
{
	w->status = status;
	w->done = true;
}

/* The PSN of the next response the READ or atomic @w waits for. */
static u32 vrnic_comp_expect(struct vrnic_qp *qp, const struct vrnic_swqe *w)
{
	if (w->opcode == IB_WR_RDMA_READ)
		return vrnic_psn_add(w->first_psn, w->resp_bytes / qp->mtu);
	return w->first_psn;
}

/*
 * A response for a PSN past what the oldest READ or atomic waits for: the
 * one it waits for was lost (IBA 9.7.5.1.2, implied NAK).  Ask again at
 * once, once per loss; what is still in flight behind the gap is dropped
 * until the new responses arrive in order.
 */
static void vrnic_comp_lost_response(struct vrnic_qp *qp, u32 from)
{
	if (qp->comp.rewound)
		return;
	qp->comp.rewound = true;
	vrnic_count(to_vdev(qp->ibqp.device), VRNIC_CNT_IMPLIED_NAK);
	vrnic_comp_rewind(qp, from, VRNIC_RETX_LOST_RESPONSE);
}

/*
 * The responder executed every request before @psn (an ACK, a NAK or a
 * response says so).  SENDs and WRITEs before it are done; a READ or an
 * atomic before it is done only with its response, so the oldest PSN not
 * acknowledged stops there.  Returns that PSN: @psn, or earlier when a
 * response was lost.
 */
static u32 vrnic_comp_acked_before(struct vrnic_qp *qp, u32 psn)
{
	struct vrnic_swqe *w;

	vrnic_comp_ack_upto(qp, vrnic_psn_sub(psn, 1));
	w = vrnic_comp_head(qp);
	if (w && vrnic_wr_is_read_atomic(w->opcode)) {
		u32 expect = vrnic_comp_expect(qp, w);

		if (vrnic_psn_after(psn, expect))
			psn = expect;
	}
	vrnic_comp_set_una(qp, psn);
	return psn;
}

/*
 * Spend one of the QP's retries on a resend of @w: the IBA's retry
 * counter counts resends after a local ACK timeout or a PSN sequence
 * error NAK, as rxe's completer does; progress refills it.  False when
 * none was left:
 * @w has failed with IB_WC_RETRY_EXC_ERR and nothing is to be resent.
 */
static bool vrnic_comp_spend_retry(struct vrnic_qp *qp, struct vrnic_swqe *w)
{
	if (qp->comp.retry == 0 ||
	    (vrnic_mutant(retry_short) && qp->comp.retry == 1)) {
		vrnic_count(to_vdev(qp->ibqp.device), VRNIC_CNT_RETRY_EXCEEDED);
		vrnic_comp_fail(qp, w, IB_WC_RETRY_EXC_ERR);
		return false;
	}
	qp->comp.retry--;
	return true;
}

static void vrnic_comp_nak(struct vrnic_qp *qp, u8 syndrome, u32 psn)
{
	struct vrnic_dev *vdev = to_vdev(qp->ibqp.device);
	struct vrnic_swqe *w;

	trace_nak(&qp->ibqp, psn, syndrome, 0);
	if ((syndrome & VRNIC_AETH_TYPE_MASK) == VRNIC_AETH_RNR_NAK) {
		vrnic_count(vdev, VRNIC_CNT_RNR_NAK_RCVD);
		w = vrnic_comp_head(qp);
		if (!w)
			return;
		if (qp->comp.rnr_retry != 7 && qp->comp.rnr_retry-- == 0) {
			vrnic_comp_fail(qp, w, IB_WC_RNR_RETRY_EXC_ERR);
			return;
		}
		qp->comp.rnr_until = jiffies +
			usecs_to_jiffies(vrnic_rnr_usec[syndrome & VRNIC_AETH_VALUE_MASK]);
		vrnic_count(vdev, VRNIC_CNT_RNR_NAK_RETRY);
		vrnic_comp_rewind(qp, psn, VRNIC_RETX_RNR_NAK);
		vrnic_comp_arm(qp);
		return;
	}

	/* A NAK acknowledges everything before its PSN (IBA 9.7.5.1.2). */
	psn = vrnic_comp_acked_before(qp, psn);
	w = vrnic_comp_head(qp);
	if (!w)
		return;
	switch (syndrome) {
	case VRNIC_AETH_NAK_PSN_SEQ_ERR:
		vrnic_count(vdev, VRNIC_CNT_SEQ_NAK_RCVD);
		/*
		 * The go-back spends a retry, as a timeout's does, once until
		 * the next progress, as rxe's started_retry: a NAK that comes
		 * while a resend is under way (for a first copy sent before
		 * it), or again before anything was acknowledged, starts no
		 * new retry sequence to pay for.  A message that draws an RNR
		 * NAK on its first packet draws a sequence NAK on its second,
		 * every RNR round: those spend one retry, not one a round
		 * (an RNR retry count of 7 retries for ever).  Progress gives
		 * the retry back.
		 */
		if (!vrnic_comp_behind(qp) && !qp->comp.nak_spent) {
			if (!vrnic_comp_spend_retry(qp, w))
				break;
			qp->comp.nak_spent = true;
		}
		vrnic_count(vdev, VRNIC_CNT_SEQ_NAK_RETRY);
		vrnic_comp_rewind(qp, psn, VRNIC_RETX_SEQ_NAK);
		break;
	case VRNIC_AETH_NAK_REM_ACCESS_ERR:
		vrnic_count(vdev, VRNIC_CNT_REM_ACCESS_ERR);
		vrnic_count(vdev, VRNIC_CNT_REQ_REM_ACCESS);
		vrnic_comp_fail(qp, w, IB_WC_REM_ACCESS_ERR);
		break;
	case VRNIC_AETH_NAK_REM_OP_ERR:
		vrnic_comp_fail(qp, w, IB_WC_REM_OP_ERR);
		break;
	case VRNIC_AETH_NAK_INVALID_REQ:
		vrnic_count(vdev, VRNIC_CNT_REQ_REM_INV);
		fallthrough;
	default:
		vrnic_comp_fail(qp, w, IB_WC_REM_INV_REQ_ERR);
		break;
	}
}

/* An atomic acknowledge for the atomic @w. */
static void vrnic_comp_atomic_ack(struct vrnic_qp *qp, struct vrnic_swqe *w,
				  struct sk_buff *skb)
{
	struct vrnic_atmack *ack = vrnic_pkt_hdr(skb, VRNIC_HDR_ATMACK);
	u64 orig = vrnic_atmack_orig(ack);
	int err;

	err = vrnic_comp_scatter(qp, w, 0, &orig, sizeof(orig));
	if (err == -EAGAIN)
		return;		/* a page fault: taken again once resolved */
	if (err) {
		vrnic_comp_fail(qp, w, IB_WC_LOC_PROT_ERR);
		return;
	}
	w->done = true;
	vrnic_comp_set_una(qp, vrnic_psn_next(vrnic_pkt(skb)->psn));
}

/* A read response for the READ @w, in order. */
static void vrnic_comp_read_resp(struct vrnic_qp *qp, struct vrnic_swqe *w,
				 struct sk_buff *skb)
{
	struct vrnic_pkt *pkt = vrnic_pkt(skb);
	u32 end = w->resp_bytes + pkt->paylen;
	u32 chunk = vrnic_read_chunk(qp->mtu);
	int err;

	/*
	 * Each chunk request's responses end with a LAST (or ONLY) packet on
	 * a chunk boundary or at the end of the READ; every other packet is
	 * a full path MTU.
	 */
	if (end > w->length ||
	    ((pkt->flags & VRNIC_OPF_LAST) ?
	     end != w->length && (pkt->paylen != qp->mtu || end % chunk) :
	     pkt->paylen != qp->mtu || end == w->length || end % chunk == 0)) {
		vrnic_comp_fail(qp, w, IB_WC_BAD_RESP_ERR);
		return;
	}
	err = vrnic_comp_scatter(qp, w, w->resp_bytes, vrnic_pkt_payload(skb),
				 pkt->paylen);
	if (err == -EAGAIN)
		return;		/* a page fault: taken again once resolved */
	if (err) {
		vrnic_comp_fail(qp, w, IB_WC_LOC_PROT_ERR);
		return;
	}
	w->resp_bytes = end;
	vrnic_comp_set_una(qp, vrnic_psn_next(pkt->psn));
	if (end == w->length)
		w->done = true;
}

/* A read response or atomic acknowledge for the oldest outstanding WQE. */
static void vrnic_comp_response(struct vrnic_qp *qp, struct sk_buff *skb)
{
	struct vrnic_pkt *pkt = vrnic_pkt(skb);
	struct vrnic_swqe *w = vrnic_comp_head(qp);
	bool atomic_ack = pkt->flags & VRNIC_OPF_ATOMIC_ACK;
	u32 expect;

	if (!w || !vrnic_wr_is_read_atomic(w->opcode))
		return;		/* stale: a duplicate of one already taken */
	expect = vrnic_comp_expect(qp, w);
	if (pkt->psn != expect) {
		if (vrnic_psn_after(pkt->psn, expect))
			vrnic_comp_lost_response(qp, expect);
		return;		/* before: a stale duplicate */
	}
	qp->comp.rewound = false;
	/* The right PSN, the wrong kind of response: a broken responder. */
	if (atomic_ack != vrnic_wr_is_atomic(w->opcode)) {
		vrnic_comp_fail(qp, w, IB_WC_BAD_RESP_ERR);
		return;
	}
	if (atomic_ack)
		vrnic_comp_atomic_ack(qp, w, skb);
	else
		vrnic_comp_read_resp(qp, w, skb);
}

/*
 * Acknowledged past where a rewind put the requester: the responder had
 * the first copies.  The requester resumes at the oldest PSN not
 * acknowledged, rather than send the rest a second time; it stays at or
 * before the oldest WQE not done, which retiring never passes.
 */
static void vrnic_comp_skip_acked(struct vrnic_qp *qp)
{
	struct vrnic_swqe *w;

	if (!vrnic_psn_after(qp->comp.una, qp->req.psn))
		return;
	for (;;) {
		if (qp->req.index == qp->req.next_new)
			return;
		w = &qp->swqe[qp->req.index];
		if (!w->done)
			break;
		if (w->status != IB_WC_SUCCESS)
			return;
		vrnic_req_step_over(&qp->req, w->last_psn, qp->sq.queue.mask);
	}
	/* A SEND or WRITE acknowledged in part: on from its first PSN not. */
	if (vrnic_wr_is_read_atomic(w->opcode) || vrnic_wr_is_local(w->opcode) ||
	    !vrnic_psn_after(qp->comp.una, qp->req.psn) ||
	    vrnic_psn_after(qp->comp.una, w->last_psn))
		return;
	vrnic_req_rewind(&qp->req, qp->req.index,
			 vrnic_psn_diff(qp->comp.una, w->first_psn) * qp->mtu,
			 qp->comp.una);
}

/*
 * Undo an early expiry that was spurious, as TCP's Eifel and F-RTO do
 * (RFC 4015, RFC 5682): the responder acknowledged a PSN not sent again
 * since (@undo_high), so it had the first copies, and in order (it takes
 * none past a gap): the expiry was a delay or a lost ACK, not a lost
 * request.  The window is what it was, instead of growing again from one
 * PSN; the requester goes on from @una (vrnic_comp_skip_acked()), since
 * what follows it may be lost still.  The RTT estimate is left alone:
 * that ACK may answer the resend (the first ACK lost), and an estimate
 * raised on it slowed the recovery of later losses (the netem loss2d1
 * case); the backoff, held until a sample (vrnic_comp_rtt_sample()),
 * keeps the next wait long enough.
 * Called before vrnic_comp_skip_acked(), with @una updated.
 */
static void vrnic_comp_undo(struct vrnic_qp *qp)
{
	if (!qp->comp.undo_window)
		return;
	/* The resend reached where it had got to: nothing proved. */
	if (!vrnic_comp_behind(qp)) {
		qp->comp.undo_window = 0;
		return;
	}
	if (!vrnic_psn_after(qp->comp.una, qp->comp.undo_high))
		return;
	qp->comp.window = max(qp->comp.window, qp->comp.undo_window);
	qp->comp.ceiling = max(qp->comp.ceiling, qp->comp.undo_ceiling);
	qp->comp.read_ceiling = max(qp->comp.read_ceiling,
				    qp->comp.undo_read_ceiling);
	qp->comp.undo_window = 0;
	vrnic_count(to_vdev(qp->ibqp.device), VRNIC_CNT_RETRANS_UNDONE);
}

/* AETH syndromes the IBA reserves. */
static bool vrnic_comp_syndrome_reserved(u8 syndrome)
{
	return (syndrome & VRNIC_AETH_RESV) ||
	       (syndrome & VRNIC_AETH_TYPE_MASK) == VRNIC_AETH_RESERVED_TYPE ||
	       ((syndrome & VRNIC_AETH_TYPE_MASK) == VRNIC_AETH_NAK &&
		syndrome > VRNIC_AETH_NAK_REM_OP_ERR);
}

/*
 * Ignore responses for PSNs never sent, or for PSNs already acknowledged
 * (IBA 9.7.5.1.1: ghosts and stale duplicates).  After a rewind, an ACK
 * or NAK for a PSN sent before it is no ghost: the responder acks a
 * duplicate with the newest PSN it executed, which the resend has not
 * reached yet.  A read response or atomic ACK there answers a request the
 * requester is going to ask again: it is taken when it comes again, in
 * order behind the new request.
 */
static bool vrnic_comp_ignored(struct vrnic_qp *qp, struct vrnic_pkt *pkt)
{
	u32 end = pkt->flags & (VRNIC_OPF_READ_RESP | VRNIC_OPF_ATOMIC_ACK) ?
		  qp->req.psn : vrnic_comp_psn_end(qp);

	return !vrnic_psn_before(pkt->psn, end) ||
	       vrnic_psn_before(pkt->psn, qp->comp.una);
}

/**
 * vrnic_comp_progress - what a response taken moved
 * @qp:		the QP, its engines running
 * @syndrome:	the response's AETH syndrome (an ACK if it had no AETH)
 * @cons_before:	the SQ's consumer index before the response
 * @una_before:	the oldest PSN not acknowledged before the response
 *
 * Progress is a WQE retired or PSNs newly acknowledged (as in a long
 * SEND).  It refills the retry budgets, which only timeouts and sequence
 * error NAKs spend: a peer that answers, but never with what we wait for,
 * still exhausts them.  The retransmit timer restarts while anything is
 * left.
 */
static void vrnic_comp_progress(struct vrnic_qp *qp, u8 syndrome,
				u32 cons_before, u32 una_before)
{
	bool progress;

	progress = vrnic_queue_consumer(&qp->sq.queue) != cons_before ||
		   qp->comp.una != una_before;
	if (qp->comp.rtt_on && vrnic_psn_after(qp->comp.una, qp->comp.rtt_psn))
		vrnic_comp_rtt_sample(qp);
	if (!progress)
		return;
	qp->comp.ceiling = vrnic_window_ceiling_grown(qp->comp.ceiling,
						      vrnic_comp_max_window());
	qp->comp.window = min(2 * qp->comp.window, qp->comp.ceiling);
	qp->comp.retry = qp->attr.retry_cnt;
	qp->comp.nak_spent = false;
	qp->comp.deferred = 0;
	qp->comp.heard = false;
	if ((syndrome & VRNIC_AETH_TYPE_MASK) != VRNIC_AETH_RNR_NAK)
		qp->comp.rnr_retry = qp->attr.rnr_retry;
	if (vrnic_queue_consumer(&qp->sq.queue) != vrnic_comp_end(qp))
		vrnic_comp_arm(qp);
}

/**
 * vrnic_comp_rx - take one response packet (consumed, or put back at the
 *	head of qp->rx when it met a page fault: qp->pf)
 * @qp:		the QP, its engines running
 * @skb:	the response, parsed (struct vrnic_pkt)
 */
void vrnic_comp_rx(struct vrnic_qp *qp, struct sk_buff *skb)
{
	struct vrnic_pkt *pkt = vrnic_pkt(skb);
	struct vrnic_aeth *aeth = vrnic_pkt_hdr(skb, VRNIC_HDR_AETH);
	u8 syndrome = aeth ? vrnic_aeth_syndrome(aeth) : VRNIC_AETH_ACK;
	u32 cons_before = vrnic_queue_consumer(&qp->sq.queue);
	u32 una_before = qp->comp.una;

	vrnic_engines_assert_held(qp);

	if (qp->ibqp.qp_type != IB_QPT_RC)
		goto drop;
	if (vrnic_comp_syndrome_reserved(syndrome))
		goto drop;
	/*
	 * The responder is answering, if only requests we asked twice: the
	 * timer waits for it a while (vrnic_comp_timeout()).
	 */
	qp->comp.heard = true;
	if (vrnic_comp_ignored(qp, pkt))
		goto drop;

	if ((syndrome & VRNIC_AETH_TYPE_MASK) != VRNIC_AETH_ACK) {
		vrnic_comp_nak(qp, syndrome, pkt->psn);
	} else if (pkt->flags & (VRNIC_OPF_READ_RESP | VRNIC_OPF_ATOMIC_ACK)) {
		/* Responses imply the ACK of what came before them. */
		vrnic_comp_acked_before(qp, pkt->psn);
		vrnic_comp_response(qp, skb);
	} else {
		u32 next = vrnic_psn_next(pkt->psn);

		if (vrnic_comp_acked_before(qp, next) != next)
			vrnic_comp_lost_response(qp, qp->comp.una);
	}
	vrnic_comp_undo(qp);
	vrnic_comp_skip_acked(qp);
	vrnic_comp_retire(qp);
	vrnic_comp_progress(qp, syndrome, cons_before, una_before);
	/*
	 * A response whose payload met an on-demand MR's page not mapped:
	 * it is taken again, first, once the QP's work has faulted the page
	 * in (what it acknowledged before it stays acknowledged).
	 */
	if (smp_load_acquire(&qp->pf.pending)) {
		skb_queue_head(&qp->rx, skb);
		return;
	}
	kfree_skb(skb);
	return;
drop:
	vrnic_count(to_vdev(qp->ibqp.device), VRNIC_CNT_RX_DROP_RESP);
	kfree_skb(skb);
}

/*
 * The timer's resend: from the oldest PSN not acknowledged, of WQE @w,
 * one PSN at first.  Silence for a whole timeout on a link that loses
 * nothing (veth, loopback) is a queue, not a loss: the CPUs that carry the
 * packets were busy, as when a debug kernel's softirqs are left to
 * ksoftirqd.  Sending the whole window again only lengthened that queue,
 * each copy answered by an ACK of its own, until the retries ran out with
 * the responses behind them.  As TCP after an RTO (RFC 5681, 3.1): one
 * packet, whose ACK (of everything the responder has, the first copies
 * included) shows what is missing, and the window doubles from there.
 */
static void vrnic_comp_resend_oldest(struct vrnic_qp *qp,
				     const struct vrnic_swqe *w)
{
	qp->comp.window = 1;
	vrnic_comp_rewind(qp, vrnic_psn_after(qp->comp.una, w->first_psn) ?
			      qp->comp.una : w->first_psn, VRNIC_RETX_TIMEOUT);
}

/*
 * Before an early expiry's resend: what vrnic_comp_undo() restores.  Only
 * while the requester is not resending already: after a NAK's rewind the
 * window is the loss's, and after an earlier expiry's the mark it left
 * stays.
 */
static void vrnic_comp_undo_mark(struct vrnic_qp *qp)
{
	if (vrnic_comp_behind(qp))
		return;
	qp->comp.undo_window = qp->comp.window;
	qp->comp.undo_ceiling = qp->comp.ceiling;
	qp->comp.undo_read_ceiling = qp->comp.read_ceiling;
	qp->comp.undo_high = qp->comp.una;
}

/**
 * vrnic_comp_rto_expired - the retransmit timeout ran out, @w not done
 * @qp:		the QP, its engines running
 * @w:		the oldest send WQE not done
 *
 * Responses kept coming in this period, just not the one we wait for:
 * they are queued ahead of it (the rest of a window of READs answered
 * before the loss we already asked about), not lost.  A resend now only
 * queues a second copy of all of them behind the first, and on a slow
 * host that collapses into retries without end.  Wait another period
 * instead, a bounded number of times, so that a peer that answers but
 * never with what we wait for still runs out the retry budget.
 */
static void vrnic_comp_rto_expired(struct vrnic_qp *qp, struct vrnic_swqe *w)
{
	if (qp->comp.timer_early) {
		/*
		 * Sooner than the QP's timeout (adaptive): the next wait is
		 * twice as long; resend unless responses are arriving, and
		 * keep what to restore should the resend prove spurious.
		 */
		if (!qp->comp.heard) {
			vrnic_count(to_vdev(qp->ibqp.device),
				    VRNIC_CNT_ADP_RETRANS);
			vrnic_comp_undo_mark(qp);
			vrnic_comp_resend_oldest(qp, w);
		}
		qp->comp.early++;
		qp->comp.heard = false;
		qp->comp.rewound = false;
		vrnic_comp_arm(qp);
		return;
	}
	if (qp->comp.heard && qp->comp.deferred < VRNIC_TIMER_DEFERRALS) {
		qp->comp.heard = false;
		qp->comp.deferred++;
		vrnic_comp_arm(qp);
		return;
	}
	qp->comp.heard = false;
	if (!vrnic_comp_spend_retry(qp, w)) {
		vrnic_comp_retire(qp);
		return;
	}
	vrnic_count(to_vdev(qp->ibqp.device), VRNIC_CNT_ACK_TIMEOUT);
	qp->comp.rewound = false;
	vrnic_comp_resend_oldest(qp, w);
	vrnic_comp_arm(qp);
}

/**
 * vrnic_comp_timeout - the retransmit timer fired
 * @qp:		the QP, its engines running
 */
void vrnic_comp_timeout(struct vrnic_qp *qp)
{
	struct vrnic_swqe *w;

	vrnic_engines_assert_held(qp);

	if (qp->ibqp.qp_type != IB_QPT_RC)
		return;
	/*
	 * Stale: the timer fired while a response waited in the QP's queue,
	 * and that response, taken first, acknowledged the PSN being waited
	 * for and started the next wait.  Taken as an expiry, it resent a
	 * window that was only being acknowledged (a 4-QP WRITE on the tap
	 * link: early expiries 12-153 us after a 39-63 ms timer was
	 * armed).
	 */
	if (timer_pending(&qp->timer))
		return;
	if (time_before(jiffies, qp->comp.rnr_until)) {
		vrnic_comp_arm(qp);	/* still waiting out an RNR NAK */
		return;
	}
	w = vrnic_comp_head(qp);
	if (!w)
		return;
	/*
	 * The end of an RNR NAK's delay: the requester resends now (the work
	 * that runs this goes on to it), and the retransmit timer covers
	 * that resend.  It spends nothing: the RNR retry count has paid for
	 * it, and a responder that keeps answering RNR for longer than the
	 * QP's timeouts is not one that is silent.
	 */
	if (qp->comp.rnr_wait) {
		qp->comp.rnr_wait = false;
		vrnic_comp_arm(qp);
		return;
	}
	vrnic_comp_rto_expired(qp, w);
}
