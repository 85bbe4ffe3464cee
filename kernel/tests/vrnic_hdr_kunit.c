// SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
/*
 * KUnit tests for vrnic's wire formats: header accessors, the opcode table,
 * and the transport header builder and parser.
 *
 * The expected layouts below are written out from IBTA Vol 1 (9.2, 9.3 and
 * the 1.5 additions) independently of vrnic_opcode.c, so that a slip in the
 * table shows up here instead of on the wire.
 *
 * Copyright (c) 2026 The vrnic authors
 */

#include <kunit/test.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "wire/vrnic_hdr.h"
#include "wire/vrnic_opcode.h"

/* KUNIT_EXPECT_MEMEQ() arrived in 6.2; Debian 12's 6.1 is the target. */
#define EXPECT_BYTES_EQ(test, got, want, n)				\
	KUNIT_EXPECT_TRUE_MSG(test, !memcmp(got, want, n),		\
			      "got %*ph, want %*ph", (int)(n), got,	\
			      (int)(n), want)

/* ------------------------------------------------------------------------
 * Header layouts and accessors
 */

static void vrnic_hdr_field_offsets(struct kunit *test)
{
	/* Where each field sits inside its header (9.2, 9.3). */
	KUNIT_EXPECT_EQ(test, offsetof(struct vrnic_bth, pkey), 2);
	KUNIT_EXPECT_EQ(test, offsetof(struct vrnic_bth, qpn), 4);
	KUNIT_EXPECT_EQ(test, offsetof(struct vrnic_bth, apsn), 8);
	KUNIT_EXPECT_EQ(test, offsetof(struct vrnic_reth, rkey), 8);
	KUNIT_EXPECT_EQ(test, offsetof(struct vrnic_reth, len), 12);
	KUNIT_EXPECT_EQ(test, offsetof(struct vrnic_atmeth, rkey), 8);
	KUNIT_EXPECT_EQ(test, offsetof(struct vrnic_atmeth, swap_add), 12);
	KUNIT_EXPECT_EQ(test, offsetof(struct vrnic_atmeth, compare), 20);
	KUNIT_EXPECT_EQ(test, offsetof(struct vrnic_deth, sqp), 4);
}

struct bth_case {
	const char *name;
	u8 opcode;
	bool se, migreq, ackreq;
	unsigned int pad;
	u16 pkey;
	u32 qpn, psn;
	u8 wire[VRNIC_BTH_BYTES];
};

static const struct bth_case bth_cases[] = {
	{
		/* An RC SEND ONLY of 21 bytes as rdma_rxe sent it. */
		.name = "rxe_send_only", .opcode = 0x04, .pad = 3,
		.pkey = 0xffff, .qpn = 0x11, .ackreq = true, .psn = 0x660b91,
		.wire = { 0x04, 0x30, 0xff, 0xff, 0x00, 0x00, 0x00, 0x11,
			  0x80, 0x66, 0x0b, 0x91 },
	},
	{
		.name = "all_flags", .opcode = 0x0b, .se = true, .migreq = true,
		.pad = 1, .pkey = 0x8001, .qpn = 0xffffff, .ackreq = true,
		.psn = 0xffffff,
		.wire = { 0x0b, 0xd0, 0x80, 0x01, 0x00, 0xff, 0xff, 0xff,
			  0x80, 0xff, 0xff, 0xff },
	},
	{
		.name = "all_clear", .opcode = 0x64, .pkey = 0, .qpn = 0,
		.psn = 0,
		.wire = { 0x64, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
			  0x00, 0x00, 0x00, 0x00 },
	},
	{
		/* Bits above 24 in a QPN or PSN must not leak into the BTH. */
		.name = "wide_qpn_psn", .opcode = 0x11, .pkey = 0x1234,
		.qpn = 0xff000001, .psn = 0x7f800002,
		.wire = { 0x11, 0x00, 0x12, 0x34, 0x00, 0x00, 0x00, 0x01,
			  0x00, 0x80, 0x00, 0x02 },
	},
};

static void bth_case_desc(const struct bth_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(bth, bth_cases, bth_case_desc);

static void vrnic_hdr_bth_set_get(struct kunit *test)
{
	const struct bth_case *c = test->param_value;
	struct vrnic_bth bth;

	/* Start from all ones: setters must clear what they own. */
	memset(&bth, 0xff, sizeof(bth));
	vrnic_bth_set_opcode(&bth, c->opcode);
	vrnic_bth_set_se(&bth, c->se);
	vrnic_bth_set_migreq(&bth, c->migreq);
	vrnic_bth_set_pad(&bth, c->pad);
	vrnic_bth_set_tver(&bth, VRNIC_BTH_TVER);
	vrnic_bth_set_pkey(&bth, c->pkey);
	vrnic_bth_set_qpn(&bth, c->qpn);
	vrnic_bth_set_ackreq(&bth, c->ackreq);
	vrnic_bth_set_psn(&bth, c->psn);
	/* resv7 is not owned by a setter: clear it as a sender does. */
	bth.apsn &= cpu_to_be32(VRNIC_BTH_ACKREQ | VRNIC_PSN_MASK);

	EXPECT_BYTES_EQ(test, &bth, c->wire, sizeof(c->wire));
	KUNIT_EXPECT_EQ(test, vrnic_bth_opcode(&bth), c->opcode);
	KUNIT_EXPECT_EQ(test, vrnic_bth_se(&bth), c->se);
	KUNIT_EXPECT_EQ(test, vrnic_bth_migreq(&bth), c->migreq);
	KUNIT_EXPECT_EQ(test, vrnic_bth_pad(&bth), c->pad);
	KUNIT_EXPECT_EQ(test, vrnic_bth_tver(&bth), 0);
	KUNIT_EXPECT_EQ(test, vrnic_bth_pkey(&bth), c->pkey);
	KUNIT_EXPECT_EQ(test, vrnic_bth_qpn(&bth), c->qpn & VRNIC_QPN_MASK);
	KUNIT_EXPECT_EQ(test, vrnic_bth_ackreq(&bth), c->ackreq);
	KUNIT_EXPECT_EQ(test, vrnic_bth_psn(&bth), c->psn & VRNIC_PSN_MASK);
}

static void vrnic_hdr_bth_build_matches_setters(struct kunit *test)
{
	const struct bth_case *c = test->param_value;
	struct vrnic_bth_fields f = {
		.opcode = c->opcode, .se = c->se, .migreq = c->migreq,
		.ackreq = c->ackreq, .pad = c->pad, .pkey = c->pkey,
		.qpn = c->qpn, .psn = c->psn,
	};
	u8 buf[VRNIC_MAX_HDR_BYTES];

	memset(buf, 0xa5, sizeof(buf));
	KUNIT_ASSERT_EQ(test, vrnic_build_hdrs(buf, sizeof(buf), &f),
			vrnic_hdr_len(c->opcode));
	EXPECT_BYTES_EQ(test, buf, c->wire, sizeof(c->wire));
}

static void vrnic_hdr_bth_setters_keep_neighbours(struct kunit *test)
{
	struct vrnic_bth bth = {};

	/* Fields that share a byte or word with another one. */
	vrnic_bth_set_se(&bth, true);
	vrnic_bth_set_tver(&bth, 0xf);
	vrnic_bth_set_pad(&bth, 2);
	KUNIT_EXPECT_TRUE(test, vrnic_bth_se(&bth));
	KUNIT_EXPECT_EQ(test, vrnic_bth_tver(&bth), 0xf);
	vrnic_bth_set_pad(&bth, 0);
	vrnic_bth_set_se(&bth, false);
	KUNIT_EXPECT_EQ(test, vrnic_bth_tver(&bth), 0xf);
	KUNIT_EXPECT_EQ(test, bth.flags, 0x0f);

	vrnic_bth_set_ackreq(&bth, true);
	vrnic_bth_set_psn(&bth, 0x123456);
	KUNIT_EXPECT_TRUE(test, vrnic_bth_ackreq(&bth));
	vrnic_bth_set_ackreq(&bth, false);
	KUNIT_EXPECT_EQ(test, vrnic_bth_psn(&bth), 0x123456);

	/* resv8a (FECN/BECN) is ignored on receive. */
	bth.qpn = cpu_to_be32(0xc0000042);
	KUNIT_EXPECT_EQ(test, vrnic_bth_qpn(&bth), 0x42);
}

struct aeth_case {
	const char *name;
	u8 syndrome;
	u32 msn;
	u8 type, value;
	u8 wire[4];
};

static const struct aeth_case aeth_cases[] = {
	{ "ack_no_credits", 0x1f, 0x000001, VRNIC_AETH_ACK,
	  VRNIC_AETH_CREDITS_INVALID, { 0x1f, 0x00, 0x00, 0x01 } },
	{ "ack_credits_5", 0x05, 0xffffff, VRNIC_AETH_ACK, 5,
	  { 0x05, 0xff, 0xff, 0xff } },
	{ "rnr_nak_timer_14", 0x2e, 0x123456, VRNIC_AETH_RNR_NAK, 14,
	  { 0x2e, 0x12, 0x34, 0x56 } },
	{ "nak_psn_seq", VRNIC_AETH_NAK_PSN_SEQ_ERR, 7, VRNIC_AETH_NAK, 0,
	  { 0x60, 0x00, 0x00, 0x07 } },
	{ "nak_invalid_req", VRNIC_AETH_NAK_INVALID_REQ, 0, VRNIC_AETH_NAK, 1,
	  { 0x61, 0x00, 0x00, 0x00 } },
	{ "nak_rem_access", VRNIC_AETH_NAK_REM_ACCESS_ERR, 0, VRNIC_AETH_NAK, 2,
	  { 0x62, 0x00, 0x00, 0x00 } },
	{ "nak_rem_op", VRNIC_AETH_NAK_REM_OP_ERR, 0, VRNIC_AETH_NAK, 3,
	  { 0x63, 0x00, 0x00, 0x00 } },
	{ "nak_invalid_rd_req", VRNIC_AETH_NAK_INVALID_RD_REQ, 0,
	  VRNIC_AETH_NAK, 4, { 0x64, 0x00, 0x00, 0x00 } },
};

static void aeth_case_desc(const struct aeth_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(aeth, aeth_cases, aeth_case_desc);

static void vrnic_hdr_aeth_syndrome(struct kunit *test)
{
	const struct aeth_case *c = test->param_value;
	struct vrnic_aeth aeth;

	vrnic_aeth_set(&aeth, c->syndrome, c->msn);
	EXPECT_BYTES_EQ(test, &aeth, c->wire, sizeof(c->wire));
	KUNIT_EXPECT_EQ(test, vrnic_aeth_syndrome(&aeth), c->syndrome);
	KUNIT_EXPECT_EQ(test, vrnic_aeth_type(&aeth), c->type);
	KUNIT_EXPECT_EQ(test, vrnic_aeth_value(&aeth), c->value);
	KUNIT_EXPECT_EQ(test, vrnic_aeth_msn(&aeth), c->msn);
}

static void vrnic_hdr_ext_headers_wire_order(struct kunit *test)
{
	static const u8 reth_wire[] = {
		0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,
		0xde, 0xad, 0xbe, 0xef, 0x00, 0x00, 0x10, 0x00 };
	static const u8 atmeth_wire[] = {
		0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,
		0x00, 0x00, 0x12, 0x34,
		0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8,
		0xc1, 0xc2, 0xc3, 0xc4, 0xc5, 0xc6, 0xc7, 0xc8 };
	static const u8 deth_wire[] = {
		0x80, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01 };
	static const u8 atmack_wire[] = {
		0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10 };
	static const u8 feth_wire[] = { 0x00, 0x00, 0x00, 0x21 };
	static const u8 ieth_wire[] = { 0x5a, 0x5a, 0x00, 0x01 };
	static const u8 immdt_wire[] = { 0xca, 0xfe, 0xf0, 0x0d };
	struct vrnic_reth reth;
	struct vrnic_atmeth atmeth;
	struct vrnic_deth deth;
	struct vrnic_atmack atmack;
	struct vrnic_feth feth;
	struct vrnic_ieth ieth;
	struct vrnic_immdt immdt;

	/* Every multi-byte field is big-endian on the wire (9.2). */
	vrnic_reth_set(&reth, 0x0123456789abcdefULL, 0xdeadbeef, 0x1000);
	EXPECT_BYTES_EQ(test, &reth, reth_wire, sizeof(reth_wire));
	KUNIT_EXPECT_EQ(test, vrnic_reth_va(&reth), 0x0123456789abcdefULL);
	KUNIT_EXPECT_EQ(test, vrnic_reth_rkey(&reth), 0xdeadbeef);
	KUNIT_EXPECT_EQ(test, vrnic_reth_len(&reth), 0x1000);

	vrnic_atmeth_set(&atmeth, 0x1122334455667788ULL, 0x1234,
			 0xa1a2a3a4a5a6a7a8ULL, 0xc1c2c3c4c5c6c7c8ULL);
	EXPECT_BYTES_EQ(test, &atmeth, atmeth_wire, sizeof(atmeth_wire));
	KUNIT_EXPECT_EQ(test, vrnic_atmeth_va(&atmeth), 0x1122334455667788ULL);
	KUNIT_EXPECT_EQ(test, vrnic_atmeth_rkey(&atmeth), 0x1234);
	KUNIT_EXPECT_EQ(test, vrnic_atmeth_swap_add(&atmeth),
			0xa1a2a3a4a5a6a7a8ULL);
	KUNIT_EXPECT_EQ(test, vrnic_atmeth_compare(&atmeth),
			0xc1c2c3c4c5c6c7c8ULL);

	vrnic_deth_set(&deth, VRNIC_GSI_QKEY, 0xff000001);
	EXPECT_BYTES_EQ(test, &deth, deth_wire, sizeof(deth_wire));
	KUNIT_EXPECT_EQ(test, vrnic_deth_qkey(&deth), VRNIC_GSI_QKEY);
	KUNIT_EXPECT_EQ(test, vrnic_deth_sqp(&deth), 1);

	vrnic_atmack_set(&atmack, 0xfedcba9876543210ULL);
	EXPECT_BYTES_EQ(test, &atmack, atmack_wire, sizeof(atmack_wire));
	KUNIT_EXPECT_EQ(test, vrnic_atmack_orig(&atmack),
			0xfedcba9876543210ULL);

	vrnic_feth_set(&feth, 1, 2);
	EXPECT_BYTES_EQ(test, &feth, feth_wire, sizeof(feth_wire));
	KUNIT_EXPECT_EQ(test, vrnic_feth_plt(&feth), 1);
	KUNIT_EXPECT_EQ(test, vrnic_feth_sel(&feth), 2);

	vrnic_ieth_set(&ieth, 0x5a5a0001);
	EXPECT_BYTES_EQ(test, &ieth, ieth_wire, sizeof(ieth_wire));
	KUNIT_EXPECT_EQ(test, vrnic_ieth_rkey(&ieth), 0x5a5a0001);

	/* Immediate data is opaque: it is stored as given. */
	vrnic_immdt_set(&immdt, cpu_to_be32(0xcafef00d));
	EXPECT_BYTES_EQ(test, &immdt, immdt_wire, sizeof(immdt_wire));
	KUNIT_EXPECT_EQ(test, be32_to_cpu(vrnic_immdt_imm(&immdt)), 0xcafef00d);
}

static void vrnic_hdr_pad_for(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, vrnic_pad_for(0), 0);
	KUNIT_EXPECT_EQ(test, vrnic_pad_for(1), 3);
	KUNIT_EXPECT_EQ(test, vrnic_pad_for(2), 2);
	KUNIT_EXPECT_EQ(test, vrnic_pad_for(3), 1);
	KUNIT_EXPECT_EQ(test, vrnic_pad_for(4), 0);
	KUNIT_EXPECT_EQ(test, vrnic_pad_for(4097), 3);
}

/* ------------------------------------------------------------------------
 * The opcode table
 */

/* Flag sets, spelled out from the IBTA opcode list. */
#define E_REQ_RC	(VRNIC_OPF_REQ | VRNIC_OPF_ACKED)
#define E_REQ	VRNIC_OPF_REQ
#define E_RESP	VRNIC_OPF_RESP
#define E_FIRST	VRNIC_OPF_FIRST
#define E_MIDDLE	VRNIC_OPF_MIDDLE
#define E_LAST	VRNIC_OPF_LAST
#define E_ONLY	VRNIC_OPF_ONLY
#define E_PAY	VRNIC_OPF_PAYLOAD
#define E_RWR	VRNIC_OPF_RWR
#define E_SEND	(VRNIC_OPF_SEND | E_PAY | E_RWR)
#define E_WRITE	(VRNIC_OPF_WRITE | E_PAY)
#define E_RRESP	(VRNIC_OPF_READ_RESP | E_PAY | E_RESP)

struct op_case {
	u8 opcode;
	const char *name;
	u16 hdrs;		/* extension headers, in wire order */
	unsigned int len;	/* header length, BTH included */
	u32 flags;
};

static const struct op_case op_cases[] = {
	{ 0x00, "RC_SEND_FIRST", 0, 12, E_REQ_RC | E_SEND | E_FIRST },
	{ 0x01, "RC_SEND_MIDDLE", 0, 12, E_REQ_RC | E_SEND | E_MIDDLE },
	{ 0x02, "RC_SEND_LAST", 0, 12, E_REQ_RC | E_SEND | E_LAST },
	{ 0x03, "RC_SEND_LAST_WITH_IMMEDIATE", VRNIC_H_IMMDT, 16,
	  E_REQ_RC | E_SEND | E_LAST },
	{ 0x04, "RC_SEND_ONLY", 0, 12, E_REQ_RC | E_SEND | E_ONLY },
	{ 0x05, "RC_SEND_ONLY_WITH_IMMEDIATE", VRNIC_H_IMMDT, 16,
	  E_REQ_RC | E_SEND | E_ONLY },
	{ 0x06, "RC_RDMA_WRITE_FIRST", VRNIC_H_RETH, 28,
	  E_REQ_RC | E_WRITE | E_FIRST },
	{ 0x07, "RC_RDMA_WRITE_MIDDLE", 0, 12, E_REQ_RC | E_WRITE | E_MIDDLE },
	{ 0x08, "RC_RDMA_WRITE_LAST", 0, 12, E_REQ_RC | E_WRITE | E_LAST },
	{ 0x09, "RC_RDMA_WRITE_LAST_WITH_IMMEDIATE", VRNIC_H_IMMDT, 16,
	  E_REQ_RC | E_WRITE | E_LAST | E_RWR },
	{ 0x0a, "RC_RDMA_WRITE_ONLY", VRNIC_H_RETH, 28,
	  E_REQ_RC | E_WRITE | E_ONLY },
	{ 0x0b, "RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE",
	  VRNIC_H_RETH | VRNIC_H_IMMDT, 32, E_REQ_RC | E_WRITE | E_ONLY | E_RWR },
	{ 0x0c, "RC_RDMA_READ_REQUEST", VRNIC_H_RETH, 28,
	  E_REQ_RC | VRNIC_OPF_READ | E_ONLY },
	{ 0x0d, "RC_RDMA_READ_RESPONSE_FIRST", VRNIC_H_AETH, 16,
	  E_RRESP | E_FIRST },
	{ 0x0e, "RC_RDMA_READ_RESPONSE_MIDDLE", 0, 12, E_RRESP | E_MIDDLE },
	{ 0x0f, "RC_RDMA_READ_RESPONSE_LAST", VRNIC_H_AETH, 16, E_RRESP | E_LAST },
	{ 0x10, "RC_RDMA_READ_RESPONSE_ONLY", VRNIC_H_AETH, 16, E_RRESP | E_ONLY },
	{ 0x11, "RC_ACKNOWLEDGE", VRNIC_H_AETH, 16,
	  E_RESP | VRNIC_OPF_ACK | E_ONLY },
	{ 0x12, "RC_ATOMIC_ACKNOWLEDGE", VRNIC_H_AETH | VRNIC_H_ATMACK, 24,
	  E_RESP | VRNIC_OPF_ATOMIC_ACK | E_ONLY },
	{ 0x13, "RC_COMPARE_SWAP", VRNIC_H_ATMETH, 40,
	  E_REQ_RC | VRNIC_OPF_ATOMIC | E_ONLY },
	{ 0x14, "RC_FETCH_ADD", VRNIC_H_ATMETH, 40,
	  E_REQ_RC | VRNIC_OPF_ATOMIC | E_ONLY },
	{ 0x16, "RC_SEND_LAST_WITH_INVALIDATE", VRNIC_H_IETH, 16,
	  E_REQ_RC | E_SEND | E_LAST },
	{ 0x17, "RC_SEND_ONLY_WITH_INVALIDATE", VRNIC_H_IETH, 16,
	  E_REQ_RC | E_SEND | E_ONLY },
	{ 0x1c, "RC_FLUSH", VRNIC_H_FETH | VRNIC_H_RETH, 32,
	  E_REQ_RC | VRNIC_OPF_FLUSH | E_ONLY },
	{ 0x1d, "RC_ATOMIC_WRITE", VRNIC_H_RETH, 28,
	  E_REQ_RC | VRNIC_OPF_ATOMIC_WRITE | E_PAY | E_ONLY },

	{ 0x20, "UC_SEND_FIRST", 0, 12, E_REQ | E_SEND | E_FIRST },
	{ 0x21, "UC_SEND_MIDDLE", 0, 12, E_REQ | E_SEND | E_MIDDLE },
	{ 0x22, "UC_SEND_LAST", 0, 12, E_REQ | E_SEND | E_LAST },
	{ 0x23, "UC_SEND_LAST_WITH_IMMEDIATE", VRNIC_H_IMMDT, 16,
	  E_REQ | E_SEND | E_LAST },
	{ 0x24, "UC_SEND_ONLY", 0, 12, E_REQ | E_SEND | E_ONLY },
	{ 0x25, "UC_SEND_ONLY_WITH_IMMEDIATE", VRNIC_H_IMMDT, 16,
	  E_REQ | E_SEND | E_ONLY },
	{ 0x26, "UC_RDMA_WRITE_FIRST", VRNIC_H_RETH, 28, E_REQ | E_WRITE | E_FIRST },
	{ 0x27, "UC_RDMA_WRITE_MIDDLE", 0, 12, E_REQ | E_WRITE | E_MIDDLE },
	{ 0x28, "UC_RDMA_WRITE_LAST", 0, 12, E_REQ | E_WRITE | E_LAST },
	{ 0x29, "UC_RDMA_WRITE_LAST_WITH_IMMEDIATE", VRNIC_H_IMMDT, 16,
	  E_REQ | E_WRITE | E_LAST | E_RWR },
	{ 0x2a, "UC_RDMA_WRITE_ONLY", VRNIC_H_RETH, 28, E_REQ | E_WRITE | E_ONLY },
	{ 0x2b, "UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE",
	  VRNIC_H_RETH | VRNIC_H_IMMDT, 32, E_REQ | E_WRITE | E_ONLY | E_RWR },

	{ 0x64, "UD_SEND_ONLY", VRNIC_H_DETH, 20, E_REQ | E_SEND | E_ONLY },
	{ 0x65, "UD_SEND_ONLY_WITH_IMMEDIATE", VRNIC_H_DETH | VRNIC_H_IMMDT,
	  24, E_REQ | E_SEND | E_ONLY },
};

static void op_case_desc(const struct op_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(op, op_cases, op_case_desc);

static const unsigned int hdr_bytes[VRNIC_HDR_COUNT] = {
	[VRNIC_HDR_BTH]		= 12,
	[VRNIC_HDR_DETH]	= 8,
	[VRNIC_HDR_FETH]	= 4,
	[VRNIC_HDR_RETH]	= 16,
	[VRNIC_HDR_ATMETH]	= 28,
	[VRNIC_HDR_AETH]	= 4,
	[VRNIC_HDR_ATMACK]	= 8,
	[VRNIC_HDR_IMMDT]	= 4,
	[VRNIC_HDR_IETH]	= 4,
};

static const struct op_case *find_op_case(unsigned int opcode)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(op_cases); i++)
		if (op_cases[i].opcode == opcode)
			return &op_cases[i];
	return NULL;
}

static void vrnic_opcode_layout(struct kunit *test)
{
	const struct op_case *c = test->param_value;
	const struct vrnic_opcode_info *info = vrnic_opcode_info(c->opcode);
	unsigned int t, off = 0;

	KUNIT_ASSERT_NOT_NULL(test, info);
	KUNIT_EXPECT_STREQ(test, info->name, c->name);
	KUNIT_EXPECT_EQ(test, info->length, c->len);
	KUNIT_EXPECT_EQ(test, vrnic_hdr_len(c->opcode), c->len);
	KUNIT_EXPECT_EQ(test, info->hdrs, VRNIC_H_BTH | c->hdrs);
	KUNIT_EXPECT_EQ(test, info->flags, c->flags);

	/* Headers follow each other in enum order, with no gaps. */
	for (t = 0; t < VRNIC_HDR_COUNT; t++) {
		if (t == VRNIC_HDR_BTH || (c->hdrs & BIT(t))) {
			KUNIT_EXPECT_EQ(test, vrnic_hdr_offset(c->opcode, t),
					off);
			off += hdr_bytes[t];
		} else {
			KUNIT_EXPECT_EQ(test, vrnic_hdr_offset(c->opcode, t),
					-ENOENT);
		}
	}
	KUNIT_EXPECT_EQ(test, off, c->len);
	KUNIT_EXPECT_LE(test, c->len, VRNIC_MAX_HDR_BYTES);
}

static void vrnic_opcode_unknown(struct kunit *test)
{
	unsigned int op;

	/* Every opcode IBTA leaves reserved or vrnic does not implement. */
	for (op = 0; op < 0x110; op++) {
		if (find_op_case(op))
			continue;
		KUNIT_EXPECT_NULL_MSG(test, vrnic_opcode_info(op), "op %#x", op);
		KUNIT_EXPECT_EQ_MSG(test, vrnic_hdr_len(op), -EINVAL,
				    "op %#x", op);
		KUNIT_EXPECT_EQ_MSG(test,
				    vrnic_hdr_offset(op, VRNIC_HDR_BTH),
				    -EINVAL, "op %#x", op);
	}
	KUNIT_EXPECT_NULL(test, vrnic_opcode_info(UINT_MAX));
	KUNIT_EXPECT_EQ(test, vrnic_hdr_offset(VRNIC_OP_RC_SEND_ONLY,
					       VRNIC_HDR_COUNT), -EINVAL);
}

/* ------------------------------------------------------------------------
 * Build, then parse
 */

#define TEST_VA		0x0123456789abcdefULL
#define TEST_RKEY	0xdeadbeef
#define TEST_DMALEN	0x00100000
#define TEST_SWAP	0xa5a5a5a55a5a5a5aULL
#define TEST_COMPARE	0x0f0f0f0ff0f0f0f0ULL
#define TEST_ORIG	0xfedcba9876543210ULL
#define TEST_MSN	0xabcdef
#define TEST_QKEY	0x11111111
#define TEST_SQP	0x000123
#define TEST_IMM	0xcafef00d
#define TEST_INV_RKEY	0x5a5a5a5a

/* A payload size each opcode accepts, with a pad count where allowed. */
static unsigned int test_payload_len(const struct op_case *c)
{
	if (!(c->flags & E_PAY))
		return 0;
	if (c->flags & VRNIC_OPF_ATOMIC_WRITE)
		return VRNIC_ATOMIC_WRITE_BYTES;
	if (c->flags & E_LAST)
		return 5;	/* pad 3 */
	return 8;		/* first and middle packets are not padded */
}

static void vrnic_hdr_round_trip(struct kunit *test)
{
	const struct op_case *c = test->param_value;
	unsigned int payload = test_payload_len(c);
	unsigned int pad = vrnic_pad_for(payload);
	unsigned int len = c->len + payload + pad + VRNIC_ICRC_BYTES;
	struct vrnic_bth_fields f = {
		.opcode = c->opcode,
		.se = c->opcode & 1,
		.migreq = c->opcode & 2,
		.ackreq = c->opcode & 4,
		.pad = pad,
		.pkey = 0x8000 | c->opcode,
		.qpn = 0x123456,
		.psn = 0xfffff0 | (c->opcode & 0xf),
	};
	struct vrnic_pkt_hdrs h;
	u8 *buf;

	/* Exactly @len bytes, so KASAN catches any read past the packet. */
	buf = kunit_kzalloc(test, len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);

	KUNIT_ASSERT_EQ(test, vrnic_build_hdrs(buf, len, &f), c->len);
	if (c->hdrs & VRNIC_H_DETH)
		vrnic_deth_set(vrnic_hdr_at(buf, VRNIC_HDR_DETH), TEST_QKEY,
			       TEST_SQP);
	if (c->hdrs & VRNIC_H_FETH)
		vrnic_feth_set(vrnic_hdr_at(buf, VRNIC_HDR_FETH), 1, 2);
	if (c->hdrs & VRNIC_H_RETH)
		vrnic_reth_set(vrnic_hdr_at(buf, VRNIC_HDR_RETH), TEST_VA,
			       TEST_RKEY, TEST_DMALEN);
	if (c->hdrs & VRNIC_H_ATMETH)
		vrnic_atmeth_set(vrnic_hdr_at(buf, VRNIC_HDR_ATMETH), TEST_VA,
				 TEST_RKEY, TEST_SWAP, TEST_COMPARE);
	if (c->hdrs & VRNIC_H_AETH)
		vrnic_aeth_set(vrnic_hdr_at(buf, VRNIC_HDR_AETH),
			       VRNIC_AETH_NAK_REM_ACCESS_ERR, TEST_MSN);
	if (c->hdrs & VRNIC_H_ATMACK)
		vrnic_atmack_set(vrnic_hdr_at(buf, VRNIC_HDR_ATMACK), TEST_ORIG);
	if (c->hdrs & VRNIC_H_IMMDT)
		vrnic_immdt_set(vrnic_hdr_at(buf, VRNIC_HDR_IMMDT),
				cpu_to_be32(TEST_IMM));
	if (c->hdrs & VRNIC_H_IETH)
		vrnic_ieth_set(vrnic_hdr_at(buf, VRNIC_HDR_IETH), TEST_INV_RKEY);
	memset(buf + c->len, 0x7b, payload);

	KUNIT_ASSERT_EQ(test, vrnic_parse_hdrs(buf, len, &h), 0);

	KUNIT_EXPECT_PTR_EQ(test, h.info, vrnic_opcode_info(c->opcode));
	KUNIT_EXPECT_EQ(test, h.opcode, c->opcode);
	KUNIT_EXPECT_PTR_EQ(test, (const void *)h.bth, (const void *)buf);
	KUNIT_EXPECT_EQ(test, h.hdr_len, c->len);
	KUNIT_EXPECT_PTR_EQ(test, h.payload, (const void *)(buf + c->len));
	KUNIT_EXPECT_EQ(test, h.payload_len, payload);
	KUNIT_EXPECT_EQ(test, h.pad, pad);
	KUNIT_EXPECT_EQ(test, h.icrc_offset, len - VRNIC_ICRC_BYTES);

	KUNIT_EXPECT_EQ(test, vrnic_bth_opcode(h.bth), c->opcode);
	KUNIT_EXPECT_EQ(test, vrnic_bth_se(h.bth), f.se);
	KUNIT_EXPECT_EQ(test, vrnic_bth_migreq(h.bth), f.migreq);
	KUNIT_EXPECT_EQ(test, vrnic_bth_ackreq(h.bth), f.ackreq);
	KUNIT_EXPECT_EQ(test, vrnic_bth_pad(h.bth), pad);
	KUNIT_EXPECT_EQ(test, vrnic_bth_tver(h.bth), 0);
	KUNIT_EXPECT_EQ(test, vrnic_bth_pkey(h.bth), f.pkey);
	KUNIT_EXPECT_EQ(test, vrnic_bth_qpn(h.bth), f.qpn);
	KUNIT_EXPECT_EQ(test, vrnic_bth_psn(h.bth), f.psn);

	/* Each header is there exactly when the opcode has it. */
	KUNIT_EXPECT_EQ(test, !!h.deth, !!(c->hdrs & VRNIC_H_DETH));
	KUNIT_EXPECT_EQ(test, !!h.feth, !!(c->hdrs & VRNIC_H_FETH));
	KUNIT_EXPECT_EQ(test, !!h.reth, !!(c->hdrs & VRNIC_H_RETH));
	KUNIT_EXPECT_EQ(test, !!h.atmeth, !!(c->hdrs & VRNIC_H_ATMETH));
	KUNIT_EXPECT_EQ(test, !!h.aeth, !!(c->hdrs & VRNIC_H_AETH));
	KUNIT_EXPECT_EQ(test, !!h.atmack, !!(c->hdrs & VRNIC_H_ATMACK));
	KUNIT_EXPECT_EQ(test, !!h.immdt, !!(c->hdrs & VRNIC_H_IMMDT));
	KUNIT_EXPECT_EQ(test, !!h.ieth, !!(c->hdrs & VRNIC_H_IETH));

	if (h.deth) {
		KUNIT_EXPECT_EQ(test, vrnic_deth_qkey(h.deth), TEST_QKEY);
		KUNIT_EXPECT_EQ(test, vrnic_deth_sqp(h.deth), TEST_SQP);
	}
	if (h.feth) {
		KUNIT_EXPECT_EQ(test, vrnic_feth_plt(h.feth), 1);
		KUNIT_EXPECT_EQ(test, vrnic_feth_sel(h.feth), 2);
	}
	if (h.reth) {
		KUNIT_EXPECT_EQ(test, vrnic_reth_va(h.reth), TEST_VA);
		KUNIT_EXPECT_EQ(test, vrnic_reth_rkey(h.reth), TEST_RKEY);
		KUNIT_EXPECT_EQ(test, vrnic_reth_len(h.reth), TEST_DMALEN);
	}
	if (h.atmeth) {
		KUNIT_EXPECT_EQ(test, vrnic_atmeth_va(h.atmeth), TEST_VA);
		KUNIT_EXPECT_EQ(test, vrnic_atmeth_rkey(h.atmeth), TEST_RKEY);
		KUNIT_EXPECT_EQ(test, vrnic_atmeth_swap_add(h.atmeth),
				TEST_SWAP);
		KUNIT_EXPECT_EQ(test, vrnic_atmeth_compare(h.atmeth),
				TEST_COMPARE);
	}
	if (h.aeth) {
		KUNIT_EXPECT_EQ(test, vrnic_aeth_syndrome(h.aeth),
				VRNIC_AETH_NAK_REM_ACCESS_ERR);
		KUNIT_EXPECT_EQ(test, vrnic_aeth_msn(h.aeth), TEST_MSN);
	}
	if (h.atmack)
		KUNIT_EXPECT_EQ(test, vrnic_atmack_orig(h.atmack), TEST_ORIG);
	if (h.immdt)
		KUNIT_EXPECT_EQ(test, be32_to_cpu(vrnic_immdt_imm(h.immdt)),
				TEST_IMM);
	if (h.ieth)
		KUNIT_EXPECT_EQ(test, vrnic_ieth_rkey(h.ieth), TEST_INV_RKEY);
}

/*
 * A packet cut anywhere short of its headers and ICRC is refused, and
 * nothing beyond the length is read (each buffer is exactly that long, so
 * KASAN would report it).
 */
static void vrnic_parse_rejects_truncated(struct kunit *test)
{
	const struct op_case *c = test->param_value;
	unsigned int payload = test_payload_len(c);
	unsigned int full = c->len + payload + vrnic_pad_for(payload) +
			    VRNIC_ICRC_BYTES;
	struct vrnic_bth_fields f = {
		.opcode = c->opcode,
		.pad = vrnic_pad_for(payload),
	};
	struct vrnic_pkt_hdrs h;
	unsigned int len;
	u8 *pkt, *buf;

	pkt = kunit_kzalloc(test, full, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, pkt);
	KUNIT_ASSERT_EQ(test, vrnic_build_hdrs(pkt, full, &f), c->len);

	for (len = 0; len < c->len + VRNIC_ICRC_BYTES; len++) {
		buf = kmalloc(len, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, buf);
		memcpy(buf, pkt, len);
		KUNIT_EXPECT_EQ_MSG(test, vrnic_parse_hdrs(buf, len, &h),
				    -EINVAL, "len %u", len);
		KUNIT_EXPECT_NULL(test, h.info);
		kfree(buf);
	}
	KUNIT_EXPECT_EQ(test, vrnic_parse_hdrs(pkt, full, &h), 0);
}

static void vrnic_parse_rejects_empty(struct kunit *test)
{
	struct vrnic_pkt_hdrs h;

	/* ZERO_SIZE_PTR faults on any access. */
	KUNIT_EXPECT_EQ(test, vrnic_parse_hdrs(ZERO_SIZE_PTR, 0, &h), -EINVAL);
}

struct parse_case {
	const char *name;
	u8 opcode;
	u8 flags;		/* BTH byte 1: SE, MigReq, PadCnt, TVer */
	unsigned int rest;	/* payload and pad bytes after the headers */
	unsigned int extra;	/* bytes after the ICRC */
	bool resv_set;		/* reserved BTH bits all ones */
	int err;
	unsigned int payload_len;
};

#define PAD(n)	((n) << VRNIC_BTH_PAD_SHIFT)

static const struct parse_case reject_cases[] = {
	/* Opcodes IBTA reserves, and transports vrnic does not implement. */
	{ "reserved_0x15", 0x15, 0, 0, 0, false, -EPROTO },
	{ "reserved_0x18", 0x18, 0, 0, 0, false, -EPROTO },
	{ "reserved_0x1f", 0x1f, 0, 0, 0, false, -EPROTO },
	{ "uc_read_0x2c", 0x2c, 0, 0, 0, false, -EPROTO },
	{ "rd_send_first", 0x40, 0, 8, 0, false, -EPROTO },
	{ "ud_send_first", 0x60, 0, 8, 0, false, -EPROTO },
	{ "cnp", 0x80, 0, 16, 0, false, -EPROTO },
	{ "xrc_send_only", 0xa4, 0, 8, 0, false, -EPROTO },
	{ "vendor_0xff", 0xff, 0, 0, 0, false, -EPROTO },
	/* Only transport header version 0 exists (9.2). */
	{ "tver_1", 0x04, 0x01, 0, 0, false, -EPROTO },
	{ "tver_15", 0x04, 0x0f, 4, 0, false, -EPROTO },
	/* The pad count cannot exceed the bytes after the headers. */
	{ "pad_without_payload", 0x04, PAD(3), 0, 0, false, -EINVAL },
	{ "pad_on_ack", 0x11, PAD(1), 0, 0, false, -EINVAL },
	/* Only a message's last packet is padded. */
	{ "pad_on_send_first", 0x00, PAD(1), 8, 0, false, -EINVAL },
	{ "pad_on_write_middle", 0x07, PAD(2), 8, 0, false, -EINVAL },
	{ "pad_on_read_resp_first", 0x0d, PAD(3), 8, 0, false, -EINVAL },
	{ "pad_on_uc_write_first", 0x26, PAD(1), 4, 0, false, -EINVAL },
	/* Opcodes without payload carry none. */
	{ "payload_on_ack", 0x11, 0, 4, 0, false, -EINVAL },
	{ "payload_on_atomic_ack", 0x12, 0, 8, 0, false, -EINVAL },
	{ "payload_on_read_request", 0x0c, 0, 4, 0, false, -EINVAL },
	{ "payload_on_cmp_swap", 0x13, 0, 8, 0, false, -EINVAL },
	{ "payload_on_flush", 0x1c, 0, 4, 0, false, -EINVAL },
	/* RDMA ATOMIC WRITE carries exactly 8 bytes. */
	{ "atomic_write_empty", 0x1d, 0, 0, 0, false, -EINVAL },
	{ "atomic_write_4", 0x1d, 0, 4, 0, false, -EINVAL },
	{ "atomic_write_16", 0x1d, 0, 16, 0, false, -EINVAL },
	{ "atomic_write_7_padded", 0x1d, PAD(1), 8, 0, false, -EINVAL },
	/* A packet is a whole number of 4-byte words. */
	{ "len_mod4_1", 0x04, 0, 0, 1, false, -EINVAL },
	{ "len_mod4_2", 0x04, 0, 4, 2, false, -EINVAL },
	{ "len_mod4_3", 0x64, 0, 0, 3, false, -EINVAL },
};

static const struct parse_case accept_cases[] = {
	{ "send_only_empty", 0x04, 0, 0, 0, false, 0, 0 },
	{ "send_only_1_pad_3", 0x04, PAD(3), 4, 0, false, 0, 1 },
	{ "send_last_7_pad_1", 0x02, PAD(1), 8, 0, false, 0, 7 },
	{ "read_resp_last_2_pad_2", 0x0f, PAD(2), 4, 0, false, 0, 2 },
	{ "write_middle_no_pad", 0x07, 0, 256, 0, false, 0, 256 },
	{ "atomic_write_8", 0x1d, 0, 8, 0, false, 0, 8 },
	{ "ud_send_imm_4", 0x65, 0, 4, 0, false, 0, 4 },
	{ "ack_se_migreq", 0x11, VRNIC_BTH_SE | VRNIC_BTH_MIGREQ, 0, 0, false,
	  0, 0 },
	/* Receivers ignore reserved fields (resv8a, resv7). */
	{ "reserved_bits_set", 0x04, 0, 4, 0, true, 0, 4 },
};

static void parse_case_desc(const struct parse_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(reject, reject_cases, parse_case_desc);
KUNIT_ARRAY_PARAM(accept, accept_cases, parse_case_desc);

static int run_parse_case(struct kunit *test, const struct parse_case *c,
			  struct vrnic_pkt_hdrs *h)
{
	int hlen = vrnic_hdr_len(c->opcode);
	unsigned int len;
	u8 *buf;

	if (hlen < 0)
		hlen = VRNIC_BTH_BYTES;
	len = hlen + c->rest + VRNIC_ICRC_BYTES + c->extra;
	buf = kunit_kzalloc(test, len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	buf[0] = c->opcode;
	buf[1] = c->flags;
	if (c->resv_set) {
		buf[4] = 0xff;
		buf[8] = 0x7f;
	}
	return vrnic_parse_hdrs(buf, len, h);
}

static void vrnic_parse_rejects_malformed(struct kunit *test)
{
	const struct parse_case *c = test->param_value;
	struct vrnic_pkt_hdrs h;

	KUNIT_EXPECT_EQ(test, run_parse_case(test, c, &h), c->err);
	KUNIT_EXPECT_NULL(test, h.info);
	KUNIT_EXPECT_NULL(test, h.bth);
}

static void vrnic_parse_accepts_edges(struct kunit *test)
{
	const struct parse_case *c = test->param_value;
	struct vrnic_pkt_hdrs h;

	KUNIT_ASSERT_EQ(test, run_parse_case(test, c, &h), 0);
	KUNIT_EXPECT_EQ(test, h.payload_len, c->payload_len);
	KUNIT_EXPECT_EQ(test, h.pad, (c->flags & VRNIC_BTH_PAD_MASK) >>
				     VRNIC_BTH_PAD_SHIFT);
	KUNIT_EXPECT_EQ(test, vrnic_bth_qpn(h.bth), 0);
	KUNIT_EXPECT_EQ(test, vrnic_bth_psn(h.bth), 0);
}

static void vrnic_build_rejects(struct kunit *test)
{
	struct vrnic_bth_fields f = { .opcode = VRNIC_OP_RC_COMPARE_SWAP };
	u8 buf[VRNIC_MAX_HDR_BYTES];

	/* Too short for BTH + AtomicETH. */
	KUNIT_EXPECT_EQ(test, vrnic_build_hdrs(buf, sizeof(buf) - 1, &f),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, vrnic_build_hdrs(buf, sizeof(buf), &f),
			(int)sizeof(buf));
	f.pad = 4;
	KUNIT_EXPECT_EQ(test, vrnic_build_hdrs(buf, sizeof(buf), &f), -EINVAL);
	f.pad = 0;
	f.opcode = 0x15;
	KUNIT_EXPECT_EQ(test, vrnic_build_hdrs(buf, sizeof(buf), &f), -EINVAL);
}

static void vrnic_hdr_at_absent(struct kunit *test)
{
	struct vrnic_bth_fields f = { .opcode = VRNIC_OP_RC_SEND_ONLY };
	u8 buf[VRNIC_MAX_HDR_BYTES];

	KUNIT_ASSERT_EQ(test, vrnic_build_hdrs(buf, sizeof(buf), &f), 12);
	KUNIT_EXPECT_PTR_EQ(test, vrnic_hdr_at(buf, VRNIC_HDR_BTH),
			    (void *)buf);
	KUNIT_EXPECT_NULL(test, vrnic_hdr_at(buf, VRNIC_HDR_RETH));
	KUNIT_EXPECT_NULL(test, vrnic_hdr_at(buf, VRNIC_HDR_COUNT));
	buf[0] = 0x15;
	KUNIT_EXPECT_NULL(test, vrnic_hdr_at(buf, VRNIC_HDR_BTH));
}

static struct kunit_case vrnic_hdr_cases[] = {
	KUNIT_CASE(vrnic_hdr_field_offsets),
	KUNIT_CASE_PARAM(vrnic_hdr_bth_set_get, bth_gen_params),
	KUNIT_CASE_PARAM(vrnic_hdr_bth_build_matches_setters, bth_gen_params),
	KUNIT_CASE(vrnic_hdr_bth_setters_keep_neighbours),
	KUNIT_CASE_PARAM(vrnic_hdr_aeth_syndrome, aeth_gen_params),
	KUNIT_CASE(vrnic_hdr_ext_headers_wire_order),
	KUNIT_CASE(vrnic_hdr_pad_for),
	KUNIT_CASE_PARAM(vrnic_opcode_layout, op_gen_params),
	KUNIT_CASE(vrnic_opcode_unknown),
	KUNIT_CASE_PARAM(vrnic_hdr_round_trip, op_gen_params),
	KUNIT_CASE_PARAM(vrnic_parse_rejects_truncated, op_gen_params),
	KUNIT_CASE(vrnic_parse_rejects_empty),
	KUNIT_CASE_PARAM(vrnic_parse_rejects_malformed, reject_gen_params),
	KUNIT_CASE_PARAM(vrnic_parse_accepts_edges, accept_gen_params),
	KUNIT_CASE(vrnic_build_rejects),
	KUNIT_CASE(vrnic_hdr_at_absent),
	{}
};

static struct kunit_suite vrnic_hdr_suite = {
	.name = "vrnic_hdr",
	.test_cases = vrnic_hdr_cases,
};

kunit_test_suites(&vrnic_hdr_suite);
