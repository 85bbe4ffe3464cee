// SPDX-License-Identifier: GPL-2.0-only
/*
 * vrnic: a soft RoCEv2 device with a hardware model of a RoCE NIC.
 *
 * Module entry points: the "vrnic" RDMA link type ("rdma link add vrnic0
 * type vrnic netdev eth0"), the netdev notifier that follows the netdev's
 * state, MTU and lifetime (the devices' list: core/vrnic_devlist.c).
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
#include "core/vrnic_device.h"
#include "core/vrnic_devlist.h"
#include "exec/vrnic_exec.h"
#include "exec/vrnic_recv.h"
#include "net/vrnic_net.h"
#include "obs/vrnic_stats.h"
#include "obs/vrnic_sysfs.h"
#include "probe/vrnic_fault.h"
#include "probe/vrnic_mutate.h"
#include "probe/vrnic_trace.h"
#include "wire/vrnic_icrc.h"

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
	INIT_HLIST_NODE(&vdev->ndev_link);
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
	if (ndev->reg_state != NETREG_REGISTERED) {
		WRITE_ONCE(vdev->ndev_gone, true);
		ib_unregister_device_queued(&vdev->ibdev);
	} else {
		vrnic_dev_follow_net(vdev);
	}
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
	vdev = vrnic_net_dev_get(ndev);
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
		if (ndev->reg_state != NETREG_REGISTERED) {
			WRITE_ONCE(vdev->ndev_gone, true);
			ib_unregister_device_queued(&vdev->ibdev);
		}
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
	err = vrnic_exec_init();
	if (err)
		return err;
	vrnic_icrc_init();
	vrnic_sysfs_init();
	vrnic_stats_init();
	vrnic_fault_init();
	err = vrnic_net_init(vrnic_recv);
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
	vrnic_exec_exit();
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
		bool got;

		vdev = vrnic_dev_first_get(&got);
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
	vrnic_exec_exit();
}

module_init(vrnic_init);
module_exit(vrnic_exit);

MODULE_ALIAS_RDMA_LINK("vrnic");
MODULE_AUTHOR("The vrnic authors");
MODULE_DESCRIPTION("Soft RoCEv2 device with a RoCE NIC hardware model");
MODULE_LICENSE("GPL");
