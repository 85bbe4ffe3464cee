/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vrnic: the shared receive queue verbs.
 *
 * Copyright (c) 2026 The vrnic authors
 */

#ifndef VRNIC_SRQ_H
#define VRNIC_SRQ_H

#include <rdma/ib_verbs.h>

int vrnic_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		     struct ib_udata *udata);
int vrnic_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		     enum ib_srq_attr_mask mask, struct ib_udata *udata);
int vrnic_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr);
int vrnic_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata);
int vrnic_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
			const struct ib_recv_wr **bad_wr);

#endif /* VRNIC_SRQ_H */
