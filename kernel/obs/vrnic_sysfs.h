/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vrnic: the hardware model's knobs and counters in sysfs.
 *
 * Copyright (c) 2026 The vrnic authors
 */

#ifndef VRNIC_SYSFS_H
#define VRNIC_SYSFS_H

#include <linux/sysfs.h>

extern const struct attribute_group vrnic_model_group;
void vrnic_sysfs_init(void);

#endif /* VRNIC_SYSFS_H */
