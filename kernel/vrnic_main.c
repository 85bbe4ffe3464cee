// SPDX-License-Identifier: GPL-2.0-only
/*
 * vrnic: a soft RoCEv2 device with a hardware model of a RoCE NIC.
 *
 * Module entry points: the "vrnic" RDMA link type ("rdma link add vrnic0
 * type vrnic netdev eth0"), the netdev notifier that follows the netdev's
 * state, MTU and lifetime, and the list of vrnic's own devices (rxe shares
 * RDMA_DRIVER_RXE with us, so ib_unregister_driver() is not ours to call).
 *
 * Copyright (c) 2026 The vrnic authors
 */

#include <linux/delay.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_netlink.h>

#include "vrnic.h"
#include "vrnic_icrc.h"
#include "vrnic_mutate.h"
#include "vrnic_net.h"
#include "vrnic_trace.h"

struct workqueue_struct *vrnic_wq;

static LIST_HEAD(vrnic_devs);
static DEFINE_MUTEX(vrnic_devs_lock);

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

/* Our device on @ndev, with a reference, or NULL. */
static struct vrnic_dev *vrnic_dev_by_netdev(struct net_device *ndev)
{
	struct vrnic_dev *vdev, *found = NULL;

	mutex_lock(&vrnic_devs_lock);
	list_for_each_entry(vdev, &vrnic_devs, list) {
		if (vdev->ndev == ndev && ib_device_try_get(&vdev->ibdev)) {
			found = vdev;
			break;
		}
	}
	mutex_unlock(&vrnic_devs_lock);
	return found;
}

void vrnic_dev_unlist(struct vrnic_dev *vdev)
{
	mutex_lock(&vrnic_devs_lock);
	list_del_init(&vdev->list);
	mutex_unlock(&vrnic_devs_lock);
}

/*
 * Drop the device's hold on its namespace's UDP sockets, once: when its
 * netdev unregisters (before the namespace can be torn down) or when the
 * device is deallocated, whichever comes first.
 */
void vrnic_dev_release_net(struct vrnic_dev *vdev)
{
	bool put;

	mutex_lock(&vrnic_devs_lock);
	put = vdev->net_ok;
	vdev->net_ok = false;
	mutex_unlock(&vrnic_devs_lock);
	if (put)
		vrnic_net_put(vdev->net);
}

/*
 * @ndev leaves its namespace (it unregisters, or moves): the device on it
 * lets go of that namespace's sockets now, registered yet or not.  Found
 * by netdev rather than through a device reference, which a device still
 * registering does not give: had its netdev's namespace gone meanwhile,
 * the device would later have put a namespace freed already.  The
 * namespace is alive while its netdev unregisters.  Context: RTNL held.
 */
static void vrnic_netdev_release_net(struct net_device *ndev)
{
	struct net *net = NULL;
	struct vrnic_dev *vdev;

	mutex_lock(&vrnic_devs_lock);
	list_for_each_entry(vdev, &vrnic_devs, list) {
		if (vdev->ndev == ndev && vdev->net_ok) {
			vdev->net_ok = false;
			net = vdev->net;
			break;
		}
	}
	mutex_unlock(&vrnic_devs_lock);
	if (net)
		vrnic_net_put(net);
}

/*
 * The netdev arrived in another network namespace: take (or open) that
 * namespace's UDP sockets.  The GIDs follow through the core's handling
 * of the same netdev events, and routes are looked up in the netdev's
 * namespace on every send.
 */
static void vrnic_dev_follow_net(struct vrnic_dev *vdev)
{
	struct net *net = dev_net(vdev->ndev);
	bool have;
	int err;

	mutex_lock(&vrnic_devs_lock);
	have = vdev->net_ok;
	mutex_unlock(&vrnic_devs_lock);
	if (have)
		return;
	vdev->net = net;
	err = vrnic_net_get(vdev);
	if (err) {
		ibdev_err(&vdev->ibdev,
			  "no RoCE UDP socket in %s's new namespace (%d): the device cannot carry traffic there\n",
			  netdev_name(vdev->ndev), err);
		return;
	}
	mutex_lock(&vrnic_devs_lock);
	vdev->net_ok = true;
	mutex_unlock(&vrnic_devs_lock);
}

/*
 * List a new device on @ndev and take its namespace's sockets.  Under
 * RTNL, which the netdev notifier runs under: the netdev is still in the
 * namespace whose sockets the device takes, no other vrnic device is on
 * it, and once listed its leaving finds the device
 * (vrnic_netdev_release_net()).
 */
static int vrnic_dev_list(struct vrnic_dev *vdev, struct net_device *ndev)
{
	struct ib_device *other;
	struct vrnic_dev *d;
	bool listed = false;
	int err;

	ASSERT_RTNL();
	if (ndev->reg_state != NETREG_REGISTERED)
		return -ENODEV;
	/*
	 * One soft RoCE device per netdev: rxe's devices count, and so do
	 * ours still registering, which only our list knows.
	 */
	other = ib_device_get_by_netdev(ndev, RDMA_DRIVER_RXE);
	if (other) {
		pr_err("vrnic: %s already has RDMA device %s\n", ndev->name,
		       dev_name(&other->dev));
		ib_device_put(other);
		return -EEXIST;
	}
	mutex_lock(&vrnic_devs_lock);
	list_for_each_entry(d, &vrnic_devs, list)
		listed |= d->ndev == ndev;
	mutex_unlock(&vrnic_devs_lock);
	if (listed) {
		pr_err("vrnic: %s already has a vrnic device\n", ndev->name);
		return -EEXIST;
	}
	vdev->net = dev_net(ndev);
	err = vrnic_net_get(vdev);
	if (err)
		return err;
	mutex_lock(&vrnic_devs_lock);
	vdev->net_ok = true;
	list_add_tail(&vdev->list, &vrnic_devs);
	mutex_unlock(&vrnic_devs_lock);
	return 0;
}

static int vrnic_newlink(const char *name, struct net_device *ndev)
{
	struct vrnic_dev *vdev;
	int err;

	if (ndev->type != ARPHRD_ETHER && !(ndev->flags & IFF_LOOPBACK)) {
		pr_err("vrnic: %s is not an Ethernet device\n", ndev->name);
		return -EINVAL;
	}
	vdev = ib_alloc_device(vrnic_dev, ibdev);
	if (!vdev)
		return -ENOMEM;
	vdev->ndev = ndev;
	INIT_LIST_HEAD(&vdev->list);
	spin_lock_init(&vdev->atomic_lock);
	spin_lock_init(&vdev->faults.lock);
	INIT_LIST_HEAD(&vdev->faults.rules);
	err = vrnic_model_init(&vdev->model);
	if (err)
		goto err_model;
	rtnl_lock();
	err = vrnic_dev_list(vdev, ndev);
	rtnl_unlock();
	if (err)
		goto err_model;

	err = vrnic_register(vdev, name);
	if (err) {
		vrnic_dev_unlist(vdev);
		vrnic_dev_release_net(vdev);
		goto err_model;
	}
	vrnic_fault_dev_init(vdev);
	/*
	 * While it registered, the notifier found the device only to drop
	 * its hold on the namespace (it takes no reference to a device not
	 * yet registered): if the netdev went meanwhile, the device goes;
	 * if it moved, the device follows it now.
	 */
	rtnl_lock();
	if (ndev->reg_state != NETREG_REGISTERED)
		ib_unregister_device_queued(&vdev->ibdev);
	else
		vrnic_dev_follow_net(vdev);
	rtnl_unlock();
	return 0;

err_model:
	/* Twice is safe when ib_dealloc_device() runs dealloc_driver too. */
	vrnic_model_fini(&vdev->model);
	ib_dealloc_device(&vdev->ibdev);
	return err;
}

static struct rdma_link_ops vrnic_link_ops = {
	.type = "vrnic",
	.newlink = vrnic_newlink,
};

static void vrnic_port_event(struct vrnic_dev *vdev, enum ib_event_type type)
{
	struct ib_event ev = {
		.device = &vdev->ibdev,
		.element.port_num = VRNIC_PORT,
		.event = type,
	};

	trace_async_event(&vdev->ibdev, type, VRNIC_PORT);
	ib_dispatch_event(&ev);
}

static int vrnic_netdev_event(struct notifier_block *nb, unsigned long event,
			      void *ptr)
{
	struct net_device *ndev = netdev_notifier_info_to_dev(ptr);
	struct vrnic_dev *vdev;

	if (event == NETDEV_UNREGISTER)
		vrnic_netdev_release_net(ndev);
	vdev = vrnic_dev_by_netdev(ndev);
	if (!vdev)
		return NOTIFY_DONE;

	switch (event) {
	case NETDEV_UNREGISTER:
		/*
		 * A netdev moving to another namespace unregisters from the
		 * old one still NETREG_REGISTERED, then registers in the new
		 * one: the device follows it.  Otherwise the netdev is going
		 * away, and the device cannot outlive it.  Either way it let
		 * go of the old namespace above.
		 */
		if (ndev->reg_state != NETREG_REGISTERED)
			ib_unregister_device_queued(&vdev->ibdev);
		break;
	case NETDEV_REGISTER:
		/* Arrived in its new namespace: use that one's UDP socket. */
		vrnic_dev_follow_net(vdev);
		break;
	case NETDEV_UP:
	case NETDEV_CHANGE:
		vrnic_port_event(vdev, netif_running(ndev) && netif_carrier_ok(ndev) ?
				 IB_EVENT_PORT_ACTIVE : IB_EVENT_PORT_ERR);
		break;
	case NETDEV_DOWN:
		vrnic_port_event(vdev, IB_EVENT_PORT_ERR);
		break;
	case NETDEV_CHANGEMTU:
		ibdev_info(&vdev->ibdev, "netdev MTU %u: active MTU now %d\n",
			   ndev->mtu, ib_mtu_enum_to_int(vrnic_active_mtu(vdev)));
		break;
	default:
		break;
	}
	ib_device_put(&vdev->ibdev);
	return NOTIFY_OK;
}

static struct notifier_block vrnic_netdev_nb = {
	.notifier_call = vrnic_netdev_event,
};

static int __init vrnic_init(void)
{
	int err;

#ifdef VRNIC_MUTATE_NAME
	pr_notice("vrnic: built with the deliberate fault %s (tools/mutate.sh): not for use\n",
		  VRNIC_MUTATE_NAME);
#endif
	vrnic_wq = alloc_workqueue("vrnic", WQ_UNBOUND | WQ_HIGHPRI | WQ_MEM_RECLAIM, 0);
	if (!vrnic_wq)
		return -ENOMEM;
	vrnic_icrc_init();
	vrnic_sysfs_init();
	vrnic_stats_init();
	vrnic_fault_init();
	err = vrnic_net_init();
	if (err)
		goto err_wq;
	err = register_netdevice_notifier(&vrnic_netdev_nb);
	if (err)
		goto err_net;
	rdma_link_register(&vrnic_link_ops);
	return 0;

err_net:
	vrnic_net_exit();
err_wq:
	vrnic_fault_exit();
	vrnic_icrc_exit();
	destroy_workqueue(vrnic_wq);
	return err;
}

static void __exit vrnic_exit(void)
{
	struct vrnic_dev *vdev;

	rdma_link_unregister(&vrnic_link_ops);

	/*
	 * Unregister our devices one at a time, never rxe's.  A device whose
	 * unregistration is already queued (its netdev went away) leaves the
	 * list from dealloc_driver; wait for that.  The netdev notifier stays
	 * until they are gone: unregistering it replays NETDEV_UNREGISTER for
	 * every netdev, which would take a live device's sockets away under
	 * its traffic.
	 */
	for (;;) {
		bool got = false;

		mutex_lock(&vrnic_devs_lock);
		vdev = list_first_entry_or_null(&vrnic_devs, struct vrnic_dev,
						list);
		if (vdev)
			got = ib_device_try_get(&vdev->ibdev);
		mutex_unlock(&vrnic_devs_lock);
		if (!vdev)
			break;
		if (got)
			ib_unregister_device_and_put(&vdev->ibdev);
		else
			msleep(20);
	}
	unregister_netdevice_notifier(&vrnic_netdev_nb);
	vrnic_net_exit();
	vrnic_fault_exit();
	vrnic_icrc_exit();
	destroy_workqueue(vrnic_wq);
}

module_init(vrnic_init);
module_exit(vrnic_exit);

MODULE_ALIAS_RDMA_LINK("vrnic");
MODULE_AUTHOR("The vrnic authors");
MODULE_DESCRIPTION("Soft RoCEv2 device with a RoCE NIC hardware model");
MODULE_LICENSE("GPL");
