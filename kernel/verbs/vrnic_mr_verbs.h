/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vrnic: the memory region verbs.
 *
 * Copyright (c) 2026 The vrnic authors
 */

#ifndef VRNIC_MR_VERBS_H
#define VRNIC_MR_VERBS_H

#include <rdma/ib_verbs.h>

struct ib_mr *vrnic_get_dma_mr(struct ib_pd *ibpd, int access);
struct ib_mr *vrnic_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
				u64 iova, int access, struct ib_udata *udata);
struct ib_mr *vrnic_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
			     u32 max_num_sg);
int vrnic_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		    unsigned int *sg_offset);
int vrnic_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata);
int vrnic_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata);
int vrnic_dealloc_mw(struct ib_mw *ibmw);

#endif /* VRNIC_MR_VERBS_H */
