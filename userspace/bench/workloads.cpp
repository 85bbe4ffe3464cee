// SPDX-License-Identifier: GPL-2.0-only
/*
 * vrnic-bench: the built-in verbs workloads (see workloads.hpp).
 *
 * Copyright (c) 2026 The vrnic authors
 */
#include "workloads.hpp"

#include "endpoint.hpp"
#include "vrnic/error.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <vector>

#include <fmt/format.h>

namespace vrnic::bench {

namespace {

constexpr size_t kPage = 4096;

/* Page-aligned anonymous memory, unmapped at the end. */
class Pages {
public:
	explicit Pages(size_t n) : len_(n * kPage)
	{
		addr_ = mmap(nullptr, len_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			     -1, 0);
		if (addr_ == MAP_FAILED)
			verbs_fail(fmt::format("mmap {} bytes", len_), errno);
		std::fill_n(static_cast<char *>(addr_), len_, 'x');
	}
	Pages(const Pages &) = delete;
	Pages &operator=(const Pages &) = delete;
	~Pages() { munmap(addr_, len_); }
	char *page(size_t i) const { return static_cast<char *>(addr_) + i * kPage; }

private:
	void *addr_ = nullptr;
	size_t len_;
};

int write_one(ibv_qp *qp, uint64_t id, void *src, uint32_t len, uint32_t lkey,
	      void *dst, uint32_t rkey, bool signaled)
{
	ibv_sge sge{reinterpret_cast<uintptr_t>(src), len, lkey};
	ibv_send_wr wr{}, *bad = nullptr;

	wr.wr_id = id;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.send_flags = signaled ? IBV_SEND_SIGNALED : 0;
	wr.wr.rdma.remote_addr = reinterpret_cast<uintptr_t>(dst);
	wr.wr.rdma.rkey = rkey;
	return ibv_post_send(qp, &wr, &bad);
}

} // namespace

double run_mr_reg(const MrRegRun &r)
{
	Endpoint a(r.requester, r.requester_gid), b(r.responder, r.responder_gid);
	std::vector<char> src(r.size, 'x'), dst(r.size);

	a.connect(b);
	b.connect(a);
	Mr target = b.reg(dst.data(), dst.size(),
			  IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	Mr reused;
	if (!r.per_io)
		reused = a.reg(src.data(), src.size(), IBV_ACCESS_LOCAL_WRITE);

	const auto t0 = std::chrono::steady_clock::now();
	for (uint32_t i = 0; i < r.ios; i++) {
		Mr per_io;
		if (r.per_io)
			per_io = a.reg(src.data(), src.size(), IBV_ACCESS_LOCAL_WRITE);
		const verbs::Mr *mr = r.per_io ? per_io.get() : reused.get();
		if (int e = write_one(a.qp(0), i, src.data(), r.size, mr->lkey(), dst.data(),
				      target->rkey(), true))
			verbs_fail("ibv_post_send", e);
		a.wait(1);
		/* per_io is deregistered here, as a per-I/O stack would. */
	}
	const std::chrono::duration<double> t = std::chrono::steady_clock::now() - t0;
	return t.count() > 0 ? r.ios / t.count() : 0;
}

WorkingSetResult run_working_set(const WorkingSetRun &r)
{
	WorkingSetResult res;

	if (!r.qps || !r.mrs || !r.depth || r.size > kPage)
		throw Error(fmt::format("working-set: {} QPs, {} MRs, depth {}, size {}: "
					"each must be at least 1, size at most {}",
					r.qps, r.mrs, r.depth, r.size, kPage));
	Endpoint a(r.requester, r.requester_gid, r.qps, r.depth);
	Endpoint b(r.responder, r.responder_gid, r.qps, r.depth);
	res.qps_created = static_cast<uint32_t>(std::min(a.created(), b.created()));
	if (res.qps_created < r.qps) {
		res.refused = !a.refused().empty() ? r.requester + ": " + a.refused()
						   : r.responder + ": " + b.refused();
		return res;
	}
	a.connect(b);
	b.connect(a);

	Pages src(r.mrs), dst(r.mrs);
	std::vector<Mr> lmr, rmr;
	for (uint32_t i = 0; i < r.mrs; i++) {
		lmr.push_back(a.reg(src.page(i), kPage, IBV_ACCESS_LOCAL_WRITE));
		rmr.push_back(b.reg(dst.page(i), kPage,
				    IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE));
	}

	/* Each QP's queue holds @depth WRs: never more in flight than that. */
	const uint32_t depth = r.depth;
	uint32_t inflight = 0;
	const auto t0 = std::chrono::steady_clock::now();
	for (uint32_t k = 0; k < r.msgs; k++) {
		if (inflight == depth) {
			a.wait(1);
			inflight--;
		}
		uint32_t q = k % r.qps, m = k % r.mrs;
		if (int e = write_one(a.qp(q), k, src.page(m), r.size, lmr[m]->lkey(),
				      dst.page(m), rmr[m]->rkey(), true))
			verbs_fail(fmt::format("ibv_post_send (WRITE {} on QP {})", k, q), e);
		inflight++;
	}
	a.wait(inflight);
	const std::chrono::duration<double> t = std::chrono::steady_clock::now() - t0;
	res.msgs_per_s = t.count() > 0 ? r.msgs / t.count() : 0;
	return res;
}

} // namespace vrnic::bench
