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
