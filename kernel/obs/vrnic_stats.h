/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vrnic: the port's hardware counters (rdma statistic).
 *
 * Copyright (c) 2026 The vrnic authors
 */

#ifndef VRNIC_STATS_H
#define VRNIC_STATS_H

#include <rdma/ib_verbs.h>

struct rdma_hw_stats *vrnic_alloc_hw_port_stats(struct ib_device *ibdev,
						u32 port_num);
int vrnic_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		       u32 port, int index);
void vrnic_stats_init(void);

#endif /* VRNIC_STATS_H */
