/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vrnic: the QP as its engines and the receive path see it.
 *
 * Copyright (c) 2026 The vrnic authors
 */

#ifndef VRNIC_QP_OBJ_H
#define VRNIC_QP_OBJ_H

#include <rdma/ib_verbs.h>

#include "vrnic_qp.h"

struct sk_buff;
struct vrnic_dev;

const char *vrnic_qp_state_name(enum ib_qp_state state);
struct vrnic_qp *vrnic_qp_get(struct vrnic_dev *vdev, u32 qpn);
struct vrnic_qp *vrnic_qp_ref_try(struct vrnic_qp_ref *ref);
void vrnic_qp_ref_put(struct vrnic_qp_ref *ref);
void vrnic_qp_ref_retire(struct vrnic_qp_ref *ref);
void vrnic_qp_put(struct vrnic_qp *qp);
bool vrnic_qp_addr_ok(struct vrnic_qp *qp, const struct sk_buff *skb);
void vrnic_qp_set_state(struct vrnic_qp *qp, enum ib_qp_state new,
			enum vrnic_qp_cause cause);
void vrnic_qp_error(struct vrnic_qp *qp, enum vrnic_qp_cause cause);
void vrnic_qp_event(struct vrnic_qp *qp, enum ib_event_type type);
void vrnic_qp_pace(struct vrnic_qp *qp, u64 wait_ns);

#endif /* VRNIC_QP_OBJ_H */
