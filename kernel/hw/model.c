// SPDX-License-Identifier: GPL-2.0-only
/*
 * vrnic hardware model: knobs, defaults, counters, and the DMA and
 * doorbell accounting (see model.h).  The blocks' own logic is in pcie.c,
 * dma.c, cam.c (the caches' store), mrc.c, qpc.c, doorbell.c and clock.c.
 *
 * Copyright (c) 2026 The vrnic authors
 */

#include <linux/device.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/moduleparam.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/timekeeping.h>

#include "clock.h"
#include "model.h"

const char * const vrnic_model_counter_names[VRNIC_MCNT_COUNT] = {
	[VRNIC_MCNT_DMA_READS]		= "model_dma_reads",
	[VRNIC_MCNT_DMA_READ_BYTES]	= "model_dma_read_bytes",
	[VRNIC_MCNT_DMA_WRITES]		= "model_dma_writes",
	[VRNIC_MCNT_DMA_WRITE_BYTES]	= "model_dma_write_bytes",
	[VRNIC_MCNT_WQE_FETCHES]	= "model_wqe_fetches",
	[VRNIC_MCNT_CQE_WRITES]		= "model_cqe_writes",
	[VRNIC_MCNT_PCIE_TLPS_UP]	= "model_pcie_tlps_up",
	[VRNIC_MCNT_PCIE_TLPS_DOWN]	= "model_pcie_tlps_down",
	[VRNIC_MCNT_PCIE_BYTES_UP]	= "model_pcie_bytes_up",
	[VRNIC_MCNT_PCIE_BYTES_DOWN]	= "model_pcie_bytes_down",
	[VRNIC_MCNT_PCIE_UP_NS]		= "model_pcie_up_ns",
	[VRNIC_MCNT_PCIE_DOWN_NS]	= "model_pcie_down_ns",
	[VRNIC_MCNT_DMA_READ_NS]	= "model_dma_read_ns",
	[VRNIC_MCNT_MRC_HITS]		= "model_mrc_hits",
	[VRNIC_MCNT_MRC_MISSES]		= "model_mrc_misses",
	[VRNIC_MCNT_MRC_EVICTIONS]	= "model_mrc_evictions",
	[VRNIC_MCNT_QPC_HITS]		= "model_qpc_hits",
	[VRNIC_MCNT_QPC_MISSES]		= "model_qpc_misses",
	[VRNIC_MCNT_QPC_EVICTIONS]	= "model_qpc_evictions",
	[VRNIC_MCNT_QPC_REFUSED]	= "model_qpc_refused",
	[VRNIC_MCNT_DB_RINGS]		= "model_db_rings",
	[VRNIC_MCNT_DB_WQES]		= "model_db_wqes",
	[VRNIC_MCNT_DB_MMIO]		= "model_db_mmio_writes",
	[VRNIC_MCNT_DB_RELEASES]	= "model_db_releases",
	[VRNIC_MCNT_DB_TIMER]		= "model_db_timer_releases",
	[VRNIC_MCNT_DB_WAIT_NS]		= "model_db_wait_ns",
	[VRNIC_MCNT_DB_ADDED_NS]	= "model_db_added_ns",
	[VRNIC_MCNT_PACE_WAITS]		= "model_pace_waits",
	[VRNIC_MCNT_PACE_WAIT_NS]	= "model_pace_wait_ns",
	[VRNIC_MCNT_PACE_IDLE_NS]	= "model_pace_idle_ns",
};

const char * const vrnic_knob_names[VRNIC_KNOB_COUNT] = {
	[VRNIC_KNOB_PCIE_GEN]			= "pcie.gen",
	[VRNIC_KNOB_PCIE_LANES]			= "pcie.lanes",
	[VRNIC_KNOB_PCIE_MPS]			= "pcie.mps",
	[VRNIC_KNOB_PCIE_MRRS]			= "pcie.mrrs",
	[VRNIC_KNOB_PCIE_ECRC]			= "pcie.ecrc",
	[VRNIC_KNOB_DMA_READ_LATENCY_NS]	= "dma.read_latency_ns",
	[VRNIC_KNOB_DMA_READ_PS_PER_BYTE]	= "dma.read_ps_per_byte",
	[VRNIC_KNOB_QPC_MODE]			= "qpc.mode",
	[VRNIC_KNOB_QPC_ENTRIES]		= "qpc.entries",
	[VRNIC_KNOB_QPC_CTX_BYTES]		= "qpc.ctx_bytes",
	[VRNIC_KNOB_MRC_ENTRIES]		= "mrc.entries",
	[VRNIC_KNOB_DOORBELL_MODE]		= "doorbell.mode",
	[VRNIC_KNOB_DOORBELL_BATCH_WQES]	= "doorbell.batch_wqes",
	[VRNIC_KNOB_DOORBELL_BATCH_NS]		= "doorbell.batch_ns",
	[VRNIC_KNOB_DOORBELL_MMIO_NS]		= "doorbell.mmio_ns",
	[VRNIC_KNOB_CLOCK_MODE]			= "clock.mode",
	[VRNIC_KNOB_CLOCK_DILATION]		= "clock.dilation",
};

static const char * const vrnic_qpc_words[] = {
	[VRNIC_QPC_ONCHIP]	= "onchip",
	[VRNIC_QPC_HOST]	= "host",
};

static const char * const vrnic_db_words[] = {
	[VRNIC_DB_MMIO]		= "mmio",
	[VRNIC_DB_BATCH]	= "batch",
	[VRNIC_DB_SHADOW]	= "shadow",
};

static const char * const vrnic_clock_words[] = {
	[VRNIC_CLOCK_OFF]	= "off",
	[VRNIC_CLOCK_ACCOUNT]	= "account",
	[VRNIC_CLOCK_PACE]	= "pace",
};

/*
 * A knob's accepted values: an integer in [min, max], a power of two in it
 * (@pow2), or one of @words.
 */
struct vrnic_knob {
	const char		*unit;
	u32			min, max;
	bool			pow2;
	const char * const	*words;
	unsigned int		nwords;
};

static const struct vrnic_knob vrnic_knobs[VRNIC_KNOB_COUNT] = {
	[VRNIC_KNOB_PCIE_GEN]		= { "", 1, 5 },
	[VRNIC_KNOB_PCIE_LANES]		= { "lanes", 1, 16, true },
	[VRNIC_KNOB_PCIE_MPS]		= { "bytes", 128, 4096, true },
	[VRNIC_KNOB_PCIE_MRRS]		= { "bytes", 128, 4096, true },
	[VRNIC_KNOB_PCIE_ECRC]		= { "", 0, 1 },
	[VRNIC_KNOB_DMA_READ_LATENCY_NS] = { "ns", 0, 100000 },
	[VRNIC_KNOB_DMA_READ_PS_PER_BYTE] = { "ps/byte", 0, 100000 },
	[VRNIC_KNOB_QPC_MODE]		= { .words = vrnic_qpc_words,
					    .nwords = ARRAY_SIZE(vrnic_qpc_words) },
	[VRNIC_KNOB_QPC_ENTRIES]	= { "entries", 1, 65536 },
	[VRNIC_KNOB_QPC_CTX_BYTES]	= { "bytes", 64, 4096 },
	[VRNIC_KNOB_MRC_ENTRIES]	= { "entries", 1, 65536 },
	[VRNIC_KNOB_DOORBELL_MODE]	= { .words = vrnic_db_words,
					    .nwords = ARRAY_SIZE(vrnic_db_words) },
	[VRNIC_KNOB_DOORBELL_BATCH_WQES] = { "WQEs", 1, 1024 },
	[VRNIC_KNOB_DOORBELL_BATCH_NS]	= { "ns", 0, 1000000 },
	[VRNIC_KNOB_DOORBELL_MMIO_NS]	= { "ns", 0, 100000 },
	[VRNIC_KNOB_CLOCK_MODE]		= { .words = vrnic_clock_words,
					    .nwords = ARRAY_SIZE(vrnic_clock_words) },
	[VRNIC_KNOB_CLOCK_DILATION]	= { "x", 1, 100000 },
};

/*
 * Defaults for new devices, from the module parameters: a PCIe Gen3 x16
 * NIC with MPS 256 and MRRS 512, pcie-bench's measured DMA read latency
 * (about 550 ns plus 0.3 ns per byte), QP contexts in host memory behind
 * a 1024-entry cache with 256-byte contexts, a 1024-entry MR cache,
 * per-post MMIO doorbells of 200 ns (batches: 16 WQEs or 1 us), no
 * accounting.
 */
static u32 vrnic_defaults[VRNIC_KNOB_COUNT] = {
	[VRNIC_KNOB_PCIE_GEN]			= 3,
	[VRNIC_KNOB_PCIE_LANES]			= 16,
	[VRNIC_KNOB_PCIE_MPS]			= 256,
	[VRNIC_KNOB_PCIE_MRRS]			= 512,
	[VRNIC_KNOB_PCIE_ECRC]			= 0,
	[VRNIC_KNOB_DMA_READ_LATENCY_NS]	= 550,
	[VRNIC_KNOB_DMA_READ_PS_PER_BYTE]	= 300,
	[VRNIC_KNOB_QPC_MODE]			= VRNIC_QPC_HOST,
	[VRNIC_KNOB_QPC_ENTRIES]		= 1024,
	[VRNIC_KNOB_QPC_CTX_BYTES]		= 256,
	[VRNIC_KNOB_MRC_ENTRIES]		= 1024,
	[VRNIC_KNOB_DOORBELL_MODE]		= VRNIC_DB_MMIO,
	[VRNIC_KNOB_DOORBELL_BATCH_WQES]	= 16,
	[VRNIC_KNOB_DOORBELL_BATCH_NS]		= 1000,
	[VRNIC_KNOB_DOORBELL_MMIO_NS]		= 200,
	[VRNIC_KNOB_CLOCK_MODE]			= VRNIC_CLOCK_OFF,
	[VRNIC_KNOB_CLOCK_DILATION]		= 1,
};

static bool vrnic_knob_ok(const struct vrnic_knob *k, u32 v)
{
	if (k->words)
		return v < k->nwords;
	return v >= k->min && v <= k->max && (!k->pow2 || is_power_of_2(v));
}

/* Parse @buf for knob @id: 0 and *@v, or -EINVAL. */
static int vrnic_knob_parse(enum vrnic_knob_id id, const char *buf, u32 *v)
{
	const struct vrnic_knob *k = &vrnic_knobs[id];
	unsigned int i;

	if (k->words) {
		for (i = 0; i < k->nwords; i++) {
			if (sysfs_streq(buf, k->words[i])) {
				*v = i;
				return 0;
			}
		}
		return -EINVAL;
	}
	if (kstrtou32(buf, 0, v) || !vrnic_knob_ok(k, *v))
		return -EINVAL;
	return 0;
}

/* What knob @id accepts, for error messages: "a power of 2 in 128..4096 (bytes)". */
static void vrnic_knob_describe(enum vrnic_knob_id id, char *s, size_t n)
{
	const struct vrnic_knob *k = &vrnic_knobs[id];
	unsigned int i;
	size_t len;

	if (k->words) {
		len = scnprintf(s, n, "one of");
		for (i = 0; i < k->nwords; i++)
			len += scnprintf(s + len, n - len, " %s", k->words[i]);
		return;
	}
	scnprintf(s, n, "%s %u..%u%s%s%s", k->pow2 ? "a power of 2 in" : "an integer in",
		  k->min, k->max, *k->unit ? " (" : "", k->unit, *k->unit ? ")" : "");
}

/* A snapshot of the pcie knobs.  Context: any. */
void vrnic_model_pcie(struct vrnic_model *m, struct vrnic_pcie *p)
{
	p->gen = READ_ONCE(m->knob[VRNIC_KNOB_PCIE_GEN]);
	p->lanes = READ_ONCE(m->knob[VRNIC_KNOB_PCIE_LANES]);
	p->mps = READ_ONCE(m->knob[VRNIC_KNOB_PCIE_MPS]);
	p->mrrs = READ_ONCE(m->knob[VRNIC_KNOB_PCIE_MRRS]);
	p->ecrc = READ_ONCE(m->knob[VRNIC_KNOB_PCIE_ECRC]);
}

/**
 * vrnic_model_init - a new device's model, from the module parameters
 * @m:	the model
 *
 * Context: process.  Return: 0 or -ENOMEM.
 */
int vrnic_model_init(struct vrnic_model *m)
{
	enum vrnic_knob_id id;
	struct vrnic_pcie p;
	int err;

	mutex_init(&m->lock);
	for (id = 0; id < VRNIC_KNOB_COUNT; id++)
		m->knob[id] = vrnic_defaults[id];
	vrnic_model_pcie(m, &p);
	m->ns_per_byte = vrnic_pcie_ns_per_byte(vrnic_pcie_kbps(&p));
	m->cnt = alloc_percpu(struct vrnic_model_counters);
	if (!m->cnt)
		return -ENOMEM;
	m->qps = 0;
	m->gsi_qps = 0;
	spin_lock_init(&m->pace_lock);
	m->pace_next = 0;
	err = vrnic_cam_init(&m->mrc, m->knob[VRNIC_KNOB_MRC_ENTRIES]);
	if (err)
		goto err_cnt;
	err = vrnic_cam_init(&m->qpc, m->knob[VRNIC_KNOB_QPC_ENTRIES]);
	if (err)
		goto err_mrc;
	return 0;

err_mrc:
	vrnic_cam_fini(&m->mrc);
err_cnt:
	free_percpu(m->cnt);
	m->cnt = NULL;
	return err;
}

/* Free what the model allocated; safe to call twice. */
void vrnic_model_fini(struct vrnic_model *m)
{
	vrnic_cam_fini(&m->mrc);
	vrnic_cam_fini(&m->qpc);
	free_percpu(m->cnt);
	m->cnt = NULL;
}

/**
 * vrnic_mcnt_read - a model counter's value: the sum of the CPUs' copies
 * @m:		the model
 * @id:		the counter
 *
 * Context: any.
 */
u64 vrnic_mcnt_read(const struct vrnic_model *m, enum vrnic_model_counter id)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(per_cpu_ptr(m->cnt, cpu)->c[id]);
	return sum;
}

/*
 * Knobs that cannot change under live resources: the QP contexts' home
 * while QPs other than the GSI QP exist, and the on-chip context count
 * below the QPs there are.  Caller holds m->lock.  Return: 0 or -EBUSY
 * with a log line that says what to do.
 */
static int vrnic_knob_busy(struct vrnic_model *m, enum vrnic_knob_id id,
			   u32 v, struct device *dev)
{
	u32 user_qps = m->qps - m->gsi_qps;

	if (v == m->knob[id])
		return 0;
	if (id == VRNIC_KNOB_QPC_MODE && user_qps) {
		dev_warn_ratelimited(dev, "model/qpc.mode: busy: %u QPs hold contexts; destroy them first\n",
				     user_qps);
		return -EBUSY;
	}
	if (id == VRNIC_KNOB_QPC_ENTRIES &&
	    m->knob[VRNIC_KNOB_QPC_MODE] == VRNIC_QPC_ONCHIP && v < m->qps) {
		dev_warn_ratelimited(dev, "model/qpc.entries: busy: %u QPs hold on-chip contexts; destroy some first\n",
				     m->qps);
		return -EBUSY;
	}
	return 0;
}

/**
 * vrnic_model_knob_show - a knob's value as sysfs shows it
 * @m:		the model
 * @id:		the knob
 * @buf:	a sysfs page
 *
 * Integers plainly; a choice as its words with the current one in
 * brackets ("[off] account").
 */
ssize_t vrnic_model_knob_show(struct vrnic_model *m, enum vrnic_knob_id id,
			      char *buf)
{
	const struct vrnic_knob *k = &vrnic_knobs[id];
	u32 v = READ_ONCE(m->knob[id]);
	unsigned int i;
	int len = 0;

	if (!k->words)
		return sysfs_emit(buf, "%u\n", v);
	for (i = 0; i < k->nwords; i++)
		len += sysfs_emit_at(buf, len, i == v ? "%s[%s]" : "%s%s",
				     i ? " " : "", k->words[i]);
	len += sysfs_emit_at(buf, len, "\n");
	return len;
}

/**
 * vrnic_model_knob_store - set a knob from what was written to its file
 * @m:		the model
 * @id:		the knob
 * @buf:	the text written
 * @dev:	the device, to name in the log
 *
 * Return: 0, -EINVAL (logged with the values the knob accepts), -EBUSY
 * (logged: live QPs hold the contexts it governs) or -ENOMEM.
 */
int vrnic_model_knob_store(struct vrnic_model *m, enum vrnic_knob_id id,
			   const char *buf, struct device *dev)
{
	struct vrnic_pcie p;
	char accepts[96];
	int err;
	u32 v;

	if (vrnic_knob_parse(id, buf, &v)) {
		vrnic_knob_describe(id, accepts, sizeof(accepts));
		dev_warn_ratelimited(dev, "model/%s: \"%.*s\" rejected: it takes %s\n",
				     vrnic_knob_names[id],
				     (int)strcspn(buf, "\n"), buf, accepts);
		return -EINVAL;
	}
	mutex_lock(&m->lock);
	err = vrnic_knob_busy(m, id, v, dev);
	if (err)
		goto out;
	/* A new size starts empty, as after a reset of the NIC's cache. */
	if (id == VRNIC_KNOB_MRC_ENTRIES && v != m->knob[id])
		err = vrnic_cam_resize(&m->mrc, v);
	else if (id == VRNIC_KNOB_QPC_ENTRIES && v != m->knob[id])
		err = vrnic_cam_resize(&m->qpc, v);
	else if (id == VRNIC_KNOB_QPC_MODE && v != m->knob[id])
		err = vrnic_cam_resize(&m->qpc, m->knob[VRNIC_KNOB_QPC_ENTRIES]);
	if (err)
		goto out;
	/* Every value is valid alone: readers need no lock. */
	WRITE_ONCE(m->knob[id], v);
	vrnic_model_pcie(m, &p);
	WRITE_ONCE(m->ns_per_byte, vrnic_pcie_ns_per_byte(vrnic_pcie_kbps(&p)));
	if (id == VRNIC_KNOB_CLOCK_MODE) {
		unsigned long flags;

		/* A new clock starts a new paced timeline. */
		spin_lock_irqsave(&m->pace_lock, flags);
		WRITE_ONCE(m->pace_next, 0);
		spin_unlock_irqrestore(&m->pace_lock, flags);
	}
out:
	mutex_unlock(&m->lock);
	return err;
}

/**
 * vrnic_model_doorbell_account - count and cost what a doorbell did
 * @m:		the model
 * @ev:		the doorbell's outcome (vrnic_doorbell_ring(), or its timer)
 *
 * An MMIO write is one posted write TLP of the producer index, host to
 * device, plus doorbell.mmio_ns for the CPU's uncached store to reach the
 * NIC; a shadow doorbell adds the engine's read of the doorbell record
 * (the read itself is accounted as a DMA by the caller).  Context: any.
 */
void vrnic_model_doorbell_account(struct vrnic_model *m,
				  const struct vrnic_db_event *ev)
{
	struct vrnic_pcie_xfer x = {};
	struct vrnic_pcie p;
	u64 added = ev->wait_ns;
	bool mmio;

	if (likely(READ_ONCE(m->knob[VRNIC_KNOB_CLOCK_MODE]) == VRNIC_CLOCK_OFF))
		return;
	if (ev->action != VRNIC_DB_TIMER) {
		vrnic_mcnt_inc(m, VRNIC_MCNT_DB_RINGS);
		vrnic_mcnt_add(m, VRNIC_MCNT_DB_WQES, ev->wqes);
	}
	if (ev->released)
		vrnic_mcnt_inc(m, VRNIC_MCNT_DB_RELEASES);
	if (ev->action == VRNIC_DB_TIMER)
		vrnic_mcnt_inc(m, VRNIC_MCNT_DB_TIMER);
	mmio = ev->action == VRNIC_DB_RING || ev->action == VRNIC_DB_FULL ||
	       ev->action == VRNIC_DB_TIMER || ev->action == VRNIC_DB_WAKE;
	if (mmio) {
		vrnic_model_pcie(m, &p);
		/* The same TLP as a device's posted write, going down. */
		vrnic_pcie_write(&p, VRNIC_DBR_BYTES, &x);
		vrnic_mcnt_inc(m, VRNIC_MCNT_DB_MMIO);
		vrnic_mcnt_add(m, VRNIC_MCNT_PCIE_TLPS_DOWN, x.tlps_up);
		vrnic_mcnt_add(m, VRNIC_MCNT_PCIE_BYTES_DOWN, x.bytes_up);
		added += READ_ONCE(m->knob[VRNIC_KNOB_DOORBELL_MMIO_NS]);
	}
	if (ev->mode == VRNIC_DB_SHADOW)
		added += vrnic_dma_read_ns(READ_ONCE(m->knob[VRNIC_KNOB_DMA_READ_LATENCY_NS]),
					   READ_ONCE(m->knob[VRNIC_KNOB_DMA_READ_PS_PER_BYTE]),
					   VRNIC_DBR_BYTES);
	vrnic_mcnt_add(m, VRNIC_MCNT_DB_WAIT_NS, ev->wait_ns);
	vrnic_mcnt_add(m, VRNIC_MCNT_DB_ADDED_NS, added);
}

/**
 * vrnic_dma_read_ns - modeled time of a DMA read until its data is there
 * @latency_ns:		dma.read_latency_ns
 * @ps_per_byte:	dma.read_ps_per_byte
 * @len:		bytes read
 */
u64 vrnic_dma_read_ns(u32 latency_ns, u32 ps_per_byte, u32 len)
{
	return latency_ns + DIV_ROUND_UP_ULL((u64)len * ps_per_byte, 1000);
}

/**
 * vrnic_model_dma - account one DMA of the engine
 * @m:		the model
 * @dir:	VRNIC_DMA_TO_DEVICE for a read of host memory
 * @len:	bytes
 * @kind:	what it moves
 * @cost:	filled with its cost when accounted
 *
 * Context: any.  Return: true when the clock accounts (@cost is valid).
 */
bool vrnic_model_dma(struct vrnic_model *m, enum vrnic_dma_dir dir, u32 len,
		     enum vrnic_dma_kind kind, struct vrnic_dma_cost *cost)
{
	struct vrnic_pcie_xfer x = {};
	struct vrnic_pcie p;
	u64 q32, up_ns, down_ns;

	if (likely(READ_ONCE(m->knob[VRNIC_KNOB_CLOCK_MODE]) == VRNIC_CLOCK_OFF) ||
	    !len)
		return false;
	vrnic_model_pcie(m, &p);
	q32 = READ_ONCE(m->ns_per_byte);

	if (dir == VRNIC_DMA_TO_DEVICE) {
		vrnic_pcie_read(&p, len, &x);
		vrnic_mcnt_inc(m, VRNIC_MCNT_DMA_READS);
		vrnic_mcnt_add(m, VRNIC_MCNT_DMA_READ_BYTES, len);
	} else {
		vrnic_pcie_write(&p, len, &x);
		vrnic_mcnt_inc(m, VRNIC_MCNT_DMA_WRITES);
		vrnic_mcnt_add(m, VRNIC_MCNT_DMA_WRITE_BYTES, len);
	}
	if (kind == VRNIC_DMA_SQ_WQE || kind == VRNIC_DMA_RQ_WQE)
		vrnic_mcnt_inc(m, VRNIC_MCNT_WQE_FETCHES);
	else if (kind == VRNIC_DMA_CQE)
		vrnic_mcnt_inc(m, VRNIC_MCNT_CQE_WRITES);

	up_ns = vrnic_pcie_q32_ns(q32, x.bytes_up);
	down_ns = vrnic_pcie_q32_ns(q32, x.bytes_down);
	vrnic_mcnt_add(m, VRNIC_MCNT_PCIE_TLPS_UP, x.tlps_up);
	vrnic_mcnt_add(m, VRNIC_MCNT_PCIE_TLPS_DOWN, x.tlps_down);
	vrnic_mcnt_add(m, VRNIC_MCNT_PCIE_BYTES_UP, x.bytes_up);
	vrnic_mcnt_add(m, VRNIC_MCNT_PCIE_BYTES_DOWN, x.bytes_down);
	vrnic_mcnt_add(m, VRNIC_MCNT_PCIE_UP_NS, up_ns);
	vrnic_mcnt_add(m, VRNIC_MCNT_PCIE_DOWN_NS, down_ns);

	cost->tlps = x.tlps_up + x.tlps_down;
	cost->link_bytes = x.bytes_up + x.bytes_down;
	if (dir == VRNIC_DMA_TO_DEVICE) {
		/* A read waits for its data: latency, then the completions. */
		cost->ns = vrnic_dma_read_ns(READ_ONCE(m->knob[VRNIC_KNOB_DMA_READ_LATENCY_NS]),
					     READ_ONCE(m->knob[VRNIC_KNOB_DMA_READ_PS_PER_BYTE]),
					     len);
		vrnic_mcnt_add(m, VRNIC_MCNT_DMA_READ_NS, cost->ns);
	} else {
		/* A posted write is done once it is on the link. */
		cost->ns = up_ns;
	}
	/* Translations and contexts are needed before anything goes on. */
	if (READ_ONCE(m->knob[VRNIC_KNOB_CLOCK_MODE]) == VRNIC_CLOCK_PACE)
		vrnic_model_pace_advance(m, max(up_ns, down_ns), cost->ns,
					 dir == VRNIC_DMA_TO_DEVICE &&
					 (kind == VRNIC_DMA_MPT || kind == VRNIC_DMA_QPC),
					 ktime_get_ns());
	return true;
}

/*
 * Module parameters: the knobs' defaults for devices created afterwards,
 * validated as the knobs are.
 */
static int vrnic_param_set(const char *val, const struct kernel_param *kp)
{
	enum vrnic_knob_id id = (u32 *)kp->arg - vrnic_defaults;
	char accepts[96];
	u32 v;

	if (vrnic_knob_parse(id, val, &v)) {
		vrnic_knob_describe(id, accepts, sizeof(accepts));
		pr_err("vrnic: parameter %s: \"%s\" rejected: it takes %s\n",
		       kp->name, val, accepts);
		return -EINVAL;
	}
	*(u32 *)kp->arg = v;
	return 0;
}

static int vrnic_param_get(char *buf, const struct kernel_param *kp)
{
	enum vrnic_knob_id id = (u32 *)kp->arg - vrnic_defaults;
	const struct vrnic_knob *k = &vrnic_knobs[id];
	u32 v = *(u32 *)kp->arg;

	if (k->words)
		return sysfs_emit(buf, "%s\n", k->words[v]);
	return sysfs_emit(buf, "%u\n", v);
}

static const struct kernel_param_ops vrnic_param_ops = {
	.set = vrnic_param_set,
	.get = vrnic_param_get,
};

#define VRNIC_PARAM(name, id, desc)					\
	module_param_cb(name, &vrnic_param_ops, &vrnic_defaults[id], 0444); \
	MODULE_PARM_DESC(name, desc)

VRNIC_PARAM(pcie_gen, VRNIC_KNOB_PCIE_GEN,
	    "default pcie.gen: PCIe generation 1..5 (3)");
VRNIC_PARAM(pcie_lanes, VRNIC_KNOB_PCIE_LANES,
	    "default pcie.lanes: link width 1, 2, 4, 8 or 16 (16)");
VRNIC_PARAM(pcie_mps, VRNIC_KNOB_PCIE_MPS,
	    "default pcie.mps: Max Payload Size, bytes, 128..4096 (256)");
VRNIC_PARAM(pcie_mrrs, VRNIC_KNOB_PCIE_MRRS,
	    "default pcie.mrrs: Max Read Request Size, bytes, 128..4096 (512)");
VRNIC_PARAM(pcie_ecrc, VRNIC_KNOB_PCIE_ECRC,
	    "default pcie.ecrc: 1 adds a 4-byte ECRC to every TLP (0)");
VRNIC_PARAM(dma_read_latency_ns, VRNIC_KNOB_DMA_READ_LATENCY_NS,
	    "default dma.read_latency_ns: fixed DMA read latency, ns (550)");
VRNIC_PARAM(dma_read_ps_per_byte, VRNIC_KNOB_DMA_READ_PS_PER_BYTE,
	    "default dma.read_ps_per_byte: DMA read time per byte, ps (300)");
VRNIC_PARAM(qpc_mode, VRNIC_KNOB_QPC_MODE,
	    "default qpc.mode: QP contexts onchip (at most qpc.entries QPs) or host (behind a cache) (host)");
VRNIC_PARAM(qpc_entries, VRNIC_KNOB_QPC_ENTRIES,
	    "default qpc.entries: on-chip QP contexts, or QP context cache entries, 1..65536 (1024)");
VRNIC_PARAM(qpc_ctx_bytes, VRNIC_KNOB_QPC_CTX_BYTES,
	    "default qpc.ctx_bytes: bytes of one QP context, 64..4096 (256)");
VRNIC_PARAM(mrc_entries, VRNIC_KNOB_MRC_ENTRIES,
	    "default mrc.entries: MR translation cache entries, 1..65536 (1024)");
VRNIC_PARAM(doorbell_mode, VRNIC_KNOB_DOORBELL_MODE,
	    "default doorbell.mode: mmio, batch or shadow (mmio)");
VRNIC_PARAM(doorbell_batch_wqes, VRNIC_KNOB_DOORBELL_BATCH_WQES,
	    "default doorbell.batch_wqes: WQEs per coalesced doorbell, 1..1024 (16)");
VRNIC_PARAM(doorbell_batch_ns, VRNIC_KNOB_DOORBELL_BATCH_NS,
	    "default doorbell.batch_ns: longest a WQE waits for its batch, ns, 0..1000000 (1000)");
VRNIC_PARAM(doorbell_mmio_ns, VRNIC_KNOB_DOORBELL_MMIO_NS,
	    "default doorbell.mmio_ns: cost of one MMIO doorbell write, ns, 0..100000 (200)");
VRNIC_PARAM(clock_mode, VRNIC_KNOB_CLOCK_MODE,
	    "default clock.mode: off, account or pace (off)");
VRNIC_PARAM(clock_dilation, VRNIC_KNOB_CLOCK_DILATION,
	    "default clock.dilation: wall-clock ns per modeled ns in pace mode, 1..100000 (1)");
