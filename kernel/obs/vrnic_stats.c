// SPDX-License-Identifier: GPL-2.0-only
/*
 * vrnic: counters through rdma_hw_stats ("rdma statistic show").
 *
 * Copyright (c) 2026 The vrnic authors
 */

#include <rdma/ib_verbs.h>

#include "vrnic.h"
#include "obs/vrnic_stats.h"

static const struct rdma_stat_desc vrnic_counter_descs[VRNIC_CNT_COUNT] = {
	[VRNIC_CNT_TX_PKTS].name		= "sent_pkts",
	[VRNIC_CNT_RX_PKTS].name		= "rcvd_pkts",
	[VRNIC_CNT_RX_DROP_MALFORMED].name	= "rx_drop_malformed",
	[VRNIC_CNT_RX_DROP_ICRC].name		= "rx_drop_icrc",
	[VRNIC_CNT_RX_DROP_NO_QP].name		= "rx_drop_no_qp",
	[VRNIC_CNT_RX_DROP_QP_STATE].name	= "rx_drop_qp_state",
	[VRNIC_CNT_RX_DROP_QKEY].name		= "rx_drop_qkey",
	[VRNIC_CNT_RX_DROP_PKEY].name		= "rx_drop_pkey",
	[VRNIC_CNT_RX_DROP_ADDR].name		= "rx_drop_addr",
	[VRNIC_CNT_RX_DROP_BUSY].name		= "rx_drop_busy",
	[VRNIC_CNT_RX_DROP_REQ].name		= "rx_drop_req",
	[VRNIC_CNT_RX_DROP_RESP].name		= "rx_drop_resp",
	[VRNIC_CNT_RX_DROP_DUP].name		= "rx_drop_dup",
	[VRNIC_CNT_DUP_REQ].name		= "duplicate_request",
	[VRNIC_CNT_SEQ_NAK_SENT].name		= "out_of_seq_request",
	[VRNIC_CNT_SEQ_NAK_RCVD].name		= "rcvd_seq_err",
	[VRNIC_CNT_RNR_NAK_SENT].name		= "send_rnr_err",
	[VRNIC_CNT_RNR_NAK_RCVD].name		= "rcvd_rnr_err",
	[VRNIC_CNT_RETRANSMITS].name		= "retransmits",
	[VRNIC_CNT_RETRY_EXCEEDED].name		= "retry_exceeded_err",
	[VRNIC_CNT_REM_ACCESS_ERR].name		= "remote_access_err",
	[VRNIC_CNT_TX_ERR].name			= "send_err",
	[VRNIC_CNT_MR_REGS].name		= "mr_regs",
	[VRNIC_CNT_MR_REG_PIN_NS].name		= "mr_reg_pin_map_ns",
	[VRNIC_CNT_MR_REG_MTT_NS].name		= "mr_reg_mtt_ns",
	[VRNIC_CNT_MR_MTT_ENTRIES].name		= "mr_mtt_entries",
	[VRNIC_CNT_MR_DEREGS].name		= "mr_deregs",
	[VRNIC_CNT_MR_DEREG_NS].name		= "mr_dereg_ns",
};

/*
 * The transport's counters, then the hardware model's (hw/model.h); the
 * descriptors are filled in once, the names being the model's.
 */
#define VRNIC_ALL_COUNTERS	(VRNIC_CNT_COUNT + VRNIC_MCNT_COUNT)
static struct rdma_stat_desc vrnic_all_descs[VRNIC_ALL_COUNTERS];

void vrnic_stats_init(void)
{
	int i;

	BUILD_BUG_ON(ARRAY_SIZE(vrnic_counter_descs) != VRNIC_CNT_COUNT);
	for (i = 0; i < VRNIC_CNT_COUNT; i++)
		vrnic_all_descs[i] = vrnic_counter_descs[i];
	for (i = 0; i < VRNIC_MCNT_COUNT; i++)
		vrnic_all_descs[VRNIC_CNT_COUNT + i].name =
			vrnic_model_counter_names[i];
}

struct rdma_hw_stats *vrnic_alloc_hw_port_stats(struct ib_device *ibdev,
						u32 port_num)
{
	return rdma_alloc_hw_stats_struct(vrnic_all_descs, VRNIC_ALL_COUNTERS,
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

int vrnic_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		       u32 port, int index)
{
	struct vrnic_dev *vdev = to_vdev(ibdev);
	int i;

	for (i = 0; i < VRNIC_CNT_COUNT; i++)
		stats->value[i] = atomic64_read(&vdev->cnt[i]);
	for (i = 0; i < VRNIC_MCNT_COUNT; i++)
		stats->value[VRNIC_CNT_COUNT + i] =
			vrnic_mcnt_read(&vdev->model, i);
	return VRNIC_ALL_COUNTERS;
}
