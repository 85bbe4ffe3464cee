// SPDX-License-Identifier: GPL-2.0-only
/*
 * vrnic: the net layer.  It owns the UDP 4791 sockets of each network
 * namespace that has a vrnic device, builds IP/UDP around the transport's
 * packets, computes the ICRC and hands received packets to the one
 * receive function registered with vrnic_net_init() (the execution
 * layer's dispatch, exec/vrnic_recv.c).  It never names the layers above.
 *
 * Copyright (c) 2026 The vrnic authors
 */

#include <linux/hashtable.h>
#include <linux/if_vlan.h>
#include <linux/inetdevice.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include <net/addrconf.h>
#include <net/ip.h>
#include <net/ip6_route.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/route.h>
#include <net/sch_generic.h>
#include <net/udp_tunnel.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cache.h>

#include "vrnic.h"
#include "net/vrnic_net.h"
#include "wire/vrnic_hdr.h"
#include "wire/vrnic_icrc.h"

/* The receive upcall, set once by vrnic_net_init() before any socket. */
static vrnic_net_rx_fn vrnic_net_rx __read_mostly;

/**
 * struct vrnic_net - per network namespace state
 * @lock:	serialises @users and socket creation
 * @users:	vrnic devices whose netdev lives in this namespace
 * @sk4:	the UDP 4791 IPv4 socket while @users > 0; the transmit
 *		path reads it under RCU, and the last put waits for it
 *		before it releases it
 * @sk6:	the same for IPv6
 */
struct vrnic_net {
	struct mutex		lock;	/* guards users; writers of sk4, sk6 */
	unsigned int		users;
	struct socket __rcu	*sk4;
	struct socket __rcu	*sk6;
};

static unsigned int vrnic_net_id;

static struct vrnic_net *vrnic_pernet(struct net *net)
{
	return net_generic(net, vrnic_net_id);
}

/*
 * vrnic's devices by netdev, for the receive upcall (softirq, RCU reads).
 * Not the core's table (ib_device_get_by_netdev()): vrnic keeps out of
 * it, since rxe reads it with the driver id we share (vrnic_get_netdev()).
 * A device is published when listed and unpublished when it leaves the
 * list (core/vrnic_devlist.c); the core frees it a grace period after its
 * last reference (kfree_rcu), and one on its way out has no reference
 * left to take.
 */
static DEFINE_HASHTABLE(vrnic_ndev_hash, 5);
static DEFINE_SPINLOCK(vrnic_ndev_hash_lock);

void vrnic_net_publish(struct vrnic_dev *vdev)
{
	spin_lock(&vrnic_ndev_hash_lock);
	hash_add_rcu(vrnic_ndev_hash, &vdev->ndev_link,
		     (unsigned long)vdev->ndev);
	spin_unlock(&vrnic_ndev_hash_lock);
}

/* Once or more, published or not. */
void vrnic_net_unpublish(struct vrnic_dev *vdev)
{
	spin_lock(&vrnic_ndev_hash_lock);
	hash_del_rcu(&vdev->ndev_link);
	spin_unlock(&vrnic_ndev_hash_lock);
}

/*
 * Our device on @ndev itself, referenced (ib_device_put()), or NULL.
 * Context: any (the netdev notifier, the receive softirq).
 */
struct vrnic_dev *vrnic_net_dev_get(struct net_device *ndev)
{
	struct vrnic_dev *vdev, *found = NULL;

	rcu_read_lock();
	hash_for_each_possible_rcu(vrnic_ndev_hash, vdev, ndev_link,
				   (unsigned long)ndev) {
		if (vdev->ndev == ndev && ib_device_try_get(&vdev->ibdev)) {
			found = vdev;
			break;
		}
	}
	rcu_read_unlock();
	return found;
}

/*
 * The vrnic device on @ndev (or on the netdev under a VLAN), referenced:
 * drop it with ib_device_put().  NULL for none.
 */
static struct ib_device *vrnic_ibdev_get(struct net_device *ndev)
{
	struct vrnic_dev *vdev = vrnic_net_dev_get(ndev);

	if (!vdev && is_vlan_dev(ndev))
		vdev = vrnic_net_dev_get(vlan_dev_real_dev(ndev));
	return vdev ? &vdev->ibdev : NULL;
}

/* The active MTU: the largest IB MTU that fits the netdev's MTU. */
enum ib_mtu vrnic_active_mtu(struct vrnic_dev *vdev)
{
	/* IP + UDP + BTH + the largest extension header + ICRC. */
	int room = READ_ONCE(vdev->ndev->mtu) - 20 - 8 - 12 - 28 - 4;
	enum ib_mtu mtu = IB_MTU_4096;

	if (vdev->ndev->flags & IFF_LOOPBACK)
		return IB_MTU_4096;
	/* IPv6 headers are 20 bytes longer; size for the worse case. */
	room -= 20;
	while (mtu > IB_MTU_256 && ib_mtu_enum_to_int(mtu) > room)
		mtu--;
	return mtu;
}

/* Packets for us arrive here, in softirq, with skb->data at the UDP header. */
static int vrnic_udp_encap_recv(struct sock *sk, struct sk_buff *skb)
{
	struct ib_device *ibdev = vrnic_ibdev_get(skb->dev);

	if (!ibdev) {
		kfree_skb(skb);
		return 0;
	}
	__skb_pull(skb, sizeof(struct udphdr));
	vrnic_net_rx(to_vdev(ibdev), skb);
	ib_device_put(ibdev);
	return 0;
}

/*
 * A packet to an address of our own namespace skips the wire: hand it, as
 * the wire would, to the vrnic device of the netdev that holds the
 * address (@ndev, found under RCU; NULL when it is gone), which need not
 * be the sender's.  A netdev without one drops it, as its UDP port would.
 *
 * Context: task or softirq, under rcu_read_lock(), which this drops.
 * Return: 0, or -EHOSTUNREACH when no vrnic device holds the address (the
 * caller counts the drop).
 */
static int vrnic_deliver_local(struct vrnic_dev *vdev, struct sk_buff *skb,
			       struct net_device *ndev, unsigned int nhlen)
	__releases(RCU)
{
	struct ib_device *ibdev = NULL;
	struct vrnic_dev *to = vdev;

	if (ndev != vdev->ndev) {
		ibdev = ndev ? vrnic_ibdev_get(ndev) : NULL;
		if (!ibdev) {
			rcu_read_unlock();
			kfree_skb(skb);
			return -EHOSTUNREACH;
		}
		to = to_vdev(ibdev);
	}
	/* The device (and its netdev, which it holds) is referenced now. */
	rcu_read_unlock();
	skb_pull(skb, nhlen + sizeof(struct udphdr));
	skb->dev = to->ndev;
	local_bh_disable();
	vrnic_net_rx(to, skb);
	local_bh_enable();
	if (ibdev)
		ib_device_put(ibdev);
	return 0;
}

static struct socket *vrnic_sock_create(struct net *net, bool ipv6)
{
	struct udp_tunnel_sock_cfg tcfg = {
		.encap_type = 1,
		.encap_rcv = vrnic_udp_encap_recv,
	};
	struct udp_port_cfg cfg = {
		.local_udp_port = htons(ROCE_V2_UDP_DPORT),
	};
	struct socket *sock;
	int err;

	if (ipv6) {
		cfg.family = AF_INET6;
		cfg.ipv6_v6only = 1;
		cfg.local_ip6 = in6addr_any;
	} else {
		cfg.family = AF_INET;
		cfg.local_ip.s_addr = htonl(INADDR_ANY);
	}
	err = udp_sock_create(net, &cfg, &sock);
	if (err)
		return ERR_PTR(err);
	setup_udp_tunnel_sock(net, sock, &tcfg);
	if (!ipv6) {
		int one = 1;

		/*
		 * setup_udp_tunnel_sock() turns IPv4 multicast loopback off.
		 * A NIC hands a group's datagrams to its own attached QPs too
		 * (obj/vrnic_mcg.c), and the stack loops a copy back to local
		 * members only with it on.  (IPv6 keeps its default, on.)
		 */
		err = sock->ops->setsockopt(sock, SOL_IP, IP_MULTICAST_LOOP,
					    KERNEL_SOCKPTR(&one), sizeof(one));
		if (err) {
			udp_tunnel_sock_release(sock);
			return ERR_PTR(err);
		}
	}
	return sock;
}

/**
 * vrnic_net_get - open the UDP sockets of the device's namespace if needed
 * @vdev:	the device
 *
 * Return: 0, or -EADDRINUSE when another owner (rdma_rxe) holds UDP 4791
 * in this namespace.
 */
int vrnic_net_get(struct vrnic_dev *vdev)
{
	struct net *net = vdev->net;
	struct vrnic_net *vn = vrnic_pernet(net);
	struct socket *s4, *s6 = NULL;
	int err = 0;

	mutex_lock(&vn->lock);
	if (vn->users++)
		goto out;
	s4 = vrnic_sock_create(net, false);
	if (IS_ERR(s4)) {
		err = PTR_ERR(s4);
		goto fail;
	}
	if (IS_ENABLED(CONFIG_IPV6)) {
		s6 = vrnic_sock_create(net, true);
		if (IS_ERR(s6)) {
			err = PTR_ERR(s6);
			udp_tunnel_sock_release(s4);
			goto fail;
		}
	}
	rcu_assign_pointer(vn->sk4, s4);
	rcu_assign_pointer(vn->sk6, s6);
	goto out;
fail:
	vn->users--;
	pr_err("vrnic: cannot bind UDP port %d in this network namespace (%d); is rdma_rxe loaded?\n",
	       ROCE_V2_UDP_DPORT, err);
out:
	mutex_unlock(&vn->lock);
	return err;
}

/*
 * The last device of the namespace lets go: the sockets go once no
 * transmit still uses them (a QP's work may be sending while the netdev
 * leaves the namespace, or while the module goes).  Context: process.
 */
void vrnic_net_put(struct net *net)
{
	struct vrnic_net *vn = vrnic_pernet(net);
	struct socket *s4, *s6;

	mutex_lock(&vn->lock);
	if (!--vn->users) {
		s4 = rcu_replace_pointer(vn->sk4, NULL, lockdep_is_held(&vn->lock));
		s6 = rcu_replace_pointer(vn->sk6, NULL, lockdep_is_held(&vn->lock));
		synchronize_net();
		udp_tunnel_sock_release(s4);
		if (s6)
			udp_tunnel_sock_release(s6);
	}
	mutex_unlock(&vn->lock);
}

unsigned int vrnic_net_headroom(struct vrnic_dev *vdev)
{
	return LL_RESERVED_SPACE(vdev->ndev) + sizeof(struct ipv6hdr) +
	       sizeof(struct udphdr);
}

/* An skb with room for @len bytes from the BTH on (ICRC included). */
struct sk_buff *vrnic_net_alloc_skb(struct vrnic_dev *vdev, unsigned int len)
{
	unsigned int head = vrnic_net_headroom(vdev);
	struct sk_buff *skb;

	skb = alloc_skb(head + len + vdev->ndev->needed_tailroom, GFP_ATOMIC);
	if (!skb)
		return NULL;
	skb_reserve(skb, head);
	skb->dev = vdev->ndev;
	return skb;
}

static void vrnic_push_udp(struct sk_buff *skb, __be16 sport)
{
	struct udphdr *udph;

	__skb_push(skb, sizeof(*udph));
	skb_reset_transport_header(skb);
	udph = udp_hdr(skb);
	udph->source = sport;
	udph->dest = htons(ROCE_V2_UDP_DPORT);
	udph->len = htons(skb->len);
	/* RoCEv2 leaves the UDP checksum zero; the ICRC covers the packet. */
	udph->check = 0;
}

/* A fault rule's corruption: the ICRC no longer matches the packet. */
static void vrnic_corrupt(struct sk_buff *skb)
{
	u8 b;

	if (!skb_copy_bits(skb, skb->len - 1, &b, 1)) {
		b ^= 0x01;
		skb_store_bits(skb, skb->len - 1, &b, 1);
	}
}

/*
 * Hand a finished IP packet to the IP layer: the one place a packet leaves
 * for a netdev.  Context: any but hardirq.
 */
static int vrnic_out(struct sk_buff *skb)
{
	struct net *net = dev_net(skb_dst(skb)->dev);
	struct vrnic_net *vn = vrnic_pernet(net);
	struct socket *sock;
	int err;

	rcu_read_lock();
	if (skb->protocol == htons(ETH_P_IP)) {
		sock = rcu_dereference(vn->sk4);
		err = ip_local_out(net, sock ? sock->sk : NULL, skb);
	} else {
		sock = rcu_dereference(vn->sk6);
		if (sock) {
			err = ip6_local_out(net, sock->sk, skb);
		} else {
			kfree_skb(skb);	/* the namespace's last device went */
			err = -ENETDOWN;
		}
	}
	rcu_read_unlock();
	return err < 0 ? -EIO : 0;
}

/*
 * The order of a QP's packets (struct vrnic_path).  veth and loopback
 * call netif_rx(), which queues the packet on the sending CPU's backlog
 * (when RPS does not steer it); each CPU drains its own, and a packet
 * sent from a softirq waits there until that softirq's poll is done, while
 * one sent from a task on another CPU is received at once.  So a QP
 * remembers the CPU whose backlog took its last packet and the backlog's
 * tail just after it, and sends from another CPU only once that backlog's
 * head has passed the mark, as RFS moves a flow between CPUs; until then
 * its packets queue in @q and that CPU is asked to send them behind the
 * one it holds.  A netdev with a qdisc (virtio-net, a NIC, netem) sends
 * from whichever CPU dequeues: the mark stays unset (vrnic_out_direct())
 * and packets go at once.
 */
#define VRNIC_PATH_BUDGET	64	/* packets a softirq round sends */
#define VRNIC_PATH_MAX		1024	/* queued packets wait no longer */

#ifdef CONFIG_RPS
static unsigned int vrnic_backlog_tail(int cpu)
{
	return READ_ONCE(per_cpu(softnet_data, cpu).input_queue_tail);
}

static bool vrnic_backlog_passed(int cpu, unsigned int mark)
{
	return (int)(READ_ONCE(per_cpu(softnet_data, cpu).input_queue_head) -
		     mark) >= 0;
}
#else
/* No backlog counters to read: no order kept across CPUs. */
static unsigned int vrnic_backlog_tail(int cpu)
{
	return 0;
}

static bool vrnic_backlog_passed(int cpu, unsigned int mark)
{
	return true;
}
#endif

/*
 * Whether @skb's netdev transmits it synchronously, on this CPU: no qdisc
 * (noqueue, veth's and loopback's default), so veth hands it to the
 * peer's backlog before dev_queue_xmit() returns.  With a qdisc (netem,
 * virtio-net's mq) the packet leaves from whichever CPU dequeues it, and
 * the tail that moved during the call was someone else's packet: a mark
 * taken from it only held the QP's next packets back (the debug kernel's
 * netem mixed case ran out of retries with them waiting on IPIs).
 * Context: bottom halves off (an RCU-bh read side).
 */
static bool vrnic_out_direct(const struct sk_buff *skb)
{
	struct net_device *dev = skb_dst(skb)->dev;
	struct Qdisc *q = rcu_dereference_bh(netdev_get_tx_queue(dev, 0)->qdisc);

	return !q || !q->enqueue;
}

/* After a send from @cpu: where the QP's last packet may wait now. */
static void vrnic_path_note(struct vrnic_path *t, int cpu, bool direct,
			    unsigned int tail)
{
	if (direct && vrnic_backlog_tail(cpu) != tail) {
		t->cpu = cpu;
		t->mark = vrnic_backlog_tail(cpu);
	} else if (!direct || t->cpu != cpu) {
		t->cpu = -1;
	}
}

/* Called with @t->lock held and bottom halves off. */
static bool vrnic_path_may_send(struct vrnic_path *t, int cpu)
{
	return t->cpu < 0 || t->cpu == cpu || !cpu_online(t->cpu) ||
	       vrnic_backlog_passed(t->cpu, t->mark) ||
	       skb_queue_len(&t->q) >= VRNIC_PATH_MAX;
}

/* In hardirq on the CPU asked: its softirq sends behind its backlog. */
static void vrnic_path_ipi(void *info)
{
	struct vrnic_path *t = info;

	tasklet_schedule(&t->tl);
	clear_bit_unlock(0, &t->kicking);	/* the last touch of @t */
}

static void vrnic_path_kick(struct vrnic_path *t, int cpu)
{
	if (test_and_set_bit_lock(0, &t->kicking))
		return;		/* one is on its way; its run looks again */
	if (smp_call_function_single_async(cpu, &t->csd)) {
		/* @cpu went offline: its backlog moved, nothing to wait for. */
		tasklet_schedule(&t->tl);
		clear_bit_unlock(0, &t->kicking);
	}
}

/*
 * Send what @t holds from this CPU, at most @budget packets, if its order
 * allows; otherwise ask the CPU that holds its last packet.  Context: any
 * with bottom halves off.
 */
static void vrnic_path_push(struct vrnic_path *t, unsigned int budget)
{
	int cpu = smp_processor_id();
	struct sk_buff *skb;
	unsigned int tail;
	int err;

	spin_lock(&t->lock);
	if (t->owner || t->dead || skb_queue_empty(&t->q))
		goto out;
	if (!vrnic_path_may_send(t, cpu)) {
		vrnic_path_kick(t, t->cpu);
		goto out;
	}
	t->owner = true;
	while ((skb = __skb_dequeue(&t->q))) {
		bool direct = vrnic_out_direct(skb);

		spin_unlock(&t->lock);
		tail = vrnic_backlog_tail(cpu);
		err = vrnic_out(skb);
		if (err)
			vrnic_count(t->vdev, VRNIC_CNT_TX_ERR);
		spin_lock(&t->lock);
		vrnic_path_note(t, cpu, direct, tail);
		if (t->dead)
			break;
		if (!--budget && !skb_queue_empty(&t->q)) {
			tasklet_schedule(&t->tl);
			break;
		}
	}
	t->owner = false;
out:
	spin_unlock(&t->lock);
}

static void vrnic_path_run(struct tasklet_struct *tl)
{
	struct vrnic_path *t = from_tasklet(t, tl, tl);

	vrnic_path_push(t, VRNIC_PATH_BUDGET);
}

int vrnic_path_init(struct vrnic_path *t, struct vrnic_dev *vdev,
		    bool cache_route)
{
	if (cache_route) {
		int err = dst_cache_init(&t->route, GFP_KERNEL);

		if (err)
			return err;
	}
	t->cached = cache_route;
	spin_lock_init(&t->lock);
	skb_queue_head_init(&t->q);
	t->vdev = vdev;
	t->cpu = -1;
	t->owner = false;
	t->dead = false;
	t->kicking = 0;
	INIT_CSD(&t->csd, vrnic_path_ipi, t);
	tasklet_setup(&t->tl, vrnic_path_run);
	return 0;
}

/*
 * Once nothing sends through @t any more: what waits is dropped.  Dead
 * first, so that neither a run of @tl nor a push in flight asks for
 * another; then the request on its way lands, and @tl's last run ends.
 */
void vrnic_path_fini(struct vrnic_path *t)
{
	spin_lock_bh(&t->lock);
	t->dead = true;
	spin_unlock_bh(&t->lock);
	/* Acquire: pairs with the handler's clear_bit_unlock(). */
	while (test_bit_acquire(0, &t->kicking))
		cpu_relax();
	tasklet_kill(&t->tl);
	skb_queue_purge(&t->q);
	if (t->cached)
		dst_cache_destroy(&t->route);
}

/*
 * Send @skb in its QP's order (@t; NULL for none).  Return: 0 once the
 * packet is sent or queued; an IP layer's refusal of one sent now.
 */
static int vrnic_out_ordered(struct vrnic_path *t, struct sk_buff *skb)
{
	int cpu, err = 0;
	bool direct;

	if (!t)
		return vrnic_out(skb);
	local_bh_disable();
	cpu = smp_processor_id();
	direct = vrnic_out_direct(skb);
	spin_lock(&t->lock);
	if (!t->owner && skb_queue_empty(&t->q) &&
	    (!direct || vrnic_path_may_send(t, cpu))) {
		/* The common case: nothing waits, send from here at once. */
		unsigned int tail = vrnic_backlog_tail(cpu);

		t->owner = true;
		spin_unlock(&t->lock);
		err = vrnic_out(skb);
		spin_lock(&t->lock);
		vrnic_path_note(t, cpu, direct, tail);
		t->owner = false;
		spin_unlock(&t->lock);
		/* One queued while we were the owner (another CPU's send). */
		vrnic_path_push(t, VRNIC_PATH_BUDGET);
	} else {
		__skb_queue_tail(&t->q, skb);
		spin_unlock(&t->lock);
		vrnic_path_push(t, VRNIC_PATH_BUDGET);
	}
	local_bh_enable();
	return err;
}

/*
 * The route from *@saddr to @daddr out of the device's netdev: the QP's
 * cached one (which may give its source address back in @saddr), or a
 * lookup, cached when the path keeps its route.
 */
static struct rtable *vrnic_route4(struct vrnic_dev *vdev,
				   struct vrnic_path *path, __be32 *saddr,
				   __be32 daddr)
{
	struct flowi4 fl = {
		.flowi4_oif = vdev->ndev->ifindex,
		.flowi4_proto = IPPROTO_UDP,
		.saddr = *saddr,
		.daddr = daddr,
	};
	struct rtable *rt;

	/* The cache is per CPU: stay on this one while using it. */
	local_bh_disable();
	rt = path && path->cached ? dst_cache_get_ip4(&path->route, saddr) :
				    NULL;
	if (!rt) {
		rt = ip_route_output_key(dev_net(vdev->ndev), &fl);
		if (!IS_ERR(rt) && path && path->cached)
			dst_cache_set_ip4(&path->route, &rt->dst, fl.saddr);
	}
	local_bh_enable();
	return rt;
}

/* As vrnic_route4(), for IPv6: the lookup goes through our socket. */
static struct dst_entry *vrnic_route6(struct net *net, struct vrnic_path *path,
				      struct flowi6 *fl)
{
	struct vrnic_net *vn = vrnic_pernet(net);
	struct dst_entry *dst;
	struct in6_addr saddr;
	struct socket *sock;

	local_bh_disable();
	dst = path && path->cached ?
	      dst_cache_get_ip6(&path->route, &saddr) : NULL;
	if (!dst) {
		rcu_read_lock();
		sock = rcu_dereference(vn->sk6);
		dst = sock ? ipv6_stub->ipv6_dst_lookup_flow(net, sock->sk, fl,
							     NULL) :
			     ERR_PTR(-EAFNOSUPPORT);
		rcu_read_unlock();
		if (!IS_ERR(dst) && path && path->cached)
			dst_cache_set_ip6(&path->route, dst, &fl->saddr);
	}
	local_bh_enable();
	return dst;
}

/* The ICRC over the finished packet, then a fault rule's corruption. */
static int vrnic_seal(struct sk_buff *skb, bool corrupt)
{
	if (vrnic_icrc_generate(skb)) {
		kfree_skb(skb);
		return -EINVAL;
	}
	if (unlikely(corrupt))
		vrnic_corrupt(skb);
	return 0;
}

static int vrnic_xmit4(struct vrnic_dev *vdev, struct vrnic_path *path,
		       struct sk_buff *skb, const struct rdma_ah_attr *av,
		       __be16 sport, bool corrupt)
{
	const struct ib_global_route *grh = rdma_ah_read_grh(av);
	struct net *net = dev_net(vdev->ndev);
	struct rtable *rt;
	struct iphdr *iph;
	__be32 saddr, daddr;

	saddr = *(__be32 *)&grh->sgid_attr->gid.raw[12];
	daddr = *(__be32 *)&grh->dgid.raw[12];
	rt = vrnic_route4(vdev, path, &saddr, daddr);
	if (IS_ERR(rt)) {
		kfree_skb(skb);
		return PTR_ERR(rt);
	}

	vrnic_push_udp(skb, sport);
	__skb_push(skb, sizeof(*iph));
	skb_reset_network_header(skb);
	iph = ip_hdr(skb);
	iph->version = 4;
	iph->ihl = sizeof(*iph) >> 2;
	iph->tos = grh->traffic_class;
	iph->tot_len = htons(skb->len);
	iph->frag_off = htons(IP_DF);
	iph->ttl = grh->hop_limit ? grh->hop_limit : 64;
	iph->protocol = IPPROTO_UDP;
	iph->saddr = saddr;
	iph->daddr = daddr;
	/* The ICRC covers the IP ID, so choose it before computing that. */
	__ip_select_ident(net, iph, 1);
	ip_send_check(iph);
	skb->protocol = htons(ETH_P_IP);
	skb_dst_set(skb, &rt->dst);

	if (vrnic_seal(skb, corrupt))
		return -EINVAL;
	if (rt->rt_type == RTN_LOCAL) {
		rcu_read_lock();
		return vrnic_deliver_local(vdev, skb,
					   __ip_dev_find(net, daddr, false),
					   sizeof(*iph));
	}
	memset(IPCB(skb), 0, sizeof(*IPCB(skb)));
	return vrnic_out_ordered(path, skb);
}

static int vrnic_xmit6(struct vrnic_dev *vdev, struct vrnic_path *path,
		       struct sk_buff *skb, const struct rdma_ah_attr *av,
		       __be16 sport, bool corrupt)
{
	const struct ib_global_route *grh = rdma_ah_read_grh(av);
	struct net *net = dev_net(vdev->ndev);
	struct flowi6 fl = {};
	struct dst_entry *dst;
	struct ipv6hdr *ip6h;
	bool local;

	fl.flowi6_oif = vdev->ndev->ifindex;
	fl.flowi6_proto = IPPROTO_UDP;
	memcpy(&fl.saddr, grh->sgid_attr->gid.raw, sizeof(fl.saddr));
	memcpy(&fl.daddr, grh->dgid.raw, sizeof(fl.daddr));
	dst = vrnic_route6(net, path, &fl);
	if (IS_ERR(dst)) {
		kfree_skb(skb);
		return PTR_ERR(dst);
	}

	vrnic_push_udp(skb, sport);
	__skb_push(skb, sizeof(*ip6h));
	skb_reset_network_header(skb);
	ip6h = ipv6_hdr(skb);
	ip6_flow_hdr(ip6h, grh->traffic_class, htonl(grh->flow_label));
	ip6h->payload_len = htons(skb->len - sizeof(*ip6h));
	ip6h->nexthdr = IPPROTO_UDP;
	ip6h->hop_limit = grh->hop_limit ? grh->hop_limit : 64;
	ip6h->saddr = fl.saddr;
	ip6h->daddr = fl.daddr;
	skb->protocol = htons(ETH_P_IPV6);
	skb_dst_set(skb, dst);

	if (vrnic_seal(skb, corrupt))
		return -EINVAL;
	local = ipv6_addr_equal(&fl.saddr, &fl.daddr) ||
		(dst->dev->flags & IFF_LOOPBACK);
	if (local) {
		rcu_read_lock();
		/* (IPv6 built in or a module: only then is there an address.) */
		return vrnic_deliver_local(vdev, skb,
					   IS_ENABLED(CONFIG_IPV6) ?
					   ipv6_dev_find(net, &fl.daddr, NULL) :
					   NULL, sizeof(*ip6h));
	}
	memset(IP6CB(skb), 0, sizeof(*IP6CB(skb)));
	return vrnic_out_ordered(path, skb);
}

/* IPv4 or IPv6 as the source GID is. */
static int vrnic_xmit(struct vrnic_dev *vdev, struct vrnic_path *path,
		      struct sk_buff *skb, const struct rdma_ah_attr *av,
		      __be16 sport, bool corrupt)
{
	const struct ib_global_route *grh = rdma_ah_read_grh(av);

	if (rdma_gid_attr_network_type(grh->sgid_attr) == RDMA_NETWORK_IPV4)
		return vrnic_xmit4(vdev, path, skb, av, sport, corrupt);
	return vrnic_xmit6(vdev, path, skb, av, sport, corrupt);
}

/**
 * vrnic_net_xmit - send one packet whose BTH starts at skb->data
 * @vdev:	the device
 * @path:	the sending QP's order (NULL for none: see struct vrnic_path)
 * @skb:	BTH onwards, with 4 bytes reserved for the ICRC at the end;
 *		consumed in all cases
 * @av:		the path: a GRH with a resolved source GID
 * @src_qpn:	the sending QP (with @dst_qpn, the UDP source port's
 *		flow entropy)
 * @dst_qpn:	the destination QP
 *
 * A fault rule (vrnic_fault.c) may drop the packet, send it twice or
 * corrupt its ICRC.
 *
 * Context: any (GFP_ATOMIC); packets to our own address loop back.
 */
int vrnic_net_xmit(struct vrnic_dev *vdev, struct vrnic_path *path,
		   struct sk_buff *skb, const struct rdma_ah_attr *av,
		   u32 src_qpn, u32 dst_qpn)
{
	const struct ib_global_route *grh = rdma_ah_read_grh(av);
	struct sk_buff *dup = NULL;
	bool corrupt = false;
	__be16 sport;
	int err;

	if (!grh || !grh->sgid_attr) {
		kfree_skb(skb);
		return -EINVAL;
	}
	sport = cpu_to_be16(rdma_get_udp_sport(grh->flow_label, src_qpn,
					       dst_qpn));
	if (unlikely(READ_ONCE(vdev->faults.nr))) {
		switch (vrnic_fault_tx_slow(vdev, skb)) {
		case VRNIC_FAULT_DROP:
			consume_skb(skb);
			return 0;
		case VRNIC_FAULT_DUP:
			dup = skb_copy(skb, GFP_ATOMIC);
			break;
		case VRNIC_FAULT_CORRUPT:
			corrupt = true;
			break;
		default:
			break;
		}
	}
	if (dup)
		vrnic_xmit(vdev, path, dup, av, sport, false);
	err = vrnic_xmit(vdev, path, skb, av, sport, corrupt);
	if (err == -ENETUNREACH || err == -EHOSTUNREACH || err == -EINVAL)
		vrnic_warn_ratelimited(vdev, "no route for a packet: %d\n", err);
	return err;
}

static __net_init int vrnic_net_ns_init(struct net *net)
{
	struct vrnic_net *vn = vrnic_pernet(net);

	mutex_init(&vn->lock);
	return 0;
}

/*
 * Every device let go of the namespace before this runs: its netdevs left
 * it (the device exits of the namespace run before the subsystems'), and
 * each device drops its hold when its netdev does.  Sockets still open
 * here would be a device's hold outliving its namespace.
 */
static __net_exit void vrnic_net_ns_exit(struct net *net)
{
	struct vrnic_net *vn = vrnic_pernet(net);

	WARN_ON(vn->users || rcu_access_pointer(vn->sk4) ||
		rcu_access_pointer(vn->sk6));
}

static struct pernet_operations vrnic_net_ops = {
	.init = vrnic_net_ns_init,
	.exit = vrnic_net_ns_exit,
	.id = &vrnic_net_id,
	.size = sizeof(struct vrnic_net),
};

/**
 * vrnic_net_init - register the per-namespace sockets' operations
 * @rx:		where received packets go (softirq, or BHs off for
 *		delivery to our own address); skb->data at the BTH
 */
int vrnic_net_init(vrnic_net_rx_fn rx)
{
	vrnic_net_rx = rx;
	return register_pernet_subsys(&vrnic_net_ops);
}

void vrnic_net_exit(void)
{
	unregister_pernet_subsys(&vrnic_net_ops);
}
