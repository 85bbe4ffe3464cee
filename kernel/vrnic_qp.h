/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vrnic: queue pairs.
 *
 * Copyright (c) 2026 The vrnic authors
 */

#ifndef VRNIC_QP_H
#define VRNIC_QP_H

#include <linux/completion.h>
#include <linux/lockdep.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <rdma/ib_verbs.h>

#include "vrnic_mr.h"
#include "hw/doorbell.h"
#include "net/vrnic_net.h"
#include "engine/vrnic_comp.h"
#include "engine/vrnic_req.h"
#include "engine/vrnic_resp.h"
#include "wire/vrnic_psn.h"
#include "obj/vrnic_queue.h"

struct vrnic_cq;
struct vrnic_dev;
struct vrnic_mr;
struct vrnic_srq;

/**
 * struct vrnic_swqe - the engine's own copy of a send WQE's header
 *
 * The SQ of a user QP lives in the process's memory, which may change
 * under us at any time; like a NIC fetching a WQE into its on-chip
 * context, the requester copies and validates a WQE once, when it starts
 * it, and uses only this copy afterwards.  SGEs are fetched again, one
 * at a time, when payload is gathered and checked every time.
 */
struct vrnic_swqe {
	u64	wr_id;
	u32	opcode;		/* IB_WR_* */
	u32	send_flags;	/* IB_SEND_* */
	u32	length;		/* payload bytes */
	u32	num_sge;
	u32	first_psn;
	u32	last_psn;
	u64	remote_addr;
	u32	rkey;
	__be32	imm;		/* or the rkey to invalidate */
	u64	compare_add;
	u64	swap;
	u32	dst_qpn;	/* UD */
	u32	qkey;		/* UD */
	u32	ah_num;		/* UD */
	u32	resp_bytes;	/* READ: response bytes placed */
	struct ib_mr *reg_mr;	/* REG_MR */
	int	reg_access;	/* REG_MR; BIND_MW: the window's rights */
	/*
	 * BIND_MW: the window's rkey (rkey: its next) and the MR's lkey;
	 * remote_addr and compare_add: the window's address and length.
	 * FLUSH: compare_add is the range's length, swap the FETH's
	 * placement type and selectivity level as the FETH lays them out.
	 */
	u32	mw_rkey;
	u32	mr_lkey;
	int	status;		/* IB_WC_* once done */
	bool	done;
};

/*
 * The requester splits an RDMA READ into requests of at most this many
 * response packets, each on an absolute boundary of the READ (so chunk k
 * covers bytes [k * chunk, (k + 1) * chunk)).  Like the window on
 * unacknowledged PSNs, this keeps a READ's responses to what the link
 * carries without loss, and a lost response costs one chunk, not the READ.
 */
#define VRNIC_READ_CHUNK_PKTS	16

static inline u32 vrnic_read_chunk(u32 mtu)
{
	return VRNIC_READ_CHUNK_PKTS * mtu;
}

/*
 * A READ or atomic the responder executed, kept for its duplicates (IBA
 * 9.9.2.1): an atomic is answered with its original result, not executed
 * again (9.7.5.1.3); a READ is read again only when the duplicate asks
 * for what this one asked, at one of its PSNs.  An RC QP keeps the last
 * VRNIC_MAX_RD_ATOMIC: the most a requester may have outstanding
 * (max_dest_rd_atomic is at most that), so every request whose response
 * the requester can still be waiting for is found.  A duplicate that
 * matches none is dropped, as rxe drops it: a READ in the past PSN window
 * that was never asked at that PSN (a forged or stale packet) sends
 * nothing toward the QP's peer.
 */
enum vrnic_replay_kind {
	VRNIC_REPLAY_NONE,
	VRNIC_REPLAY_READ,
	VRNIC_REPLAY_ATOMIC,
	VRNIC_REPLAY_FLUSH,
};

struct vrnic_rd_replay {
	union {
		u64	va;	/* READ: its first byte */
		u64	orig;	/* atomic: the value before it */
	};
	u32	psn;		/* its (first) PSN */
	u32	npsn;		/* READ: PSNs its responses take */
	u32	len;		/* READ: bytes */
	u32	rkey;		/* READ */
	u8	kind;		/* enum vrnic_replay_kind */
};

/* PSNs the responses to a READ of @len bytes take (at least one). */
static inline u32 vrnic_read_npsn(u32 len, u32 mtu)
{
	return max_t(u32, DIV_ROUND_UP(len, mtu), 1);
}

/**
 * vrnic_replay_read_match - is a duplicate READ a resend of @r?
 * @r:    a recorded request
 * @psn:  the duplicate's PSN
 * @va:   its RETH's address, @len its length, @rkey its R_Key
 * @mtu:  the QP's path MTU
 *
 * A requester resends a READ from the first response it lacks: at that
 * response's PSN, for the rest of the bytes (or any part of them).  So
 * the duplicate's PSN is one of @r's, it asks under @r's rkey for no byte
 * @r did not (rxe's rule), and its responses take none of the PSNs past
 * @r's last.
 */
static inline bool vrnic_replay_read_match(const struct vrnic_rd_replay *r,
					   u32 psn, u64 va, u32 len, u32 rkey,
					   u32 mtu)
{
	u32 off;

	if (r->kind != VRNIC_REPLAY_READ || r->rkey != rkey)
		return false;
	off = vrnic_psn_sub(psn, r->psn);
	if (off >= r->npsn)
		return false;
	if (va < r->va || len > r->len || va - r->va > r->len - len)
		return false;
	return vrnic_read_npsn(len, mtu) <= r->npsn - off;
}

/**
 * struct vrnic_wq - a send or receive work queue
 * @queue:	struct rxe_send_wqe or struct rxe_recv_wqe elements
 * @lock:	serialises kernel producers (post_send, post_recv) and the
 *		flush that empties the queue on entry to ERR
 * @max_sge:	SGEs per WQE
 * @max_inline:	inline bytes per send WQE
 */
struct vrnic_wq {
	struct vrnic_queue	queue;
	spinlock_t		lock;		/* kernel producers, the flush */
	u32			max_sge;
	u32			max_inline;
};

/**
 * struct vrnic_qp_ref - what the device's QPN table holds for a QP
 * @users:	references from lookups by QPN (receive path, engines); the
 *		creator's reference is dropped by destroy, which then waits
 *		for @done so the core can free the QP
 * @done:	completed when @users reaches zero
 * @qp:		the QP
 * @rcu:	frees this a grace period after the QP left the table
 *
 * The reference count lives apart from the QP because the core frees the
 * QP as soon as destroy returns, while a lockless lookup that found it
 * just before it left the table may still be about to try @users.  This
 * small object is ours, so it can outlive the QP by a grace period
 * without destroy waiting for one.
 */
struct vrnic_qp_ref {
	refcount_t		users;
	struct completion	done;
	struct vrnic_qp		*qp;
	struct rcu_head		rcu;
};

/**
 * struct vrnic_qp - a queue pair
 * @ibqp:	the core QP
 * @ref:	its reference count, which the QPN table holds
 * @state_lock:	protects @state and @attr against concurrent modify_qp and
 *		the engines' error transitions
 * @state:	the current QP state (IBA 10.3.1)
 * @attr:	the attributes set through modify_qp, as last accepted
 * @addr_seq:	guards @local_addr and @peer_addr for the receive path's
 *		lockless reads; written under @state_lock
 * @local_addr, @peer_addr: the address vector's source and destination
 *		GIDs (IPv4 as v4-mapped), which an RC or UC packet's
 *		destination and source must be (vrnic_qp_addr_ok())
 * @sq, @rq:	the work queues; @rq is unused when @srq is set
 * @srq:	the shared receive queue, or NULL
 * @scq, @rcq:	send and receive completion queues
 * @sig_all:	every send WR generates a completion (IB_SIGNAL_ALL_WR)
 * @is_user:	the queues are mapped into a process (librxe)
 * @db:		the send queue's doorbell: the requester works up to its
 *		producer index
 * @pace_timer:	clock.mode pace: runs the requester again when the
 *		modeled link has caught up
 */
struct vrnic_qp {
	struct ib_qp		ibqp;
	struct vrnic_qp_ref	*ref;

	spinlock_t		state_lock;	/* @state, @attr, @addr_seq's writers */
	enum ib_qp_state	state;
	struct ib_qp_attr	attr;
	seqcount_spinlock_t	addr_seq;
	struct in6_addr		local_addr;
	struct in6_addr		peer_addr;

	struct vrnic_wq		sq;
	struct vrnic_wq		rq;
	struct vrnic_srq	*srq;
	struct vrnic_cq		*scq;
	struct vrnic_cq		*rcq;
	bool			sig_all;
	bool			is_user;
	u32			mtu;
	struct vrnic_doorbell	db;
	struct hrtimer		pace_timer;

	/*
	 * The engines run in @work, in a user doorbell's system call, or in
	 * the receive softirq for one round, one context at a time per QP
	 * (@engine: VRNIC_QP_RUNNING, VRNIC_QP_AGAIN; VRNIC_QP_HOLD while
	 * modify_qp holds them off).
	 */
	struct work_struct	work;
	unsigned long		engine;
	struct sk_buff_head	rx;
	struct vrnic_path	path;	/* its packets leave in order */
	struct timer_list	timer;
	bool			timed_out;
	/* A page fault of the engines; the QP's work resolves it. */
	struct vrnic_odp_fault	pf;

	struct vrnic_swqe	*swqe;
	struct vrnic_rd_replay *replay;	/* RC: VRNIC_MAX_RD_ATOMIC */
	struct vrnic_req_state	req;
	struct vrnic_comp_state	comp;
	struct vrnic_resp_state	resp;
};

/*
 * Unacknowledged PSNs allowed in flight, counted from the oldest one not
 * acknowledged.  IBA allows 2^23; a soft device behind a 256-entry virtio
 * ring loses whole bursts beyond about that, and go-back-N resends the
 * window behind each loss.  A READ request counts for all its response
 * packets, which is why READs go out in chunks.  After a retransmit
 * timeout the window starts again at one PSN and doubles with each
 * acknowledgment that makes progress, up to a ceiling that each loss
 * halves, to no less than VRNIC_WINDOW_FLOOR, and each such
 * acknowledgment raises by one (vrnic_comp.c).  128, as rxe's
 * RXE_MAX_UNACKED_PSNS.
 */
#define VRNIC_MAX_INFLIGHT	128
/* The least a loss brings the window's ceiling down to (vrnic_comp_loss()). */
#define VRNIC_WINDOW_FLOOR	64
/*
 * Response packets of a QP's READs in flight, within a larger window
 * (max_inflight).  A WRITE's packets leave as ACKs return, half a window
 * at a time; a READ's responses leave the responder back to back, every
 * READ outstanding at once.  On the tap link 128 in flight kept the
 * 2-vCPU READ near rxe's (tools/bench.sh, 2026-12-07: 11.28 MB/s against
 * 9.06 with 64, rxe 12.36), but on the UDP socket link such a burst
 * overran the receiving guest's ring (181 retransmits a round; an earlier
 * run: 19.7 MB/s with 128, 40.1 with 64).  So a QP starts at 128, and the
 * first loss halves it for good, to no less than 64 (the QP's
 * comp.read_ceiling, vrnic_read_ceiling_lost()): a ring a burst overran
 * once is overrun again, and 64 was never seen to overrun one.
 */
#define VRNIC_READ_INFLIGHT	128
#define VRNIC_READ_INFLIGHT_FLOOR	64
/* The most the max_inflight parameter allows: a quarter of a QP's receive bound. */
#define VRNIC_MAX_INFLIGHT_LIMIT	1024

enum {
	VRNIC_QP_RUNNING,	/* a context is running the engines */
	VRNIC_QP_AGAIN,		/* they must go round again */
	VRNIC_QP_HOLD,		/* modify_qp waits for them: none starts */
};

/*
 * The single-runner rule (exec/vrnic_exec.c): a QP's engines run only
 * with VRNIC_QP_RUNNING taken, by one context at a time, so they share
 * the QP's engine state without a lock.  Each engine's entry points check
 * it where lockdep is on (the debug kernel).
 */
static inline void vrnic_engines_assert_held(struct vrnic_qp *qp)
{
	lockdep_assert(test_bit(VRNIC_QP_RUNNING, &qp->engine));
}

/* A datagram QP: UD, or the GSI QP (QP1), which is UD on the wire. */
static inline bool vrnic_qp_is_ud(const struct vrnic_qp *qp)
{
	return qp->ibqp.qp_type == IB_QPT_UD || qp->ibqp.qp_type == IB_QPT_GSI;
}

static inline struct vrnic_qp *to_vqp(struct ib_qp *qp)
{
	return container_of(qp, struct vrnic_qp, ibqp);
}

/* Why a QP changed state; reported with every transition. */
enum vrnic_qp_cause {
	VRNIC_QP_CAUSE_VERB,		/* modify_qp */
	VRNIC_QP_CAUSE_ERROR,		/* a completion error */
	VRNIC_QP_CAUSE_RETRY,		/* retry or RNR retry exhausted */
	VRNIC_QP_CAUSE_DESTROY,		/* destroy_qp */
	VRNIC_QP_CAUSE_COUNT
};

/* Why the requester sends again (the retransmit tracepoint). */
enum vrnic_retransmit_reason {
	VRNIC_RETX_TIMEOUT,		/* the retransmit timer */
	VRNIC_RETX_SEQ_NAK,		/* a PSN sequence error NAK */
	VRNIC_RETX_RNR_NAK,		/* after an RNR NAK's delay */
	VRNIC_RETX_LOST_RESPONSE,	/* a later response: implied NAK */
};

#endif /* VRNIC_QP_H */
