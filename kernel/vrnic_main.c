// SPDX-License-Identifier: GPL-2.0-only
/*
 * vrnic: a soft RoCEv2 device with a hardware model of a RoCE NIC.
 *
 * Module entry points.  The RDMA link type, netdev notifier and device
 * creation arrive with the driver; for now the module only proves that it
 * builds against the target kernel and loads and unloads cleanly next to
 * ib_core.
 *
 * Copyright (c) 2026 The vrnic authors
 */

#include <linux/module.h>
#include <rdma/ib_verbs.h>

static int __init vrnic_init(void)
{
	return 0;
}

static void __exit vrnic_exit(void)
{
}

module_init(vrnic_init);
module_exit(vrnic_exit);

MODULE_AUTHOR("The vrnic authors");
MODULE_DESCRIPTION("Soft RoCEv2 device with a RoCE NIC hardware model");
MODULE_LICENSE("GPL");
