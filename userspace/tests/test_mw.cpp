// SPDX-License-Identifier: GPL-2.0-only
/*
 * Memory windows (IBA 10.6.7), types 1 and 2B, driven by stock librxe:
 * ibv_alloc_mw() and ibv_dealloc_mw(); binding a type 1 window with
 * ibv_bind_mw() (which librxe posts as an IBV_WR_BIND_MW work request)
 * and a type 2 window with IBV_WR_BIND_MW through ibv_post_send() or
 * ibv_wr_bind_mw(); invalidating a type 2 window with IBV_WR_LOCAL_INV
 * and with a SEND with Invalidate; and remote READ, WRITE and atomics
 * through a window's rkey, checked against the window.
 *
 * The window lives on the remote side (b's PD, bound through b's QP);
 * the requester a on the device under test reaches it.  Every rule of the
 * bind (the MR's MW_BIND right, the window inside the MR, its rights
 * consistent with the MR's, PDs, the window's type and state, a new key
 * byte) has a test whose bind must complete with IBV_WC_MW_BIND_ERR and
 * take the QP to ERR; every rule of an access through a window has one
 * whose request must complete with IBV_WC_REM_ACCESS_ERR with the memory
 * untouched.
 */

#include "fixture.hpp"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>

namespace vrnic::test {
namespace {

using verbs::Buffer;
using verbs::Mr;

/* The remote MR: a window is bound inside it. */
constexpr size_t kMrSize = 8192;
constexpr size_t kWinOff = 1024;
constexpr size_t kWinLen = 2048;
/* Bytes one READ or WRITE moves. */
constexpr uint32_t kLen = 64;
constexpr uint32_t kPayloadSeed = 0x3c6ef372;
/*
 * The MR a window is bound to allows windows and local write, and no
 * remote access of its own: what reaches it through a window is the
 * window's rights.
 */
constexpr int kBindable = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND;
constexpr int kWinAll = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			IBV_ACCESS_REMOTE_ATOMIC;

struct MwFree {
	void operator()(ibv_mw *mw) const noexcept { ibv_dealloc_mw(mw); }
};
using MwHandle = std::unique_ptr<ibv_mw, MwFree>;

/* An MR deregistered by hand (its result is what a test checks). */
struct RawMr {
	std::shared_ptr<Buffer> buf;
	ibv_mr *mr = nullptr;

	~RawMr()
	{
		if (mr)
			ibv_dereg_mr(mr);
	}
	int dereg()
	{
		int err = ibv_dereg_mr(mr);

		if (!err)
			mr = nullptr;
		return err;
	}
};

uint32_t key_index(uint32_t key) { return key >> 8; }

class MwTest : public VerbsTest {
protected:
	void SetUp() override
	{
		VerbsTest::SetUp();
		if (IsSkipped() || HasFatalFailure())
			return;
		if (!(peer_dev_attr_.device_cap_flags & IBV_DEVICE_MEM_WINDOW))
			VRNIC_SKIP_OR_FAIL(cfg().remote(), cfg().remote().device
				<< " does not report IBV_DEVICE_MEM_WINDOW");
		local_ = make_mr(kMrSize, kMrAccess);
	}

	/* a (device under test) and b (remote side), connected. */
	void connect_pair(const verbs::QpCaps &b_caps = {})
	{
		a_ = make_endpoint(IBV_QPT_RC);
		b_ = make_remote_endpoint(IBV_QPT_RC, b_caps);
		connect(a_, b_);
	}

	/* The remote MR, guard pattern throughout. */
	std::shared_ptr<Mr> target(int access = kBindable)
	{
		auto mr = make_remote_mr(kMrSize, access);

		fill_pattern(mr->data(), mr->length(), kGuardSeed);
		return mr;
	}

	MwHandle alloc_mw(ibv_mw_type type, ibv_pd *pd = nullptr)
	{
		ibv_mw *mw = ibv_alloc_mw(pd ? pd : pd_of_remote(), type);

		if (!mw)
			throw std::runtime_error(std::string("ibv_alloc_mw: ") +
						 std::strerror(errno));
		return MwHandle(mw);
	}

	ibv_pd *pd_of_remote() const { return pd(Side::remote)->get(); }

	/* ibv_bind_mw() (type 1) on ep's QP; its completion. */
	static ibv_wc bind1(const Endpoint &ep, ibv_mw *mw, ibv_mr *mr,
			    uint64_t addr, uint64_t len, int access,
			    uint64_t wr_id = 11)
	{
		ibv_mw_bind b{};

		b.wr_id = wr_id;
		b.send_flags = IBV_SEND_SIGNALED;
		b.bind_info.mr = mr;
		b.bind_info.addr = addr;
		b.bind_info.length = len;
		b.bind_info.mw_access_flags = access;
		int err = ibv_bind_mw(ep.qp->get(), mw, &b);
		if (err)
			throw std::runtime_error(std::string("ibv_bind_mw: ") +
						 std::strerror(err));
		return poll_one(*ep.send_cq, "the ibv_bind_mw() completion");
	}

	/* IBV_WR_BIND_MW through ibv_post_send() on ep's QP. */
	static ibv_wc bind_wr(const Endpoint &ep, ibv_mw *mw, uint32_t rkey,
			      ibv_mr *mr, uint64_t addr, uint64_t len,
			      int access, uint64_t wr_id = 12)
	{
		ibv_send_wr wr = wr_of(IBV_WR_BIND_MW, nullptr, wr_id);

		wr.bind_mw.mw = mw;
		wr.bind_mw.rkey = rkey;
		wr.bind_mw.bind_info.mr = mr;
		wr.bind_mw.bind_info.addr = addr;
		wr.bind_mw.bind_info.length = len;
		wr.bind_mw.bind_info.mw_access_flags = access;
		verbs::post_send(*ep.qp, wr);
		return poll_one(*ep.send_cq, "the BIND_MW completion");
	}

	/*
	 * Bind a type 2 window over the window area of mr with a new rkey;
	 * the window's rkey follows (the consumer keeps it, IBA 10.6.7.2.2).
	 */
	::testing::AssertionResult bind2(const Endpoint &ep, ibv_mw *mw,
					 const Mr &mr, int access = kWinAll)
	{
		uint32_t rkey = ibv_inc_rkey(mw->rkey);
		ibv_wc wc = bind_wr(ep, mw, rkey, mr.get(), mr.addr() + kWinOff,
				    kWinLen, access);

		if (wc.status == IBV_WC_SUCCESS)
			mw->rkey = rkey;
		return wc_ok(wc, IBV_WC_BIND_MW, 12);
	}

	static ibv_wc local_inv(const Endpoint &ep, uint32_t rkey,
				uint64_t wr_id = 13)
	{
		ibv_send_wr wr = wr_of(IBV_WR_LOCAL_INV, nullptr, wr_id);

		wr.invalidate_rkey = rkey;
		verbs::post_send(*ep.qp, wr);
		return poll_one(*ep.send_cq, "the LOCAL_INV completion");
	}

	/* An RDMA WRITE or READ of kLen bytes from a's local MR (offset 0). */
	ibv_wc rdma(const Endpoint &a, ibv_wr_opcode op, uint32_t rkey,
		    uint64_t raddr, uint64_t wr_id = 21)
	{
		ibv_sge s = verbs::sge(*local_, 0, kLen);
		ibv_send_wr wr = wr_of(op, &s, wr_id);

		wr.wr.rdma.remote_addr = raddr;
		wr.wr.rdma.rkey = rkey;
		verbs::post_send(*a.qp, wr);
		return poll_one(*a.send_cq, "the RDMA completion");
	}

	ibv_wc fetch_add(const Endpoint &a, uint32_t rkey, uint64_t raddr,
			 uint64_t add, uint64_t wr_id = 31)
	{
		ibv_sge s = verbs::sge(*local_, 0, 8);
		ibv_send_wr wr = wr_of(IBV_WR_ATOMIC_FETCH_AND_ADD, &s, wr_id);

		wr.wr.atomic.remote_addr = raddr;
		wr.wr.atomic.rkey = rkey;
		wr.wr.atomic.compare_add = add;
		verbs::post_send(*a.qp, wr);
		return poll_one(*a.send_cq, "the fetch-and-add completion");
	}

	/* a's payload for a WRITE. */
	void load_payload() { fill_pattern(local_->data(), kLen, kPayloadSeed); }

	/* The WRITE of load_payload() landed at off, nothing else changed. */
	static ::testing::AssertionResult wrote_at(const Mr &mr, size_t off)
	{
		auto r = matches_pattern(mr.data() + off, kLen, kPayloadSeed);

		if (!r)
			return r << " (the WRITE's bytes)";
		r = matches_pattern(mr.data(), off, kGuardSeed);
		if (!r)
			return r << " (before the WRITE)";
		return matches_pattern(mr.data() + off + kLen,
				       mr.length() - off - kLen, kGuardSeed,
				       off + kLen);
	}

	static ::testing::AssertionResult unchanged(const Mr &mr)
	{
		return matches_pattern(mr.data(), mr.length(), kGuardSeed);
	}

	/*
	 * A bind or invalidation that failed: its status, and its QP in ERR
	 * (a local error of a WR takes the QP to ERR, IBA 10.8.3.3).
	 */
	void expect_local_error(const Endpoint &ep, const ibv_wc &wc,
				ibv_wc_status status, uint64_t wr_id)
	{
		EXPECT_TRUE(wc_status(wc, status, wr_id));
		EXPECT_EQ(wait_qp_state(*ep.qp, IBV_QPS_ERR, cfg().timeout),
			  IBV_QPS_ERR);
	}

	/* A remote access refused: REM_ACCESS_ERR and the memory untouched. */
	void expect_refused(const ibv_wc &wc, const Mr &mr, uint64_t wr_id = 21)
	{
		EXPECT_TRUE(wc_status(wc, IBV_WC_REM_ACCESS_ERR, wr_id));
		EXPECT_TRUE(unchanged(mr)) << "the refused request changed memory";
	}

	/* Another connected pair: b2 with QP on pd (the remote side's). */
	std::pair<Endpoint, Endpoint> other_pair(std::shared_ptr<verbs::Pd> pd = {})
	{
		Endpoint a2 = make_endpoint(IBV_QPT_RC);
		Endpoint b2;

		if (!pd) {
			b2 = make_remote_endpoint(IBV_QPT_RC);
		} else {
			b2.send_cq = make_cq(256, Side::remote);
			b2.recv_cq = b2.send_cq;
			b2.qp = std::make_shared<verbs::Qp>(pd, IBV_QPT_RC,
							    b2.send_cq, b2.recv_cq,
							    verbs::QpCaps{});
		}
		connect(a2, b2);
		return {a2, b2};
	}

	std::shared_ptr<verbs::Pd> other_pd()
	{
		return std::make_shared<verbs::Pd>(context(Side::remote));
	}

	std::shared_ptr<Mr> local_;
	Endpoint a_, b_;
};

/* ---- the device ---- */

TEST_F(MwTest, DeviceAdvertisesTypes1And2B)
{
	for (const ibv_device_attr *attr : {&dev_attr_, &peer_dev_attr_}) {
		EXPECT_TRUE(attr->device_cap_flags & IBV_DEVICE_MEM_WINDOW);
		EXPECT_TRUE(attr->device_cap_flags &
			    IBV_DEVICE_MEM_WINDOW_TYPE_2B);
		EXPECT_GT(attr->max_mw, 0);
	}
	auto w1 = alloc_mw(IBV_MW_TYPE_1);
	auto w2 = alloc_mw(IBV_MW_TYPE_2);
	EXPECT_EQ(w1->type, IBV_MW_TYPE_1);
	EXPECT_EQ(w2->type, IBV_MW_TYPE_2);
	EXPECT_NE(key_index(w1->rkey), key_index(w2->rkey));
}

/* ---- type 1 ---- */

TEST_F(MwTest, Type1BindChangesKeyByteKeepsIndex)
{
	connect_pair();
	auto mr = target();
	auto mw = alloc_mw(IBV_MW_TYPE_1);
	uint32_t k0 = mw->rkey;

	ASSERT_TRUE(wc_ok(bind1(b_, mw.get(), mr->get(), mr->addr() + kWinOff,
				kWinLen, kWinAll),
			  IBV_WC_BIND_MW, 11));
	uint32_t k1 = mw->rkey;
	EXPECT_EQ(key_index(k1), key_index(k0));
	EXPECT_NE(k1 & 0xff, k0 & 0xff);
	ASSERT_TRUE(wc_ok(bind1(b_, mw.get(), mr->get(), mr->addr(), kMrSize,
				IBV_ACCESS_REMOTE_READ),
			  IBV_WC_BIND_MW, 11));
	EXPECT_EQ(key_index(mw->rkey), key_index(k0));
	EXPECT_NE(mw->rkey & 0xff, k1 & 0xff);
}

/*
 * The MR has no remote right of its own: WRITE, READ and fetch-and-add
 * through the window are allowed by the window's rights.
 */
TEST_F(MwTest, Type1WriteReadAtomicThroughWindow)
{
	connect_pair();
	auto mr = target();
	auto mw = alloc_mw(IBV_MW_TYPE_1);
	ASSERT_TRUE(wc_ok(bind1(b_, mw.get(), mr->get(), mr->addr() + kWinOff,
				kWinLen, kWinAll),
			  IBV_WC_BIND_MW, 11));

	load_payload();
	const size_t off = kWinOff + 256;
	ASSERT_TRUE(wc_ok(rdma(a_, IBV_WR_RDMA_WRITE, mw->rkey, mr->addr() + off),
			  IBV_WC_RDMA_WRITE, 21));
	EXPECT_TRUE(wrote_at(*mr, off));

	std::memset(local_->data(), 0, kLen);
	ASSERT_TRUE(wc_ok(rdma(a_, IBV_WR_RDMA_READ, mw->rkey, mr->addr() + off),
			  IBV_WC_RDMA_READ, 21));
	EXPECT_TRUE(matches_pattern(local_->data(), kLen, kPayloadSeed));

	const size_t aoff = kWinOff + 512;
	uint64_t before;
	std::memcpy(&before, mr->data() + aoff, 8);
	ASSERT_TRUE(wc_ok(fetch_add(a_, mw->rkey, mr->addr() + aoff, 5),
			  IBV_WC_FETCH_ADD, 31));
	uint64_t orig, after;
	std::memcpy(&orig, local_->data(), 8);
	std::memcpy(&after, mr->data() + aoff, 8);
	EXPECT_EQ(orig, before);
	EXPECT_EQ(after, before + 5);
}

TEST_F(MwTest, Type1AccessBeyondWindowIsRemoteAccessError)
{
	connect_pair();
	auto mr = target();
	auto mw = alloc_mw(IBV_MW_TYPE_1);
	ASSERT_TRUE(wc_ok(bind1(b_, mw.get(), mr->get(), mr->addr() + kWinOff,
				kWinLen, kWinAll),
			  IBV_WC_BIND_MW, 11));
	load_payload();
	/* Inside the MR, straddling the window's end. */
	expect_refused(rdma(a_, IBV_WR_RDMA_WRITE, mw->rkey,
			    mr->addr() + kWinOff + kWinLen - 8),
		       *mr);
}

TEST_F(MwTest, Type1AccessBeforeWindowIsRemoteAccessError)
{
	connect_pair();
	auto mr = target();
	auto mw = alloc_mw(IBV_MW_TYPE_1);
	ASSERT_TRUE(wc_ok(bind1(b_, mw.get(), mr->get(), mr->addr() + kWinOff,
				kWinLen, kWinAll),
			  IBV_WC_BIND_MW, 11));
	load_payload();
	expect_refused(rdma(a_, IBV_WR_RDMA_WRITE, mw->rkey,
			    mr->addr() + kWinOff - 8),
		       *mr);
}

TEST_F(MwTest, Type1ReadOnlyWindowRefusesWrite)
{
	connect_pair();
	auto mr = target();
	auto mw = alloc_mw(IBV_MW_TYPE_1);
	ASSERT_TRUE(wc_ok(bind1(b_, mw.get(), mr->get(), mr->addr() + kWinOff,
				kWinLen, IBV_ACCESS_REMOTE_READ),
			  IBV_WC_BIND_MW, 11));
	load_payload();
	expect_refused(rdma(a_, IBV_WR_RDMA_WRITE, mw->rkey,
			    mr->addr() + kWinOff),
		       *mr);
}

TEST_F(MwTest, Type1ReadOnlyWindowRefusesAtomic)
{
	connect_pair();
	auto mr = target();
	auto mw = alloc_mw(IBV_MW_TYPE_1);
	ASSERT_TRUE(wc_ok(bind1(b_, mw.get(), mr->get(), mr->addr() + kWinOff,
				kWinLen, IBV_ACCESS_REMOTE_READ),
			  IBV_WC_BIND_MW, 11));
	expect_refused(fetch_add(a_, mw->rkey, mr->addr() + kWinOff, 1, 21),
		       *mr);
}

TEST_F(MwTest, Type1WriteOnlyWindowRefusesRead)
{
	connect_pair();
	auto mr = target();
	auto mw = alloc_mw(IBV_MW_TYPE_1);
	ASSERT_TRUE(wc_ok(bind1(b_, mw.get(), mr->get(), mr->addr() + kWinOff,
				kWinLen, IBV_ACCESS_REMOTE_WRITE),
			  IBV_WC_BIND_MW, 11));
	fill_pattern(local_->data(), kLen, kPayloadSeed);
	ibv_wc wc = rdma(a_, IBV_WR_RDMA_READ, mw->rkey, mr->addr() + kWinOff);
	EXPECT_TRUE(wc_status(wc, IBV_WC_REM_ACCESS_ERR, 21));
	EXPECT_TRUE(matches_pattern(local_->data(), kLen, kPayloadSeed))
		<< "the refused READ wrote the local buffer";
}

TEST_F(MwTest, Type1OldRkeyAfterRebindIsRemoteAccessError)
{
	connect_pair();
	auto mr = target();
	auto mw = alloc_mw(IBV_MW_TYPE_1);
	ASSERT_TRUE(wc_ok(bind1(b_, mw.get(), mr->get(), mr->addr() + kWinOff,
				kWinLen, kWinAll),
			  IBV_WC_BIND_MW, 11));
	uint32_t old = mw->rkey;
	ASSERT_TRUE(wc_ok(bind1(b_, mw.get(), mr->get(), mr->addr() + kWinOff,
				kWinLen, kWinAll),
			  IBV_WC_BIND_MW, 11));
	ASSERT_NE(old, mw->rkey);
	load_payload();
	expect_refused(rdma(a_, IBV_WR_RDMA_WRITE, old, mr->addr() + kWinOff),
		       *mr);
}

/* A bind of length 0 leaves the type 1 window bound to nothing. */
TEST_F(MwTest, Type1ZeroLengthBindUnbinds)
{
	connect_pair();
	auto mr = target();
	auto mw = alloc_mw(IBV_MW_TYPE_1);
	ASSERT_TRUE(wc_ok(bind1(b_, mw.get(), mr->get(), mr->addr() + kWinOff,
				kWinLen, kWinAll),
			  IBV_WC_BIND_MW, 11));
	ASSERT_TRUE(wc_ok(bind1(b_, mw.get(), mr->get(), 0, 0, kWinAll),
			  IBV_WC_BIND_MW, 11));
	load_payload();
	expect_refused(rdma(a_, IBV_WR_RDMA_WRITE, mw->rkey,
			    mr->addr() + kWinOff),
		       *mr);
}

/* librxe refuses a zero-based type 1 bind itself (o10-36.2.2). */
TEST_F(MwTest, Type1ZeroBasedRefusedByIbvBindMw)
{
	connect_pair();
	auto mr = target();
	auto mw = alloc_mw(IBV_MW_TYPE_1);
	uint32_t k0 = mw->rkey;
	ibv_mw_bind b{};

	b.wr_id = 11;
	b.send_flags = IBV_SEND_SIGNALED;
	b.bind_info.mr = mr->get();
	b.bind_info.addr = mr->addr() + kWinOff;
	b.bind_info.length = kWinLen;
	b.bind_info.mw_access_flags = kWinAll | IBV_ACCESS_ZERO_BASED;
	EXPECT_EQ(ibv_bind_mw(b_.qp->get(), mw.get(), &b), EINVAL);
	EXPECT_EQ(mw->rkey, k0);
	EXPECT_FALSE(try_poll(*b_.send_cq, cfg().quiet));
}

/* The same bind posted as a work request reaches the device: refused. */
TEST_F(MwTest, Type1ZeroBasedWorkRequestIsBindError)
{
	connect_pair();
	auto mr = target();
	auto mw = alloc_mw(IBV_MW_TYPE_1);
	ibv_wc wc = bind_wr(b_, mw.get(), ibv_inc_rkey(mw->rkey), mr->get(),
			    mr->addr() + kWinOff, kWinLen,
			    kWinAll | IBV_ACCESS_ZERO_BASED);
	expect_local_error(b_, wc, IBV_WC_MW_BIND_ERR, 12);
}

/* ---- type 2 ---- */

/* libibverbs binds only type 1 windows with ibv_bind_mw(). */
TEST_F(MwTest, Type2RefusedByIbvBindMw)
{
	connect_pair();
	auto mr = target();
	auto mw = alloc_mw(IBV_MW_TYPE_2);
	ibv_mw_bind b{};

	b.wr_id = 11;
	b.send_flags = IBV_SEND_SIGNALED;
	b.bind_info.mr = mr->get();
	b.bind_info.addr = mr->addr() + kWinOff;
	b.bind_info.length = kWinLen;
	b.bind_info.mw_access_flags = kWinAll;
	EXPECT_EQ(ibv_bind_mw(b_.qp->get(), mw.get(), &b), EINVAL);
	EXPECT_FALSE(try_poll(*b_.send_cq, cfg().quiet));
}

/* Before its first bind a type 2 window's rkey reaches nothing. */
TEST_F(MwTest, Type2UnboundRkeyIsRemoteAccessError)
{
	connect_pair();
	auto mr = target();
	auto mw = alloc_mw(IBV_MW_TYPE_2);
	load_payload();
	expect_refused(rdma(a_, IBV_WR_RDMA_WRITE, mw->rkey,
			    mr->addr() + kWinOff),
		       *mr);
}

TEST_F(MwTest, Type2WriteReadAtomicThroughWindow)
{
	connect_pair();
	auto mr = target();
	auto mw = alloc_mw(IBV_MW_TYPE_2);
	uint32_t k0 = mw->rkey;
	ASSERT_TRUE(bind2(b_, mw.get(), *mr));
	EXPECT_EQ(key_index(mw->rkey), key_index(k0));

	load_payload();
	const size_t off = kWinOff + kWinLen - kLen;
	ASSERT_TRUE(wc_ok(rdma(a_, IBV_WR_RDMA_WRITE, mw->rkey, mr->addr() + off),
			  IBV_WC_RDMA_WRITE, 21));
	EXPECT_TRUE(wrote_at(*mr, off));
	std::memset(local_->data(), 0, kLen);
	ASSERT_TRUE(wc_ok(rdma(a_, IBV_WR_RDMA_READ, mw->rkey, mr->addr() + off),
			  IBV_WC_RDMA_READ, 21));
	EXPECT_TRUE(matches_pattern(local_->data(), kLen, kPayloadSeed));
	uint64_t before, after;
	std::memcpy(&before, mr->data() + kWinOff, 8);
	ASSERT_TRUE(wc_ok(fetch_add(a_, mw->rkey, mr->addr() + kWinOff, 7),
			  IBV_WC_FETCH_ADD, 31));
	std::memcpy(&after, mr->data() + kWinOff, 8);
	EXPECT_EQ(after, before + 7);
}

/*
 * A zero-based window is addressed from 0: remote address x is byte
 * x of the window.  The MR's own address, past the window's length as an
 * offset, is refused.
 */
TEST_F(MwTest, Type2ZeroBasedWindow)
{
	connect_pair();
	auto mr = target();
	auto mw = alloc_mw(IBV_MW_TYPE_2);
	ASSERT_TRUE(bind2(b_, mw.get(), *mr, kWinAll | IBV_ACCESS_ZERO_BASED));

	load_payload();
	ASSERT_TRUE(wc_ok(rdma(a_, IBV_WR_RDMA_WRITE, mw->rkey, 128),
			  IBV_WC_RDMA_WRITE, 21));
	EXPECT_TRUE(wrote_at(*mr, kWinOff + 128));
	std::memset(local_->data(), 0, kLen);
	ASSERT_TRUE(wc_ok(rdma(a_, IBV_WR_RDMA_READ, mw->rkey, 128),
			  IBV_WC_RDMA_READ, 21));
	EXPECT_TRUE(matches_pattern(local_->data(), kLen, kPayloadSeed));

	fill_pattern(mr->data(), mr->length(), kGuardSeed);
	load_payload();
	expect_refused(rdma(a_, IBV_WR_RDMA_WRITE, mw->rkey, kWinLen - 8),
		       *mr);
}

TEST_F(MwTest, Type2ZeroBasedWindowRefusesTheMrAddress)
{
	connect_pair();
	auto mr = target();
	auto mw = alloc_mw(IBV_MW_TYPE_2);
	ASSERT_TRUE(bind2(b_, mw.get(), *mr, kWinAll | IBV_ACCESS_ZERO_BASED));
	load_payload();
	expect_refused(rdma(a_, IBV_WR_RDMA_WRITE, mw->rkey,
			    mr->addr() + kWinOff),
		       *mr);
}

TEST_F(MwTest, Type2LocalInvalidateRevokes)
{
	connect_pair();
	auto mr = target();
	auto mw = alloc_mw(IBV_MW_TYPE_2);
	ASSERT_TRUE(bind2(b_, mw.get(), *mr));
	load_payload();
	ASSERT_TRUE(wc_ok(rdma(a_, IBV_WR_RDMA_WRITE, mw->rkey,
			       mr->addr() + kWinOff),
			  IBV_WC_RDMA_WRITE, 21));
	ASSERT_TRUE(wc_ok(local_inv(b_, mw->rkey), IBV_WC_LOCAL_INV, 13));
	fill_pattern(mr->data(), mr->length(), kGuardSeed);
	expect_refused(rdma(a_, IBV_WR_RDMA_WRITE, mw->rkey,
			    mr->addr() + kWinOff),
		       *mr);
}

/* Invalidated, the window binds again under a new rkey; the old is dead. */
TEST_F(MwTest, Type2RebindAfterInvalidate)
{
	connect_pair();
	auto mr = target();
	auto mw = alloc_mw(IBV_MW_TYPE_2);
	ASSERT_TRUE(bind2(b_, mw.get(), *mr));
	uint32_t old = mw->rkey;
	ASSERT_TRUE(wc_ok(local_inv(b_, mw->rkey), IBV_WC_LOCAL_INV, 13));
	ASSERT_TRUE(bind2(b_, mw.get(), *mr));
	ASSERT_NE(mw->rkey, old);
	load_payload();
	ASSERT_TRUE(wc_ok(rdma(a_, IBV_WR_RDMA_WRITE, mw->rkey,
			       mr->addr() + kWinOff),
			  IBV_WC_RDMA_WRITE, 21));
	EXPECT_TRUE(wrote_at(*mr, kWinOff));
	fill_pattern(mr->data(), mr->length(), kGuardSeed);
	expect_refused(rdma(a_, IBV_WR_RDMA_WRITE, old, mr->addr() + kWinOff),
		       *mr);
}

/* A bind must give the window a new key byte: the old rkey is revoked. */
TEST_F(MwTest, Type2RebindWithSameRkeyIsBindError)
{
	connect_pair();
	auto mr = target();
	auto mw = alloc_mw(IBV_MW_TYPE_2);
	ASSERT_TRUE(bind2(b_, mw.get(), *mr));
	ASSERT_TRUE(wc_ok(local_inv(b_, mw->rkey), IBV_WC_LOCAL_INV, 13));
	ibv_wc wc = bind_wr(b_, mw.get(), mw->rkey, mr->get(),
			    mr->addr() + kWinOff, kWinLen, kWinAll);
	expect_local_error(b_, wc, IBV_WC_MW_BIND_ERR, 12);
}

TEST_F(MwTest, Type2ExtendedApiBindAndLocalInvalidate)
{
	verbs::QpCaps caps;
	caps.send_ops_flags = IBV_QP_EX_WITH_BIND_MW | IBV_QP_EX_WITH_LOCAL_INV |
			      IBV_QP_EX_WITH_SEND;
	connect_pair(caps);
	auto mr = target();
	auto mw = alloc_mw(IBV_MW_TYPE_2);
	ibv_qp_ex *qpx = b_.qp->ex();
	uint32_t rkey = ibv_inc_rkey(mw->rkey);
	ibv_mw_bind_info info{};

	info.mr = mr->get();
	info.addr = mr->addr() + kWinOff;
	info.length = kWinLen;
	info.mw_access_flags = kWinAll;
	ibv_wr_start(qpx);
	qpx->wr_id = 41;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_bind_mw(qpx, mw.get(), rkey, &info);
	ASSERT_EQ(ibv_wr_complete(qpx), 0);
	ASSERT_TRUE(wc_ok(poll_one(*b_.send_cq, "ibv_wr_bind_mw"),
			  IBV_WC_BIND_MW, 41));
	mw->rkey = rkey;

	load_payload();
	ASSERT_TRUE(wc_ok(rdma(a_, IBV_WR_RDMA_WRITE, rkey, mr->addr() + kWinOff),
			  IBV_WC_RDMA_WRITE, 21));
	EXPECT_TRUE(wrote_at(*mr, kWinOff));

	ibv_wr_start(qpx);
	qpx->wr_id = 42;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_local_inv(qpx, rkey);
	ASSERT_EQ(ibv_wr_complete(qpx), 0);
	ASSERT_TRUE(wc_ok(poll_one(*b_.send_cq, "ibv_wr_local_inv"),
			  IBV_WC_LOCAL_INV, 42));
	fill_pattern(mr->data(), mr->length(), kGuardSeed);
	expect_refused(rdma(a_, IBV_WR_RDMA_WRITE, rkey, mr->addr() + kWinOff),
		       *mr);
}

/* A SEND with Invalidate of the window from the peer (IBA 10.6.7.2.5). */
TEST_F(MwTest, Type2SendWithInvalidateRevokes)
{
	connect_pair();
	auto mr = target();
	auto mw = alloc_mw(IBV_MW_TYPE_2);
	auto rbuf = make_remote_mr(256);
	ASSERT_TRUE(bind2(b_, mw.get(), *mr));

	ibv_sge rs = verbs::sge(*rbuf, 0, 256);
	ibv_recv_wr rwr{};
	rwr.wr_id = 51;
	rwr.sg_list = &rs;
	rwr.num_sge = 1;
	verbs::post_recv(*b_.qp, rwr);
	ibv_sge s = verbs::sge(*local_, 0, 16);
	ibv_send_wr wr = wr_of(IBV_WR_SEND_WITH_INV, &s, 52);
	wr.invalidate_rkey = mw->rkey;
	verbs::post_send(*a_.qp, wr);
	ASSERT_TRUE(wc_ok(poll_one(*a_.send_cq, "the SEND with Invalidate"),
			  IBV_WC_SEND, 52));
	ibv_wc rwc = poll_one(*b_.recv_cq, "the receive of the SEND");
	ASSERT_TRUE(wc_ok(rwc, IBV_WC_RECV, 51));
	/*
	 * rdma-core's flag (bit 3), not the kernel's IB_WC_WITH_INVALIDATE
	 * (bit 2), which ibv_wc reads as IBV_WC_IP_CSUM_OK.
	 */
	EXPECT_TRUE(rwc.wc_flags & IBV_WC_WITH_INV)
		<< "IBV_WC_WITH_INV; " << describe(rwc);
	EXPECT_FALSE(rwc.wc_flags & IBV_WC_IP_CSUM_OK) << describe(rwc);
	EXPECT_EQ(rwc.invalidated_rkey, mw->rkey);

	load_payload();
	expect_refused(rdma(a_, IBV_WR_RDMA_WRITE, mw->rkey,
			    mr->addr() + kWinOff),
		       *mr);
}

/* A type 2 window answers only to the QP it was bound through. */
TEST_F(MwTest, Type2RkeyOnAnotherQpIsRemoteAccessError)
{
	connect_pair();
	auto mr = target();
	auto mw = alloc_mw(IBV_MW_TYPE_2);
	ASSERT_TRUE(bind2(b_, mw.get(), *mr));
	auto [a2, b2] = other_pair();
	load_payload();
	expect_refused(rdma(a2, IBV_WR_RDMA_WRITE, mw->rkey,
			    mr->addr() + kWinOff),
		       *mr);
}

/* A type 1 window answers to any QP of its PD. */
TEST_F(MwTest, Type1RkeyOnAnotherQpOfItsPd)
{
	connect_pair();
	auto mr = target();
	auto mw = alloc_mw(IBV_MW_TYPE_1);
	ASSERT_TRUE(wc_ok(bind1(b_, mw.get(), mr->get(), mr->addr() + kWinOff,
				kWinLen, kWinAll),
			  IBV_WC_BIND_MW, 11));
	auto [a2, b2] = other_pair();
	load_payload();
	ASSERT_TRUE(wc_ok(rdma(a2, IBV_WR_RDMA_WRITE, mw->rkey,
			       mr->addr() + kWinOff),
			  IBV_WC_RDMA_WRITE, 21));
	EXPECT_TRUE(wrote_at(*mr, kWinOff));
}

/* ... but not to a QP of another PD (IBA 10.6.3.2). */
TEST_F(MwTest, Type1RkeyOnQpOfAnotherPdIsRemoteAccessError)
{
	connect_pair();
	auto mr = target();
	auto mw = alloc_mw(IBV_MW_TYPE_1);
	ASSERT_TRUE(wc_ok(bind1(b_, mw.get(), mr->get(), mr->addr() + kWinOff,
				kWinLen, kWinAll),
			  IBV_WC_BIND_MW, 11));
	auto [a2, b2] = other_pair(other_pd());
	load_payload();
	expect_refused(rdma(a2, IBV_WR_RDMA_WRITE, mw->rkey,
			    mr->addr() + kWinOff),
		       *mr);
}

/* ---- bind errors: IBV_WC_MW_BIND_ERR, the QP to ERR ---- */

/* C10-73: the MR must allow windows. */
TEST_F(MwTest, BindToMrWithoutMwBindIsBindError)
{
	connect_pair();
	auto mr = target(kMrAccess);
	auto mw = alloc_mw(IBV_MW_TYPE_2);
	ibv_wc wc = bind_wr(b_, mw.get(), ibv_inc_rkey(mw->rkey), mr->get(),
			    mr->addr() + kWinOff, kWinLen, kWinAll);
	expect_local_error(b_, wc, IBV_WC_MW_BIND_ERR, 12);
}

TEST_F(MwTest, Type1BindToMrWithoutMwBindIsBindError)
{
	connect_pair();
	auto mr = target(kMrAccess);
	auto mw = alloc_mw(IBV_MW_TYPE_1);
	expect_local_error(b_, bind1(b_, mw.get(), mr->get(),
				     mr->addr() + kWinOff, kWinLen, kWinAll),
			   IBV_WC_MW_BIND_ERR, 11);
}

/* C10-74: remote write needs the MR's local write. */
TEST_F(MwTest, WritableWindowOnMrWithoutLocalWriteIsBindError)
{
	connect_pair();
	auto mr = target(IBV_ACCESS_MW_BIND | IBV_ACCESS_REMOTE_READ);
	auto mw = alloc_mw(IBV_MW_TYPE_2);
	ibv_wc wc = bind_wr(b_, mw.get(), ibv_inc_rkey(mw->rkey), mr->get(),
			    mr->addr() + kWinOff, kWinLen,
			    IBV_ACCESS_REMOTE_WRITE);
	expect_local_error(b_, wc, IBV_WC_MW_BIND_ERR, 12);
}

/* C10-74: so does remote atomic. */
TEST_F(MwTest, AtomicWindowOnMrWithoutLocalWriteIsBindError)
{
	connect_pair();
	auto mr = target(IBV_ACCESS_MW_BIND | IBV_ACCESS_REMOTE_READ);
	auto mw = alloc_mw(IBV_MW_TYPE_2);
	ibv_wc wc = bind_wr(b_, mw.get(), ibv_inc_rkey(mw->rkey), mr->get(),
			    mr->addr() + kWinOff, kWinLen,
			    IBV_ACCESS_REMOTE_ATOMIC);
	expect_local_error(b_, wc, IBV_WC_MW_BIND_ERR, 12);
}

/* A read-only window on such an MR is fine. */
TEST_F(MwTest, ReadOnlyWindowOnMrWithoutLocalWrite)
{
	connect_pair();
	auto mr = target(IBV_ACCESS_MW_BIND | IBV_ACCESS_REMOTE_READ);
	auto mw = alloc_mw(IBV_MW_TYPE_2);
	ASSERT_TRUE(bind2(b_, mw.get(), *mr, IBV_ACCESS_REMOTE_READ));
	ASSERT_TRUE(wc_ok(rdma(a_, IBV_WR_RDMA_READ, mw->rkey,
			       mr->addr() + kWinOff),
			  IBV_WC_RDMA_READ, 21));
	EXPECT_TRUE(matches_pattern(local_->data(), kLen, kGuardSeed, kWinOff));
}

/* C10-75: the window lies inside the MR. */
TEST_F(MwTest, WindowPastMrEndIsBindError)
{
	connect_pair();
	auto mr = target();
	auto mw = alloc_mw(IBV_MW_TYPE_2);
	ibv_wc wc = bind_wr(b_, mw.get(), ibv_inc_rkey(mw->rkey), mr->get(),
			    mr->addr() + kMrSize - 64, 128, kWinAll);
	expect_local_error(b_, wc, IBV_WC_MW_BIND_ERR, 12);
}

TEST_F(MwTest, WindowBeforeMrStartIsBindError)
{
	connect_pair();
	auto mr = target();
	auto mw = alloc_mw(IBV_MW_TYPE_1);
	expect_local_error(b_, bind1(b_, mw.get(), mr->get(), mr->addr() - 64,
				     128, kWinAll),
			   IBV_WC_MW_BIND_ERR, 11);
}

TEST_F(MwTest, ZeroBasedWindowLongerThanMrIsBindError)
{
	connect_pair();
	auto mr = target();
	auto mw = alloc_mw(IBV_MW_TYPE_2);
	ibv_wc wc = bind_wr(b_, mw.get(), ibv_inc_rkey(mw->rkey), mr->get(),
			    mr->addr() + kWinOff, kMrSize,
			    kWinAll | IBV_ACCESS_ZERO_BASED);
	expect_local_error(b_, wc, IBV_WC_MW_BIND_ERR, 12);
}

/* C10-72: a type 2 window is bound through a QP of its PD. */
TEST_F(MwTest, Type2BindOnQpOfAnotherPdIsBindError)
{
	connect_pair();
	auto mr = target();
	auto mw = alloc_mw(IBV_MW_TYPE_2);
	auto [a2, b2] = other_pair(other_pd());
	ibv_wc wc = bind_wr(b2, mw.get(), ibv_inc_rkey(mw->rkey), mr->get(),
			    mr->addr() + kWinOff, kWinLen, kWinAll);
	expect_local_error(b2, wc, IBV_WC_MW_BIND_ERR, 12);
}

/* The QP, the window and the MR of a type 1 bind share one PD. */
TEST_F(MwTest, Type1BindOnQpOfAnotherPdIsBindError)
{
	connect_pair();
	auto mr = target();
	auto mw = alloc_mw(IBV_MW_TYPE_1);
	auto [a2, b2] = other_pair(other_pd());
	expect_local_error(b2, bind1(b2, mw.get(), mr->get(),
				     mr->addr() + kWinOff, kWinLen, kWinAll),
			   IBV_WC_MW_BIND_ERR, 11);
}

TEST_F(MwTest, BindToMrOfAnotherPdIsBindError)
{
	connect_pair();
	auto pd2 = other_pd();
	auto mr = std::make_shared<Mr>(pd2, std::make_shared<Buffer>(kMrSize),
				       kBindable);
	auto mw = alloc_mw(IBV_MW_TYPE_2);
	ibv_wc wc = bind_wr(b_, mw.get(), ibv_inc_rkey(mw->rkey), mr->get(),
			    mr->addr() + kWinOff, kWinLen, kWinAll);
	expect_local_error(b_, wc, IBV_WC_MW_BIND_ERR, 12);
}

/* o10-37.2.30: a bound type 2 window is not bound again. */
TEST_F(MwTest, Type2BindOfBoundWindowIsBindError)
{
	connect_pair();
	auto mr = target();
	auto mw = alloc_mw(IBV_MW_TYPE_2);
	ASSERT_TRUE(bind2(b_, mw.get(), *mr));
	ibv_wc wc = bind_wr(b_, mw.get(), ibv_inc_rkey(mw->rkey), mr->get(),
			    mr->addr() + kWinOff, kWinLen, kWinAll);
	expect_local_error(b_, wc, IBV_WC_MW_BIND_ERR, 12);
}

/* o10-37.2.40: a type 2 window is not bound to zero bytes. */
TEST_F(MwTest, Type2ZeroLengthBindIsBindError)
{
	connect_pair();
	auto mr = target();
	auto mw = alloc_mw(IBV_MW_TYPE_2);
	ibv_wc wc = bind_wr(b_, mw.get(), ibv_inc_rkey(mw->rkey), mr->get(),
			    mr->addr() + kWinOff, 0, kWinAll);
	expect_local_error(b_, wc, IBV_WC_MW_BIND_ERR, 12);
}

/* The bind names the window by its current rkey. */
TEST_F(MwTest, BindWithStaleWindowRkeyIsBindError)
{
	connect_pair();
	auto mr = target();
	auto mw = alloc_mw(IBV_MW_TYPE_2);
	ASSERT_TRUE(bind2(b_, mw.get(), *mr));
	ASSERT_TRUE(wc_ok(local_inv(b_, mw->rkey), IBV_WC_LOCAL_INV, 13));
	uint32_t cur = mw->rkey;
	mw->rkey = ibv_inc_rkey(cur);	/* not the window's rkey */
	ibv_wc wc = bind_wr(b_, mw.get(), ibv_inc_rkey(mw->rkey), mr->get(),
			    mr->addr() + kWinOff, kWinLen, kWinAll);
	mw->rkey = cur;
	expect_local_error(b_, wc, IBV_WC_MW_BIND_ERR, 12);
}

/* A bind is local work of a connected QP: librxe refuses it on UD. */
TEST_F(MwTest, BindOnUdQpIsRefusedAtPost)
{
	auto mr = target();
	auto mw = alloc_mw(IBV_MW_TYPE_2);
	Endpoint ud = make_remote_endpoint(IBV_QPT_UD);
	ud_to_rts(*ud.qp, Side::remote);
	ibv_send_wr wr = wr_of(IBV_WR_BIND_MW, nullptr, 12), *bad = nullptr;

	wr.bind_mw.mw = mw.get();
	wr.bind_mw.rkey = ibv_inc_rkey(mw->rkey);
	wr.bind_mw.bind_info = {mr->get(), mr->addr() + kWinOff, kWinLen,
				kWinAll};
	EXPECT_EQ(ibv_post_send(ud.qp->get(), &wr, &bad), EINVAL);
	EXPECT_FALSE(try_poll(*ud.send_cq, cfg().quiet));
}

/* What follows a failed bind is flushed; nothing of it binds. */
TEST_F(MwTest, WorkAfterBindErrorIsFlushed)
{
	connect_pair();
	auto mr = target(kMrAccess);
	auto mw = alloc_mw(IBV_MW_TYPE_2);
	auto mw2 = alloc_mw(IBV_MW_TYPE_2);
	auto good = target();
	ibv_send_wr bad = wr_of(IBV_WR_BIND_MW, nullptr, 61);
	ibv_send_wr next = wr_of(IBV_WR_BIND_MW, nullptr, 62);

	bad.bind_mw.mw = mw.get();
	bad.bind_mw.rkey = ibv_inc_rkey(mw->rkey);
	bad.bind_mw.bind_info = {mr->get(), mr->addr(), kWinLen, kWinAll};
	next.bind_mw.mw = mw2.get();
	next.bind_mw.rkey = ibv_inc_rkey(mw2->rkey);
	next.bind_mw.bind_info = {good->get(), good->addr(), kWinLen, kWinAll};
	bad.next = &next;
	verbs::post_send(*b_.qp, bad);
	auto wcs = poll_n(*b_.send_cq, 2, "the failed bind and the one behind it");
	EXPECT_TRUE(wc_status(wcs[0], IBV_WC_MW_BIND_ERR, 61));
	EXPECT_TRUE(wc_status(wcs[1], IBV_WC_WR_FLUSH_ERR, 62));
	EXPECT_EQ(wait_qp_state(*b_.qp, IBV_QPS_ERR, cfg().timeout), IBV_QPS_ERR);
}

/* ---- invalidation errors ---- */

/* o10-37.2.26: a type 1 window is not invalidated by LOCAL_INV. */
TEST_F(MwTest, LocalInvalidateOfType1IsError)
{
	connect_pair();
	auto mr = target();
	auto mw = alloc_mw(IBV_MW_TYPE_1);
	ASSERT_TRUE(wc_ok(bind1(b_, mw.get(), mr->get(), mr->addr() + kWinOff,
				kWinLen, kWinAll),
			  IBV_WC_BIND_MW, 11));
	ibv_wc wc = local_inv(b_, mw->rkey);
	EXPECT_EQ(wc.wr_id, 13u);
	EXPECT_NE(wc.status, IBV_WC_SUCCESS) << describe(wc);
	EXPECT_NE(wc.status, IBV_WC_WR_FLUSH_ERR) << describe(wc);
	EXPECT_EQ(wait_qp_state(*b_.qp, IBV_QPS_ERR, cfg().timeout), IBV_QPS_ERR);
}

/* A LOCAL_INV of a key the window does not have now. */
TEST_F(MwTest, LocalInvalidateWithStaleRkeyIsError)
{
	connect_pair();
	auto mr = target();
	auto mw = alloc_mw(IBV_MW_TYPE_2);
	uint32_t k0 = mw->rkey;
	ASSERT_TRUE(bind2(b_, mw.get(), *mr));
	ibv_wc wc = local_inv(b_, k0);
	EXPECT_EQ(wc.wr_id, 13u);
	EXPECT_NE(wc.status, IBV_WC_SUCCESS) << describe(wc);
	EXPECT_NE(wc.status, IBV_WC_WR_FLUSH_ERR) << describe(wc);
}

/* A SEND with Invalidate naming a type 1 window: the receiver refuses. */
TEST_F(MwTest, SendWithInvalidateOfType1IsError)
{
	connect_pair();
	auto mr = target();
	auto mw = alloc_mw(IBV_MW_TYPE_1);
	auto rbuf = make_remote_mr(256);
	ASSERT_TRUE(wc_ok(bind1(b_, mw.get(), mr->get(), mr->addr() + kWinOff,
				kWinLen, kWinAll),
			  IBV_WC_BIND_MW, 11));
	ibv_sge rs = verbs::sge(*rbuf, 0, 256);
	ibv_recv_wr rwr{};
	rwr.wr_id = 51;
	rwr.sg_list = &rs;
	rwr.num_sge = 1;
	verbs::post_recv(*b_.qp, rwr);
	ibv_sge s = verbs::sge(*local_, 0, 16);
	ibv_send_wr wr = wr_of(IBV_WR_SEND_WITH_INV, &s, 52);
	wr.invalidate_rkey = mw->rkey;
	verbs::post_send(*a_.qp, wr);
	EXPECT_TRUE(wc_status(poll_one(*a_.send_cq, "the SEND with Invalidate"),
			      IBV_WC_REM_INV_REQ_ERR, 52));
	ibv_wc rwc = poll_one(*b_.recv_cq, "the receive of the SEND");
	EXPECT_NE(rwc.status, IBV_WC_SUCCESS) << describe(rwc);
}

/* ... or a type 2 window bound through another QP. */
TEST_F(MwTest, SendWithInvalidateOfAnotherQpsWindowIsError)
{
	connect_pair();
	auto mr = target();
	auto mw = alloc_mw(IBV_MW_TYPE_2);
	ASSERT_TRUE(bind2(b_, mw.get(), *mr));
	auto [a2, b2] = other_pair();
	auto rbuf = make_remote_mr(256);
	ibv_sge rs = verbs::sge(*rbuf, 0, 256);
	ibv_recv_wr rwr{};
	rwr.wr_id = 51;
	rwr.sg_list = &rs;
	rwr.num_sge = 1;
	verbs::post_recv(*b2.qp, rwr);
	ibv_sge s = verbs::sge(*local_, 0, 16);
	ibv_send_wr wr = wr_of(IBV_WR_SEND_WITH_INV, &s, 52);
	wr.invalidate_rkey = mw->rkey;
	verbs::post_send(*a2.qp, wr);
	EXPECT_TRUE(wc_status(poll_one(*a2.send_cq, "the SEND with Invalidate"),
			      IBV_WC_REM_INV_REQ_ERR, 52));
	/* The window is still bound and still reaches memory through b. */
	load_payload();
	ASSERT_TRUE(wc_ok(rdma(a_, IBV_WR_RDMA_WRITE, mw->rkey,
			       mr->addr() + kWinOff),
			  IBV_WC_RDMA_WRITE, 21));
	EXPECT_TRUE(wrote_at(*mr, kWinOff));
}

/* ---- lifetimes ---- */

/* IBA 10.6.7.2.6: an MR with bound windows is not deregistered. */
TEST_F(MwTest, DeregOfMrWithBoundWindowIsBusy)
{
	connect_pair();
	RawMr raw;
	raw.buf = std::make_shared<Buffer>(kMrSize);
	fill_pattern(raw.buf->data(), kMrSize, kGuardSeed);
	raw.mr = ibv_reg_mr(pd_of_remote(), raw.buf->data(), kMrSize, kBindable);
	ASSERT_NE(raw.mr, nullptr) << std::strerror(errno);
	auto mw = alloc_mw(IBV_MW_TYPE_1);
	ASSERT_TRUE(wc_ok(bind1(b_, mw.get(), raw.mr, raw.buf->addr() + kWinOff,
				kWinLen, kWinAll),
			  IBV_WC_BIND_MW, 11));
	EXPECT_EQ(raw.dereg(), EBUSY);
	/* Refused, the MR is as it was: the window still reaches it. */
	load_payload();
	ASSERT_TRUE(wc_ok(rdma(a_, IBV_WR_RDMA_WRITE, mw->rkey,
			       raw.buf->addr() + kWinOff),
			  IBV_WC_RDMA_WRITE, 21));
	EXPECT_TRUE(matches_pattern(raw.buf->data() + kWinOff, kLen,
				    kPayloadSeed));
	mw.reset();
	EXPECT_EQ(raw.dereg(), 0);
}

TEST_F(MwTest, DeregAfterType2InvalidateSucceeds)
{
	connect_pair();
	RawMr raw;
	raw.buf = std::make_shared<Buffer>(kMrSize);
	raw.mr = ibv_reg_mr(pd_of_remote(), raw.buf->data(), kMrSize, kBindable);
	ASSERT_NE(raw.mr, nullptr) << std::strerror(errno);
	auto mw = alloc_mw(IBV_MW_TYPE_2);
	uint32_t rkey = ibv_inc_rkey(mw->rkey);
	ASSERT_TRUE(wc_ok(bind_wr(b_, mw.get(), rkey, raw.mr,
				  raw.buf->addr() + kWinOff, kWinLen, kWinAll),
			  IBV_WC_BIND_MW, 12));
	EXPECT_EQ(raw.dereg(), EBUSY);
	ASSERT_TRUE(wc_ok(local_inv(b_, rkey), IBV_WC_LOCAL_INV, 13));
	EXPECT_EQ(raw.dereg(), 0);
}

/* Dealloc of a bound window succeeds; its rkey then reaches nothing. */
TEST_F(MwTest, DeallocOfBoundWindowRevokes)
{
	connect_pair();
	auto mr = target();
	auto mw = alloc_mw(IBV_MW_TYPE_2);
	ASSERT_TRUE(bind2(b_, mw.get(), *mr));
	uint32_t rkey = mw->rkey;
	EXPECT_EQ(ibv_dealloc_mw(mw.release()), 0);
	load_payload();
	expect_refused(rdma(a_, IBV_WR_RDMA_WRITE, rkey, mr->addr() + kWinOff),
		       *mr);
}

/*
 * A window deallocated while a long READ through it is answered: the
 * responder checks the window for every response, so once dealloc has
 * returned no byte of the memory reaches the reader any more.  b writes
 * a secret over the memory (still its MR's) after the dealloc: no secret
 * byte may arrive, and a READ cut short fails with a remote access error.
 * A READ that ended before the dealloc tested nothing: up to 3 tries, and
 * one must be cut.
 */
TEST_F(MwTest, DeallocDuringLongReadIsCut)
{
	constexpr size_t size = size_t{3} << 20;
	constexpr uint32_t seed = 0x6d2, secret = 0x5ed;

	expect_read_cut([&](ReadEnd &end) {
		connect_pair();
		auto mem = std::make_shared<Buffer>(size);
		auto src = std::make_shared<Mr>(pd(Side::remote), mem, kBindable);
		auto sink = make_mr(size, IBV_ACCESS_LOCAL_WRITE);
		auto mw = alloc_mw(IBV_MW_TYPE_1);

		fill_pattern(mem->data(), size, seed);
		fill_pattern(sink->data(), size, kGuardSeed);
		ASSERT_TRUE(wc_ok(bind1(b_, mw.get(), src->get(), src->addr(),
					size, IBV_ACCESS_REMOTE_READ),
				  IBV_WC_BIND_MW, 11));
		ibv_sge sg = verbs::sge(*sink, 0, static_cast<uint32_t>(size));
		ibv_send_wr wr = wr_of(IBV_WR_RDMA_READ, &sg, 1);
		wr.wr.rdma.remote_addr = src->addr();
		wr.wr.rdma.rkey = mw->rkey;
		verbs::post_send(*a_.qp, wr);

		wait_first_bytes(sink->data(), 0);
		ASSERT_EQ(ibv_dealloc_mw(mw.release()), 0);
		fill_pattern(mem->data(), size, secret);

		ibv_wc wc = poll_one(*a_.send_cq, "the READ's completion");
		end = judge_revoked_read(wc, sink->data(), size, seed, secret, 0,
					 "deallocated", *b_.qp);
		if (end == ReadEnd::kWhole) {
			EXPECT_TRUE(matches_pattern(sink->data(), size, seed))
				<< "a READ that ended before the dealloc";
		}
	}, "deallocated");
}

/* Destroying the QP a type 2 window was bound through releases the MR. */
TEST_F(MwTest, DestroyingItsQpReleasesType2Window)
{
	connect_pair();
	RawMr raw;
	raw.buf = std::make_shared<Buffer>(kMrSize);
	raw.mr = ibv_reg_mr(pd_of_remote(), raw.buf->data(), kMrSize, kBindable);
	ASSERT_NE(raw.mr, nullptr) << std::strerror(errno);
	auto mw = alloc_mw(IBV_MW_TYPE_2);
	{
		auto [a2, b2] = other_pair();
		ASSERT_TRUE(wc_ok(bind_wr(b2, mw.get(), ibv_inc_rkey(mw->rkey),
					  raw.mr, raw.buf->addr() + kWinOff,
					  kWinLen, kWinAll),
				  IBV_WC_BIND_MW, 12));
		EXPECT_EQ(raw.dereg(), EBUSY);
	}
	EXPECT_EQ(raw.dereg(), 0);
}

} // namespace
} // namespace vrnic::test
