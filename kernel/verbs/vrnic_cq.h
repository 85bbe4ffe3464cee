/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vrnic: the completion queue verbs.
 *
 * Copyright (c) 2026 The vrnic authors
 */

#ifndef VRNIC_CQ_H
#define VRNIC_CQ_H

#include <rdma/ib_verbs.h>

#include "vrnic_compat.h"

int vrnic_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		    struct vrnic_create_cq_arg *arg);
int vrnic_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata);
int vrnic_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata);
int vrnic_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc);
int vrnic_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags);

#endif /* VRNIC_CQ_H */
