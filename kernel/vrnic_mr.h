/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vrnic: memory regions and their translation tables.
 *
 * Copyright (c) 2026 The vrnic authors
 */

#ifndef VRNIC_MR_H
#define VRNIC_MR_H

#include <linux/completion.h>
#include <linux/refcount.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_verbs.h>

#include "hw/dma.h"

struct vrnic_dev;
struct vrnic_qp;

enum vrnic_mr_type {
	VRNIC_MR_DMA,		/* get_dma_mr: DMA addresses, any length */
	VRNIC_MR_USER,		/* reg_user_mr: pinned user pages */
	VRNIC_MR_FRWR,		/* alloc_mr: pages set by map_mr_sg + REG_MR */
	VRNIC_MR_ODP,		/* IB_ACCESS_ON_DEMAND (mem/vrnic_odp.c) */
};

enum vrnic_mr_state {
	VRNIC_MR_INVALID,	/* FRWR not registered yet, or invalidated */
	VRNIC_MR_VALID,
};

/**
 * struct vrnic_mr - a memory region
 * @ibmr:	the core MR; lkey == rkey == index << 8 | key byte
 * @users:	references held by the data path while it touches the MR;
 *		dereg waits for them through @done
 * @type:	how the MR was made
 * @state:	FRWR MRs are valid between REG_MR and LOCAL_INV
 * @access:	IB_ACCESS_* flags
 * @page_shift:	log2 of the translation page size
 * @mtt:	the MR's translation table: the DMA address of every page,
 *		as the kernel DMA API returned it for the netdev's DMA device
 *		(or, with virtual DMA, the kernel virtual address)
 * @npages:	entries in use in @mtt
 * @max_pages:	entries allocated in @mtt
 * @umem:	the pinned user memory of a user MR
 * @num_mw:	memory windows bound to the MR; -1 once deregistration has
 *		begun, when no window may bind to it any more
 * @odp_lock:	an on-demand MR: held by the engines across a copy through
 *		its pages (the check that they are mapped and the copy), and
 *		by an invalidation to stop new copies (@odp_busy)
 * @odp_busy:	invalidations under way: no copy may start
 * @rcu:	frees the MR a grace period after it left the key table, as
 *		vrnic_mr_get() may still be incrementing @users
 */
struct vrnic_mr {
	struct ib_mr		ibmr;
	refcount_t		users;
	struct completion	done;
	enum vrnic_mr_type	type;
	enum vrnic_mr_state	state;
	int			access;
	unsigned int		page_shift;
	u64			*mtt;
	u32			npages;
	u32			max_pages;
	struct ib_umem		*umem;
	atomic_t		num_mw;
	spinlock_t		odp_lock;	/* see @odp_busy */
	unsigned int		odp_busy;
	struct rcu_head		rcu;
};

/**
 * struct vrnic_odp_fault - a page fault of a QP's engines: the range of an
 *	on-demand paging MR they found unmapped
 * @pending:	set by the engine that faulted, cleared once the QP's work
 *		has faulted the range in; the QP's engines stop meanwhile
 * @failed:	the range could not be faulted in (not mapped in the owning
 *		process, or no write access there): the engine's next copy
 *		through it fails as an access outside the MR would
 * @write:	the engine was writing the MR
 * @key:	the MR's lkey
 * @va:		the process's virtual address of the range's first byte
 * @len:	bytes
 */
struct vrnic_odp_fault {
	bool			pending;
	bool			failed;
	bool			write;
	u32			key;
	u64			va;
	u32			len;
};

static inline struct vrnic_mr *to_vmr(struct ib_mr *mr)
{
	return container_of(mr, struct vrnic_mr, ibmr);
}

static inline u32 vrnic_key_index(u32 key)
{
	return key >> 8;
}

/* The key byte of an lkey or rkey: what a new binding or REG_MR changes. */
static inline u8 vrnic_key_byte(u32 key)
{
	return key & 0xff;
}

enum vrnic_mw_state {
	VRNIC_MW_FREE,		/* type 2: allocated or invalidated, not bound */
	VRNIC_MW_VALID,		/* type 1 from alloc; type 2 while bound */
	VRNIC_MW_DEAD,		/* deallocated: no access, no bind */
};

/**
 * struct vrnic_mw - a memory window (IBA 10.6.7), as the engines see it
 * @users:	references of lookups (the responder, a bind); dealloc
 *		waits for them through @done
 * @done:	completed when @users drops to zero
 * @lock:	guards the binding: every field below but @type and @pd
 * @type:	IB_MW_TYPE_1 or IB_MW_TYPE_2 (type 2B)
 * @pd:		the window's PD (its ib_mw's; compared, never dereferenced)
 * @state:	enum vrnic_mw_state
 * @rkey:	the window's current rkey: index << 8 | key byte; every
 *		bind gives it a new key byte
 * @access:	IB_ACCESS_REMOTE_* and IB_ZERO_BASED of the binding
 * @addr:	the address, in @mr's iova space, of the window's first byte
 * @length:	bytes the window covers; 0 while unbound
 * @mr:		the MR the window is bound to, counted in its @num_mw (so
 *		not deregistered while bound); NULL while unbound
 * @qp:		type 2: the QP it was bound through, the only one remote
 *		accesses through it may arrive on (compared, never
 *		dereferenced; destroying the QP invalidates the window)
 * @rcu:	frees the window a grace period after it left the table, as
 *		a lookup may still be trying @users
 *
 * The core allocates struct ib_mw and frees it when dealloc_mw returns;
 * this part is ours, so that lockless lookups never see freed memory.
 */
struct vrnic_mw {
	refcount_t		users;
	struct completion	done;
	spinlock_t		lock;	/* the binding: state to qp */
	enum ib_mw_type		type;
	struct ib_pd		*pd;
	enum vrnic_mw_state	state;
	u32			rkey;
	int			access;
	u64			addr;
	u64			length;
	struct vrnic_mr		*mr;
	struct vrnic_qp		*qp;
	struct rcu_head		rcu;
};

/* The core's memory window object: its ib_mw and our window. */
struct vrnic_ibmw {
	struct ib_mw		ibmw;
	struct vrnic_mw		*mw;
};

static inline struct vrnic_ibmw *to_vibmw(struct ib_mw *ibmw)
{
	return container_of(ibmw, struct vrnic_ibmw, ibmw);
}

#endif /* VRNIC_MR_H */
