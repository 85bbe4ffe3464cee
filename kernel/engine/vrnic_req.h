/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vrnic: the requester engine.
 *
 * Copyright (c) 2026 The vrnic authors
 */

#ifndef VRNIC_REQ_H
#define VRNIC_REQ_H

#include <linux/types.h>

struct vrnic_qp;

bool vrnic_req_run(struct vrnic_qp *qp, unsigned int budget);

#endif /* VRNIC_REQ_H */
