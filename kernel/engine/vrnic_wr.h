/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vrnic: send work requests, one table indexed by opcode.
 *
 * Copyright (c) 2026 The vrnic authors
 */

#ifndef VRNIC_WR_H
#define VRNIC_WR_H

#include <rdma/ib_verbs.h>

/*
 * RDMA ATOMIC WRITE (IBTA 1.5, 9.4.7): rdma-core 44 has it, the 6.1 kernel's
 * headers do not (VRNIC_WR_ATOMIC_WRITE, VRNIC_WC_ATOMIC_WRITE).
 */
#include "vrnic_compat.h"

/* The QP types a work request may be posted on. */
#define VRNIC_WR_RC	BIT(0)
#define VRNIC_WR_UC	BIT(1)
#define VRNIC_WR_UD	BIT(2)	/* UD and the GSI QP */

/* What a work request becomes on the wire. */
enum vrnic_wr_family {
	VRNIC_WRF_SEND,		/* SEND packets */
	VRNIC_WRF_WRITE,	/* RDMA WRITE packets */
	VRNIC_WRF_READ,		/* a READ request, answered by responses */
	VRNIC_WRF_ATOMIC,	/* one request, answered by an atomic ACK */
	VRNIC_WRF_ATOMIC_WRITE,	/* one request of 8 bytes, answered by an ACK */
	VRNIC_WRF_FLUSH,	/* one request, answered by an empty READ response */
	VRNIC_WRF_LOCAL,	/* nothing: a memory operation on this side */
};

/**
 * struct vrnic_wr_info - the rules of one send work request opcode
 * @qp_types:	VRNIC_WR_RC, _UC, _UD where it may be posted
 * @kernel_only: only a kernel consumer may post it (a REG_MR WQE carries
 *		a kernel pointer)
 * @user_only:	only librxe posts it (BIND_MW, FLUSH: struct ib_send_wr
 *		has no form of them)
 * @family:	what it becomes on the wire
 * @wc_opcode:	the opcode of its completion
 *
 * Post-time checks (kernel posts, verbs/vrnic_post.c) and the requester's
 * (every WQE, librxe's among them) read the same entry.
 */
struct vrnic_wr_info {
	u8			qp_types;
	bool			kernel_only;
	bool			user_only;
	enum vrnic_wr_family	family;
	enum ib_wc_opcode	wc_opcode;
};

#define VRNIC_WR_TABLE_LEN	(IB_WR_REG_MR + 1)
extern const struct vrnic_wr_info vrnic_wr_table[VRNIC_WR_TABLE_LEN];

/* The rules of @opcode, or NULL for an opcode vrnic does not offer. */
static inline const struct vrnic_wr_info *vrnic_wr_info(u32 opcode)
{
	const struct vrnic_wr_info *i;

	if (opcode >= VRNIC_WR_TABLE_LEN)
		return NULL;
	i = &vrnic_wr_table[opcode];
	return i->qp_types ? i : NULL;
}

/* Compare-and-swap or fetch-and-add: one PSN, answered by an atomic ACK. */
static inline bool vrnic_wr_is_atomic(u32 opcode)
{
	const struct vrnic_wr_info *i = vrnic_wr_info(opcode);

	return i && i->family == VRNIC_WRF_ATOMIC;
}

/*
 * A READ, an atomic or a FLUSH: takes one of the responder's resources
 * (max_rd_atomic) and completes only with its response.
 */
static inline bool vrnic_wr_is_read_atomic(u32 opcode)
{
	const struct vrnic_wr_info *i = vrnic_wr_info(opcode);

	return i && (i->family == VRNIC_WRF_READ ||
		     i->family == VRNIC_WRF_ATOMIC ||
		     i->family == VRNIC_WRF_FLUSH);
}

/* Local work: REG_MR, LOCAL_INV, BIND_MW; no packet, no PSN. */
static inline bool vrnic_wr_is_local(u32 opcode)
{
	const struct vrnic_wr_info *i = vrnic_wr_info(opcode);

	return i && i->family == VRNIC_WRF_LOCAL;
}

bool vrnic_wr_allowed(enum ib_qp_type type, bool user, u32 opcode);
enum ib_wc_opcode vrnic_wr_wc_opcode(u32 wr_opcode);

#endif /* VRNIC_WR_H */
