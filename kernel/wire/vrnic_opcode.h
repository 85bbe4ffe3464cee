/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * vrnic: BTH opcodes, the headers each one carries, and a validating
 * parser for the transport part of a RoCEv2 packet.
 *
 * An opcode's top three bits name the transport (RC, UC, RD, UD, CNP, ...)
 * and the low five the operation (IBTA Vol 1, 9.2 BTH, the OpCode table;
 * Table 38 in Release 1.3).  vrnic implements RC, UC and UD; RD, XRC and
 * manufacturer-specific opcodes are unknown to it and dropped on receive.
 * IBTA 1.5 adds RC FLUSH (0x1c) and RDMA ATOMIC WRITE (0x1d), which are here
 * too.
 *
 * Copyright (c) 2026 The vrnic authors
 */

#ifndef VRNIC_OPCODE_H
#define VRNIC_OPCODE_H

#include <linux/bits.h>
#include <linux/errno.h>
#include <linux/types.h>

#include "wire/vrnic_hdr.h"

#define VRNIC_TRANSPORT_MASK	0xe0
#define VRNIC_TRANSPORT_RC	0x00
#define VRNIC_TRANSPORT_UC	0x20
#define VRNIC_TRANSPORT_UD	0x60

/* The values of include/rdma/ib_pack.h, checked in vrnic_opcode.c. */
enum vrnic_opcode {
	VRNIC_OP_RC_SEND_FIRST				= 0x00,
	VRNIC_OP_RC_SEND_MIDDLE				= 0x01,
	VRNIC_OP_RC_SEND_LAST				= 0x02,
	VRNIC_OP_RC_SEND_LAST_WITH_IMMEDIATE		= 0x03,
	VRNIC_OP_RC_SEND_ONLY				= 0x04,
	VRNIC_OP_RC_SEND_ONLY_WITH_IMMEDIATE		= 0x05,
	VRNIC_OP_RC_RDMA_WRITE_FIRST			= 0x06,
	VRNIC_OP_RC_RDMA_WRITE_MIDDLE			= 0x07,
	VRNIC_OP_RC_RDMA_WRITE_LAST			= 0x08,
	VRNIC_OP_RC_RDMA_WRITE_LAST_WITH_IMMEDIATE	= 0x09,
	VRNIC_OP_RC_RDMA_WRITE_ONLY			= 0x0a,
	VRNIC_OP_RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE	= 0x0b,
	VRNIC_OP_RC_RDMA_READ_REQUEST			= 0x0c,
	VRNIC_OP_RC_RDMA_READ_RESPONSE_FIRST		= 0x0d,
	VRNIC_OP_RC_RDMA_READ_RESPONSE_MIDDLE		= 0x0e,
	VRNIC_OP_RC_RDMA_READ_RESPONSE_LAST		= 0x0f,
	VRNIC_OP_RC_RDMA_READ_RESPONSE_ONLY		= 0x10,
	VRNIC_OP_RC_ACKNOWLEDGE				= 0x11,
	VRNIC_OP_RC_ATOMIC_ACKNOWLEDGE			= 0x12,
	VRNIC_OP_RC_COMPARE_SWAP			= 0x13,
	VRNIC_OP_RC_FETCH_ADD				= 0x14,
	/* 0x15 is reserved */
	VRNIC_OP_RC_SEND_LAST_WITH_INVALIDATE		= 0x16,
	VRNIC_OP_RC_SEND_ONLY_WITH_INVALIDATE		= 0x17,
	/* 0x18-0x1b are reserved */
	VRNIC_OP_RC_FLUSH				= 0x1c,
	VRNIC_OP_RC_ATOMIC_WRITE			= 0x1d,

	VRNIC_OP_UC_SEND_FIRST				= 0x20,
	VRNIC_OP_UC_SEND_MIDDLE				= 0x21,
	VRNIC_OP_UC_SEND_LAST				= 0x22,
	VRNIC_OP_UC_SEND_LAST_WITH_IMMEDIATE		= 0x23,
	VRNIC_OP_UC_SEND_ONLY				= 0x24,
	VRNIC_OP_UC_SEND_ONLY_WITH_IMMEDIATE		= 0x25,
	VRNIC_OP_UC_RDMA_WRITE_FIRST			= 0x26,
	VRNIC_OP_UC_RDMA_WRITE_MIDDLE			= 0x27,
	VRNIC_OP_UC_RDMA_WRITE_LAST			= 0x28,
	VRNIC_OP_UC_RDMA_WRITE_LAST_WITH_IMMEDIATE	= 0x29,
	VRNIC_OP_UC_RDMA_WRITE_ONLY			= 0x2a,
	VRNIC_OP_UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE	= 0x2b,

	VRNIC_OP_UD_SEND_ONLY				= 0x64,
	VRNIC_OP_UD_SEND_ONLY_WITH_IMMEDIATE		= 0x65,
};

#define VRNIC_NUM_OPCODES	256

/*
 * The headers a packet can carry after the BTH, in the order they appear
 * on the wire (9.2, 9.3): DETH, then FETH (IBTA 1.5 FLUSH), then the one of
 * RETH, AtomicETH, AETH that the opcode has, then AtomicAckETH, then ImmDt
 * or IETH.  No opcode carries two headers whose order this list does not
 * fix, so offsets follow from the set of headers alone.
 */
enum vrnic_hdr_type {
	VRNIC_HDR_BTH,
	VRNIC_HDR_DETH,
	VRNIC_HDR_FETH,
	VRNIC_HDR_RETH,
	VRNIC_HDR_ATMETH,
	VRNIC_HDR_AETH,
	VRNIC_HDR_ATMACK,
	VRNIC_HDR_IMMDT,
	VRNIC_HDR_IETH,
	VRNIC_HDR_COUNT
};

#define VRNIC_H_BTH		BIT(VRNIC_HDR_BTH)
#define VRNIC_H_DETH		BIT(VRNIC_HDR_DETH)
#define VRNIC_H_FETH		BIT(VRNIC_HDR_FETH)
#define VRNIC_H_RETH		BIT(VRNIC_HDR_RETH)
#define VRNIC_H_ATMETH		BIT(VRNIC_HDR_ATMETH)
#define VRNIC_H_AETH		BIT(VRNIC_HDR_AETH)
#define VRNIC_H_ATMACK		BIT(VRNIC_HDR_ATMACK)
#define VRNIC_H_IMMDT		BIT(VRNIC_HDR_IMMDT)
#define VRNIC_H_IETH		BIT(VRNIC_HDR_IETH)

/* The longest header: BTH + AtomicETH. */
#define VRNIC_MAX_HDR_BYTES	(VRNIC_BTH_BYTES + VRNIC_ATMETH_BYTES)

/*
 * What a packet of an opcode is and does (flags of struct vrnic_opcode_info).
 * A message is one packet (ONLY = FIRST | LAST) or FIRST, MIDDLE..., LAST.
 */
enum vrnic_opcode_flags {
	VRNIC_OPF_REQ		= BIT(0),  /* requester to responder */
	VRNIC_OPF_RESP		= BIT(1),  /* responder to requester */
	VRNIC_OPF_FIRST		= BIT(2),  /* starts a message */
	VRNIC_OPF_MIDDLE	= BIT(3),
	VRNIC_OPF_LAST		= BIT(4),  /* ends a message */
	VRNIC_OPF_PAYLOAD	= BIT(5),  /* may carry payload (maybe empty) */
	/* An RC request: answered by ACK, read response or atomic ACK. */
	VRNIC_OPF_ACKED		= BIT(6),
	VRNIC_OPF_RWR		= BIT(7),  /* consumes a receive WQE */
	VRNIC_OPF_SEND		= BIT(8),
	VRNIC_OPF_WRITE		= BIT(9),  /* RDMA WRITE */
	VRNIC_OPF_READ		= BIT(10), /* RDMA READ request */
	VRNIC_OPF_READ_RESP	= BIT(11), /* RDMA READ response */
	VRNIC_OPF_ATOMIC	= BIT(12), /* COMPARE SWAP, FETCH ADD */
	VRNIC_OPF_ATOMIC_WRITE	= BIT(13), /* RDMA ATOMIC WRITE (IBTA 1.5) */
	VRNIC_OPF_FLUSH		= BIT(14), /* FLUSH (IBTA 1.5) */
	VRNIC_OPF_ACK		= BIT(15), /* ACKNOWLEDGE (ACK or NAK) */
	VRNIC_OPF_ATOMIC_ACK	= BIT(16), /* ATOMIC ACKNOWLEDGE */

	VRNIC_OPF_ONLY		= VRNIC_OPF_FIRST | VRNIC_OPF_LAST,
};

/**
 * struct vrnic_opcode_info - the fixed layout of one BTH opcode
 * @name: the IBTA name, without "IB_OPCODE_"
 * @flags: VRNIC_OPF_* bits
 * @hdrs: VRNIC_H_* bits of the headers present, BTH included
 * @length: bytes of BTH and extension headers, where the payload starts
 * @offset: of each present header from the start of the BTH
 */
struct vrnic_opcode_info {
	const char	*name;
	u32		flags;
	u16		hdrs;
	u8		length;
	u8		offset[VRNIC_HDR_COUNT];
};

extern const struct vrnic_opcode_info vrnic_opcodes[VRNIC_NUM_OPCODES];

/* The layout of @opcode, or NULL when vrnic does not know the opcode. */
static inline const struct vrnic_opcode_info *
vrnic_opcode_info(unsigned int opcode)
{
	const struct vrnic_opcode_info *info;

	if (opcode >= VRNIC_NUM_OPCODES)
		return NULL;
	info = &vrnic_opcodes[opcode];
	return info->name ? info : NULL;
}

static inline unsigned int vrnic_opcode_transport(u8 opcode)
{
	return opcode & VRNIC_TRANSPORT_MASK;
}

/* The header length of @opcode, or -EINVAL for an unknown opcode. */
static inline int vrnic_hdr_len(unsigned int opcode)
{
	const struct vrnic_opcode_info *info = vrnic_opcode_info(opcode);

	return info ? info->length : -EINVAL;
}

/*
 * The offset of header @type from the start of the BTH in a packet of
 * @opcode; -EINVAL for an unknown opcode or type, -ENOENT when the opcode
 * does not carry that header.
 */
static inline int vrnic_hdr_offset(unsigned int opcode,
				   enum vrnic_hdr_type type)
{
	const struct vrnic_opcode_info *info = vrnic_opcode_info(opcode);

	if (!info || (unsigned int)type >= VRNIC_HDR_COUNT)
		return -EINVAL;
	if (!(info->hdrs & BIT(type)))
		return -ENOENT;
	return info->offset[type];
}

/*
 * Header @type inside the headers at @bth, which are laid out for the
 * opcode in the BTH; NULL when that opcode does not carry the header.
 * For building packets: the receive path gets its pointers from
 * vrnic_parse_hdrs(), which checks the length first.
 */
static inline void *vrnic_hdr_at(void *bth, enum vrnic_hdr_type type)
{
	int off = vrnic_hdr_offset(((struct vrnic_bth *)bth)->opcode, type);

	return off < 0 ? NULL : (u8 *)bth + off;
}

/**
 * struct vrnic_pkt_hdrs - a parsed packet, from vrnic_parse_hdrs()
 * @info: the opcode's layout
 * @bth: the BTH, at the start of the buffer
 * @deth: DETH, or NULL when the opcode has none (likewise below)
 * @feth: FETH
 * @reth: RETH
 * @atmeth: AtomicETH
 * @aeth: AETH
 * @atmack: AtomicAckETH
 * @immdt: ImmDt
 * @ieth: IETH
 * @payload: first payload byte (right after the headers, even when empty)
 * @hdr_len: bytes of headers, @info->length
 * @payload_len: payload bytes, pad excluded
 * @pad: pad bytes between payload and ICRC, from the BTH
 * @icrc_offset: where the ICRC starts, from the BTH; the buffer ends 4
 *	bytes later
 * @opcode: the BTH opcode
 */
struct vrnic_pkt_hdrs {
	const struct vrnic_opcode_info	*info;
	const struct vrnic_bth		*bth;
	const struct vrnic_deth		*deth;
	const struct vrnic_feth		*feth;
	const struct vrnic_reth		*reth;
	const struct vrnic_atmeth	*atmeth;
	const struct vrnic_aeth		*aeth;
	const struct vrnic_atmack	*atmack;
	const struct vrnic_immdt	*immdt;
	const struct vrnic_ieth		*ieth;
	const void			*payload;
	unsigned int			hdr_len;
	unsigned int			payload_len;
	unsigned int			pad;
	unsigned int			icrc_offset;
	u8				opcode;
};

int vrnic_parse_hdrs(const void *buf, unsigned int len,
		     struct vrnic_pkt_hdrs *out);

/**
 * struct vrnic_bth_fields - what a sender puts in a BTH
 * @opcode: BTH opcode
 * @se: solicited event
 * @migreq: migration state (1 once the path is migrated)
 * @ackreq: ask the responder for an ACK
 * @pad: pad bytes after the payload, vrnic_pad_for(payload length)
 * @pkey: partition key
 * @qpn: destination QP
 * @psn: packet sequence number
 */
struct vrnic_bth_fields {
	u8	opcode;
	bool	se;
	bool	migreq;
	bool	ackreq;
	u8	pad;
	u16	pkey;
	u32	qpn;
	u32	psn;
};

int vrnic_build_hdrs(void *buf, unsigned int len,
		     const struct vrnic_bth_fields *f);

#endif /* VRNIC_OPCODE_H */
