/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vrnic: the QP's execution.
 *
 * Copyright (c) 2026 The vrnic authors
 */

#ifndef VRNIC_EXEC_H
#define VRNIC_EXEC_H

struct sk_buff;
struct vrnic_qp;

int vrnic_exec_init(void);
void vrnic_exec_exit(void);
void vrnic_exec_qp_init(struct vrnic_qp *qp);
void vrnic_exec_qp_stop(struct vrnic_qp *qp);
void vrnic_qp_schedule(struct vrnic_qp *qp);
void vrnic_qp_rx(struct vrnic_qp *qp, struct sk_buff *skb);
void vrnic_exec_hold(struct vrnic_qp *qp);
void vrnic_exec_release(struct vrnic_qp *qp);
void vrnic_exec_doorbell(struct vrnic_qp *qp);

#endif /* VRNIC_EXEC_H */
