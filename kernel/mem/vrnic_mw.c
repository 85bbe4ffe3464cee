// SPDX-License-Identifier: GPL-2.0-only
/*
 * vrnic: memory windows (IBA 10.6.7) as the engines reach them: the
 * window table, binding (a BIND_MW work request), invalidation (LOCAL_INV,
 * SEND with Invalidate, the QP of a type 2 window destroyed), and remote
 * keys: an rkey names an MR or a window, and a remote access through a
 * window is checked against the window (its range, rights, state, PD and,
 * for type 2, QP), then reaches the memory of the MR it is bound to.
 *
 * Lookups are lockless, as the MRs' are: the table is an xarray read
 * under RCU, a reference taken with refcount_inc_not_zero(), the window
 * freed a grace period after dealloc took it out and its references
 * drained.  A window's binding changes under its spinlock, which the
 * responder takes to check an access against it; a bound window counts
 * in its MR's num_mw, and an MR whose deregistration has begun (num_mw
 * -1) takes no new binding.
 *
 * Copyright (c) 2026 The vrnic authors
 */

#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/xarray.h>

#include "vrnic.h"
#include "vrnic_mr.h"
#include "vrnic_qp.h"
#include "mem/vrnic_mem.h"
#include "mem/vrnic_mw.h"
#include "probe/vrnic_mutate.h"

/**
 * vrnic_mw_get - find the window whose index @key names, referenced
 * @vdev:	the device
 * @key:	an rkey; its key byte is not compared here (the callers do,
 *		under the window's lock)
 *
 * Context: any.  Return: the window, or NULL (no such index, or dealloc
 * has begun).
 */
struct vrnic_mw *vrnic_mw_get(struct vrnic_dev *vdev, u32 key)
{
	struct vrnic_mw *mw;

	if (!vrnic_key_is_mw(key))
		return NULL;
	rcu_read_lock();
	mw = xa_load(&vdev->mws, vrnic_key_index(key));
	if (mw && !refcount_inc_not_zero(&mw->users))
		mw = NULL;
	rcu_read_unlock();
	return mw;
}

void vrnic_mw_put(struct vrnic_mw *mw)
{
	if (refcount_dec_and_test(&mw->users))
		complete(&mw->done);
}

/*
 * Undo a window's binding and leave it in @state.  Its MR may be
 * deregistered from then on; a responder still holding the MR finds the
 * binding gone when it checks the window again.  Context: @mw->lock held.
 */
static void vrnic_mw_unbind(struct vrnic_mw *mw, enum vrnic_mw_state state)
{
	lockdep_assert_held(&mw->lock);

	if (mw->mr)
		atomic_dec(&mw->mr->num_mw);
	mw->mr = NULL;
	mw->qp = NULL;
	mw->access = 0;
	mw->addr = 0;
	mw->length = 0;
	mw->state = state;
}

/**
 * vrnic_mw_kill - take a window out of its table, unbind it, wait for the
 *	lookups that hold it, and free it after a grace period
 * @vdev:	the device
 * @mw:		the window, published
 *
 * Dealloc of a bound window is allowed (as rxe allows it): the binding
 * goes with the window.  Context: process, may sleep.
 */
void vrnic_mw_kill(struct vrnic_dev *vdev, struct vrnic_mw *mw)
{
	xa_erase(&vdev->mws, vrnic_key_index(mw->rkey));
	spin_lock_bh(&mw->lock);
	vrnic_mw_unbind(mw, VRNIC_MW_DEAD);
	spin_unlock_bh(&mw->lock);
	if (!refcount_dec_and_test(&mw->users))
		wait_for_completion(&mw->done);
	kfree_rcu(mw, rcu);
}

/* Has @mr windows bound to it?  (LOCAL_INV and remote invalidate refuse.) */
bool vrnic_mr_has_mw(struct vrnic_mr *mr)
{
	return atomic_read(&mr->num_mw) > 0;
}

/**
 * vrnic_mr_forbid_mw - deregistration begins: no window may bind any more
 * @mr:		the MR
 *
 * Return: 0, or -EBUSY while windows are bound to it (IBA 10.6.7.2.6,
 * o10-31: an MR with bound windows is not deregistered).
 */
int vrnic_mr_forbid_mw(struct vrnic_mr *mr)
{
	return atomic_cmpxchg(&mr->num_mw, 0, -1) ? -EBUSY : 0;
}

/*
 * The checks of IBA 10.6.7.2 a bind must pass, in the spec's terms.
 * Context: @mw->lock held; @mr referenced (NULL for a zero length).
 */
static int vrnic_mw_bind_check(struct vrnic_qp *qp, struct vrnic_mw *mw,
			       struct vrnic_mr *mr,
			       const struct vrnic_mw_bind *b)
{
	u64 start, len = b->length;

	if (vrnic_mutant(mw_bind_any))
		return 0;
	/* The window the WR names, by its current rkey; a new key byte. */
	if (mw->rkey != b->mw_rkey ||
	    vrnic_key_byte(b->rkey) == vrnic_key_byte(mw->rkey))
		return -EINVAL;
	/* C10-72 (type 2), and for type 1 the QP's PD is the window's. */
	if (mw->pd != qp->ibqp.pd)
		return -EINVAL;
	if (mw->type == IB_MW_TYPE_1) {
		if (mw->state != VRNIC_MW_VALID)
			return -EINVAL;
		/* o10-36.2.2: a type 1 window is not zero based. */
		if (b->access & IB_ZERO_BASED)
			return -EINVAL;
	} else {
		/* o10-37.2.30: only a free type 2 window is bound. */
		if (mw->state != VRNIC_MW_FREE)
			return -EINVAL;
		/* o10-37.2.40: a type 2 window is not bound to nothing. */
		if (!mr)
			return -EINVAL;
	}
	if (!mr)
		return 0;	/* type 1, length 0: unbind */
	if (mr->type == VRNIC_MR_DMA || mr->ibmr.pd != mw->pd)
		return -EINVAL;
	/* Pairs with REG_MR's release: a valid MR's range, access are set. */
	if (smp_load_acquire(&mr->state) != VRNIC_MR_VALID)
		return -EINVAL;
	/* C10-73: the MR allows windows. */
	if (!(mr->access & IB_ACCESS_MW_BIND))
		return -EACCES;
	/* C10-74: remote write or atomic needs the MR's local write. */
	if ((b->access & (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC)) &&
	    !(mr->access & IB_ACCESS_LOCAL_WRITE))
		return -EACCES;
	/* C10-75: the window lies inside the MR. */
	start = mr->ibmr.iova;
	if (b->addr < start || len > mr->ibmr.length ||
	    b->addr - start > mr->ibmr.length - len)
		return -EINVAL;
	return 0;
}

/**
 * vrnic_mw_bind - execute a BIND_MW work request
 * @vdev:	the device
 * @qp:		the QP it was posted on (RC or UC, the WR table's rule)
 * @b:		its fields, read once
 *
 * Type 1 windows (ibv_bind_mw(), which librxe posts as this WR) and type
 * 2 windows (ibv_wr_bind_mw(), IBV_WR_BIND_MW) alike.  On success the
 * window answers to @b->rkey only: its previous rkey, and any earlier
 * binding's, no longer reach memory.
 *
 * Context: the QP's engines.  Return: 0, or a negative errno, which
 * completes the WR with IBV_WC_MW_BIND_ERR.
 */
int vrnic_mw_bind(struct vrnic_dev *vdev, struct vrnic_qp *qp,
		  const struct vrnic_mw_bind *b)
{
	struct vrnic_mr *mr = NULL;
	struct vrnic_mw *mw;
	int err;

	if (vrnic_key_index(b->rkey) != vrnic_key_index(b->mw_rkey) ||
	    (b->access & ~VRNIC_MW_ACCESS))
		return -EINVAL;
	mw = vrnic_mw_get(vdev, b->mw_rkey);
	if (!mw)
		return -EINVAL;
	if (b->length) {
		mr = vrnic_mr_get(vdev, b->mr_lkey);
		if (!mr) {
			err = -EINVAL;
			goto out;
		}
	}

	spin_lock_bh(&mw->lock);
	err = vrnic_mw_bind_check(qp, mw, mr, b);
	/* The MR's deregistration may have begun: then it takes no window. */
	if (!err && mr && !atomic_inc_unless_negative(&mr->num_mw))
		err = -EINVAL;
	if (!err) {
		vrnic_mw_unbind(mw, VRNIC_MW_VALID);
		mw->rkey = b->rkey;
		if (mr) {
			mw->mr = mr;
			mw->access = b->access;
			mw->addr = b->addr;
			mw->length = b->length;
		}
		if (mw->type == IB_MW_TYPE_2)
			mw->qp = qp;
	}
	spin_unlock_bh(&mw->lock);
	if (mr)
		vrnic_mr_put(mr);
out:
	vrnic_mw_put(mw);
	return err;
}

/**
 * vrnic_mw_invalidate - invalidate a type 2 window: LOCAL_INV, or a SEND
 *	with Invalidate that arrived on @qp
 * @vdev:	the device
 * @qp:		the QP the request came through
 * @rkey:	the window's rkey, as the request names it
 * @remote:	a SEND with Invalidate: the window must be bound to @qp
 *
 * A type 1 window is not invalidated (o10-37.2.26 is for type 2 only);
 * nor is a window not bound, under another rkey, or of another PD.  The
 * window keeps its rkey, which its next bind must change.
 *
 * Context: the QP's engines.  Return: 0 or -EINVAL.
 */
int vrnic_mw_invalidate(struct vrnic_dev *vdev, struct vrnic_qp *qp, u32 rkey,
			bool remote)
{
	struct vrnic_mw *mw = vrnic_mw_get(vdev, rkey);
	int err = 0;

	if (!mw)
		return -EINVAL;
	spin_lock_bh(&mw->lock);
	if (mw->type != IB_MW_TYPE_2 || mw->rkey != rkey ||
	    mw->state != VRNIC_MW_VALID || mw->pd != qp->ibqp.pd ||
	    (remote && mw->qp != qp))
		err = -EINVAL;
	else
		vrnic_mw_unbind(mw, VRNIC_MW_FREE);
	spin_unlock_bh(&mw->lock);
	vrnic_mw_put(mw);
	return err;
}

/**
 * vrnic_mw_qp_gone - a QP is being destroyed: the type 2 windows bound
 *	through it are invalidated (no access may come through a QP that is
 *	gone, nor through a later QP at its address)
 * @vdev:	the device
 * @qp:		the QP, its engines stopped
 *
 * Context: process.
 */
void vrnic_mw_qp_gone(struct vrnic_dev *vdev, struct vrnic_qp *qp)
{
	struct vrnic_mw *mw;
	unsigned long index;

	/* A window dealloc takes out meanwhile is freed after this section. */
	rcu_read_lock();
	xa_for_each(&vdev->mws, index, mw) {
		if (READ_ONCE(mw->qp) != qp)
			continue;
		spin_lock_bh(&mw->lock);
		if (mw->qp == qp)
			vrnic_mw_unbind(mw, VRNIC_MW_FREE);
		spin_unlock_bh(&mw->lock);
	}
	rcu_read_unlock();
}

/**
 * vrnic_rkey_get - find what an rkey names and reference it
 * @vdev:	the device
 * @rkey:	from a request
 * @rk:		filled in: the MR, and the window if the rkey names one
 *
 * Nothing is checked against the access here but that the key names a
 * bound window or an MR; vrnic_rkey_check() does that.
 *
 * Context: any.  Return: 0, or -EACCES (nothing by that key).
 */
int vrnic_rkey_get(struct vrnic_dev *vdev, u32 rkey, struct vrnic_rkey *rk)
{
	struct vrnic_mw *mw;

	rk->mw = NULL;
	rk->mr = NULL;
	rk->base = 0;
	if (!vrnic_key_is_mw(rkey)) {
		rk->mr = vrnic_mr_get(vdev, rkey);
		return rk->mr ? 0 : -EACCES;
	}
	mw = vrnic_mw_get(vdev, rkey);
	if (!mw)
		return -EACCES;
	spin_lock_bh(&mw->lock);
	/* A bound window counts in its MR's num_mw: the MR is not gone. */
	if (mw->state == VRNIC_MW_VALID && mw->rkey == rkey && mw->mr &&
	    refcount_inc_not_zero(&mw->mr->users))
		rk->mr = mw->mr;
	spin_unlock_bh(&mw->lock);
	if (!rk->mr) {
		vrnic_mw_put(mw);
		return -EACCES;
	}
	rk->mw = mw;
	return 0;
}

void vrnic_rkey_put(struct vrnic_rkey *rk)
{
	if (rk->mr)
		vrnic_mr_put(rk->mr);
	if (rk->mw)
		vrnic_mw_put(rk->mw);
	rk->mr = NULL;
	rk->mw = NULL;
}

/* Is [va, va + len) inside the window?  @len > 0.  @mw->lock held. */
static bool vrnic_mw_covers(const struct vrnic_mw *mw, u64 va, u64 len)
{
	u64 start = mw->access & IB_ZERO_BASED ? 0 : mw->addr;

	if (vrnic_mutant(mw_range))
		return true;
	return va >= start && len <= mw->length &&
	       va - start <= mw->length - len;
}

/**
 * vrnic_rkey_check - may @len bytes at @va be accessed through @rkey?
 * @rk:		from vrnic_rkey_get(@rkey)
 * @rkey:	the rkey of the request
 * @pd:		the PD of the QP the request came through
 * @qp:		that QP (a type 2 window answers to the QP it was bound
 *		through only)
 * @access:	IB_ACCESS_REMOTE_* needed
 * @va:		the request's start
 * @len:	its length, > 0
 *
 * Checked again for every packet of a READ, so that an invalidation, a
 * new binding or a new REG_MR between them stops what has not begun.
 * Through a window, its rights count, not the MR's remote rights (the
 * MR's MW_BIND and local write were checked at bind); the MR must still
 * be valid and hold the range.  Sets @rk->base.
 *
 * Context: any.  Return: 0, -EACCES for a key, state, PD, QP or rights
 * mismatch, -EFAULT for a range outside the window or MR.
 */
int vrnic_rkey_check(struct vrnic_rkey *rk, u32 rkey, struct ib_pd *pd,
		     struct vrnic_qp *qp, int access, u64 va, u64 len)
{
	struct vrnic_mw *mw = rk->mw;
	int err = 0;

	if (!mw) {
		if (READ_ONCE(rk->mr->ibmr.rkey) != rkey)
			return -EACCES;
		return vrnic_mr_check(rk->mr, pd, access, va, len);
	}
	spin_lock_bh(&mw->lock);
	if (mw->state != VRNIC_MW_VALID || mw->rkey != rkey ||
	    mw->mr != rk->mr ||
	    (!vrnic_mutant(mw_qp) &&
	     (mw->pd != pd || (mw->type == IB_MW_TYPE_2 && mw->qp != qp))) ||
	    (mw->access & access) != access)
		err = -EACCES;
	else if (!vrnic_mw_covers(mw, va, len))
		err = -EFAULT;
	else
		rk->base = mw->access & IB_ZERO_BASED ? mw->addr : 0;
	spin_unlock_bh(&mw->lock);
	if (err)
		return err;
	if (rk->base > U64_MAX - va)
		return -EFAULT;
	return vrnic_mr_check(rk->mr, pd, 0, va + rk->base, len);
}

/*
 * Copy through an rkey checked with vrnic_rkey_check() for [va, va + len):
 * at the MR's address the window's base makes of @va.  -EAGAIN: a page
 * fault of an on-demand MR, recorded in @pf (vrnic_mr_copy()).
 */
int vrnic_rkey_copy(struct vrnic_dev *vdev, const struct vrnic_rkey *rk,
		    u64 va, void *buf, u32 len, enum vrnic_dma_dir dir,
		    struct vrnic_odp_fault *pf)
{
	return vrnic_mr_copy(vdev, rk->mr, va + rk->base, buf, len, dir, pf);
}
