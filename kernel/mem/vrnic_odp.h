/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vrnic: on-demand paging MRs (IB_ACCESS_ON_DEMAND).
 *
 * Copyright (c) 2026 The vrnic authors
 */

#ifndef VRNIC_ODP_H
#define VRNIC_ODP_H

#include <linux/types.h>

#include "hw/model.h"

struct ib_device;
struct vrnic_dev;
struct vrnic_mr;
struct vrnic_odp_fault;

#if IS_ENABLED(CONFIG_INFINIBAND_ON_DEMAND_PAGING)
int vrnic_odp_reg(struct ib_device *ibdev, struct vrnic_mr *mr, u64 start,
		  u64 length, int access);
int vrnic_odp_copy(struct vrnic_dev *vdev, struct vrnic_mr *mr, u64 iova,
		   void *buf, u32 len, enum vrnic_dma_dir dir,
		   struct vrnic_odp_fault *pf);
int vrnic_odp_fault_in(struct vrnic_mr *mr, struct vrnic_odp_fault *pf);
#else
static inline int vrnic_odp_reg(struct ib_device *ibdev, struct vrnic_mr *mr,
				u64 start, u64 length, int access)
{
	return -EOPNOTSUPP;
}

static inline int vrnic_odp_copy(struct vrnic_dev *vdev, struct vrnic_mr *mr,
				 u64 iova, void *buf, u32 len,
				 enum vrnic_dma_dir dir,
				 struct vrnic_odp_fault *pf)
{
	return -EFAULT;
}

static inline int vrnic_odp_fault_in(struct vrnic_mr *mr,
				     struct vrnic_odp_fault *pf)
{
	return -EOPNOTSUPP;
}
#endif

#endif /* VRNIC_ODP_H */
