// SPDX-License-Identifier: GPL-2.0-only
/*
 * vrnic-qpstates DEVICE GID_INDEX: hold QPs in chosen states with chosen
 * attributes until killed, for restrack.sh (`rdma res show ... -dd` must
 * show what was set).  Prints "NAME VALUE" lines (the QP numbers, the MR
 * and the CQ sizes), then "ready", then waits for a signal.
 *
 * Exit codes: 0 never (it is killed); 1 a verbs call failed (the message
 * names it); 2 bad usage.
 */

#include <vrnic/verbs.hpp>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <memory>
#include <string>

using namespace vrnic::verbs;

namespace {

constexpr uint32_t kRqPsn = 0x010203;
constexpr uint32_t kSqPsn = 0xabcdef;
constexpr uint32_t kQkey = 0x11111111;

struct Setup {
	std::shared_ptr<Pd> pd;
	ibv_gid gid{};
	int gid_index = 0;
};

void to(const Setup &s, const Qp &qp, ibv_qp_state st)
{
	ibv_qp_attr a{};
	int m = IBV_QP_STATE;

	a.qp_state = st;
	if (st == IBV_QPS_INIT) {
		a.pkey_index = 0;
		a.port_num = 1;
		m |= IBV_QP_PKEY_INDEX | IBV_QP_PORT;
		if (qp.type() == IBV_QPT_UD) {
			a.qkey = kQkey;
			m |= IBV_QP_QKEY;
		} else {
			a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
				(qp.type() == IBV_QPT_RC ? IBV_ACCESS_REMOTE_READ : 0);
			m |= IBV_QP_ACCESS_FLAGS;
		}
	} else if (st == IBV_QPS_RTR && qp.type() != IBV_QPT_UD) {
		a.path_mtu = IBV_MTU_1024;
		a.dest_qp_num = qp.num(); /* itself: no traffic flows */
		a.rq_psn = kRqPsn;
		a.ah_attr.is_global = 1;
		a.ah_attr.grh.dgid = s.gid;
		a.ah_attr.grh.sgid_index = static_cast<uint8_t>(s.gid_index);
		a.ah_attr.grh.hop_limit = 64;
		a.ah_attr.port_num = 1;
		m |= IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_AV;
		if (qp.type() == IBV_QPT_RC) {
			a.max_dest_rd_atomic = 4;
			a.min_rnr_timer = 12;
			m |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
		}
	} else if (st == IBV_QPS_RTS) {
		a.sq_psn = kSqPsn;
		m |= IBV_QP_SQ_PSN;
		if (qp.type() == IBV_QPT_RC) {
			a.timeout = 14;
			a.retry_cnt = 5;
			a.rnr_retry = 6;
			a.max_rd_atomic = 4;
			m |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			     IBV_QP_MAX_QP_RD_ATOMIC;
		}
	}
	qp.modify(a, m);
}

/* INIT, RTR, ... up to and including LAST. */
void walk(const Setup &s, const Qp &qp, ibv_qp_state last)
{
	for (int st = IBV_QPS_INIT; st <= last; st++)
		to(s, qp, static_cast<ibv_qp_state>(st));
}

void post_recvs(const Qp &qp, const Mr &mr, int n)
{
	while (n--) {
		ibv_sge g = sge(mr, 0, 64);
		ibv_recv_wr wr{};

		wr.sg_list = &g;
		wr.num_sge = 1;
		post_recv(qp, wr);
	}
}

int run(const std::string &dev, int gid_index)
{
	auto ctx = std::make_shared<Context>(dev);
	Setup s;

	s.gid_index = gid_index;
	s.gid = ctx->query_gid(1, gid_index);
	s.pd = std::make_shared<Pd>(ctx);
	auto cq = std::make_shared<Cq>(ctx, 100);
	auto cq_err = std::make_shared<Cq>(ctx, 10);
	/* 3 pages' worth starting 100 bytes into a page: 4 pages. */
	auto buf = std::make_shared<Buffer>(8 * 4096);
	Mr mr(s.pd, buf, 100, 3 * 4096,
	      IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	/* An on-demand paging MR of 2 pages, never touched. */
	auto odp_buf = std::make_shared<Buffer>(2 * 4096);
	Mr odp(s.pd, odp_buf, 0, 2 * 4096,
	       IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_ON_DEMAND);
	QpCaps caps;

	caps.max_send_wr = 16;
	caps.max_recv_wr = 16;
	caps.max_send_sge = 1;
	caps.max_recv_sge = 1;
	Qp reset(s.pd, IBV_QPT_RC, cq, cq, caps);
	Qp init(s.pd, IBV_QPT_RC, cq, cq, caps);
	Qp rtr(s.pd, IBV_QPT_RC, cq, cq, caps);
	Qp rts(s.pd, IBV_QPT_RC, cq, cq, caps);
	Qp err(s.pd, IBV_QPT_RC, cq_err, cq_err, caps);
	Qp uc(s.pd, IBV_QPT_UC, cq, cq, caps);
	Qp ud(s.pd, IBV_QPT_UD, cq, cq, caps);

	walk(s, init, IBV_QPS_INIT);
	walk(s, rtr, IBV_QPS_RTR);
	walk(s, rts, IBV_QPS_RTS);
	post_recvs(rts, mr, 3);
	walk(s, err, IBV_QPS_RTS);
	post_recvs(err, mr, 3);
	to(s, err, IBV_QPS_ERR); /* flushes 3 completions into cq_err */
	walk(s, uc, IBV_QPS_RTS);
	walk(s, ud, IBV_QPS_RTS);

	std::printf("reset %u\ninit %u\nrtr %u\nrts %u\nerr %u\nuc %u\nud %u\n",
		    reset.num(), init.num(), rtr.num(), rts.num(), err.num(), uc.num(),
		    ud.num());
	std::printf("mr_lkey %u\nmr_addr %llu\nmr_len %zu\ncq_err_cqe %d\ncq_cqe %d\n",
		    mr.lkey(), static_cast<unsigned long long>(mr.addr()), mr.length(),
		    cq_err->cqe(), cq->cqe());
	std::printf("odp_mr_lkey %u\n", odp.lkey());
	std::printf("ready\n");
	std::fflush(stdout);
	pause();
	return 0;
}

} // namespace

int main(int argc, char **argv)
{
	if (argc != 3) {
		std::cerr << "usage: vrnic-qpstates DEVICE GID_INDEX (e.g. vrnic0 1)\n";
		return 2;
	}
	char *end = nullptr;
	long gid_index = std::strtol(argv[2], &end, 10);

	if (!*argv[2] || *end || gid_index < 0 || gid_index > 255) {
		std::cerr << "vrnic-qpstates: GID_INDEX must be 0-255, not '" << argv[2] << "'\n";
		return 2;
	}
	try {
		return run(argv[1], static_cast<int>(gid_index));
	} catch (const std::exception &e) {
		std::cerr << "vrnic-qpstates: " << e.what() << "\n";
		return 1;
	}
}
