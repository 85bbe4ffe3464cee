/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vrnic hardware model: the MR translation cache (mrc.c).
 *
 * Copyright (c) 2026 The vrnic authors
 */

#ifndef VRNIC_HW_MRC_H
#define VRNIC_HW_MRC_H

#include "model.h"

bool vrnic_model_mr_access(struct vrnic_model *m, u32 key, u32 pages,
			   enum vrnic_cam_result *res,
			   struct vrnic_dma_cost *miss);
void vrnic_model_mr_invalidate(struct vrnic_model *m, u32 key);
bool vrnic_model_mr_resident(struct vrnic_model *m, u32 key, bool *resident);

#endif /* VRNIC_HW_MRC_H */
