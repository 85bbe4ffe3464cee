/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vrnic: the completer engine.
 *
 * Copyright (c) 2026 The vrnic authors
 */

#ifndef VRNIC_COMP_H
#define VRNIC_COMP_H

#include <linux/types.h>

struct sk_buff;
/*
 * The completer's state in its QP: the retry counters, what is
 * acknowledged, the send window and the retransmit timer's estimate.
 * Others change it only through the completer's functions.
 */
struct vrnic_comp_state {
	u32		retry;	/* retries left */
	u32		rnr_retry;
	unsigned long	rnr_until;
	bool		rnr_wait;	/* the timer ends an RNR delay */
	u32		una;	/* oldest PSN not acknowledged */
	u32		window;	/* PSNs in flight from @una; see below */
	bool		rewound;	/* asked again for a response */
	bool		heard;	/* a response since the timer armed */
	u32		deferred;	/* timeouts waited out since progress */
	bool		nak_spent;	/* a sequence NAK spent a retry since progress */
	/* Adaptive retransmission (vrnic_comp.c): one PSN timed at once. */
	u64		rtt_start;	/* local_clock() when @rtt_psn left */
	u32		rtt_psn;
	bool		rtt_on;		/* @rtt_psn is being timed */
	bool		resending;	/* PSNs before @resent_end are resent */
	u32		resent_end;
	u32		resent_wqe;	/* one past the WQE of @resent_end */
	u32		srtt_us;	/* smoothed RTT; 0 until sampled */
	u32		rttvar_us;
	u32		early;		/* early expiries since an RTT sample */
	bool		timer_early;	/* set sooner than QP's timeout */
	/*
	 * An early expiry's resend, undone if it proves spurious
	 * (vrnic_comp_undo()): the window before it (0: nothing to undo),
	 * and one past the newest PSN sent again since.
	 */
	u32		undo_window;
	u32		undo_high;
	u32		undo_ceiling;
	u32		undo_read_ceiling;
	/*
	 * What @window may grow to: max_inflight, halved by each loss down
	 * to VRNIC_WINDOW_FLOOR and grown back a PSN per acknowledgment that
	 * makes progress (vrnic_window_ceiling_lost(), _grown()).
	 */
	u32		ceiling;
	/*
	 * What a READ's responses may take of @window: VRNIC_READ_INFLIGHT,
	 * halved by each loss down to VRNIC_READ_INFLIGHT_FLOOR, and not
	 * grown back (vrnic_read_ceiling_lost()).
	 */
	u32		read_ceiling;
};

struct vrnic_qp;

void vrnic_comp_rx(struct vrnic_qp *qp, struct sk_buff *skb);
void vrnic_comp_timeout(struct vrnic_qp *qp);
void vrnic_comp_retire(struct vrnic_qp *qp);
void vrnic_comp_arm(struct vrnic_qp *qp);
bool vrnic_comp_timer_armed(const struct vrnic_qp *qp);
void vrnic_comp_sent(struct vrnic_qp *qp, u32 psn);
void vrnic_comp_reset(struct vrnic_qp *qp);
void vrnic_comp_start(struct vrnic_qp *qp);
/*
 * The retransmit timer in microseconds: the QP's @timeout (IBA 9.7.6.1.3),
 * or sooner, when @adaptive and an estimate is known, after SRTT + 4
 * RTTVAR, doubled for each of @early expiries in a row (see vrnic_comp.c).
 */
u64 vrnic_comp_rto_us(u8 timeout, bool adaptive, u32 srtt_us, u32 rttvar_us,
		      u32 early);
void vrnic_rtt_update(u32 *srtt_us, u32 *rttvar_us, u64 sample_us);
u32 vrnic_window_ceiling_lost(u32 ceiling, u32 max_window);
u32 vrnic_window_ceiling_grown(u32 ceiling, u32 max_window);
u32 vrnic_read_ceiling_lost(u32 read_ceiling);

#endif /* VRNIC_COMP_H */
