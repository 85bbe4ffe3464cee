// SPDX-License-Identifier: GPL-2.0-only
/*
 * Shared receive queue: two RC QPs draw their receives from one SRQ, and the
 * SRQ limit raises IBV_EVENT_SRQ_LIMIT_REACHED once it is crossed.
 */

#include "fixture.hpp"

namespace vrnic::test {
namespace {

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
	for (uint32_t i = 0; i < kSlots; i++) {
		ibv_sge s = verbs::sge(*rbuf, i * kSlot, kSlot);
		ibv_recv_wr wr{};

		wr.wr_id = i;
		wr.sg_list = &s;
		wr.num_sge = 1;
		verbs::post_srq_recv(*srq, wr);
	}

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
		ibv_sge s = verbs::sge(*src, 0, kMsg);
		ibv_send_wr wr{};

		fill_pattern(src->data(), kMsg, 0x5400 + k);
		wr.wr_id = 100 + k;
		wr.sg_list = &s;
		wr.num_sge = 1;
		wr.opcode = IBV_WR_SEND;
		wr.send_flags = IBV_SEND_SIGNALED;
		verbs::post_send(*tx.qp, wr);

		ASSERT_TRUE(wc_ok(poll_one(*tx.send_cq, "SEND"), IBV_WC_SEND,
				  100 + k));
		ibv_wc rwc = poll_one(*rcq, "RECV through the SRQ");
		ASSERT_TRUE(wc_ok(rwc, IBV_WC_RECV, k));
		EXPECT_EQ(rwc.qp_num, rx.qp->num()) << "delivered to the wrong QP";
		EXPECT_EQ(rwc.byte_len, kMsg);
		EXPECT_TRUE(matches_pattern(rbuf->data() + k * kSlot, kMsg,
					    0x5400 + k));

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

} // namespace
} // namespace vrnic::test
