// SPDX-License-Identifier: GPL-2.0-only
/*
 * vrnic hardware model: the send queue doorbell (see doorbell.h).
 *
 * Copyright (c) 2026 The vrnic authors
 */

#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/timekeeping.h>

#include "doorbell.h"
#include "model.h"

/*
 * Hand every held WQE to the requester.  Caller holds db->lock.  Return:
 * how long they waited in all (each WQE's wait, summed).
 */
static u64 vrnic_doorbell_release(struct vrnic_doorbell *db, u64 now)
{
	u64 age = now > db->first_ns ? now - db->first_ns : 0;
	u64 all = (u64)db->held * age;
	u64 wait = all > db->held_ns ? all - db->held_ns : 0;

	WRITE_ONCE(db->pi, db->rung);
	db->held = 0;
	db->held_ns = 0;
	return wait;
}

static enum hrtimer_restart vrnic_doorbell_expire(struct hrtimer *t)
{
	struct vrnic_doorbell *db = container_of(t, struct vrnic_doorbell, timer);
	struct vrnic_db_event ev = {
		.mode = VRNIC_DB_BATCH,
		.action = VRNIC_DB_TIMER,
	};
	unsigned long flags;

	spin_lock_irqsave(&db->lock, flags);
	/* Released by a full batch meanwhile, or the queue was reset. */
	if (!db->held) {
		spin_unlock_irqrestore(&db->lock, flags);
		return HRTIMER_NORESTART;
	}
	ev.released = db->held;
	ev.wait_ns = vrnic_doorbell_release(db, ktime_get_ns());
	spin_unlock_irqrestore(&db->lock, flags);

	vrnic_model_doorbell_account(db->model, &ev);
	db->run(db, &ev);
	return HRTIMER_NORESTART;
}

/**
 * vrnic_doorbell_init - a send queue's doorbell, nothing rung
 * @db:		the doorbell
 * @m:		the device's model
 * @producer:	reads the send queue's producer index (under db->lock)
 * @run:	called from the batch timer to run the requester
 */
void vrnic_doorbell_init(struct vrnic_doorbell *db, struct vrnic_model *m,
			 u32 (*producer)(struct vrnic_doorbell *db),
			 void (*run)(struct vrnic_doorbell *db,
				     const struct vrnic_db_event *ev))
{
	spin_lock_init(&db->lock);
	db->pi = 0;
	db->rung = 0;
	db->held = 0;
	db->first_ns = 0;
	db->held_ns = 0;
	db->model = m;
	db->producer = producer;
	db->run = run;
	hrtimer_init(&db->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	db->timer.function = vrnic_doorbell_expire;
}

/*
 * The queue went back to index 0 (QP reset): forget what was rung.  A
 * timer still queued finds nothing held.  Context: any.
 */
void vrnic_doorbell_reset(struct vrnic_doorbell *db)
{
	unsigned long flags;

	spin_lock_irqsave(&db->lock, flags);
	WRITE_ONCE(db->pi, 0);
	db->rung = 0;
	db->held = 0;
	db->held_ns = 0;
	spin_unlock_irqrestore(&db->lock, flags);
}

/*
 * The queue goes away: stop the timer, waiting for a running callback.
 * Context: process; the caller made sure nothing rings any more.
 */
void vrnic_doorbell_fini(struct vrnic_doorbell *db)
{
	hrtimer_cancel(&db->timer);
}

/**
 * vrnic_doorbell_ring - software rang: read the producer index and act
 * @db:		the doorbell
 * @mask:	the queue's index mask (entries - 1)
 * @engine_busy: the requester is still working through WQEs released
 *		earlier (shadow mode: it will read the record itself)
 * @ev:		filled with what the doorbell did
 *
 * The index is read under db->lock, so rings that race (a kernel consumer
 * posting from process and irq context, a QP reset) are seen in order and
 * the released index never steps back past WQEs already released.
 *
 * Context: any.  Return: true when the requester should run now.
 */
bool vrnic_doorbell_ring(struct vrnic_doorbell *db, u32 mask, bool engine_busy,
			 struct vrnic_db_event *ev)
{
	struct vrnic_model *m = db->model;
	u32 batch, batch_ns, pi;
	unsigned long flags;
	bool run = true;
	u64 now;

	ev->mode = READ_ONCE(m->knob[VRNIC_KNOB_DOORBELL_MODE]);
	ev->wait_ns = 0;
	/* Only a batch times its WQEs: no clock read per post otherwise. */
	now = ev->mode == VRNIC_DB_BATCH ? ktime_get_ns() : 0;
	spin_lock_irqsave(&db->lock, flags);
	pi = db->producer(db) & mask;
	ev->wqes = (pi - db->rung) & mask;
	db->rung = pi;
	switch (ev->mode) {
	case VRNIC_DB_BATCH:
		batch = READ_ONCE(m->knob[VRNIC_KNOB_DOORBELL_BATCH_WQES]);
		batch_ns = READ_ONCE(m->knob[VRNIC_KNOB_DOORBELL_BATCH_NS]);
		if (ev->wqes) {
			if (!db->held)
				db->first_ns = now;
			db->held += ev->wqes;
			db->held_ns += (u64)ev->wqes * (now - db->first_ns);
		}
		if (db->held >= batch || !batch_ns) {
			ev->action = VRNIC_DB_FULL;
			ev->released = db->held;
			ev->wait_ns = vrnic_doorbell_release(db, now);
			/* A running callback finds nothing held. */
			hrtimer_try_to_cancel(&db->timer);
		} else {
			ev->action = VRNIC_DB_HOLD;
			ev->released = 0;
			if (db->held && !hrtimer_is_queued(&db->timer))
				hrtimer_start(&db->timer, ns_to_ktime(batch_ns),
					      HRTIMER_MODE_REL);
			/* Nothing new for the requester (a flush may be). */
			run = !db->held;
		}
		break;
	default:
		ev->action = ev->mode == VRNIC_DB_SHADOW ?
			     (engine_busy ? VRNIC_DB_ABSORBED : VRNIC_DB_WAKE) :
			     VRNIC_DB_RING;
		/* WQEs a batch held before the mode changed go too. */
		ev->released = ev->wqes + db->held;
		if (db->held)
			ev->wait_ns = vrnic_doorbell_release(db, ktime_get_ns());
		WRITE_ONCE(db->pi, db->rung);
		break;
	}
	spin_unlock_irqrestore(&db->lock, flags);

	vrnic_model_doorbell_account(m, ev);
	return run;
}
