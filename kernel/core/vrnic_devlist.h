/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vrnic: the list of vrnic's own devices.
 *
 * Copyright (c) 2026 The vrnic authors
 */

#ifndef VRNIC_DEVLIST_H
#define VRNIC_DEVLIST_H

#include <linux/types.h>

struct net_device;
struct vrnic_dev;

struct vrnic_dev *vrnic_dev_first_get(bool *got);
int vrnic_dev_list(struct vrnic_dev *vdev, struct net_device *ndev);
void vrnic_dev_unlist(struct vrnic_dev *vdev);
void vrnic_dev_release_net(struct vrnic_dev *vdev);
void vrnic_netdev_release_net(struct net_device *ndev);
void vrnic_dev_follow_net(struct vrnic_dev *vdev);

#endif /* VRNIC_DEVLIST_H */
