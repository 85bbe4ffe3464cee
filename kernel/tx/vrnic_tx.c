// SPDX-License-Identifier: GPL-2.0-only
/*
 * vrnic: packet transmit for the engines: an skb with the transport
 * headers built, and its send through the net layer on the QP's path.
 *
 * Copyright (c) 2026 The vrnic authors
 */

#include <rdma/ib_mad.h>

#include "vrnic.h"
#include "vrnic_qp.h"
#include "mem/vrnic_mem.h"
#include "net/vrnic_net.h"
#include "tx/vrnic_tx.h"
#include "wire/vrnic_opcode.h"

/**
 * vrnic_pkt_build - an skb holding a packet's headers and room for payload
 * @qp:		the sending QP
 * @opcode:	BTH opcode
 * @psn:	BTH PSN
 * @dst_qpn:	BTH destination QP
 * @paylen:	payload bytes that follow the headers
 * @ackreq:	ask for an acknowledge
 * @se:		solicited event
 *
 * The extension headers are zeroed for the caller to fill; the payload
 * starts at skb->data + vrnic_hdr_len(opcode).
 */
struct sk_buff *vrnic_pkt_build(struct vrnic_qp *qp, u8 opcode, u32 psn,
				u32 dst_qpn, u32 paylen, bool ackreq, bool se)
{
	struct vrnic_dev *vdev = to_vdev(qp->ibqp.device);
	struct vrnic_bth_fields f = {
		.opcode = opcode,
		.se = se,
		.ackreq = ackreq,
		.pad = vrnic_pad_for(paylen),
		.pkey = IB_DEFAULT_PKEY_FULL,
		.qpn = dst_qpn,
		.psn = psn,
	};
	unsigned int hlen = vrnic_hdr_len(opcode);
	unsigned int len = hlen + paylen + f.pad + 4;
	struct sk_buff *skb;

	skb = vrnic_net_alloc_skb(vdev, len);
	if (!skb)
		return NULL;
	__skb_put(skb, len);
	memset(skb->data + hlen + paylen, 0, f.pad + 4);
	if (vrnic_build_hdrs(skb->data, len, &f) < 0) {
		kfree_skb(skb);
		return NULL;
	}
	return skb;
}

int vrnic_pkt_send(struct vrnic_qp *qp, struct sk_buff *skb,
		   const struct rdma_ah_attr *av, u32 dst_qpn)
{
	struct vrnic_dev *vdev = to_vdev(qp->ibqp.device);
	int err;

	vrnic_qpc_access(vdev, qp->ibqp.qp_num);
	err = vrnic_net_xmit(vdev, &qp->path, skb, av, qp->ibqp.qp_num,
			     dst_qpn);
	vrnic_count(vdev, err ? VRNIC_CNT_TX_ERR : VRNIC_CNT_TX_PKTS);
	return err;
}
