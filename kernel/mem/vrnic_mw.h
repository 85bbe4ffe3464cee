/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vrnic: memory windows as the engines reach them, and remote keys.
 *
 * Copyright (c) 2026 The vrnic authors
 */

#ifndef VRNIC_MW_H
#define VRNIC_MW_H

#include <rdma/ib_verbs.h>

#include "vrnic.h"
#include "vrnic_mr.h"
#include "hw/dma.h"

struct vrnic_mw;
struct vrnic_odp_fault;
struct vrnic_qp;

/* The access bits a window may be bound with (IBA 10.6.7.2). */
#define VRNIC_MW_ACCESS	(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | \
			 IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC | \
			 IB_ZERO_BASED)

/**
 * struct vrnic_mw_bind - a BIND_MW work request, as read once from its WQE
 * @addr:	the window's first byte, in the MR's iova space
 * @length:	the window's length; 0 unbinds a type 1 window
 * @mr_lkey:	the MR to bind to
 * @mw_rkey:	the window's current rkey
 * @rkey:	its rkey after the bind: the same index, a new key byte
 * @access:	the window's rights (VRNIC_MW_ACCESS)
 */
struct vrnic_mw_bind {
	u64	addr;
	u64	length;
	u32	mr_lkey;
	u32	mw_rkey;
	u32	rkey;
	u32	access;
};

/**
 * struct vrnic_rkey - what an rkey names for a remote access
 * @mr:		the MR whose memory is reached, referenced
 * @mw:		the window the rkey named, referenced; NULL for an MR's rkey
 * @base:	added to a request's address to give the MR address: a
 *		zero-based window's start, else 0 (set by vrnic_rkey_check())
 */
struct vrnic_rkey {
	struct vrnic_mr	*mr;
	struct vrnic_mw	*mw;
	u64		base;
};

/* Does @key name a window (its index is in the windows' range)? */
static inline bool vrnic_key_is_mw(u32 key)
{
	u32 index = vrnic_key_index(key);

	return index >= VRNIC_MIN_MW_INDEX && index <= VRNIC_MAX_MW_INDEX;
}

struct vrnic_mw *vrnic_mw_get(struct vrnic_dev *vdev, u32 key);
void vrnic_mw_put(struct vrnic_mw *mw);
void vrnic_mw_kill(struct vrnic_dev *vdev, struct vrnic_mw *mw);
int vrnic_mw_bind(struct vrnic_dev *vdev, struct vrnic_qp *qp,
		  const struct vrnic_mw_bind *b);
int vrnic_mw_invalidate(struct vrnic_dev *vdev, struct vrnic_qp *qp, u32 rkey,
			bool remote);
void vrnic_mw_qp_gone(struct vrnic_dev *vdev, struct vrnic_qp *qp);
bool vrnic_mr_has_mw(struct vrnic_mr *mr);
int vrnic_mr_forbid_mw(struct vrnic_mr *mr);

int vrnic_rkey_get(struct vrnic_dev *vdev, u32 rkey, struct vrnic_rkey *rk);
int vrnic_rkey_check(struct vrnic_rkey *rk, u32 rkey, struct ib_pd *pd,
		     struct vrnic_qp *qp, int access, u64 va, u64 len);
int vrnic_rkey_copy(struct vrnic_dev *vdev, const struct vrnic_rkey *rk,
		    u64 va, void *buf, u32 len, enum vrnic_dma_dir dir,
		    struct vrnic_odp_fault *pf);
void vrnic_rkey_put(struct vrnic_rkey *rk);

#endif /* VRNIC_MW_H */
