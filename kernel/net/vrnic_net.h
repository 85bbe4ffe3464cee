/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vrnic: moving RoCEv2 packets in and out (UDP port 4791).
 *
 * Copyright (c) 2026 The vrnic authors
 */

#ifndef VRNIC_NET_H
#define VRNIC_NET_H

#include <linux/interrupt.h>
#include <linux/skbuff.h>
#include <linux/smp.h>
#include <linux/spinlock.h>
#include <net/dst_cache.h>
#include <rdma/ib_verbs.h>

struct vrnic_dev;

/**
 * struct vrnic_path - a connected QP's way out: its route, and its
 *	packets in the order it sent them
 * @route:	the route to the peer, per CPU, while @cached (RC and UC: one
 *		address vector; UD's change per WR); reset when the vector
 *		changes, and checked against the routing table's generation
 *		on each use
 * @cached:	@route is in use
 * @lock:	guards the fields below but @csd and @tl
 * @q:		packets waiting for their turn
 * @vdev:	the device they leave from
 * @cpu:	the CPU whose backlog may hold our last packet; -1 for none
 * @mark:	that backlog's input_queue_tail just after it
 * @owner:	a context is sending from @q
 * @dead:	the QP is going: nothing is sent or asked for any more
 * @kicking:	@csd is on its way to @cpu (bit 0)
 * @csd:	asks @cpu to run @tl
 * @tl:		sends @q's packets on the CPU it runs on
 *
 * A netdev that hands a packet to its peer on the sending CPU's backlog
 * (veth, loopback) delivers two packets sent from two CPUs in whichever
 * order those CPUs drain their backlogs.  A QP's engines run on any CPU,
 * so a packet the QP sends from another CPU than its last one waits
 * until the last one's backlog has delivered it (as RFS moves a flow), or
 * goes to that CPU and queues behind it there.  See vrnic_net.c.
 */
struct vrnic_path {
	struct dst_cache	route;
	bool			cached;
	spinlock_t		lock;	/* the queue and the mark */
	struct sk_buff_head	q;
	struct vrnic_dev	*vdev;
	int			cpu;
	unsigned int		mark;
	bool			owner;
	bool			dead;
	unsigned long		kicking;
	call_single_data_t	csd;
	struct tasklet_struct	tl;
};

int vrnic_path_init(struct vrnic_path *t, struct vrnic_dev *vdev,
		    bool cache_route);
void vrnic_path_fini(struct vrnic_path *t);

/* The address vector changed: the next packet looks its route up again. */
static inline void vrnic_path_reset_route(struct vrnic_path *t)
{
	if (t->cached)
		dst_cache_reset(&t->route);
}

/* Room to reserve in front of the BTH for Ethernet, IP and UDP headers. */
unsigned int vrnic_net_headroom(struct vrnic_dev *vdev);
struct sk_buff *vrnic_net_alloc_skb(struct vrnic_dev *vdev, unsigned int len);
int vrnic_net_xmit(struct vrnic_dev *vdev, struct vrnic_path *path,
		   struct sk_buff *skb, const struct rdma_ah_attr *av,
		   u32 src_qpn, u32 dst_qpn);

int vrnic_net_get(struct vrnic_dev *vdev);
void vrnic_net_publish(struct vrnic_dev *vdev);
void vrnic_net_unpublish(struct vrnic_dev *vdev);
struct vrnic_dev *vrnic_net_dev_get(struct net_device *ndev);
void vrnic_net_put(struct net *net);
/* The receive upcall: @skb->data at the BTH; consumed. */
typedef void (*vrnic_net_rx_fn)(struct vrnic_dev *vdev, struct sk_buff *skb);

enum ib_mtu vrnic_active_mtu(struct vrnic_dev *vdev);
int vrnic_net_init(vrnic_net_rx_fn rx);
void vrnic_net_exit(void);

#endif /* VRNIC_NET_H */
