/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vrnic: packet transmit for the engines.
 *
 * Copyright (c) 2026 The vrnic authors
 */

#ifndef VRNIC_TX_H
#define VRNIC_TX_H

#include <rdma/ib_verbs.h>

struct sk_buff;
struct vrnic_qp;

struct sk_buff *vrnic_pkt_build(struct vrnic_qp *qp, u8 opcode, u32 psn,
				u32 dst_qpn, u32 paylen, bool ackreq, bool se);
int vrnic_pkt_send(struct vrnic_qp *qp, struct sk_buff *skb,
		   const struct rdma_ah_attr *av, u32 dst_qpn);

#endif /* VRNIC_TX_H */
