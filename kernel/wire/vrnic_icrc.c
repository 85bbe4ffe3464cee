// SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
/*
 * vrnic: the RoCEv2 invariant CRC over a linear buffer or an skb.
 *
 * The CRC is CRC-32 from a preset register, computed by the faster of the
 * kernel's two ways, timed at module load as raid6 and xor choose theirs:
 * crc32_le() (lib/crc32, table driven), or the "crc32" shash, which is the
 * platform's accelerated one where there is one (crc32-pclmul on x86, as
 * rdma_rxe uses) and crc32_le() behind a crypto call where not.  Under
 * QEMU's TCG the PCLMULQDQ instruction is emulated, and the table may win.
 * The load logs both rates, and memcpy's, per KiB: the cost of the one
 * pass over a payload against the other.  See vrnic_icrc.h for what the
 * CRC covers and its byte order on the wire.
 *
 * Copyright (c) 2026 The vrnic authors
 */

#include <crypto/hash.h>
#include <linux/crc32.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/mm.h>
#include <linux/random.h>
#include <linux/sizes.h>
#include <linux/skbuff.h>
#include <linux/string.h>
#include <linux/udp.h>

#include "vrnic_compat.h"
#include "wire/vrnic_hdr.h"
#include "wire/vrnic_icrc.h"

#define UDP_BYTES	sizeof(struct udphdr)

/* The headers with variant fields: IP (IPv6 is the longer), UDP and BTH. */
#define MASKED_MAX	(sizeof(struct ipv6hdr) + UDP_BYTES + VRNIC_BTH_BYTES)

/* The "crc32" shash, when it timed faster than crc32_le(); else NULL. */
static struct crypto_shash *vrnic_crc_tfm;

static u32 vrnic_crc32_shash(struct crypto_shash *tfm, u32 crc,
			     const void *p, unsigned int len)
{
	SHASH_DESC_ON_STACK(desc, tfm);

	desc->tfm = tfm;
	/* The crc32 shashes keep the register, unfinalised, in their context. */
	*(u32 *)shash_desc_ctx(desc) = crc;
	if (crypto_shash_update(desc, p, len))
		return crc32_le(crc, p, len);
	crc = *(u32 *)shash_desc_ctx(desc);
	shash_desc_zero(desc);
	return crc;
}

/* crc32_le() of @len bytes from register @crc, the faster way. */
static u32 vrnic_crc32(u32 crc, const void *p, unsigned int len)
{
	if (!vrnic_crc_tfm)
		return crc32_le(crc, p, len);
	return vrnic_crc32_shash(vrnic_crc_tfm, crc, p, len);
}

#define BENCH_BYTES	SZ_4K
#define BENCH_ROUNDS	64

/* Nanoseconds per KiB: 0 = memcpy, 1 = crc32_le(), 2 = the shash. */
static u64 vrnic_icrc_time(int how, struct crypto_shash *tfm, u8 *buf)
{
	u64 t0, best = U64_MAX;
	u32 crc = ~0;
	int r, i;

	/* The best of three, each BENCH_ROUNDS passes over 4 KiB. */
	for (r = 0; r < 3; r++) {
		t0 = ktime_get_ns();
		for (i = 0; i < BENCH_ROUNDS; i++) {
			if (how == 0)
				memcpy(buf + BENCH_BYTES, buf, BENCH_BYTES);
			else if (how == 1)
				crc = crc32_le(crc, buf, BENCH_BYTES);
			else
				crc = vrnic_crc32_shash(tfm, crc, buf, BENCH_BYTES);
		}
		best = min(best, ktime_get_ns() - t0);
		cond_resched();
	}
	/* Keep the CRCs from being optimised out. */
	buf[0] ^= crc & 1;
	return div_u64(best, BENCH_ROUNDS * (BENCH_BYTES / SZ_1K));
}

/**
 * vrnic_icrc_init() - choose how every device computes the ICRC
 *
 * Times crc32_le() against the "crc32" shash (and memcpy, for scale) and
 * keeps the faster; without a shash, or without memory to time them in,
 * crc32_le() it is.  Context: process (module load).
 */
void vrnic_icrc_init(void)
{
	struct crypto_shash *tfm = crypto_alloc_shash("crc32", 0, 0);
	u64 copy, lib, sh;
	u8 *buf;

	if (IS_ERR(tfm)) {
		pr_info("vrnic: no crc32 shash (%ld), ICRC by crc32_le()\n",
			PTR_ERR(tfm));
		return;
	}
	buf = kvmalloc(2 * BENCH_BYTES, GFP_KERNEL);
	if (!buf) {
		crypto_free_shash(tfm);
		return;
	}
	get_random_bytes(buf, BENCH_BYTES);
	copy = vrnic_icrc_time(0, tfm, buf);
	lib = vrnic_icrc_time(1, tfm, buf);
	sh = vrnic_icrc_time(2, tfm, buf);
	kvfree(buf);
	pr_info("vrnic: per KiB: memcpy %llu ns, crc32_le %llu ns, %s %llu ns; ICRC by %s\n",
		copy, lib, crypto_shash_driver_name(tfm), sh,
		sh < lib ? crypto_shash_driver_name(tfm) : "crc32_le");
	if (sh < lib)
		vrnic_crc_tfm = tfm;
	else
		crypto_free_shash(tfm);
}

void vrnic_icrc_exit(void)
{
	crypto_free_shash(vrnic_crc_tfm);
	vrnic_crc_tfm = NULL;
}

/* What the BTH's resv8a byte and the other variant fields are set to. */
#define VARIANT		0xff

/**
 * vrnic_icrc_layout() - check the IP and UDP headers a RoCEv2 ICRC covers
 * @iph: the IP header
 * @avail: bytes readable at @iph
 * @iplen: set to the IP header length; the UDP header follows it
 * @udplen: set to the UDP length: UDP header, BTH ... ICRC
 *
 * Return: 0, or -EINVAL when the headers are not those of a RoCEv2 packet
 * that vrnic can check: IPv4 without options or IPv6 without extension
 * headers, carrying UDP, long enough for a BTH and an ICRC.
 */
static int vrnic_icrc_layout(const u8 *iph, unsigned int avail,
			     unsigned int *iplen, unsigned int *udplen)
{
	const struct udphdr *uh;

	if (avail < sizeof(struct iphdr))
		return -EINVAL;

	switch (iph[0] >> 4) {
	case 4: {
		const struct iphdr *ip4 = (const void *)iph;

		if (ip4->ihl != 5 || ip4->protocol != IPPROTO_UDP)
			return -EINVAL;
		*iplen = sizeof(*ip4);
		break;
	}
	case 6: {
		const struct ipv6hdr *ip6 = (const void *)iph;

		if (avail < sizeof(*ip6) || ip6->nexthdr != IPPROTO_UDP)
			return -EINVAL;
		*iplen = sizeof(*ip6);
		break;
	}
	default:
		return -EINVAL;
	}

	if (avail < *iplen + UDP_BYTES)
		return -EINVAL;
	uh = (const void *)(iph + *iplen);
	*udplen = ntohs(uh->len);
	if (*udplen < UDP_BYTES + VRNIC_BTH_BYTES + VRNIC_ICRC_BYTES)
		return -EINVAL;
	return 0;
}

/*
 * The CRC register after the LRH placeholder (in the seed) and the IP, UDP
 * and BTH headers with their variant fields set to all ones (A17.3.3).
 * @iph holds @iplen bytes of IP header and the UDP header; @bth the BTH,
 * passed apart because it may sit in a paged part of an skb.
 */
static u32 vrnic_icrc_masked(const u8 *iph, unsigned int iplen,
			     const void *bth)
{
	u8 buf[MASKED_MAX] __aligned(4);
	struct udphdr *uh = (void *)(buf + iplen);
	u8 *b = buf + iplen + UDP_BYTES;

	memcpy(buf, iph, iplen + UDP_BYTES);
	if (iplen == sizeof(struct iphdr)) {
		struct iphdr *ip4 = (void *)buf;

		/* DSCP/ECN and TTL change hop by hop, and so does the sum. */
		ip4->tos = VARIANT;
		ip4->ttl = VARIANT;
		ip4->check = (__force __sum16)0xffff;
	} else {
		struct ipv6hdr *ip6 = (void *)buf;

		/* Traffic class: the low nibble of byte 0, the high of byte 1. */
		buf[0] |= 0x0f;
		memset(ip6->flow_lbl, VARIANT, sizeof(ip6->flow_lbl));
		ip6->hop_limit = VARIANT;
	}
	/* UDP checksum: optional, and may be filled in by the NIC. */
	uh->check = (__force __sum16)0xffff;

	memcpy(b, bth, VRNIC_BTH_BYTES);
	/* resv8a: FECN/BECN on InfiniBand, changed by switches. */
	b[offsetof(struct vrnic_bth, qpn)] = VARIANT;

	return vrnic_crc32(VRNIC_ICRC_SEED, buf, iplen + UDP_BYTES + VRNIC_BTH_BYTES);
}

/**
 * vrnic_icrc_compute() - ICRC of a RoCEv2 packet in a linear buffer
 * @iph: the packet's IPv4 or IPv6 header
 * @len: bytes readable at @iph; the packet ends where its UDP length says
 * @icrc: set to the ICRC, in CPU order (the wire carries it little-endian)
 *
 * The CRC stops before the packet's last 4 bytes, where the ICRC goes, so
 * this serves both to generate and to check one.
 *
 * Return: 0, or -EINVAL for a packet vrnic_icrc_layout() refuses or one
 * longer than @len.
 */
int vrnic_icrc_compute(const void *iph, unsigned int len, u32 *icrc)
{
	unsigned int iplen, udplen, bth, end;
	const u8 *p = iph;
	u32 crc;
	int err;

	err = vrnic_icrc_layout(p, len, &iplen, &udplen);
	if (err)
		return err;
	if (len < iplen + udplen)
		return -EINVAL;

	bth = iplen + UDP_BYTES;
	end = iplen + udplen - VRNIC_ICRC_BYTES;
	crc = vrnic_icrc_masked(p, iplen, p + bth);
	crc = vrnic_crc32(crc, p + bth + VRNIC_BTH_BYTES,
			  end - bth - VRNIC_BTH_BYTES);
	*icrc = ~crc;
	return 0;
}

/*
 * The ICRC of @skb and where it goes, as an offset from skb->data.
 *
 * The IP and UDP headers must be in the linear part, at the network header:
 * they are on transmit once the caller has pushed them, and on receive once
 * IP and UDP have pulled them.  skb->data may be anywhere up to the BTH (at
 * the IP header, at the UDP header in an encap_rcv handler, or at the BTH
 * after pulling UDP); the BTH and everything after it may be paged.
 */
static int vrnic_icrc_skb_off(struct sk_buff *skb, u32 *icrc, int *icrc_off)
{
	const u8 *iph = skb_network_header(skb);
	unsigned int iplen, udplen, todo, n, done = 0;
	u8 bth_buf[VRNIC_BTH_BYTES];
	struct skb_seq_state st;
	const void *bth;
	const u8 *data;
	int bth_off;
	u32 crc;
	int err;

	if (iph < skb->head || iph >= skb_tail_pointer(skb))
		return -EINVAL;
	err = vrnic_icrc_layout(iph, skb_tail_pointer(skb) - iph,
				&iplen, &udplen);
	if (err)
		return err;

	bth_off = skb_network_offset(skb) + iplen + UDP_BYTES;
	if (bth_off < 0 ||
	    skb->len < (unsigned int)bth_off + udplen - UDP_BYTES)
		return -EINVAL;

	bth = skb_header_pointer(skb, bth_off, VRNIC_BTH_BYTES, bth_buf);
	if (!bth)
		return -EINVAL;
	crc = vrnic_icrc_masked(iph, iplen, bth);

	/* The rest, block by block through the linear part and the frags. */
	todo = udplen - UDP_BYTES - VRNIC_BTH_BYTES - VRNIC_ICRC_BYTES;
	skb_prepare_seq_read(skb, bth_off + VRNIC_BTH_BYTES,
			     bth_off + VRNIC_BTH_BYTES + todo, &st);
	while (done < todo) {
		n = skb_seq_read(done, &data, &st);
		if (!n)
			break;
		/* A block may run past the upper offset: clamp it. */
		n = min(n, todo - done);
		crc = vrnic_crc32(crc, data, n);
		done += n;
	}
	skb_abort_seq_read(&st);
	if (done != todo)
		return -EINVAL;

	*icrc = ~crc;
	*icrc_off = bth_off + udplen - UDP_BYTES - VRNIC_ICRC_BYTES;
	return 0;
}

/**
 * vrnic_icrc_skb() - ICRC of the RoCEv2 packet in an skb
 * @skb: the packet; see vrnic_icrc_skb_off() for where its headers must be
 * @icrc: set to the ICRC, in CPU order
 *
 * Return: 0, or -EINVAL for a packet that is not RoCEv2 as vrnic sends it
 * or is shorter than its UDP length.
 */
int vrnic_icrc_skb(struct sk_buff *skb, u32 *icrc)
{
	int off;

	return vrnic_icrc_skb_off(skb, icrc, &off);
}

/**
 * vrnic_icrc_generate() - write the ICRC into the last 4 bytes of a packet
 * @skb: a packet to send, with its IP and UDP headers final (the variant
 *	fields excepted) and 4 bytes reserved at the end of the UDP payload
 *
 * Context: @skb must be writable (not cloned).
 * Return: 0 or -EINVAL.
 */
int vrnic_icrc_generate(struct sk_buff *skb)
{
	__le32 wire;
	u32 icrc;
	int off;
	int err;

	err = vrnic_icrc_skb_off(skb, &icrc, &off);
	if (err)
		return err;
	wire = cpu_to_le32(icrc);
	return skb_store_bits(skb, off, &wire, sizeof(wire));
}

/**
 * vrnic_icrc_check() - check the ICRC of a received packet
 * @skb: the packet as UDP delivers it (see vrnic_icrc_skb_off())
 *
 * Return: 0 when the ICRC matches, -EBADMSG when it does not (IBTA: drop the
 * packet silently), -EINVAL for a malformed packet.
 */
int vrnic_icrc_check(struct sk_buff *skb)
{
	__le32 buf;
	const __le32 *wire;
	u32 icrc;
	int off;
	int err;

	err = vrnic_icrc_skb_off(skb, &icrc, &off);
	if (err)
		return err;
	wire = skb_header_pointer(skb, off, sizeof(buf), &buf);
	if (!wire)
		return -EINVAL;
	return get_unaligned_le32(wire) == icrc ? 0 : -EBADMSG;
}
