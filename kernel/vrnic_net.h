/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vrnic: moving RoCEv2 packets in and out (UDP port 4791).
 *
 * Copyright (c) 2026 The vrnic authors
 */

#ifndef VRNIC_NET_H
#define VRNIC_NET_H

#include <linux/skbuff.h>
#include <rdma/ib_verbs.h>

struct vrnic_dev;

/* Room to reserve in front of the BTH for Ethernet, IP and UDP headers. */
unsigned int vrnic_net_headroom(struct vrnic_dev *vdev);
struct sk_buff *vrnic_net_alloc_skb(struct vrnic_dev *vdev, unsigned int len);
int vrnic_net_xmit(struct vrnic_dev *vdev, struct sk_buff *skb,
		   const struct rdma_ah_attr *av, u32 src_qpn, u32 dst_qpn);

int vrnic_net_get(struct vrnic_dev *vdev);
void vrnic_net_put(struct net *net);
int vrnic_net_init(void);
void vrnic_net_exit(void);

#endif /* VRNIC_NET_H */
