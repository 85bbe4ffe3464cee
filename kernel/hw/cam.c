// SPDX-License-Identifier: GPL-2.0-only
/*
 * vrnic hardware model: a small LRU CAM, the MR and QP context caches'
 * store (see cam.h).
 *
 * Copyright (c) 2026 The vrnic authors
 */

#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include "cam.h"

struct vrnic_cam_store {
	struct vrnic_cam_entry	*e;
	struct hlist_head	*buckets;
	u32			entries;
	u32			mask;
};

static int vrnic_cam_alloc(struct vrnic_cam_store *s, u32 entries)
{
	u32 nb = roundup_pow_of_two(max_t(u32, entries, 2));

	s->e = kvcalloc(entries, sizeof(*s->e), GFP_KERNEL);
	s->buckets = kvcalloc(nb, sizeof(*s->buckets), GFP_KERNEL);
	if (!s->e || !s->buckets) {
		kvfree(s->e);
		kvfree(s->buckets);
		return -ENOMEM;
	}
	s->entries = entries;
	s->mask = nb - 1;
	return 0;
}

/* Install @s as the (empty) cache.  Caller holds c->lock or owns @c. */
static void vrnic_cam_install(struct vrnic_cam *c, struct vrnic_cam_store *s)
{
	u32 i;

	c->e = s->e;
	c->buckets = s->buckets;
	c->entries = s->entries;
	c->mask = s->mask;
	INIT_LIST_HEAD(&c->lru);
	INIT_LIST_HEAD(&c->free);
	WRITE_ONCE(c->mru, VRNIC_CAM_NO_TAG);
	for (i = 0; i < c->entries; i++)
		list_add_tail(&c->e[i].lru, &c->free);
}

/**
 * vrnic_cam_init - an empty cache of @entries entries
 * @c:		the cache
 * @entries:	capacity, at least 1
 *
 * Context: process.  Return: 0 or -ENOMEM.
 */
int vrnic_cam_init(struct vrnic_cam *c, u32 entries)
{
	struct vrnic_cam_store s;
	int err;

	spin_lock_init(&c->lock);
	c->e = NULL;
	c->buckets = NULL;
	err = vrnic_cam_alloc(&s, entries);
	if (err)
		return err;
	vrnic_cam_install(c, &s);
	return 0;
}

/* Free the cache's memory; safe to call twice. */
void vrnic_cam_fini(struct vrnic_cam *c)
{
	kvfree(c->e);
	kvfree(c->buckets);
	c->e = NULL;
	c->buckets = NULL;
	c->entries = 0;
}

/**
 * vrnic_cam_resize - replace the cache by an empty one of @entries entries
 * @c:		the cache
 * @entries:	the new capacity
 *
 * Context: process (allocates).  Return: 0, or -ENOMEM with @c unchanged.
 */
int vrnic_cam_resize(struct vrnic_cam *c, u32 entries)
{
	struct vrnic_cam_store s, old;
	unsigned long flags;
	int err;

	err = vrnic_cam_alloc(&s, entries);
	if (err)
		return err;
	spin_lock_irqsave(&c->lock, flags);
	old.e = c->e;
	old.buckets = c->buckets;
	vrnic_cam_install(c, &s);
	spin_unlock_irqrestore(&c->lock, flags);
	kvfree(old.e);
	kvfree(old.buckets);
	return 0;
}

static struct hlist_head *vrnic_cam_bucket(struct vrnic_cam *c, u32 tag)
{
	return &c->buckets[hash_32(tag, 32) & c->mask];
}

static struct vrnic_cam_entry *vrnic_cam_find(struct vrnic_cam *c, u32 tag)
{
	struct vrnic_cam_entry *e;

	hlist_for_each_entry(e, vrnic_cam_bucket(c, tag), node)
		if (e->tag == tag)
			return e;
	return NULL;
}

/**
 * vrnic_cam_lookup - look @tag up, and put it in the cache on a miss
 * @c:		the cache
 * @tag:	the tag (an MPT index, a QPN), not VRNIC_CAM_NO_TAG
 *
 * A hit on the most recently used entry, the common case of a stream of
 * packets through one QP and one MR, moves nothing: it is answered
 * without the lock.  (Racing a lookup of another tag, an invalidation or
 * a resize, such a hit is ordered before it, as it could have been with
 * the lock: the cache is a cost model, and the MR and QP checks that
 * decide what the engine may do are elsewhere.)
 *
 * Context: any.  Return: whether it hit, missed, or missed and evicted.
 */
enum vrnic_cam_result vrnic_cam_lookup(struct vrnic_cam *c, u32 tag)
{
	enum vrnic_cam_result r = VRNIC_CAM_MISS;
	struct vrnic_cam_entry *e;
	unsigned long flags;

	if (READ_ONCE(c->mru) == tag)
		return VRNIC_CAM_HIT;
	spin_lock_irqsave(&c->lock, flags);
	e = vrnic_cam_find(c, tag);
	if (e) {
		list_move(&e->lru, &c->lru);
		WRITE_ONCE(c->mru, tag);
		spin_unlock_irqrestore(&c->lock, flags);
		return VRNIC_CAM_HIT;
	}
	if (!list_empty(&c->free)) {
		e = list_first_entry(&c->free, struct vrnic_cam_entry, lru);
	} else {
		e = list_last_entry(&c->lru, struct vrnic_cam_entry, lru);
		hlist_del(&e->node);
		r = VRNIC_CAM_EVICT;
	}
	e->tag = tag;
	hlist_add_head(&e->node, vrnic_cam_bucket(c, tag));
	list_move(&e->lru, &c->lru);
	WRITE_ONCE(c->mru, tag);
	spin_unlock_irqrestore(&c->lock, flags);
	return r;
}

/**
 * vrnic_cam_invalidate - drop @tag's entry (an MR deregistered,
 *	invalidated or registered again; a QP destroyed)
 * @c:		the cache
 * @tag:	the key's MPT index
 *
 * Context: any.
 */
void vrnic_cam_invalidate(struct vrnic_cam *c, u32 tag)
{
	struct vrnic_cam_entry *e;
	unsigned long flags;

	spin_lock_irqsave(&c->lock, flags);
	e = c->e ? vrnic_cam_find(c, tag) : NULL;
	if (e) {
		hlist_del(&e->node);
		list_move(&e->lru, &c->free);
		if (c->mru == tag)
			WRITE_ONCE(c->mru, VRNIC_CAM_NO_TAG);
	}
	spin_unlock_irqrestore(&c->lock, flags);
}

/**
 * vrnic_cam_resident - is @tag in the cache?  A look that moves nothing
 *	(for rdma res; the NIC's own accesses go through vrnic_cam_lookup)
 * @c:		the cache
 * @tag:	the tag
 *
 * Context: any.
 */
bool vrnic_cam_resident(struct vrnic_cam *c, u32 tag)
{
	unsigned long flags;
	bool r;

	spin_lock_irqsave(&c->lock, flags);
	r = c->e && vrnic_cam_find(c, tag);
	spin_unlock_irqrestore(&c->lock, flags);
	return r;
}

/* Entries in use. */
u32 vrnic_cam_used(struct vrnic_cam *c)
{
	struct list_head *p;
	unsigned long flags;
	u32 n = 0;

	spin_lock_irqsave(&c->lock, flags);
	list_for_each(p, &c->lru)
		n++;
	spin_unlock_irqrestore(&c->lock, flags);
	return n;
}
