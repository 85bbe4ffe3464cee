// SPDX-License-Identifier: GPL-2.0-only
/*
 * vrnic: deterministic fault injection, a test knob in debugfs only (in
 * the manner of netdevsim).  Each rule names a packet by its BTH
 * destination QPN and PSN and says what happens to it on transmit: it is
 * dropped, sent twice, or sent with a corrupted ICRC.  Requests, ACKs, read
 * responses and atomic ACKs all leave through vrnic_net_xmit(), so a rule
 * on the right device reaches each recovery path: a lost request, a lost
 * ACK, a lost read response, a duplicate atomic, a gap that draws a
 * sequence NAK.
 *
 *   # echo "drop qpn 0x12 psn 100" > /sys/kernel/debug/vrnic/vrnic0/faults
 *   # echo "dup qpn 18 psn 5 count 3" > .../faults
 *   # cat .../faults
 *   drop qpn 18 psn 100 count 1 hits 1
 *   # echo clear > .../faults
 *
 * A rule acts on the first @count packets that match it (default 1) and
 * stays listed, with its hits, until "clear".
 *
 * Copyright (c) 2026 The vrnic authors
 */

#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "vrnic.h"
#include "probe/vrnic_fault.h"
#include "wire/vrnic_hdr.h"

#define VRNIC_FAULT_MAX_RULES	64
#define VRNIC_FAULT_MAX_COUNT	1000000
#define VRNIC_FAULT_LINE	128

struct vrnic_fault_rule {
	struct list_head	list;
	enum vrnic_fault_action	action;
	u32			qpn;
	u32			psn;
	u32			count;
	u32			hits;
};

static const char * const vrnic_fault_names[] = {
	[VRNIC_FAULT_DROP] = "drop",
	[VRNIC_FAULT_DUP] = "dup",
	[VRNIC_FAULT_CORRUPT] = "corrupt",
};

static struct dentry *vrnic_debugfs_root;

/**
 * vrnic_fault_tx_slow - what happens to a packet about to be sent
 * @vdev:	the device; it has rules
 * @skb:	the packet, BTH at skb->data
 *
 * Context: any.
 */
enum vrnic_fault_action vrnic_fault_tx_slow(struct vrnic_dev *vdev,
					    const struct sk_buff *skb)
{
	const struct vrnic_bth *bth = (const struct vrnic_bth *)skb->data;
	enum vrnic_fault_action act = VRNIC_FAULT_NONE;
	struct vrnic_fault_rule *r;
	unsigned long flags;
	u32 qpn, psn;

	if (skb_headlen(skb) < sizeof(*bth))
		return VRNIC_FAULT_NONE;
	qpn = vrnic_bth_qpn(bth);
	psn = vrnic_bth_psn(bth);
	spin_lock_irqsave(&vdev->faults.lock, flags);
	list_for_each_entry(r, &vdev->faults.rules, list) {
		if (r->qpn != qpn || r->psn != psn || r->hits >= r->count)
			continue;
		r->hits++;
		act = r->action;
		break;
	}
	spin_unlock_irqrestore(&vdev->faults.lock, flags);
	return act;
}

static void vrnic_fault_clear(struct vrnic_dev *vdev)
{
	struct vrnic_fault_rule *r, *tmp;
	unsigned long flags;
	LIST_HEAD(old);

	spin_lock_irqsave(&vdev->faults.lock, flags);
	list_splice_init(&vdev->faults.rules, &old);
	WRITE_ONCE(vdev->faults.nr, 0);
	spin_unlock_irqrestore(&vdev->faults.lock, flags);
	list_for_each_entry_safe(r, tmp, &old, list)
		kfree(r);
}

/* "ACTION qpn N psn N [count N]": 0 or -EINVAL, with @r filled in. */
static int vrnic_fault_parse(char *line, struct vrnic_fault_rule *r)
{
	bool have_qpn = false, have_psn = false;
	char *tok, *val;
	unsigned int i;
	u32 v;

	tok = strsep(&line, " \t");
	r->action = VRNIC_FAULT_NONE;
	for (i = VRNIC_FAULT_DROP; i < ARRAY_SIZE(vrnic_fault_names); i++)
		if (tok && !strcmp(tok, vrnic_fault_names[i]))
			r->action = i;
	if (r->action == VRNIC_FAULT_NONE)
		return -EINVAL;
	r->count = 1;
	while ((tok = strsep(&line, " \t"))) {
		if (!*tok)
			continue;
		do {
			val = strsep(&line, " \t");
		} while (val && !*val);
		if (!val || kstrtou32(val, 0, &v))
			return -EINVAL;
		if (!strcmp(tok, "qpn") && v <= VRNIC_QPN_MASK) {
			r->qpn = v;
			have_qpn = true;
		} else if (!strcmp(tok, "psn") && v <= VRNIC_PSN_MASK) {
			r->psn = v;
			have_psn = true;
		} else if (!strcmp(tok, "count") && v >= 1 &&
			   v <= VRNIC_FAULT_MAX_COUNT) {
			r->count = v;
		} else {
			return -EINVAL;
		}
	}
	return have_qpn && have_psn ? 0 : -EINVAL;
}

static ssize_t vrnic_fault_write(struct file *file, const char __user *ubuf,
				 size_t len, loff_t *ppos)
{
	struct vrnic_dev *vdev = file_inode(file)->i_private;
	struct vrnic_fault_rule *r;
	char buf[VRNIC_FAULT_LINE];
	unsigned long flags;
	int err;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	strim(buf);
	if (!strcmp(buf, "clear")) {
		vrnic_fault_clear(vdev);
		return len;
	}

	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		return -ENOMEM;
	err = vrnic_fault_parse(buf, r);
	if (err) {
		ibdev_info_ratelimited(&vdev->ibdev,
				       "faults: want \"drop|dup|corrupt qpn N psn N [count 1-%u]\" or \"clear\"\n",
				       VRNIC_FAULT_MAX_COUNT);
		kfree(r);
		return err;
	}
	spin_lock_irqsave(&vdev->faults.lock, flags);
	if (vdev->faults.nr >= VRNIC_FAULT_MAX_RULES) {
		spin_unlock_irqrestore(&vdev->faults.lock, flags);
		kfree(r);
		return -ENOSPC;
	}
	list_add_tail(&r->list, &vdev->faults.rules);
	WRITE_ONCE(vdev->faults.nr, vdev->faults.nr + 1);
	spin_unlock_irqrestore(&vdev->faults.lock, flags);
	return len;
}

static int vrnic_fault_show(struct seq_file *s, void *unused)
{
	struct vrnic_dev *vdev = s->private;
	struct vrnic_fault_rule *r;
	unsigned long flags;

	spin_lock_irqsave(&vdev->faults.lock, flags);
	list_for_each_entry(r, &vdev->faults.rules, list)
		seq_printf(s, "%s qpn %u psn %u count %u hits %u\n",
			   vrnic_fault_names[r->action], r->qpn, r->psn,
			   r->count, r->hits);
	spin_unlock_irqrestore(&vdev->faults.lock, flags);
	return 0;
}

static int vrnic_fault_open(struct inode *inode, struct file *file)
{
	return single_open(file, vrnic_fault_show, inode->i_private);
}

static const struct file_operations vrnic_fault_fops = {
	.owner = THIS_MODULE,
	.open = vrnic_fault_open,
	.read = seq_read,
	.write = vrnic_fault_write,
	.llseek = seq_lseek,
	.release = single_release,
};

/* After registration: the directory takes the device's name. */
void vrnic_fault_dev_init(struct vrnic_dev *vdev)
{
	vdev->faults.dir = debugfs_create_dir(dev_name(&vdev->ibdev.dev),
					      vrnic_debugfs_root);
	debugfs_create_file("faults", 0600, vdev->faults.dir, vdev,
			    &vrnic_fault_fops);
}

/* Once nothing transmits any more. */
void vrnic_fault_dev_exit(struct vrnic_dev *vdev)
{
	debugfs_remove_recursive(vdev->faults.dir);
	vdev->faults.dir = NULL;
	vrnic_fault_clear(vdev);
}

void vrnic_fault_init(void)
{
	vrnic_debugfs_root = debugfs_create_dir("vrnic", NULL);
}

void vrnic_fault_exit(void)
{
	debugfs_remove_recursive(vrnic_debugfs_root);
}
