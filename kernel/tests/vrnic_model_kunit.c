// SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
/*
 * KUnit tests for the hardware model's PCIe link and DMA accounting: link
 * bandwidth and large-write goodput against values computed by hand from
 * the pcie-bench model (Neugebauer et al., SIGCOMM 2018) for Gen3/Gen4,
 * x8/x16, MPS 128/256/512; TLP and byte counts for writes and reads; the
 * knobs' validation; that clock.mode off accounts nothing; the MR and QP
 * context caches (LRU, onchip limit, -EBUSY under live QPs); and the
 * doorbell modes (mmio, batch by count and by timer, shadow).
 *
 * Copyright (c) 2026 The vrnic authors
 */

#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/math64.h>
#include <linux/string.h>
#include <linux/timekeeping.h>

#include "hw/model.h"
#include "hw/cam.h"
#include "hw/clock.h"
#include "hw/mrc.h"
#include "hw/qpc.h"
#include "hw/pcie.h"

struct pcie_bw_case {
	const char *name;
	u8 gen, lanes;
	u16 mps;
	u64 tlp_kbps;		/* link bandwidth left for TLPs */
	u32 write_mbps;		/* goodput of a 1 MiB DMA write */
};

/*
 * Hand-computed: raw = GT/s x lanes x 128/130; less 2 DLLPs of 8 B per
 * Ack/UpdateFC interval and 4 B SKIP per 1538 B; goodput = that x
 * 2^20 / (2^20 + TLPs x 24).  pcie-bench's paper gives 47.7, 52.9 and 54.7
 * Gb/s for Gen3 x8 at MPS 128, 256 and 512.
 */
static const struct pcie_bw_case pcie_bw_cases[] = {
	{ "gen3_x8_mps128", 3, 8, 128, 56665936, 47719 },
	{ "gen3_x8_mps256", 3, 8, 256, 57884766, 52923 },
	{ "gen3_x8_mps512", 3, 8, 512, 57311681, 54745 },
	{ "gen3_x16_mps128", 3, 16, 128, 111699572, 94063 },
	{ "gen3_x16_mps256", 3, 16, 256, 113700060, 103954 },
	{ "gen3_x16_mps512", 3, 16, 512, 114623363, 109491 },
	{ "gen4_x8_mps128", 4, 8, 128, 113331872, 95437 },
	{ "gen4_x8_mps256", 4, 8, 256, 115769531, 105846 },
	{ "gen4_x8_mps512", 4, 8, 512, 114623363, 109491 },
	{ "gen4_x16_mps128", 4, 16, 128, 223399144, 188126 },
	{ "gen4_x16_mps256", 4, 16, 256, 227400121, 207909 },
	{ "gen4_x16_mps512", 4, 16, 512, 229246726, 218982 },
};

static void pcie_bw_desc(const struct pcie_bw_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(pcie_bw, pcie_bw_cases, pcie_bw_desc);

/* |got - want| within 0.1% of want. */
static bool close_enough(u64 got, u64 want)
{
	u64 d = got > want ? got - want : want - got;

	return d * 1000 <= want;
}

static void vrnic_pcie_matches_pcie_bench(struct kunit *test)
{
	const struct pcie_bw_case *c = test->param_value;
	struct vrnic_pcie p = { c->gen, c->lanes, c->mps, 512, false };
	struct vrnic_pcie_xfer x = {};
	u32 len = 1 << 20;
	u64 kbps, ns, mbps;

	KUNIT_ASSERT_TRUE(test, vrnic_pcie_valid(&p));
	kbps = vrnic_pcie_kbps(&p);
	KUNIT_EXPECT_TRUE_MSG(test, close_enough(kbps, c->tlp_kbps),
			      "TLP bandwidth %llu kbit/s, want %llu", kbps, c->tlp_kbps);
	vrnic_pcie_write(&p, len, &x);
	KUNIT_EXPECT_EQ(test, x.tlps_up, len / c->mps);
	KUNIT_EXPECT_EQ(test, x.bytes_up, (u64)len + (u64)(len / c->mps) * 24);
	KUNIT_EXPECT_EQ(test, x.tlps_down, 0);
	ns = vrnic_pcie_ns(&p, x.bytes_up);
	mbps = div64_u64((u64)len * 8 * 1000, ns);
	KUNIT_EXPECT_TRUE_MSG(test, close_enough(mbps, c->write_mbps),
			      "write goodput %llu Mb/s, want %u", mbps, c->write_mbps);
}

/* Small and unaligned lengths: whole TLPs, header and DLL bytes each. */
static void vrnic_pcie_tlp_counts(struct kunit *test)
{
	struct vrnic_pcie p = { 3, 8, 128, 512, false };
	struct vrnic_pcie_xfer x = {};

	vrnic_pcie_write(&p, 300, &x);		/* 128 + 128 + 44 */
	KUNIT_EXPECT_EQ(test, x.tlps_up, 3);
	KUNIT_EXPECT_EQ(test, x.bytes_up, 300 + 3 * 24);

	memset(&x, 0, sizeof(x));
	vrnic_pcie_read(&p, 100, &x);		/* one request, one completion */
	KUNIT_EXPECT_EQ(test, x.tlps_up, 1);
	KUNIT_EXPECT_EQ(test, x.bytes_up, 24);
	KUNIT_EXPECT_EQ(test, x.tlps_down, 1);
	KUNIT_EXPECT_EQ(test, x.bytes_down, 100 + 20);

	/* 1300 B at MRRS 512: requests of 512, 512, 276; MPS 128 completions. */
	memset(&x, 0, sizeof(x));
	vrnic_pcie_read(&p, 1300, &x);
	KUNIT_EXPECT_EQ(test, x.tlps_up, 3);
	KUNIT_EXPECT_EQ(test, x.tlps_down, 4 + 4 + 3);
	KUNIT_EXPECT_EQ(test, x.bytes_down, 1300 + 11 * 20);

	/* ECRC: 4 more bytes on every TLP. */
	p.ecrc = true;
	memset(&x, 0, sizeof(x));
	vrnic_pcie_read(&p, 1300, &x);
	KUNIT_EXPECT_EQ(test, x.bytes_up, 3 * 28);
	KUNIT_EXPECT_EQ(test, x.bytes_down, 1300 + 11 * 24);

	/* MRRS larger than MPS: more completions than requests. */
	p.ecrc = false;
	p.mps = 256;
	p.mrrs = 4096;
	memset(&x, 0, sizeof(x));
	vrnic_pcie_read(&p, 8192, &x);
	KUNIT_EXPECT_EQ(test, x.tlps_up, 2);
	KUNIT_EXPECT_EQ(test, x.tlps_down, 32);
}

/*
 * The data path's shortcuts against the plain arithmetic, for every
 * generation, width, MPS and MRRS: TLP counts by shifts equal the
 * divisions, and link time by the 32.32 reciprocal is the divided value
 * or 1 ns more, for lengths around every power of 2 up to 1 MiB.
 */
static void vrnic_pcie_fast_paths(struct kunit *test)
{
	struct vrnic_pcie p = {};
	u32 i, e, d;

	/* 5 generations x 5 widths x 6 MPS x 6 MRRS. */
	for (i = 0; i < 5 * 5 * 6 * 6; i++) {
		u64 kbps, q32;

		p.gen = 1 + i / 180;
		p.lanes = 1 << (i / 36 % 5);
		p.mps = 128 << (i / 6 % 6);
		p.mrrs = 128 << (i % 6);
		kbps = vrnic_pcie_kbps(&p);
		q32 = vrnic_pcie_ns_per_byte(kbps);
		for (e = 0; e <= 20; e++) {
			for (d = 0; d < 3; d++) {
				struct vrnic_pcie_xfer w = {}, r = {};
				u32 len = (1U << e) + d - 1;
				u64 want, got;

				if (!len)
					continue;
				vrnic_pcie_write(&p, len, &w);
				KUNIT_EXPECT_EQ(test, w.tlps_up, DIV_ROUND_UP(len, p.mps));
				vrnic_pcie_read(&p, len, &r);
				KUNIT_EXPECT_EQ(test, r.tlps_up, DIV_ROUND_UP(len, p.mrrs));
				KUNIT_EXPECT_EQ(test, r.tlps_down,
						len / p.mrrs * DIV_ROUND_UP(p.mrrs, p.mps) +
						DIV_ROUND_UP(len % p.mrrs, p.mps));
				want = vrnic_pcie_kbps_ns(kbps, w.bytes_up);
				got = vrnic_pcie_q32_ns(q32, w.bytes_up);
				KUNIT_EXPECT_TRUE_MSG(test, got == want || got == want + 1,
						      "gen %u x%u MPS %u: %llu B: %llu ns, want %llu",
						      p.gen, p.lanes, p.mps, w.bytes_up, got, want);
			}
		}
	}
}

/* 8b/10b for Gen1 and Gen2, and the Gen1 x1 DLLP interval. */
static void vrnic_pcie_encoding(struct kunit *test)
{
	struct vrnic_pcie g1 = { 1, 1, 128, 128, false };
	struct vrnic_pcie g2 = { 2, 1, 128, 128, false };
	u64 raw1 = 2000000;

	KUNIT_EXPECT_EQ(test, vrnic_pcie_kbps(&g1),
			raw1 - div_u64(raw1 * 16, 237) - div_u64(raw1 * 4, 1538));
	KUNIT_EXPECT_GT(test, vrnic_pcie_kbps(&g2), vrnic_pcie_kbps(&g1));
}

static void vrnic_pcie_rejects_bad_config(struct kunit *test)
{
	static const struct vrnic_pcie bad[] = {
		{ 0, 8, 256, 512 }, { 6, 8, 256, 512 }, { 3, 3, 256, 512 },
		{ 3, 32, 256, 512 }, { 3, 8, 100, 512 }, { 3, 8, 8192, 512 },
		{ 3, 8, 256, 64 }, { 3, 8, 256, 768 },
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++)
		KUNIT_EXPECT_FALSE_MSG(test, vrnic_pcie_valid(&bad[i]), "case %d", i);
}

struct knob_case {
	const char *name;
	enum vrnic_knob_id id;
	const char *text;
	int err;
};

static const struct knob_case knob_cases[] = {
	{ "gen_ok", VRNIC_KNOB_PCIE_GEN, "4\n", 0 },
	{ "gen_zero", VRNIC_KNOB_PCIE_GEN, "0", -EINVAL },
	{ "gen_six", VRNIC_KNOB_PCIE_GEN, "6", -EINVAL },
	{ "lanes_ok", VRNIC_KNOB_PCIE_LANES, "8", 0 },
	{ "lanes_not_pow2", VRNIC_KNOB_PCIE_LANES, "12", -EINVAL },
	{ "mps_ok", VRNIC_KNOB_PCIE_MPS, "512", 0 },
	{ "mps_small", VRNIC_KNOB_PCIE_MPS, "100", -EINVAL },
	{ "mps_huge", VRNIC_KNOB_PCIE_MPS, "8192", -EINVAL },
	{ "mps_text", VRNIC_KNOB_PCIE_MPS, "big", -EINVAL },
	{ "mps_negative", VRNIC_KNOB_PCIE_MPS, "-256", -EINVAL },
	{ "mrrs_ok", VRNIC_KNOB_PCIE_MRRS, "4096", 0 },
	{ "ecrc_two", VRNIC_KNOB_PCIE_ECRC, "2", -EINVAL },
	{ "latency_ok", VRNIC_KNOB_DMA_READ_LATENCY_NS, "100000", 0 },
	{ "latency_over", VRNIC_KNOB_DMA_READ_LATENCY_NS, "100001", -EINVAL },
	{ "clock_account", VRNIC_KNOB_CLOCK_MODE, "account\n", 0 },
	{ "clock_unknown", VRNIC_KNOB_CLOCK_MODE, "fast", -EINVAL },
	{ "clock_number", VRNIC_KNOB_CLOCK_MODE, "1", -EINVAL },
	{ "empty", VRNIC_KNOB_PCIE_GEN, "", -EINVAL },
	{ "mrc_ok", VRNIC_KNOB_MRC_ENTRIES, "4", 0 },
	{ "mrc_zero", VRNIC_KNOB_MRC_ENTRIES, "0", -EINVAL },
	{ "mrc_over", VRNIC_KNOB_MRC_ENTRIES, "65537", -EINVAL },
	{ "qpc_mode_word", VRNIC_KNOB_QPC_MODE, "chip", -EINVAL },
	{ "qpc_entries_ok", VRNIC_KNOB_QPC_ENTRIES, "65536", 0 },
	{ "qpc_entries_zero", VRNIC_KNOB_QPC_ENTRIES, "0", -EINVAL },
	{ "qpc_ctx_small", VRNIC_KNOB_QPC_CTX_BYTES, "63", -EINVAL },
	{ "qpc_ctx_ok", VRNIC_KNOB_QPC_CTX_BYTES, "4096", 0 },
	{ "db_mode_word", VRNIC_KNOB_DOORBELL_MODE, "ring", -EINVAL },
	{ "db_batch_zero", VRNIC_KNOB_DOORBELL_BATCH_WQES, "0", -EINVAL },
	{ "db_batch_over", VRNIC_KNOB_DOORBELL_BATCH_WQES, "1025", -EINVAL },
	{ "db_batch_ok", VRNIC_KNOB_DOORBELL_BATCH_WQES, "1024", 0 },
	{ "db_ns_zero", VRNIC_KNOB_DOORBELL_BATCH_NS, "0", 0 },
	{ "db_ns_over", VRNIC_KNOB_DOORBELL_BATCH_NS, "1000001", -EINVAL },
	{ "db_mmio_over", VRNIC_KNOB_DOORBELL_MMIO_NS, "100001", -EINVAL },
	{ "dilation_zero", VRNIC_KNOB_CLOCK_DILATION, "0", -EINVAL },
	{ "dilation_over", VRNIC_KNOB_CLOCK_DILATION, "100001", -EINVAL },
	{ "dilation_ok", VRNIC_KNOB_CLOCK_DILATION, "1000", 0 },
};

static void knob_desc(const struct knob_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(knob, knob_cases, knob_desc);

/* A rejected value leaves the knob as it was. */
static void vrnic_model_knob_validation(struct kunit *test)
{
	const struct knob_case *c = test->param_value;
	struct vrnic_model *m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	/* sysfs_emit() wants a page, as sysfs gives it. */
	char *before = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	char *after = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, m);
	KUNIT_ASSERT_NOT_NULL(test, before);
	KUNIT_ASSERT_NOT_NULL(test, after);
	KUNIT_ASSERT_EQ(test, vrnic_model_init(m), 0);
	vrnic_model_knob_show(m, c->id, before);
	KUNIT_EXPECT_EQ(test, vrnic_model_knob_store(m, c->id, c->text, NULL), c->err);
	vrnic_model_knob_show(m, c->id, after);
	if (c->err)
		KUNIT_EXPECT_STREQ(test, after, before);
	else if (c->id == VRNIC_KNOB_CLOCK_MODE)
		KUNIT_EXPECT_STREQ(test, after, "off [account] pace\n");
	else
		KUNIT_EXPECT_EQ(test, strncmp(after, c->text, strcspn(c->text, "\n")), 0);
	vrnic_model_fini(m);
}

/* Off accounts nothing; account counts reads, writes, TLPs and time. */
static void vrnic_model_accounts(struct kunit *test)
{
	struct vrnic_model *m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	struct vrnic_dma_cost c;

	KUNIT_ASSERT_NOT_NULL(test, m);
	KUNIT_ASSERT_EQ(test, vrnic_model_init(m), 0);
	KUNIT_EXPECT_FALSE(test, vrnic_model_dma(m, VRNIC_DMA_TO_DEVICE, 4096,
						 VRNIC_DMA_PAYLOAD, &c));
	KUNIT_EXPECT_EQ(test, vrnic_mcnt_read(m, VRNIC_MCNT_DMA_READS), 0);

	KUNIT_ASSERT_EQ(test, vrnic_model_knob_store(m, VRNIC_KNOB_CLOCK_MODE,
						     "account", NULL), 0);
	/* Defaults: Gen3 x16, MPS 256, MRRS 512, 550 ns + 300 ps/B. */
	KUNIT_EXPECT_TRUE(test, vrnic_model_dma(m, VRNIC_DMA_TO_DEVICE, 4096,
						VRNIC_DMA_PAYLOAD, &c));
	KUNIT_EXPECT_EQ(test, c.tlps, 8 + 16);
	KUNIT_EXPECT_EQ(test, c.link_bytes, 8 * 24 + 4096 + 16 * 20);
	KUNIT_EXPECT_EQ(test, c.ns, 550 + 4096 * 300 / 1000 + 1);
	KUNIT_EXPECT_TRUE(test, vrnic_model_dma(m, VRNIC_DMA_FROM_DEVICE, 64,
						VRNIC_DMA_CQE, &c));
	KUNIT_EXPECT_EQ(test, c.tlps, 1);
	KUNIT_EXPECT_EQ(test, c.link_bytes, 64 + 24);
	KUNIT_EXPECT_GT(test, c.ns, 0);

	KUNIT_EXPECT_EQ(test, vrnic_mcnt_read(m, VRNIC_MCNT_DMA_READS), 1);
	KUNIT_EXPECT_EQ(test, vrnic_mcnt_read(m, VRNIC_MCNT_DMA_READ_BYTES), 4096);
	KUNIT_EXPECT_EQ(test, vrnic_mcnt_read(m, VRNIC_MCNT_DMA_WRITES), 1);
	KUNIT_EXPECT_EQ(test, vrnic_mcnt_read(m, VRNIC_MCNT_CQE_WRITES), 1);
	KUNIT_EXPECT_EQ(test, vrnic_mcnt_read(m, VRNIC_MCNT_PCIE_TLPS_UP), 8 + 1);
	KUNIT_EXPECT_EQ(test, vrnic_mcnt_read(m, VRNIC_MCNT_PCIE_TLPS_DOWN), 16);
	KUNIT_EXPECT_EQ(test, vrnic_mcnt_read(m, VRNIC_MCNT_DMA_READ_NS),
			550 + 1229);
	vrnic_model_fini(m);
}

/* A 3-entry cache, one access per step: LRU order, hits, evictions. */
static void vrnic_mrc_lru(struct kunit *test)
{
	static const struct {
		u32 tag;
		enum vrnic_cam_result want;
	} steps[] = {
		{ 1, VRNIC_CAM_MISS }, { 2, VRNIC_CAM_MISS }, { 3, VRNIC_CAM_MISS },
		{ 1, VRNIC_CAM_HIT },		/* LRU now 2, then 3, then 1 */
		{ 4, VRNIC_CAM_EVICT },		/* 2 out */
		{ 3, VRNIC_CAM_HIT },
		{ 3, VRNIC_CAM_HIT },		/* the MRU again: nothing moves */
		{ 2, VRNIC_CAM_EVICT },		/* 1 out */
		{ 4, VRNIC_CAM_HIT }, { 3, VRNIC_CAM_HIT }, { 2, VRNIC_CAM_HIT },
		{ 1, VRNIC_CAM_EVICT },		/* 4 out */
		{ 4, VRNIC_CAM_EVICT },
	};
	struct vrnic_cam c;
	int i;

	KUNIT_ASSERT_EQ(test, vrnic_cam_init(&c, 3), 0);
	for (i = 0; i < ARRAY_SIZE(steps); i++)
		KUNIT_EXPECT_EQ_MSG(test, vrnic_cam_lookup(&c, steps[i].tag),
				    steps[i].want, "step %d tag %u", i, steps[i].tag);
	KUNIT_EXPECT_EQ(test, vrnic_cam_used(&c), 3);
	vrnic_cam_fini(&c);
}

/* Invalidation frees the entry; a resize starts empty; working sets. */
static void vrnic_mrc_invalidate_resize(struct kunit *test)
{
	struct vrnic_cam c;
	u32 round, tag, misses;

	KUNIT_ASSERT_EQ(test, vrnic_cam_init(&c, 2), 0);
	vrnic_cam_lookup(&c, 7);
	vrnic_cam_lookup(&c, 8);
	vrnic_cam_invalidate(&c, 7);
	vrnic_cam_invalidate(&c, 99);		/* not cached: nothing */
	KUNIT_EXPECT_EQ(test, vrnic_cam_used(&c), 1);
	KUNIT_EXPECT_EQ(test, vrnic_cam_lookup(&c, 7), VRNIC_CAM_MISS);
	KUNIT_EXPECT_EQ(test, vrnic_cam_lookup(&c, 8), VRNIC_CAM_HIT);
	/* The most recently used entry invalidated: it misses too. */
	vrnic_cam_invalidate(&c, 8);
	KUNIT_EXPECT_EQ(test, vrnic_cam_lookup(&c, 8), VRNIC_CAM_MISS);

	/* Cycling 8 keys through 4 entries misses every time (LRU). */
	KUNIT_ASSERT_EQ(test, vrnic_cam_resize(&c, 4), 0);
	KUNIT_EXPECT_EQ(test, vrnic_cam_used(&c), 0);
	KUNIT_EXPECT_EQ(test, vrnic_cam_lookup(&c, 8), VRNIC_CAM_MISS);
	misses = 0;
	for (round = 0; round < 4; round++)
		for (tag = 0; tag < 8; tag++)
			misses += vrnic_cam_lookup(&c, tag) != VRNIC_CAM_HIT;
	KUNIT_EXPECT_EQ(test, misses, 32);
	/* ... and 4 keys through 4 entries miss only the first round. */
	misses = 0;
	for (round = 0; round < 4; round++)
		for (tag = 100; tag < 104; tag++)
			misses += vrnic_cam_lookup(&c, tag) != VRNIC_CAM_HIT;
	KUNIT_EXPECT_EQ(test, misses, 4);
	vrnic_cam_fini(&c);
	vrnic_cam_fini(&c);			/* twice is safe */
}

/* The model's side: counters and the MPT/MTT fetch of a miss. */
static void vrnic_model_mr_cache(struct kunit *test)
{
	struct vrnic_model *m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	enum vrnic_cam_result res;
	struct vrnic_dma_cost miss;

	KUNIT_ASSERT_NOT_NULL(test, m);
	KUNIT_ASSERT_EQ(test, vrnic_model_init(m), 0);
	KUNIT_EXPECT_FALSE(test, vrnic_model_mr_access(m, 0x1234, 1, &res, &miss));
	KUNIT_ASSERT_EQ(test, vrnic_model_knob_store(m, VRNIC_KNOB_CLOCK_MODE,
						     "account", NULL), 0);
	KUNIT_ASSERT_EQ(test, vrnic_model_knob_store(m, VRNIC_KNOB_MRC_ENTRIES,
						     "1", NULL), 0);
	KUNIT_EXPECT_TRUE(test, vrnic_model_mr_access(m, 0x1234, 3, &res, &miss));
	KUNIT_EXPECT_EQ(test, res, VRNIC_CAM_MISS);
	/* 64 B MPT entry + 3 x 8 B MTT: one read request, one completion. */
	KUNIT_EXPECT_EQ(test, miss.tlps, 2);
	KUNIT_EXPECT_EQ(test, miss.link_bytes, 24 + 88 + 20);
	/* Same MPT index, other key byte: the same translation. */
	KUNIT_EXPECT_TRUE(test, vrnic_model_mr_access(m, 0x12ff, 1, &res, &miss));
	KUNIT_EXPECT_EQ(test, res, VRNIC_CAM_HIT);
	KUNIT_EXPECT_TRUE(test, vrnic_model_mr_access(m, 0x5600, 1, &res, &miss));
	KUNIT_EXPECT_EQ(test, res, VRNIC_CAM_EVICT);
	vrnic_model_mr_invalidate(m, 0x5600);
	KUNIT_EXPECT_TRUE(test, vrnic_model_mr_access(m, 0x5600, 1, &res, &miss));
	KUNIT_EXPECT_EQ(test, res, VRNIC_CAM_MISS);
	KUNIT_EXPECT_EQ(test, vrnic_mcnt_read(m, VRNIC_MCNT_MRC_HITS), 1);
	KUNIT_EXPECT_EQ(test, vrnic_mcnt_read(m, VRNIC_MCNT_MRC_MISSES), 3);
	KUNIT_EXPECT_EQ(test, vrnic_mcnt_read(m, VRNIC_MCNT_MRC_EVICTIONS), 1);
	vrnic_model_fini(m);
}

static struct vrnic_model *model_new(struct kunit *test, const char *clock)
{
	struct vrnic_model *m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, m);
	KUNIT_ASSERT_EQ(test, vrnic_model_init(m), 0);
	KUNIT_ASSERT_EQ(test, vrnic_model_knob_store(m, VRNIC_KNOB_CLOCK_MODE,
						     clock, NULL), 0);
	return m;
}

static int knob(struct vrnic_model *m, enum vrnic_knob_id id, const char *v)
{
	return vrnic_model_knob_store(m, id, v, NULL);
}

/*
 * qpc.mode onchip: at most qpc.entries QPs, the GSI QP included; the
 * knobs that govern live contexts answer -EBUSY, and a refused value
 * changes nothing.
 */
static void vrnic_qpc_onchip_limit(struct kunit *test)
{
	struct vrnic_model *m = model_new(test, "off");

	KUNIT_ASSERT_EQ(test, knob(m, VRNIC_KNOB_QPC_MODE, "onchip"), 0);
	KUNIT_ASSERT_EQ(test, knob(m, VRNIC_KNOB_QPC_ENTRIES, "2"), 0);
	KUNIT_EXPECT_EQ(test, vrnic_model_qp_create(m, true, NULL), 0);
	KUNIT_EXPECT_EQ(test, vrnic_model_qp_create(m, false, NULL), 0);
	KUNIT_EXPECT_EQ(test, vrnic_model_qp_create(m, false, NULL), -ENOMEM);
	KUNIT_EXPECT_EQ(test, vrnic_mcnt_read(m, VRNIC_MCNT_QPC_REFUSED), 1);
	KUNIT_EXPECT_EQ(test, knob(m, VRNIC_KNOB_QPC_ENTRIES, "1"), -EBUSY);
	KUNIT_EXPECT_EQ(test, knob(m, VRNIC_KNOB_QPC_MODE, "host"), -EBUSY);
	KUNIT_EXPECT_EQ(test, m->knob[VRNIC_KNOB_QPC_ENTRIES], 2);
	KUNIT_EXPECT_EQ(test, m->knob[VRNIC_KNOB_QPC_MODE], VRNIC_QPC_ONCHIP);
	/* Growing is fine; so is the same value. */
	KUNIT_EXPECT_EQ(test, knob(m, VRNIC_KNOB_QPC_ENTRIES, "3"), 0);
	KUNIT_EXPECT_EQ(test, knob(m, VRNIC_KNOB_QPC_MODE, "onchip"), 0);
	KUNIT_EXPECT_EQ(test, vrnic_model_qp_create(m, false, NULL), 0);
	vrnic_model_qp_destroy(m, 17, false);
	vrnic_model_qp_destroy(m, 18, false);
	/* Only the GSI QP left: the contexts may move. */
	KUNIT_EXPECT_EQ(test, knob(m, VRNIC_KNOB_QPC_MODE, "host"), 0);
	KUNIT_EXPECT_EQ(test, knob(m, VRNIC_KNOB_QPC_ENTRIES, "1"), 0);
	/* Host mode has no limit. */
	KUNIT_EXPECT_EQ(test, vrnic_model_qp_create(m, false, NULL), 0);
	KUNIT_EXPECT_EQ(test, vrnic_model_qp_create(m, false, NULL), 0);
	KUNIT_EXPECT_EQ(test, m->qps, 3);
	vrnic_model_fini(m);
}

/* qpc.mode host: an LRU cache; a miss reads a context, an eviction writes one. */
static void vrnic_qpc_host_cache(struct kunit *test)
{
	static const struct {
		u32 qpn;
		enum vrnic_cam_result want;
	} steps[] = {
		{ 17, VRNIC_CAM_MISS }, { 18, VRNIC_CAM_MISS }, { 17, VRNIC_CAM_HIT },
		{ 19, VRNIC_CAM_EVICT },	/* 18 was least recently used */
		{ 17, VRNIC_CAM_HIT }, { 18, VRNIC_CAM_EVICT },
	};
	struct vrnic_model *m = model_new(test, "off");
	struct vrnic_dma_cost f, wb;
	enum vrnic_cam_result res;
	bool in;
	int i;

	KUNIT_EXPECT_FALSE(test, vrnic_model_qpc_access(m, 17, &res, &f, &wb));
	KUNIT_EXPECT_FALSE(test, vrnic_model_qpc_resident(m, 17, &in));
	KUNIT_ASSERT_EQ(test, knob(m, VRNIC_KNOB_CLOCK_MODE, "account"), 0);
	KUNIT_ASSERT_EQ(test, knob(m, VRNIC_KNOB_QPC_ENTRIES, "2"), 0);
	KUNIT_ASSERT_EQ(test, knob(m, VRNIC_KNOB_QPC_CTX_BYTES, "512"), 0);
	for (i = 0; i < ARRAY_SIZE(steps); i++) {
		KUNIT_EXPECT_TRUE(test, vrnic_model_qpc_access(m, steps[i].qpn,
							       &res, &f, &wb));
		KUNIT_EXPECT_EQ_MSG(test, res, steps[i].want, "step %d", i);
	}
	KUNIT_EXPECT_EQ(test, vrnic_mcnt_read(m, VRNIC_MCNT_QPC_HITS), 2);
	KUNIT_EXPECT_EQ(test, vrnic_mcnt_read(m, VRNIC_MCNT_QPC_MISSES), 4);
	KUNIT_EXPECT_EQ(test, vrnic_mcnt_read(m, VRNIC_MCNT_QPC_EVICTIONS), 2);
	/* 512 B contexts, MRRS 512, MPS 256: one request, two completions. */
	KUNIT_EXPECT_EQ(test, vrnic_mcnt_read(m, VRNIC_MCNT_DMA_READ_BYTES), 4 * 512);
	KUNIT_EXPECT_EQ(test, vrnic_mcnt_read(m, VRNIC_MCNT_DMA_WRITE_BYTES), 2 * 512);
	KUNIT_EXPECT_EQ(test, f.tlps, 1 + 2);
	KUNIT_EXPECT_EQ(test, wb.tlps, 2);
	KUNIT_EXPECT_TRUE(test, vrnic_model_qpc_resident(m, 18, &in));
	KUNIT_EXPECT_TRUE(test, in);
	KUNIT_EXPECT_TRUE(test, vrnic_model_qpc_resident(m, 19, &in));
	KUNIT_EXPECT_FALSE(test, in);
	/* A destroyed QP's context leaves the cache. */
	KUNIT_EXPECT_EQ(test, vrnic_model_qp_create(m, false, NULL), 0);
	vrnic_model_qp_destroy(m, 18, false);
	KUNIT_EXPECT_TRUE(test, vrnic_model_qpc_resident(m, 18, &in));
	KUNIT_EXPECT_FALSE(test, in);
	/* On chip, everything hits and is resident. */
	KUNIT_ASSERT_EQ(test, knob(m, VRNIC_KNOB_QPC_MODE, "onchip"), 0);
	KUNIT_EXPECT_TRUE(test, vrnic_model_qpc_access(m, 99, &res, &f, &wb));
	KUNIT_EXPECT_EQ(test, res, VRNIC_CAM_HIT);
	KUNIT_EXPECT_TRUE(test, vrnic_model_qpc_resident(m, 1234, &in));
	KUNIT_EXPECT_TRUE(test, in);
	vrnic_model_fini(m);
}

struct db_probe {
	struct vrnic_doorbell db;
	struct completion fired;
	struct vrnic_db_event ev;
	int runs;
	u32 pi;		/* the "send queue's" producer index */
};

static u32 db_probe_producer(struct vrnic_doorbell *db)
{
	return container_of(db, struct db_probe, db)->pi;
}

static void db_probe_run(struct vrnic_doorbell *db,
			 const struct vrnic_db_event *ev)
{
	struct db_probe *p = container_of(db, struct db_probe, db);

	p->ev = *ev;
	p->runs++;
	complete(&p->fired);
}

static struct db_probe *db_probe_new(struct kunit *test, struct vrnic_model *m)
{
	struct db_probe *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	init_completion(&p->fired);
	vrnic_doorbell_init(&p->db, m, db_probe_producer, db_probe_run);
	return p;
}

/*
 * Software posted up to @pi and rang (a 64-entry queue).
 *
 * Rings a test means to land in one batch run with interrupts off, so
 * that the batch timer cannot release in between: batch_ns is at most
 * 1 ms, and a debug kernel under TCG can take longer than that from one
 * call to the next.  The timer is queued on the CPU that rang (a busy
 * one), so it waits until interrupts are on again.  Nothing in between
 * may sleep: the checks come after.
 */
static bool ring(struct db_probe *p, u32 pi, bool busy, struct vrnic_db_event *ev)
{
	p->pi = pi;
	return vrnic_doorbell_ring(&p->db, 63, busy, ev);
}

/* mmio: every doorbell releases what it announced, one MMIO write each. */
static void vrnic_doorbell_mmio(struct kunit *test)
{
	struct vrnic_model *m = model_new(test, "account");
	struct db_probe *p = db_probe_new(test, m);
	struct vrnic_db_event ev;

	KUNIT_EXPECT_TRUE(test, ring(p, 3, false, &ev));
	KUNIT_EXPECT_EQ(test, ev.action, VRNIC_DB_RING);
	KUNIT_EXPECT_EQ(test, ev.wqes, 3);
	KUNIT_EXPECT_EQ(test, vrnic_doorbell_pi(&p->db), 3);
	/* The index wraps with the queue: 62 -> 1 is 3 WQEs. */
	KUNIT_EXPECT_TRUE(test, ring(p, 62, false, &ev));
	KUNIT_EXPECT_TRUE(test, ring(p, 1, false, &ev));
	KUNIT_EXPECT_EQ(test, ev.wqes, 3);
	KUNIT_EXPECT_EQ(test, vrnic_mcnt_read(m, VRNIC_MCNT_DB_RINGS), 3);
	KUNIT_EXPECT_EQ(test, vrnic_mcnt_read(m, VRNIC_MCNT_DB_WQES), 3 + 59 + 3);
	KUNIT_EXPECT_EQ(test, vrnic_mcnt_read(m, VRNIC_MCNT_DB_MMIO), 3);
	/* An 8-byte posted write: one TLP of 24 + 8 bytes, host to device. */
	KUNIT_EXPECT_EQ(test, vrnic_mcnt_read(m, VRNIC_MCNT_PCIE_TLPS_DOWN), 3);
	KUNIT_EXPECT_EQ(test, vrnic_mcnt_read(m, VRNIC_MCNT_PCIE_BYTES_DOWN), 3 * 32);
	KUNIT_EXPECT_EQ(test, vrnic_mcnt_read(m, VRNIC_MCNT_DB_ADDED_NS), 3 * 200);
	KUNIT_EXPECT_EQ(test, p->runs, 0);
	vrnic_doorbell_fini(&p->db);
	vrnic_model_fini(m);
}

/* batch: held until batch_wqes are waiting; one MMIO write for them all. */
static void vrnic_doorbell_batch_count(struct kunit *test)
{
	struct vrnic_model *m = model_new(test, "account");
	struct db_probe *p = db_probe_new(test, m);
	struct vrnic_db_event ev[3];
	unsigned long flags;
	bool run[3];
	u32 pi;

	KUNIT_ASSERT_EQ(test, knob(m, VRNIC_KNOB_DOORBELL_MODE, "batch"), 0);
	KUNIT_ASSERT_EQ(test, knob(m, VRNIC_KNOB_DOORBELL_BATCH_WQES, "4"), 0);
	KUNIT_ASSERT_EQ(test, knob(m, VRNIC_KNOB_DOORBELL_BATCH_NS, "1000000"), 0);
	local_irq_save(flags);		/* one batch: see ring() */
	run[0] = ring(p, 1, false, &ev[0]);
	run[1] = ring(p, 3, false, &ev[1]);
	pi = vrnic_doorbell_pi(&p->db);
	run[2] = ring(p, 5, false, &ev[2]);
	local_irq_restore(flags);
	KUNIT_EXPECT_FALSE(test, run[0]);
	KUNIT_EXPECT_EQ(test, ev[0].action, VRNIC_DB_HOLD);
	KUNIT_EXPECT_FALSE(test, run[1]);
	KUNIT_EXPECT_EQ(test, pi, 0);
	KUNIT_EXPECT_TRUE(test, run[2]);
	KUNIT_EXPECT_EQ(test, ev[2].action, VRNIC_DB_FULL);
	KUNIT_EXPECT_EQ(test, ev[2].wqes, 2);
	KUNIT_EXPECT_EQ(test, ev[2].released, 5);
	KUNIT_EXPECT_EQ(test, vrnic_doorbell_pi(&p->db), 5);
	KUNIT_EXPECT_EQ(test, vrnic_mcnt_read(m, VRNIC_MCNT_DB_RINGS), 3);
	KUNIT_EXPECT_EQ(test, vrnic_mcnt_read(m, VRNIC_MCNT_DB_MMIO), 1);
	KUNIT_EXPECT_EQ(test, vrnic_mcnt_read(m, VRNIC_MCNT_DB_RELEASES), 1);
	/* Nothing held: the timer must not release anything. */
	KUNIT_EXPECT_EQ(test, wait_for_completion_timeout(&p->fired,
							  msecs_to_jiffies(20)), 0);
	/* batch_ns 0: no waiting at all. */
	KUNIT_ASSERT_EQ(test, knob(m, VRNIC_KNOB_DOORBELL_BATCH_NS, "0"), 0);
	KUNIT_EXPECT_TRUE(test, ring(p, 6, false, &ev[0]));
	KUNIT_EXPECT_EQ(test, ev[0].action, VRNIC_DB_FULL);
	KUNIT_EXPECT_EQ(test, vrnic_doorbell_pi(&p->db), 6);
	vrnic_doorbell_fini(&p->db);
	vrnic_model_fini(m);
}

/* batch: a lone WQE goes when batch_ns runs out, through the callback. */
static void vrnic_doorbell_batch_timer(struct kunit *test)
{
	struct vrnic_model *m = model_new(test, "account");
	struct db_probe *p = db_probe_new(test, m);
	struct vrnic_db_event ev;
	unsigned long flags;
	bool run;

	KUNIT_ASSERT_EQ(test, knob(m, VRNIC_KNOB_DOORBELL_MODE, "batch"), 0);
	KUNIT_ASSERT_EQ(test, knob(m, VRNIC_KNOB_DOORBELL_BATCH_NS, "2000"), 0);
	KUNIT_EXPECT_FALSE(test, ring(p, 1, false, &ev));
	KUNIT_ASSERT_GT(test, wait_for_completion_timeout(&p->fired,
							  msecs_to_jiffies(1000)), 0);
	KUNIT_EXPECT_EQ(test, p->runs, 1);
	KUNIT_EXPECT_EQ(test, p->ev.action, VRNIC_DB_TIMER);
	KUNIT_EXPECT_EQ(test, p->ev.released, 1);
	/* local_clock() may differ a little between CPUs. */
	KUNIT_EXPECT_GE(test, p->ev.wait_ns, 1000);
	KUNIT_EXPECT_EQ(test, vrnic_doorbell_pi(&p->db), 1);
	KUNIT_EXPECT_EQ(test, vrnic_mcnt_read(m, VRNIC_MCNT_DB_TIMER), 1);
	KUNIT_EXPECT_EQ(test, vrnic_mcnt_read(m, VRNIC_MCNT_DB_MMIO), 1);
	KUNIT_EXPECT_GE(test, vrnic_mcnt_read(m, VRNIC_MCNT_DB_WAIT_NS), 1000);

	/* A reset forgets what was held: the timer (1 ms) finds nothing. */
	KUNIT_ASSERT_EQ(test, knob(m, VRNIC_KNOB_DOORBELL_BATCH_NS, "1000000"), 0);
	reinit_completion(&p->fired);
	local_irq_save(flags);		/* one batch: see ring() */
	run = ring(p, 3, false, &ev);
	vrnic_doorbell_reset(&p->db);
	local_irq_restore(flags);
	KUNIT_EXPECT_FALSE(test, run);
	KUNIT_EXPECT_EQ(test, wait_for_completion_timeout(&p->fired,
							  msecs_to_jiffies(20)), 0);
	KUNIT_EXPECT_EQ(test, vrnic_doorbell_pi(&p->db), 0);
	vrnic_doorbell_fini(&p->db);
	vrnic_model_fini(m);
}

/* shadow: a busy engine reads the record itself; an idle one is woken. */
static void vrnic_doorbell_shadow(struct kunit *test)
{
	struct vrnic_model *m = model_new(test, "account");
	struct db_probe *p = db_probe_new(test, m);
	struct vrnic_db_event ev;

	KUNIT_ASSERT_EQ(test, knob(m, VRNIC_KNOB_DOORBELL_MODE, "shadow"), 0);
	KUNIT_EXPECT_TRUE(test, ring(p, 2, false, &ev));
	KUNIT_EXPECT_EQ(test, ev.action, VRNIC_DB_WAKE);
	KUNIT_EXPECT_TRUE(test, ring(p, 4, true, &ev));
	KUNIT_EXPECT_EQ(test, ev.action, VRNIC_DB_ABSORBED);
	KUNIT_EXPECT_EQ(test, vrnic_doorbell_pi(&p->db), 4);
	KUNIT_EXPECT_EQ(test, vrnic_mcnt_read(m, VRNIC_MCNT_DB_RINGS), 2);
	KUNIT_EXPECT_EQ(test, vrnic_mcnt_read(m, VRNIC_MCNT_DB_MMIO), 1);
	/* One MMIO (200 ns), two record reads (550 + 3 ns each). */
	KUNIT_EXPECT_EQ(test, vrnic_mcnt_read(m, VRNIC_MCNT_DB_ADDED_NS),
			200 + 2 * 553);
	vrnic_doorbell_fini(&p->db);
	vrnic_model_fini(m);
}

/* Leaving batch mode releases what a batch held, once. */
static void vrnic_doorbell_mode_change(struct kunit *test)
{
	struct vrnic_model *m = model_new(test, "account");
	struct db_probe *p = db_probe_new(test, m);
	struct vrnic_db_event ev[2];
	unsigned long flags;
	bool run[2];

	KUNIT_ASSERT_EQ(test, knob(m, VRNIC_KNOB_DOORBELL_MODE, "batch"), 0);
	KUNIT_ASSERT_EQ(test, knob(m, VRNIC_KNOB_DOORBELL_BATCH_NS, "1000000"), 0);
	local_irq_save(flags);		/* one batch: see ring() */
	run[0] = ring(p, 2, false, &ev[0]);
	/* What knob() stores, without its mutex: any value is valid alone. */
	WRITE_ONCE(m->knob[VRNIC_KNOB_DOORBELL_MODE], VRNIC_DB_MMIO);
	run[1] = ring(p, 3, false, &ev[1]);
	local_irq_restore(flags);
	KUNIT_EXPECT_FALSE(test, run[0]);
	KUNIT_EXPECT_TRUE(test, run[1]);
	KUNIT_EXPECT_EQ(test, ev[1].wqes, 1);
	KUNIT_EXPECT_EQ(test, ev[1].released, 3);
	KUNIT_EXPECT_EQ(test, vrnic_doorbell_pi(&p->db), 3);
	/* The batch timer finds nothing left to release. */
	KUNIT_EXPECT_EQ(test, wait_for_completion_timeout(&p->fired,
							  msecs_to_jiffies(20)), 0);
	KUNIT_EXPECT_EQ(test, vrnic_mcnt_read(m, VRNIC_MCNT_DB_RELEASES), 1);
	KUNIT_EXPECT_EQ(test, vrnic_mcnt_read(m, VRNIC_MCNT_DB_WQES), 3);
	vrnic_doorbell_fini(&p->db);
	vrnic_model_fini(m);
}

/* Doorbells act with the clock off too; they count nothing then. */
static void vrnic_doorbell_clock_off(struct kunit *test)
{
	struct vrnic_model *m = model_new(test, "off");
	struct db_probe *p = db_probe_new(test, m);
	struct vrnic_db_event ev;
	unsigned long flags;
	bool run[2];
	int i;

	KUNIT_ASSERT_EQ(test, knob(m, VRNIC_KNOB_DOORBELL_MODE, "batch"), 0);
	KUNIT_ASSERT_EQ(test, knob(m, VRNIC_KNOB_DOORBELL_BATCH_WQES, "2"), 0);
	/* Long enough that the count, not the timer, releases. */
	KUNIT_ASSERT_EQ(test, knob(m, VRNIC_KNOB_DOORBELL_BATCH_NS, "1000000"), 0);
	local_irq_save(flags);		/* one batch: see ring() */
	run[0] = ring(p, 1, false, &ev);
	run[1] = ring(p, 2, false, &ev);
	local_irq_restore(flags);
	KUNIT_EXPECT_FALSE(test, run[0]);
	KUNIT_EXPECT_TRUE(test, run[1]);
	KUNIT_EXPECT_EQ(test, vrnic_doorbell_pi(&p->db), 2);
	for (i = 0; i < VRNIC_MCNT_COUNT; i++)
		KUNIT_EXPECT_EQ_MSG(test, vrnic_mcnt_read(m, i), 0, "%s",
				    vrnic_model_counter_names[i]);
	vrnic_doorbell_fini(&p->db);
	vrnic_model_fini(m);
}

/*
 * clock.mode pace: the timeline is a pipeline stretched by the dilation
 * (a DMA starts when the link is free, is done no sooner than its
 * latency); the requester waits once it runs ahead; account never waits.
 */
static void vrnic_model_pace(struct kunit *test)
{
	struct vrnic_model *m = model_new(test, "account");
	struct vrnic_dma_cost c;
	u64 wait, t0, elapsed;

	KUNIT_EXPECT_TRUE(test, vrnic_model_dma(m, VRNIC_DMA_TO_DEVICE, 4096,
						VRNIC_DMA_PAYLOAD, &c));
	KUNIT_EXPECT_EQ(test, vrnic_model_pace_wait(m), 0);

	KUNIT_ASSERT_EQ(test, knob(m, VRNIC_KNOB_CLOCK_MODE, "pace"), 0);
	KUNIT_ASSERT_EQ(test, knob(m, VRNIC_KNOB_CLOCK_DILATION, "2"), 0);
	vrnic_model_pace_advance(m, 10, 100, false, 1000);
	KUNIT_EXPECT_EQ(test, m->pace_next, 1000 + 2 * 100);	/* the latency */
	vrnic_model_pace_advance(m, 10, 100, false, 1000);
	KUNIT_EXPECT_EQ(test, m->pace_next, 1200 + 2 * 10);	/* pipelined */
	vrnic_model_pace_advance(m, 10, 0, false, 5000);		/* idle since 1220 */
	KUNIT_EXPECT_EQ(test, m->pace_next, 5000 + 2 * 10);
	KUNIT_EXPECT_EQ(test, vrnic_mcnt_read(m, VRNIC_MCNT_PACE_IDLE_NS), 5000 - 1220);
	/* Idle for less than the latency: still pipelined, no latency. */
	vrnic_model_pace_advance(m, 10, 100, false, 5100);
	KUNIT_EXPECT_EQ(test, m->pace_next, 5100 + 2 * 10);
	KUNIT_EXPECT_EQ(test, vrnic_mcnt_read(m, VRNIC_MCNT_PACE_IDLE_NS),
			5000 - 1220 + 5100 - 5020);
	/*
	 * A dependent read (a cache miss's fetch) holds the pipeline for its
	 * latency even when the link is busy, and what follows queues
	 * behind it.
	 */
	vrnic_model_pace_advance(m, 10, 100, true, 5110);
	KUNIT_EXPECT_EQ(test, m->pace_next, 5120 + 2 * 100);
	vrnic_model_pace_advance(m, 10, 100, false, 5110);
	KUNIT_EXPECT_EQ(test, m->pace_next, 5320 + 2 * 10);
	/* ... and after an idle link it starts now. */
	vrnic_model_pace_advance(m, 10, 100, true, 9000);
	KUNIT_EXPECT_EQ(test, m->pace_next, 9000 + 2 * 100);
	KUNIT_EXPECT_EQ(test, vrnic_mcnt_read(m, VRNIC_MCNT_PACE_IDLE_NS),
			5000 - 1220 + 5100 - 5020 + 9000 - 5340);

	/* A real DMA at the largest dilation: 4 KiB read, 1779 ns modeled. */
	KUNIT_ASSERT_EQ(test, knob(m, VRNIC_KNOB_CLOCK_MODE, "pace"), 0);
	KUNIT_ASSERT_EQ(test, knob(m, VRNIC_KNOB_CLOCK_DILATION, "100000"), 0);
	t0 = ktime_get_ns();
	KUNIT_EXPECT_TRUE(test, vrnic_model_dma(m, VRNIC_DMA_TO_DEVICE, 4096,
						VRNIC_DMA_PAYLOAD, &c));
	KUNIT_EXPECT_EQ(test, c.ns, 550 + 1229);
	wait = vrnic_model_pace_wait(m);
	/*
	 * The wait is what is left of the modeled time: less what passed
	 * since the DMA (a busy debug guest took 8 ms here), never more.
	 */
	elapsed = ktime_get_ns() - t0;
	KUNIT_EXPECT_GE(test, wait + elapsed, 1779ULL * 100000 - VRNIC_PACE_SLACK_NS);
	KUNIT_EXPECT_LE(test, wait, 1779ULL * 100000 - VRNIC_PACE_SLACK_NS);
	/* Asking is not waiting: only the requester's stop counts. */
	KUNIT_EXPECT_EQ(test, vrnic_mcnt_read(m, VRNIC_MCNT_PACE_WAITS), 0);
	vrnic_model_pace_count(m, wait);
	KUNIT_EXPECT_EQ(test, vrnic_mcnt_read(m, VRNIC_MCNT_PACE_WAITS), 1);
	KUNIT_EXPECT_EQ(test, vrnic_mcnt_read(m, VRNIC_MCNT_PACE_WAIT_NS), wait);
	/* Back to account: nothing waits. */
	KUNIT_ASSERT_EQ(test, knob(m, VRNIC_KNOB_CLOCK_MODE, "account"), 0);
	KUNIT_EXPECT_EQ(test, vrnic_model_pace_wait(m), 0);
	vrnic_model_fini(m);
}

static struct kunit_case vrnic_model_cases[] = {
	KUNIT_CASE_PARAM(vrnic_pcie_matches_pcie_bench, pcie_bw_gen_params),
	KUNIT_CASE(vrnic_pcie_tlp_counts),
	KUNIT_CASE(vrnic_pcie_fast_paths),
	KUNIT_CASE(vrnic_pcie_encoding),
	KUNIT_CASE(vrnic_pcie_rejects_bad_config),
	KUNIT_CASE_PARAM(vrnic_model_knob_validation, knob_gen_params),
	KUNIT_CASE(vrnic_model_accounts),
	KUNIT_CASE(vrnic_mrc_lru),
	KUNIT_CASE(vrnic_mrc_invalidate_resize),
	KUNIT_CASE(vrnic_model_mr_cache),
	KUNIT_CASE(vrnic_qpc_onchip_limit),
	KUNIT_CASE(vrnic_qpc_host_cache),
	KUNIT_CASE(vrnic_doorbell_mmio),
	KUNIT_CASE(vrnic_doorbell_batch_count),
	KUNIT_CASE(vrnic_doorbell_batch_timer),
	KUNIT_CASE(vrnic_doorbell_shadow),
	KUNIT_CASE(vrnic_doorbell_mode_change),
	KUNIT_CASE(vrnic_doorbell_clock_off),
	KUNIT_CASE(vrnic_model_pace),
	{}
};

static struct kunit_suite vrnic_model_suite = {
	.name = "vrnic_model",
	.test_cases = vrnic_model_cases,
};

kunit_test_suite(vrnic_model_suite);
