// SPDX-License-Identifier: GPL-2.0-only
/*
 * vrnic: the list of vrnic's own devices (rxe shares RDMA_DRIVER_RXE with
 * us, so ib_unregister_driver() is not ours to call), one per netdev, and
 * each device's hold on its namespace's UDP sockets.
 *
 * Copyright (c) 2026 The vrnic authors
 */

#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <rdma/ib_verbs.h>

#include "vrnic.h"
#include "core/vrnic_devlist.h"
#include "net/vrnic_net.h"

static LIST_HEAD(vrnic_devs);
static DEFINE_MUTEX(vrnic_devs_lock);

void vrnic_dev_unlist(struct vrnic_dev *vdev)
{
	mutex_lock(&vrnic_devs_lock);
	list_del_init(&vdev->list);
	vrnic_net_unpublish(vdev);
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
void vrnic_netdev_release_net(struct net_device *ndev)
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
void vrnic_dev_follow_net(struct vrnic_dev *vdev)
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
int vrnic_dev_list(struct vrnic_dev *vdev, struct net_device *ndev)
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
	vrnic_net_publish(vdev);
	mutex_unlock(&vrnic_devs_lock);
	return 0;
}

/**
 * vrnic_dev_first_get - the first listed device, for module exit
 * @got:	set if a reference was taken (false: its unregistration is
 *		under way, and it leaves the list from dealloc_driver)
 *
 * Return: the device, or NULL once the list is empty.
 */
struct vrnic_dev *vrnic_dev_first_get(bool *got)
{
	struct vrnic_dev *vdev;

	*got = false;
	mutex_lock(&vrnic_devs_lock);
	vdev = list_first_entry_or_null(&vrnic_devs, struct vrnic_dev, list);
	if (vdev)
		*got = ib_device_try_get(&vdev->ibdev);
	mutex_unlock(&vrnic_devs_lock);
	return vdev;
}
