/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vrnic: deterministic fault injection for tests (debugfs only).
 *
 * Copyright (c) 2026 The vrnic authors
 */

#ifndef VRNIC_FAULT_H
#define VRNIC_FAULT_H

#include <linux/list.h>
#include <linux/spinlock.h>

struct dentry;
struct sk_buff;
struct vrnic_dev;

enum vrnic_fault_action {
	VRNIC_FAULT_NONE,
	VRNIC_FAULT_DROP,	/* the packet never leaves */
	VRNIC_FAULT_DUP,	/* it leaves twice */
	VRNIC_FAULT_CORRUPT,	/* it leaves with a bad ICRC */
};

/**
 * struct vrnic_faults - a device's fault rules
 * @lock:	guards @rules; taken from the transmit path (any context)
 * @rules:	struct vrnic_fault_rule, matched in order
 * @nr:		number of rules; zero keeps the transmit path's check to one
 *		read
 * @dir:	the device's debugfs directory
 */
struct vrnic_faults {
	spinlock_t		lock;		/* @rules, @nr */
	struct list_head	rules;
	unsigned int		nr;
	struct dentry		*dir;
};

void vrnic_fault_init(void);
void vrnic_fault_exit(void);
void vrnic_fault_dev_init(struct vrnic_dev *vdev);
void vrnic_fault_dev_exit(struct vrnic_dev *vdev);
enum vrnic_fault_action vrnic_fault_tx_slow(struct vrnic_dev *vdev,
					    const struct sk_buff *skb);

#endif /* VRNIC_FAULT_H */
