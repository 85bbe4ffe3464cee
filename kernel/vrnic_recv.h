/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vrnic: receive dispatch.
 *
 * Copyright (c) 2026 The vrnic authors
 */

#ifndef VRNIC_RECV_H
#define VRNIC_RECV_H

#include <linux/skbuff.h>

#include "vrnic_opcode.h"

struct vrnic_dev;
struct vrnic_qp;

/**
 * struct vrnic_pkt - what dispatch learnt of a packet, kept in skb->cb
 * @opcode:	BTH opcode
 * @flags:	the opcode's VRNIC_OPF_* flags
 * @psn:	BTH PSN
 * @hdr_len:	bytes from the BTH to the payload
 * @paylen:	payload bytes (pad and ICRC excluded)
 *
 * skb->data points at the BTH.
 */
struct vrnic_pkt {
	u32	flags;
	u32	psn;
	u32	paylen;
	u16	hdr_len;
	u8	opcode;
};

static inline struct vrnic_pkt *vrnic_pkt(struct sk_buff *skb)
{
	return (struct vrnic_pkt *)skb->cb;
}

static inline void *vrnic_pkt_hdr(struct sk_buff *skb, enum vrnic_hdr_type t)
{
	return vrnic_hdr_at(skb->data, t);
}

static inline void *vrnic_pkt_payload(struct sk_buff *skb)
{
	return skb->data + vrnic_pkt(skb)->hdr_len;
}

void vrnic_recv(struct vrnic_dev *vdev, struct sk_buff *skb);

#endif /* VRNIC_RECV_H */
