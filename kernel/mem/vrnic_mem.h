/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vrnic: the engines' glue to the hardware model.
 *
 * Copyright (c) 2026 The vrnic authors
 */

#ifndef VRNIC_MEM_H
#define VRNIC_MEM_H

#include <rdma/ib_verbs.h>

#include "hw/model.h"

struct rxe_sge;
struct vrnic_dev;
struct vrnic_mr;
struct vrnic_odp_fault;

struct vrnic_mr *vrnic_mr_get(struct vrnic_dev *vdev, u32 key);
struct vrnic_mr *vrnic_mr_try(struct vrnic_mr *mr, u32 key);
void vrnic_mr_retire(struct vrnic_mr *mr);
void vrnic_mr_cache_access(struct vrnic_dev *vdev, u32 key, u32 pages);
void vrnic_mr_uncache(struct vrnic_dev *vdev, u32 key);
void vrnic_mr_put(struct vrnic_mr *mr);
int vrnic_mr_check(struct vrnic_mr *mr, struct ib_pd *pd, int access,
		   u64 iova, u64 len);
int vrnic_mr_copy(struct vrnic_dev *vdev, struct vrnic_mr *mr, u64 iova,
		  void *buf, u32 len, enum vrnic_dma_dir dir,
		  struct vrnic_odp_fault *pf);
int vrnic_sge_copy(struct vrnic_dev *vdev, struct ib_pd *pd,
		   const struct rxe_sge *sge, u32 num_sge, u32 offset,
		   void *buf, u32 len, int access, enum vrnic_dma_dir dir,
		   struct vrnic_odp_fault *pf);
/* Every DMA of the engine, costed by the model. */
void vrnic_dma_account(struct vrnic_dev *vdev, enum vrnic_dma_dir dir, u32 len,
		       enum vrnic_dma_kind kind);
void vrnic_qpc_access(struct vrnic_dev *vdev, u32 qpn);
void vrnic_odp_resolve(struct vrnic_dev *vdev, struct vrnic_odp_fault *pf);

#endif /* VRNIC_MEM_H */
