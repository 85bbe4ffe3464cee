/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vrnic hardware model: the MR translation cache.
 *
 * A NIC translates an lkey or rkey through its MPT entry and the MR's MTT,
 * both in host memory, and keeps the translations it used last in a small
 * cache on chip.  This is that cache: mrc.entries entries, fully
 * associative (a CAM), least recently used out first, tagged by the key's
 * MPT index.  A hit costs nothing; a miss costs the fetch of the MPT entry
 * and of the MTT entries the access needs, over PCIe (see model.c).
 *
 * Copyright (c) 2026 The vrnic authors
 */

#ifndef VRNIC_HW_MRC_H
#define VRNIC_HW_MRC_H

#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/types.h>

struct vrnic_mrc_entry {
	u32			tag;
	struct hlist_node	node;	/* in its hash bucket */
	struct list_head	lru;	/* on the LRU list or the free list */
};

/**
 * struct vrnic_mrc - the cache
 * @lock:	guards everything below; taken with interrupts off (the data
 *		path runs in any context)
 * @entries:	capacity
 * @mask:	hash buckets - 1
 * @e:		the entries
 * @buckets:	tag hash
 * @lru:	entries in use, most recently used first
 * @free:	entries not in use
 */
struct vrnic_mrc {
	spinlock_t		lock;	/* guards the cache; irqs off */
	u32			entries;
	u32			mask;
	struct vrnic_mrc_entry	*e;
	struct hlist_head	*buckets;
	struct list_head	lru;
	struct list_head	free;
};

enum vrnic_mrc_result {
	VRNIC_MRC_HIT,
	VRNIC_MRC_MISS,		/* filled a free entry */
	VRNIC_MRC_EVICT,	/* a miss that pushed out the LRU entry */
};

int vrnic_mrc_init(struct vrnic_mrc *c, u32 entries);
void vrnic_mrc_fini(struct vrnic_mrc *c);
int vrnic_mrc_resize(struct vrnic_mrc *c, u32 entries);
enum vrnic_mrc_result vrnic_mrc_lookup(struct vrnic_mrc *c, u32 tag);
void vrnic_mrc_invalidate(struct vrnic_mrc *c, u32 tag);
u32 vrnic_mrc_used(struct vrnic_mrc *c);

#endif /* VRNIC_HW_MRC_H */
