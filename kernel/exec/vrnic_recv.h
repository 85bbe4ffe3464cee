/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vrnic: receive dispatch, the net layer's one upcall.
 *
 * Copyright (c) 2026 The vrnic authors
 */

#ifndef VRNIC_RECV_H
#define VRNIC_RECV_H

struct sk_buff;
struct vrnic_dev;

void vrnic_recv(struct vrnic_dev *vdev, struct sk_buff *skb);

#endif /* VRNIC_RECV_H */
