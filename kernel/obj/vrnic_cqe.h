/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vrnic: writing completions.
 *
 * Copyright (c) 2026 The vrnic authors
 */

#ifndef VRNIC_CQE_H
#define VRNIC_CQE_H

#include <linux/types.h>

struct ib_wc;
struct vrnic_cq;
struct vrnic_qp;

int vrnic_cq_post(struct vrnic_cq *cq, const struct ib_wc *wc, bool solicited);
void vrnic_qp_complete(struct vrnic_qp *qp, struct vrnic_cq *cq,
		       const struct ib_wc *wc, bool solicited);

#endif /* VRNIC_CQE_H */
