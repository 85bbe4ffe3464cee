/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vrnic hardware model: QP contexts, on chip or behind a cache (qpc.c).
 *
 * Copyright (c) 2026 The vrnic authors
 */

#ifndef VRNIC_HW_QPC_H
#define VRNIC_HW_QPC_H

#include "model.h"

struct device;

int vrnic_model_qp_create(struct vrnic_model *m, bool gsi, struct device *dev);
void vrnic_model_qp_destroy(struct vrnic_model *m, u32 qpn, bool gsi);
bool vrnic_model_qpc_access(struct vrnic_model *m, u32 qpn,
			    enum vrnic_cam_result *res,
			    struct vrnic_dma_cost *fetch,
			    struct vrnic_dma_cost *writeback);
bool vrnic_model_qpc_resident(struct vrnic_model *m, u32 qpn, bool *resident);

#endif /* VRNIC_HW_QPC_H */
