// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for vrnic's QP state table: which modify_qp calls are
 * accepted, from which state, for which QP type, with which attributes
 * (IBA 10.3.1, table 91 as ib_modify_qp_is_ok() encodes it, plus vrnic's
 * own limits).  vrnic_qp_modify_check() is pure, so no device is needed.
 *
 * Copyright (c) 2026 The vrnic authors
 */

#include <kunit/test.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>

#include "vrnic.h"
#include "vrnic_mr.h"
#include "vrnic_qp.h"
#include "engine/vrnic_comp.h"
#include "mem/vrnic_mem.h"
#include "obj/vrnic_qp_obj.h"
#include "verbs/vrnic_qp_verbs.h"

static const struct ib_device_attr test_dattr = {
	.max_qp_rd_atom = VRNIC_MAX_RD_ATOMIC,
	.max_qp_init_rd_atom = VRNIC_MAX_RD_ATOMIC,
};

/* Only its address matters: "the core resolved a source GID". */
static const struct ib_gid_attr test_sgid_attr;

#define RC_INIT	(IB_QP_STATE | IB_QP_PKEY_INDEX | IB_QP_PORT | IB_QP_ACCESS_FLAGS)
#define UD_INIT	(IB_QP_STATE | IB_QP_PKEY_INDEX | IB_QP_PORT | IB_QP_QKEY)
/* Special QPs live on a fixed port: no IB_QP_PORT (IBA 10.3.1, table 91). */
#define GSI_INIT (IB_QP_STATE | IB_QP_PKEY_INDEX | IB_QP_QKEY)
#define RC_RTR	(IB_QP_STATE | IB_QP_AV | IB_QP_PATH_MTU | IB_QP_DEST_QPN | \
		 IB_QP_RQ_PSN | IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER)
#define UC_RTR	(IB_QP_STATE | IB_QP_AV | IB_QP_PATH_MTU | IB_QP_DEST_QPN | \
		 IB_QP_RQ_PSN)
#define RC_RTS	(IB_QP_STATE | IB_QP_SQ_PSN | IB_QP_TIMEOUT | IB_QP_RETRY_CNT | \
		 IB_QP_RNR_RETRY | IB_QP_MAX_QP_RD_ATOMIC)

struct qp_case {
	const char *name;
	enum ib_qp_type type;
	enum ib_qp_state from, to;
	int mask;
	int want;
	/* Override one attribute to an out-of-range value. */
	void (*spoil)(struct ib_qp_attr *attr);
};

static void no_grh(struct ib_qp_attr *a)
{
	a->ah_attr.ah_flags = 0;
}

static void no_sgid(struct ib_qp_attr *a)
{
	a->ah_attr.grh.sgid_attr = NULL;
}

static void retry_8(struct ib_qp_attr *a) { a->retry_cnt = 8; }
static void rnr_retry_8(struct ib_qp_attr *a) { a->rnr_retry = 8; }
static void timeout_32(struct ib_qp_attr *a) { a->timeout = 32; }
static void mtu_8192(struct ib_qp_attr *a) { a->path_mtu = 6; }
static void mtu_0(struct ib_qp_attr *a)
{
	a->path_mtu = 0;
}

static void port_2(struct ib_qp_attr *a) { a->port_num = 2; }
static void pkey_1(struct ib_qp_attr *a) { a->pkey_index = 1; }
static void rnr_timer_32(struct ib_qp_attr *a) { a->min_rnr_timer = 32; }

static void rd_atomic_big(struct ib_qp_attr *a)
{
	a->max_rd_atomic = VRNIC_MAX_RD_ATOMIC + 1;
}

static void dest_rd_atomic_big(struct ib_qp_attr *a)
{
	a->max_dest_rd_atomic = VRNIC_MAX_RD_ATOMIC + 1;
}

static void cur_wrong(struct ib_qp_attr *a) { a->cur_qp_state = IB_QPS_RTR; }
static void mig_migrated(struct ib_qp_attr *a) { a->path_mig_state = IB_MIG_MIGRATED; }
static void mig_rearm(struct ib_qp_attr *a) { a->path_mig_state = IB_MIG_REARM; }
static void mig_armed(struct ib_qp_attr *a) { a->path_mig_state = IB_MIG_ARMED; }

static const struct qp_case qp_cases[] = {
	/* The normal path of each type. */
	{ "rc_reset_init", IB_QPT_RC, IB_QPS_RESET, IB_QPS_INIT, RC_INIT, 0 },
	{ "rc_init_rtr", IB_QPT_RC, IB_QPS_INIT, IB_QPS_RTR, RC_RTR, 0 },
	{ "rc_rtr_rts", IB_QPT_RC, IB_QPS_RTR, IB_QPS_RTS, RC_RTS, 0 },
	{ "uc_init_rtr", IB_QPT_UC, IB_QPS_INIT, IB_QPS_RTR, UC_RTR, 0 },
	{ "uc_rtr_rts", IB_QPT_UC, IB_QPS_RTR, IB_QPS_RTS, IB_QP_STATE | IB_QP_SQ_PSN, 0 },
	{ "ud_reset_init", IB_QPT_UD, IB_QPS_RESET, IB_QPS_INIT, UD_INIT, 0 },
	{ "ud_init_rtr", IB_QPT_UD, IB_QPS_INIT, IB_QPS_RTR, IB_QP_STATE, 0 },
	{ "ud_rtr_rts", IB_QPT_UD, IB_QPS_RTR, IB_QPS_RTS, IB_QP_STATE | IB_QP_SQ_PSN, 0 },
	{ "gsi_reset_init", IB_QPT_GSI, IB_QPS_RESET, IB_QPS_INIT, GSI_INIT, 0 },
	{ "gsi_init_with_port", IB_QPT_GSI, IB_QPS_RESET, IB_QPS_INIT, UD_INIT, -EINVAL },
	/* Required attributes missing, or attributes the transition forbids. */
	{ "rc_init_without_access", IB_QPT_RC, IB_QPS_RESET, IB_QPS_INIT,
	  RC_INIT & ~IB_QP_ACCESS_FLAGS, -EINVAL },
	{ "rc_rtr_without_av", IB_QPT_RC, IB_QPS_INIT, IB_QPS_RTR,
	  RC_RTR & ~IB_QP_AV, -EINVAL },
	{ "rc_rts_without_sq_psn", IB_QPT_RC, IB_QPS_RTR, IB_QPS_RTS,
	  RC_RTS & ~IB_QP_SQ_PSN, -EINVAL },
	{ "ud_init_with_av", IB_QPT_UD, IB_QPS_RESET, IB_QPS_INIT,
	  UD_INIT | IB_QP_AV, -EINVAL },
	/* Transitions that do not exist. */
	{ "reset_to_rts", IB_QPT_RC, IB_QPS_RESET, IB_QPS_RTS, RC_RTS, -EINVAL },
	{ "reset_to_rtr", IB_QPT_RC, IB_QPS_RESET, IB_QPS_RTR, RC_RTR, -EINVAL },
	{ "init_to_rts", IB_QPT_RC, IB_QPS_INIT, IB_QPS_RTS, RC_RTS, -EINVAL },
	{ "err_to_rts", IB_QPT_RC, IB_QPS_ERR, IB_QPS_RTS, IB_QP_STATE, -EINVAL },
	{ "rc_rts_to_sqe", IB_QPT_RC, IB_QPS_RTS, IB_QPS_SQE, IB_QP_STATE, -EINVAL },
	/* Every state may go to RESET and to ERR. */
	{ "rts_to_err", IB_QPT_RC, IB_QPS_RTS, IB_QPS_ERR, IB_QP_STATE, 0 },
	{ "init_to_err", IB_QPT_UD, IB_QPS_INIT, IB_QPS_ERR, IB_QP_STATE, 0 },
	{ "err_to_reset", IB_QPT_RC, IB_QPS_ERR, IB_QPS_RESET, IB_QP_STATE, 0 },
	{ "rts_to_reset", IB_QPT_UC, IB_QPS_RTS, IB_QPS_RESET, IB_QP_STATE, 0 },
	/* SQ drain and back. */
	{ "rts_to_sqd", IB_QPT_RC, IB_QPS_RTS, IB_QPS_SQD, IB_QP_STATE, 0 },
	{ "sqd_to_rts", IB_QPT_RC, IB_QPS_SQD, IB_QPS_RTS, IB_QP_STATE, 0 },
	{ "ud_sqe_to_rts", IB_QPT_UD, IB_QPS_SQE, IB_QPS_RTS, IB_QP_STATE, 0 },
	/* RTS to RTS: modify attributes without a state change. */
	{ "rts_to_rts_timeout", IB_QPT_RC, IB_QPS_RTS, IB_QPS_RTS,
	  IB_QP_STATE | IB_QP_MIN_RNR_TIMER, 0 },
	/* vrnic's limits on the values. */
	{ "av_without_grh", IB_QPT_RC, IB_QPS_INIT, IB_QPS_RTR, RC_RTR, -EINVAL, no_grh },
	{ "av_without_sgid", IB_QPT_RC, IB_QPS_INIT, IB_QPS_RTR, RC_RTR, -EINVAL, no_sgid },
	{ "path_mtu_8192", IB_QPT_RC, IB_QPS_INIT, IB_QPS_RTR, RC_RTR, -EINVAL, mtu_8192 },
	{ "path_mtu_0", IB_QPT_RC, IB_QPS_INIT, IB_QPS_RTR, RC_RTR, -EINVAL, mtu_0 },
	{ "min_rnr_timer_32", IB_QPT_RC, IB_QPS_INIT, IB_QPS_RTR, RC_RTR, -EINVAL, rnr_timer_32 },
	{ "dest_rd_atomic_too_many", IB_QPT_RC, IB_QPS_INIT, IB_QPS_RTR, RC_RTR,
	  -EINVAL, dest_rd_atomic_big },
	{ "retry_cnt_8", IB_QPT_RC, IB_QPS_RTR, IB_QPS_RTS, RC_RTS, -EINVAL, retry_8 },
	{ "rnr_retry_8", IB_QPT_RC, IB_QPS_RTR, IB_QPS_RTS, RC_RTS, -EINVAL, rnr_retry_8 },
	{ "timeout_32", IB_QPT_RC, IB_QPS_RTR, IB_QPS_RTS, RC_RTS, -EINVAL, timeout_32 },
	{ "rd_atomic_too_many", IB_QPT_RC, IB_QPS_RTR, IB_QPS_RTS, RC_RTS,
	  -EINVAL, rd_atomic_big },
	{ "port_2", IB_QPT_RC, IB_QPS_RESET, IB_QPS_INIT, RC_INIT, -EINVAL, port_2 },
	{ "pkey_index_1", IB_QPT_UD, IB_QPS_RESET, IB_QPS_INIT, UD_INIT, -EINVAL, pkey_1 },
	{ "cur_state_wrong", IB_QPT_RC, IB_QPS_RTS, IB_QPS_RTS,
	  IB_QP_STATE | IB_QP_CUR_STATE, -EINVAL, cur_wrong },
	/* What vrnic does not offer. */
	{ "alt_path", IB_QPT_RC, IB_QPS_RTR, IB_QPS_RTS, RC_RTS | IB_QP_ALT_PATH,
	  -EOPNOTSUPP },
	/* No alternate path, so the migration state is MIGRATED only. */
	{ "path_mig_migrated", IB_QPT_RC, IB_QPS_RTR, IB_QPS_RTS,
	  RC_RTS | IB_QP_PATH_MIG_STATE, 0, mig_migrated },
	{ "path_mig_rearm", IB_QPT_RC, IB_QPS_RTS, IB_QPS_RTS,
	  IB_QP_STATE | IB_QP_PATH_MIG_STATE, -EINVAL, mig_rearm },
	{ "path_mig_armed", IB_QPT_UC, IB_QPS_RTR, IB_QPS_RTS,
	  IB_QP_STATE | IB_QP_SQ_PSN | IB_QP_PATH_MIG_STATE, -EINVAL,
	  mig_armed },
	{ "non_standard_bit", IB_QPT_RC, IB_QPS_RTS, IB_QPS_RTS,
	  IB_QP_STATE | IB_QP_RATE_LIMIT, -EOPNOTSUPP },
};

static void qp_case_desc(const struct qp_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(qp, qp_cases, qp_case_desc);

static void vrnic_qp_modify_table(struct kunit *test)
{
	const struct qp_case *c = test->param_value;
	struct ib_qp_attr attr = {
		.qp_state = c->to,
		.cur_qp_state = c->from,
		.port_num = VRNIC_PORT,
		.path_mtu = IB_MTU_1024,
		.timeout = 14,
		.retry_cnt = 7,
		.rnr_retry = 7,
		.min_rnr_timer = 12,
		.max_rd_atomic = 16,
		.max_dest_rd_atomic = 16,
	};

	attr.ah_attr.type = RDMA_AH_ATTR_TYPE_ROCE;
	attr.ah_attr.ah_flags = IB_AH_GRH;
	attr.ah_attr.grh.sgid_attr = &test_sgid_attr;
	if (c->spoil)
		c->spoil(&attr);

	KUNIT_EXPECT_EQ(test, vrnic_qp_modify_check(&test_dattr, c->from, c->type,
						    &attr, c->mask), c->want);
}

/* The name table covers every state and answers "?" beyond it. */
static void vrnic_qp_state_names(struct kunit *test)
{
	KUNIT_EXPECT_STREQ(test, vrnic_qp_state_name(IB_QPS_RESET), "RESET");
	KUNIT_EXPECT_STREQ(test, vrnic_qp_state_name(IB_QPS_INIT), "INIT");
	KUNIT_EXPECT_STREQ(test, vrnic_qp_state_name(IB_QPS_RTR), "RTR");
	KUNIT_EXPECT_STREQ(test, vrnic_qp_state_name(IB_QPS_RTS), "RTS");
	KUNIT_EXPECT_STREQ(test, vrnic_qp_state_name(IB_QPS_SQD), "SQD");
	KUNIT_EXPECT_STREQ(test, vrnic_qp_state_name(IB_QPS_SQE), "SQE");
	KUNIT_EXPECT_STREQ(test, vrnic_qp_state_name(IB_QPS_ERR), "ERR");
	KUNIT_EXPECT_STREQ(test, vrnic_qp_state_name(IB_QPS_ERR + 1), "?");
	KUNIT_EXPECT_STREQ(test, vrnic_qp_state_name(-1), "?");
}

/*
 * The retransmit timer: the QP's timeout (14: 4 us << 14 = 65536 us, a
 * little under IBA's 4.096 us << 14),
 * or, adaptive with an RTT estimate, SRTT + 4 RTTVAR (5 ms at least),
 * doubled per timeout in a row, never past the QP's own.
 */
static void vrnic_qp_rto(struct kunit *test)
{
	/* No estimate, or adaptive off: the QP's timeout. */
	KUNIT_EXPECT_EQ(test, vrnic_comp_rto_us(14, true, 0, 0, 0), 65536ULL);
	KUNIT_EXPECT_EQ(test, vrnic_comp_rto_us(14, false, 2000, 500, 0), 65536ULL);
	/* A timeout below the floor is raised to it; 0 means 1 s. */
	KUNIT_EXPECT_EQ(test, vrnic_comp_rto_us(1, false, 0, 0, 0), 5000ULL);
	KUNIT_EXPECT_EQ(test, vrnic_comp_rto_us(0, false, 0, 0, 0), 1000000ULL);
	/* 2 ms RTT, 0.5 ms deviation: 4 ms, floored at 5 ms. */
	KUNIT_EXPECT_EQ(test, vrnic_comp_rto_us(14, true, 2000, 500, 0), 5000ULL);
	/* 4 ms, 1 ms: 8 ms; then 16 and 32 after timeouts; then capped. */
	KUNIT_EXPECT_EQ(test, vrnic_comp_rto_us(14, true, 4000, 1000, 0), 8000ULL);
	KUNIT_EXPECT_EQ(test, vrnic_comp_rto_us(14, true, 4000, 1000, 1), 16000ULL);
	KUNIT_EXPECT_EQ(test, vrnic_comp_rto_us(14, true, 4000, 1000, 2), 32000ULL);
	KUNIT_EXPECT_EQ(test, vrnic_comp_rto_us(14, true, 4000, 1000, 4), 65536ULL);
	KUNIT_EXPECT_EQ(test, vrnic_comp_rto_us(14, true, 4000, 1000, 99), 65536ULL);
	/* An RTT longer than the QP's timeout never lengthens it. */
	KUNIT_EXPECT_EQ(test, vrnic_comp_rto_us(10, true, 100000, 0, 0), 5000ULL);
}

/* RFC 6298: the first sample seeds, the next ones move 1/8 and 1/4. */
static void vrnic_qp_rtt_estimate(struct kunit *test)
{
	u32 srtt = 0, var = 0;
	int i;

	vrnic_rtt_update(&srtt, &var, 800);
	KUNIT_EXPECT_EQ(test, srtt, 800U);
	KUNIT_EXPECT_EQ(test, var, 400U);
	vrnic_rtt_update(&srtt, &var, 1600);
	KUNIT_EXPECT_EQ(test, srtt, 900U);		/* (7 * 800 + 1600) / 8 */
	KUNIT_EXPECT_EQ(test, var, 500U);		/* (3 * 400 + 800) / 4 */
	/* A zero sample counts as 1 us: the estimate never reads "none". */
	srtt = 0;
	vrnic_rtt_update(&srtt, &var, 0);
	KUNIT_EXPECT_EQ(test, srtt, 1U);
	/* A huge sample is bounded, and the sums do not wrap. */
	for (i = 0; i < 64; i++)
		vrnic_rtt_update(&srtt, &var, U64_MAX);
	KUNIT_EXPECT_GT(test, srtt, U32_MAX / 16);
	KUNIT_EXPECT_LE(test, srtt, U32_MAX / 8);
	/* Steady samples converge, and the deviation decays. */
	for (i = 0; i < 200; i++)
		vrnic_rtt_update(&srtt, &var, 1000);
	KUNIT_EXPECT_LE(test, srtt, 1010U);
	KUNIT_EXPECT_LE(test, var, 10U);
}

/*
 * The send window's ceiling: a loss halves it to no less than the floor
 * (64, or max_inflight below that); progress raises it a PSN at a time,
 * never past max_inflight, even when max_inflight was lowered meanwhile.
 */
static void vrnic_qp_window_ceiling(struct kunit *test)
{
	u32 c = 128;
	int i;

	KUNIT_EXPECT_EQ(test, vrnic_window_ceiling_lost(128, 128), 64U);
	KUNIT_EXPECT_EQ(test, vrnic_window_ceiling_lost(64, 128), 64U);
	KUNIT_EXPECT_EQ(test, vrnic_window_ceiling_lost(1024, 1024), 512U);
	KUNIT_EXPECT_EQ(test, vrnic_window_ceiling_lost(100, 1024), 64U);
	/* A window set below the floor stays where it was set. */
	KUNIT_EXPECT_EQ(test, vrnic_window_ceiling_lost(16, 16), 16U);
	KUNIT_EXPECT_EQ(test, vrnic_window_ceiling_lost(1, 1), 1U);
	/* max_inflight lowered under a ceiling: the new one counts. */
	KUNIT_EXPECT_EQ(test, vrnic_window_ceiling_lost(1024, 32), 32U);
	KUNIT_EXPECT_EQ(test, vrnic_window_ceiling_grown(1024, 32), 32U);
	KUNIT_EXPECT_EQ(test, vrnic_window_ceiling_grown(64, 128), 65U);
	KUNIT_EXPECT_EQ(test, vrnic_window_ceiling_grown(128, 128), 128U);
	/* From a loss back to the top: one acknowledgment per PSN. */
	c = vrnic_window_ceiling_lost(c, 128);
	for (i = 0; i < 63; i++)
		c = vrnic_window_ceiling_grown(c, 128);
	KUNIT_EXPECT_EQ(test, c, 127U);
	c = vrnic_window_ceiling_grown(c, 128);
	KUNIT_EXPECT_EQ(test, c, 128U);
}

/*
 * What READs keep in flight: a QP starts at 128 response packets, the
 * first loss halves that, and no later loss takes it below 64 (the most
 * seen not to overrun a receiving guest's ring on the UDP socket link).
 */
static void vrnic_qp_read_ceiling(struct kunit *test)
{
	struct vrnic_qp *qp = kunit_kzalloc(test, sizeof(*qp), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, qp);
	vrnic_comp_start(qp);
	KUNIT_EXPECT_EQ(test, qp->comp.read_ceiling, 128U);
	KUNIT_EXPECT_EQ(test, vrnic_read_ceiling_lost(128), 64U);
	KUNIT_EXPECT_EQ(test, vrnic_read_ceiling_lost(64), 64U);
	KUNIT_EXPECT_EQ(test, vrnic_read_ceiling_lost(100), 64U);
}

/*
 * A duplicate READ is read again only as a resend of a recorded READ:
 * 64 KiB at 0x10000 under rkey 0x1234, PSNs 0xfffff8..0x000007 at a
 * 4096-byte MTU (16 responses, the PSN space wrapping in between).
 */
static void vrnic_qp_replay_read_match(struct kunit *test)
{
	const struct vrnic_rd_replay r = {
		.kind = VRNIC_REPLAY_READ, .psn = 0xfffff8, .npsn = 16,
		.va = 0x10000, .len = 0x10000, .rkey = 0x1234,
	};
	struct vrnic_rd_replay atomic = r, none = r;
	const u32 mtu = 4096;

	static const struct {
		u32 psn;
		u64 va;
		u32 len, rkey;
		bool match;
	} dups[] = {
		/* The same READ again, and a resend from each later response. */
		{ 0xfffff8, 0x10000, 0x10000, 0x1234, true },
		{ 0xfffffb, 0x13000, 0xd000, 0x1234, true },
		{ 0x000007, 0x1f000, 0x1000, 0x1234, true },
		/* A part of the rest (rxe's rule: a subset). */
		{ 0x000002, 0x1a000, 0x100, 0x1234, true },
		/* Another rkey, or a PSN before or past the READ's responses. */
		{ 0xfffff8, 0x10000, 0x10000, 0x1235, false },
		{ 0xfffff7, 0x10000, 0x10000, 0x1234, false },
		{ 0x000008, 0x1f000, 0x1000, 0x1234, false },
		/* A byte before, or past, what the READ asked for. */
		{ 0xfffff8, 0xffff, 0x1000, 0x1234, false },
		{ 0xfffff8, 0x10000, 0x10001, 0x1234, false },
		{ 0x000007, 0x1f000, 0x1001, 0x1234, false },
		/* Within the bytes, but responses past the READ's last PSN. */
		{ 0x000007, 0x10000, 0x2000, 0x1234, false },
		/* An address that wraps cannot pass as a subset. */
		{ 0xfffff8, U64_MAX, 0x10, 0x1234, false },
	};
	unsigned int i;

	KUNIT_EXPECT_EQ(test, vrnic_read_npsn(0x10000, mtu), 16U);
	KUNIT_EXPECT_EQ(test, vrnic_read_npsn(0x10001, mtu), 17U);
	KUNIT_EXPECT_EQ(test, vrnic_read_npsn(0, mtu), 1U);
	for (i = 0; i < ARRAY_SIZE(dups); i++)
		KUNIT_EXPECT_EQ_MSG(test, vrnic_replay_read_match(&r, dups[i].psn,
								  dups[i].va, dups[i].len,
								  dups[i].rkey, mtu),
				    dups[i].match, "case %u", i);
	/* An atomic's record, or an empty slot, answers no READ. */
	atomic.kind = VRNIC_REPLAY_ATOMIC;
	none.kind = VRNIC_REPLAY_NONE;
	KUNIT_EXPECT_FALSE(test, vrnic_replay_read_match(&atomic, 0xfffff8, 0x10000,
							 0x10000, 0x1234, mtu));
	KUNIT_EXPECT_FALSE(test, vrnic_replay_read_match(&none, 0xfffff8, 0x10000,
							 0x10000, 0x1234, mtu));
}

/*
 * Issue 17, item 3: a lockless lookup (xa_load, then the reference try)
 * that loaded a QP's table entry, or an MR, just before destroy took it
 * out of the table, tries the count after destroy has returned.  The entry
 * must still be memory then, at zero users: freed a grace period later.
 * With a plain kfree() in destroy, the try below reads freed memory and
 * KASAN fails the case.  The steps are destroy's own (vrnic_destroy_qp(),
 * vrnic_dereg_mr()), in one thread, inside the lookup's RCU section.
 */
static struct vrnic_qp test_qp;
/* Static: lockdep keys an xarray's lock by where it lives. */
static DEFINE_XARRAY(qps);
static DEFINE_XARRAY(mrs);

static void vrnic_qp_lookup_outlives_destroy(struct kunit *test)
{
	struct vrnic_qp_ref *ref, *found;
	struct vrnic_mr *mr, *mfound;
	const u32 qpn = 17, key = 3 << 8 | 0x2a;

	ref = kmalloc(sizeof(*ref), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ref);
	refcount_set(&ref->users, 1);
	init_completion(&ref->done);
	ref->qp = &test_qp;
	KUNIT_ASSERT_EQ(test, xa_insert(&qps, qpn, ref, GFP_KERNEL), 0);

	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, mr);
	refcount_set(&mr->users, 1);
	init_completion(&mr->done);
	mr->ibmr.lkey = key;
	KUNIT_ASSERT_EQ(test, xa_insert(&mrs, vrnic_key_index(key), mr,
					GFP_KERNEL), 0);

	/* A live entry: the lookup gets the object, a stale key gets none. */
	rcu_read_lock();
	KUNIT_EXPECT_PTR_EQ(test, vrnic_qp_ref_try(xa_load(&qps, qpn)), &test_qp);
	KUNIT_EXPECT_PTR_EQ(test, vrnic_mr_try(xa_load(&mrs, 3), key), mr);
	KUNIT_EXPECT_NULL(test, vrnic_mr_try(xa_load(&mrs, 3), key ^ 1));
	rcu_read_unlock();
	vrnic_qp_ref_put(ref);
	vrnic_mr_put(mr);

	rcu_read_lock();
	found = xa_load(&qps, qpn);
	mfound = xa_load(&mrs, 3);
	/* Destroy and dereg run to their end between the load and the try. */
	xa_erase(&qps, qpn);
	vrnic_qp_ref_put(ref);
	KUNIT_EXPECT_TRUE(test, completion_done(&ref->done));
	vrnic_qp_ref_retire(ref);
	xa_erase(&mrs, 3);
	vrnic_mr_put(mr);
	KUNIT_EXPECT_TRUE(test, completion_done(&mr->done));
	vrnic_mr_retire(mr);

	KUNIT_EXPECT_NULL(test, vrnic_qp_ref_try(found));
	KUNIT_EXPECT_NULL(test, vrnic_mr_try(mfound, key));
	rcu_read_unlock();
	/* Both are freed before the case ends (kmemleak). */
	rcu_barrier();
}

/*
 * The retransmit timer fired while a response waited in the QP's queue;
 * the QP's work took the response first, which restarted the timer, and
 * then the expiry.  That expiry is stale and must change nothing.  Taken
 * as one, it resent a window that was being acknowledged (a 4-QP WRITE
 * on the tap link, a few times a round).  Seen here through the RNR
 * branch: a stale expiry during an RNR wait moved the pending timer.
 * And a send must not restart a timer that fired until its expiry has
 * been taken.
 */
static void vrnic_qp_test_timer_fn(struct timer_list *t)
{
}

static void vrnic_qp_timer_stale(struct kunit *test)
{
	struct vrnic_qp *qp = kunit_kzalloc(test, sizeof(*qp), GFP_KERNEL);
	unsigned long far;

	KUNIT_ASSERT_NOT_NULL(test, qp);
	qp->ibqp.qp_type = IB_QPT_RC;
	set_bit(VRNIC_QP_RUNNING, &qp->engine);
	timer_setup(&qp->timer, vrnic_qp_test_timer_fn, 0);

	KUNIT_EXPECT_FALSE(test, vrnic_comp_timer_armed(qp));
	/* Fired, its expiry not yet taken: still armed for the requester. */
	WRITE_ONCE(qp->timed_out, true);
	KUNIT_EXPECT_TRUE(test, vrnic_comp_timer_armed(qp));
	WRITE_ONCE(qp->timed_out, false);

	/* Restarted by a response: the expiry taken now is stale. */
	far = jiffies + 100 * HZ;
	mod_timer(&qp->timer, far);
	KUNIT_EXPECT_TRUE(test, vrnic_comp_timer_armed(qp));
	qp->comp.rnr_until = jiffies + 50 * HZ;
	vrnic_comp_timeout(qp);
	KUNIT_EXPECT_EQ(test, qp->timer.expires, far);
	KUNIT_EXPECT_FALSE(test, qp->comp.rnr_wait);

	/* Not restarted: the expiry is taken, and the RNR wait re-arms. */
	del_timer_sync(&qp->timer);
	vrnic_comp_timeout(qp);
	KUNIT_EXPECT_TRUE(test, qp->comp.rnr_wait);
	KUNIT_EXPECT_EQ(test, qp->timer.expires, qp->comp.rnr_until + 1);
	del_timer_sync(&qp->timer);
}

static struct kunit_case vrnic_qp_cases[] = {
	KUNIT_CASE_PARAM(vrnic_qp_modify_table, qp_gen_params),
	KUNIT_CASE(vrnic_qp_state_names),
	KUNIT_CASE(vrnic_qp_rto),
	KUNIT_CASE(vrnic_qp_rtt_estimate),
	KUNIT_CASE(vrnic_qp_window_ceiling),
	KUNIT_CASE(vrnic_qp_read_ceiling),
	KUNIT_CASE(vrnic_qp_timer_stale),
	KUNIT_CASE(vrnic_qp_replay_read_match),
	KUNIT_CASE(vrnic_qp_lookup_outlives_destroy),
	{}
};

static struct kunit_suite vrnic_qp_suite = {
	.name = "vrnic_qp",
	.test_cases = vrnic_qp_cases,
};

kunit_test_suites(&vrnic_qp_suite);
