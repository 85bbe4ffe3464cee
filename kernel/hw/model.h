/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vrnic hardware model: the per-device model state, its knobs and its
 * counters.
 *
 * Each block answers "what would this cost on the modeled NIC"; this file
 * holds their configuration (knobs, under /sys/class/infiniband/<dev>/model/
 * as <block>.<knob>, with module parameters as defaults) and what they
 * counted.  With clock.mode off nothing is accounted and the data path pays
 * one branch; with account every DMA the engine makes is costed through
 * the pcie block and counted.  Documentation/model.rst has the formulas.
 *
 * Copyright (c) 2026 The vrnic authors
 */

#ifndef VRNIC_HW_MODEL_H
#define VRNIC_HW_MODEL_H

#include <linux/atomic.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/sysfs.h>
#include <linux/types.h>

#include "cam.h"
#include "dma.h"
#include "doorbell.h"
#include "pcie.h"

enum vrnic_clock_mode {
	VRNIC_CLOCK_OFF,	/* no accounting: the fast path */
	VRNIC_CLOCK_ACCOUNT,	/* counters and modeled time only */
	VRNIC_CLOCK_PACE,	/* account, and hold the requester to it */
};

/*
 * How far ahead of the wall clock the modeled link may run before the
 * requester waits for it: a burst's worth, so a wait is worth a timer.
 */
#define VRNIC_PACE_SLACK_NS	(20 * NSEC_PER_USEC)

/* What a DMA moves, for the counters and the dma tracepoint. */
enum vrnic_dma_kind {
	VRNIC_DMA_PAYLOAD,	/* message data: gather, scatter, atomics */
	VRNIC_DMA_SQ_WQE,	/* a send WQE fetched */
	VRNIC_DMA_RQ_WQE,	/* a receive WQE fetched */
	VRNIC_DMA_CQE,		/* a completion written */
	VRNIC_DMA_MPT,		/* an MPT entry and MTT entries: a cache miss */
	VRNIC_DMA_QPC,		/* a QP context: fetched, or written back */
	VRNIC_DMA_DBR,		/* a doorbell record read (doorbell.mode shadow) */
};

enum vrnic_qpc_mode {
	VRNIC_QPC_ONCHIP,	/* at most qpc.entries QPs, every access hits */
	VRNIC_QPC_HOST,		/* in host memory behind a qpc.entries cache */
};

/* A doorbell record: the producer index software keeps in host memory. */
#define VRNIC_DBR_BYTES		8

/* What the MR cache fetches on a miss: the MPT entry, and 8 B per page. */
#define VRNIC_MPT_ENTRY_BYTES	64
#define VRNIC_MTT_ENTRY_BYTES	8

/* The model's counters, appended to the device's rdma_hw_stats. */
enum vrnic_model_counter {
	VRNIC_MCNT_DMA_READS,
	VRNIC_MCNT_DMA_READ_BYTES,
	VRNIC_MCNT_DMA_WRITES,
	VRNIC_MCNT_DMA_WRITE_BYTES,
	VRNIC_MCNT_WQE_FETCHES,
	VRNIC_MCNT_CQE_WRITES,
	VRNIC_MCNT_PCIE_TLPS_UP,
	VRNIC_MCNT_PCIE_TLPS_DOWN,
	VRNIC_MCNT_PCIE_BYTES_UP,
	VRNIC_MCNT_PCIE_BYTES_DOWN,
	VRNIC_MCNT_PCIE_UP_NS,
	VRNIC_MCNT_PCIE_DOWN_NS,
	VRNIC_MCNT_DMA_READ_NS,
	VRNIC_MCNT_MRC_HITS,
	VRNIC_MCNT_MRC_MISSES,
	VRNIC_MCNT_MRC_EVICTIONS,
	VRNIC_MCNT_QPC_HITS,
	VRNIC_MCNT_QPC_MISSES,
	VRNIC_MCNT_QPC_EVICTIONS,
	VRNIC_MCNT_QPC_REFUSED,
	VRNIC_MCNT_DB_RINGS,
	VRNIC_MCNT_DB_WQES,
	VRNIC_MCNT_DB_MMIO,
	VRNIC_MCNT_DB_RELEASES,
	VRNIC_MCNT_DB_TIMER,
	VRNIC_MCNT_DB_WAIT_NS,
	VRNIC_MCNT_DB_ADDED_NS,
	VRNIC_MCNT_PACE_WAITS,
	VRNIC_MCNT_PACE_WAIT_NS,
	VRNIC_MCNT_PACE_IDLE_NS,
	VRNIC_MCNT_COUNT
};

extern const char * const vrnic_model_counter_names[VRNIC_MCNT_COUNT];

/* The knobs, in the order "vrnicctl model show" lists them. */
enum vrnic_knob_id {
	VRNIC_KNOB_PCIE_GEN,
	VRNIC_KNOB_PCIE_LANES,
	VRNIC_KNOB_PCIE_MPS,
	VRNIC_KNOB_PCIE_MRRS,
	VRNIC_KNOB_PCIE_ECRC,
	VRNIC_KNOB_DMA_READ_LATENCY_NS,
	VRNIC_KNOB_DMA_READ_PS_PER_BYTE,
	VRNIC_KNOB_QPC_MODE,
	VRNIC_KNOB_QPC_ENTRIES,
	VRNIC_KNOB_QPC_CTX_BYTES,
	VRNIC_KNOB_MRC_ENTRIES,
	VRNIC_KNOB_DOORBELL_MODE,
	VRNIC_KNOB_DOORBELL_BATCH_WQES,
	VRNIC_KNOB_DOORBELL_BATCH_NS,
	VRNIC_KNOB_DOORBELL_MMIO_NS,
	VRNIC_KNOB_CLOCK_MODE,
	VRNIC_KNOB_CLOCK_DILATION,
	VRNIC_KNOB_COUNT
};

/**
 * struct vrnic_model - one device's hardware model
 * @lock:		serialises knob writes (readers take a snapshot with
 *			READ_ONCE; every knob is valid on its own)
 * @knob:		the knobs' values, by enum vrnic_knob_id (a choice
 *			as its index: enum vrnic_clock_mode for clock.mode)
 * @qps:		QPs that hold a context (under @lock)
 * @gsi_qps:		of which the GSI QP (under @lock)
 * @mrc:		the MR translation cache
 * @qpc:		the QP context cache (qpc.mode host)
 * @ns_per_byte:	the PCIe link's time per byte for the pcie.* knobs,
 *			32.32 fixed point (vrnic_pcie_ns_per_byte(),
 *			recomputed when a knob changes)
 * @pace_lock:		guards @pace_next
 * @pace_next:		clock.mode pace: ktime_get_ns() when the modeled
 *			link has moved everything accounted so far (dilated)
 * @cnt:		what the model counted, per CPU: the data path adds to
 *			the local CPU's copy, readers sum them
 *			(vrnic_mcnt_read())
 */
struct vrnic_model {
	struct mutex		lock;	/* knob writes, @qps */
	u32			knob[VRNIC_KNOB_COUNT];
	u32			qps;
	u32			gsi_qps;
	struct vrnic_cam	mrc;
	struct vrnic_cam	qpc;
	u64			ns_per_byte;
	spinlock_t		pace_lock;	/* guards @pace_next; irqs off */
	u64			pace_next;
	struct vrnic_model_counters __percpu *cnt;
};

/* One CPU's share of a model's counters. */
struct vrnic_model_counters {
	u64	c[VRNIC_MCNT_COUNT];
};

/*
 * Counting costs a non-atomic add to this CPU's copy: the accounting
 * path's budget (Documentation/model.rst, "Overhead").  Context: any.
 */
static inline void vrnic_mcnt_add(struct vrnic_model *m,
				  enum vrnic_model_counter id, u64 v)
{
	this_cpu_add(m->cnt->c[id], v);
}

static inline void vrnic_mcnt_inc(struct vrnic_model *m,
				  enum vrnic_model_counter id)
{
	this_cpu_inc(m->cnt->c[id]);
}

u64 vrnic_mcnt_read(const struct vrnic_model *m, enum vrnic_model_counter id);

/* The cost of one DMA, for the dma tracepoint. */
struct vrnic_dma_cost {
	u32	tlps;		/* both directions */
	u64	link_bytes;	/* both directions */
	u64	ns;		/* modeled time until the data is there */
};

extern const char * const vrnic_knob_names[VRNIC_KNOB_COUNT];

struct device;

int vrnic_model_init(struct vrnic_model *m);
void vrnic_model_fini(struct vrnic_model *m);
ssize_t vrnic_model_knob_show(struct vrnic_model *m, enum vrnic_knob_id id,
			      char *buf);
int vrnic_model_knob_store(struct vrnic_model *m, enum vrnic_knob_id id,
			   const char *buf, struct device *dev);
bool vrnic_model_dma(struct vrnic_model *m, enum vrnic_dma_dir dir, u32 len,
		     enum vrnic_dma_kind kind, struct vrnic_dma_cost *cost);
void vrnic_model_doorbell_account(struct vrnic_model *m,
				  const struct vrnic_db_event *ev);

void vrnic_model_pcie(struct vrnic_model *m, struct vrnic_pcie *p);

/* Helpers for the KUnit suite. */
u64 vrnic_dma_read_ns(u32 latency_ns, u32 ps_per_byte, u32 len);

#endif /* VRNIC_HW_MODEL_H */
