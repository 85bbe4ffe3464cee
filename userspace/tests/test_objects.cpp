// SPDX-License-Identifier: GPL-2.0-only
/*
 * Object lifecycles: PD, CQ, QP (RC/UC/UD state machine and query), MR, AH,
 * SRQ, and the EBUSY rule for destroying a parent with live children.
 */

#include "fixture.hpp"

#include <cerrno>
#include <cstring>
#include <limits>
#include <set>

namespace vrnic::test {
namespace {

using verbs::Buffer;
using verbs::Cq;
using verbs::Mr;
using verbs::Pd;
using verbs::Qp;
using verbs::QpCaps;
using verbs::Srq;

class ObjectTest : public VerbsTest {};

/* ---- PD ---- */

TEST_F(ObjectTest, PdAllocDealloc)
{
	auto pd1 = std::make_shared<Pd>(ctx_);
	auto pd2 = std::make_shared<Pd>(ctx_);

	EXPECT_NE(pd1->get(), pd2->get());
	EXPECT_EQ(pd1->get()->context, ctx_->get());
	EXPECT_NE(pd1->get()->handle, pd2->get()->handle);
}

TEST_F(ObjectTest, DeallocPdWithLiveMrFailsEbusy)
{
	auto pd = std::make_shared<Pd>(ctx_);
	auto mr = std::make_shared<Mr>(pd, std::make_shared<Buffer>(4096),
				       IBV_ACCESS_LOCAL_WRITE);

	/* The PD stays valid after the failed dealloc; RAII frees it later. */
	EXPECT_EQ(ibv_dealloc_pd(pd->get()), EBUSY);
	/* Still usable: another MR registers on it. */
	EXPECT_NO_THROW(std::make_shared<Mr>(pd, std::make_shared<Buffer>(4096),
					     IBV_ACCESS_LOCAL_WRITE));
}

TEST_F(ObjectTest, DeallocPdWithLiveQpFailsEbusy)
{
	auto pd = std::make_shared<Pd>(ctx_);
	auto cq = make_cq();
	auto qp = std::make_shared<Qp>(pd, IBV_QPT_RC, cq, cq, QpCaps{});

	EXPECT_EQ(ibv_dealloc_pd(pd->get()), EBUSY);
}

TEST_F(ObjectTest, DestroyCqWithLiveQpFailsEbusy)
{
	auto cq = make_cq();
	auto qp = std::make_shared<Qp>(pd_, IBV_QPT_RC, cq, cq, QpCaps{});

	EXPECT_EQ(ibv_destroy_cq(cq->get()), EBUSY);
	/* Still usable. */
	ibv_wc wc{};
	EXPECT_EQ(ibv_poll_cq(cq->get(), 1, &wc), 0);
}

/* ---- CQ ---- */

TEST_F(ObjectTest, CqCreateResizeDestroy)
{
	auto cq = std::make_shared<Cq>(ctx_, 16);

	EXPECT_GE(cq->cqe(), 16);
	ASSERT_NO_THROW(cq->resize(300));
	EXPECT_GE(cq->cqe(), 300);
	ASSERT_NO_THROW(cq->resize(32));
	EXPECT_GE(cq->cqe(), 32);

	ibv_wc wc{};
	EXPECT_EQ(ibv_poll_cq(cq->get(), 1, &wc), 0);
}

TEST_F(ObjectTest, CqCreateBeyondMaxCqeFails)
{
	if (dev_attr_.max_cqe == std::numeric_limits<int>::max())
		GTEST_SKIP() << "max_cqe is INT_MAX";
	errno = 0;
	ibv_cq *cq = ibv_create_cq(ctx_->get(), dev_attr_.max_cqe + 1, nullptr,
				   nullptr, 0);

	EXPECT_EQ(cq, nullptr) << "cqe " << dev_attr_.max_cqe + 1
			       << " > max_cqe accepted";
	if (cq)
		ibv_destroy_cq(cq);
}

TEST_F(ObjectTest, CqResizeKeepsCompletions)
{
	QpPair p = make_pair();
	auto src = make_mr(64, IBV_ACCESS_LOCAL_WRITE);
	auto dst = make_remote_mr(64 * 3);
	constexpr int n = 3;

	for (int i = 0; i < n; i++) {
		ibv_sge r = verbs::sge(*dst, 64 * i, 64);
		ibv_recv_wr rwr{};

		rwr.wr_id = 100 + i;
		rwr.sg_list = &r;
		rwr.num_sge = 1;
		verbs::post_recv(*p.b.qp, rwr);
	}
	fill_pattern(src->data(), 64, 7);
	for (int i = 0; i < n; i++) {
		ibv_sge s = verbs::sge(*src, 0, 64);
		ibv_send_wr wr{};

		wr.wr_id = i;
		wr.sg_list = &s;
		wr.num_sge = 1;
		wr.opcode = IBV_WR_SEND;
		wr.send_flags = IBV_SEND_SIGNALED;
		verbs::post_send(*p.a.qp, wr);
	}
	/* All three receives done: the sends are (being) acked. */
	auto rwcs = poll_n(*p.b.recv_cq, n, "receives before the resize");
	for (int i = 0; i < n; i++)
		EXPECT_TRUE(wc_ok(rwcs[i], IBV_WC_RECV, 100 + i));

	/* Resize the send CQ while its completions are (about to be) queued. */
	ASSERT_NO_THROW(p.a.send_cq->resize(1024));
	EXPECT_GE(p.a.send_cq->cqe(), 1024);

	auto swcs = poll_n(*p.a.send_cq, n, "send completions across a resize");
	for (int i = 0; i < n; i++)
		EXPECT_TRUE(wc_ok(swcs[i], IBV_WC_SEND, i));
	for (int i = 0; i < n; i++)
		EXPECT_TRUE(matches_pattern(dst->data() + 64 * i, 64, 7));
}

/* ---- QP ---- */

class QpLifecycle : public VerbsTest,
		    public ::testing::WithParamInterface<ibv_qp_type> {};

std::string qp_type_name(const ::testing::TestParamInfo<ibv_qp_type> &info)
{
	switch (info.param) {
	case IBV_QPT_RC: return "RC";
	case IBV_QPT_UC: return "UC";
	case IBV_QPT_UD: return "UD";
	default: return "type" + std::to_string(info.param);
	}
}

TEST_P(QpLifecycle, CreateModifyQueryDestroy)
{
	const ibv_qp_type type = GetParam();
	QpCaps caps;

	caps.max_send_wr = 32;
	caps.max_recv_wr = 48;
	caps.max_send_sge = 2;
	caps.max_recv_sge = 3;

	auto scq = make_cq();
	auto rcq = make_cq();
	auto qp = std::make_shared<Qp>(pd_, type, scq, rcq, caps);

	EXPECT_EQ(qp->type(), type);
	/* QP numbers 0 and 1 are the special QPs. */
	EXPECT_GT(qp->num(), 1u);

	ibv_qp_init_attr init{};
	ibv_qp_attr attr = qp->query(IBV_QP_STATE | IBV_QP_CAP, &init);

	EXPECT_EQ(attr.qp_state, IBV_QPS_RESET);
	EXPECT_GE(init.cap.max_send_wr, caps.max_send_wr);
	EXPECT_GE(init.cap.max_recv_wr, caps.max_recv_wr);
	EXPECT_GE(init.cap.max_send_sge, caps.max_send_sge);
	EXPECT_GE(init.cap.max_recv_sge, caps.max_recv_sge);
	EXPECT_EQ(init.send_cq, scq->get());
	EXPECT_EQ(init.recv_cq, rcq->get());

	/* RESET -> INIT */
	modify_to_init(*qp, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	attr = qp->query(IBV_QP_STATE | IBV_QP_PORT | IBV_QP_PKEY_INDEX |
			 IBV_QP_QKEY | IBV_QP_ACCESS_FLAGS);
	EXPECT_EQ(attr.qp_state, IBV_QPS_INIT);
	EXPECT_EQ(attr.port_num, cfg().port);
	EXPECT_EQ(attr.pkey_index, 0);
	if (type == IBV_QPT_UD) {
		EXPECT_EQ(attr.qkey, kQkey);
	} else {
		EXPECT_EQ(attr.qp_access_flags,
			  static_cast<unsigned>(IBV_ACCESS_LOCAL_WRITE |
						IBV_ACCESS_REMOTE_WRITE));
	}

	/* INIT -> RTR -> RTS (RC/UC looped back to themselves) */
	if (type == IBV_QPT_UD) {
		ibv_qp_attr a{};

		a.qp_state = IBV_QPS_RTR;
		qp->modify(a, IBV_QP_STATE);
		EXPECT_EQ(qp->state(), IBV_QPS_RTR);
		a = {};
		a.qp_state = IBV_QPS_RTS;
		a.sq_psn = 0x123;
		qp->modify(a, IBV_QP_STATE | IBV_QP_SQ_PSN);
	} else {
		modify_to_rtr(*qp, qp->num(), 0x456);
		attr = qp->query(IBV_QP_STATE | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
				 IBV_QP_PATH_MTU);
		EXPECT_EQ(attr.qp_state, IBV_QPS_RTR);
		EXPECT_EQ(attr.dest_qp_num, qp->num());
		EXPECT_EQ(attr.rq_psn, 0x456u);
		EXPECT_EQ(attr.path_mtu, path_mtu());
		modify_to_rts(*qp, 0x123);
	}
	attr = qp->query(IBV_QP_STATE | IBV_QP_SQ_PSN);
	EXPECT_EQ(attr.qp_state, IBV_QPS_RTS);
	EXPECT_EQ(attr.sq_psn, 0x123u);

	/* RTS -> ERR -> RESET -> INIT: the QP can be recycled. */
	ibv_qp_attr a{};

	a.qp_state = IBV_QPS_ERR;
	qp->modify(a, IBV_QP_STATE);
	EXPECT_EQ(qp->state(), IBV_QPS_ERR);
	a.qp_state = IBV_QPS_RESET;
	qp->modify(a, IBV_QP_STATE);
	EXPECT_EQ(qp->state(), IBV_QPS_RESET);
	modify_to_init(*qp);
	EXPECT_EQ(qp->state(), IBV_QPS_INIT);
}

TEST_P(QpLifecycle, IllegalTransitionRejected)
{
	auto cq = make_cq();
	auto qp = std::make_shared<Qp>(pd_, GetParam(), cq, cq, QpCaps{});
	ibv_qp_attr a{};

	/* RESET -> RTS skips INIT and RTR. */
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 1;
	EXPECT_NE(ibv_modify_qp(qp->get(), &a, IBV_QP_STATE | IBV_QP_SQ_PSN), 0);
	EXPECT_EQ(qp->state(), IBV_QPS_RESET);
}

INSTANTIATE_TEST_SUITE_P(Types, QpLifecycle,
			 ::testing::Values(IBV_QPT_RC, IBV_QPT_UC, IBV_QPT_UD),
			 qp_type_name);

TEST_F(ObjectTest, RcQpQueryReturnsWhatWasSet)
{
	QpPair p = make_pair();
	ibv_qp_attr attr = p.a.qp->query(
		IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
		IBV_QP_ACCESS_FLAGS | IBV_QP_AV | IBV_QP_PATH_MTU |
		IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
		IBV_QP_MIN_RNR_TIMER | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
		IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC);

	EXPECT_EQ(attr.qp_state, IBV_QPS_RTS);
	EXPECT_EQ(attr.pkey_index, 0);
	EXPECT_EQ(attr.port_num, cfg().port);
	EXPECT_EQ(attr.qp_access_flags, static_cast<unsigned>(kAllAccess));
	EXPECT_EQ(attr.path_mtu, path_mtu());
	EXPECT_EQ(attr.dest_qp_num, p.b.qp->num());
	EXPECT_EQ(attr.rq_psn, kPsnB);
	EXPECT_EQ(attr.sq_psn, kPsnA);
	EXPECT_EQ(attr.max_dest_rd_atomic, rd_atomic());
	EXPECT_EQ(attr.max_rd_atomic, rd_atomic());
	EXPECT_EQ(attr.min_rnr_timer, kMinRnrTimer);
	EXPECT_EQ(attr.timeout, kTimeout);
	EXPECT_EQ(attr.retry_cnt, kRetryCnt);
	EXPECT_EQ(attr.rnr_retry, kRnrRetry);

	const ibv_ah_attr &ah = attr.ah_attr;

	EXPECT_EQ(ah.is_global, 1);
	EXPECT_EQ(ah.port_num, cfg().port);
	EXPECT_EQ(ah.grh.sgid_index, cfg().gid_index);
	EXPECT_EQ(ah.grh.hop_limit, kHopLimit);
	/* a's destination is the remote side's GID. */
	EXPECT_EQ(std::memcmp(ah.grh.dgid.raw, cfg().remote().gid.raw, 16), 0)
		<< "dgid " << format_gid(ah.grh.dgid);
}

/*
 * RoCE has no alternate path (ib_core refuses IBV_QP_ALT_PATH on a RoCE
 * port before the driver sees it), so a QP's migration state is MIGRATED
 * (IBA 17.2.8): setting it so, as programs copying an attribute template
 * do on the way to RTS, works and reads back; REARM and ARMED would arm a
 * path that cannot exist.  The QP keeps working either way.
 */
TEST_F(ObjectTest, RcQpPathMigrationStateWithoutAlternatePath)
{
	QpPair p = make_pair();
	ibv_qp_attr a{};

	a.path_mig_state = IBV_MIG_MIGRATED;
	EXPECT_EQ(ibv_modify_qp(p.a.qp->get(), &a, IBV_QP_PATH_MIG_STATE), 0)
		<< "RTS to RTS with the migration state MIGRATED";
	EXPECT_EQ(p.a.qp->query(IBV_QP_PATH_MIG_STATE).path_mig_state,
		  IBV_MIG_MIGRATED);
	for (ibv_mig_state m : {IBV_MIG_REARM, IBV_MIG_ARMED}) {
		a.path_mig_state = m;
		EXPECT_EQ(ibv_modify_qp(p.a.qp->get(), &a,
					IBV_QP_PATH_MIG_STATE), EINVAL)
			<< "migration state " << m << " with no alternate path";
	}
	a = {};
	a.alt_ah_attr = ah_attr(Side::local, Side::remote);
	a.alt_port_num = cfg().port;
	a.alt_timeout = kTimeout;
	EXPECT_EQ(ibv_modify_qp(p.a.qp->get(), &a, IBV_QP_ALT_PATH), EINVAL)
		<< "an alternate path on RoCE";
	EXPECT_EQ(p.a.qp->query(IBV_QP_STATE).qp_state, IBV_QPS_RTS);

	expect_traffic(p, 0x3c, "after the refused changes");
}

/* ---- MR ---- */

TEST_F(ObjectTest, MrRegisterWithAccessFlags)
{
	std::vector<int> flags = {
		0,
		IBV_ACCESS_LOCAL_WRITE,
		IBV_ACCESS_REMOTE_READ,
		IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ,
		IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE,
		IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			IBV_ACCESS_REMOTE_READ,
	};
	if (dev_attr_.atomic_cap != IBV_ATOMIC_NONE)
		flags.push_back(kAllAccess);

	auto buf = std::make_shared<Buffer>(3 * 4096);
	std::set<uint32_t> lkeys;
	std::vector<std::shared_ptr<Mr>> live;

	for (int access : flags) {
		SCOPED_TRACE("access 0x" + std::to_string(access));
		auto mr = std::make_shared<Mr>(pd_, buf, 4096, 8192, access);

		EXPECT_NE(mr->lkey(), 0u);
		if (access & (IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE |
			      IBV_ACCESS_REMOTE_ATOMIC)) {
			EXPECT_NE(mr->rkey(), 0u);
		}
		EXPECT_EQ(mr->get()->addr, buf->data() + 4096);
		EXPECT_EQ(mr->get()->length, 8192u);
		EXPECT_EQ(mr->get()->pd, pd_->get());
		EXPECT_EQ(mr->get()->context, ctx_->get());
		/* Overlapping registrations are distinct MRs. */
		EXPECT_TRUE(lkeys.insert(mr->lkey()).second)
			<< "lkey 0x" << std::hex << mr->lkey() << " reused";
		live.push_back(mr);
	}
}

TEST_F(ObjectTest, MrRemoteWriteNeedsLocalWrite)
{
	auto buf = std::make_shared<Buffer>(4096);

	for (int access : {static_cast<int>(IBV_ACCESS_REMOTE_WRITE),
			   static_cast<int>(IBV_ACCESS_REMOTE_ATOMIC)}) {
		SCOPED_TRACE("access 0x" + std::to_string(access));
		errno = 0;
		ibv_mr *mr = ibv_reg_mr(pd_->get(), buf->data(), buf->size(),
					access);

		EXPECT_EQ(mr, nullptr);
		EXPECT_EQ(errno, EINVAL);
		if (mr)
			ibv_dereg_mr(mr);
	}
}

/* ---- AH ---- */

TEST_F(ObjectTest, AhCreateDestroy)
{
	auto ah1 = std::make_shared<verbs::Ah>(pd_, own_ah_attr());
	auto ah2 = std::make_shared<verbs::Ah>(pd_, own_ah_attr());

	EXPECT_NE(ah1->get(), nullptr);
	EXPECT_NE(ah1->get(), ah2->get());
	EXPECT_EQ(ah1->get()->pd, pd_->get());
}

TEST_F(ObjectTest, AhWithoutGrhRejectedOnRoce)
{
	ibv_ah_attr attr = own_ah_attr();

	attr.is_global = 0;
	ibv_ah *ah = ibv_create_ah(pd_->get(), &attr);

	EXPECT_EQ(ah, nullptr) << "RoCE needs a GRH; an AH without one was "
				  "accepted";
	if (ah)
		ibv_destroy_ah(ah);
}

/* ---- SRQ ---- */

TEST_F(ObjectTest, SrqCreateQueryModifyDestroy)
{
	ASSERT_GT(dev_attr_.max_srq, 0) << "device reports no SRQ support";
	auto srq = std::make_shared<Srq>(pd_, 32, 2);
	ibv_srq_attr attr = srq->query();

	EXPECT_GE(attr.max_wr, 32u);
	EXPECT_GE(attr.max_sge, 2u);
	EXPECT_EQ(attr.srq_limit, 0u);

	ibv_srq_attr mod{};
	mod.srq_limit = 10;
	ASSERT_NO_THROW(srq->modify(mod, IBV_SRQ_LIMIT));
	EXPECT_EQ(srq->query().srq_limit, 10u);

	/* A limit above the queue size cannot be armed. */
	mod.srq_limit = attr.max_wr + 1;
	EXPECT_NE(ibv_modify_srq(srq->get(), &mod, IBV_SRQ_LIMIT), 0);
	EXPECT_EQ(srq->query().srq_limit, 10u);
}

} // namespace
} // namespace vrnic::test
