// SPDX-License-Identifier: GPL-2.0-only
/*
 * vrnic: multicast groups (IBA 10.5).  A UD QP attached to a multicast
 * GID receives the datagrams sent to it (destination QP 0xFFFFFF).  A
 * NIC takes those frames by its MAC filter; here the IP stack takes them
 * only for groups the netdev has joined, so the first attachment to a
 * group joins it on the netdev (IGMP/MLD, and the MAC filter with it) and
 * the last detachment leaves.  The receive path finds the group's QPs
 * under RCU; attach and detach sleep (the join takes the RTNL).
 *
 * Copyright (c) 2026 The vrnic authors
 */

#include <linux/igmp.h>
#include <linux/inetdevice.h>
#include <linux/jhash.h>
#include <linux/rtnetlink.h>
#include <net/addrconf.h>

#include "vrnic.h"
#include "vrnic_qp.h"
#include "obj/vrnic_mcg.h"

/**
 * struct vrnic_mcg - one multicast group and the QPs attached to it
 * @node:	in the device's hash
 * @mgid:	the group's GID (IPv4-mapped for an IPv4 group)
 * @nqps:	entries of @qpns in use
 * @qpns:	the attached QPs, by number: the receive path takes each
 *		QP through the device's QP table, as for any packet.  No QP
 *		is destroyed while attached: ib_attach_mcast() counts each
 *		attachment in the QP's usecnt, ib_destroy_qp_user() refuses
 *		with -EBUSY while it is not zero, and uverbs detaches a dying
 *		process's QPs before it destroys them
 * @rcu:	freed after a grace period
 */
struct vrnic_mcg {
	struct hlist_node	node;
	union ib_gid		mgid;
	u32			nqps;
	u32			qpns[VRNIC_MAX_MCAST_QP_ATTACH];
	struct rcu_head		rcu;
};

void vrnic_mcgs_init(struct vrnic_mcgs *m)
{
	mutex_init(&m->lock);
	hash_init(m->hash);
	m->groups = 0;
	m->attached = 0;
}

static u32 vrnic_mcg_hash(const union ib_gid *mgid)
{
	return jhash(mgid->raw, sizeof(mgid->raw), 0);
}

/* Called with the groups' lock held, or under RCU. */
static struct vrnic_mcg *vrnic_mcg_find(struct vrnic_mcgs *m,
					const union ib_gid *mgid)
{
	struct vrnic_mcg *g;

	hash_for_each_possible_rcu(m->hash, g, node, vrnic_mcg_hash(mgid))
		if (!memcmp(g->mgid.raw, mgid->raw, sizeof(mgid->raw)))
			return g;
	return NULL;
}

/* Join (@join) or leave the group on the device's netdev. */
static int vrnic_mcg_ip(struct vrnic_dev *vdev, const union ib_gid *mgid,
			bool join)
{
	const struct in6_addr *a = (const struct in6_addr *)mgid->raw;
	struct in_device *in_dev;
	int err = 0;

	if (ipv6_addr_v4mapped(a)) {
		__be32 addr = a->s6_addr32[3];

		if (!ipv4_is_multicast(addr))
			return -EINVAL;
		rtnl_lock();
		in_dev = __in_dev_get_rtnl(vdev->ndev);
		if (!in_dev)
			err = -ENODEV;	/* no IPv4 on the netdev */
		else if (join)
			ip_mc_inc_group(in_dev, addr);
		else
			ip_mc_dec_group(in_dev, addr);
		rtnl_unlock();
		return err;
	}
	if (!ipv6_addr_is_multicast(a))
		return -EINVAL;
	if (!IS_ENABLED(CONFIG_IPV6))
		return -EAFNOSUPPORT;
	return join ? ipv6_dev_mc_inc(vdev->ndev, a) :
		      ipv6_dev_mc_dec(vdev->ndev, a);
}

/**
 * vrnic_attach_mcast - attach a UD QP to the group of @gid
 * @ibqp:	the QP (ib_attach_mcast() has checked it is UD and @gid is
 *		multicast)
 * @gid:	the group
 * @lid:	unused on RoCE
 *
 * Attaching twice is not an error.  Return: 0, -ENOMEM, -EINVAL for a
 * GID that is no IP multicast address, -ENOSPC past the device's limits
 * (max_mcast_grp, max_mcast_qp_attach, max_total_mcast_qp_attach), or the
 * IP join's error.
 */
int vrnic_attach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	struct vrnic_dev *vdev = to_vdev(ibqp->device);
	struct vrnic_mcgs *m = &vdev->mcgs;
	struct vrnic_mcg *g;
	int err = 0;
	u32 i;

	if (!vrnic_qp_is_ud(to_vqp(ibqp)) || ibqp->qp_type == IB_QPT_GSI)
		return -EINVAL;
	mutex_lock(&m->lock);
	g = vrnic_mcg_find(m, gid);
	for (i = 0; g && i < g->nqps; i++)
		if (g->qpns[i] == ibqp->qp_num)
			goto out;	/* attached already */
	if (m->attached == VRNIC_MAX_TOTAL_MCAST_QP_ATTACH ||
	    (g && g->nqps == VRNIC_MAX_MCAST_QP_ATTACH) ||
	    (!g && m->groups == VRNIC_MAX_MCAST_GRP)) {
		err = -ENOSPC;
		goto out;
	}
	if (g) {
		WRITE_ONCE(g->qpns[g->nqps], ibqp->qp_num);
		/* The slot before the count: pairs with vrnic_mcg_qpns(). */
		smp_store_release(&g->nqps, g->nqps + 1);
	} else {
		g = kzalloc(sizeof(*g), GFP_KERNEL);
		if (!g) {
			err = -ENOMEM;
			goto out;
		}
		g->mgid = *gid;
		g->qpns[0] = ibqp->qp_num;
		g->nqps = 1;
		err = vrnic_mcg_ip(vdev, gid, true);
		if (err) {
			kfree(g);
			goto out;
		}
		hash_add_rcu(m->hash, &g->node, vrnic_mcg_hash(gid));
		m->groups++;
	}
	m->attached++;
out:
	mutex_unlock(&m->lock);
	return err;
}

/* Drop @qpn from @g; the last QP out leaves and frees the group. */
static void vrnic_mcg_drop(struct vrnic_dev *vdev, struct vrnic_mcg *g, u32 i)
{
	struct vrnic_mcgs *m = &vdev->mcgs;

	m->attached--;
	if (g->nqps == 1) {
		hash_del_rcu(&g->node);
		m->groups--;
		vrnic_mcg_ip(vdev, &g->mgid, false);
		kfree_rcu(g, rcu);
		return;
	}
	/*
	 * The last entry moves into the freed slot, then the count drops: a
	 * reader sees the old or the new entry there, never a stale one
	 * past the end.  A QP missed or seen twice meanwhile is what a
	 * datagram racing a detach may get.
	 */
	WRITE_ONCE(g->qpns[i], g->qpns[g->nqps - 1]);
	/* The moved entry before the count: pairs with vrnic_mcg_qpns(). */
	smp_store_release(&g->nqps, g->nqps - 1);
}

int vrnic_detach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	struct vrnic_dev *vdev = to_vdev(ibqp->device);
	struct vrnic_mcgs *m = &vdev->mcgs;
	struct vrnic_mcg *g;
	int err = -EINVAL;	/* not attached: as rxe and mlx5 say */
	u32 i;

	mutex_lock(&m->lock);
	g = vrnic_mcg_find(m, gid);
	for (i = 0; g && i < g->nqps; i++) {
		if (g->qpns[i] == ibqp->qp_num) {
			vrnic_mcg_drop(vdev, g, i);
			err = 0;
			break;
		}
	}
	mutex_unlock(&m->lock);
	return err;
}

/* The device goes: no QP is left, so no group should be; free any. */
void vrnic_mcgs_fini(struct vrnic_dev *vdev)
{
	struct vrnic_mcgs *m = &vdev->mcgs;
	struct hlist_node *tmp;
	struct vrnic_mcg *g;
	int bkt;

	mutex_lock(&m->lock);
	hash_for_each_safe(m->hash, bkt, tmp, g, node) {
		WARN_ON_ONCE(1);
		hash_del_rcu(&g->node);
		vrnic_mcg_ip(vdev, &g->mgid, false);
		kfree_rcu(g, rcu);
	}
	m->groups = 0;
	m->attached = 0;
	mutex_unlock(&m->lock);
	mutex_destroy(&m->lock);
}

/**
 * vrnic_mcg_qpns - the QPs attached to the group of @mgid
 * @vdev:	the device
 * @mgid:	a received datagram's destination GID
 * @qpns:	filled with up to @max QP numbers
 * @max:	room in @qpns
 *
 * Return: how many were filled (0: no such group).  Context: any.
 */
unsigned int vrnic_mcg_qpns(struct vrnic_dev *vdev, const union ib_gid *mgid,
			    u32 *qpns, unsigned int max)
{
	struct vrnic_mcg *g;
	unsigned int n = 0, i;

	rcu_read_lock();
	g = vrnic_mcg_find(&vdev->mcgs, mgid);
	if (g) {
		/* Pairs with the release in attach and drop. */
		n = min_t(unsigned int, smp_load_acquire(&g->nqps), max);
		for (i = 0; i < n; i++)
			qpns[i] = READ_ONCE(g->qpns[i]);
	}
	rcu_read_unlock();
	return n;
}
