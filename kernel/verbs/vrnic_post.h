/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vrnic: posting work requests.
 *
 * Copyright (c) 2026 The vrnic authors
 */

#ifndef VRNIC_POST_H
#define VRNIC_POST_H

#include <rdma/ib_verbs.h>

int vrnic_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		    const struct ib_send_wr **bad_wr);
int vrnic_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		    const struct ib_recv_wr **bad_wr);

#endif /* VRNIC_POST_H */
