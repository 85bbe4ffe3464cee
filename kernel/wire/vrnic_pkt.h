/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vrnic: what receive dispatch learnt of a packet (skb->cb), and where
 * its headers and payload are.
 *
 * Copyright (c) 2026 The vrnic authors
 */

#ifndef VRNIC_PKT_H
#define VRNIC_PKT_H

#include <linux/skbuff.h>

#include "wire/vrnic_opcode.h"

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

#endif /* VRNIC_PKT_H */
