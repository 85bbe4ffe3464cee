/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vrnic: multicast groups (IBA 10.5): which UD QPs of the device a
 * datagram to a multicast GID reaches.
 *
 * Copyright (c) 2026 The vrnic authors
 */

#ifndef VRNIC_MCG_H
#define VRNIC_MCG_H

#include <linux/hashtable.h>
#include <linux/mutex.h>
#include <rdma/ib_verbs.h>

#define VRNIC_MAX_MCAST_GRP		1024
#define VRNIC_MAX_MCAST_QP_ATTACH	56
#define VRNIC_MAX_TOTAL_MCAST_QP_ATTACH	(VRNIC_MAX_MCAST_GRP * 8)

/**
 * struct vrnic_mcgs - a device's multicast groups
 * @lock:	serialises attach and detach (they sleep: the IP join)
 * @hash:	struct vrnic_mcg by GID; RCU for the receive path
 * @groups:	groups in @hash
 * @attached:	attachments over all groups
 */
struct vrnic_mcgs {
	struct mutex		lock;	/* attach, detach: the IP join sleeps */
	DECLARE_HASHTABLE(hash, 6);
	u32			groups;
	u32			attached;
};

struct vrnic_dev;

void vrnic_mcgs_init(struct vrnic_mcgs *m);
void vrnic_mcgs_fini(struct vrnic_dev *vdev);
int vrnic_attach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid);
int vrnic_detach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid);
unsigned int vrnic_mcg_qpns(struct vrnic_dev *vdev, const union ib_gid *mgid,
			    u32 *qpns, unsigned int max);

#endif /* VRNIC_MCG_H */
