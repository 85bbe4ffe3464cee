// SPDX-License-Identifier: GPL-2.0-only
/*
 * RC RDMA WRITE, WRITE with immediate, READ across message sizes, the
 * atomics (compare-and-swap, fetch-and-add) and ATOMIC WRITE.
 */

#include "fixture.hpp"

#include <arpa/inet.h>

#include <atomic>
#include <cstring>
#include <exception>
#include <iostream>
#include <memory>
#include <thread>

namespace vrnic::test {
namespace {

using verbs::Mr;

/*
 * A remote (or local) area [kGuard, kGuard + size) inside an MR whose other
 * bytes are guard pattern; check() verifies guards and the area.
 */
struct GuardedArea {
	std::shared_ptr<Mr> mr;
	size_t size;

	uint8_t *area() const { return mr->data() + kGuard; }
	uint64_t addr() const { return mr->addr() + kGuard; }

	void expect(uint32_t seed, const char *what) const
	{
		EXPECT_TRUE(matches_pattern(mr->data(), kGuard, kGuardSeed, 0))
			<< what << ": bytes before the area changed";
		EXPECT_TRUE(matches_pattern(area(), size, seed))
			<< what << ": " << size << " bytes";
		EXPECT_TRUE(matches_pattern(area() + size, kGuard, kGuardSeed,
					    kGuard + size))
			<< what << ": bytes after the area changed";
	}
};

class RdmaTest : public VerbsTest {
protected:
	GuardedArea guarded(size_t size, int access = kMrAccess,
			    Side side = Side::local)
	{
		GuardedArea g{make_mr(kGuard + size + kGuard, access, side),
			      size};

		fill_pattern(g.mr->data(), g.mr->length(), kGuardSeed);
		return g;
	}

	/*
	 * One RDMA READ of @size bytes from b's memory (pattern @seed) into a
	 * guarded sink of a's: the data lands whole, nothing around it, and
	 * the source is left as it was.
	 */
	void read_once(size_t size, uint32_t seed)
	{
		QpPair p = make_pair();
		GuardedArea remote = guarded(size, kMrAccess, Side::remote);
		GuardedArea sink = guarded(size, IBV_ACCESS_LOCAL_WRITE);

		fill_pattern(remote.area(), size, seed);
		ibv_sge s = verbs::sge(*sink.mr, kGuard,
				       static_cast<uint32_t>(size));
		ibv_send_wr wr = rdma_wr(IBV_WR_RDMA_READ, s, 1, remote.addr(),
					 remote.mr->rkey());
		verbs::post_send(*p.a.qp, wr);

		ibv_wc wc = poll_one(*p.a.send_cq, "RDMA READ completion");
		ASSERT_TRUE(wc_ok(wc, IBV_WC_RDMA_READ, 1));
		EXPECT_EQ(wc.byte_len, size);
		sink.expect(seed, "RDMA READ sink");
		remote.expect(seed, "RDMA READ source (must be unchanged)");
	}
};

class RdmaSize : public RdmaTest,
		 public ::testing::WithParamInterface<size_t> {};

TEST_P(RdmaSize, Write)
{
	const size_t size = GetParam();
	const uint32_t seed = static_cast<uint32_t>(size) * 7 + 3;
	QpPair p = make_pair();
	auto src = make_mr(size, IBV_ACCESS_LOCAL_WRITE);
	GuardedArea dst = guarded(size, kMrAccess, Side::remote);

	fill_pattern(src->data(), size, seed);
	ibv_sge s = verbs::sge(*src, 0, static_cast<uint32_t>(size));
	ibv_send_wr wr = rdma_wr(IBV_WR_RDMA_WRITE, s, 1, dst.addr(),
				 dst.mr->rkey());
	verbs::post_send(*p.a.qp, wr);

	ibv_wc wc = poll_one(*p.a.send_cq, "RDMA WRITE completion");
	ASSERT_TRUE(wc_ok(wc, IBV_WC_RDMA_WRITE, 1));
	/* RC: the completion means the data is placed at the responder. */
	dst.expect(seed, "RDMA WRITE target");
	/* A plain WRITE consumes no receive and makes no responder CQE. */
	auto extra = try_poll(*p.b.recv_cq, 0ms);
	EXPECT_FALSE(extra) << "unexpected " << describe(*extra);
}

TEST_P(RdmaSize, WriteWithImmediate)
{
	const size_t size = GetParam();
	const uint32_t seed = static_cast<uint32_t>(size) * 11 + 5;
	const uint32_t imm = htonl(0x1234abcdu ^ static_cast<uint32_t>(size));
	QpPair p = make_pair();
	auto src = make_mr(size, IBV_ACCESS_LOCAL_WRITE);
	GuardedArea dst = guarded(size, kMrAccess, Side::remote);

	/* WRITE with immediate consumes a receive WR (no SGE needed). */
	ibv_recv_wr rwr{};
	rwr.wr_id = 77;
	rwr.sg_list = nullptr;
	rwr.num_sge = 0;
	verbs::post_recv(*p.b.qp, rwr);

	fill_pattern(src->data(), size, seed);
	ibv_sge s = verbs::sge(*src, 0, static_cast<uint32_t>(size));
	ibv_send_wr wr = rdma_wr(IBV_WR_RDMA_WRITE_WITH_IMM, s, 1, dst.addr(),
				 dst.mr->rkey());
	wr.imm_data = imm;
	verbs::post_send(*p.a.qp, wr);

	EXPECT_TRUE(wc_ok(poll_one(*p.a.send_cq, "WRITE_WITH_IMM completion"),
			  IBV_WC_RDMA_WRITE, 1));
	ibv_wc rwc = poll_one(*p.b.recv_cq, "RECV_RDMA_WITH_IMM completion");
	ASSERT_TRUE(wc_ok(rwc, IBV_WC_RECV_RDMA_WITH_IMM, 77));
	EXPECT_TRUE(rwc.wc_flags & IBV_WC_WITH_IMM) << describe(rwc);
	EXPECT_EQ(rwc.imm_data, imm) << describe(rwc);
	EXPECT_EQ(rwc.byte_len, size);
	EXPECT_EQ(rwc.qp_num, p.b.qp->num());
	dst.expect(seed, "WRITE_WITH_IMM target");
}

TEST_P(RdmaSize, Read)
{
	const size_t size = GetParam();

	read_once(size, static_cast<uint32_t>(size) * 13 + 9);
}

INSTANTIATE_TEST_SUITE_P(Sizes, RdmaSize, ::testing::ValuesIn(kMessageSizes),
			 SizeParamName());

/* ---- atomics ---- */

/*
 * One READ work request of 3 MiB: thousands of response packets for one
 * request. A responder answers it a budget of packets (32) at a time,
 * yielding between budgets, so this crosses many rounds of its engines
 * and, from a requester that does not split READs (stock rxe's: 3072
 * responses at a 1 KiB path MTU, more than one run of the QP's work
 * sends), several runs of the QP's work: every byte must arrive, in
 * order, once. (3 MiB: 1 MiB takes 8 s across veth in the debug kernel.)
 */
TEST_F(RdmaTest, LongReadInOneWr)
{
	read_once(size_t{3} << 20, 0x16d);
}

/*
 * Two long READs and a SEND posted back to back (from a requester that
 * does not split READs, as rxe's, each is one request): the responder answers
 * the first READ a budget at a time, and takes nothing behind it until
 * its last response is out. Had it taken the second READ meanwhile, the
 * rest of the first would never be sent; had it taken the SEND, its ACK
 * would overtake the READ's responses. All three complete, in order, the
 * data intact.
 */
TEST_F(RdmaTest, LongReadsThenSendInOrder)
{
	/* 256 responses at a 1 KiB MTU: eight budgets of 32. */
	constexpr size_t big = size_t{256} << 10, small = size_t{128} << 10;
	constexpr size_t msg = 256;
	QpPair p = make_pair();
	GuardedArea r1 = guarded(big, kMrAccess, Side::remote);
	GuardedArea r2 = guarded(small, kMrAccess, Side::remote);
	GuardedArea s1 = guarded(big, IBV_ACCESS_LOCAL_WRITE);
	GuardedArea s2 = guarded(small, IBV_ACCESS_LOCAL_WRITE);
	auto out = make_mr(msg, IBV_ACCESS_LOCAL_WRITE);
	auto in = make_remote_mr(msg);

	fill_pattern(r1.area(), big, 0x2b1);
	fill_pattern(r2.area(), small, 0x2b2);
	fill_pattern(out->data(), msg, 0x2b3);
	ibv_sge rs = verbs::sge(*in, 0, msg);
	ibv_recv_wr rwr{};
	rwr.wr_id = 9;
	rwr.sg_list = &rs;
	rwr.num_sge = 1;
	verbs::post_recv(*p.b.qp, rwr);

	ibv_sge g1 = verbs::sge(*s1.mr, kGuard, static_cast<uint32_t>(big));
	ibv_sge g2 = verbs::sge(*s2.mr, kGuard, static_cast<uint32_t>(small));
	ibv_sge g3 = verbs::sge(*out, 0, msg);
	ibv_send_wr w[3] = {
		rdma_wr(IBV_WR_RDMA_READ, g1, 1, r1.addr(), r1.mr->rkey()),
		rdma_wr(IBV_WR_RDMA_READ, g2, 2, r2.addr(), r2.mr->rkey()),
		wr_of(IBV_WR_SEND, &g3, 3),
	};
	w[0].next = &w[1];
	w[1].next = &w[2];
	verbs::post_send(*p.a.qp, w[0]);

	auto wcs = poll_n(*p.a.send_cq, 3, "two READs and a SEND");
	EXPECT_TRUE(wc_ok(wcs[0], IBV_WC_RDMA_READ, 1));
	EXPECT_TRUE(wc_ok(wcs[1], IBV_WC_RDMA_READ, 2));
	EXPECT_TRUE(wc_ok(wcs[2], IBV_WC_SEND, 3));
	s1.expect(0x2b1, "the first READ's sink");
	s2.expect(0x2b2, "the second READ's sink");
	ibv_wc rwc = poll_one(*p.b.recv_cq, "the SEND's receive");
	ASSERT_TRUE(wc_ok(rwc, IBV_WC_RECV, 9));
	EXPECT_TRUE(matches_pattern(in->data(), msg, 0x2b3));
}

/*
 * An MR deregistered while a long READ of it is answered (issue 17, item
 * 6): the responder must stop sending its bytes. a READs 3 MiB in one WR
 * (one request when a does not split READs, as rxe's requester); once the
 * first bytes have landed, b deregisters the MR and writes a secret over
 * the memory it still owns. No secret byte may reach a, and a READ cut
 * short fails with a remote access error. A READ that finished before
 * the deregistration tested nothing, so it is tried again, up to 3
 * times, and one try must be cut. A responder that checked the R_Key
 * once per READ request went on sending the pages it no longer had.
 */
TEST_F(RdmaTest, DeregisteredDuringLongReadIsCut)
{
	constexpr size_t size = size_t{3} << 20;
	constexpr uint32_t seed = 0x6d1, secret = 0x5ec;

	expect_read_cut([&](ReadEnd &end) {
		QpPair p = make_pair();
		auto mem = std::make_shared<verbs::Buffer>(size);
		auto src = std::make_unique<Mr>(pd(Side::remote), mem, kMrAccess);
		GuardedArea sink = guarded(size, IBV_ACCESS_LOCAL_WRITE);

		fill_pattern(mem->data(), size, seed);
		ibv_sge s = verbs::sge(*sink.mr, kGuard,
				       static_cast<uint32_t>(size));
		ibv_send_wr wr = rdma_wr(IBV_WR_RDMA_READ, s, 1, src->addr(),
					 src->rkey());
		verbs::post_send(*p.a.qp, wr);

		wait_first_bytes(sink.area(), kGuard);
		src.reset();
		fill_pattern(mem->data(), size, secret);

		ibv_wc wc = poll_one(*p.a.send_cq, "the READ's completion");
		end = judge_revoked_read(wc, sink.area(), size, seed, secret,
					 kGuard, "deregistered", *p.b.qp);
		if (end == ReadEnd::kWhole)
			sink.expect(seed, "a READ that ended before the deregistration");
	}, "deregistered");
}

/*
 * IBA 10.3.1, 11.6.3: in SQD the send queue finishes the messages it had
 * begun and begins no other; with IBV_QP_EN_SQD_ASYNC_NOTIFY it raises
 * IBV_EVENT_SQ_DRAINED once they are complete.  WRITEs posted before the
 * move complete in order up to some k (those begun), the one posted in
 * SQD does not run: no completion, its target untouched.  Back in RTS
 * the rest run, every byte in place.
 */
TEST_F(RdmaTest, SqdDrainedEventAfterBegunWritesComplete)
{
	constexpr size_t size = 64 * 1024;
	constexpr int kWrites = 8;
	constexpr uint32_t seed = 0x5d7;
	QpPair p = make_pair();
	GuardedArea src = guarded(size * (kWrites + 1), IBV_ACCESS_LOCAL_WRITE);
	GuardedArea dst = guarded(size * (kWrites + 1), kMrAccess, Side::remote);

	fill_pattern(src.area(), src.size, seed);
	auto post = [&](int i) {
		ibv_sge s = verbs::sge(*src.mr, kGuard + i * size,
				       static_cast<uint32_t>(size));
		ibv_send_wr wr = rdma_wr(IBV_WR_RDMA_WRITE, s, 100 + i,
					 dst.addr() + i * size, dst.mr->rkey());

		verbs::post_send(*p.a.qp, wr);
	};
	for (int i = 0; i < kWrites; i++)
		post(i);
	ibv_qp_attr a{};
	a.qp_state = IBV_QPS_SQD;
	a.en_sqd_async_notify = 1;
	p.a.qp->modify(a, IBV_QP_STATE | IBV_QP_EN_SQD_ASYNC_NOTIFY);
	post(kWrites);		/* posted in SQD: must wait for RTS */

	std::vector<std::string> other;
	auto ev = wait_async_event(*context(Side::local), IBV_EVENT_SQ_DRAINED,
				   cfg().timeout, &other);
	ASSERT_TRUE(ev.has_value()) << "no IBV_EVENT_SQ_DRAINED within the timeout";
	EXPECT_EQ(ev->element.qp, p.a.qp->get());
	EXPECT_TRUE(other.empty()) << "other events: " << other.front();

	/* Drained: what had begun is complete, nothing else ran. */
	int done = 0;
	while (auto wc = try_poll(*p.a.send_cq, milliseconds(200))) {
		ASSERT_TRUE(wc_ok(*wc, IBV_WC_RDMA_WRITE, 100 + done));
		done++;
	}
	std::printf("%d of %d WRITEs had begun before SQD\n", done, kWrites);
	EXPECT_LT(done, kWrites + 1) << "the WRITE posted in SQD ran";
	EXPECT_TRUE(matches_pattern(dst.area() + kWrites * size, size,
				    kGuardSeed, kGuard + kWrites * size))
		<< "the WRITE posted in SQD reached the target";

	a = {};
	a.qp_state = IBV_QPS_RTS;
	p.a.qp->modify(a, IBV_QP_STATE);
	for (; done < kWrites + 1; done++)
		ASSERT_TRUE(wc_ok(poll_one(*p.a.send_cq, "a WRITE after SQD"),
				  IBV_WC_RDMA_WRITE, 100 + done));
	dst.expect(seed, "every WRITE, before and after SQD");
}

/*
 * IBA 10.3.1 lets SQD->SQD change the address vector, and in SQD the
 * responder still answers: the peer's READs are answered while a's AV is
 * set again and again (to the same path, so every response still goes to
 * the peer). The engines send with the AV unlocked; the change must never
 * be seen half done, nor its old source GID reference dropped while a
 * response is built with it. Every READ completes with its data, and the
 * QP sends again once back in RTS.
 */
TEST_F(RdmaTest, SqdAddressVectorChangeWhileAnswering)
{
	constexpr size_t size = 64 * 1024;
	constexpr int kReads = 48, kDepth = 8, kChanges = 64;
	constexpr uint32_t seed = 0x5d0;
	QpPair p = make_pair();
	GuardedArea src = guarded(size);		/* a's memory, read by b */
	auto sink = make_remote_mr(size, IBV_ACCESS_LOCAL_WRITE);
	ibv_qp_attr a{};

	fill_pattern(src.area(), size, seed);
	a.qp_state = IBV_QPS_SQD;
	p.a.qp->modify(a, IBV_QP_STATE);

	std::atomic<bool> stop{false};
	std::exception_ptr failed;
	std::thread changer([&] {
		try {
			for (int i = 0; i < kChanges && !stop; i++) {
				ibv_qp_attr c{};

				c.qp_state = IBV_QPS_SQD;
				c.ah_attr = ah_attr(Side::local, Side::remote);
				p.a.qp->modify(c, IBV_QP_STATE | IBV_QP_AV);
			}
		} catch (...) {
			failed = std::current_exception();
		}
	});
	int posted = 0, done = 0;
	try {
		while (done < kReads) {
			while (posted < kReads && posted - done < kDepth) {
				ibv_sge s = verbs::sge(*sink, 0,
						       static_cast<uint32_t>(size));
				ibv_send_wr wr = rdma_wr(IBV_WR_RDMA_READ, s,
							 100 + posted, src.addr(),
							 src.mr->rkey());

				verbs::post_send(*p.b.qp, wr);
				posted++;
			}
			ibv_wc wc = poll_one(*p.b.send_cq, "READ answered in SQD");
			ASSERT_TRUE(wc_ok(wc, IBV_WC_RDMA_READ, 100 + done));
			done++;
		}
	} catch (...) {
		stop = true;
		changer.join();
		throw;
	}
	stop = true;
	changer.join();
	if (failed)
		std::rethrow_exception(failed);
	EXPECT_TRUE(matches_pattern(sink->data(), size, seed))
		<< "the last READ's data";

	a = {};
	a.qp_state = IBV_QPS_RTS;
	p.a.qp->modify(a, IBV_QP_STATE);
	auto out = make_mr(size, IBV_ACCESS_LOCAL_WRITE);
	GuardedArea dst = guarded(size, kMrAccess, Side::remote);
	fill_pattern(out->data(), size, seed + 1);
	ibv_sge s = verbs::sge(*out, 0, static_cast<uint32_t>(size));
	ibv_send_wr wr = rdma_wr(IBV_WR_RDMA_WRITE, s, 1, dst.addr(),
				 dst.mr->rkey());
	verbs::post_send(*p.a.qp, wr);
	EXPECT_TRUE(wc_ok(poll_one(*p.a.send_cq, "WRITE after SQD"),
			  IBV_WC_RDMA_WRITE, 1));
	dst.expect(seed + 1, "WRITE after SQD");
}

class AtomicTest : public RdmaTest {
protected:
	/* Remote: 8 words; the target word is index kWord. */
	static constexpr size_t kWords = 8;
	static constexpr size_t kWord = 3;

	void SetUp() override
	{
		VerbsTest::SetUp();
		if (dev_attr_.atomic_cap == IBV_ATOMIC_NONE)
			VRNIC_SKIP_OR_FAIL(cfg(), cfg().device
				<< " reports atomic_cap IBV_ATOMIC_NONE");
		if (peer_dev_attr_.atomic_cap == IBV_ATOMIC_NONE)
			VRNIC_SKIP_OR_FAIL(cfg().remote(), cfg().remote().device
				<< " (responder) reports atomic_cap "
				   "IBV_ATOMIC_NONE");
		pair_ = make_pair();
		remote_ = make_remote_mr(kWords * 8,
					 IBV_ACCESS_LOCAL_WRITE |
						 IBV_ACCESS_REMOTE_ATOMIC);
		result_ = make_mr(kWords * 8, IBV_ACCESS_LOCAL_WRITE);
		fill_pattern(remote_->data(), remote_->length(), kGuardSeed);
		fill_pattern(result_->data(), result_->length(), kGuardSeed + 1);
	}

	void set_word(uint64_t v) { std::memcpy(word_ptr(), &v, 8); }
	uint64_t word() const
	{
		uint64_t v;
		std::memcpy(&v, word_ptr(), 8);
		return v;
	}
	uint8_t *word_ptr() const { return remote_->data() + kWord * 8; }
	uint64_t result(size_t slot) const
	{
		uint64_t v;
		std::memcpy(&v, result_->data() + slot * 8, 8);
		return v;
	}

	ibv_send_wr atomic_wr(ibv_wr_opcode op, ibv_sge &s, uint64_t wr_id,
			      uint64_t compare_add, uint64_t swap) const
	{
		ibv_send_wr wr{};

		wr.wr_id = wr_id;
		wr.sg_list = &s;
		wr.num_sge = 1;
		wr.opcode = op;
		wr.send_flags = IBV_SEND_SIGNALED;
		wr.wr.atomic.remote_addr = remote_->addr() + kWord * 8;
		wr.wr.atomic.compare_add = compare_add;
		wr.wr.atomic.swap = swap;
		wr.wr.atomic.rkey = remote_->rkey();
		return wr;
	}

	/* The other words of the remote MR are untouched. */
	void expect_neighbours() const
	{
		EXPECT_TRUE(matches_pattern(remote_->data(), kWord * 8,
					    kGuardSeed, 0))
			<< "words before the target changed";
		EXPECT_TRUE(matches_pattern(word_ptr() + 8,
					    (kWords - kWord - 1) * 8, kGuardSeed,
					    (kWord + 1) * 8))
			<< "words after the target changed";
	}

	QpPair pair_;
	std::shared_ptr<Mr> remote_;
	std::shared_ptr<Mr> result_;
};

TEST_F(AtomicTest, CompareSwapMatch)
{
	const uint64_t orig = 0x0123456789abcdefull;
	const uint64_t swap = 0xfedcba9876543210ull;

	set_word(orig);
	ibv_sge s = verbs::sge(*result_, 0, 8);
	ibv_send_wr wr = atomic_wr(IBV_WR_ATOMIC_CMP_AND_SWP, s, 1, orig, swap);
	verbs::post_send(*pair_.a.qp, wr);

	ibv_wc wc = poll_one(*pair_.a.send_cq, "CMP_AND_SWP completion");
	ASSERT_TRUE(wc_ok(wc, IBV_WC_COMP_SWAP, 1));
	EXPECT_EQ(wc.byte_len, 8u);
	EXPECT_EQ(result(0), orig) << "original value returned";
	EXPECT_EQ(word(), swap) << "memory swapped";
	expect_neighbours();
	EXPECT_TRUE(matches_pattern(result_->data() + 8, result_->length() - 8,
				    kGuardSeed + 1, 8))
		<< "only 8 bytes of the local buffer are written";
}

TEST_F(AtomicTest, CompareSwapMismatch)
{
	const uint64_t orig = 0x0123456789abcdefull;

	set_word(orig);
	ibv_sge s = verbs::sge(*result_, 0, 8);
	ibv_send_wr wr = atomic_wr(IBV_WR_ATOMIC_CMP_AND_SWP, s, 1, orig ^ 1,
				   0xdeadbeefdeadbeefull);
	verbs::post_send(*pair_.a.qp, wr);

	ibv_wc wc = poll_one(*pair_.a.send_cq, "CMP_AND_SWP completion");
	ASSERT_TRUE(wc_ok(wc, IBV_WC_COMP_SWAP, 1));
	EXPECT_EQ(result(0), orig) << "original value returned";
	EXPECT_EQ(word(), orig) << "memory must not change on a mismatch";
	expect_neighbours();
}

TEST_F(AtomicTest, FetchAdd)
{
	struct Case {
		uint64_t orig, add;
	} cases[] = {
		{0x00000000fffffff0ull, 0x20},	/* carry across 32 bits */
		{0xffffffffffffffffull, 1},	/* wraps to 0 */
		{0x1000, 0xfffffffffffff000ull}, /* adding -0x1000 */
	};

	for (size_t i = 0; i < std::size(cases); i++) {
		SCOPED_TRACE("case " + std::to_string(i));
		set_word(cases[i].orig);
		ibv_sge s = verbs::sge(*result_, i * 8, 8);
		ibv_send_wr wr = atomic_wr(IBV_WR_ATOMIC_FETCH_AND_ADD, s, i,
					   cases[i].add, 0);
		verbs::post_send(*pair_.a.qp, wr);

		ibv_wc wc = poll_one(*pair_.a.send_cq, "FETCH_AND_ADD completion");
		ASSERT_TRUE(wc_ok(wc, IBV_WC_FETCH_ADD, i));
		EXPECT_EQ(wc.byte_len, 8u);
		EXPECT_EQ(result(i), cases[i].orig) << "original value returned";
		EXPECT_EQ(word(), cases[i].orig + cases[i].add);
	}
	expect_neighbours();
}

/*
 * Atomics on QPs set up as rdma-core's tests/test_atomic.py sets them up
 * (issue 18 saw them hang): the QPs' and MRs' access is LOCAL_WRITE |
 * REMOTE_ATOMIC only, no remote read or write; each QP has one CQ for
 * its send and receive queues and a send queue of one WQE; compare and
 * swap and fetch and add alternate, each waited for before the next.
 */
TEST_F(AtomicTest, AtomicOnlyAccessOneWqeSq)
{
	constexpr int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_ATOMIC;
	verbs::QpCaps caps;
	caps.max_send_wr = 1;
	caps.max_send_sge = 1;
	caps.max_recv_sge = 1;
	auto cq_a = make_cq(256, Side::local);
	auto cq_b = make_cq(256, Side::remote);
	Endpoint a = make_endpoint(IBV_QPT_RC, caps, cq_a, cq_a);
	Endpoint b = make_remote_endpoint(IBV_QPT_RC, caps, cq_b, cq_b);
	connect(a, b, kRnrRetry, access);
	/* The target is remote_, whose access is already just this. */
	auto local = make_mr(8, access);
	uint64_t expect = 0x0101010101010101ull;

	set_word(expect);
	for (uint64_t i = 0; i < 10; i++) {
		SCOPED_TRACE("iteration " + std::to_string(i));
		const bool cas = i % 2;
		const uint64_t add = 0x0202020202020202ull;
		const uint64_t next = cas ? expect ^ 0xff00ff00ff00ff00ull :
					    expect + add;
		ibv_sge s = verbs::sge(*local, 0, 8);
		ibv_send_wr wr = cas ? atomic_wr(IBV_WR_ATOMIC_CMP_AND_SWP, s, i,
						 expect, next) :
				       atomic_wr(IBV_WR_ATOMIC_FETCH_AND_ADD, s, i,
						 add, 0);
		verbs::post_send(*a.qp, wr);

		ibv_wc wc = poll_one(*cq_a, "atomic completion");
		ASSERT_TRUE(wc_ok(wc, cas ? IBV_WC_COMP_SWAP : IBV_WC_FETCH_ADD,
				  i));
		uint64_t got;
		std::memcpy(&got, local->data(), 8);
		EXPECT_EQ(got, expect) << "original value returned";
		EXPECT_EQ(word(), next) << "target after the atomic";
		expect = next;
	}
}

/*
 * A zero-length RDMA READ posted through the extended API, with an SGE of
 * length 0 as ibv_wr_set_sge() gives it (issue 18 saw it hang): it
 * completes, moves nothing, and the QP carries a real READ after it.
 */
TEST_F(VerbsTest, ZeroLengthReadExtendedApi)
{
	verbs::QpCaps caps;
	caps.send_ops_flags = IBV_QP_EX_WITH_RDMA_READ;
	QpPair p = make_pair(IBV_QPT_RC, caps);
	auto remote = make_remote_mr(64, kMrAccess);
	auto local = make_mr(64, IBV_ACCESS_LOCAL_WRITE);
	ibv_qp_ex *qpx = p.a.qp->ex();

	fill_pattern(remote->data(), 64, 0x51);
	fill_pattern(local->data(), 64, kGuardSeed);
	for (uint32_t len : {0u, 64u}) {
		SCOPED_TRACE("length " + std::to_string(len));
		ibv_wr_start(qpx);
		qpx->wr_id = len + 1;
		qpx->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_rdma_read(qpx, remote->rkey(), remote->addr());
		ibv_wr_set_sge(qpx, local->lkey(), local->addr(), len);
		const int err = verbs::verbs_errno(ibv_wr_complete(qpx));
		ASSERT_EQ(err, 0) << "ibv_wr_complete: " << std::strerror(err);

		ibv_wc wc = poll_one(*p.a.send_cq, "RDMA READ completion");
		ASSERT_TRUE(wc_ok(wc, IBV_WC_RDMA_READ, len + 1));
		EXPECT_EQ(wc.byte_len, len);
		if (!len)
			EXPECT_TRUE(matches_pattern(local->data(), 64,
						    kGuardSeed))
				<< "a zero-length READ wrote local memory";
		else
			EXPECT_TRUE(matches_pattern(local->data(), 64, 0x51))
				<< "the READ after it brought the wrong bytes";
	}
}

TEST_F(AtomicTest, FetchAddPipelined)
{
	constexpr size_t n = kWords;
	const uint64_t base = 0x7000000000000001ull, add = 3;

	set_word(base);
	ibv_sge sges[n];
	ibv_send_wr wrs[n];
	for (size_t i = 0; i < n; i++) {
		sges[i] = verbs::sge(*result_, i * 8, 8);
		wrs[i] = atomic_wr(IBV_WR_ATOMIC_FETCH_AND_ADD, sges[i], i, add, 0);
		wrs[i].next = i + 1 < n ? &wrs[i + 1] : nullptr;
	}
	verbs::post_send(*pair_.a.qp, wrs[0]);

	auto wcs = poll_n(*pair_.a.send_cq, n, "pipelined FETCH_AND_ADDs");
	for (size_t i = 0; i < n; i++) {
		SCOPED_TRACE("op " + std::to_string(i));
		EXPECT_TRUE(wc_ok(wcs[i], IBV_WC_FETCH_ADD, i));
		/* Executed in order: each sees the sum of the ones before. */
		EXPECT_EQ(result(i), base + i * add);
	}
	EXPECT_EQ(word(), base + n * add);
	expect_neighbours();
}

/* ---- ATOMIC WRITE ---- */

/*
 * RDMA ATOMIC WRITE (IBA 1.5, Memory Placement Extensions): an 8-byte write
 * that the responder places as one unit, in order after the operations
 * before it; the send completion has opcode IBV_WC_ATOMIC_WRITE. Verbs post
 * it only through the extended QP API (ibv_wr_atomic_write).
 *
 * Its target is checked as a write: the rkey must grant Remote Write (rxe
 * since Linux 6.2: check_rkey() asks for IB_ACCESS_REMOTE_WRITE for an
 * ATOMIC WRITE; rdma-core's own test_qp_ex_rc_atomic_write registers its
 * target with LOCAL_WRITE | REMOTE_WRITE only), else a Remote Access Error.
 * Like the other atomics it needs a naturally (8-byte) aligned address,
 * else the responder NAKs an Invalid Request (rxe: misaligned ->
 * RESPST_ERR_MISALIGNED_ATOMIC -> NAK Invalid Request).
 */
class AtomicWriteTest : public VerbsTest {
protected:
	/* Remote: 8 words; the target word is index kWord. */
	static constexpr size_t kWords = 8;
	static constexpr size_t kWord = 3;
	static constexpr int kTargetAccess = IBV_ACCESS_LOCAL_WRITE |
					     IBV_ACCESS_REMOTE_WRITE;

	void SetUp() override
	{
		VerbsTest::SetUp();
		/*
		 * Stock rxe gained ATOMIC WRITE in Linux 6.2; the reference
		 * guests run 6.1. Single-device runs on rxe list these tests
		 * in rxe-deviations.txt instead.
		 */
		if (has_peer()) {
			for (const std::string &name :
			     {cfg().device, cfg().peer->device}) {
				if (name.starts_with("rxe"))
					GTEST_SKIP()
						<< "ATOMIC_WRITE interop with stock "
						   "rxe is not tested: "
						<< name
						<< " is rxe, which has no "
						   "ATOMIC_WRITE before Linux 6.2";
			}
		}

		verbs::QpCaps caps;

		caps.send_ops_flags = IBV_QP_EX_WITH_ATOMIC_WRITE;
		a_ = make_endpoint(IBV_QPT_RC, caps);
		b_ = make_remote_endpoint(IBV_QPT_RC);
		connect(a_, b_);
	}

	/* 8 words of guard pattern on the responder's side. */
	std::shared_ptr<Mr> target(int access)
	{
		auto mr = make_remote_mr(kWords * 8, access);

		fill_pattern(mr->data(), mr->length(), kGuardSeed);
		return mr;
	}

	/* Start a batch of extended-API work requests on a_. */
	ibv_qp_ex *start() const
	{
		ibv_qp_ex *qpx = a_.qp->ex();

		ibv_wr_start(qpx);
		return qpx;
	}

	/* Add one signaled ATOMIC WRITE of value (8 bytes) to the batch. */
	static void atomic_write(ibv_qp_ex *qpx, uint64_t wr_id, const Mr &mr,
				 uint64_t offset, const uint8_t *value)
	{
		qpx->wr_id = wr_id;
		qpx->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_atomic_write(qpx, mr.rkey(), mr.addr() + offset, value);
	}

	/* Post the batch; throws naming the failure. */
	static void complete(ibv_qp_ex *qpx)
	{
		int err = verbs::verbs_errno(ibv_wr_complete(qpx));

		if (err)
			verbs::throw_error("ibv_wr_complete", err,
					   "batch of ATOMIC_WRITE WRs");
	}

	/* Every word but the target still holds the guard pattern. */
	static void expect_neighbours_untouched(const Mr &mr)
	{
		EXPECT_TRUE(matches_pattern(mr.data(), kWord * 8, kGuardSeed, 0))
			<< "words before the target changed";
		EXPECT_TRUE(matches_pattern(mr.data() + (kWord + 1) * 8,
					    (kWords - kWord - 1) * 8, kGuardSeed,
					    (kWord + 1) * 8))
			<< "words after the target changed";
	}

	/*
	 * One ATOMIC WRITE of 8 bytes of @seed at @offset into @mr is refused
	 * with @status, the requester's QP goes to ERR, and @mr is unchanged.
	 */
	void expect_refused(const Mr &mr, uint64_t offset, uint8_t seed,
			    ibv_wc_status status, const char *what) const
	{
		uint8_t value[8];

		fill_pattern(value, 8, seed);
		ibv_qp_ex *qpx = start();
		atomic_write(qpx, 1, mr, offset, value);
		complete(qpx);

		ibv_wc wc = poll_one(*a_.send_cq, what);
		EXPECT_TRUE(wc_status(wc, status, 1));
		expect_qp_error(what);
		EXPECT_TRUE(matches_pattern(mr.data(), mr.length(), kGuardSeed))
			<< "a refused ATOMIC_WRITE changed the target";
	}

	void expect_qp_error(const char *what) const
	{
		ibv_qp_state s = wait_qp_state(*a_.qp, IBV_QPS_ERR,
					       cfg().timeout);

		EXPECT_EQ(s, IBV_QPS_ERR)
			<< "requester QP is " << verbs::qp_state_str(s)
			<< " after " << what << ", expected ERR";
	}

	Endpoint a_, b_;
};

TEST_F(AtomicWriteTest, PlacesEightBytesInOrder)
{
	auto mr = target(kTargetAccess);
	uint8_t first[8], second[8], third[8];

	fill_pattern(first, 8, 0xa1);
	fill_pattern(second, 8, 0xa2);
	fill_pattern(third, 8, 0xa3);

	ibv_qp_ex *qpx = start();
	atomic_write(qpx, 1, *mr, kWord * 8, first);
	complete(qpx);

	ibv_wc wc = poll_one(*a_.send_cq, "ATOMIC_WRITE completion");
	ASSERT_TRUE(wc_ok(wc, IBV_WC_ATOMIC_WRITE, 1));
	EXPECT_EQ(wc.qp_num, a_.qp->num());
	EXPECT_TRUE(matches_pattern(mr->data() + kWord * 8, 8, 0xa1))
		<< "the target word holds the 8 bytes written";
	expect_neighbours_untouched(*mr);
	/* Like a WRITE it consumes no receive and makes no responder CQE. */
	auto extra = try_poll(*b_.recv_cq, 0ms);
	EXPECT_FALSE(extra) << "unexpected " << describe(*extra);

	/* Two in one batch to the same word: executed in order. */
	qpx = start();
	atomic_write(qpx, 2, *mr, kWord * 8, second);
	atomic_write(qpx, 3, *mr, kWord * 8, third);
	complete(qpx);

	auto wcs = poll_n(*a_.send_cq, 2, "two ATOMIC_WRITE completions");
	EXPECT_TRUE(wc_ok(wcs[0], IBV_WC_ATOMIC_WRITE, 2));
	EXPECT_TRUE(wc_ok(wcs[1], IBV_WC_ATOMIC_WRITE, 3));
	EXPECT_TRUE(matches_pattern(mr->data() + kWord * 8, 8, 0xa3))
		<< "the later ATOMIC_WRITE is the one that stays";
	expect_neighbours_untouched(*mr);
}

TEST_F(AtomicWriteTest, MisalignedIsRemoteInvalidRequest)
{
	auto mr = target(kTargetAccess);

	/* Inside the MR, but 4 bytes off an 8-byte boundary. */
	expect_refused(*mr, kWord * 8 + 4, 0xa4, IBV_WC_REM_INV_REQ_ERR,
		       "a misaligned ATOMIC_WRITE");
}

TEST_F(AtomicWriteTest, WithoutRemoteWriteIsRemoteAccessError)
{
	/* Every remote right except Remote Write. */
	auto mr = target(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
			 IBV_ACCESS_REMOTE_ATOMIC);

	expect_refused(*mr, kWord * 8, 0xa5, IBV_WC_REM_ACCESS_ERR,
		       "an ATOMIC_WRITE without Remote Write");
}

} // namespace
} // namespace vrnic::test
