// SPDX-License-Identifier: GPL-2.0-only
/*
 * vrnic-bench: an endpoint for its built-in workloads (device, PD, CQ, RC
 * QPs, all libvrnic's RAII owners) that connects to another in the same
 * process.
 *
 * Copyright (c) 2026 The vrnic authors
 */
#pragma once

#include <vrnic/verbs.hpp>

#include <memory>
#include <string>
#include <vector>

namespace vrnic::bench {

/* An MR over memory the workload owns. */
using Mr = std::unique_ptr<verbs::Mr>;

/* Throws vrnic::Error "@what: strerror(@err)". */
[[noreturn]] void verbs_fail(const std::string &what, int err);

/*
 * One side: a device, a PD, a CQ and @qps RC QPs in INIT, each with room
 * for @depth send WRs.  QP creation stops at the first refusal (a device
 * out of QP contexts): created() says how many there are, refused() why.
 */
class Endpoint {
public:
	Endpoint(const std::string &dev, int gid_index, unsigned qps = 1, unsigned depth = 4);

	/* QP i to the peer's QP i, RTR then RTS; both must have as many QPs. */
	void connect(const Endpoint &peer);

	/* Register @len bytes at @addr in this endpoint's PD. */
	Mr reg(void *addr, size_t len, int access) const;

	/* Poll until @n completions arrived (30 s at most); all must succeed. */
	void wait(unsigned n) const;

	ibv_qp *qp(size_t i) const { return qps_.at(i)->get(); }
	size_t created() const { return qps_.size(); }
	const std::string &refused() const { return refused_; }

private:
	std::shared_ptr<verbs::Context> ctx_;
	std::shared_ptr<verbs::Pd> pd_;
	std::shared_ptr<verbs::Cq> cq_;
	std::vector<std::unique_ptr<verbs::Qp>> qps_;
	ibv_gid gid_{};
	int gid_index_ = 0;
	std::string refused_;
};

} // namespace vrnic::bench
