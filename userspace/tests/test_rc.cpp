// SPDX-License-Identifier: GPL-2.0-only
/*
 * SEND/RECV on connected QPs: RC across message sizes, scatter/gather,
 * immediate data, inline data, many outstanding WRs; UC SEND and WRITE.
 */

#include "fixture.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <cstring>
#include <vector>

namespace vrnic::test {
namespace {

using verbs::Mr;

/* A receive into [kGuard, kGuard + size + kGuard) of a guard-filled MR. */
struct GuardedRecv {
	std::shared_ptr<Mr> mr;
	size_t size;

	uint8_t *payload() const { return mr->data() + kGuard; }

	/* Front guard, payload under seed, and the unused tail of the SGE. */
	void expect_payload(uint32_t seed) const
	{
		EXPECT_TRUE(matches_pattern(mr->data(), kGuard, kGuardSeed, 0))
			<< "bytes before the receive SGE were written";
		EXPECT_TRUE(matches_pattern(payload(), size, seed))
			<< "payload of " << size << " bytes";
		EXPECT_TRUE(matches_pattern(payload() + size, kGuard, kGuardSeed,
					    kGuard + size))
			<< "bytes past the message (inside the SGE) were written";
	}
};

class RcTest : public VerbsTest {
protected:
	/* The receive buffer is registered on qp's PD (qp's side). */
	GuardedRecv post_guarded_recv(const verbs::Qp &qp, size_t size,
				      uint64_t wr_id)
	{
		GuardedRecv r{std::make_shared<Mr>(
				      qp.pd(),
				      std::make_shared<verbs::Buffer>(
					      kGuard + size + kGuard),
				      kMrAccess),
			      size};
		ibv_sge s = verbs::sge(*r.mr, kGuard, size + kGuard);
		ibv_recv_wr wr{};

		fill_pattern(r.mr->data(), r.mr->length(), kGuardSeed);
		wr.wr_id = wr_id;
		wr.sg_list = &s;
		wr.num_sge = 1;
		verbs::post_recv(qp, wr);
		return r;
	}

	void post_send(const verbs::Qp &qp, const Mr &src, size_t size,
		       uint64_t wr_id, ibv_wr_opcode opcode = IBV_WR_SEND,
		       uint32_t imm = 0, unsigned flags = IBV_SEND_SIGNALED)
	{
		ibv_sge s = verbs::sge(src, 0, static_cast<uint32_t>(size));
		ibv_send_wr wr{};

		wr.wr_id = wr_id;
		wr.sg_list = size ? &s : nullptr;
		wr.num_sge = size ? 1 : 0;
		wr.opcode = opcode;
		wr.send_flags = flags;
		wr.imm_data = imm;
		verbs::post_send(qp, wr);
	}
};

class RcSendRecv : public RcTest,
		   public ::testing::WithParamInterface<size_t> {};

TEST_P(RcSendRecv, Size)
{
	const size_t size = GetParam();
	const uint32_t seed = static_cast<uint32_t>(size) * 31 + 1;
	QpPair p = make_pair();
	auto src = make_mr(size, IBV_ACCESS_LOCAL_WRITE);
	GuardedRecv dst = post_guarded_recv(*p.b.qp, size, 2);

	fill_pattern(src->data(), size, seed);
	post_send(*p.a.qp, *src, size, 1);

	ibv_wc swc = poll_one(*p.a.send_cq, "SEND completion");
	EXPECT_TRUE(wc_ok(swc, IBV_WC_SEND, 1));
	EXPECT_EQ(swc.qp_num, p.a.qp->num());

	ibv_wc rwc = poll_one(*p.b.recv_cq, "RECV completion");
	ASSERT_TRUE(wc_ok(rwc, IBV_WC_RECV, 2));
	EXPECT_EQ(rwc.byte_len, size);
	EXPECT_EQ(rwc.qp_num, p.b.qp->num());
	EXPECT_FALSE(rwc.wc_flags & IBV_WC_WITH_IMM) << describe(rwc);
	dst.expect_payload(seed);
	/* The source is only read. */
	EXPECT_TRUE(matches_pattern(src->data(), size, seed));
}

INSTANTIATE_TEST_SUITE_P(Sizes, RcSendRecv, ::testing::ValuesIn(kMessageSizes),
			 SizeParamName());

TEST_F(RcTest, SendGather3ScatterInto2)
{
	/* Send SGEs from two MRs, gathered; received into two SGEs. */
	constexpr uint32_t s_off[3] = {100, 300, 2000};
	constexpr uint32_t s_len[3] = {1000, 3000, 5000};
	constexpr size_t total = 1000 + 3000 + 5000;
	constexpr uint32_t r_off[2] = {64, 8192};
	constexpr uint32_t r_len[2] = {4500, 6000};
	const uint32_t seed = 0x5c47;

	verbs::QpCaps caps;
	caps.max_send_sge = 3;
	caps.max_recv_sge = 2;
	QpPair p = make_pair(IBV_QPT_RC, caps);

	auto mr_a = make_mr(8192, IBV_ACCESS_LOCAL_WRITE);
	auto mr_b = make_mr(8192, IBV_ACCESS_LOCAL_WRITE);
	const Mr *s_mr[3] = {mr_a.get(), mr_b.get(), mr_a.get()};
	auto dst = make_remote_mr(16384);

	fill_pattern(dst->data(), dst->length(), kGuardSeed);
	ibv_sge rs[2];
	for (int i = 0; i < 2; i++)
		rs[i] = verbs::sge(*dst, r_off[i], r_len[i]);
	ibv_recv_wr rwr{};
	rwr.wr_id = 20;
	rwr.sg_list = rs;
	rwr.num_sge = 2;
	verbs::post_recv(*p.b.qp, rwr);

	ibv_sge ss[3];
	uint64_t msg_off = 0;
	for (int i = 0; i < 3; i++) {
		fill_pattern(s_mr[i]->data() + s_off[i], s_len[i], seed, msg_off);
		ss[i] = verbs::sge(*s_mr[i], s_off[i], s_len[i]);
		msg_off += s_len[i];
	}
	ibv_send_wr wr{};
	wr.wr_id = 10;
	wr.sg_list = ss;
	wr.num_sge = 3;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED;
	verbs::post_send(*p.a.qp, wr);

	EXPECT_TRUE(wc_ok(poll_one(*p.a.send_cq, "SEND"), IBV_WC_SEND, 10));
	ibv_wc rwc = poll_one(*p.b.recv_cq, "RECV");
	ASSERT_TRUE(wc_ok(rwc, IBV_WC_RECV, 20));
	EXPECT_EQ(rwc.byte_len, total);

	const uint8_t *d = dst->data();
	const size_t first = r_len[0], second = total - r_len[0];

	EXPECT_TRUE(matches_pattern(d, r_off[0], kGuardSeed, 0)) << "before SGE 0";
	EXPECT_TRUE(matches_pattern(d + r_off[0], first, seed, 0)) << "SGE 0";
	EXPECT_TRUE(matches_pattern(d + r_off[0] + first,
				    r_off[1] - (r_off[0] + first), kGuardSeed,
				    r_off[0] + first))
		<< "gap between the SGEs";
	EXPECT_TRUE(matches_pattern(d + r_off[1], second, seed, first))
		<< "SGE 1";
	EXPECT_TRUE(matches_pattern(d + r_off[1] + second,
				    dst->length() - (r_off[1] + second),
				    kGuardSeed, r_off[1] + second))
		<< "unused tail of SGE 1 and beyond";
}

TEST_F(RcTest, SendWithImmediate)
{
	QpPair p = make_pair();

	/* 0 bytes (immediate only), one packet, and several packets. */
	const size_t sizes[] = {0, 1, 4097};
	for (size_t i = 0; i < std::size(sizes); i++) {
		const size_t size = sizes[i];
		SCOPED_TRACE("size " + std::to_string(size));
		const uint32_t seed = 0x1a00 + static_cast<uint32_t>(i);
		const uint32_t imm = htonl(0xa1b2c3d0u + static_cast<uint32_t>(i));
		auto src = make_mr(std::max<size_t>(size, 1),
				   IBV_ACCESS_LOCAL_WRITE);
		GuardedRecv dst = post_guarded_recv(*p.b.qp, size, 200 + i);

		fill_pattern(src->data(), size, seed);
		post_send(*p.a.qp, *src, size, 100 + i, IBV_WR_SEND_WITH_IMM,
			  imm);
		EXPECT_TRUE(wc_ok(poll_one(*p.a.send_cq, "SEND_WITH_IMM"),
				  IBV_WC_SEND, 100 + i));
		ibv_wc rwc = poll_one(*p.b.recv_cq, "RECV with immediate");
		ASSERT_TRUE(wc_ok(rwc, IBV_WC_RECV, 200 + i));
		EXPECT_TRUE(rwc.wc_flags & IBV_WC_WITH_IMM) << describe(rwc);
		/* imm_data is passed through in network byte order. */
		EXPECT_EQ(rwc.imm_data, imm) << describe(rwc);
		EXPECT_EQ(rwc.byte_len, size);
		dst.expect_payload(seed);
	}
}

TEST_F(RcTest, SendInline)
{
	constexpr size_t size = 64;
	verbs::QpCaps caps;
	caps.max_inline_data = size;
	QpPair p = make_pair(IBV_QPT_RC, caps);

	ibv_qp_init_attr init{};
	p.a.qp->query(IBV_QP_CAP, &init);
	EXPECT_GE(init.cap.max_inline_data, size);

	/* Inline data comes from unregistered memory and is copied at post. */
	std::vector<uint8_t> src(size);
	GuardedRecv dst = post_guarded_recv(*p.b.qp, size, 2);

	fill_pattern(src.data(), size, 0x1771);
	ibv_sge s{};
	s.addr = reinterpret_cast<uintptr_t>(src.data());
	s.length = size;
	s.lkey = 0;
	ibv_send_wr wr{};
	wr.wr_id = 1;
	wr.sg_list = &s;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE;
	verbs::post_send(*p.a.qp, wr);
	/* The buffer may be reused as soon as ibv_post_send returns. */
	std::memset(src.data(), 0, size);

	EXPECT_TRUE(wc_ok(poll_one(*p.a.send_cq, "inline SEND"), IBV_WC_SEND, 1));
	ibv_wc rwc = poll_one(*p.b.recv_cq, "RECV of inline SEND");
	ASSERT_TRUE(wc_ok(rwc, IBV_WC_RECV, 2));
	EXPECT_EQ(rwc.byte_len, size);
	dst.expect_payload(0x1771);
}

TEST_F(RcTest, ManyOutstandingInOrder)
{
	constexpr int n = 16;
	constexpr size_t size = 2048 + 13;
	QpPair p = make_pair();
	auto src = make_mr(n * size, IBV_ACCESS_LOCAL_WRITE);
	auto dst = make_remote_mr(n * size);

	fill_pattern(dst->data(), dst->length(), kGuardSeed);
	for (int i = 0; i < n; i++) {
		ibv_sge r = verbs::sge(*dst, i * size, size);
		ibv_recv_wr rwr{};

		rwr.wr_id = 1000 + i;
		rwr.sg_list = &r;
		rwr.num_sge = 1;
		verbs::post_recv(*p.b.qp, rwr);
		fill_pattern(src->data() + i * size, size, 0x300 + i);
	}

	/* One chain of n WRs in a single ibv_post_send. */
	std::vector<ibv_sge> sges(n);
	std::vector<ibv_send_wr> wrs(n);
	for (int i = 0; i < n; i++) {
		sges[i] = verbs::sge(*src, i * size, size);
		wrs[i] = {};
		wrs[i].wr_id = i;
		wrs[i].sg_list = &sges[i];
		wrs[i].num_sge = 1;
		wrs[i].opcode = IBV_WR_SEND;
		wrs[i].send_flags = IBV_SEND_SIGNALED;
		wrs[i].next = i + 1 < n ? &wrs[i + 1] : nullptr;
	}
	verbs::post_send(*p.a.qp, wrs[0]);

	auto swcs = poll_n(*p.a.send_cq, n, "chained SEND completions");
	auto rwcs = poll_n(*p.b.recv_cq, n, "RECV completions");
	for (int i = 0; i < n; i++) {
		SCOPED_TRACE("message " + std::to_string(i));
		EXPECT_TRUE(wc_ok(swcs[i], IBV_WC_SEND, i));
		EXPECT_TRUE(wc_ok(rwcs[i], IBV_WC_RECV, 1000 + i));
		EXPECT_EQ(rwcs[i].byte_len, size);
		EXPECT_TRUE(matches_pattern(dst->data() + i * size, size,
					    0x300 + i));
	}
}

/* UC: no ACKs, so completion on the sender says nothing about delivery. */
TEST_F(RcTest, UcSendAndWrite)
{
	constexpr size_t size = 4097;
	QpPair p = make_pair(IBV_QPT_UC);
	auto src = make_mr(2 * size, IBV_ACCESS_LOCAL_WRITE);
	auto target = make_remote_mr(kGuard + size + kGuard);
	GuardedRecv dst = post_guarded_recv(*p.b.qp, size, 7);

	fill_pattern(target->data(), target->length(), kGuardSeed);
	fill_pattern(src->data(), size, 0x0c1);
	fill_pattern(src->data() + size, size, 0x0c2);

	/* WRITE then SEND: the RECV completion implies the WRITE landed. */
	ibv_sge ws = verbs::sge(*src, 0, size);
	ibv_send_wr w{};
	w.wr_id = 1;
	w.sg_list = &ws;
	w.num_sge = 1;
	w.opcode = IBV_WR_RDMA_WRITE;
	w.send_flags = IBV_SEND_SIGNALED;
	w.wr.rdma.remote_addr = target->addr() + kGuard;
	w.wr.rdma.rkey = target->rkey();

	ibv_sge ss = verbs::sge(*src, size, size);
	ibv_send_wr s{};
	s.wr_id = 2;
	s.sg_list = &ss;
	s.num_sge = 1;
	s.opcode = IBV_WR_SEND;
	s.send_flags = IBV_SEND_SIGNALED;
	w.next = &s;
	verbs::post_send(*p.a.qp, w);

	auto swcs = poll_n(*p.a.send_cq, 2, "UC WRITE and SEND");
	EXPECT_TRUE(wc_ok(swcs[0], IBV_WC_RDMA_WRITE, 1));
	EXPECT_TRUE(wc_ok(swcs[1], IBV_WC_SEND, 2));
	ibv_wc rwc = poll_one(*p.b.recv_cq, "UC RECV");
	ASSERT_TRUE(wc_ok(rwc, IBV_WC_RECV, 7));
	EXPECT_EQ(rwc.byte_len, size);
	dst.expect_payload(0x0c2);
	EXPECT_TRUE(matches_pattern(target->data(), kGuard, kGuardSeed));
	EXPECT_TRUE(matches_pattern(target->data() + kGuard, size, 0x0c1));
	EXPECT_TRUE(matches_pattern(target->data() + kGuard + size, kGuard,
				    kGuardSeed, kGuard + size));
}

} // namespace
} // namespace vrnic::test
