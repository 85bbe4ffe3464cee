/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vrnic hardware model: the send queue doorbell.
 *
 * Software tells a NIC about new send WQEs by writing the queue's producer
 * index to the NIC, and the NIC's engine works the queue up to the index it
 * was told.  Under the rxe ABI the doorbell is the POST_SEND command with
 * no work requests (kernel consumers: vrnic_post_send()); this block
 * decides when the requester learns of the WQEs and what the doorbell
 * costs on the modeled NIC (doorbell.mode):
 *
 * - mmio:   every doorbell is an MMIO write of the producer index, and the
 *           requester sees the WQEs at once.
 * - batch:  doorbells are coalesced: the producer index is written once
 *           doorbell.batch_wqes WQEs are waiting, or doorbell.batch_ns after
 *           the first of them, whichever comes first.  Fewer MMIO writes;
 *           the WQEs wait.
 * - shadow: software keeps the producer index in host memory (a doorbell
 *           record) that the engine reads while it works the queue; a
 *           doorbell finding the engine busy on the queue costs no MMIO
 *           write, one finding it idle is an MMIO write that wakes it.
 *
 * Doorbells act in every clock mode (batch holds WQEs for real); with
 * clock.mode account they are also counted and costed.  The block is a
 * leaf: it tells the requester to run through the callback the QP layer
 * gave it, never by calling the transport.
 *
 * Copyright (c) 2026 The vrnic authors
 */

#ifndef VRNIC_HW_DOORBELL_H
#define VRNIC_HW_DOORBELL_H

#include <linux/hrtimer.h>
#include <linux/spinlock.h>
#include <linux/types.h>

enum vrnic_db_mode {
	VRNIC_DB_MMIO,
	VRNIC_DB_BATCH,
	VRNIC_DB_SHADOW,
};

/* What a doorbell did, for the doorbell tracepoint. */
enum vrnic_db_action {
	VRNIC_DB_RING,		/* mmio: written, WQEs released */
	VRNIC_DB_HOLD,		/* batch: held for more WQEs */
	VRNIC_DB_FULL,		/* batch: a full batch (or no wait), written */
	VRNIC_DB_TIMER,		/* batch: written when batch_ns ran out */
	VRNIC_DB_ABSORBED,	/* shadow: the busy engine reads it itself */
	VRNIC_DB_WAKE,		/* shadow: the idle engine woken by MMIO */
};

/* The outcome of one doorbell (or batch timer), for the tracepoint. */
struct vrnic_db_event {
	enum vrnic_db_mode	mode;
	enum vrnic_db_action	action;
	u32			wqes;	  /* WQEs this doorbell announced */
	u32			released; /* WQEs handed to the requester now */
	u64			wait_ns;  /* batch: time the released WQEs waited */
};

struct vrnic_model;

/**
 * struct vrnic_doorbell - one send queue's doorbell
 * @lock:	guards the fields below; irqs off (kernel consumers post
 *		from any context, the timer runs in hard irq)
 * @pi:		the producer index the requester may work up to
 * @rung:	the newest producer index rung (batch: @pi lags it)
 * @held:	batch: WQEs rung and not yet released
 * @first_ns:	batch: ktime_get_ns() when the oldest held WQE was rung
 * @held_ns:	batch: sum over @held WQEs of their ring time - @first_ns
 * @timer:	batch: releases what is held after doorbell.batch_ns
 * @model:	the device's model (knobs, counters)
 * @producer:	the QP layer's: the send queue's producer index now
 * @run:	the QP layer's callback, from the timer (hard irq): run the
 *		requester soon; @ev says what the timer released
 */
struct vrnic_doorbell {
	spinlock_t		lock;	/* guards the doorbell; irqs off */
	u32			pi;
	u32			rung;
	u32			held;
	u64			first_ns;
	u64			held_ns;
	struct hrtimer		timer;
	struct vrnic_model	*model;
	u32			(*producer)(struct vrnic_doorbell *db);
	void			(*run)(struct vrnic_doorbell *db,
				       const struct vrnic_db_event *ev);
};

void vrnic_doorbell_init(struct vrnic_doorbell *db, struct vrnic_model *m,
			 u32 (*producer)(struct vrnic_doorbell *db),
			 void (*run)(struct vrnic_doorbell *db,
				     const struct vrnic_db_event *ev));
void vrnic_doorbell_reset(struct vrnic_doorbell *db);
void vrnic_doorbell_fini(struct vrnic_doorbell *db);
bool vrnic_doorbell_ring(struct vrnic_doorbell *db, u32 mask, bool engine_busy,
			 struct vrnic_db_event *ev);

/* The producer index the requester may work up to.  Context: any. */
static inline u32 vrnic_doorbell_pi(const struct vrnic_doorbell *db)
{
	return READ_ONCE(db->pi);
}

#endif /* VRNIC_HW_DOORBELL_H */
