/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vrnic: the RDMA device: its ib_device_ops and registration.
 *
 * Copyright (c) 2026 The vrnic authors
 */

#ifndef VRNIC_DEVICE_H
#define VRNIC_DEVICE_H

struct vrnic_dev;

int vrnic_register(struct vrnic_dev *vdev, const char *name);

#endif /* VRNIC_DEVICE_H */
