// SPDX-License-Identifier: GPL-2.0-only
/*
 * vrnic: send work requests: which QP types take each opcode, who may
 * post it, what it becomes on the wire and what it completes as.  One
 * table, read at post time (kernel consumers) and by the requester
 * (every WQE, including those librxe writes into the mapped queue).
 *
 * Copyright (c) 2026 The vrnic authors
 */

#include <rdma/ib_verbs.h>

#include "engine/vrnic_wr.h"

#define WR(types, fam, wc, ...) \
	{ .qp_types = (types), .family = (fam), .wc_opcode = (wc), __VA_ARGS__ }

const struct vrnic_wr_info vrnic_wr_table[VRNIC_WR_TABLE_LEN] = {
	[IB_WR_SEND]		= WR(VRNIC_WR_RC | VRNIC_WR_UC | VRNIC_WR_UD,
				     VRNIC_WRF_SEND, IB_WC_SEND),
	[IB_WR_SEND_WITH_IMM]	= WR(VRNIC_WR_RC | VRNIC_WR_UC | VRNIC_WR_UD,
				     VRNIC_WRF_SEND, IB_WC_SEND),
	/* IBA 9.4.4.3: only an RC responder executes the invalidation. */
	[IB_WR_SEND_WITH_INV]	= WR(VRNIC_WR_RC, VRNIC_WRF_SEND, IB_WC_SEND),
	[IB_WR_RDMA_WRITE]	= WR(VRNIC_WR_RC | VRNIC_WR_UC,
				     VRNIC_WRF_WRITE, IB_WC_RDMA_WRITE),
	[IB_WR_RDMA_WRITE_WITH_IMM] = WR(VRNIC_WR_RC | VRNIC_WR_UC,
					 VRNIC_WRF_WRITE, IB_WC_RDMA_WRITE),
	[IB_WR_RDMA_READ]	= WR(VRNIC_WR_RC, VRNIC_WRF_READ, IB_WC_RDMA_READ),
	[IB_WR_ATOMIC_CMP_AND_SWP] = WR(VRNIC_WR_RC, VRNIC_WRF_ATOMIC,
					IB_WC_COMP_SWAP),
	[IB_WR_ATOMIC_FETCH_AND_ADD] = WR(VRNIC_WR_RC, VRNIC_WRF_ATOMIC,
					  IB_WC_FETCH_ADD),
	[VRNIC_WR_ATOMIC_WRITE]	= WR(VRNIC_WR_RC, VRNIC_WRF_ATOMIC_WRITE,
				     (enum ib_wc_opcode)VRNIC_WC_ATOMIC_WRITE),
	/*
	 * FLUSH (IBTA 1.5): librxe 45 and later post it.  A kernel
	 * ib_send_wr has no form of it (rxe 6.12 copies none of its fields).
	 */
	[VRNIC_WR_FLUSH]	= WR(VRNIC_WR_RC, VRNIC_WRF_FLUSH,
				     (enum ib_wc_opcode)VRNIC_WC_FLUSH,
				     .user_only = true),
	/*
	 * Memory operations on this side, connected QPs only.  LOCAL_INV
	 * invalidates a type 2 window (any consumer) or a fast-registration
	 * MR (a kernel one's: its PD is checked); BIND_MW has no kernel form
	 * in this kernel's struct ib_send_wr.
	 */
	[IB_WR_LOCAL_INV]	= WR(VRNIC_WR_RC | VRNIC_WR_UC, VRNIC_WRF_LOCAL,
				     IB_WC_LOCAL_INV),
	[IB_WR_BIND_MW]		= WR(VRNIC_WR_RC | VRNIC_WR_UC, VRNIC_WRF_LOCAL,
				     IB_WC_BIND_MW, .user_only = true),
	[IB_WR_REG_MR]		= WR(VRNIC_WR_RC | VRNIC_WR_UC, VRNIC_WRF_LOCAL,
				     IB_WC_REG_MR, .kernel_only = true),
};

static u8 vrnic_wr_type_bit(enum ib_qp_type type)
{
	switch (type) {
	case IB_QPT_RC:
		return VRNIC_WR_RC;
	case IB_QPT_UC:
		return VRNIC_WR_UC;
	case IB_QPT_UD:
	case IB_QPT_GSI:
		return VRNIC_WR_UD;
	default:
		return 0;
	}
}

/**
 * vrnic_wr_allowed - may a QP of @type carry @opcode?
 * @type:	the QP's type
 * @user:	the WR came from userspace (the mapped queue)
 * @opcode:	IB_WR_* (or VRNIC_WR_ATOMIC_WRITE)
 */
bool vrnic_wr_allowed(enum ib_qp_type type, bool user, u32 opcode)
{
	const struct vrnic_wr_info *i = vrnic_wr_info(opcode);

	return i && (i->qp_types & vrnic_wr_type_bit(type)) &&
	       !(user && i->kernel_only) && !(!user && i->user_only);
}

/* The completion opcode of a send work request (IB_WR_* to IB_WC_*). */
enum ib_wc_opcode vrnic_wr_wc_opcode(u32 wr_opcode)
{
	const struct vrnic_wr_info *i = vrnic_wr_info(wr_opcode);

	return i ? i->wc_opcode : IB_WC_SEND;
}
