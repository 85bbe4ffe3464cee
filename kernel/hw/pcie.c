// SPDX-License-Identifier: GPL-2.0-only
/*
 * vrnic hardware model: the PCIe link (see pcie.h).
 *
 * Copyright (c) 2026 The vrnic authors
 */

#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/math64.h>

#include "pcie.h"

/*
 * The link's data rate per lane in kbit/s after line encoding: 2.5 and
 * 5 GT/s with 8b/10b, 8, 16 and 32 GT/s with 128b/130b.
 */
static u64 vrnic_pcie_lane_kbps(u8 gen)
{
	switch (gen) {
	case 1:
		return 2500000ULL * 8 / 10;
	case 2:
		return 5000000ULL * 8 / 10;
	default:
		return (8000000ULL << (gen - 3)) * 128 / 130;
	}
}

/*
 * How often the receiver sends an ACK DLLP and an UpdateFC DLLP, in bytes
 * of link traffic between two of them: the PCIe Base Specification's
 * recommended Ack latency limits and UpdateFC intervals (rev 5.0, tables
 * 3-7 to 3-9 and 2-46 to 2-48, which agree for the widths modelled here),
 * by generation (Gen3 onwards share a row), width and MPS.
 */
static const u16 vrnic_pcie_dllp_every[3][5][6] = {
	{	/* Gen1 */
		{ 237, 416, 559, 1071, 2095, 4143 },
		{ 128, 217, 289, 545, 1057, 2081 },
		{ 73, 118, 154, 282, 538, 1050 },
		{ 67, 107, 86, 150, 278, 534 },
		{ 48, 72, 86, 150, 278, 534 },
	}, {	/* Gen2 */
		{ 288, 467, 610, 1122, 2146, 4194 },
		{ 179, 268, 340, 596, 1108, 2132 },
		{ 124, 169, 205, 333, 589, 1101 },
		{ 118, 158, 137, 201, 329, 585 },
		{ 99, 123, 137, 201, 329, 585 },
	}, {	/* Gen3, Gen4, Gen5 */
		{ 333, 512, 655, 1167, 2191, 4239 },
		{ 224, 313, 385, 641, 1153, 2177 },
		{ 169, 214, 250, 378, 634, 1146 },
		{ 163, 203, 182, 246, 374, 630 },
		{ 144, 168, 182, 246, 374, 630 },
	},
};

#define VRNIC_PCIE_DLLP_BYTES	8	/* an ACK or UpdateFC DLLP, framed */
#define VRNIC_PCIE_SKIP_BYTES	4	/* a SKIP ordered set ... */
#define VRNIC_PCIE_SKIP_EVERY	1538	/* ... this often */

bool vrnic_pcie_valid(const struct vrnic_pcie *p)
{
	return p->gen >= 1 && p->gen <= 5 &&
	       p->lanes && p->lanes <= 16 && is_power_of_2(p->lanes) &&
	       p->mps >= 128 && p->mps <= 4096 && is_power_of_2(p->mps) &&
	       p->mrrs >= 128 && p->mrrs <= 4096 && is_power_of_2(p->mrrs);
}

/**
 * vrnic_pcie_kbps - the bandwidth the link leaves for TLPs, one direction
 * @p:	a valid configuration
 *
 * The raw rate of all lanes less what ACK and UpdateFC DLLPs and SKIP
 * ordered sets take (pcie-bench's TLP_bw).  Return: kbit/s.
 */
u64 vrnic_pcie_kbps(const struct vrnic_pcie *p)
{
	u64 raw = vrnic_pcie_lane_kbps(p->gen) * p->lanes;
	u32 every = vrnic_pcie_dllp_every[min_t(u8, p->gen, 3) - 1]
					 [ilog2(p->lanes)][ilog2(p->mps) - 7];

	/* One ACK and one UpdateFC per interval. */
	return raw - div_u64(raw * 2 * VRNIC_PCIE_DLLP_BYTES, every) -
	       div_u64(raw * VRNIC_PCIE_SKIP_BYTES, VRNIC_PCIE_SKIP_EVERY);
}

static u32 vrnic_pcie_tlp_overhead(const struct vrnic_pcie *p, u32 hdr)
{
	return VRNIC_PCIE_DLL_BYTES + hdr + (p->ecrc ? VRNIC_PCIE_ECRC_BYTES : 0);
}

/**
 * vrnic_pcie_write - add a DMA write (device to host memory) to @x
 * @p:		a valid configuration
 * @len:	bytes written
 * @x:		accumulates TLPs and link bytes
 *
 * Posted memory writes of at most MPS bytes each, 64-bit addressed.
 */
void vrnic_pcie_write(const struct vrnic_pcie *p, u32 len,
		      struct vrnic_pcie_xfer *x)
{
	/* MPS is a power of 2: shifts, not divisions, on the data path. */
	u32 tlps = ((u64)len + p->mps - 1) >> ilog2(p->mps);

	x->tlps_up += tlps;
	x->bytes_up += len + (u64)tlps *
		vrnic_pcie_tlp_overhead(p, VRNIC_PCIE_HDR_4DW);
}

/**
 * vrnic_pcie_read - add a DMA read (host memory to device) to @x
 * @p:		a valid configuration
 * @len:	bytes read
 * @x:		accumulates TLPs and link bytes
 *
 * Read requests of at most MRRS bytes go up; the host answers each with
 * completions of at most MPS bytes.
 */
void vrnic_pcie_read(const struct vrnic_pcie *p, u32 len,
		     struct vrnic_pcie_xfer *x)
{
	unsigned int rs = ilog2(p->mrrs), ps = ilog2(p->mps);
	u32 reqs = ((u64)len + p->mrrs - 1) >> rs;
	/* Completions per whole request, then for the last partial one. */
	u32 cpls = (len >> rs) * (rs > ps ? 1U << (rs - ps) : 1) +
		   (((len & (p->mrrs - 1)) + p->mps - 1) >> ps);

	x->tlps_up += reqs;
	x->bytes_up += (u64)reqs * vrnic_pcie_tlp_overhead(p, VRNIC_PCIE_HDR_4DW);
	x->tlps_down += cpls;
	x->bytes_down += len + (u64)cpls *
		vrnic_pcie_tlp_overhead(p, VRNIC_PCIE_HDR_CPLD);
}

/**
 * vrnic_pcie_ns - time @bytes of TLP traffic occupy one direction of the link
 * @p:		a valid configuration
 * @bytes:	link bytes, as vrnic_pcie_write() and _read() count them
 *
 * Return: nanoseconds, rounded up.
 */
u64 vrnic_pcie_ns(const struct vrnic_pcie *p, u64 bytes)
{
	return vrnic_pcie_kbps_ns(vrnic_pcie_kbps(p), bytes);
}

/* The same, at a bandwidth vrnic_pcie_kbps() gave: several transfers, one lookup. */
u64 vrnic_pcie_kbps_ns(u64 kbps, u64 bytes)
{
	/* ns = bits / (kbit/s) * 10^6 */
	return div64_u64(bytes * 8 * 1000000 + kbps - 1, kbps);
}

/**
 * vrnic_pcie_ns_per_byte - a link's time per byte, for vrnic_pcie_q32_ns()
 * @kbps:	what vrnic_pcie_kbps() gave (at least Gen1 x1's ~1.9 Gbit/s)
 *
 * Return: nanoseconds per byte in 32.32 fixed point, rounded up, so that
 * the data path multiplies where vrnic_pcie_kbps_ns() divides.
 */
u64 vrnic_pcie_ns_per_byte(u64 kbps)
{
	return div64_u64((8ULL * 1000000 << 32) + kbps - 1, kbps);
}
