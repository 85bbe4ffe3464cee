/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vrnic: the responder engine.
 *
 * Copyright (c) 2026 The vrnic authors
 */

#ifndef VRNIC_RESP_H
#define VRNIC_RESP_H

#include <linux/types.h>

struct sk_buff;
struct vrnic_qp;

void vrnic_resp_rx(struct vrnic_qp *qp, struct sk_buff *skb);
bool vrnic_resp_read_pending(struct vrnic_qp *qp);
void vrnic_resp_flush_ack(struct vrnic_qp *qp);

#endif /* VRNIC_RESP_H */
