// SPDX-License-Identifier: GPL-2.0-only
/*
 * CQ completion channel: ibv_req_notify_cq (next completion and solicited
 * only), waiting on the channel fd, ibv_get_cq_event and ibv_ack_cq_events.
 */

#include "fixture.hpp"

namespace vrnic::test {
namespace {

class CompletionChannelTest : public VerbsTest {
protected:
	void SetUp() override
	{
		VerbsTest::SetUp();
		/* The notified CQ receives, so it is on the remote side. */
		channel_ = std::make_shared<verbs::CompChannel>(
			context(Side::remote));
		rcq_ = std::make_shared<verbs::Cq>(context(Side::remote), 64,
						   channel_, &cookie_);
		a_ = make_endpoint(IBV_QPT_RC);
		b_ = make_remote_endpoint(IBV_QPT_RC, {}, {}, rcq_);
		connect(a_, b_);
		src_ = make_mr(kSize, IBV_ACCESS_LOCAL_WRITE);
		dst_ = make_remote_mr(kSize * kMaxMessages);
	}

	/* Post a receive into slot i, send message i, wait for the send. */
	void transfer(uint32_t i, unsigned extra_flags = 0)
	{
		ibv_sge r = verbs::sge(*dst_, i * kSize, kSize);
		ibv_recv_wr rwr{};

		rwr.wr_id = 50 + i;
		rwr.sg_list = &r;
		rwr.num_sge = 1;
		verbs::post_recv(*b_.qp, rwr);

		ibv_sge s = verbs::sge(*src_, 0, kSize);
		ibv_send_wr wr{};

		fill_pattern(src_->data(), kSize, 0xc0 + i);
		wr.wr_id = i;
		wr.sg_list = &s;
		wr.num_sge = 1;
		wr.opcode = IBV_WR_SEND;
		wr.send_flags = IBV_SEND_SIGNALED | extra_flags;
		verbs::post_send(*a_.qp, wr);
		ASSERT_TRUE(wc_ok(poll_one(*a_.send_cq, "SEND"), IBV_WC_SEND, i));
	}

	void expect_received(uint32_t i)
	{
		ibv_wc wc = poll_one(*rcq_, "RECV on the notified CQ");

		EXPECT_TRUE(wc_ok(wc, IBV_WC_RECV, 50 + i));
		EXPECT_EQ(wc.byte_len, kSize);
		EXPECT_TRUE(matches_pattern(dst_->data() + i * kSize, kSize,
					    0xc0 + i));
	}

	static constexpr uint32_t kSize = 512;
	static constexpr uint32_t kMaxMessages = 4;

	int cookie_ = 0;
	std::shared_ptr<verbs::CompChannel> channel_;
	std::shared_ptr<verbs::Cq> rcq_;
	Endpoint a_, b_;
	std::shared_ptr<verbs::Mr> src_, dst_;
};

TEST_F(CompletionChannelTest, NotifyNextCompletion)
{
	ASSERT_EQ(ibv_req_notify_cq(rcq_->get(), 0), 0);
	EXPECT_FALSE(fd_readable(channel_->fd(), 0ms))
		<< "channel readable before any completion";

	transfer(0);
	auto ev = wait_cq_event(*channel_, cfg().timeout);
	ASSERT_TRUE(ev) << "no CQ event within " << cfg().timeout.count()
			<< " ms";
	EXPECT_EQ(ev->cq, rcq_->get());
	EXPECT_EQ(ev->cq_context, &cookie_);
	/* The event announces a completion that is already in the CQ. */
	auto wc = try_poll(*rcq_, 0ms);
	ASSERT_TRUE(wc) << "CQ empty after its completion event";
	EXPECT_TRUE(wc_ok(*wc, IBV_WC_RECV, 50));
	EXPECT_TRUE(matches_pattern(dst_->data(), kSize, 0xc0));

	/* Notification is one-shot: without re-arming, no second event. */
	transfer(1);
	expect_received(1);
	EXPECT_FALSE(fd_readable(channel_->fd(), cfg().quiet))
		<< "CQ event without ibv_req_notify_cq";

	/* Re-armed, the next completion signals again. */
	ASSERT_EQ(ibv_req_notify_cq(rcq_->get(), 0), 0);
	transfer(2);
	ev = wait_cq_event(*channel_, cfg().timeout);
	ASSERT_TRUE(ev) << "no CQ event after re-arming";
	EXPECT_EQ(ev->cq, rcq_->get());
	expect_received(2);
}

TEST_F(CompletionChannelTest, SolicitedOnly)
{
	ASSERT_EQ(ibv_req_notify_cq(rcq_->get(), 1), 0);

	/* An unsolicited completion does not fire a solicited-only arm. */
	transfer(0);
	expect_received(0);
	EXPECT_FALSE(fd_readable(channel_->fd(), cfg().quiet))
		<< "CQ event for an unsolicited message";

	transfer(1, IBV_SEND_SOLICITED);
	auto ev = wait_cq_event(*channel_, cfg().timeout);
	ASSERT_TRUE(ev) << "no CQ event for a solicited message";
	EXPECT_EQ(ev->cq, rcq_->get());
	EXPECT_EQ(ev->cq_context, &cookie_);
	expect_received(1);
}

} // namespace
} // namespace vrnic::test
