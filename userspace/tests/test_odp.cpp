// SPDX-License-Identifier: GPL-2.0-only
/*
 * On-demand paging MRs (IBV_ACCESS_ON_DEMAND): registered without pinning,
 * their pages faulted in by the device as it touches them, and given up
 * when the process unmaps or frees them.  What is checked: the device's
 * odp_caps say what registration does; every RC operation and UD through
 * MRs whose pages were never touched (or not since registration) moves
 * the right bytes; a page the process freed is read as the process sees
 * it afterwards, not as it was; memory the process no longer maps is an
 * access error, not a hang.
 */

#include "fixture.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

namespace vrnic::test {
namespace {

using verbs::Mr;

/* rc_odp_caps every test here relies on (what vrnic advertises). */
constexpr uint32_t kRcOdp = IBV_ODP_SUPPORT_SEND | IBV_ODP_SUPPORT_RECV |
			    IBV_ODP_SUPPORT_WRITE | IBV_ODP_SUPPORT_READ |
			    IBV_ODP_SUPPORT_ATOMIC | IBV_ODP_SUPPORT_SRQ_RECV;
constexpr uint32_t kUdOdp = IBV_ODP_SUPPORT_SEND | IBV_ODP_SUPPORT_RECV;

/* Anonymous private memory of its own, unmapped with it; never touched. */
class Mapping {
public:
	explicit Mapping(size_t size) : mem_(map(size), Unmap{size}), size_(size)
	{
	}

	uint8_t *data() const { return static_cast<uint8_t *>(mem_.get()); }
	size_t size() const { return size_; }
	/* Give the pages back: the next touch reads zeros. */
	void drop(size_t off, size_t len) const
	{
		ASSERT_EQ(madvise(data() + off, len, MADV_DONTNEED), 0)
			<< "madvise(MADV_DONTNEED): " << std::strerror(errno);
	}
	/* Unmap [off, off + len): the process no longer has that memory. */
	void unmap(size_t off, size_t len) const
	{
		ASSERT_EQ(munmap(data() + off, len), 0)
			<< "munmap: " << std::strerror(errno);
	}

private:
	struct Unmap {
		size_t size;
		void operator()(void *p) const noexcept { munmap(p, size); }
	};
	static void *map(size_t size)
	{
		void *p = mmap(nullptr, size, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			throw std::system_error(errno, std::generic_category(),
						"mmap of " + std::to_string(size) +
						" bytes");
		return p;
	}
	std::unique_ptr<void, Unmap> mem_;
	size_t size_;
};

class OdpTest : public VerbsTest {
protected:
	/* The rc (or ud) ODP caps @side advertises, 0 without ODP. */
	uint32_t odp_caps(Side side, bool ud = false) const
	{
		ibv_device_attr_ex ex{};

		if (ibv_query_device_ex(context(side)->get(), nullptr, &ex) ||
		    !(ex.odp_caps.general_caps & IBV_ODP_SUPPORT))
			return 0;
		return ud ? ex.odp_caps.per_transport_caps.ud_odp_caps :
			    ex.odp_caps.per_transport_caps.rc_odp_caps;
	}

	/* An ODP MR over @m on @side's PD. */
	std::shared_ptr<Mr> odp_mr(const Mapping &m, int access, Side side)
	{
		return std::make_shared<Mr>(pd(side), m.data(), m.size(),
					    access | IBV_ACCESS_ON_DEMAND);
	}

	/*
	 * Both sides must offer @caps; a side that does not (rxe has no ODP)
	 * skips the test, vrnic fails it.
	 */
	bool both_offer(uint32_t caps, bool ud = false)
	{
		for (Side s : {Side::local, Side::remote}) {
			if ((odp_caps(s, ud) & caps) != caps) {
				[&] {
					VRNIC_SKIP_OR_FAIL(dev(s), dev(s).device
						<< " offers no ODP for these operations");
				}();
				return false;
			}
		}
		return true;
	}

	/* The vrnic devices of the run, to read their ODP counters. */
	std::vector<std::string> vrnic_devices() const
	{
		std::vector<std::string> v;

		if (dev(Side::local).is_vrnic())
			v.push_back(dev(Side::local).device);
		if (has_peer() && dev(Side::remote).is_vrnic() &&
		    dev(Side::remote).device != dev(Side::local).device)
			v.push_back(dev(Side::remote).device);
		return v;
	}

	uint64_t total(const std::vector<Counters> &cs, const char *name) const
	{
		uint64_t n = 0;

		for (const Counters &c : cs)
			n += c.delta(name);
		return n;
	}

	std::vector<Counters> sample() const
	{
		std::vector<Counters> cs;

		for (const std::string &d : vrnic_devices())
			cs.emplace_back(d);
		return cs;
	}
};

/*
 * What odp_caps says holds: with ODP, an MR with IBV_ACCESS_ON_DEMAND
 * registers; without, ib_core refuses it (ib_check_mr_access(): EINVAL in
 * Linux 6.1, EOPNOTSUPP in 6.12).  vrnic offers
 * ODP for every RC operation and UD, and refuses implicit ODP (the whole
 * address space), which it does not advertise.
 */
TEST_F(OdpTest, CapsSayWhatRegistrationDoes)
{
	for (Side s : {Side::local, Side::remote}) {
		const uint32_t caps = odp_caps(s);
		Mapping m(4 * 4096);
		ibv_mr *mr = ibv_reg_mr(pd(s)->get(), m.data(), m.size(),
					IBV_ACCESS_LOCAL_WRITE |
					IBV_ACCESS_ON_DEMAND);
		const int err = errno;

		if (caps) {
			EXPECT_NE(mr, nullptr) << dev(s).device << " offers ODP "
				<< "but refused an ODP MR: " << std::strerror(err);
		} else {
			EXPECT_EQ(mr, nullptr) << dev(s).device << " offers no "
				<< "ODP but registered an ODP MR";
			EXPECT_TRUE(err == EINVAL || err == EOPNOTSUPP)
				<< std::strerror(err);
		}
		if (mr) {
			EXPECT_EQ(ibv_dereg_mr(mr), 0);
		}
		if (!dev(s).is_vrnic())
			continue;
		EXPECT_EQ(caps & kRcOdp, kRcOdp) << "rc_odp_caps 0x" << std::hex
						 << caps;
		EXPECT_EQ(odp_caps(s, true) & kUdOdp, kUdOdp);
		errno = 0;
		mr = ibv_reg_mr(pd(s)->get(), nullptr, SIZE_MAX,
				IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_ON_DEMAND);
		EXPECT_EQ(mr, nullptr) << "implicit ODP registered";
		EXPECT_EQ(errno, EOPNOTSUPP) << std::strerror(errno);
		if (mr)
			ibv_dereg_mr(mr);
	}
}

/*
 * SEND (four packets, into a receive buffer never touched), WRITE, READ
 * back into a sink never touched, FETCH_AND_ADD and CMP_AND_SWP on a word
 * never touched: every MR on either side is an ODP MR, so each of the
 * requester, responder and completer meets pages to fault in.  Every byte
 * lands; the vrnic devices count the faults they resolved.
 */
TEST_F(OdpTest, RcOperationsFaultPagesIn)
{
	if (!both_offer(kRcOdp))
		return;
	const uint32_t mtu = path_mtu_bytes();
	const uint32_t send_len = 3 * mtu + 100;
	constexpr uint32_t rdma_len = 64 * 1024 + 123;
	Mapping src(128 * 1024), sink(128 * 1024), recv(128 * 1024),
		target(128 * 1024), word(4096), result(4096);
	auto before = sample();
	QpPair p = make_pair();
	auto src_mr = odp_mr(src, IBV_ACCESS_LOCAL_WRITE, Side::local);
	auto sink_mr = odp_mr(sink, IBV_ACCESS_LOCAL_WRITE, Side::local);
	auto result_mr = odp_mr(result, IBV_ACCESS_LOCAL_WRITE, Side::local);
	auto recv_mr = odp_mr(recv, IBV_ACCESS_LOCAL_WRITE, Side::remote);
	auto target_mr = odp_mr(target, kMrAccess, Side::remote);
	auto word_mr = odp_mr(word, kMrAccess | IBV_ACCESS_REMOTE_ATOMIC,
			      Side::remote);

	/* Touched by the CPU, but never mapped for the device yet. */
	fill_pattern(src.data(), src.size(), 0x0d9);

	ibv_sge r = verbs::sge(*recv_mr, 0, send_len);
	ibv_recv_wr rwr{};
	rwr.wr_id = 7;
	rwr.sg_list = &r;
	rwr.num_sge = 1;
	verbs::post_recv(*p.b.qp, rwr);
	ibv_sge s = verbs::sge(*src_mr, 0, send_len);
	ibv_send_wr swr = wr_of(IBV_WR_SEND, &s, 1);
	verbs::post_send(*p.a.qp, swr);
	ASSERT_TRUE(wc_ok(poll_one(*p.a.send_cq, "SEND"), IBV_WC_SEND, 1));
	ibv_wc wc = poll_one(*p.b.recv_cq, "receive");
	ASSERT_TRUE(wc_ok(wc, IBV_WC_RECV, 7));
	EXPECT_EQ(wc.byte_len, send_len);
	EXPECT_TRUE(matches_pattern(recv.data(), send_len, 0x0d9))
		<< "SEND into a receive buffer never touched";

	s = verbs::sge(*src_mr, 4096, rdma_len);
	ibv_send_wr wwr = rdma_wr(IBV_WR_RDMA_WRITE, s, 2,
				  target_mr->addr() + 64, target_mr->rkey());
	verbs::post_send(*p.a.qp, wwr);
	ASSERT_TRUE(wc_ok(poll_one(*p.a.send_cq, "WRITE"), IBV_WC_RDMA_WRITE, 2));
	EXPECT_TRUE(matches_pattern(target.data() + 64, rdma_len, 0x0d9, 4096))
		<< "WRITE into pages never touched";
	for (size_t i : {size_t{0}, size_t{63}, size_t{64} + rdma_len})
		EXPECT_EQ(target.data()[i], 0) << "byte " << i << " outside the WRITE";

	s = verbs::sge(*sink_mr, 8, rdma_len);
	ibv_send_wr rdwr = rdma_wr(IBV_WR_RDMA_READ, s, 3,
				   target_mr->addr() + 64, target_mr->rkey());
	verbs::post_send(*p.a.qp, rdwr);
	ASSERT_TRUE(wc_ok(poll_one(*p.a.send_cq, "READ"), IBV_WC_RDMA_READ, 3));
	EXPECT_TRUE(matches_pattern(sink.data() + 8, rdma_len, 0x0d9, 4096))
		<< "READ into a sink never touched";

	s = verbs::sge(*result_mr, 0, 8);
	ibv_send_wr fa = wr_of(IBV_WR_ATOMIC_FETCH_AND_ADD, &s, 4);
	fa.wr.atomic.remote_addr = word_mr->addr() + 256;
	fa.wr.atomic.rkey = word_mr->rkey();
	fa.wr.atomic.compare_add = 5;
	verbs::post_send(*p.a.qp, fa);
	ASSERT_TRUE(wc_ok(poll_one(*p.a.send_cq, "FETCH_AND_ADD"),
			  IBV_WC_FETCH_ADD, 4));
	ibv_sge s2 = verbs::sge(*result_mr, 8, 8);
	ibv_send_wr cs = wr_of(IBV_WR_ATOMIC_CMP_AND_SWP, &s2, 5);
	cs.wr.atomic.remote_addr = word_mr->addr() + 256;
	cs.wr.atomic.rkey = word_mr->rkey();
	cs.wr.atomic.compare_add = 5;
	cs.wr.atomic.swap = 0x1122334455667788ULL;
	verbs::post_send(*p.a.qp, cs);
	ASSERT_TRUE(wc_ok(poll_one(*p.a.send_cq, "CMP_AND_SWP"),
			  IBV_WC_COMP_SWAP, 5));
	uint64_t got[2], now;
	std::memcpy(got, result.data(), sizeof(got));
	std::memcpy(&now, word.data() + 256, sizeof(now));
	EXPECT_EQ(got[0], 0u) << "FETCH_AND_ADD's original value";
	EXPECT_EQ(got[1], 5u) << "CMP_AND_SWP's original value";
	EXPECT_EQ(now, 0x1122334455667788ULL) << "the word after both";

	if (!before.empty()) {
		EXPECT_GT(total(before, "odp_page_faults"), 0u);
		EXPECT_EQ(total(before, "odp_fault_errors"), 0u);
	}
}

/*
 * A page the process gave back is read as the process now sees it: after
 * a READ mapped the source's pages for the device, madvise(MADV_DONTNEED)
 * frees them (an invalidation), and a READ of the same range must return
 * zeros, not the bytes of the freed pages.  A WRITE after it lands where
 * the process sees it.
 */
TEST_F(OdpTest, FreedPagesAreNotReadThroughStaleMappings)
{
	if (!both_offer(kRcOdp))
		return;
	constexpr uint32_t len = 32 * 1024;
	Mapping source(len), sink(len);
	QpPair p = make_pair();
	auto source_mr = odp_mr(source, kMrAccess, Side::remote);
	auto sink_mr = odp_mr(sink, IBV_ACCESS_LOCAL_WRITE, Side::local);

	fill_pattern(source.data(), len, 0x5eed);
	ibv_sge s = verbs::sge(*sink_mr, 0, len);
	ibv_send_wr rd = rdma_wr(IBV_WR_RDMA_READ, s, 1, source_mr->addr(),
				 source_mr->rkey());
	verbs::post_send(*p.a.qp, rd);
	ASSERT_TRUE(wc_ok(poll_one(*p.a.send_cq, "first READ"),
			  IBV_WC_RDMA_READ, 1));
	ASSERT_TRUE(matches_pattern(sink.data(), len, 0x5eed));

	auto before = sample();
	source.drop(0, len);
	std::memset(sink.data(), 0xa5, len);
	rd.wr_id = 2;
	verbs::post_send(*p.a.qp, rd);
	ASSERT_TRUE(wc_ok(poll_one(*p.a.send_cq, "READ after MADV_DONTNEED"),
			  IBV_WC_RDMA_READ, 2));
	size_t stale = 0;
	for (uint32_t i = 0; i < len; i++)
		stale += sink.data()[i] != 0;
	EXPECT_EQ(stale, 0u) << "bytes of the freed pages read through a "
				"stale mapping (the process reads zeros there)";

	fill_pattern(sink.data(), len, 0x77);
	ibv_send_wr wr = rdma_wr(IBV_WR_RDMA_WRITE, s, 3, source_mr->addr(),
				 source_mr->rkey());
	verbs::post_send(*p.a.qp, wr);
	ASSERT_TRUE(wc_ok(poll_one(*p.a.send_cq, "WRITE"), IBV_WC_RDMA_WRITE, 3));
	EXPECT_TRUE(matches_pattern(source.data(), len, 0x77))
		<< "WRITE after the pages were freed";
	if (!before.empty()) {
		EXPECT_GT(total(before, "odp_invalidations"), 0u);
	}
}

/*
 * Memory the process no longer maps: a WRITE to it through the remote
 * side's ODP MR completes with a remote access error, a SEND from it
 * with a local protection error.  Neither hangs.
 */
TEST_F(OdpTest, UnmappedMemoryIsAnAccessError)
{
	if (!both_offer(kRcOdp))
		return;
	Mapping target(2 * 4096), src(2 * 4096);
	auto target_mr = odp_mr(target, kMrAccess, Side::remote);
	auto src_mr = odp_mr(src, IBV_ACCESS_LOCAL_WRITE, Side::local);
	auto ok_src = make_mr(4096, IBV_ACCESS_LOCAL_WRITE);
	auto before = sample();

	target.unmap(4096, 4096);
	src.unmap(4096, 4096);
	{
		QpPair p = make_pair();
		ibv_sge s = verbs::sge(*ok_src, 0, 512);
		ibv_send_wr wr = rdma_wr(IBV_WR_RDMA_WRITE, s, 1,
					 target_mr->addr() + 4096 + 100,
					 target_mr->rkey());
		verbs::post_send(*p.a.qp, wr);
		EXPECT_TRUE(wc_status(poll_one(*p.a.send_cq, "WRITE to memory "
					       "no longer mapped"),
				      IBV_WC_REM_ACCESS_ERR, 1));
	}
	{
		QpPair p = make_pair();
		auto rbuf = make_remote_mr(4096);
		ibv_sge r = verbs::sge(*rbuf, 0, 4096);
		ibv_recv_wr rwr{};
		rwr.sg_list = &r;
		rwr.num_sge = 1;
		verbs::post_recv(*p.b.qp, rwr);
		ibv_sge s = verbs::sge(*src_mr, 4096 + 8, 256);
		ibv_send_wr wr = wr_of(IBV_WR_SEND, &s, 2);
		verbs::post_send(*p.a.qp, wr);
		EXPECT_TRUE(wc_status(poll_one(*p.a.send_cq, "SEND from memory "
					       "no longer mapped"),
				      IBV_WC_LOC_PROT_ERR, 2));
	}
	if (!before.empty()) {
		EXPECT_GE(total(before, "odp_fault_errors"), 2u);
	}
}

/* UD: a SEND from and into ODP MRs never touched, GRH and payload. */
TEST_F(OdpTest, UdSendFaultsPagesIn)
{
	if (!both_offer(kUdOdp, true))
		return;
	const uint32_t len = path_mtu_bytes() - 64;
	Mapping src(8192), recv(8192);
	Endpoint a = make_endpoint(IBV_QPT_UD);
	Endpoint b = make_remote_endpoint(IBV_QPT_UD);
	ud_to_rts(*a.qp);
	ud_to_rts(*b.qp, Side::remote);
	auto src_mr = odp_mr(src, IBV_ACCESS_LOCAL_WRITE, Side::local);
	auto recv_mr = odp_mr(recv, IBV_ACCESS_LOCAL_WRITE, Side::remote);
	auto ah = std::make_shared<verbs::Ah>(pd(Side::local),
					      ah_attr(Side::local, Side::remote));

	fill_pattern(src.data(), len, 0x0ddd);
	ibv_sge r = verbs::sge(*recv_mr, 4096 - kGrhSize, kGrhSize + len);
	ibv_recv_wr rwr{};
	rwr.wr_id = 9;
	rwr.sg_list = &r;
	rwr.num_sge = 1;
	verbs::post_recv(*b.qp, rwr);
	ibv_sge s = verbs::sge(*src_mr, 0, len);
	ibv_send_wr wr = wr_of(IBV_WR_SEND, &s, 1);
	wr.wr.ud.ah = ah->get();
	wr.wr.ud.remote_qpn = b.qp->get()->qp_num;
	wr.wr.ud.remote_qkey = kQkey;
	verbs::post_send(*a.qp, wr);
	ASSERT_TRUE(wc_ok(poll_one(*a.send_cq, "UD SEND"), IBV_WC_SEND, 1));
	ibv_wc wc = poll_one(*b.recv_cq, "UD receive");
	ASSERT_TRUE(wc_ok(wc, IBV_WC_RECV, 9));
	EXPECT_EQ(wc.byte_len, kGrhSize + len);
	expect_grh(recv.data() + 4096 - kGrhSize);
	EXPECT_TRUE(matches_pattern(recv.data() + 4096, len, 0x0ddd));
}

} // namespace
} // namespace vrnic::test
