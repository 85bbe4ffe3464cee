/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vrnic: driver detail for rdma res show ... -dd.
 *
 * Copyright (c) 2026 The vrnic authors
 */

#ifndef VRNIC_RESTRACK_H
#define VRNIC_RESTRACK_H

#include <rdma/ib_verbs.h>

struct sk_buff;

int vrnic_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *ibqp);
int vrnic_fill_res_mr_entry(struct sk_buff *msg, struct ib_mr *ibmr);
int vrnic_fill_res_cq_entry(struct sk_buff *msg, struct ib_cq *ibcq);

#endif /* VRNIC_RESTRACK_H */
