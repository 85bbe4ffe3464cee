/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vrnic hardware model: a small on-chip cache, fully associative (a CAM),
 * least recently used out first, tagged by a 32-bit key.
 *
 * Two of the NIC's caches are this: the MR translation cache (mrc, tagged
 * by the key's MPT index: a NIC translates an lkey or rkey through its MPT
 * entry and the MR's MTT, both in host memory) and the QP context cache
 * (qpc, tagged by QPN, in qpc.mode host).  The cache only answers hit or
 * miss; what a miss costs is the model's business (model.c).
 *
 * Copyright (c) 2026 The vrnic authors
 */

#ifndef VRNIC_HW_CAM_H
#define VRNIC_HW_CAM_H

#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/types.h>

struct vrnic_cam_entry {
	u32			tag;
	struct hlist_node	node;	/* in its hash bucket */
	struct list_head	lru;	/* on the LRU list or the free list */
};

/**
 * struct vrnic_cam - the cache
 * @lock:	guards everything below; taken with interrupts off (the data
 *		path runs in any context)
 * @entries:	capacity
 * @mask:	hash buckets - 1
 * @e:		the entries
 * @buckets:	tag hash
 * @lru:	entries in use, most recently used first
 * @free:	entries not in use
 * @mru:	the tag at the head of @lru, or VRNIC_CAM_NO_TAG; written
 *		under @lock, read without it (vrnic_cam_lookup())
 */
struct vrnic_cam {
	spinlock_t		lock;	/* guards the cache; irqs off */
	u32			mru;
	u32			entries;
	u32			mask;
	struct vrnic_cam_entry	*e;
	struct hlist_head	*buckets;
	struct list_head	lru;
	struct list_head	free;
};

/* Tags are MPT indexes and QPNs, 24 bits: this one is never used. */
#define VRNIC_CAM_NO_TAG	U32_MAX

enum vrnic_cam_result {
	VRNIC_CAM_HIT,
	VRNIC_CAM_MISS,		/* filled a free entry */
	VRNIC_CAM_EVICT,	/* a miss that pushed out the LRU entry */
};

int vrnic_cam_init(struct vrnic_cam *c, u32 entries);
void vrnic_cam_fini(struct vrnic_cam *c);
int vrnic_cam_resize(struct vrnic_cam *c, u32 entries);
enum vrnic_cam_result vrnic_cam_lookup(struct vrnic_cam *c, u32 tag);
void vrnic_cam_invalidate(struct vrnic_cam *c, u32 tag);
bool vrnic_cam_resident(struct vrnic_cam *c, u32 tag);
u32 vrnic_cam_used(struct vrnic_cam *c);

#endif /* VRNIC_HW_CAM_H */
