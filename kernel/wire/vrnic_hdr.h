/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * vrnic: RoCEv2 wire formats.
 *
 * The InfiniBand transport headers as RoCEv2 carries them: a UDP datagram to
 * port 4791 whose payload is BTH, extension headers, payload, pad and ICRC
 * (IBTA Vol 1 Rel 1.5, chapter 9.2 and Annex A17 "RoCE v2").  This header
 * holds only layouts, field masks and accessors; which headers an opcode
 * carries is in vrnic_opcode.h.
 *
 * All structures are __packed: a header starts at any 4-byte boundary after
 * the UDP header, and RETH and AtomicETH hold 64-bit fields that are not
 * 8-byte aligned there.  Accessors convert between wire (big-endian) and CPU
 * order; setters leave reserved bits zero, getters ignore them (IBTA 9.2:
 * reserved fields are sent as 0 and not checked by the receiver).
 *
 * Copyright (c) 2026 The vrnic authors
 */

#ifndef VRNIC_HDR_H
#define VRNIC_HDR_H

#include <linux/build_bug.h>
#include <linux/compiler.h>
#include <linux/types.h>
#include <asm/byteorder.h>

/* IANA-assigned destination UDP port of RoCEv2 (Annex A17). */
#define VRNIC_ROCEV2_UDP_PORT	4791

/* Invariant CRC at the end of every packet (Annex A17.3.3). */
#define VRNIC_ICRC_BYTES	4

/* PSNs, MSNs and QPNs are 24-bit fields (9.2, 9.3). */
#define VRNIC_PSN_MASK		0x00ffffffU
#define VRNIC_QPN_MASK		0x00ffffffU
#define VRNIC_MSN_MASK		0x00ffffffU

/* The default partition key, full membership (chapter 10, P_Keys). */
#define VRNIC_DEFAULT_PKEY	0xffff

/* ---------------------------------------------------------------------------
 * Base Transport Header, 12 bytes (9.2)
 *
 *  byte 0  OpCode
 *  byte 1  SE(1) MigReq(1) PadCnt(2) TVer(4)
 *  2..3    P_Key
 *  byte 4  resv8a: FECN/BECN on InfiniBand; RoCEv2 signals congestion in the
 *          IP ECN bits instead (Annex A17), and the ICRC treats the whole byte
 *          as variant (A17.3.3)
 *  5..7    DestQP
 *  byte 8  AckReq(1) resv7(7)
 *  9..11   PSN
 */
struct vrnic_bth {
	u8	opcode;
	u8	flags;
	__be16	pkey;
	__be32	qpn;		/* resv8a | DestQP */
	__be32	apsn;		/* AckReq | resv7 | PSN */
} __packed;

#define VRNIC_BTH_SE		0x80	/* solicited event */
#define VRNIC_BTH_MIGREQ	0x40	/* migration state (APM) */
#define VRNIC_BTH_PAD_MASK	0x30	/* pad bytes before the ICRC */
#define VRNIC_BTH_PAD_SHIFT	4
#define VRNIC_BTH_TVER_MASK	0x0f	/* transport header version */
#define VRNIC_BTH_TVER		0	/* the only version defined */
#define VRNIC_BTH_RESV8A_MASK	0xff000000U
#define VRNIC_BTH_ACKREQ	0x80000000U /* responder must ACK */

static inline u8 vrnic_bth_opcode(const struct vrnic_bth *bth)
{
	return bth->opcode;
}

static inline bool vrnic_bth_se(const struct vrnic_bth *bth)
{
	return bth->flags & VRNIC_BTH_SE;
}

static inline bool vrnic_bth_migreq(const struct vrnic_bth *bth)
{
	return bth->flags & VRNIC_BTH_MIGREQ;
}

static inline unsigned int vrnic_bth_pad(const struct vrnic_bth *bth)
{
	return (bth->flags & VRNIC_BTH_PAD_MASK) >> VRNIC_BTH_PAD_SHIFT;
}

static inline unsigned int vrnic_bth_tver(const struct vrnic_bth *bth)
{
	return bth->flags & VRNIC_BTH_TVER_MASK;
}

static inline u16 vrnic_bth_pkey(const struct vrnic_bth *bth)
{
	return be16_to_cpu(bth->pkey);
}

static inline u32 vrnic_bth_qpn(const struct vrnic_bth *bth)
{
	return be32_to_cpu(bth->qpn) & VRNIC_QPN_MASK;
}

static inline bool vrnic_bth_ackreq(const struct vrnic_bth *bth)
{
	return be32_to_cpu(bth->apsn) & VRNIC_BTH_ACKREQ;
}

static inline u32 vrnic_bth_psn(const struct vrnic_bth *bth)
{
	return be32_to_cpu(bth->apsn) & VRNIC_PSN_MASK;
}

static inline void vrnic_bth_set_opcode(struct vrnic_bth *bth, u8 opcode)
{
	bth->opcode = opcode;
}

static inline void vrnic_bth_set_se(struct vrnic_bth *bth, bool se)
{
	if (se)
		bth->flags |= VRNIC_BTH_SE;
	else
		bth->flags &= ~VRNIC_BTH_SE;
}

static inline void vrnic_bth_set_migreq(struct vrnic_bth *bth, bool mig)
{
	if (mig)
		bth->flags |= VRNIC_BTH_MIGREQ;
	else
		bth->flags &= ~VRNIC_BTH_MIGREQ;
}

static inline void vrnic_bth_set_pad(struct vrnic_bth *bth, unsigned int pad)
{
	bth->flags = (bth->flags & ~VRNIC_BTH_PAD_MASK) |
		     ((pad << VRNIC_BTH_PAD_SHIFT) & VRNIC_BTH_PAD_MASK);
}

static inline void vrnic_bth_set_tver(struct vrnic_bth *bth, unsigned int tver)
{
	bth->flags = (bth->flags & ~VRNIC_BTH_TVER_MASK) |
		     (tver & VRNIC_BTH_TVER_MASK);
}

static inline void vrnic_bth_set_pkey(struct vrnic_bth *bth, u16 pkey)
{
	bth->pkey = cpu_to_be16(pkey);
}

/* Also clears resv8a: a requester sends it as zero. */
static inline void vrnic_bth_set_qpn(struct vrnic_bth *bth, u32 qpn)
{
	bth->qpn = cpu_to_be32(qpn & VRNIC_QPN_MASK);
}

static inline void vrnic_bth_set_ackreq(struct vrnic_bth *bth, bool ackreq)
{
	u32 apsn = be32_to_cpu(bth->apsn) & VRNIC_PSN_MASK;

	bth->apsn = cpu_to_be32(apsn | (ackreq ? VRNIC_BTH_ACKREQ : 0));
}

static inline void vrnic_bth_set_psn(struct vrnic_bth *bth, u32 psn)
{
	u32 ack = be32_to_cpu(bth->apsn) & VRNIC_BTH_ACKREQ;

	bth->apsn = cpu_to_be32(ack | (psn & VRNIC_PSN_MASK));
}

/* Pad bytes that bring a payload of @len bytes to a 4-byte boundary (9.2). */
static inline unsigned int vrnic_pad_for(unsigned int len)
{
	return -len & 3;
}

/* ---------------------------------------------------------------------------
 * Datagram Extended Transport Header, 8 bytes (9.3, UD only)
 */
struct vrnic_deth {
	__be32	qkey;
	__be32	sqp;		/* resv8 | SrcQP */
} __packed;

/* Q_Keys with the high bit set are controlled (privileged) keys. */
#define VRNIC_QKEY_CONTROLLED	0x80000000U
/* The well-known Q_Key of QP1, the GSI (chapter 13). */
#define VRNIC_GSI_QKEY		0x80010000U

static inline u32 vrnic_deth_qkey(const struct vrnic_deth *deth)
{
	return be32_to_cpu(deth->qkey);
}

static inline u32 vrnic_deth_sqp(const struct vrnic_deth *deth)
{
	return be32_to_cpu(deth->sqp) & VRNIC_QPN_MASK;
}

static inline void vrnic_deth_set(struct vrnic_deth *deth, u32 qkey, u32 sqp)
{
	deth->qkey = cpu_to_be32(qkey);
	deth->sqp = cpu_to_be32(sqp & VRNIC_QPN_MASK);
}

/* ---------------------------------------------------------------------------
 * FLUSH Extended Transport Header, 4 bytes (IBTA 1.5 "Memory Placement
 * Extensions", FLUSH): placement type and selectivity level.
 */
struct vrnic_feth {
	__be32	bits;		/* resv26 | SEL(2) | PLT(4) */
} __packed;

#define VRNIC_FETH_PLT_MASK	0x0000000fU
#define VRNIC_FETH_SEL_MASK	0x00000030U
#define VRNIC_FETH_SEL_SHIFT	4

static inline unsigned int vrnic_feth_plt(const struct vrnic_feth *feth)
{
	return be32_to_cpu(feth->bits) & VRNIC_FETH_PLT_MASK;
}

static inline unsigned int vrnic_feth_sel(const struct vrnic_feth *feth)
{
	return (be32_to_cpu(feth->bits) & VRNIC_FETH_SEL_MASK) >>
	       VRNIC_FETH_SEL_SHIFT;
}

static inline void vrnic_feth_set(struct vrnic_feth *feth, unsigned int plt,
				  unsigned int sel)
{
	feth->bits = cpu_to_be32((plt & VRNIC_FETH_PLT_MASK) |
				 ((sel << VRNIC_FETH_SEL_SHIFT) &
				  VRNIC_FETH_SEL_MASK));
}

/* ---------------------------------------------------------------------------
 * RDMA Extended Transport Header, 16 bytes (9.3): in the first or only
 * packet of an RDMA WRITE, in an RDMA READ request, and (IBTA 1.5) in RDMA
 * ATOMIC WRITE (RETH + 8 bytes of payload) and FLUSH (FETH + RETH).
 */
struct vrnic_reth {
	__be64	va;
	__be32	rkey;
	__be32	len;		/* DMA length of the whole message */
} __packed;

/* An RDMA ATOMIC WRITE carries exactly this many payload bytes. */
#define VRNIC_ATOMIC_WRITE_BYTES	8

static inline u64 vrnic_reth_va(const struct vrnic_reth *reth)
{
	return be64_to_cpu(reth->va);
}

static inline u32 vrnic_reth_rkey(const struct vrnic_reth *reth)
{
	return be32_to_cpu(reth->rkey);
}

static inline u32 vrnic_reth_len(const struct vrnic_reth *reth)
{
	return be32_to_cpu(reth->len);
}

static inline void vrnic_reth_set(struct vrnic_reth *reth, u64 va, u32 rkey,
				  u32 len)
{
	reth->va = cpu_to_be64(va);
	reth->rkey = cpu_to_be32(rkey);
	reth->len = cpu_to_be32(len);
}

/* ---------------------------------------------------------------------------
 * Atomic Extended Transport Header, 28 bytes (9.3): COMPARE SWAP and
 * FETCH ADD requests.  The target VA must be 8-byte aligned (9.4).
 */
struct vrnic_atmeth {
	__be64	va;
	__be32	rkey;
	__be64	swap_add;	/* swap data, or the value to add */
	__be64	compare;	/* compare data; unused by FETCH ADD */
} __packed;

static inline u64 vrnic_atmeth_va(const struct vrnic_atmeth *a)
{
	return be64_to_cpu(a->va);
}

static inline u32 vrnic_atmeth_rkey(const struct vrnic_atmeth *a)
{
	return be32_to_cpu(a->rkey);
}

static inline u64 vrnic_atmeth_swap_add(const struct vrnic_atmeth *a)
{
	return be64_to_cpu(a->swap_add);
}

static inline u64 vrnic_atmeth_compare(const struct vrnic_atmeth *a)
{
	return be64_to_cpu(a->compare);
}

static inline void vrnic_atmeth_set(struct vrnic_atmeth *a, u64 va, u32 rkey,
				    u64 swap_add, u64 compare)
{
	a->va = cpu_to_be64(va);
	a->rkey = cpu_to_be32(rkey);
	a->swap_add = cpu_to_be64(swap_add);
	a->compare = cpu_to_be64(compare);
}

/* ---------------------------------------------------------------------------
 * ACK Extended Transport Header, 4 bytes (9.3): Syndrome(8) | MSN(24).
 *
 * Syndrome (9.3, AETH): bit 7 reserved, bits 6-5 the type, bits 4-0 a value
 * whose meaning depends on the type: the credit count of an ACK (end-to-end flow
 * control; 0x1f = "credits invalid", as sent for SRQs), the encoded timer
 * of an RNR NAK, or the NAK code.
 */
struct vrnic_aeth {
	__be32	smsn;
} __packed;

#define VRNIC_AETH_SYN_SHIFT		24
#define VRNIC_AETH_RESV			0x80
#define VRNIC_AETH_TYPE_MASK		0x60
#define VRNIC_AETH_VALUE_MASK		0x1f

#define VRNIC_AETH_ACK			0x00	/* value: credit count */
#define VRNIC_AETH_RNR_NAK		0x20	/* value: RNR timer */
#define VRNIC_AETH_RESERVED_TYPE	0x40
#define VRNIC_AETH_NAK			0x60	/* value: NAK code */

#define VRNIC_AETH_CREDITS_INVALID	0x1f

/* Full syndromes of the five NAK codes. */
#define VRNIC_AETH_NAK_PSN_SEQ_ERR	(VRNIC_AETH_NAK | 0)
#define VRNIC_AETH_NAK_INVALID_REQ	(VRNIC_AETH_NAK | 1)
#define VRNIC_AETH_NAK_REM_ACCESS_ERR	(VRNIC_AETH_NAK | 2)
#define VRNIC_AETH_NAK_REM_OP_ERR	(VRNIC_AETH_NAK | 3)
#define VRNIC_AETH_NAK_INVALID_RD_REQ	(VRNIC_AETH_NAK | 4)

static inline u8 vrnic_aeth_syndrome(const struct vrnic_aeth *aeth)
{
	return be32_to_cpu(aeth->smsn) >> VRNIC_AETH_SYN_SHIFT;
}

static inline u8 vrnic_aeth_type(const struct vrnic_aeth *aeth)
{
	return vrnic_aeth_syndrome(aeth) & VRNIC_AETH_TYPE_MASK;
}

static inline u8 vrnic_aeth_value(const struct vrnic_aeth *aeth)
{
	return vrnic_aeth_syndrome(aeth) & VRNIC_AETH_VALUE_MASK;
}

static inline u32 vrnic_aeth_msn(const struct vrnic_aeth *aeth)
{
	return be32_to_cpu(aeth->smsn) & VRNIC_MSN_MASK;
}

static inline void vrnic_aeth_set(struct vrnic_aeth *aeth, u8 syndrome,
				  u32 msn)
{
	aeth->smsn = cpu_to_be32((u32)syndrome << VRNIC_AETH_SYN_SHIFT |
				 (msn & VRNIC_MSN_MASK));
}

/* ---------------------------------------------------------------------------
 * Atomic ACK Extended Transport Header, 8 bytes (9.3): the value the
 * target held before the atomic operation.
 */
struct vrnic_atmack {
	__be64	orig;
} __packed;

static inline u64 vrnic_atmack_orig(const struct vrnic_atmack *ack)
{
	return be64_to_cpu(ack->orig);
}

static inline void vrnic_atmack_set(struct vrnic_atmack *ack, u64 orig)
{
	ack->orig = cpu_to_be64(orig);
}

/* ---------------------------------------------------------------------------
 * Immediate Data Extended Transport Header, 4 bytes (9.3).  The data is
 * opaque to the transport and handed to the receiver as is, which is why
 * verbs keep it big-endian (ib_send_wr.ex.imm_data is __be32).
 */
struct vrnic_immdt {
	__be32	imm;
} __packed;

static inline __be32 vrnic_immdt_imm(const struct vrnic_immdt *immdt)
{
	return immdt->imm;
}

static inline void vrnic_immdt_set(struct vrnic_immdt *immdt, __be32 imm)
{
	immdt->imm = imm;
}

/* ---------------------------------------------------------------------------
 * Invalidate Extended Transport Header, 4 bytes (9.3): the R_Key that
 * SEND with Invalidate asks the responder to invalidate.
 */
struct vrnic_ieth {
	__be32	rkey;
} __packed;

static inline u32 vrnic_ieth_rkey(const struct vrnic_ieth *ieth)
{
	return be32_to_cpu(ieth->rkey);
}

static inline void vrnic_ieth_set(struct vrnic_ieth *ieth, u32 rkey)
{
	ieth->rkey = cpu_to_be32(rkey);
}

/* Header sizes (9.2, 9.3), checked against the structures. */
#define VRNIC_BTH_BYTES		12
#define VRNIC_DETH_BYTES	8
#define VRNIC_FETH_BYTES	4
#define VRNIC_RETH_BYTES	16
#define VRNIC_ATMETH_BYTES	28
#define VRNIC_AETH_BYTES	4
#define VRNIC_ATMACK_BYTES	8
#define VRNIC_IMMDT_BYTES	4
#define VRNIC_IETH_BYTES	4

static_assert(sizeof(struct vrnic_bth) == VRNIC_BTH_BYTES);
static_assert(sizeof(struct vrnic_deth) == VRNIC_DETH_BYTES);
static_assert(sizeof(struct vrnic_feth) == VRNIC_FETH_BYTES);
static_assert(sizeof(struct vrnic_reth) == VRNIC_RETH_BYTES);
static_assert(sizeof(struct vrnic_atmeth) == VRNIC_ATMETH_BYTES);
static_assert(sizeof(struct vrnic_aeth) == VRNIC_AETH_BYTES);
static_assert(sizeof(struct vrnic_atmack) == VRNIC_ATMACK_BYTES);
static_assert(sizeof(struct vrnic_immdt) == VRNIC_IMMDT_BYTES);
static_assert(sizeof(struct vrnic_ieth) == VRNIC_IETH_BYTES);

#endif /* VRNIC_HDR_H */
