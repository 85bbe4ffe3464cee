// SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
/*
 * KUnit tests for the rings a kernel consumer shares with the engines
 * (obj/vrnic_queue.h): a kernel verb posts under the queue's lock while an
 * engine on another CPU consumes without it, so the two meet only through
 * the producer and consumer indices (issue 17, item 13: their release
 * stores and acquire loads).  A producer and a consumer on two CPUs pass
 * 200000 elements through a small ring; every element must arrive once,
 * in order, with the contents written before it was published, and no
 * slot may be rewritten before its reader is done.
 *
 * Copyright (c) 2026 The vrnic authors
 */

#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/sched.h>

#include "obj/vrnic_queue.h"

#define RING_ELEMS	15		/* 16 slots: the ring laps often */
#define ELEM_WORDS	8		/* 64-byte elements */
#define ITEMS		200000
#define DEADLINE	(60 * HZ)

struct ring_run {
	struct vrnic_queue	q;
	struct completion	prod_done, cons_done;
	unsigned long		deadline;
	bool			stop;
	/* What the consumer saw wrong, the first time (0: nothing). */
	u64			bad_seq, bad_word, bad_want, bad_got;
	u32			received, wrong;
	u32			sent;
	bool			prod_timeout, cons_timeout;
};

/* The value of word @w of element @seq: distinct per element and word. */
static u64 ring_word(u64 seq, unsigned int w)
{
	return (seq << 8 | w) ^ 0x5a5a000000000000ULL;
}

static bool ring_expired(struct ring_run *r)
{
	return READ_ONCE(r->stop) || time_after(jiffies, r->deadline);
}

static int ring_producer(void *arg)
{
	struct ring_run *r = arg;
	u64 seq;

	for (seq = 1; seq <= ITEMS; seq++) {
		u64 *slot;
		unsigned int w;

		while (vrnic_queue_full(&r->q)) {
			if (ring_expired(r)) {
				r->prod_timeout = true;
				goto out;
			}
			cond_resched();
		}
		slot = vrnic_queue_producer_slot(&r->q);
		for (w = 0; w < ELEM_WORDS; w++)
			WRITE_ONCE(slot[w], ring_word(seq, w));
		vrnic_queue_advance_producer(&r->q);
		r->sent++;
	}
out:
	complete(&r->prod_done);
	return 0;
}

static void ring_check(struct ring_run *r, const u64 *slot, u64 seq)
{
	unsigned int w;

	for (w = 0; w < ELEM_WORDS; w++) {
		u64 got = READ_ONCE(slot[w]);

		if (got == ring_word(seq, w))
			continue;
		if (!r->wrong++) {
			r->bad_seq = seq;
			r->bad_word = w;
			r->bad_want = ring_word(seq, w);
			r->bad_got = got;
		}
	}
}

static int ring_consumer(void *arg)
{
	struct ring_run *r = arg;
	u64 seq;

	for (seq = 1; seq <= ITEMS; seq++) {
		const u64 *slot;

		while (!(slot = vrnic_queue_head(&r->q))) {
			if (ring_expired(r)) {
				r->cons_timeout = true;
				goto out;
			}
			cond_resched();
		}
		ring_check(r, slot, seq);
		vrnic_queue_advance_consumer(&r->q);
		r->received++;
	}
out:
	complete(&r->cons_done);
	return 0;
}

static struct task_struct *ring_thread(int (*fn)(void *), struct ring_run *r,
				       unsigned int cpu, const char *name)
{
	struct task_struct *t = kthread_create(fn, r, "vrnic_ring_%s", name);

	if (!IS_ERR(t))
		kthread_bind(t, cpu);
	return t;
}

/*
 * A kernel RQ or SQ (VRNIC_QUEUE_FROM_KERNEL): the producer is the
 * poster, the consumer the engine, each bound to its own CPU.
 */
static void vrnic_queue_kernel_ring_two_cpus(struct kunit *test)
{
	unsigned int nelem = RING_ELEMS, cpu_p, cpu_c;
	struct task_struct *prod, *cons;
	struct ring_run *r;
	bool waited;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two online CPUs, this guest has %u",
			   num_online_cpus());
	cpu_p = cpumask_first(cpu_online_mask);
	cpu_c = cpumask_next(cpu_p, cpu_online_mask);

	r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_ASSERT_EQ(test, vrnic_queue_init(&r->q, &nelem,
					       ELEM_WORDS * sizeof(u64),
					       VRNIC_QUEUE_FROM_KERNEL), 0);
	if (nelem != RING_ELEMS) {
		vrnic_queue_cleanup(&r->q);
		KUNIT_FAIL(test, "a ring of %u elements, want %u", nelem,
			   RING_ELEMS);
		return;
	}
	init_completion(&r->prod_done);
	init_completion(&r->cons_done);
	r->deadline = jiffies + DEADLINE;

	prod = ring_thread(ring_producer, r, cpu_p, "prod");
	cons = ring_thread(ring_consumer, r, cpu_c, "cons");
	if (IS_ERR(prod) || IS_ERR(cons)) {
		/* The one that exists ends at once, then the ring goes. */
		WRITE_ONCE(r->stop, true);
		if (!IS_ERR(prod)) {
			wake_up_process(prod);
			wait_for_completion(&r->prod_done);
		}
		if (!IS_ERR(cons)) {
			wake_up_process(cons);
			wait_for_completion(&r->cons_done);
		}
		vrnic_queue_cleanup(&r->q);
		KUNIT_FAIL(test, "kthread_create: %ld",
			   PTR_ERR(IS_ERR(prod) ? prod : cons));
		return;
	}
	wake_up_process(cons);
	wake_up_process(prod);

	/* Each thread gives up at the deadline, so both always end. */
	waited = wait_for_completion_timeout(&r->prod_done, DEADLINE + HZ) &&
		 wait_for_completion_timeout(&r->cons_done, DEADLINE + HZ);
	if (!waited) {
		WRITE_ONCE(r->stop, true);
		wait_for_completion(&r->prod_done);
		wait_for_completion(&r->cons_done);
	}

	KUNIT_EXPECT_FALSE_MSG(test, r->prod_timeout,
			       "producer stuck on a full ring after %u", r->sent);
	KUNIT_EXPECT_FALSE_MSG(test, r->cons_timeout,
			       "consumer stuck on an empty ring after %u",
			       r->received);
	KUNIT_EXPECT_EQ(test, r->sent, ITEMS);
	KUNIT_EXPECT_EQ(test, r->received, ITEMS);
	KUNIT_EXPECT_EQ_MSG(test, r->wrong, 0,
			    "element %llu word %llu: %#llx, want %#llx",
			    r->bad_seq, r->bad_word, r->bad_got, r->bad_want);
	KUNIT_EXPECT_TRUE(test, vrnic_queue_empty(&r->q));
	vrnic_queue_cleanup(&r->q);
}

static struct kunit_case vrnic_queue_cases[] = {
	KUNIT_CASE(vrnic_queue_kernel_ring_two_cpus),
	{}
};

static struct kunit_suite vrnic_queue_suite = {
	.name = "vrnic_queue",
	.test_cases = vrnic_queue_cases,
};

kunit_test_suite(vrnic_queue_suite);
