/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * vrnic: the RoCEv2 invariant CRC (IBTA Vol 1, Annex A17.3.3).
 *
 * The ICRC is a CRC-32 (IEEE 802.3 polynomial, as Ethernet's FCS) over
 *   8 bytes of 0xff standing in for the LRH RoCEv2 does not have,
 *   the IP header with its variant fields set to all ones (IPv4: TOS, TTL,
 *	header checksum; IPv6: traffic class, flow label, hop limit),
 *   the UDP header with its checksum set to all ones,
 *   the BTH with its resv8a byte (byte 4) set to all ones,
 *   and everything after the BTH up to the ICRC: extension headers,
 *	payload and pad,
 * with the CRC register preset to all ones and the result complemented.
 *
 * Byte order: the functions return the ICRC as a CPU-order u32 and the
 * packet carries it little-endian, least significant byte first, as the
 * Ethernet FCS is sent.  This is what hardware and rdma_rxe on x86 put on
 * the wire (rxe stores the CPU-order value); use vrnic_icrc_generate() and
 * vrnic_icrc_check(), or put_unaligned_le32()/get_unaligned_le32().
 *
 * IPv4 headers with options and IPv6 extension headers are refused
 * (-EINVAL): RoCEv2 senders never use them, and rxe would compute a
 * different ICRC for them.
 *
 * Copyright (c) 2026 The vrnic authors
 */

#ifndef VRNIC_ICRC_H
#define VRNIC_ICRC_H

#include <linux/types.h>

struct sk_buff;

/*
 * The CRC register after the 8 bytes of 0xff that replace the LRH, from a
 * preset of ~0: crc32_le(~0, ff ff ff ff ff ff ff ff).
 */
#define VRNIC_ICRC_SEED		0xdebb20e3U

void vrnic_icrc_init(void);
void vrnic_icrc_exit(void);
int vrnic_icrc_compute(const void *iph, unsigned int len, u32 *icrc);
int vrnic_icrc_skb(struct sk_buff *skb, u32 *icrc);
int vrnic_icrc_generate(struct sk_buff *skb);
int vrnic_icrc_check(struct sk_buff *skb);

#endif /* VRNIC_ICRC_H */
