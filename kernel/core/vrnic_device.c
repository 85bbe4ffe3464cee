// SPDX-License-Identifier: GPL-2.0-only
/*
 * vrnic: ib_device_ops, thin adapters onto the objects.
 *
 * Copyright (c) 2026 The vrnic authors
 */

#include <linux/if_ether.h>
#include <net/addrconf.h>
#include <rdma/ib_mad.h>
#include <rdma/uverbs_ioctl.h>

#include "vrnic.h"
#include "vrnic_mr.h"
#include "vrnic_qp.h"
#include "vrnic_verbs.h"
#include "core/vrnic_device.h"
#include "core/vrnic_devlist.h"
#include "net/vrnic_net.h"
#include "obj/vrnic_queue.h"
#include "obs/vrnic_restrack.h"
#include "obs/vrnic_stats.h"
#include "obs/vrnic_sysfs.h"
#include "probe/vrnic_fault.h"
#include "verbs/vrnic_cq.h"
#include "verbs/vrnic_mr_verbs.h"
#include "verbs/vrnic_post.h"
#include "verbs/vrnic_qp_verbs.h"
#include "verbs/vrnic_srq.h"

static int vrnic_query_device(struct ib_device *ibdev,
			      struct ib_device_attr *attr,
			      struct ib_udata *udata)
{
	if (udata->inlen || udata->outlen)
		return -EINVAL;
	*attr = to_vdev(ibdev)->attr;
	return 0;
}

static int vrnic_query_port(struct ib_device *ibdev, u32 port,
			    struct ib_port_attr *attr)
{
	struct vrnic_dev *vdev = to_vdev(ibdev);
	struct net_device *ndev = vdev->ndev;
	bool up = netif_running(ndev) && netif_carrier_ok(ndev);

	/* The core zeroed *attr. */
	attr->state = up ? IB_PORT_ACTIVE : IB_PORT_DOWN;
	attr->phys_state = up ? IB_PORT_PHYS_STATE_LINK_UP :
				IB_PORT_PHYS_STATE_DISABLED;
	attr->max_mtu = IB_MTU_4096;
	attr->active_mtu = vrnic_active_mtu(vdev);
	attr->gid_tbl_len = VRNIC_GID_TBL_LEN;
	attr->port_cap_flags = IB_PORT_CM_SUP;
	attr->max_msg_sz = VRNIC_MAX_MSG_SIZE;
	attr->pkey_tbl_len = VRNIC_PKEY_TBL_LEN;
	attr->max_vl_num = 1;
	attr->lid = 0;
	attr->sm_lid = 0;
	return ib_get_eth_speed(ibdev, port, &attr->active_speed,
				&attr->active_width);
}

static int vrnic_get_port_immutable(struct ib_device *ibdev, u32 port,
				    struct ib_port_immutable *immutable)
{
	struct ib_port_attr attr = {};
	int err;

	/* RoCEv2 only: vrnic speaks UDP-encapsulated RoCE. */
	immutable->core_cap_flags = RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP;
	err = ib_query_port(ibdev, port, &attr);
	if (err)
		return err;
	immutable->pkey_tbl_len = attr.pkey_tbl_len;
	immutable->gid_tbl_len = attr.gid_tbl_len;
	immutable->max_mad_size = IB_MGMT_MAD_SIZE;
	return 0;
}

static int vrnic_query_pkey(struct ib_device *ibdev, u32 port, u16 index,
			    u16 *pkey)
{
	if (index >= VRNIC_PKEY_TBL_LEN)
		return -EINVAL;
	*pkey = IB_DEFAULT_PKEY_FULL;
	return 0;
}

static enum rdma_link_layer vrnic_get_link_layer(struct ib_device *ibdev,
						 u32 port)
{
	return IB_LINK_LAYER_ETHERNET;
}

static int vrnic_modify_device(struct ib_device *ibdev, int mask,
			       struct ib_device_modify *attr)
{
	if (mask & ~(IB_DEVICE_MODIFY_SYS_IMAGE_GUID | IB_DEVICE_MODIFY_NODE_DESC))
		return -EOPNOTSUPP;
	if (mask & IB_DEVICE_MODIFY_SYS_IMAGE_GUID)
		to_vdev(ibdev)->attr.sys_image_guid = attr->sys_image_guid;
	if (mask & IB_DEVICE_MODIFY_NODE_DESC)
		memcpy(ibdev->node_desc, attr->node_desc, IB_DEVICE_NODE_DESC_MAX);
	return 0;
}

static int vrnic_alloc_ucontext(struct ib_ucontext *ibuc, struct ib_udata *udata)
{
	return 0;
}

static void vrnic_dealloc_ucontext(struct ib_ucontext *ibuc)
{
}

/*
 * The device goes away (rdma link delete, rmmod, the netdev unregistered)
 * while processes still have it open.  Offering this lets the core destroy
 * their objects and return at once, the processes seeing EIO from then
 * on, instead of waiting for every one of them to close the device.
 * Nothing of vrnic's outlives that: the queue rings a process still has
 * mapped are vmalloc pages that its mapping keeps until it unmaps them, and
 * the engines stopped with the QPs.
 */
static void vrnic_disassociate_ucontext(struct ib_ucontext *ibuc)
{
}

static int vrnic_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	return 0;
}

static int vrnic_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	return 0;
}

static int vrnic_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
			   struct ib_udata *udata)
{
	struct vrnic_dev *vdev = to_vdev(ibah->device);
	struct rdma_ah_attr *attr = init->ah_attr;
	struct vrnic_ah *ah = to_vah(ibah);
	struct rxe_create_ah_resp resp = {};
	unsigned long flags;
	int err;

	/* RoCE: every AH carries a GRH with a resolved source GID. */
	if (!(rdma_ah_get_ah_flags(attr) & IB_AH_GRH) || !attr->grh.sgid_attr)
		return -EINVAL;
	if (rdma_ah_get_port_num(attr) != VRNIC_PORT)
		return -EINVAL;

	/*
	 * The requester copies an AH's vector under the table's lock, from
	 * any context (vrnic_req_av()), so that lock is taken with IRQs off
	 * and never dropped to allocate.
	 */
	rdma_copy_ah_attr(&ah->attr, attr);
	xa_lock_irqsave(&vdev->ahs, flags);
	err = __xa_alloc_cyclic(&vdev->ahs, &ah->num, ah,
				XA_LIMIT(1, VRNIC_MAX_AH), &vdev->next_ah,
				GFP_ATOMIC);
	xa_unlock_irqrestore(&vdev->ahs, flags);
	if (err < 0) {
		rdma_destroy_ah_attr(&ah->attr);
		return err;
	}

	/* librxe names the AH by number in UD WQEs; older ones do not ask. */
	if (udata && udata->outlen >= sizeof(resp)) {
		resp.ah_num = ah->num;
		err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err) {
			xa_erase_irq(&vdev->ahs, ah->num);
			rdma_destroy_ah_attr(&ah->attr);
			return err;
		}
	}
	return 0;
}

static int vrnic_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *attr)
{
	struct vrnic_ah *ah = to_vah(ibah);

	*attr = ah->attr;
	attr->grh.sgid_attr = NULL;
	return 0;
}

static int vrnic_destroy_ah(struct ib_ah *ibah, u32 flags)
{
	struct vrnic_dev *vdev = to_vdev(ibah->device);
	struct vrnic_ah *ah = to_vah(ibah);
	unsigned long irqflags;

	/* Once out of the table, no requester holds it (vrnic_req_av()). */
	xa_lock_irqsave(&vdev->ahs, irqflags);
	__xa_erase(&vdev->ahs, ah->num);
	xa_unlock_irqrestore(&vdev->ahs, irqflags);
	rdma_destroy_ah_attr(&ah->attr);
	return 0;
}

static struct lock_class_key vrnic_ah_lock_key;

static void vrnic_dealloc_driver(struct ib_device *ibdev);

/*
 * The port's netdev, held, for the core (RoCE GIDs, rdma link).  Not
 * through ib_device_set_netdev(): that lists the device in the core's
 * table by netdev, where rxe, whose driver id vrnic shares so that librxe
 * drives it, looks up its own devices (ib_device_get_by_netdev(...,
 * RDMA_DRIVER_RXE)) and would take ours for a struct rxe_dev: its netdev
 * notifier did on a carrier change of our netdev, and 6.1's dereferenced
 * rxe->ndev, a field of ours at its offset, and oopsed.  NULL once the
 * netdev has gone through NETDEV_UNREGISTER, as the core asks of this op.
 */
static struct net_device *vrnic_get_netdev(struct ib_device *ibdev, u32 port)
{
	struct vrnic_dev *vdev = to_vdev(ibdev);

	if (port != VRNIC_PORT || READ_ONCE(vdev->ndev_gone))
		return NULL;
	dev_hold(vdev->ndev);
	return vdev->ndev;
}

static const struct ib_device_ops vrnic_dev_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_RXE,	/* librxe drives us: rxe ABI */
	.uverbs_abi_ver = VRNIC_UVERBS_ABI_VERSION,

	.alloc_hw_port_stats = vrnic_alloc_hw_port_stats,
	.alloc_mr = vrnic_alloc_mr,
	.alloc_mw = vrnic_alloc_mw,
	.alloc_pd = vrnic_alloc_pd,
	.alloc_ucontext = vrnic_alloc_ucontext,
	.attach_mcast = vrnic_attach_mcast,
	.create_ah = vrnic_create_ah,
	.create_cq = vrnic_create_cq,
	.create_qp = vrnic_create_qp,
	.create_srq = vrnic_create_srq,
	.create_user_ah = vrnic_create_ah,
	.dealloc_driver = vrnic_dealloc_driver,
	.dealloc_mw = vrnic_dealloc_mw,
	.dealloc_pd = vrnic_dealloc_pd,
	.dealloc_ucontext = vrnic_dealloc_ucontext,
	.disassociate_ucontext = vrnic_disassociate_ucontext,
	.dereg_mr = vrnic_dereg_mr,
	.destroy_ah = vrnic_destroy_ah,
	.destroy_cq = vrnic_destroy_cq,
	.destroy_qp = vrnic_destroy_qp,
	.destroy_srq = vrnic_destroy_srq,
	.detach_mcast = vrnic_detach_mcast,
	.device_group = &vrnic_model_group,
	.fill_res_cq_entry = vrnic_fill_res_cq_entry,
	.fill_res_mr_entry = vrnic_fill_res_mr_entry,
	.fill_res_qp_entry = vrnic_fill_res_qp_entry,
	.get_dma_mr = vrnic_get_dma_mr,
	.get_hw_stats = vrnic_get_hw_stats,
	.get_link_layer = vrnic_get_link_layer,
	.get_netdev = vrnic_get_netdev,
	.get_port_immutable = vrnic_get_port_immutable,
	.map_mr_sg = vrnic_map_mr_sg,
	.mmap = vrnic_mmap,
	.mmap_free = vrnic_mmap_free,
	.modify_device = vrnic_modify_device,
	.modify_qp = vrnic_modify_qp,
	.modify_srq = vrnic_modify_srq,
	.poll_cq = vrnic_poll_cq,
	.post_recv = vrnic_post_recv,
	.post_send = vrnic_post_send,
	.post_srq_recv = vrnic_post_srq_recv,
	.query_ah = vrnic_query_ah,
	.query_device = vrnic_query_device,
	.query_pkey = vrnic_query_pkey,
	.query_port = vrnic_query_port,
	.query_qp = vrnic_query_qp,
	.query_srq = vrnic_query_srq,
	.reg_user_mr = vrnic_reg_user_mr,
	.req_notify_cq = vrnic_req_notify_cq,
	.resize_cq = vrnic_resize_cq,

	INIT_RDMA_OBJ_SIZE(ib_ah, vrnic_ah, ibah),
	INIT_RDMA_OBJ_SIZE(ib_cq, vrnic_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_mw, vrnic_ibmw, ibmw),
	INIT_RDMA_OBJ_SIZE(ib_pd, vrnic_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_qp, vrnic_qp, ibqp),
	INIT_RDMA_OBJ_SIZE(ib_srq, vrnic_srq, ibsrq),
	INIT_RDMA_OBJ_SIZE(ib_ucontext, vrnic_ucontext, ibuc),
};

static void vrnic_init_attr(struct vrnic_dev *vdev)
{
	struct ib_device_attr *a = &vdev->attr;

	a->vendor_id = VRNIC_VENDOR_ID;
	a->max_mr_size = U64_MAX;
	a->page_size_cap = PAGE_SIZE;
	a->max_qp = VRNIC_MAX_QPN - VRNIC_MIN_QPN;
	a->max_qp_wr = VRNIC_MAX_QP_WR;
	a->device_cap_flags = IB_DEVICE_BAD_PKEY_CNTR | IB_DEVICE_BAD_QKEY_CNTR |
			      IB_DEVICE_SYS_IMAGE_GUID | IB_DEVICE_RC_RNR_NAK_GEN |
			      IB_DEVICE_MEM_MGT_EXTENSIONS |
			      IB_DEVICE_MEM_WINDOW |
			      IB_DEVICE_MEM_WINDOW_TYPE_2B |
			      IB_DEVICE_SRQ_RESIZE | VRNIC_DEVICE_FLUSH_GLOBAL;
	a->kernel_cap_flags = IBK_ALLOW_USER_UNREG;
	a->max_send_sge = VRNIC_MAX_SGE;
	a->max_recv_sge = VRNIC_MAX_SGE;
	a->max_sge_rd = VRNIC_MAX_SGE_RD;
	a->max_cq = 0x10000;
	a->max_cqe = VRNIC_MAX_CQE;
	a->max_mr = VRNIC_MAX_MR;
	a->max_mw = VRNIC_MAX_MW;
	a->max_pd = VRNIC_MAX_PD;
	a->max_qp_rd_atom = VRNIC_MAX_RD_ATOMIC;
	a->max_qp_init_rd_atom = VRNIC_MAX_RD_ATOMIC;
	a->max_res_rd_atom = 0x10000;
	a->atomic_cap = IB_ATOMIC_HCA;
	a->max_ah = VRNIC_MAX_AH;
	a->max_mcast_grp = VRNIC_MAX_MCAST_GRP;
	a->max_mcast_qp_attach = VRNIC_MAX_MCAST_QP_ATTACH;
	a->max_total_mcast_qp_attach = VRNIC_MAX_TOTAL_MCAST_QP_ATTACH;
	a->max_srq = VRNIC_MAX_SRQN - VRNIC_MIN_SRQN;
	a->max_srq_wr = VRNIC_MAX_SRQ_WR;
	a->max_srq_sge = VRNIC_MAX_SRQ_SGE;
	a->max_fast_reg_page_list_len = VRNIC_MAX_FRWR_PAGES;
	a->max_pkeys = VRNIC_PKEY_TBL_LEN;
	a->local_ca_ack_delay = 15;
	addrconf_addr_eui48((unsigned char *)&a->sys_image_guid,
			    vdev->ndev->dev_addr);
	/*
	 * On-demand paging (mem/vrnic_odp.c), where ib_core has it: explicit
	 * MRs, every operation of RC, UC and UD; not implicit ODP.
	 */
	if (IS_ENABLED(CONFIG_INFINIBAND_ON_DEMAND_PAGING)) {
		a->kernel_cap_flags |= IBK_ON_DEMAND_PAGING;
		a->odp_caps.general_caps = IB_ODP_SUPPORT;
		a->odp_caps.per_transport_caps.rc_odp_caps =
			IB_ODP_SUPPORT_SEND | IB_ODP_SUPPORT_RECV |
			IB_ODP_SUPPORT_WRITE | IB_ODP_SUPPORT_READ |
			IB_ODP_SUPPORT_ATOMIC | IB_ODP_SUPPORT_SRQ_RECV;
		a->odp_caps.per_transport_caps.uc_odp_caps =
			IB_ODP_SUPPORT_SEND | IB_ODP_SUPPORT_RECV |
			IB_ODP_SUPPORT_WRITE | IB_ODP_SUPPORT_SRQ_RECV;
		a->odp_caps.per_transport_caps.ud_odp_caps =
			IB_ODP_SUPPORT_SEND | IB_ODP_SUPPORT_RECV |
			IB_ODP_SUPPORT_SRQ_RECV;
	}
}

/*
 * The DMA-capable device behind a netdev: the first ancestor with DMA
 * parameters (for virtio-net, the virtio device's PCI function).  NULL
 * when there is none (veth), and vrnic then uses virtual DMA like rxe.
 */
static struct device *vrnic_find_dma_dev(struct net_device *ndev)
{
	struct device *dev;

	for (dev = ndev->dev.parent; dev; dev = dev->parent)
		if (dev->dma_mask && dev->dma_parms)
			return dev;
	return NULL;
}

/**
 * vrnic_register - fill in and register a device
 * @vdev:	allocated with ib_alloc_device(), @ndev set
 * @name:	the name from "rdma link add", or a vrnic%d pattern
 *
 * On failure the caller frees @vdev with ib_dealloc_device().
 */
int vrnic_register(struct vrnic_dev *vdev, const char *name)
{
	struct ib_device *ibdev = &vdev->ibdev;

	xa_init_flags(&vdev->qps, XA_FLAGS_ALLOC);
	xa_init_flags(&vdev->srqs, XA_FLAGS_ALLOC);
	xa_init_flags(&vdev->ahs, XA_FLAGS_ALLOC1 | XA_FLAGS_LOCK_IRQ);
	/*
	 * xarrays set up in one file share a lockdep class; the AH table's
	 * lock is also taken in the receive softirq (vrnic_req_av()), the
	 * others never are.
	 */
	lockdep_set_class(&vdev->ahs.xa_lock, &vrnic_ah_lock_key);
	xa_init_flags(&vdev->mrs, XA_FLAGS_ALLOC1);
	xa_init_flags(&vdev->mws, XA_FLAGS_ALLOC);
	vrnic_mcgs_init(&vdev->mcgs);
	vdev->dma_dev = vrnic_find_dma_dev(vdev->ndev);
	vrnic_init_attr(vdev);

	strscpy(ibdev->node_desc, "vrnic", sizeof(ibdev->node_desc));
	ibdev->node_type = RDMA_NODE_IB_CA;
	ibdev->phys_port_cnt = 1;
	ibdev->num_comp_vectors = num_possible_cpus();
	ibdev->local_dma_lkey = 0;
	addrconf_addr_eui48((unsigned char *)&ibdev->node_guid,
			    vdev->ndev->dev_addr);
	/* The zero-WR POST_SEND is librxe's doorbell. */
	ibdev->uverbs_cmd_mask |= BIT_ULL(IB_USER_VERBS_CMD_POST_SEND) |
				  BIT_ULL(IB_USER_VERBS_CMD_REQ_NOTIFY_CQ);

	/* Put by dealloc_driver, which ib_dealloc_device() runs from here on. */
	netdev_hold(vdev->ndev, &vdev->ndev_tracker, GFP_KERNEL);
	ib_set_device_ops(ibdev, &vrnic_dev_ops);
	return ib_register_device(ibdev, name, vdev->dma_dev);
}

static void vrnic_dealloc_driver(struct ib_device *ibdev)
{
	struct vrnic_dev *vdev = to_vdev(ibdev);

	vrnic_fault_dev_exit(vdev);
	vrnic_dev_release_net(vdev);
	WARN_ON(!xa_empty(&vdev->qps));
	WARN_ON(!xa_empty(&vdev->mrs));
	WARN_ON(!xa_empty(&vdev->mws));
	vrnic_mcgs_fini(vdev);
	xa_destroy(&vdev->qps);
	xa_destroy(&vdev->srqs);
	xa_destroy(&vdev->ahs);
	xa_destroy(&vdev->mrs);
	xa_destroy(&vdev->mws);
	vrnic_model_fini(&vdev->model);
	netdev_put(vdev->ndev, &vdev->ndev_tracker);
	/*
	 * Last: module exit waits for the list to empty (vrnic_exit()), and
	 * then removes debugfs, the namespaces' sockets and the workqueue
	 * under what ran above.  (Unlisted first, a queued unregistration
	 * let rmmod, right after "ip netns del", run ahead of it.)
	 */
	vrnic_dev_unlist(vdev);
}
