// SPDX-License-Identifier: GPL-2.0-only
/*
 * vrnic-bench: verbs endpoints for the built-in workloads (see endpoint.hpp).
 *
 * Copyright (c) 2026 The vrnic authors
 */
#include "endpoint.hpp"

#include "vrnic/error.hpp"

#include <cerrno>
#include <algorithm>
#include <chrono>
#include <cstring>

#include <fmt/format.h>

namespace vrnic::bench {

void verbs_fail(const std::string &what, int err)
{
	throw Error(fmt::format("{}: {}", what, std::strerror(err ? err : EIO)));
}

Endpoint::Endpoint(const std::string &dev, int gid_index, unsigned qps, unsigned depth)
	: ctx_(std::make_shared<verbs::Context>(dev)),
	  pd_(std::make_shared<verbs::Pd>(ctx_)),
	  cq_(std::make_shared<verbs::Cq>(ctx_, static_cast<int>(depth * 2 + 16))),
	  gid_(ctx_->query_gid(1, gid_index)), gid_index_(gid_index)
{
	const verbs::QpCaps caps{.max_send_wr = depth, .max_recv_wr = 1,
				 .max_send_sge = 1, .max_recv_sge = 1};

	for (unsigned i = 0; i < qps; i++) {
		std::unique_ptr<verbs::Qp> q;
		try {
			q = std::make_unique<verbs::Qp>(pd_, IBV_QPT_RC, cq_, cq_, caps);
		} catch (const verbs::VerbsError &e) {
			refused_ = fmt::format("ibv_create_qp (QP {} of {}): {}", i + 1, qps,
					       std::strerror(e.err()));
			break;
		}
		ibv_qp_attr a{};
		a.qp_state = IBV_QPS_INIT;
		a.port_num = 1;
		a.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
		q->modify(a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
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
		a.dest_qp_num = peer.qps_[i]->num();
		a.rq_psn = 0;
		a.max_dest_rd_atomic = 1;
		a.min_rnr_timer = 12;
		a.ah_attr.is_global = 1;
		a.ah_attr.grh.dgid = peer.gid_;
		a.ah_attr.grh.sgid_index = static_cast<uint8_t>(gid_index_);
		a.ah_attr.grh.hop_limit = 64;
		a.ah_attr.port_num = 1;
		qps_[i]->modify(a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
					   IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
					   IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
		a = {};
		a.qp_state = IBV_QPS_RTS;
		a.timeout = 14;
		a.retry_cnt = 7;
		a.rnr_retry = 7;
		a.sq_psn = 0;
		a.max_rd_atomic = 1;
		qps_[i]->modify(a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
					   IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
					   IBV_QP_MAX_QP_RD_ATOMIC);
	}
}

Mr Endpoint::reg(void *addr, size_t len, int access) const
{
	return std::make_unique<verbs::Mr>(pd_, addr, len, access);
}

void Endpoint::wait(unsigned n) const
{
	using namespace std::chrono;
	const auto deadline = steady_clock::now() + seconds(30);
	ibv_wc wc[16];

	while (n) {
		int got = ibv_poll_cq(cq_->get(), static_cast<int>(std::min(n, 16u)), wc);
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
