// SPDX-License-Identifier: GPL-2.0-only
/*
 * vrnic: receive dispatch.  Every packet from the wire is validated here
 * before any engine sees it: ICRC, headers against the opcode table, the
 * destination QP, its type and state, the source and destination address
 * of connected QPs' packets, the Q_Key of datagrams.  What passes
 * is queued on the QP and its work runs the responder or the completer.
 *
 * Copyright (c) 2026 The vrnic authors
 */

#include "vrnic.h"
#include "vrnic_qp.h"
#include "exec/vrnic_exec.h"
#include "exec/vrnic_recv.h"
#include "mem/vrnic_mem.h"
#include "obj/vrnic_mcg.h"
#include "obj/vrnic_qp_obj.h"
#include "probe/vrnic_mutate.h"
#include "wire/vrnic_icrc.h"
#include "wire/vrnic_pkt.h"

static bool vrnic_transport_ok(struct vrnic_qp *qp, u8 opcode)
{
	switch (opcode & VRNIC_TRANSPORT_MASK) {
	case VRNIC_TRANSPORT_RC:
		return qp->ibqp.qp_type == IB_QPT_RC;
	case VRNIC_TRANSPORT_UC:
		return qp->ibqp.qp_type == IB_QPT_UC;
	case VRNIC_TRANSPORT_UD:
		return vrnic_qp_is_ud(qp);
	default:
		return false;
	}
}

/* May @qp take this packet in its current state?  IBA 10.3.1 */
static bool vrnic_state_ok(struct vrnic_qp *qp, u32 flags)
{
	enum ib_qp_state s = READ_ONCE(qp->state);

	if (flags & VRNIC_OPF_REQ)
		return s == IB_QPS_RTR || s == IB_QPS_RTS || s == IB_QPS_SQD ||
		       s == IB_QPS_SQE;
	return s == IB_QPS_RTS || s == IB_QPS_SQD || s == IB_QPS_SQE;
}

/*
 * May @qp take this packet?  Its transport, the P_Key, the QP's state,
 * the sender's address (connected QPs) and the Q_Key (datagrams).
 * Return: -1 if so, else the VRNIC_CNT_RX_DROP_* counter of the reason.
 */
static int vrnic_recv_check_qp(struct vrnic_qp *qp, const struct sk_buff *skb,
			       const struct vrnic_pkt_hdrs *h)
{
	if (!vrnic_transport_ok(qp, h->opcode))
		return VRNIC_CNT_RX_DROP_MALFORMED;
	/*
	 * IBA 10.9.3: the P_Key must match the port's one entry, the
	 * default full-member 0xffff: its low 15 bits (either membership).
	 */
	if ((vrnic_bth_pkey(h->bth) & 0x7fff) != (VRNIC_DEFAULT_PKEY & 0x7fff))
		return VRNIC_CNT_RX_DROP_PKEY;
	if (!vrnic_state_ok(qp, h->info->flags))
		return VRNIC_CNT_RX_DROP_QP_STATE;
	if (!vrnic_qp_addr_ok(qp, skb))
		return VRNIC_CNT_RX_DROP_ADDR;
	if (h->deth) {
		u32 want = qp->ibqp.qp_type == IB_QPT_GSI ? VRNIC_GSI_QKEY :
							   READ_ONCE(qp->attr.qkey);

		if (vrnic_deth_qkey(h->deth) != want)
			return VRNIC_CNT_RX_DROP_QKEY;
	}
	return -1;
}

/* The parsed headers into the packet's control block. */
static void vrnic_recv_fill(struct sk_buff *skb, const struct vrnic_pkt_hdrs *h)
{
	struct vrnic_pkt *pkt = vrnic_pkt(skb);

	pkt->opcode = h->opcode;
	pkt->flags = h->info->flags;
	pkt->psn = vrnic_bth_psn(h->bth);
	pkt->hdr_len = h->hdr_len;
	pkt->paylen = h->payload_len;
}

/* The destination address of @skb as a GID (IPv4-mapped for IPv4). */
static void vrnic_recv_dgid(const struct sk_buff *skb, union ib_gid *gid)
{
	if (ip_hdr(skb)->version == 4)
		ipv6_addr_set_v4mapped(ip_hdr(skb)->daddr,
				       (struct in6_addr *)gid->raw);
	else
		memcpy(gid->raw, &ipv6_hdr(skb)->daddr, sizeof(gid->raw));
}

/*
 * A datagram to a multicast group (destination QP 0xFFFFFF, IBA 10.5):
 * a copy for each QP attached to the group of its destination address
 * that may take it, each checked as a unicast datagram is.
 */
static void vrnic_recv_mcast(struct vrnic_dev *vdev, struct sk_buff *skb,
			     const struct vrnic_pkt_hdrs *h)
{
	u32 qpns[VRNIC_MAX_MCAST_QP_ATTACH];
	unsigned int n, i;
	union ib_gid mgid;
	struct sk_buff *c;
	struct vrnic_qp *qp;
	int drop;

	if (!h->deth) {
		/* Only datagrams go to a group: nothing else has QP 0xFFFFFF. */
		vrnic_count(vdev, VRNIC_CNT_RX_DROP_NO_QP);
		goto out;
	}
	vrnic_recv_dgid(skb, &mgid);
	n = vrnic_mcg_qpns(vdev, &mgid, qpns, ARRAY_SIZE(qpns));
	if (!n) {
		vrnic_count(vdev, VRNIC_CNT_RX_DROP_NO_QP);
		goto out;
	}
	vrnic_recv_fill(skb, h);
	for (i = 0; i < n; i++) {
		qp = vrnic_qp_get(vdev, qpns[i]);
		if (!qp)
			continue;	/* destroyed meanwhile */
		drop = vrnic_recv_check_qp(qp, skb, h);
		if (drop >= 0) {
			vrnic_count(vdev, drop);
			vrnic_qp_put(qp);
			continue;
		}
		c = skb_clone(skb, GFP_ATOMIC);
		if (c) {
			vrnic_qpc_access(vdev, qpns[i]);
			vrnic_qp_rx(qp, c);
		} else {
			vrnic_count(vdev, VRNIC_CNT_RX_DROP_BUSY);
		}
		vrnic_qp_put(qp);
	}
out:
	consume_skb(skb);
}

/**
 * vrnic_recv - take one received packet
 * @vdev:	the device whose netdev received it
 * @skb:	skb->data at the BTH, the network header at the IP header;
 *		consumed
 *
 * Context: softirq (or bottom halves disabled, for loopback).
 */
void vrnic_recv(struct vrnic_dev *vdev, struct sk_buff *skb)
{
	struct vrnic_pkt_hdrs h;
	struct vrnic_qp *qp;
	int drop;
	u32 qpn;

	BUILD_BUG_ON(sizeof(struct vrnic_pkt) > sizeof(skb->cb));
	vrnic_count(vdev, VRNIC_CNT_RX_PKTS);

	if (skb_linearize(skb))
		goto malformed;
	if (!vrnic_mutant(icrc_skip) && vrnic_icrc_check(skb)) {
		vrnic_count(vdev, VRNIC_CNT_RX_DROP_ICRC);
		goto drop;
	}
	if (vrnic_parse_hdrs(skb->data, skb->len, &h))
		goto malformed;

	qpn = vrnic_bth_qpn(h.bth);
	if (qpn == IB_MULTICAST_QPN) {
		vrnic_recv_mcast(vdev, skb, &h);
		return;
	}
	qp = vrnic_qp_get(vdev, qpn);
	if (!qp) {
		vrnic_count(vdev, VRNIC_CNT_RX_DROP_NO_QP);
		goto drop;
	}
	drop = vrnic_recv_check_qp(qp, skb, &h);
	if (drop >= 0) {
		vrnic_count(vdev, drop);
		goto drop_qp;
	}

	vrnic_recv_fill(skb, &h);
	vrnic_qpc_access(vdev, qpn);
	vrnic_qp_rx(qp, skb);
	vrnic_qp_put(qp);
	return;

drop_qp:
	vrnic_qp_put(qp);
	goto drop;
malformed:
	vrnic_count(vdev, VRNIC_CNT_RX_DROP_MALFORMED);
drop:
	kfree_skb(skb);
}
