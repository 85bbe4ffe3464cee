// SPDX-License-Identifier: GPL-2.0-only
/*
 * vrnic-bench: registering an MR per I/O against reusing one (see
 * mrreg.hpp).
 *
 * Copyright (c) 2026 The vrnic authors
 */
#include "mrreg.hpp"

#include "vrnic/error.hpp"

#include <infiniband/verbs.h>

#include <chrono>
#include <cstring>
#include <memory>
#include <vector>

#include <fmt/format.h>

namespace vrnic::bench {

namespace {

struct DevListFree {
	void operator()(ibv_device **l) const { ibv_free_device_list(l); }
};
struct CtxClose {
	void operator()(ibv_context *c) const { ibv_close_device(c); }
};
struct PdFree {
	void operator()(ibv_pd *p) const { ibv_dealloc_pd(p); }
};
struct CqFree {
	void operator()(ibv_cq *c) const { ibv_destroy_cq(c); }
};
struct QpFree {
	void operator()(ibv_qp *q) const { ibv_destroy_qp(q); }
};
struct MrFree {
	void operator()(ibv_mr *m) const { ibv_dereg_mr(m); }
};
using Ctx = std::unique_ptr<ibv_context, CtxClose>;
using Pd = std::unique_ptr<ibv_pd, PdFree>;
using Cq = std::unique_ptr<ibv_cq, CqFree>;
using Qp = std::unique_ptr<ibv_qp, QpFree>;
using Mr = std::unique_ptr<ibv_mr, MrFree>;

[[noreturn]] void fail(const std::string &what, int err)
{
	throw Error(fmt::format("{}: {}", what, std::strerror(err ? err : EIO)));
}

Ctx open_device(const std::string &name)
{
	std::unique_ptr<ibv_device *, DevListFree> list(ibv_get_device_list(nullptr));
	if (!list)
		fail("ibv_get_device_list", errno);
	for (ibv_device **d = list.get(); *d; d++)
		if (name == ibv_get_device_name(*d)) {
			Ctx c(ibv_open_device(*d));
			if (!c)
				fail("ibv_open_device " + name, errno);
			return c;
		}
	throw Error("no RDMA device " + name, "rdma link show lists them");
}

/* One side: device, PD, CQ, an RC QP in INIT. */
struct Side {
	Ctx ctx;
	Pd pd;
	Cq cq;
	Qp qp;
	ibv_gid gid{};
	int gid_index = 0;

	Side(const std::string &dev, int gidx) : ctx(open_device(dev)), gid_index(gidx)
	{
		pd.reset(ibv_alloc_pd(ctx.get()));
		if (!pd)
			fail("ibv_alloc_pd", errno);
		cq.reset(ibv_create_cq(ctx.get(), 16, nullptr, nullptr, 0));
		if (!cq)
			fail("ibv_create_cq", errno);
		ibv_qp_init_attr ia{};
		ia.send_cq = cq.get();
		ia.recv_cq = cq.get();
		ia.qp_type = IBV_QPT_RC;
		ia.cap.max_send_wr = 4;
		ia.cap.max_recv_wr = 4;
		ia.cap.max_send_sge = 1;
		ia.cap.max_recv_sge = 1;
		qp.reset(ibv_create_qp(pd.get(), &ia));
		if (!qp)
			fail("ibv_create_qp", errno);
		if (int e = ibv_query_gid(ctx.get(), 1, gid_index, &gid))
			fail("ibv_query_gid", e);
		ibv_qp_attr a{};
		a.qp_state = IBV_QPS_INIT;
		a.port_num = 1;
		a.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
		if (int e = ibv_modify_qp(qp.get(), &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
							       IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
			fail("modify_qp INIT", e);
	}

	void connect(const Side &peer)
	{
		ibv_qp_attr a{};
		a.qp_state = IBV_QPS_RTR;
		a.path_mtu = IBV_MTU_1024;
		a.dest_qp_num = peer.qp->qp_num;
		a.rq_psn = 0;
		a.max_dest_rd_atomic = 1;
		a.min_rnr_timer = 12;
		a.ah_attr.is_global = 1;
		a.ah_attr.grh.dgid = peer.gid;
		a.ah_attr.grh.sgid_index = gid_index;
		a.ah_attr.grh.hop_limit = 64;
		a.ah_attr.port_num = 1;
		if (int e = ibv_modify_qp(qp.get(), &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
							       IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
							       IBV_QP_MAX_DEST_RD_ATOMIC |
							       IBV_QP_MIN_RNR_TIMER))
			fail("modify_qp RTR", e);
		a = {};
		a.qp_state = IBV_QPS_RTS;
		a.timeout = 14;
		a.retry_cnt = 7;
		a.rnr_retry = 7;
		a.sq_psn = 0;
		a.max_rd_atomic = 1;
		if (int e = ibv_modify_qp(qp.get(), &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
							       IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
							       IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC))
			fail("modify_qp RTS", e);
	}
};

Mr reg(const Side &s, std::vector<char> &buf, int access)
{
	Mr m(ibv_reg_mr(s.pd.get(), buf.data(), buf.size(), access));
	if (!m)
		fail("ibv_reg_mr", errno);
	return m;
}

void wait_one(const Side &s)
{
	using namespace std::chrono;
	const auto deadline = steady_clock::now() + seconds(30);
	ibv_wc wc{};

	for (;;) {
		int n = ibv_poll_cq(s.cq.get(), 1, &wc);
		if (n < 0)
			fail("ibv_poll_cq", errno);
		if (n == 1)
			break;
		if (steady_clock::now() > deadline)
			throw Error("no completion within 30 s", "is the peer device reachable?");
	}
	if (wc.status != IBV_WC_SUCCESS)
		throw Error(fmt::format("WRITE completed with {}", ibv_wc_status_str(wc.status)));
}

} // namespace

double run_mr_reg(const MrRegRun &r)
{
	Side a(r.requester, r.requester_gid), b(r.responder, r.responder_gid);
	std::vector<char> src(r.size, 'x'), dst(r.size);

	a.connect(b);
	b.connect(a);
	Mr target = reg(b, dst, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	Mr reused;
	if (!r.per_io)
		reused = reg(a, src, IBV_ACCESS_LOCAL_WRITE);

	const auto t0 = std::chrono::steady_clock::now();
	for (uint32_t i = 0; i < r.ios; i++) {
		Mr per_io;
		if (r.per_io)
			per_io = reg(a, src, IBV_ACCESS_LOCAL_WRITE);
		ibv_mr *mr = r.per_io ? per_io.get() : reused.get();
		ibv_sge sge{reinterpret_cast<uintptr_t>(src.data()), r.size, mr->lkey};
		ibv_send_wr wr{}, *bad = nullptr;
		wr.wr_id = i;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.opcode = IBV_WR_RDMA_WRITE;
		wr.send_flags = IBV_SEND_SIGNALED;
		wr.wr.rdma.remote_addr = reinterpret_cast<uintptr_t>(dst.data());
		wr.wr.rdma.rkey = target->rkey;
		if (int e = ibv_post_send(a.qp.get(), &wr, &bad))
			fail("ibv_post_send", e);
		wait_one(a);
		/* per_io is deregistered here, as a per-I/O stack would. */
	}
	const std::chrono::duration<double> t = std::chrono::steady_clock::now() - t0;
	return t.count() > 0 ? r.ios / t.count() : 0;
}

} // namespace vrnic::bench
