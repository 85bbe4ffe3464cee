// SPDX-License-Identifier: GPL-2.0-only
/*
 * vrnic-bench: the verbs objects its built-in workloads use, owned by
 * RAII handles, and an endpoint (device, PD, CQ, RC QPs) that connects
 * to another in the same process.
 *
 * Copyright (c) 2026 The vrnic authors
 */
#pragma once

#include <infiniband/verbs.h>

#include <memory>
#include <string>
#include <vector>

namespace vrnic::bench {

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

	ibv_qp *qp(size_t i) const { return qps_.at(i).get(); }
	size_t created() const { return qps_.size(); }
	const std::string &refused() const { return refused_; }

private:
	Ctx ctx_;
	Pd pd_;
	Cq cq_;
	std::vector<Qp> qps_;
	ibv_gid gid_{};
	int gid_index_ = 0;
	std::string refused_;
};

} // namespace vrnic::bench
