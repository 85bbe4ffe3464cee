// SPDX-License-Identifier: GPL-2.0-only
/*
 * vrnic: send work requests: what each opcode completes as.
 *
 * Copyright (c) 2026 The vrnic authors
 */

#include <rdma/ib_verbs.h>

#include "vrnic_qp.h"
#include "engine/vrnic_wr.h"

/* The completion opcode of a send work request (IB_WR_* to IB_WC_*). */
enum ib_wc_opcode vrnic_wr_wc_opcode(u32 wr_opcode)
{
	switch (wr_opcode) {
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		return IB_WC_RDMA_WRITE;
	case IB_WR_RDMA_READ:
	case IB_WR_RDMA_READ_WITH_INV:
		return IB_WC_RDMA_READ;
	case IB_WR_ATOMIC_CMP_AND_SWP:
		return IB_WC_COMP_SWAP;
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		return IB_WC_FETCH_ADD;
	case IB_WR_LOCAL_INV:
		return IB_WC_LOCAL_INV;
	case IB_WR_REG_MR:
		return IB_WC_REG_MR;
	case VRNIC_WR_ATOMIC_WRITE:
		return VRNIC_WC_ATOMIC_WRITE;
	case IB_WR_SEND:
	case IB_WR_SEND_WITH_IMM:
	case IB_WR_SEND_WITH_INV:
	default:
		return IB_WC_SEND;
	}
}
