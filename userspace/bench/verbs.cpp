// SPDX-License-Identifier: GPL-2.0-only
/*
 * vrnic-bench: verbs endpoints for the built-in workloads (see verbs.hpp).
 *
 * Copyright (c) 2026 The vrnic authors
 */
#include "verbs.hpp"

#include "vrnic/error.hpp"

#include <cerrno>
#include <algorithm>
#include <chrono>
#include <cstring>

#include <fmt/format.h>

namespace vrnic::bench {

namespace {

struct DevListFree {
	void operator()(ibv_device **l) const { ibv_free_device_list(l); }
};

Ctx open_device(const std::string &name)
{
	std::unique_ptr<ibv_device *, DevListFree> list(ibv_get_device_list(nullptr));
	if (!list)
		verbs_fail("ibv_get_device_list", errno);
	for (ibv_device **d = list.get(); *d; d++)
		if (name == ibv_get_device_name(*d)) {
			Ctx c(ibv_open_device(*d));
			if (!c)
				verbs_fail("ibv_open_device " + name, errno);
			return c;
		}
	throw Error("no RDMA device " + name, "rdma link show lists them");
}

} // namespace

void verbs_fail(const std::string &what, int err)
{
	throw Error(fmt::format("{}: {}", what, std::strerror(err ? err : EIO)));
}

Endpoint::Endpoint(const std::string &dev, int gid_index, unsigned qps, unsigned depth)
	: ctx_(open_device(dev)), gid_index_(gid_index)
{
	pd_.reset(ibv_alloc_pd(ctx_.get()));
	if (!pd_)
		verbs_fail("ibv_alloc_pd", errno);
	cq_.reset(ibv_create_cq(ctx_.get(), static_cast<int>(depth * 2 + 16), nullptr,
				nullptr, 0));
	if (!cq_)
		verbs_fail("ibv_create_cq", errno);
	if (int e = ibv_query_gid(ctx_.get(), 1, gid_index_, &gid_))
		verbs_fail("ibv_query_gid", e);
	for (unsigned i = 0; i < qps; i++) {
		ibv_qp_init_attr ia{};
		ia.send_cq = cq_.get();
		ia.recv_cq = cq_.get();
		ia.qp_type = IBV_QPT_RC;
		ia.cap.max_send_wr = depth;
		ia.cap.max_recv_wr = 1;
		ia.cap.max_send_sge = 1;
		ia.cap.max_recv_sge = 1;
		Qp q(ibv_create_qp(pd_.get(), &ia));
		if (!q) {
			refused_ = fmt::format("ibv_create_qp (QP {} of {}): {}", i + 1, qps,
					       std::strerror(errno));
			break;
		}
		ibv_qp_attr a{};
		a.qp_state = IBV_QPS_INIT;
		a.port_num = 1;
		a.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
		if (int e = ibv_modify_qp(q.get(), &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
							       IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
			verbs_fail("modify_qp INIT", e);
		qps_.push_back(std::move(q));
	}
}

void Endpoint::connect(const Endpoint &peer)
{
	if (peer.qps_.size() != qps_.size())
		throw Error(fmt::format("cannot connect {} QPs to {}", qps_.size(),
					peer.qps_.size()));
	for (size_t i = 0; i < qps_.size(); i++) {
		ibv_qp_attr a{};
		a.qp_state = IBV_QPS_RTR;
		a.path_mtu = IBV_MTU_1024;
		a.dest_qp_num = peer.qps_[i]->qp_num;
		a.rq_psn = 0;
		a.max_dest_rd_atomic = 1;
		a.min_rnr_timer = 12;
		a.ah_attr.is_global = 1;
		a.ah_attr.grh.dgid = peer.gid_;
		a.ah_attr.grh.sgid_index = static_cast<uint8_t>(gid_index_);
		a.ah_attr.grh.hop_limit = 64;
		a.ah_attr.port_num = 1;
		if (int e = ibv_modify_qp(qps_[i].get(), &a,
					  IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
						  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
						  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
			verbs_fail("modify_qp RTR", e);
		a = {};
		a.qp_state = IBV_QPS_RTS;
		a.timeout = 14;
		a.retry_cnt = 7;
		a.rnr_retry = 7;
		a.sq_psn = 0;
		a.max_rd_atomic = 1;
		if (int e = ibv_modify_qp(qps_[i].get(), &a,
					  IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
						  IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
						  IBV_QP_MAX_QP_RD_ATOMIC))
			verbs_fail("modify_qp RTS", e);
	}
}

Mr Endpoint::reg(void *addr, size_t len, int access) const
{
	Mr m(ibv_reg_mr(pd_.get(), addr, len, access));
	if (!m)
		verbs_fail("ibv_reg_mr", errno);
	return m;
}

void Endpoint::wait(unsigned n) const
{
	using namespace std::chrono;
	const auto deadline = steady_clock::now() + seconds(30);
	ibv_wc wc[16];

	while (n) {
		int got = ibv_poll_cq(cq_.get(), static_cast<int>(std::min(n, 16u)), wc);
		if (got < 0)
			verbs_fail("ibv_poll_cq", errno);
		for (int i = 0; i < got; i++)
			if (wc[i].status != IBV_WC_SUCCESS)
				throw Error(fmt::format("WR {} completed with {}", wc[i].wr_id,
							ibv_wc_status_str(wc[i].status)));
		n -= static_cast<unsigned>(got);
		if (n && steady_clock::now() > deadline)
			throw Error("no completion within 30 s", "is the peer device reachable?");
	}
}

} // namespace vrnic::bench
