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
	[VRNIC_CNT_RETRANS_UNDONE].name		= "retransmits_undone",
	[VRNIC_CNT_RETRY_EXCEEDED].name		= "retry_exceeded_err",
	[VRNIC_CNT_REM_ACCESS_ERR].name		= "remote_access_err",
	[VRNIC_CNT_TX_ERR].name			= "send_err",
	[VRNIC_CNT_MR_REGS].name		= "mr_regs",
	[VRNIC_CNT_MR_REG_PIN_NS].name		= "mr_reg_pin_map_ns",
	[VRNIC_CNT_MR_REG_MTT_NS].name		= "mr_reg_mtt_ns",
	[VRNIC_CNT_MR_MTT_ENTRIES].name		= "mr_mtt_entries",
	[VRNIC_CNT_MR_DEREGS].name		= "mr_deregs",
	[VRNIC_CNT_MR_DEREG_NS].name		= "mr_dereg_ns",
	[VRNIC_CNT_ODP_PAGE_FAULTS].name	= "odp_page_faults",
	[VRNIC_CNT_ODP_FAULT_ERRORS].name	= "odp_fault_errors",
	[VRNIC_CNT_ODP_INVALIDATIONS].name	= "odp_invalidations",
	/*
	 * Counted under the names ConnectX (mlx5) gives them, which
	 * monitoring tools read; Documentation/vrnic.rst, "Counters".
	 */
	[VRNIC_CNT_RX_WRITE_REQ].name		= "rx_write_requests",
	[VRNIC_CNT_RX_READ_REQ].name		= "rx_read_requests",
	[VRNIC_CNT_RX_ATOMIC_REQ].name		= "rx_atomic_requests",
	[VRNIC_CNT_ACK_TIMEOUT].name		= "local_ack_timeout_err",
	[VRNIC_CNT_ADP_RETRANS].name		= "roce_adp_retrans",
	[VRNIC_CNT_IMPLIED_NAK].name		= "implied_nak_seq_err",
	[VRNIC_CNT_REQ_REM_ACCESS].name		= "req_remote_access_errors",
	[VRNIC_CNT_RESP_REM_ACCESS].name	= "resp_remote_access_errors",
	[VRNIC_CNT_REQ_REM_INV].name		= "req_remote_invalid_request",
	[VRNIC_CNT_OUT_OF_SEQ].name		= "out_of_sequence",
	[VRNIC_CNT_SEQ_NAK_RETRY].name		= "packet_seq_err",
	[VRNIC_CNT_RNR_NAK_RETRY].name		= "rnr_nak_retry_err",
};

/*
 * Counters reported a second time under the ConnectX (mlx5) name of the
 * same count, for tools that read those names (Documentation/vrnic.rst,
 * "Counters").
 */
static const struct {
	const char *name;
	enum vrnic_counter of;
} vrnic_mlx5_aliases[] = {
	{ "rx_icrc_encapsulated",	VRNIC_CNT_RX_DROP_ICRC },
};

/*
 * The transport's counters, then the hardware model's (hw/model.h), then
 * the aliases; the descriptors are filled in once, the names being the
 * model's and the aliases'.
 */
#define VRNIC_ALIAS_BASE	(VRNIC_CNT_COUNT + VRNIC_MCNT_COUNT)
#define VRNIC_ALL_COUNTERS	(VRNIC_ALIAS_BASE + ARRAY_SIZE(vrnic_mlx5_aliases))
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
	for (i = 0; i < ARRAY_SIZE(vrnic_mlx5_aliases); i++)
		vrnic_all_descs[VRNIC_ALIAS_BASE + i].name =
			vrnic_mlx5_aliases[i].name;
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
	for (i = 0; i < ARRAY_SIZE(vrnic_mlx5_aliases); i++)
		stats->value[VRNIC_ALIAS_BASE + i] =
			stats->value[vrnic_mlx5_aliases[i].of];
	return VRNIC_ALL_COUNTERS;
}
