// SPDX-License-Identifier: GPL-2.0-only
/*
 * vrnic hardware model: the clock's pace mode.
 *
 * clock.mode off accounts nothing; account costs every DMA (model.c);
 * pace also keeps each device's modeled PCIe link as a timeline in
 * wall-clock time, stretched by clock.dilation, and holds the requester
 * to it (Documentation/model.rst, "The clock block").
 *
 * Copyright (c) 2026 The vrnic authors
 */

#include <linux/ktime.h>
#include <linux/minmax.h>
#include <linux/spinlock.h>
#include <linux/timekeeping.h>

#include "clock.h"

/**
 * vrnic_model_pace_advance - a DMA on the paced timeline
 * @m:		the model
 * @busy_ns:	modeled time it occupies the link (its busier direction)
 * @latency_ns:	modeled time until it is done (a read's latency)
 * @dependent:	the engine needs its data before it can go on
 * @now:	ktime_get_ns()
 *
 * Both times are stretched by clock.dilation.  The link is a pipeline: a
 * DMA starts when the link is free (or now, if it has been idle: the link
 * waited for the host, counted in model_pace_idle_ns) and occupies it for
 * @busy_ns.  Its latency overlaps the DMAs before it, as a NIC's
 * outstanding read requests do, so only a DMA that finds the pipeline
 * drained (the link idle for longer than the latency) waits for it: the
 * first of a burst, a lone ping-pong message.
 *
 * A @dependent read (an MPT/MTT fetch on an MR cache miss, a QP context
 * fetch on a QPC miss) is different: the DMAs that follow need what it
 * returns (the translation of their addresses, the QP's state), so
 * nothing after it starts until its latency has passed.  That stall is
 * what makes a thrashing cache expensive on a real NIC.  Context: any.
 */
void vrnic_model_pace_advance(struct vrnic_model *m, u64 busy_ns, u64 latency_ns,
			      bool dependent, u64 now)
{
	u64 d = READ_ONCE(m->knob[VRNIC_KNOB_CLOCK_DILATION]);
	unsigned long flags;
	u64 start, idle = 0;

	busy_ns *= d;
	latency_ns *= d;
	spin_lock_irqsave(&m->pace_lock, flags);
	start = m->pace_next;
	if (start < now) {
		if (start)
			idle = now - start;
		/* Drained: this DMA waits for its own latency. */
		if (start + latency_ns < now)
			dependent = true;
		start = now;
	}
	WRITE_ONCE(m->pace_next,
		   start + (dependent ? max(busy_ns, latency_ns) : busy_ns));
	spin_unlock_irqrestore(&m->pace_lock, flags);
	if (idle)
		vrnic_mcnt_add(m, VRNIC_MCNT_PACE_IDLE_NS, idle);
}

/**
 * vrnic_model_pace_wait - how long the requester (or the responder of a
 *	READ or atomic) must wait before it goes on, in clock.mode pace
 * @m:		the model
 *
 * The modeled link may run VRNIC_PACE_SLACK_NS ahead of the wall clock;
 * beyond that, the engine waits until it is back within (and counts
 * the wait with vrnic_model_pace_count()).  Context: any.
 * Return: ns to wait, 0 to go on.
 */
u64 vrnic_model_pace_wait(struct vrnic_model *m)
{
	u64 now, next;

	if (likely(READ_ONCE(m->knob[VRNIC_KNOB_CLOCK_MODE]) != VRNIC_CLOCK_PACE))
		return 0;
	now = ktime_get_ns();
	next = READ_ONCE(m->pace_next);
	if (next <= now + VRNIC_PACE_SLACK_NS)
		return 0;
	return next - now - VRNIC_PACE_SLACK_NS;
}

/*
 * The requester, or the responder of a READ or atomic, stopped for
 * @wait_ns of the paced link.  Context: any.
 */
void vrnic_model_pace_count(struct vrnic_model *m, u64 wait_ns)
{
	vrnic_mcnt_inc(m, VRNIC_MCNT_PACE_WAITS);
	vrnic_mcnt_add(m, VRNIC_MCNT_PACE_WAIT_NS, wait_ns);
}
