/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vrnic: the device.
 *
 * Copyright (c) 2026 The vrnic authors
 */

#ifndef VRNIC_H
#define VRNIC_H

#include <linux/netdevice.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>

#include "obj/vrnic_mcg.h"
#include "probe/vrnic_fault.h"
#include "hw/model.h"

/* librxe accepts only the rxe uverbs ABI version (providers/rxe). */
#define VRNIC_UVERBS_ABI_VERSION	2

#define VRNIC_PORT		1
#define VRNIC_GID_TBL_LEN	1024
#define VRNIC_PKEY_TBL_LEN	1
#define VRNIC_VENDOR_ID		0xffffff	/* no OUI: a soft device */

/* Object number ranges.  QPNs 0 and 1 are the special QPs (IBA 3.5.1). */
#define VRNIC_MIN_QPN		16
#define VRNIC_MAX_QPN		0x00ffffff
#define VRNIC_MIN_SRQN		0x00020001
#define VRNIC_MAX_SRQN		0x00ffffff
#define VRNIC_MAX_AH		0x7fff

/* Device limits advertised by query_device. */
#define VRNIC_MAX_QP_WR		0x4000
#define VRNIC_MAX_SGE		32
#define VRNIC_MAX_SGE_RD	32
#define VRNIC_MAX_INLINE	512
#define VRNIC_MAX_CQE		0x7fff
#define VRNIC_MAX_SRQ_WR	0x4000
#define VRNIC_MAX_SRQ_SGE	27
#define VRNIC_MAX_RD_ATOMIC	128
/* The longest message, in bytes (IBA 9.4.4; the device's max_msg_sz). */
#define VRNIC_MAX_MSG_SIZE	0x80000000U
#define VRNIC_MAX_FRWR_PAGES	512
#define VRNIC_MAX_MR		0x00100000
/*
 * Memory windows take the key indices above the MRs' (as rxe's do), so an
 * rkey's index alone tells which table names it.
 */
#define VRNIC_MAX_MW		0x00100000
#define VRNIC_MIN_MW_INDEX	(VRNIC_MAX_MR + 1)
#define VRNIC_MAX_MW_INDEX	(VRNIC_MIN_MW_INDEX + VRNIC_MAX_MW - 1)
#define VRNIC_MAX_PD		0x00100000

/* Device counters, reported through rdma_hw_stats (vrnic_stats.c). */
enum vrnic_counter {
	VRNIC_CNT_TX_PKTS,
	VRNIC_CNT_RX_PKTS,
	VRNIC_CNT_RX_DROP_MALFORMED,
	VRNIC_CNT_RX_DROP_ICRC,
	VRNIC_CNT_RX_DROP_NO_QP,
	VRNIC_CNT_RX_DROP_QP_STATE,
	VRNIC_CNT_RX_DROP_QKEY,
	VRNIC_CNT_RX_DROP_PKEY,
	VRNIC_CNT_RX_DROP_ADDR,
	VRNIC_CNT_RX_DROP_BUSY,
	VRNIC_CNT_RX_DROP_REQ,
	VRNIC_CNT_RX_DROP_RESP,
	VRNIC_CNT_RX_DROP_DUP,
	VRNIC_CNT_DUP_REQ,
	VRNIC_CNT_SEQ_NAK_SENT,
	VRNIC_CNT_SEQ_NAK_RCVD,
	VRNIC_CNT_RNR_NAK_SENT,
	VRNIC_CNT_RNR_NAK_RCVD,
	VRNIC_CNT_RETRANSMITS,
	VRNIC_CNT_RETRANS_UNDONE,
	VRNIC_CNT_RETRY_EXCEEDED,
	VRNIC_CNT_REM_ACCESS_ERR,
	VRNIC_CNT_TX_ERR,
	VRNIC_CNT_MR_REGS,
	VRNIC_CNT_MR_REG_PIN_NS,
	VRNIC_CNT_MR_REG_MTT_NS,
	VRNIC_CNT_MR_MTT_ENTRIES,
	VRNIC_CNT_MR_DEREGS,
	VRNIC_CNT_MR_DEREG_NS,
	VRNIC_CNT_ODP_PAGE_FAULTS,
	VRNIC_CNT_ODP_FAULT_ERRORS,
	VRNIC_CNT_ODP_INVALIDATIONS,
	VRNIC_CNT_RX_WRITE_REQ,
	VRNIC_CNT_RX_READ_REQ,
	VRNIC_CNT_RX_ATOMIC_REQ,
	VRNIC_CNT_ACK_TIMEOUT,
	VRNIC_CNT_ADP_RETRANS,
	VRNIC_CNT_IMPLIED_NAK,
	VRNIC_CNT_REQ_REM_ACCESS,
	VRNIC_CNT_RESP_REM_ACCESS,
	VRNIC_CNT_REQ_REM_INV,
	VRNIC_CNT_OUT_OF_SEQ,
	VRNIC_CNT_SEQ_NAK_RETRY,
	VRNIC_CNT_RNR_NAK_RETRY,
	VRNIC_CNT_COUNT
};

/**
 * struct vrnic_dev - one vrnic RDMA device, bound to one netdev
 * @ibdev:	the core device; embedded first so the core allocates us
 * @ndev:	the netdev, held (@ndev_tracker) from registration to
 *		dealloc_driver; the core sees it through get_netdev, not
 *		ib_device_set_netdev() (vrnic_get_netdev() says why)
 * @ndev_tracker: that reference's tracker
 * @ndev_gone:	the netdev passed NETDEV_UNREGISTER, leaving for good
 * @ndev_link:	in net/'s table of devices by netdev (receive dispatch)
 * @dma_dev:	the netdev's DMA-capable ancestor (a PCI function), or NULL
 *		when the netdev has none (veth) and vrnic uses virtual DMA
 * @attr:	what query_device reports
 * @qps:	QPN -> struct vrnic_qp, for receive dispatch (RCU lookups)
 * @srqs:	SRQ number allocation
 * @ahs:	AH number -> struct vrnic_ah; user UD WQEs name AHs by number
 * @mrs:	key index -> struct vrnic_mr (the MPT)
 * @mws:	key index -> struct vrnic_mw, indices from VRNIC_MIN_MW_INDEX
 * @mcgs:	multicast groups and the UD QPs attached (obj/vrnic_mcg.c)
 * @atomic_lock: serialises atomic operations on host memory (IBA 9.4.5:
 *		atomics are atomic with respect to each other on one HCA)
 * @cnt:	the counters
 * @net_ok:	holds a reference on its namespace's UDP sockets
 * @net:	that namespace (no reference: the sockets are released when
 *		the netdev unregisters, before the namespace can go)
 * @list:	on the module's device list (vrnic_main.c)
 * @faults:	fault injection rules (debugfs, vrnic_fault.c)
 * @model:	the hardware model's knobs and counters (hw/model.c)
 */
struct vrnic_dev {
	struct ib_device	ibdev;
	struct net_device	*ndev;
	netdevice_tracker	ndev_tracker;
	bool			ndev_gone;
	struct hlist_node	ndev_link;
	struct device		*dma_dev;
	struct ib_device_attr	attr;

	struct xarray		qps;
	u32			next_qpn;
	struct xarray		srqs;
	u32			next_srqn;
	struct xarray		ahs;
	u32			next_ah;
	struct xarray		mrs;
	u32			next_mr;
	struct xarray		mws;
	u32			next_mw;
	struct vrnic_mcgs	mcgs;

	spinlock_t		atomic_lock;	/* atomics on host memory */
	atomic64_t		cnt[VRNIC_CNT_COUNT];
	bool			net_ok;
	struct net		*net;

	struct list_head	list;
	struct vrnic_faults	faults;
	struct vrnic_model	model;
};

static inline void vrnic_count(struct vrnic_dev *vdev, enum vrnic_counter c)
{
	atomic64_inc(&vdev->cnt[c]);
}

static inline struct vrnic_dev *to_vdev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct vrnic_dev, ibdev);
}

/* Per-object debug messages, rate limited and naming the device. */
#define vrnic_dbg(vdev, fmt, ...) \
	ibdev_dbg(&(vdev)->ibdev, "%s: " fmt, __func__, ##__VA_ARGS__)
#define vrnic_warn_ratelimited(vdev, fmt, ...) \
	ibdev_warn_ratelimited(&(vdev)->ibdev, fmt, ##__VA_ARGS__)

#endif /* VRNIC_H */
