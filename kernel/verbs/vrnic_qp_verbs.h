/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vrnic: the QP verbs: create, modify (the state machine), query, destroy.
 *
 * Copyright (c) 2026 The vrnic authors
 */

#ifndef VRNIC_QP_VERBS_H
#define VRNIC_QP_VERBS_H

#include <rdma/ib_verbs.h>

int vrnic_qp_modify_check(const struct ib_device_attr *dattr,
			  enum ib_qp_state state, enum ib_qp_type type,
			  const struct ib_qp_attr *attr, int mask);
int vrnic_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		    struct ib_udata *udata);
int vrnic_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		    struct ib_udata *udata);
int vrnic_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		   struct ib_qp_init_attr *init);
int vrnic_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata);

#endif /* VRNIC_QP_VERBS_H */
