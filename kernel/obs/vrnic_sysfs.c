// SPDX-License-Identifier: GPL-2.0-only
/*
 * vrnic: the hardware model's knobs in sysfs,
 * /sys/class/infiniband/<dev>/model/<block>.<knob>.
 *
 * The RDMA core creates and removes the group with the device (ops
 * device_group), so a knob file never outlives its device.  The group
 * allows one directory level, hence "pcie.mps" rather than pcie/mps.
 *
 * Copyright (c) 2026 The vrnic authors
 */

#include <linux/device.h>
#include <linux/sysfs.h>

#include "vrnic.h"
#include "obs/vrnic_sysfs.h"

struct vrnic_knob_attr {
	struct device_attribute	dattr;
	enum vrnic_knob_id	id;
};

static struct vrnic_model *vrnic_model_of(struct device *dev)
{
	return &rdma_device_to_drv_device(dev, struct vrnic_dev, ibdev)->model;
}

static ssize_t vrnic_knob_show(struct device *dev, struct device_attribute *attr,
			       char *buf)
{
	struct vrnic_knob_attr *ka = container_of(attr, struct vrnic_knob_attr, dattr);

	return vrnic_model_knob_show(vrnic_model_of(dev), ka->id, buf);
}

static ssize_t vrnic_knob_store(struct device *dev, struct device_attribute *attr,
				const char *buf, size_t count)
{
	struct vrnic_knob_attr *ka = container_of(attr, struct vrnic_knob_attr, dattr);
	int err;

	err = vrnic_model_knob_store(vrnic_model_of(dev), ka->id, buf, dev);
	return err ? err : count;
}

static struct vrnic_knob_attr vrnic_knob_attrs[VRNIC_KNOB_COUNT];
static struct attribute *vrnic_model_attrs[VRNIC_KNOB_COUNT + 1];

const struct attribute_group vrnic_model_group = {
	.name = "model",
	.attrs = vrnic_model_attrs,
};

/* One file per knob of the model's table; at module init. */
void vrnic_sysfs_init(void)
{
	enum vrnic_knob_id id;

	for (id = 0; id < VRNIC_KNOB_COUNT; id++) {
		struct vrnic_knob_attr *ka = &vrnic_knob_attrs[id];

		ka->dattr.attr.name = vrnic_knob_names[id];
		ka->dattr.attr.mode = 0644;
		ka->dattr.show = vrnic_knob_show;
		ka->dattr.store = vrnic_knob_store;
		ka->id = id;
		vrnic_model_attrs[id] = &ka->dattr.attr;
	}
}
