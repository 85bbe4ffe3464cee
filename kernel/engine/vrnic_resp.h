/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vrnic: the responder engine.
 *
 * Copyright (c) 2026 The vrnic authors
 */

#ifndef VRNIC_RESP_H
#define VRNIC_RESP_H

#include <linux/types.h>
#include <rdma/rdma_user_rxe.h>

struct sk_buff;
/*
 * The responder's state in its QP: the expected PSN, the receive WQE a
 * multi-packet SEND holds, the WRITE and the READ in progress, the
 * coalesced ACK.  Others change it only through the responder's
 * functions.
 */
struct vrnic_resp_state {
	u32		epsn;	/* expected PSN */
	u32		msn;
	bool		nak_sent;
	bool		has_wqe;	/* a receive WQE is in @wqe */
	u64		wr_id;
	u32		num_sge;
	u32		length;
	u32		offset;
	struct rxe_sge	sge[32];
	bool		write_active;
	u64		va;
	u32		rkey;
	u32		resid;
	u32		write_len;
	u32		replay_next;	/* next slot of @replay */
	bool		ack_pending;	/* coalesced ACK of @ack_psn */
	u32		ack_psn;
	u32		acked_psn;	/* PSN of the last ACK sent */
	u64		ack_ns;		/* local_clock() when it went */
	/*
	 * The READ being answered, a budget of responses per engine
	 * round (vrnic_resp_read_more()): no other request is taken
	 * until its last response is sent.
	 */
	struct {
		bool	active;
		bool	first;	/* the next response is the first */
		u32	psn;	/* of the next response */
		u32	rkey;
		u64	va;	/* of the next response's payload */
		u32	resid;	/* bytes left to send */
	} rd;
};

struct vrnic_qp;

void vrnic_resp_rx(struct vrnic_qp *qp, struct sk_buff *skb);
bool vrnic_resp_read_pending(struct vrnic_qp *qp);
void vrnic_resp_flush_ack(struct vrnic_qp *qp);
void vrnic_resp_reset(struct vrnic_qp *qp);
void vrnic_resp_start(struct vrnic_qp *qp);
bool vrnic_resp_take_held(struct vrnic_qp *qp, u64 *wr_id);

#endif /* VRNIC_RESP_H */
