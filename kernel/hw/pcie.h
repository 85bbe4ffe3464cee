/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vrnic hardware model: the PCIe link between the NIC and the host.
 *
 * Turns a DMA read or write of N bytes into TLPs, bytes on the link and
 * time, following the pcie-bench model (Neugebauer et al., "Understanding
 * PCIe performance for end host networking", SIGCOMM 2018): every TLP
 * carries its header, sequence number, LCRC and framing; ACK and flow
 * control DLLPs and SKIP ordered sets take their share of the link; the
 * physical layer encodes 8b/10b (Gen1, Gen2) or 128b/130b (Gen3-5).
 * Documentation/model.rst gives the formulas.  Pure arithmetic: no state,
 * no locks, callable from any context.
 *
 * Copyright (c) 2026 The vrnic authors
 */

#ifndef VRNIC_HW_PCIE_H
#define VRNIC_HW_PCIE_H

#include <linux/math64.h>
#include <linux/types.h>

/* The link's configuration (the pcie.* knobs). */
struct vrnic_pcie {
	u8	gen;	/* 1..5 */
	u8	lanes;	/* 1, 2, 4, 8, 16 */
	u16	mps;	/* Max Payload Size, 128..4096, a power of 2 */
	u16	mrrs;	/* Max Read Request Size, 128..4096, a power of 2 */
	bool	ecrc;	/* a 4-byte digest on every TLP */
};

/*
 * What a transfer puts on the link, per direction as the device sees it:
 * "up" is device to host (memory writes, read requests), "down" is host to
 * device (read completions with data).
 */
struct vrnic_pcie_xfer {
	u32	tlps_up;
	u32	tlps_down;
	u64	bytes_up;	/* with all TLP overhead */
	u64	bytes_down;
};

/* Per TLP overhead in bytes: framing 2, sequence 2, LCRC 4 (the DLL's 8). */
#define VRNIC_PCIE_DLL_BYTES	8
#define VRNIC_PCIE_HDR_4DW	16	/* 64-bit address MWr/MRd header */
#define VRNIC_PCIE_HDR_CPLD	12	/* completion with data header */
#define VRNIC_PCIE_ECRC_BYTES	4

bool vrnic_pcie_valid(const struct vrnic_pcie *p);
u64 vrnic_pcie_kbps(const struct vrnic_pcie *p);
void vrnic_pcie_write(const struct vrnic_pcie *p, u32 len,
		      struct vrnic_pcie_xfer *x);
void vrnic_pcie_read(const struct vrnic_pcie *p, u32 len,
		     struct vrnic_pcie_xfer *x);
u64 vrnic_pcie_ns(const struct vrnic_pcie *p, u64 bytes);
u64 vrnic_pcie_kbps_ns(u64 kbps, u64 bytes);
u64 vrnic_pcie_ns_per_byte(u64 kbps);

/**
 * vrnic_pcie_q32_ns - time @bytes occupy a link, by its time per byte
 * @q32:	vrnic_pcie_ns_per_byte() of the link's rate
 * @bytes:	link bytes
 *
 * Return: nanoseconds, rounded up: vrnic_pcie_kbps_ns(), or at most 1 ns
 * more where the reciprocal's rounding crosses a nanosecond.
 */
static inline u64 vrnic_pcie_q32_ns(u64 q32, u64 bytes)
{
	u32 frac = bytes * q32;

	return mul_u64_u64_shr(bytes, q32, 32) + (frac != 0);
}

#endif /* VRNIC_HW_PCIE_H */
