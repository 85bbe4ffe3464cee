// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests that drive a vrnic device as a kernel ULP does (NVMe-oF,
 * iSER, SMB Direct): through ib_core's kernel verbs only, so this module
 * links against no symbol of vrnic and can be loaded beside any build of
 * it, an old one included.  Load it after a device exists:
 *
 *	rdma link add vrnic0 type vrnic netdev eth0
 *	insmod vrnic_ulp_test.ko dev=vrnic0
 *
 * What only a kernel consumer reaches (issue 17, items 6 and 9):
 *  - fast-registration MRs, LOCAL_INV while the peer's READ of the MR is
 *    being answered: no byte written after the invalidation completed may
 *    reach the reader;
 *  - a comp_handler that polls its CQ and posts from inside the flush of
 *    a QP moved to the error state, as a ULP's handler may: the driver
 *    must call it without its queue locks held;
 *  - the work-request rules at post time (issue 15): RDMA on a UD QP is
 *    refused, ATOMIC WRITE is taken.
 *
 * Copyright (c) 2026 The vrnic authors
 */

#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/gfp.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <net/addrconf.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>

static char *ulp_dev = "vrnic0";
module_param_named(dev, ulp_dev, charp, 0444);
MODULE_PARM_DESC(dev, "the RDMA device to test (default vrnic0)");

#define ULP_PORT	1
/* The largest fast-registration MR vrnic offers: 512 pages. */
#define ULP_MR_ORDER	9
#define ULP_MR_LEN	(PAGE_SIZE << ULP_MR_ORDER)
#define ULP_OLD		0x5a
#define ULP_SECRET	0xa5
/* The debug kernel under TCG answers a 2 MiB READ in seconds. */
#define ULP_WAIT	(60 * HZ)

struct ulp_ctx {
	struct kunit		*test;
	struct ib_device	*dev;
	struct ib_pd		*pd;
	const struct ib_gid_attr *sgid;
	u8			dmac[ETH_ALEN];
};

/* A device's first RoCEv2 GID on an IPv4 address: packets to it stay local. */
static const struct ib_gid_attr *ulp_find_gid(struct ib_device *dev)
{
	const struct ib_gid_attr *attr;
	unsigned int i;

	for (i = 0; i < 16; i++) {
		attr = rdma_get_gid_attr(dev, ULP_PORT, i);
		if (IS_ERR(attr))
			continue;
		if (attr->gid_type == IB_GID_TYPE_ROCE_UDP_ENCAP &&
		    ipv6_addr_v4mapped((const struct in6_addr *)attr->gid.raw))
			return attr;
		rdma_put_gid_attr(attr);
	}
	return NULL;
}

static int ulp_init(struct kunit *test)
{
	struct ulp_ctx *c;
	int err;

	c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c);
	c->test = test;
	c->dev = ib_device_get_by_name(ulp_dev, RDMA_DRIVER_UNKNOWN);
	if (!c->dev)
		kunit_skip(test, "no RDMA device %s (module parameter dev)",
			   ulp_dev);
	c->sgid = ulp_find_gid(c->dev);
	if (!c->sgid) {
		ib_device_put(c->dev);
		kunit_skip(test, "%s has no RoCEv2 IPv4 GID", ulp_dev);
	}
	err = rdma_read_gid_l2_fields(c->sgid, NULL, c->dmac);
	if (!err) {
		c->pd = ib_alloc_pd(c->dev, 0);
		if (IS_ERR(c->pd))
			err = PTR_ERR(c->pd);
	}
	if (err) {
		rdma_put_gid_attr(c->sgid);
		ib_device_put(c->dev);
		KUNIT_FAIL(test, "%s: setup failed: %d", ulp_dev, err);
		return err;
	}
	test->priv = c;
	return 0;
}

static void ulp_exit(struct kunit *test)
{
	struct ulp_ctx *c = test->priv;

	if (!c)
		return;
	ib_dealloc_pd(c->pd);
	rdma_put_gid_attr(c->sgid);
	ib_device_put(c->dev);
}

static struct ib_qp *ulp_create_qp(struct ulp_ctx *c, struct ib_cq *cq)
{
	struct ib_qp_init_attr init = {
		.send_cq = cq,
		.recv_cq = cq,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.sq_sig_type = IB_SIGNAL_ALL_WR,
		.qp_type = IB_QPT_RC,
	};

	return ib_create_qp(c->pd, &init);
}

static int ulp_qp_init(struct ib_qp *qp)
{
	struct ib_qp_attr a = {
		.qp_state = IB_QPS_INIT,
		.port_num = ULP_PORT,
		.qp_access_flags = IB_ACCESS_REMOTE_READ,
	};

	return ib_modify_qp(qp, &a, IB_QP_STATE | IB_QP_PKEY_INDEX |
			    IB_QP_PORT | IB_QP_ACCESS_FLAGS);
}

/* INIT -> RTR -> RTS, connected to @peer at the device's own GID. */
static int ulp_qp_connect(struct ulp_ctx *c, struct ib_qp *qp,
			  struct ib_qp *peer)
{
	struct ib_qp_attr a = {
		.qp_state = IB_QPS_RTR,
		.path_mtu = IB_MTU_1024,
		.dest_qp_num = peer->qp_num,
		.rq_psn = 100,
		.max_dest_rd_atomic = 1,
		.min_rnr_timer = 12,
	};
	union ib_gid dgid = c->sgid->gid;
	int err;

	a.ah_attr.type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_port_num(&a.ah_attr, ULP_PORT);
	rdma_ah_set_grh(&a.ah_attr, &dgid, 0, c->sgid->index, 64, 0);
	/* Kernel consumers hand modify_qp a resolved destination MAC. */
	memcpy(a.ah_attr.roce.dmac, c->dmac, ETH_ALEN);
	err = ib_modify_qp(qp, &a, IB_QP_STATE | IB_QP_AV | IB_QP_PATH_MTU |
			   IB_QP_DEST_QPN | IB_QP_RQ_PSN |
			   IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER);
	if (err)
		return err;
	memset(&a, 0, sizeof(a));
	a.qp_state = IB_QPS_RTS;
	a.sq_psn = 100;
	a.timeout = 17;		/* 0.5 s: no spurious retries under TCG */
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	return ib_modify_qp(qp, &a, IB_QP_STATE | IB_QP_SQ_PSN |
			    IB_QP_TIMEOUT | IB_QP_RETRY_CNT |
			    IB_QP_RNR_RETRY | IB_QP_MAX_QP_RD_ATOMIC);
}

/* Wait for one completion on @cq (no handler: polled). */
static int ulp_wait_wc(struct ib_cq *cq, struct ib_wc *wc)
{
	unsigned long end = jiffies + ULP_WAIT;
	int n;

	do {
		n = ib_poll_cq(cq, 1, wc);
		if (n)
			return n < 0 ? n : 0;
		usleep_range(200, 1000);
	} while (time_before(jiffies, end));
	return -ETIMEDOUT;
}

/* A 2 MiB buffer, DMA-mapped, behind a fast-registration MR. */
struct ulp_buf {
	void		*va;
	u64		dma;
	struct ib_mr	*mr;
};

static int ulp_buf_alloc(struct ulp_ctx *c, struct ulp_buf *b, int fill)
{
	struct scatterlist sg;
	int n;

	b->va = (void *)__get_free_pages(GFP_KERNEL | __GFP_NOWARN,
					 ULP_MR_ORDER);
	if (!b->va)
		return -ENOMEM;
	memset(b->va, fill, ULP_MR_LEN);
	b->dma = ib_dma_map_single(c->dev, b->va, ULP_MR_LEN,
				   DMA_BIDIRECTIONAL);
	if (ib_dma_mapping_error(c->dev, b->dma))
		goto err_free;
	b->mr = ib_alloc_mr(c->pd, IB_MR_TYPE_MEM_REG, 1 << ULP_MR_ORDER);
	if (IS_ERR(b->mr))
		goto err_unmap;
	sg_init_table(&sg, 1);
	sg_dma_address(&sg) = b->dma;
	sg_dma_len(&sg) = ULP_MR_LEN;
	n = ib_map_mr_sg(b->mr, &sg, 1, NULL, PAGE_SIZE);
	if (n == 1)
		return 0;
	ib_dereg_mr(b->mr);
err_unmap:
	ib_dma_unmap_single(c->dev, b->dma, ULP_MR_LEN, DMA_BIDIRECTIONAL);
err_free:
	free_pages((unsigned long)b->va, ULP_MR_ORDER);
	b->va = NULL;
	return -ENOMEM;
}

static void ulp_buf_free(struct ulp_ctx *c, struct ulp_buf *b)
{
	if (!b->va)
		return;
	ib_dereg_mr(b->mr);
	ib_dma_unmap_single(c->dev, b->dma, ULP_MR_LEN, DMA_BIDIRECTIONAL);
	free_pages((unsigned long)b->va, ULP_MR_ORDER);
	b->va = NULL;
}

/* REG_MR on @qp: @b's MR valid under a new key with @access. */
static int ulp_reg(struct ib_qp *qp, struct ib_cq *cq, struct ulp_buf *b,
		   int access)
{
	struct ib_reg_wr reg = {
		.wr = { .opcode = IB_WR_REG_MR, .send_flags = IB_SEND_SIGNALED,
			.wr_id = 1 },
		.mr = b->mr,
		.access = access,
	};
	struct ib_wc wc;
	int err;

	ib_update_fast_reg_key(b->mr, (u8)(b->mr->rkey + 1));
	reg.key = b->mr->rkey;
	err = ib_post_send(qp, &reg.wr, NULL);
	if (!err)
		err = ulp_wait_wc(cq, &wc);
	if (!err && (wc.status != IB_WC_SUCCESS || wc.opcode != IB_WC_REG_MR))
		err = -EIO;
	return err;
}

/* Bytes of @len at @p equal to @v. */
static size_t ulp_count(const u8 *p, size_t len, u8 v)
{
	size_t i, n = 0;

	for (i = 0; i < len; i++)
		n += p[i] == v;
	return n;
}

struct ulp_pair {
	struct ib_cq	*cq_a, *cq_b;
	struct ib_qp	*a, *b;
};

static void ulp_pair_destroy(struct ulp_pair *p)
{
	if (!IS_ERR_OR_NULL(p->a))
		ib_destroy_qp(p->a);
	if (!IS_ERR_OR_NULL(p->b))
		ib_destroy_qp(p->b);
	if (!IS_ERR_OR_NULL(p->cq_a))
		ib_destroy_cq(p->cq_a);
	if (!IS_ERR_OR_NULL(p->cq_b))
		ib_destroy_cq(p->cq_b);
}

static int ulp_pair_create(struct ulp_ctx *c, struct ulp_pair *p)
{
	struct ib_cq_init_attr ca = { .cqe = 32 };
	int err;

	memset(p, 0, sizeof(*p));
	p->cq_a = ib_create_cq(c->dev, NULL, NULL, NULL, &ca);
	if (IS_ERR(p->cq_a))
		return PTR_ERR(p->cq_a);
	p->cq_b = ib_create_cq(c->dev, NULL, NULL, NULL, &ca);
	if (IS_ERR(p->cq_b))
		return PTR_ERR(p->cq_b);
	p->a = ulp_create_qp(c, p->cq_a);
	if (IS_ERR(p->a))
		return PTR_ERR(p->a);
	p->b = ulp_create_qp(c, p->cq_b);
	if (IS_ERR(p->b))
		return PTR_ERR(p->b);
	err = ulp_qp_init(p->a) ?: ulp_qp_init(p->b);
	if (!err)
		err = ulp_qp_connect(c, p->a, p->b) ?:
		      ulp_qp_connect(c, p->b, p->a);
	return err;
}

/*
 * One try of item 6: A READs all of B's MR; once its first bytes have
 * landed, B invalidates the MR (LOCAL_INV) and, when that completes,
 * writes a secret into the memory, as a ULP reusing a buffer it took back
 * would.  Returns 1 if the READ was cut by the invalidation, 0 if it had
 * finished first, or a negative error.
 */
static int ulp_inv_during_read_once(struct ulp_ctx *c)
{
	struct kunit *test = c->test;
	struct {
		struct ulp_buf		src, dst;
		struct ulp_pair		p;
		struct ib_sge		sge;
		struct ib_rdma_wr	rd;
		struct ib_send_wr	inv;
		struct ib_wc		wc_rd, wc_inv;
	} *t;
	unsigned long end;
	size_t secret, old;
	int err;

	t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	err = ulp_pair_create(c, &t->p);
	if (err) {
		KUNIT_FAIL(test, "QP pair setup: %d", err);
		goto out;
	}
	err = ulp_buf_alloc(c, &t->src, ULP_OLD) ?:
	      ulp_buf_alloc(c, &t->dst, 0);
	if (err) {
		KUNIT_FAIL(test, "2 MiB buffers and MRs: %d", err);
		goto out;
	}
	err = ulp_reg(t->p.b, t->p.cq_b, &t->src, IB_ACCESS_REMOTE_READ) ?:
	      ulp_reg(t->p.a, t->p.cq_a, &t->dst, IB_ACCESS_LOCAL_WRITE);
	if (err) {
		KUNIT_FAIL(test, "REG_MR: %d", err);
		goto out;
	}

	t->sge.addr = t->dst.mr->iova;
	t->sge.length = ULP_MR_LEN;
	t->sge.lkey = t->dst.mr->lkey;
	t->rd.wr.opcode = IB_WR_RDMA_READ;
	t->rd.wr.sg_list = &t->sge;
	t->rd.wr.num_sge = 1;
	t->rd.wr.send_flags = IB_SEND_SIGNALED;
	t->rd.wr.wr_id = 2;
	t->rd.remote_addr = t->src.mr->iova;
	t->rd.rkey = t->src.mr->rkey;
	t->inv.opcode = IB_WR_LOCAL_INV;
	t->inv.send_flags = IB_SEND_SIGNALED;
	t->inv.wr_id = 3;
	t->inv.ex.invalidate_rkey = t->src.mr->rkey;
	err = ib_post_send(t->p.a, &t->rd.wr, NULL);
	if (err) {
		KUNIT_FAIL(test, "post READ: %d", err);
		goto out;
	}
	/* The READ is being answered once its first page has data. */
	end = jiffies + ULP_WAIT;
	do {
		ib_dma_sync_single_for_cpu(c->dev, t->dst.dma, PAGE_SIZE,
					   DMA_BIDIRECTIONAL);
		if (READ_ONCE(*(u8 *)t->dst.va) == ULP_OLD)
			break;
		usleep_range(50, 200);
	} while (time_before(jiffies, end));

	err = ib_post_send(t->p.b, &t->inv, NULL) ?:
	      ulp_wait_wc(t->p.cq_b, &t->wc_inv);
	if (err || t->wc_inv.status != IB_WC_SUCCESS) {
		KUNIT_FAIL(test, "LOCAL_INV: err %d status %s", err,
			   err ? "-" : ib_wc_status_msg(t->wc_inv.status));
		err = err ?: -EIO;
		goto out;
	}
	/* The buffer is ours again: reuse it. */
	ib_dma_sync_single_for_cpu(c->dev, t->src.dma, ULP_MR_LEN,
				   DMA_BIDIRECTIONAL);
	memset(t->src.va, ULP_SECRET, ULP_MR_LEN);
	ib_dma_sync_single_for_device(c->dev, t->src.dma, ULP_MR_LEN,
				      DMA_BIDIRECTIONAL);

	err = ulp_wait_wc(t->p.cq_a, &t->wc_rd);
	if (err) {
		KUNIT_FAIL(test, "the READ never completed: %d", err);
		goto out;
	}
	ib_dma_sync_single_for_cpu(c->dev, t->dst.dma, ULP_MR_LEN,
				   DMA_BIDIRECTIONAL);
	secret = ulp_count(t->dst.va, ULP_MR_LEN, ULP_SECRET);
	old = ulp_count(t->dst.va, ULP_MR_LEN, ULP_OLD);
	kunit_info(test, "READ %s: %zu bytes from before the LOCAL_INV, %zu after\n",
		   ib_wc_status_msg(t->wc_rd.status), old, secret);
	KUNIT_EXPECT_EQ_MSG(test, secret, 0UL,
			    "bytes written after the LOCAL_INV completed reached the reader");
	if (t->wc_rd.status == IB_WC_SUCCESS) {
		KUNIT_EXPECT_EQ(test, old, ULP_MR_LEN);
		err = 0;
	} else {
		KUNIT_EXPECT_EQ_MSG(test, t->wc_rd.status, IB_WC_REM_ACCESS_ERR,
				    "a READ of an invalidated MR fails with a remote access error");
		err = 1;
	}
out:
	ulp_pair_destroy(&t->p);
	ulp_buf_free(c, &t->dst);
	ulp_buf_free(c, &t->src);
	return err;
}

static void vrnic_ulp_local_inv_during_read(struct kunit *test)
{
	struct ulp_ctx *c = test->priv;
	int i, cut = 0, ret;

	/* A READ that finished before the LOCAL_INV tested nothing: retry. */
	for (i = 0; i < 3 && !cut; i++) {
		ret = ulp_inv_during_read_once(c);
		if (ret < 0 || test->status == KUNIT_FAILURE)
			return;
		cut += ret;
	}
	KUNIT_EXPECT_GT_MSG(test, cut, 0,
			    "in %d tries the LOCAL_INV never landed while the READ was answered",
			    i);
}

/*
 * Item 9: a comp_handler that polls its CQ and posts a receive, called
 * for the flush of a QP moved to ERR.  A driver that calls it with the
 * receive queue's lock held deadlocks on the post (lockdep names it).
 */
struct ulp_flush {
	spinlock_t		lock;	/* the handler's and the test's view of the rest */
	struct ib_qp		*qp;
	struct ib_wc		wc[16];
	unsigned int		nwc;
	unsigned int		calls;
	int			post_ret;
	bool			posted;
};

static void ulp_flush_handler(struct ib_cq *cq, void *ctx)
{
	struct ulp_flush *f = ctx;
	struct ib_recv_wr wr = { .wr_id = 100 };
	unsigned long flags;
	struct ib_wc wc;
	bool post;

	spin_lock_irqsave(&f->lock, flags);
	f->calls++;
	post = !f->posted;
	f->posted = true;
	spin_unlock_irqrestore(&f->lock, flags);
	if (post) {
		int ret = ib_post_recv(f->qp, &wr, NULL);

		WRITE_ONCE(f->post_ret, ret);
	}
	while (ib_poll_cq(cq, 1, &wc) == 1) {
		spin_lock_irqsave(&f->lock, flags);
		if (f->nwc < ARRAY_SIZE(f->wc))
			f->wc[f->nwc++] = wc;
		spin_unlock_irqrestore(&f->lock, flags);
	}
	ib_req_notify_cq(cq, IB_CQ_NEXT_COMP);
}

static void vrnic_ulp_handler_posts_during_flush(struct kunit *test)
{
	struct ulp_ctx *c = test->priv;
	struct ib_cq_init_attr ca = { .cqe = 32 };
	struct ib_qp_attr err_attr = { .qp_state = IB_QPS_ERR };
	struct ulp_flush *f;
	struct ib_cq *cq;
	struct ib_qp *qp;
	unsigned long end, flags;
	unsigned int i, n, calls, seen = 0;
	int err;

	f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f);
	spin_lock_init(&f->lock);
	f->post_ret = -EINPROGRESS;
	cq = ib_create_cq(c->dev, ulp_flush_handler, NULL, f, &ca);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(cq), "create_cq: %ld", PTR_ERR(cq));
	qp = ulp_create_qp(c, cq);
	if (IS_ERR(qp)) {
		KUNIT_FAIL(test, "create_qp: %ld", PTR_ERR(qp));
		goto out_cq;
	}
	f->qp = qp;
	err = ulp_qp_init(qp);
	KUNIT_EXPECT_EQ(test, err, 0);
	for (i = 0; !err && i < 4; i++) {
		struct ib_recv_wr wr = { .wr_id = 1 + i };

		err = ib_post_recv(qp, &wr, NULL);
	}
	KUNIT_EXPECT_EQ(test, err, 0);
	if (err)
		goto out_qp;
	ib_req_notify_cq(cq, IB_CQ_NEXT_COMP);
	err = ib_modify_qp(qp, &err_attr, IB_QP_STATE);
	KUNIT_EXPECT_EQ(test, err, 0);

	/* Four flushed, then the handler's own receive, flushed too. */
	end = jiffies + 10 * HZ;
	do {
		spin_lock_irqsave(&f->lock, flags);
		n = f->nwc;
		spin_unlock_irqrestore(&f->lock, flags);
		if (n >= 5)
			break;
		msleep(20);
	} while (time_before(jiffies, end));
	calls = READ_ONCE(f->calls);
	/* Whatever came without a notification. */
	ulp_flush_handler(cq, f);

	KUNIT_EXPECT_EQ(test, READ_ONCE(f->post_ret), 0);
	KUNIT_EXPECT_EQ(test, f->nwc, 5);
	for (i = 0; i < f->nwc; i++) {
		KUNIT_EXPECT_EQ(test, f->wc[i].status, IB_WC_WR_FLUSH_ERR);
		seen |= BIT(f->wc[i].wr_id == 100 ? 0 : f->wc[i].wr_id);
	}
	KUNIT_EXPECT_EQ_MSG(test, seen, 0x1fU,
			    "wr 1-4 and the handler's wr 100 are each flushed once");
	KUNIT_EXPECT_GT_MSG(test, calls, 0U, "the flush never called the handler");
out_qp:
	ib_destroy_qp(qp);
out_cq:
	ib_destroy_cq(cq);
}

/*
 * The work-request rules are one table (engine/vrnic_wr.c), read at post
 * time too: a kernel post of an opcode its QP type does not carry is
 * refused at once, that WR is the bad one, and nothing of it is queued
 * or completed later.  A UD QP carries SENDs only (IBA 10.2.3).
 */
static void vrnic_ulp_rdma_on_ud_refused_at_post(struct kunit *test)
{
	static const enum ib_wr_opcode ops[] = {
		IB_WR_RDMA_WRITE, IB_WR_RDMA_WRITE_WITH_IMM, IB_WR_RDMA_READ,
		IB_WR_ATOMIC_CMP_AND_SWP,
	};
	struct ulp_ctx *c = test->priv;
	struct ib_cq_init_attr ca = { .cqe = 8 };
	struct ib_qp_init_attr init = {
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.sq_sig_type = IB_SIGNAL_ALL_WR,
		.qp_type = IB_QPT_UD,
	};
	struct ib_qp_attr a = {
		.qp_state = IB_QPS_INIT,
		.port_num = ULP_PORT,
		.qkey = 0x11111111,
	};
	u64 word = 0;
	struct ib_sge sge = {
		.addr = (uintptr_t)&word, .length = sizeof(word),
		.lkey = c->pd->local_dma_lkey,
	};
	struct ib_atomic_wr wr = {};
	const struct ib_send_wr *bad;
	struct ib_wc wc;
	struct ib_cq *cq;
	struct ib_qp *qp;
	unsigned int i;
	int err;

	cq = ib_create_cq(c->dev, NULL, NULL, NULL, &ca);
	if (IS_ERR(cq)) {
		KUNIT_FAIL(test, "create CQ: %ld", PTR_ERR(cq));
		return;
	}
	init.send_cq = cq;
	init.recv_cq = cq;
	qp = ib_create_qp(c->pd, &init);
	if (IS_ERR(qp)) {
		KUNIT_FAIL(test, "create UD QP: %ld", PTR_ERR(qp));
		goto out_cq;
	}
	err = ib_modify_qp(qp, &a, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_QKEY);
	a.qp_state = IB_QPS_RTR;
	err = err ?: ib_modify_qp(qp, &a, IB_QP_STATE);
	a.qp_state = IB_QPS_RTS;
	a.sq_psn = 1;
	err = err ?: ib_modify_qp(qp, &a, IB_QP_STATE | IB_QP_SQ_PSN);
	if (err) {
		KUNIT_FAIL(test, "UD QP to RTS: %d", err);
		goto out_qp;
	}
	for (i = 0; i < ARRAY_SIZE(ops); i++) {
		wr.wr.opcode = ops[i];
		wr.wr.wr_id = 10 + i;
		wr.wr.sg_list = &sge;
		wr.wr.num_sge = 1;
		wr.wr.send_flags = IB_SEND_SIGNALED;
		wr.remote_addr = 0x1000;
		wr.rkey = 0x100;
		bad = NULL;
		err = ib_post_send(qp, &wr.wr, &bad);
		KUNIT_EXPECT_EQ_MSG(test, err, -EINVAL, "opcode %d on UD",
				    ops[i]);
		KUNIT_EXPECT_PTR_EQ(test, bad, &wr.wr);
	}
	/* Refused, not queued: nothing completes (in error or otherwise). */
	msleep(200);
	KUNIT_EXPECT_EQ(test, ib_poll_cq(cq, 1, &wc), 0);
out_qp:
	ib_destroy_qp(qp);
out_cq:
	ib_destroy_cq(cq);
}

/* RDMA ATOMIC WRITE's uverbs values: the 6.1 kernel's enums predate it. */
#define ULP_WR_ATOMIC_WRITE	15
#define ULP_WC_ATOMIC_WRITE	9

/*
 * ATOMIC WRITE (IBTA 1.5, 9.4.7), which vrnic offers, from a kernel
 * consumer: an RDMA WR whose 8 bytes are inline data, as librxe puts
 * them.  They land at the remote address whole, nothing around them
 * moves, and the completion says ATOMIC WRITE.
 */
static void vrnic_ulp_atomic_write(struct kunit *test)
{
	struct ulp_ctx *c = test->priv;
	u64 word = 0x0123456789abcdefULL;
	struct ib_sge sge = {
		.addr = (uintptr_t)&word, .length = sizeof(word),
		.lkey = c->pd->local_dma_lkey,
	};
	struct ib_qp_attr a = {
		.qp_access_flags = IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_WRITE,
	};
	struct ib_rdma_wr wr = {
		.wr = {
			.opcode = (enum ib_wr_opcode)ULP_WR_ATOMIC_WRITE,
			.sg_list = &sge, .num_sge = 1, .wr_id = 9,
			.send_flags = IB_SEND_SIGNALED | IB_SEND_INLINE,
		},
	};
	const size_t at = 64;
	struct ulp_buf dst = {};
	struct ulp_pair p;
	struct ib_wc wc;
	int err;

	err = ulp_pair_create(c, &p) ?:
	      ib_modify_qp(p.b, &a, IB_QP_ACCESS_FLAGS);
	if (err) {
		KUNIT_FAIL(test, "QP pair setup: %d", err);
		goto out;
	}
	err = ulp_buf_alloc(c, &dst, ULP_OLD) ?:
	      ulp_reg(p.b, p.cq_b, &dst,
		      IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE);
	if (err) {
		KUNIT_FAIL(test, "target MR: %d", err);
		goto out;
	}
	wr.remote_addr = dst.mr->iova + at;
	wr.rkey = dst.mr->rkey;
	err = ib_post_send(p.a, &wr.wr, NULL);
	if (err) {
		KUNIT_FAIL(test, "a kernel ATOMIC WRITE is refused: %d", err);
		goto out;
	}
	err = ulp_wait_wc(p.cq_a, &wc);
	if (err) {
		KUNIT_FAIL(test, "the ATOMIC WRITE never completed: %d", err);
		goto out;
	}
	KUNIT_EXPECT_EQ_MSG(test, wc.status, IB_WC_SUCCESS, "status %s",
			    ib_wc_status_msg(wc.status));
	KUNIT_EXPECT_EQ(test, (int)wc.opcode, ULP_WC_ATOMIC_WRITE);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 9ULL);
	ib_dma_sync_single_for_cpu(c->dev, dst.dma, ULP_MR_LEN,
				   DMA_BIDIRECTIONAL);
	KUNIT_EXPECT_EQ(test, memcmp(dst.va + at, &word, sizeof(word)), 0);
	KUNIT_EXPECT_EQ(test, ulp_count(dst.va, at, ULP_OLD), at);
	KUNIT_EXPECT_EQ(test, ulp_count(dst.va + at + sizeof(word),
					ULP_MR_LEN - at - sizeof(word), ULP_OLD),
			ULP_MR_LEN - at - sizeof(word));
out:
	ulp_pair_destroy(&p);
	ulp_buf_free(c, &dst);
}

static struct kunit_case vrnic_ulp_cases[] = {
	KUNIT_CASE(vrnic_ulp_handler_posts_during_flush),
	KUNIT_CASE(vrnic_ulp_local_inv_during_read),
	KUNIT_CASE(vrnic_ulp_rdma_on_ud_refused_at_post),
	KUNIT_CASE(vrnic_ulp_atomic_write),
	{}
};

static struct kunit_suite vrnic_ulp_suite = {
	.name = "vrnic_ulp",
	.init = ulp_init,
	.exit = ulp_exit,
	.test_cases = vrnic_ulp_cases,
};

kunit_test_suite(vrnic_ulp_suite);

MODULE_AUTHOR("The vrnic authors");
MODULE_DESCRIPTION("vrnic tests through ib_core's kernel verbs (a ULP's view)");
MODULE_LICENSE("GPL");
