/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vrnic: the requester engine.
 *
 * Copyright (c) 2026 The vrnic authors
 */

#ifndef VRNIC_REQ_H
#define VRNIC_REQ_H

#include <linux/types.h>

#include "wire/vrnic_psn.h"

/*
 * The requester's state in its QP.  Other engines change it only through
 * the requester's functions (vrnic_req_rewind(), vrnic_req_step_over()).
 */
struct vrnic_req_state {
	u32		index;	/* next WQE to start */
	u32		offset;	/* bytes of it sent */
	u32		psn;	/* next PSN to send */
	u32		next_new; /* first WQE not yet copied */
	/*
	 * SQD (IBA 10.3.1): the messages begun before it still finish, and
	 * are sent again after a loss; none from @drain_end on begins.
	 */
	bool		draining;
	bool		drain_told;	/* IB_EVENT_SQ_DRAINED raised */
	u32		drain_end;
};

/**
 * vrnic_req_rewind - send again from a point the completer chose
 * @req:	the requester's state
 * @index:	the WQE to go on from
 * @offset:	bytes of it not to send again
 * @psn:	the PSN of the packet that carries byte @offset
 *
 * Context: the QP's engines (the completer, on a NAK, a timeout or an
 * acknowledgment past where the requester is).
 */
static inline void vrnic_req_rewind(struct vrnic_req_state *req, u32 index,
				    u32 offset, u32 psn)
{
	req->index = index;
	req->offset = offset;
	req->psn = psn;
}

/**
 * vrnic_req_step_over - move past a WQE already complete (reached again
 *	after a rewind): on to the next WQE's first packet
 * @req:	the requester's state
 * @last_psn:	the complete WQE's last PSN
 * @mask:	the send queue's index mask
 *
 * Context: the QP's engines.
 */
static inline void vrnic_req_step_over(struct vrnic_req_state *req,
				       u32 last_psn, u32 mask)
{
	req->psn = vrnic_psn_next(last_psn);
	req->index = (req->index + 1) & mask;
	req->offset = 0;
}

struct vrnic_qp;

bool vrnic_req_run(struct vrnic_qp *qp, unsigned int budget);
void vrnic_req_reset(struct vrnic_qp *qp);
void vrnic_req_start(struct vrnic_qp *qp);

#endif /* VRNIC_REQ_H */
