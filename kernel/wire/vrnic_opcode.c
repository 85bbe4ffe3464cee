// SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
/*
 * vrnic: the BTH opcode table, the transport header parser and builder.
 *
 * Copyright (c) 2026 The vrnic authors
 */

#include <linux/string.h>
#include <rdma/ib_pack.h>

#include "wire/vrnic_opcode.h"

/*
 * Offsets follow from the set of headers, in wire order (see enum
 * vrnic_hdr_type), so a table entry names its headers and these macros
 * compute where each one starts and how long the headers are together.
 */
#define HSZ(h, t)	(((h) & VRNIC_H_##t) ? VRNIC_##t##_BYTES : 0)
#define OFF_DETH(h)	VRNIC_BTH_BYTES
#define OFF_FETH(h)	(OFF_DETH(h) + HSZ(h, DETH))
#define OFF_RETH(h)	(OFF_FETH(h) + HSZ(h, FETH))
#define OFF_ATMETH(h)	(OFF_RETH(h) + HSZ(h, RETH))
#define OFF_AETH(h)	(OFF_ATMETH(h) + HSZ(h, ATMETH))
#define OFF_ATMACK(h)	(OFF_AETH(h) + HSZ(h, AETH))
#define OFF_IMMDT(h)	(OFF_ATMACK(h) + HSZ(h, ATMACK))
#define OFF_IETH(h)	(OFF_IMMDT(h) + HSZ(h, IMMDT))
#define HDRS_LEN(h)	(OFF_IETH(h) + HSZ(h, IETH))
#define OFF(h, t)	(((h) & VRNIC_H_##t) ? OFF_##t(h) : 0)

#define HDRS(h)								\
	.hdrs	= VRNIC_H_BTH | (h),					\
	.length	= HDRS_LEN(h),						\
	.offset	= {							\
		[VRNIC_HDR_DETH]	= OFF(h, DETH),			\
		[VRNIC_HDR_FETH]	= OFF(h, FETH),			\
		[VRNIC_HDR_RETH]	= OFF(h, RETH),			\
		[VRNIC_HDR_ATMETH]	= OFF(h, ATMETH),		\
		[VRNIC_HDR_AETH]	= OFF(h, AETH),			\
		[VRNIC_HDR_ATMACK]	= OFF(h, ATMACK),		\
		[VRNIC_HDR_IMMDT]	= OFF(h, IMMDT),		\
		[VRNIC_HDR_IETH]	= OFF(h, IETH),			\
	}

/* Requests of the three transports; only RC requests are acknowledged. */
#define RC_REQ		(VRNIC_OPF_REQ | VRNIC_OPF_ACKED)
#define UC_REQ		VRNIC_OPF_REQ
#define UD_REQ		VRNIC_OPF_REQ
/* Every packet of a SEND needs the receive WQE its first packet took. */
#define SEND_PKT	(VRNIC_OPF_SEND | VRNIC_OPF_PAYLOAD | VRNIC_OPF_RWR)
#define WRITE_PKT	(VRNIC_OPF_WRITE | VRNIC_OPF_PAYLOAD)
#define READ_RESP_PKT	(VRNIC_OPF_RESP | VRNIC_OPF_READ_RESP | VRNIC_OPF_PAYLOAD)

/*
 * IBTA Vol 1, 9.2 BTH, the OpCode table, and 9.3 for the extension headers
 * of each opcode.  Opcodes not listed are unknown: their name is NULL.
 */
const struct vrnic_opcode_info vrnic_opcodes[VRNIC_NUM_OPCODES] = {
	/* Reliable Connection */
	[VRNIC_OP_RC_SEND_FIRST] = {
		.name	= "RC_SEND_FIRST",
		.flags	= RC_REQ | SEND_PKT | VRNIC_OPF_FIRST,
		HDRS(0),
	},
	[VRNIC_OP_RC_SEND_MIDDLE] = {
		.name	= "RC_SEND_MIDDLE",
		.flags	= RC_REQ | SEND_PKT | VRNIC_OPF_MIDDLE,
		HDRS(0),
	},
	[VRNIC_OP_RC_SEND_LAST] = {
		.name	= "RC_SEND_LAST",
		.flags	= RC_REQ | SEND_PKT | VRNIC_OPF_LAST,
		HDRS(0),
	},
	[VRNIC_OP_RC_SEND_LAST_WITH_IMMEDIATE] = {
		.name	= "RC_SEND_LAST_WITH_IMMEDIATE",
		.flags	= RC_REQ | SEND_PKT | VRNIC_OPF_LAST,
		HDRS(VRNIC_H_IMMDT),
	},
	[VRNIC_OP_RC_SEND_ONLY] = {
		.name	= "RC_SEND_ONLY",
		.flags	= RC_REQ | SEND_PKT | VRNIC_OPF_ONLY,
		HDRS(0),
	},
	[VRNIC_OP_RC_SEND_ONLY_WITH_IMMEDIATE] = {
		.name	= "RC_SEND_ONLY_WITH_IMMEDIATE",
		.flags	= RC_REQ | SEND_PKT | VRNIC_OPF_ONLY,
		HDRS(VRNIC_H_IMMDT),
	},
	[VRNIC_OP_RC_RDMA_WRITE_FIRST] = {
		.name	= "RC_RDMA_WRITE_FIRST",
		.flags	= RC_REQ | WRITE_PKT | VRNIC_OPF_FIRST,
		HDRS(VRNIC_H_RETH),
	},
	[VRNIC_OP_RC_RDMA_WRITE_MIDDLE] = {
		.name	= "RC_RDMA_WRITE_MIDDLE",
		.flags	= RC_REQ | WRITE_PKT | VRNIC_OPF_MIDDLE,
		HDRS(0),
	},
	[VRNIC_OP_RC_RDMA_WRITE_LAST] = {
		.name	= "RC_RDMA_WRITE_LAST",
		.flags	= RC_REQ | WRITE_PKT | VRNIC_OPF_LAST,
		HDRS(0),
	},
	/* The immediate data completes a receive WQE, taken at the end. */
	[VRNIC_OP_RC_RDMA_WRITE_LAST_WITH_IMMEDIATE] = {
		.name	= "RC_RDMA_WRITE_LAST_WITH_IMMEDIATE",
		.flags	= RC_REQ | WRITE_PKT | VRNIC_OPF_LAST | VRNIC_OPF_RWR,
		HDRS(VRNIC_H_IMMDT),
	},
	[VRNIC_OP_RC_RDMA_WRITE_ONLY] = {
		.name	= "RC_RDMA_WRITE_ONLY",
		.flags	= RC_REQ | WRITE_PKT | VRNIC_OPF_ONLY,
		HDRS(VRNIC_H_RETH),
	},
	[VRNIC_OP_RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE] = {
		.name	= "RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE",
		.flags	= RC_REQ | WRITE_PKT | VRNIC_OPF_ONLY | VRNIC_OPF_RWR,
		HDRS(VRNIC_H_RETH | VRNIC_H_IMMDT),
	},
	/* One request packet; the data comes back in read responses. */
	[VRNIC_OP_RC_RDMA_READ_REQUEST] = {
		.name	= "RC_RDMA_READ_REQUEST",
		.flags	= RC_REQ | VRNIC_OPF_READ | VRNIC_OPF_ONLY,
		HDRS(VRNIC_H_RETH),
	},
	/* Middle responses carry no AETH (9.3, AETH). */
	[VRNIC_OP_RC_RDMA_READ_RESPONSE_FIRST] = {
		.name	= "RC_RDMA_READ_RESPONSE_FIRST",
		.flags	= READ_RESP_PKT | VRNIC_OPF_FIRST,
		HDRS(VRNIC_H_AETH),
	},
	[VRNIC_OP_RC_RDMA_READ_RESPONSE_MIDDLE] = {
		.name	= "RC_RDMA_READ_RESPONSE_MIDDLE",
		.flags	= READ_RESP_PKT | VRNIC_OPF_MIDDLE,
		HDRS(0),
	},
	[VRNIC_OP_RC_RDMA_READ_RESPONSE_LAST] = {
		.name	= "RC_RDMA_READ_RESPONSE_LAST",
		.flags	= READ_RESP_PKT | VRNIC_OPF_LAST,
		HDRS(VRNIC_H_AETH),
	},
	[VRNIC_OP_RC_RDMA_READ_RESPONSE_ONLY] = {
		.name	= "RC_RDMA_READ_RESPONSE_ONLY",
		.flags	= READ_RESP_PKT | VRNIC_OPF_ONLY,
		HDRS(VRNIC_H_AETH),
	},
	[VRNIC_OP_RC_ACKNOWLEDGE] = {
		.name	= "RC_ACKNOWLEDGE",
		.flags	= VRNIC_OPF_RESP | VRNIC_OPF_ACK | VRNIC_OPF_ONLY,
		HDRS(VRNIC_H_AETH),
	},
	[VRNIC_OP_RC_ATOMIC_ACKNOWLEDGE] = {
		.name	= "RC_ATOMIC_ACKNOWLEDGE",
		.flags	= VRNIC_OPF_RESP | VRNIC_OPF_ATOMIC_ACK | VRNIC_OPF_ONLY,
		HDRS(VRNIC_H_AETH | VRNIC_H_ATMACK),
	},
	[VRNIC_OP_RC_COMPARE_SWAP] = {
		.name	= "RC_COMPARE_SWAP",
		.flags	= RC_REQ | VRNIC_OPF_ATOMIC | VRNIC_OPF_ONLY,
		HDRS(VRNIC_H_ATMETH),
	},
	[VRNIC_OP_RC_FETCH_ADD] = {
		.name	= "RC_FETCH_ADD",
		.flags	= RC_REQ | VRNIC_OPF_ATOMIC | VRNIC_OPF_ONLY,
		HDRS(VRNIC_H_ATMETH),
	},
	[VRNIC_OP_RC_SEND_LAST_WITH_INVALIDATE] = {
		.name	= "RC_SEND_LAST_WITH_INVALIDATE",
		.flags	= RC_REQ | SEND_PKT | VRNIC_OPF_LAST,
		HDRS(VRNIC_H_IETH),
	},
	[VRNIC_OP_RC_SEND_ONLY_WITH_INVALIDATE] = {
		.name	= "RC_SEND_ONLY_WITH_INVALIDATE",
		.flags	= RC_REQ | SEND_PKT | VRNIC_OPF_ONLY,
		HDRS(VRNIC_H_IETH),
	},
	/* IBTA 1.5 memory placement extensions: FETH precedes RETH. */
	[VRNIC_OP_RC_FLUSH] = {
		.name	= "RC_FLUSH",
		.flags	= RC_REQ | VRNIC_OPF_FLUSH | VRNIC_OPF_ONLY,
		HDRS(VRNIC_H_FETH | VRNIC_H_RETH),
	},
	/* IBTA 1.5: RETH and exactly 8 payload bytes, written atomically. */
	[VRNIC_OP_RC_ATOMIC_WRITE] = {
		.name	= "RC_ATOMIC_WRITE",
		.flags	= RC_REQ | VRNIC_OPF_ATOMIC_WRITE | VRNIC_OPF_PAYLOAD |
			  VRNIC_OPF_ONLY,
		HDRS(VRNIC_H_RETH),
	},

	/* Unreliable Connection: sends and writes, never acknowledged */
	[VRNIC_OP_UC_SEND_FIRST] = {
		.name	= "UC_SEND_FIRST",
		.flags	= UC_REQ | SEND_PKT | VRNIC_OPF_FIRST,
		HDRS(0),
	},
	[VRNIC_OP_UC_SEND_MIDDLE] = {
		.name	= "UC_SEND_MIDDLE",
		.flags	= UC_REQ | SEND_PKT | VRNIC_OPF_MIDDLE,
		HDRS(0),
	},
	[VRNIC_OP_UC_SEND_LAST] = {
		.name	= "UC_SEND_LAST",
		.flags	= UC_REQ | SEND_PKT | VRNIC_OPF_LAST,
		HDRS(0),
	},
	[VRNIC_OP_UC_SEND_LAST_WITH_IMMEDIATE] = {
		.name	= "UC_SEND_LAST_WITH_IMMEDIATE",
		.flags	= UC_REQ | SEND_PKT | VRNIC_OPF_LAST,
		HDRS(VRNIC_H_IMMDT),
	},
	[VRNIC_OP_UC_SEND_ONLY] = {
		.name	= "UC_SEND_ONLY",
		.flags	= UC_REQ | SEND_PKT | VRNIC_OPF_ONLY,
		HDRS(0),
	},
	[VRNIC_OP_UC_SEND_ONLY_WITH_IMMEDIATE] = {
		.name	= "UC_SEND_ONLY_WITH_IMMEDIATE",
		.flags	= UC_REQ | SEND_PKT | VRNIC_OPF_ONLY,
		HDRS(VRNIC_H_IMMDT),
	},
	[VRNIC_OP_UC_RDMA_WRITE_FIRST] = {
		.name	= "UC_RDMA_WRITE_FIRST",
		.flags	= UC_REQ | WRITE_PKT | VRNIC_OPF_FIRST,
		HDRS(VRNIC_H_RETH),
	},
	[VRNIC_OP_UC_RDMA_WRITE_MIDDLE] = {
		.name	= "UC_RDMA_WRITE_MIDDLE",
		.flags	= UC_REQ | WRITE_PKT | VRNIC_OPF_MIDDLE,
		HDRS(0),
	},
	[VRNIC_OP_UC_RDMA_WRITE_LAST] = {
		.name	= "UC_RDMA_WRITE_LAST",
		.flags	= UC_REQ | WRITE_PKT | VRNIC_OPF_LAST,
		HDRS(0),
	},
	[VRNIC_OP_UC_RDMA_WRITE_LAST_WITH_IMMEDIATE] = {
		.name	= "UC_RDMA_WRITE_LAST_WITH_IMMEDIATE",
		.flags	= UC_REQ | WRITE_PKT | VRNIC_OPF_LAST | VRNIC_OPF_RWR,
		HDRS(VRNIC_H_IMMDT),
	},
	[VRNIC_OP_UC_RDMA_WRITE_ONLY] = {
		.name	= "UC_RDMA_WRITE_ONLY",
		.flags	= UC_REQ | WRITE_PKT | VRNIC_OPF_ONLY,
		HDRS(VRNIC_H_RETH),
	},
	[VRNIC_OP_UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE] = {
		.name	= "UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE",
		.flags	= UC_REQ | WRITE_PKT | VRNIC_OPF_ONLY | VRNIC_OPF_RWR,
		HDRS(VRNIC_H_RETH | VRNIC_H_IMMDT),
	},

	/* Unreliable Datagram: single-packet sends with a DETH */
	[VRNIC_OP_UD_SEND_ONLY] = {
		.name	= "UD_SEND_ONLY",
		.flags	= UD_REQ | SEND_PKT | VRNIC_OPF_ONLY,
		HDRS(VRNIC_H_DETH),
	},
	[VRNIC_OP_UD_SEND_ONLY_WITH_IMMEDIATE] = {
		.name	= "UD_SEND_ONLY_WITH_IMMEDIATE",
		.flags	= UD_REQ | SEND_PKT | VRNIC_OPF_ONLY,
		HDRS(VRNIC_H_DETH | VRNIC_H_IMMDT),
	},
};

/*
 * The opcodes and sizes the rest of the kernel knows must agree; 6.1's
 * ib_pack.h predates FLUSH and ATOMIC WRITE.
 */
#define SAME_OPCODE(op)	static_assert((int)VRNIC_OP_##op == (int)IB_OPCODE_##op)
SAME_OPCODE(RC_SEND_FIRST);
SAME_OPCODE(RC_SEND_MIDDLE);
SAME_OPCODE(RC_SEND_LAST);
SAME_OPCODE(RC_SEND_LAST_WITH_IMMEDIATE);
SAME_OPCODE(RC_SEND_ONLY);
SAME_OPCODE(RC_SEND_ONLY_WITH_IMMEDIATE);
SAME_OPCODE(RC_RDMA_WRITE_FIRST);
SAME_OPCODE(RC_RDMA_WRITE_MIDDLE);
SAME_OPCODE(RC_RDMA_WRITE_LAST);
SAME_OPCODE(RC_RDMA_WRITE_LAST_WITH_IMMEDIATE);
SAME_OPCODE(RC_RDMA_WRITE_ONLY);
SAME_OPCODE(RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE);
SAME_OPCODE(RC_RDMA_READ_REQUEST);
SAME_OPCODE(RC_RDMA_READ_RESPONSE_FIRST);
SAME_OPCODE(RC_RDMA_READ_RESPONSE_MIDDLE);
SAME_OPCODE(RC_RDMA_READ_RESPONSE_LAST);
SAME_OPCODE(RC_RDMA_READ_RESPONSE_ONLY);
SAME_OPCODE(RC_ACKNOWLEDGE);
SAME_OPCODE(RC_ATOMIC_ACKNOWLEDGE);
SAME_OPCODE(RC_COMPARE_SWAP);
SAME_OPCODE(RC_FETCH_ADD);
SAME_OPCODE(RC_SEND_LAST_WITH_INVALIDATE);
SAME_OPCODE(RC_SEND_ONLY_WITH_INVALIDATE);
SAME_OPCODE(UC_SEND_FIRST);
SAME_OPCODE(UC_SEND_MIDDLE);
SAME_OPCODE(UC_SEND_LAST);
SAME_OPCODE(UC_SEND_LAST_WITH_IMMEDIATE);
SAME_OPCODE(UC_SEND_ONLY);
SAME_OPCODE(UC_SEND_ONLY_WITH_IMMEDIATE);
SAME_OPCODE(UC_RDMA_WRITE_FIRST);
SAME_OPCODE(UC_RDMA_WRITE_MIDDLE);
SAME_OPCODE(UC_RDMA_WRITE_LAST);
SAME_OPCODE(UC_RDMA_WRITE_LAST_WITH_IMMEDIATE);
SAME_OPCODE(UC_RDMA_WRITE_ONLY);
SAME_OPCODE(UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE);
SAME_OPCODE(UD_SEND_ONLY);
SAME_OPCODE(UD_SEND_ONLY_WITH_IMMEDIATE);
static_assert(VRNIC_BTH_BYTES == IB_BTH_BYTES);
static_assert(VRNIC_DETH_BYTES == IB_DETH_BYTES);
static_assert(VRNIC_ATMETH_BYTES == IB_EXT_ATOMICETH_BYTES);
static_assert(VRNIC_ICRC_BYTES == IB_ICRC_BYTES);
static_assert(HDRS_LEN(VRNIC_H_ATMETH) == VRNIC_MAX_HDR_BYTES);

/* Header @type of a packet laid out as @info, or NULL when it has none. */
static const void *hdr_ptr(const u8 *hdr, const struct vrnic_opcode_info *info,
			   enum vrnic_hdr_type type)
{
	return info->hdrs & BIT(type) ? hdr + info->offset[type] : NULL;
}

/**
 * vrnic_parse_hdrs() - validate the transport part of a received packet
 * @buf: the UDP payload: BTH, extension headers, payload, pad and ICRC
 * @len: bytes at @buf, from the UDP length; nothing beyond is read
 * @out: filled with the layout on success, zeroed on failure
 *
 * Checks what the packet alone can tell, before any QP is looked up
 * (IBTA 9.6 packet header validation, the transport checks that need no
 * QP context): a known opcode and transport version, a length that holds
 * the opcode's headers and the ICRC, and a pad count that fits:
 *
 * - a packet is a whole number of 4-byte words, which is what the pad count
 *   is for (9.2: payload + pad fills the last word);
 * - opcodes without payload carry none, and no pad;
 * - only the last (or only) packet of a message may be padded: the others
 *   carry a full path MTU, a multiple of 4;
 * - RDMA ATOMIC WRITE carries exactly 8 bytes.
 *
 * Path-MTU, PSN, P_Key and QP checks belong to the receive path.  The ICRC
 * itself is checked by vrnic_icrc_check(), which needs the IP header.
 *
 * Return: 0; -EPROTO for an opcode or transport version vrnic does not
 * implement; -EINVAL for a malformed length or pad count.  The receive
 * path decides what follows (rxe drops such packets silently).
 */
int vrnic_parse_hdrs(const void *buf, unsigned int len,
		     struct vrnic_pkt_hdrs *out)
{
	const struct vrnic_opcode_info *info;
	const struct vrnic_bth *bth = buf;
	const u8 *hdr = buf;
	unsigned int rest, pad;

	memset(out, 0, sizeof(*out));

	if (len < VRNIC_BTH_BYTES + VRNIC_ICRC_BYTES)
		return -EINVAL;
	info = vrnic_opcode_info(bth->opcode);
	if (!info)
		return -EPROTO;
	if (vrnic_bth_tver(bth) != VRNIC_BTH_TVER)
		return -EPROTO;
	if (len % 4 || len < info->length + VRNIC_ICRC_BYTES)
		return -EINVAL;

	/* Payload and pad, a multiple of 4 since headers and ICRC are. */
	rest = len - info->length - VRNIC_ICRC_BYTES;
	pad = vrnic_bth_pad(bth);
	if (pad > rest)
		return -EINVAL;
	if (!(info->flags & VRNIC_OPF_PAYLOAD) && rest)
		return -EINVAL;
	if (pad && !(info->flags & VRNIC_OPF_LAST))
		return -EINVAL;
	if ((info->flags & VRNIC_OPF_ATOMIC_WRITE) &&
	    (rest != VRNIC_ATOMIC_WRITE_BYTES || pad))
		return -EINVAL;

	out->info = info;
	out->opcode = bth->opcode;
	out->bth = bth;
	out->deth = hdr_ptr(hdr, info, VRNIC_HDR_DETH);
	out->feth = hdr_ptr(hdr, info, VRNIC_HDR_FETH);
	out->reth = hdr_ptr(hdr, info, VRNIC_HDR_RETH);
	out->atmeth = hdr_ptr(hdr, info, VRNIC_HDR_ATMETH);
	out->aeth = hdr_ptr(hdr, info, VRNIC_HDR_AETH);
	out->atmack = hdr_ptr(hdr, info, VRNIC_HDR_ATMACK);
	out->immdt = hdr_ptr(hdr, info, VRNIC_HDR_IMMDT);
	out->ieth = hdr_ptr(hdr, info, VRNIC_HDR_IETH);
	out->hdr_len = info->length;
	out->payload = hdr + info->length;
	out->payload_len = rest - pad;
	out->pad = pad;
	out->icrc_offset = len - VRNIC_ICRC_BYTES;
	return 0;
}

/**
 * vrnic_build_hdrs() - lay out the headers of a packet to send
 * @buf: where the BTH goes
 * @len: bytes available at @buf
 * @f: the BTH fields, @f->opcode selects the layout
 *
 * Writes the BTH (transport version 0, reserved bits zero) and zeroes the
 * extension headers of @f->opcode, which the caller then fills through
 * vrnic_hdr_at() and the vrnic_*_set() helpers of vrnic_hdr.h.  The payload
 * goes at @buf + the returned length, then @f->pad zero bytes, then the ICRC.
 *
 * Return: the header length; -EINVAL for an unknown opcode, a pad count
 * above 3, or @len too short for the headers.
 */
int vrnic_build_hdrs(void *buf, unsigned int len,
		     const struct vrnic_bth_fields *f)
{
	const struct vrnic_opcode_info *info = vrnic_opcode_info(f->opcode);
	struct vrnic_bth *bth = buf;

	if (!info || f->pad > 3 || len < info->length)
		return -EINVAL;

	memset(buf, 0, info->length);
	bth->opcode = f->opcode;
	bth->flags = (f->se ? VRNIC_BTH_SE : 0) |
		     (f->migreq ? VRNIC_BTH_MIGREQ : 0) |
		     (f->pad << VRNIC_BTH_PAD_SHIFT) | VRNIC_BTH_TVER;
	vrnic_bth_set_pkey(bth, f->pkey);
	vrnic_bth_set_qpn(bth, f->qpn);
	bth->apsn = cpu_to_be32((f->ackreq ? VRNIC_BTH_ACKREQ : 0) |
				(f->psn & VRNIC_PSN_MASK));
	return info->length;
}
