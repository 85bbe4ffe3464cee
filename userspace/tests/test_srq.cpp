// SPDX-License-Identifier: GPL-2.0-only
/*
 * Shared receive queue: two RC QPs draw their receives from one SRQ, and the
 * SRQ limit raises IBV_EVENT_SRQ_LIMIT_REACHED once it is crossed; resizing
 * (ibv_modify_srq with IBV_SRQ_MAX_WR) keeps the receives posted before it.
 */

#include "fixture.hpp"

namespace vrnic::test {
namespace {

/* A receive on @srq for slot @k of @rbuf (@slot bytes each), wr_id @k. */
void post_slot(const verbs::Srq &srq, const verbs::Mr &rbuf, size_t slot,
	       uint32_t k)
{
	ibv_sge s = verbs::sge(rbuf, k * slot, static_cast<uint32_t>(slot));
	ibv_recv_wr wr{};

	wr.wr_id = k;
	wr.sg_list = &s;
	wr.num_sge = 1;
	verbs::post_srq_recv(srq, wr);
}

/*
 * Message @k: @len pattern bytes (seed @seed + @k) in @src, sent by @tx as
 * wr 100 + @k; both completions seen.  The receive must be wr_id @k (the
 * SRQ's receives are taken in posting order, IBA 10.2.9) and land whole
 * at slot @k of @rbuf (@slot bytes each).  The receive completion goes to
 * @rwc; returns whether it came as it must.
 */
::testing::AssertionResult send_to_slot(const Endpoint &tx, const verbs::Mr &src,
					const verbs::Cq &rcq, const verbs::Mr &rbuf,
					size_t slot, size_t len, uint32_t k,
					uint32_t seed, ibv_wc &rwc)
{
	ibv_sge s = verbs::sge(src, 0, static_cast<uint32_t>(len));
	ibv_send_wr wr{};

	fill_pattern(src.data(), len, seed + k);
	wr.wr_id = 100 + k;
	wr.sg_list = &s;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED;
	verbs::post_send(*tx.qp, wr);
	auto sent = wc_ok(poll_one(*tx.send_cq, "SEND"), IBV_WC_SEND, 100 + k);
	if (!sent)
		return sent;
	rwc = poll_one(rcq, "RECV through the SRQ");
	auto got = wc_ok(rwc, IBV_WC_RECV, k);
	if (!got)
		return got;
	if (rwc.byte_len != len)
		return ::testing::AssertionFailure()
		       << "byte_len " << rwc.byte_len << ", sent " << len;
	if (!matches_pattern(rbuf.data() + k * slot, len, seed + k))
		return ::testing::AssertionFailure()
		       << "message " << k << " did not land whole at slot " << k;
	return ::testing::AssertionSuccess();
}

class SrqTest : public VerbsTest {};

TEST_F(SrqTest, SharedByTwoRcQpsWithLimitEvent)
{
	ASSERT_GT(peer_dev_attr_.max_srq, 0)
		<< cfg().remote().device << " reports no SRQ support";

	constexpr uint32_t kSlots = 16;		/* receives posted to the SRQ */
	constexpr uint32_t kLimit = 8;		/* armed limit */
	constexpr size_t kSlot = 2048;
	constexpr size_t kMsg = 1500;		/* two packets at MTU 1024 */

	/* The SRQ and its QPs are on the receiving (remote) side. */
	auto srq = std::make_shared<verbs::Srq>(pd(Side::remote), kSlots, 1);
	auto rcq = make_cq(256, Side::remote);
	verbs::QpCaps caps;

	/* Receivers b1 and b2 share the SRQ and one receive CQ. */
	Endpoint a1 = make_endpoint(IBV_QPT_RC, caps);
	Endpoint a2 = make_endpoint(IBV_QPT_RC, caps);
	Endpoint b1 = make_remote_endpoint(IBV_QPT_RC, caps, {}, rcq, srq);
	Endpoint b2 = make_remote_endpoint(IBV_QPT_RC, caps, {}, rcq, srq);
	connect(a1, b1);
	connect(a2, b2);

	auto rbuf = make_remote_mr(kSlots * kSlot);
	fill_pattern(rbuf->data(), rbuf->length(), kGuardSeed);
	for (uint32_t i = 0; i < kSlots; i++)
		post_slot(*srq, *rbuf, kSlot, i);

	ibv_srq_attr arm{};
	arm.srq_limit = kLimit;
	ASSERT_NO_THROW(srq->modify(arm, IBV_SRQ_LIMIT));
	EXPECT_EQ(srq->query().srq_limit, kLimit);

	auto src = make_mr(kMsg, IBV_ACCESS_LOCAL_WRITE);
	std::vector<std::string> skipped;

	/*
	 * Send one message at a time, alternating senders, so SRQ entries are
	 * consumed in posting order: message k lands in slot k.
	 */
	for (uint32_t k = 0; k <= kSlots - kLimit; k++) {
		SCOPED_TRACE("message " + std::to_string(k));
		const Endpoint &tx = (k % 2) ? a2 : a1;
		const Endpoint &rx = (k % 2) ? b2 : b1;
		ibv_wc rwc{};

		ASSERT_TRUE(send_to_slot(tx, *src, *rcq, *rbuf, kSlot, kMsg, k,
					 0x5400, rwc));
		EXPECT_EQ(rwc.qp_num, rx.qp->num()) << "delivered to the wrong QP";

		const uint32_t left = kSlots - (k + 1);

		if (left == kLimit) {
			/* At the limit, not below it: no event yet. */
			auto ev = wait_async_event(*context(Side::remote),
						   IBV_EVENT_SRQ_LIMIT_REACHED,
						   cfg().quiet, &skipped);
			EXPECT_FALSE(ev) << "SRQ limit event with " << left
					 << " receives left (limit " << kLimit
					 << ")";
		}
	}

	/* kLimit - 1 receives left: below the limit. */
	auto ev = wait_async_event(*context(Side::remote),
				   IBV_EVENT_SRQ_LIMIT_REACHED,
				   cfg().timeout, &skipped);
	ASSERT_TRUE(ev) << "no IBV_EVENT_SRQ_LIMIT_REACHED within "
			<< cfg().timeout.count() << " ms";
	EXPECT_EQ(ev->element.srq, srq->get());
	/* The event disarms the limit. */
	EXPECT_EQ(srq->query().srq_limit, 0u);
	for (const auto &name : skipped)
		ADD_FAILURE() << "unexpected async event: " << name;

	/* Unused slots are untouched. */
	const uint32_t used = kSlots - kLimit + 1;
	EXPECT_TRUE(matches_pattern(rbuf->data() + used * kSlot,
				    (kSlots - used) * kSlot, kGuardSeed,
				    used * kSlot));
}


/*
 * Resizing: the SRQ and one receiving RC QP on the remote side, a sender on
 * the local one.
 */
class SrqResizeTest : public VerbsTest {
protected:
	static constexpr size_t kSlot = 2048;
	static constexpr size_t kMsg = 1500;	/* two packets at MTU 1024 */

	void SetUp() override
	{
		VerbsTest::SetUp();
		if (IsSkipped() || HasFatalFailure())
			return;
		if (!(peer_dev_attr_.device_cap_flags & IBV_DEVICE_SRQ_RESIZE))
			VRNIC_SKIP_OR_FAIL(cfg().remote(),
					   cfg().remote().device
						   << " does not offer SRQ resizing");
	}

	/* The SRQ with @max_wr receives, a receiver on it, a sender. */
	void build(uint32_t max_wr, uint32_t slots)
	{
		srq_ = std::make_shared<verbs::Srq>(pd(Side::remote), max_wr, 1);
		rcq_ = make_cq(256, Side::remote);
		verbs::QpCaps caps;

		tx_ = make_endpoint(IBV_QPT_RC, caps);
		rx_ = make_remote_endpoint(IBV_QPT_RC, caps, {}, rcq_, srq_);
		connect(tx_, rx_);
		rbuf_ = make_remote_mr(slots * kSlot);
		fill_pattern(rbuf_->data(), rbuf_->length(), kGuardSeed);
		src_ = make_mr(kMsg, IBV_ACCESS_LOCAL_WRITE);
	}

	/* A receive for slot @k, wr_id @k. */
	void post(uint32_t k) { post_slot(*srq_, *rbuf_, kSlot, k); }

	/* ibv_modify_srq(IBV_SRQ_MAX_WR): its errno, 0 on success. */
	int resize(uint32_t max_wr)
	{
		ibv_srq_attr attr{};

		attr.max_wr = max_wr;
		return ibv_modify_srq(srq_->get(), &attr, IBV_SRQ_MAX_WR);
	}

	/* Message @k lands in the receive posted @k-th (send_to_slot()). */
	void send_and_expect(uint32_t k)
	{
		SCOPED_TRACE("message " + std::to_string(k));
		ibv_wc rwc{};

		ASSERT_TRUE(send_to_slot(tx_, *src_, *rcq_, *rbuf_, kSlot, kMsg,
					 k, 0x6a00, rwc));
	}

	std::shared_ptr<verbs::Srq> srq_;
	std::shared_ptr<verbs::Cq> rcq_;
	Endpoint tx_, rx_;
	std::shared_ptr<verbs::Mr> rbuf_, src_;
};

/* Growing moves the posted receives to the new ring, in order. */
TEST_F(SrqResizeTest, GrowKeepsPostedReceivesInOrder)
{
	constexpr uint32_t kBefore = 3, kAfter = 40;

	build(4, kBefore + kAfter);
	for (uint32_t k = 0; k < kBefore; k++)
		post(k);
	const uint32_t old_max = srq_->query().max_wr;

	ASSERT_EQ(resize(64), 0) << "ibv_modify_srq(IBV_SRQ_MAX_WR 64)";
	const uint32_t new_max = srq_->query().max_wr;

	EXPECT_GE(new_max, 64u);
	EXPECT_GT(new_max, old_max);
	/* More receives than the old ring could hold: the new ring is mapped. */
	for (uint32_t k = kBefore; k < kBefore + kAfter; k++)
		post(k);
	for (uint32_t k = 0; k < kBefore + kAfter; k++) {
		send_and_expect(k);
		if (HasFatalFailure())
			return;
	}
	const uint32_t used = kBefore + kAfter;

	EXPECT_TRUE(matches_pattern(rbuf_->data() + used * kSlot - kSlot + kMsg,
				    kSlot - kMsg, kGuardSeed,
				    used * kSlot - kSlot + kMsg))
		<< "bytes past the last message were written";
}

/*
 * Shrinking to fewer slots than receives are waiting is refused with
 * EINVAL and leaves the SRQ as it was; shrinking to room for
 * them moves them along; a size above max_srq_wr is EINVAL.
 */
TEST_F(SrqResizeTest, ShrinkBelowPostedRefusedAboveKeeps)
{
	build(64, 8);
	for (uint32_t k = 0; k < 6; k++)
		post(k);
	const uint32_t before = srq_->query().max_wr;

	EXPECT_EQ(resize(2), EINVAL) << "6 receives wait; 2 slots cannot hold them";
	EXPECT_EQ(srq_->query().max_wr, before) << "a refused resize changed the SRQ";
	EXPECT_EQ(resize(peer_dev_attr_.max_srq_wr + 1), EINVAL)
		<< "max_wr above the device's max_srq_wr " << peer_dev_attr_.max_srq_wr;
	EXPECT_EQ(srq_->query().max_wr, before);

	ASSERT_EQ(resize(7), 0) << "ibv_modify_srq(IBV_SRQ_MAX_WR 7) with 6 waiting";
	EXPECT_GE(srq_->query().max_wr, 7u);
	EXPECT_LT(srq_->query().max_wr, before);
	for (uint32_t k = 0; k < 6; k++) {
		send_and_expect(k);
		if (HasFatalFailure())
			return;
	}
	/* The shrunk ring takes new receives. */
	post(6);
	post(7);
	for (uint32_t k = 6; k < 8; k++) {
		send_and_expect(k);
		if (HasFatalFailure())
			return;
	}
}

} // namespace
} // namespace vrnic::test
