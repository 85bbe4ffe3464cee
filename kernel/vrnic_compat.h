/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vrnic: every difference between the kernels vrnic builds against, in one
 * place.  vrnic supports the two kernels Debian 12 ships, 6.1 and 6.12
 * (README.md); each adaptation below names the upstream change it follows
 * and the release that brought it, and has a test (Documentation/vrnic.rst,
 * "Kernels": the host build test builds kernel/ against both, warnings
 * failing it; the KUnit cases in tests/vrnic_compat_kunit.c check the
 * adaptations that have behaviour).
 *
 * Copyright (c) 2026 The vrnic authors
 */

#ifndef VRNIC_COMPAT_H
#define VRNIC_COMPAT_H

#include <linux/build_bug.h>
#include <linux/version.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_user_rxe.h>

/*
 * v6.12, "move asm/unaligned.h to linux/unaligned.h" (5f60d5f6bbc1):
 * get_unaligned_be32() and friends are declared in <linux/unaligned.h>;
 * 6.12 has no <asm/unaligned.h>, 6.1 no <linux/unaligned.h>.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif

/*
 * v6.10, "tracing/treewide: Remove second parameter of __assign_str()"
 * (2c92ca849fcc): __assign_str(dst) copies the string that the event's
 * __string(dst, src) names; before, the source was given again.  The
 * tracepoints (probe/vrnic_trace.h) call vrnic_assign_str(dst, src) with
 * the same source as their __string().
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
#define vrnic_assign_str(dst, src)	__assign_str(dst)
#else
#define vrnic_assign_str(dst, src)	__assign_str(dst, src)
#endif

/*
 * v6.11, "RDMA: Pass entire uverbs attr bundle to create cq function"
 * (dd6d7f8574d7): ib_device_ops.create_cq takes the uverbs_attr_bundle of
 * the user's command (NULL for a kernel CQ, ib_create_cq()) in place of
 * its ib_udata, which is the bundle's driver_udata.  vrnic_create_cq()
 * takes a struct vrnic_create_cq_arg * and finds the ib_udata (NULL for a
 * kernel CQ on either kernel) with vrnic_create_cq_udata().
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 11, 0)
#include <rdma/uverbs_ioctl.h>

#define vrnic_create_cq_arg uverbs_attr_bundle

static inline struct ib_udata *
vrnic_create_cq_udata(struct uverbs_attr_bundle *attrs)
{
	return attrs ? &attrs->driver_udata : NULL;
}
#else
#define vrnic_create_cq_arg ib_udata

static inline struct ib_udata *vrnic_create_cq_udata(struct ib_udata *udata)
{
	return udata;
}
#endif

/*
 * v6.2, "RDMA: Extend RDMA user ABI to support atomic write" and "RDMA:
 * Extend RDMA kernel verbs ABI to support atomic write": IB_WR_ATOMIC_WRITE
 * and IB_WC_ATOMIC_WRITE, the uverbs values rdma-core 44 posts and reads.
 * vrnic offers RDMA ATOMIC WRITE on 6.1 too, under those values.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
#define VRNIC_WR_ATOMIC_WRITE	IB_WR_ATOMIC_WRITE
#define VRNIC_WC_ATOMIC_WRITE	IB_WC_ATOMIC_WRITE
#else
#define VRNIC_WR_ATOMIC_WRITE	15	/* IB_UVERBS_WR_ATOMIC_WRITE */
#define VRNIC_WC_ATOMIC_WRITE	9	/* IB_UVERBS_WC_ATOMIC_WRITE */
#endif
static_assert(VRNIC_WR_ATOMIC_WRITE == 15 && VRNIC_WC_ATOMIC_WRITE == 9);

/*
 * v6.2, "RDMA: Extend RDMA user ABI to support flush" and its kernel half:
 * the FLUSH work request and completion, the MR and QP access bits that
 * let a FLUSH in, and the device capability that lets ib_core register
 * an MR with them.  The uverbs values are fixed, so librxe (rdma-core 45
 * and later) posts the same FLUSH to either kernel.  6.1's
 * ib_check_mr_access() refuses both access bits (IB_ACCESS_SUPPORTED
 * ends at HUGETLB): there no MR can be a FLUSH target, and vrnic answers
 * a FLUSH with a remote access error, as a 6.2+ rxe whose MR lacks the
 * bit would.
 */
#define VRNIC_WR_FLUSH			14	/* IB_UVERBS_WR_FLUSH */
#define VRNIC_WC_FLUSH			8	/* IB_UVERBS_WC_FLUSH */
#define VRNIC_ACCESS_FLUSH_GLOBAL	BIT(8)	/* IB_UVERBS_ACCESS_FLUSH_GLOBAL */
#define VRNIC_ACCESS_FLUSH_PERSISTENT	BIT(9)	/* ..._FLUSH_PERSISTENT */
/* The FETH's placement types (bits) and selectivity levels (IBTA 1.5). */
#define VRNIC_FLUSH_GLOBAL		BIT(0)	/* IB_FLUSH_GLOBAL */
#define VRNIC_FLUSH_PERSISTENT		BIT(1)	/* IB_FLUSH_PERSISTENT */
#define VRNIC_FLUSH_RANGE		0	/* IB_FLUSH_RANGE */
#define VRNIC_FLUSH_MR			1	/* IB_FLUSH_MR */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
static_assert(IB_WR_FLUSH == VRNIC_WR_FLUSH && IB_WC_FLUSH == VRNIC_WC_FLUSH);
static_assert(IB_ACCESS_FLUSH_GLOBAL == VRNIC_ACCESS_FLUSH_GLOBAL &&
	      IB_ACCESS_FLUSH_PERSISTENT == VRNIC_ACCESS_FLUSH_PERSISTENT);
static_assert(IB_FLUSH_GLOBAL == VRNIC_FLUSH_GLOBAL &&
	      IB_FLUSH_PERSISTENT == VRNIC_FLUSH_PERSISTENT &&
	      IB_FLUSH_MR == VRNIC_FLUSH_MR);
#define VRNIC_DEVICE_FLUSH_GLOBAL	IB_DEVICE_FLUSH_GLOBAL
#else
#define VRNIC_DEVICE_FLUSH_GLOBAL	0
#endif

/*
 * A FLUSH WQE as librxe writes it (rxe_send_wr.wr.flush from 6.2 on; 6.1's
 * header has no such member): the address where an RDMA WQE has it, then
 * a length word librxe leaves zero, the rkey (where wr.rdma has its
 * reserved word), the placement type and the selectivity level.  The
 * length is in the WQE's dma.length.
 */
struct vrnic_rxe_flush {
	__aligned_u64	remote_addr;
	__u32		length;
	__u32		rkey;
	__u8		type;
	__u8		level;
};

static_assert(offsetof(struct vrnic_rxe_flush, remote_addr) ==
	      offsetof(struct rxe_send_wr, wr.rdma.remote_addr) -
	      offsetof(struct rxe_send_wr, wr));
static_assert(sizeof(struct vrnic_rxe_flush) <=
	      sizeof_field(struct rxe_send_wr, wr));
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
static_assert(offsetof(struct vrnic_rxe_flush, rkey) ==
	      offsetof(struct rxe_send_wr, wr.flush.rkey) -
	      offsetof(struct rxe_send_wr, wr));
static_assert(offsetof(struct vrnic_rxe_flush, type) ==
	      offsetof(struct rxe_send_wr, wr.flush.type) -
	      offsetof(struct rxe_send_wr, wr));
static_assert(offsetof(struct vrnic_rxe_flush, level) ==
	      offsetof(struct rxe_send_wr, wr.flush.level) -
	      offsetof(struct rxe_send_wr, wr));
#endif

/*
 * v6.2, the same series: <rdma/rdma_user_rxe.h> gains the FLUSH work
 * request (rxe_send_wr.wr.flush) and the atomic_wr view of rxe_dma_info,
 * both inside unions that were larger already.  librxe (rdma-core 44)
 * lays the rings out with its own copy of the header, so the layout must
 * not move with the kernel: the sizes are librxe's.
 */
static_assert(sizeof(struct rxe_send_wr) == 144);
static_assert(sizeof(struct rxe_send_wqe) == 208);
static_assert(offsetof(struct rxe_send_wqe, dma) == 184);
static_assert(sizeof(struct rxe_recv_wqe) == 40);

#endif /* VRNIC_COMPAT_H */
