// SPDX-License-Identifier: GPL-2.0-only
/*
 * UD SEND/RECV from a QP on the device under test through an AH to the
 * remote side's GID (its own GID without a peer device): the receive buffer
 * starts with the 40-byte GRH, then the payload; Q_Key filtering.
 */

#include "fixture.hpp"

#include <arpa/inet.h>
#include <linux/capability.h>
#include <netinet/in.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstring>
#include <optional>
#include <thread>

namespace vrnic::test {
namespace {

using verbs::Mr;

class UdTest : public VerbsTest {
protected:
	void SetUp() override
	{
		VerbsTest::SetUp();
		a_ = make_endpoint(IBV_QPT_UD);
		b_ = make_remote_endpoint(IBV_QPT_UD);
		ud_to_rts(*a_.qp, Side::local);
		ud_to_rts(*b_.qp, Side::remote);
		ah_ = std::make_shared<verbs::Ah>(
			pd_, ah_attr(Side::local, Side::remote));
	}

	/*
	 * Receive buffer on the remote side, posted to @qp (b_ by default):
	 * GRH + size + guard, all guard pattern at first.
	 */
	std::shared_ptr<Mr> post_recv(size_t size, uint64_t wr_id,
				      const verbs::Qp *qp = nullptr)
	{
		auto mr = make_remote_mr(kGrhSize + size + kGuard);
		ibv_sge s = verbs::sge(*mr, 0,
				       static_cast<uint32_t>(mr->length()));
		ibv_recv_wr wr{};

		fill_pattern(mr->data(), mr->length(), kGuardSeed);
		wr.wr_id = wr_id;
		wr.sg_list = &s;
		wr.num_sge = 1;
		verbs::post_recv(qp ? *qp : *b_.qp, wr);
		return mr;
	}

	/*
	 * One datagram of @size pattern bytes (@seed) from a_, as wr 1, to a
	 * receive WQE @recv_id on b_: its send completion checked, its receive
	 * completion returned, the receive buffer (GRH first) in @dst.
	 */
	ibv_wc deliver(size_t size, uint32_t seed, uint64_t recv_id,
		       std::shared_ptr<Mr> &dst, const char *what)
	{
		auto src = make_mr(size, IBV_ACCESS_LOCAL_WRITE);

		dst = post_recv(size, recv_id);
		fill_pattern(src->data(), size, seed);
		send(*src, size, 1, kQkey);
		EXPECT_TRUE(wc_ok(poll_one(*a_.send_cq, what), IBV_WC_SEND, 1))
			<< what;
		return poll_one(*b_.recv_cq, what);
	}

	void send(const Mr &src, size_t size, uint64_t wr_id, uint32_t qkey,
		  ibv_wr_opcode opcode = IBV_WR_SEND, uint32_t imm = 0)
	{
		ibv_sge s = verbs::sge(src, 0, static_cast<uint32_t>(size));
		ibv_send_wr wr{};

		wr.wr_id = wr_id;
		wr.sg_list = &s;
		wr.num_sge = 1;
		wr.opcode = opcode;
		wr.send_flags = IBV_SEND_SIGNALED;
		wr.imm_data = imm;
		wr.wr.ud.ah = ah_->get();
		wr.wr.ud.remote_qpn = b_.qp->num();
		wr.wr.ud.remote_qkey = qkey;
		verbs::post_send(*a_.qp, wr);
	}

	Endpoint a_, b_;
	std::shared_ptr<verbs::Ah> ah_;
};

class UdSendRecv : public UdTest,
		   public ::testing::WithParamInterface<size_t> {};

/* 0 stands for the full path MTU, which is known only at run time. */
constexpr size_t kPathMtu = 0;

TEST_P(UdSendRecv, Size)
{
	const size_t size = GetParam() == kPathMtu ? path_mtu_bytes() : GetParam();
	const uint32_t seed = static_cast<uint32_t>(size) + 0x0d00;
	auto src = make_mr(size, IBV_ACCESS_LOCAL_WRITE);
	auto dst = post_recv(size, 9);

	fill_pattern(src->data(), size, seed);
	send(*src, size, 1, kQkey);

	EXPECT_TRUE(wc_ok(poll_one(*a_.send_cq, "UD SEND completion"),
			  IBV_WC_SEND, 1));
	ibv_wc wc = poll_one(*b_.recv_cq, "UD RECV completion");
	ASSERT_TRUE(wc_ok(wc, IBV_WC_RECV, 9));
	EXPECT_EQ(wc.byte_len, kGrhSize + size) << "byte_len counts the GRH";
	EXPECT_TRUE(wc.wc_flags & IBV_WC_GRH) << describe(wc);
	EXPECT_FALSE(wc.wc_flags & IBV_WC_WITH_IMM) << describe(wc);
	EXPECT_EQ(wc.src_qp, a_.qp->num());
	EXPECT_EQ(wc.qp_num, b_.qp->num());
	expect_grh(dst->data());
	EXPECT_TRUE(matches_pattern(dst->data() + kGrhSize, size, seed))
		<< "payload after the GRH";
	EXPECT_TRUE(matches_pattern(dst->data() + kGrhSize + size, kGuard,
				    kGuardSeed, kGrhSize + size))
		<< "bytes past the message were written";
}

INSTANTIATE_TEST_SUITE_P(Sizes, UdSendRecv,
			 ::testing::Values(size_t{1}, size_t{63}, size_t{64},
					   size_t{256}, kPathMtu),
			 [](const ::testing::TestParamInfo<size_t> &info) {
				 return info.param == kPathMtu ?
						std::string("PathMtu") :
						size_name(info.param);
			 });

TEST_F(UdTest, SendWithImmediate)
{
	constexpr size_t size = 100;
	const uint32_t imm = htonl(0x0badf00d);
	auto src = make_mr(size, IBV_ACCESS_LOCAL_WRITE);
	auto dst = post_recv(size, 3);

	fill_pattern(src->data(), size, 0x1d);
	send(*src, size, 1, kQkey, IBV_WR_SEND_WITH_IMM, imm);

	EXPECT_TRUE(wc_ok(poll_one(*a_.send_cq, "UD SEND_WITH_IMM completion"),
			  IBV_WC_SEND, 1));
	ibv_wc wc = poll_one(*b_.recv_cq, "UD RECV with immediate");
	ASSERT_TRUE(wc_ok(wc, IBV_WC_RECV, 3));
	EXPECT_TRUE(wc.wc_flags & IBV_WC_WITH_IMM) << describe(wc);
	EXPECT_EQ(wc.imm_data, imm) << describe(wc);
	EXPECT_EQ(wc.byte_len, kGrhSize + size);
	EXPECT_EQ(wc.src_qp, a_.qp->num());
	EXPECT_TRUE(matches_pattern(dst->data() + kGrhSize, size, 0x1d));
}

/*
 * A user CQE has no field for a datagram's network header type (IBA
 * A17.4.5.1 asks the CQE to say IPv4 or IPv6).  A ConnectX puts it in the
 * SL of a RoCE UD receive: bit 3 for a UDP header (RoCEv2), bits 2-0 1
 * for IPv6 and 2 for IPv4.  UCX's UD transport reads it there to find the
 * destination GID in the GRH, and drops what it cannot match (rxe 6.1
 * reports SL 0: UCX 1.13's UD drops every RoCEv2/IPv4 datagram).  The
 * flags carry nothing that was not sent.
 */
TEST_F(UdTest, ReceiveSaysNetworkHeaderTypeInSl)
{
	std::shared_ptr<Mr> dst;
	ibv_wc wc = deliver(32, 0x5e, 4, dst, "a datagram");

	ASSERT_TRUE(wc_ok(wc, IBV_WC_RECV, 4));
	expect_grh(dst->data());
	const unsigned want = dev(Side::local).has_ipv4 ? 0xa : 0x9;
	EXPECT_EQ(unsigned{wc.sl}, want)
		<< "SL: RoCEv2 (bit 3) over " << (want == 0xa ? "IPv4" : "IPv6");
	EXPECT_EQ(wc.wc_flags, unsigned{IBV_WC_GRH}) << describe(wc);
}

TEST_F(UdTest, WrongQkeyNotDelivered)
{
	constexpr size_t size = 128;
	auto src = make_mr(size, IBV_ACCESS_LOCAL_WRITE);
	auto dst = post_recv(size, 5);

	/* A UD send completes locally whether or not anyone accepts it. */
	fill_pattern(src->data(), size, 0xbad);
	send(*src, size, 1, kQkey ^ 0x00ff00ff);
	EXPECT_TRUE(wc_ok(poll_one(*a_.send_cq, "UD SEND (wrong Q_Key)"),
			  IBV_WC_SEND, 1));
	auto wc = try_poll(*b_.recv_cq, cfg().quiet);
	EXPECT_FALSE(wc) << "message with a wrong Q_Key was delivered: "
			 << describe(*wc);
	EXPECT_TRUE(matches_pattern(dst->data(), dst->length(), kGuardSeed))
		<< "receive buffer written by a dropped message";

	/* The same receive then takes a message with the right Q_Key. */
	fill_pattern(src->data(), size, 0x600d);
	send(*src, size, 2, kQkey);
	EXPECT_TRUE(wc_ok(poll_one(*a_.send_cq, "UD SEND (right Q_Key)"),
			  IBV_WC_SEND, 2));
	ibv_wc good = poll_one(*b_.recv_cq, "UD RECV (right Q_Key)");
	ASSERT_TRUE(wc_ok(good, IBV_WC_RECV, 5));
	EXPECT_EQ(good.byte_len, kGrhSize + size);
	EXPECT_TRUE(matches_pattern(dst->data() + kGrhSize, size, 0x600d));
}

/*
 * IBA 10.2.5: a Q_Key with the high-order bit set in a send work request
 * stands for the sending QP's own Q_Key. Both QPs hold kQkey, so a send
 * that names a controlled key is delivered: sent as written it would carry
 * another key and be dropped. For an unprivileged process this is what
 * keeps it from sending with the GSI QP's Q_Key (0x80010000).
 */
TEST_F(UdTest, ControlledQkeyMeansTheQpsOwn)
{
	constexpr size_t size = 96;
	auto src = make_mr(size, IBV_ACCESS_LOCAL_WRITE);
	auto dst = post_recv(size, 7);

	static_assert((kQkey & 0x80000000) == 0);
	fill_pattern(src->data(), size, 0x7c);
	send(*src, size, 1, 0x80000000 | (kQkey ^ 0x00ff00ff));
	EXPECT_TRUE(wc_ok(poll_one(*a_.send_cq, "UD SEND (controlled Q_Key)"),
			  IBV_WC_SEND, 1));
	ibv_wc wc = poll_one(*b_.recv_cq,
			     "UD RECV: a send naming a controlled Q_Key must "
			     "carry the sending QP's own");
	ASSERT_TRUE(wc_ok(wc, IBV_WC_RECV, 7));
	EXPECT_EQ(wc.byte_len, kGrhSize + size);
	EXPECT_TRUE(matches_pattern(dst->data() + kGrhSize, size, 0x7c));
}

/*
 * Takes @cap out of the calling thread's effective set; false if the
 * thread did not have it.  Only for a thread of its own: the new
 * credentials are not the ones the verbs file was opened with, and
 * uverbs answers that thread's write() commands (post_send among them)
 * with EACCES from then on.
 */
bool drop_capability(unsigned int cap)
{
	__user_cap_header_struct hdr{ _LINUX_CAPABILITY_VERSION_3, 0 };
	__user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3]{};
	const uint32_t bit = 1u << (cap % 32);

	if (syscall(SYS_capget, &hdr, data) != 0 ||
	    !(data[cap / 32].effective & bit))
		return false;
	data[cap / 32].effective &= ~bit;
	return syscall(SYS_capset, &hdr, data) == 0;
}

/*
 * A controlled Q_Key (high-order bit set, the GSI's 0x80010000 among
 * them) is for privileged consumers (IBA 10.2.5): a process without
 * CAP_NET_RAW that gives one to its UD QP is refused with EPERM, and the
 * QP keeps its Q_Key and carries traffic; with CAP_NET_RAW it is taken.
 * (Debian's 6.1 uverbs refuses it before the driver sees it, unless
 * `rdma system set privileged-qkey on`; vrnic refuses it too, for
 * kernels whose core does not.)
 */
TEST_F(UdTest, ControlledQkeyNeedsCapNetRaw)
{
	constexpr uint32_t kGsiQkey = 0x80010000;
	constexpr size_t size = 64;
	bool dropped = false;
	int controlled = -1, ordinary = -1, back = -1;

	std::thread([&] {
		dropped = drop_capability(CAP_NET_RAW);
		if (!dropped)
			return;
		ibv_qp_attr a{};
		a.qkey = kGsiQkey;
		controlled = ibv_modify_qp(a_.qp->get(), &a, IBV_QP_QKEY);
		a.qkey = kQkey ^ 0x0f0f;
		ordinary = ibv_modify_qp(a_.qp->get(), &a, IBV_QP_QKEY);
		a.qkey = kQkey;
		back = ibv_modify_qp(a_.qp->get(), &a, IBV_QP_QKEY);
	}).join();
	if (!dropped)
		GTEST_SKIP() << "needs CAP_NET_RAW to drop (run as root)";
	EXPECT_EQ(controlled, EPERM)
		<< "an unprivileged process set the Q_Key 0x80010000";
	EXPECT_EQ(ordinary, 0) << "an ordinary Q_Key, unprivileged";
	EXPECT_EQ(back, 0);

	std::shared_ptr<Mr> dst;
	ibv_wc wc = deliver(size, 0x5d, 3, dst, "a datagram after the refusal");
	ASSERT_TRUE(wc_ok(wc, IBV_WC_RECV, 3));
	EXPECT_TRUE(matches_pattern(dst->data() + kGrhSize, size, 0x5d));

	ibv_qp_attr a{};
	a.qkey = kGsiQkey;
	EXPECT_EQ(ibv_modify_qp(a_.qp->get(), &a, IBV_QP_QKEY), 0)
		<< "with CAP_NET_RAW, the Q_Key 0x80010000";
	ibv_qp_attr got{};
	ibv_qp_init_attr init{};
	ASSERT_EQ(ibv_query_qp(a_.qp->get(), &got, IBV_QP_QKEY, &init), 0);
	EXPECT_EQ(got.qkey, kGsiQkey);
}

/*
 * The send queue of a UD QP moved from RTS to RESET takes no work request:
 * ibv_wr_complete() and ibv_post_send() fail with EINVAL (IBA 10.3.1;
 * issue 18 saw 0). On vrnic the refused send does not go out later
 * either: back in RTS, only the send posted there arrives. (rxe 6.1
 * keeps what librxe wrote into the ring and may send it at RTS.)
 */
TEST_F(VerbsTest, UdPostInResetIsRefused)
{
	constexpr uint32_t size = 64;
	verbs::QpCaps caps;
	caps.send_ops_flags = IBV_QP_EX_WITH_SEND;
	Endpoint a = make_endpoint(IBV_QPT_UD, caps);
	Endpoint b = make_remote_endpoint(IBV_QPT_UD);
	ud_to_rts(*a.qp, Side::local);
	ud_to_rts(*b.qp, Side::remote);
	verbs::Ah ah(pd_, ah_attr(Side::local, Side::remote));
	auto refused = make_mr(size, IBV_ACCESS_LOCAL_WRITE);
	auto sent = make_mr(size, IBV_ACCESS_LOCAL_WRITE);
	fill_pattern(refused->data(), size, 0x3e);
	fill_pattern(sent->data(), size, 0x4f);

	ibv_qp_attr reset{};
	reset.qp_state = IBV_QPS_RESET;
	a.qp->modify(reset, IBV_QP_STATE);

	ibv_qp_ex *qpx = a.qp->ex();
	ibv_wr_start(qpx);
	qpx->wr_id = 1;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(qpx);
	ibv_wr_set_ud_addr(qpx, ah.get(), b.qp->num(), kQkey);
	ibv_wr_set_sge(qpx, refused->lkey(), refused->addr(), size);
	EXPECT_EQ(verbs::verbs_errno(ibv_wr_complete(qpx)), EINVAL)
		<< "ibv_wr_complete on a QP in RESET";

	ibv_sge s = verbs::sge(*refused, 0, size);
	ibv_send_wr w = wr_of(IBV_WR_SEND, &s, 2);
	w.wr.ud.ah = ah.get();
	w.wr.ud.remote_qpn = b.qp->num();
	w.wr.ud.remote_qkey = kQkey;
	ibv_send_wr *bad = nullptr;
	EXPECT_EQ(ibv_post_send(a.qp->get(), &w, &bad), EINVAL)
		<< "ibv_post_send on a QP in RESET";
	EXPECT_FALSE(try_poll(*a.send_cq, 100ms)) << "a refused send completed";
	if (!dev(Side::local).is_vrnic())
		return;

	auto dst = make_remote_mr(2 * (kGrhSize + size), IBV_ACCESS_LOCAL_WRITE);
	for (uint64_t i = 0; i < 2; i++) {
		ibv_sge r = verbs::sge(*dst, i * (kGrhSize + size), kGrhSize + size);
		ibv_recv_wr rw{};
		rw.wr_id = 10 + i;
		rw.sg_list = &r;
		rw.num_sge = 1;
		verbs::post_recv(*b.qp, rw);
	}
	ud_to_rts(*a.qp, Side::local);
	s = verbs::sge(*sent, 0, size);
	w.wr_id = 3;
	verbs::post_send(*a.qp, w);
	EXPECT_TRUE(wc_ok(poll_one(*a.send_cq, "the send posted in RTS"),
			  IBV_WC_SEND, 3));
	ibv_wc wc = poll_one(*b.recv_cq, "the datagram sent from RTS");
	ASSERT_TRUE(wc_ok(wc, IBV_WC_RECV, 10));
	EXPECT_EQ(wc.byte_len, kGrhSize + size);
	EXPECT_TRUE(matches_pattern(dst->data() + kGrhSize, size, 0x4f))
		<< "the first datagram is not the send posted in RTS";
	EXPECT_FALSE(try_poll(*a.send_cq, 200ms)) << "a refused send completed later";
	EXPECT_FALSE(try_poll(*b.recv_cq, 200ms)) << "a refused send arrived later";
}

/*
 * Delivery to the device's own address must not nest. A chain of UD QPs on
 * the device under test, each holding a send for the next one at the
 * device's own GID, posted while it was in RTR (the requester sends only
 * from RTS, and entering RTS does not start it): the first datagram, from
 * the peer device across the wire, arrives in the receive softirq, which
 * runs the first QP's engines; they send its held WQE to the second QP,
 * whose delivery comes back to the receive path in the same softirq, and
 * so on. Run inline all the way, that nests once per QP of the chain and
 * overflows the kernel stack; every datagram must instead arrive, intact.
 */
TEST_F(VerbsTest, UdChainOfLocalDeliveries)
{
	if (!has_peer())
		GTEST_SKIP() << "needs --peer-device: the chain starts with a "
				"datagram from the wire";
	constexpr size_t kChain = 96, size = 64;
	constexpr uint32_t kSeed = 0xc4a1;
	auto cq = make_cq(static_cast<int>(2 * kChain + 8));
	auto bufs = make_mr(kChain * (kGrhSize + size), IBV_ACCESS_LOCAL_WRITE);
	auto src = make_mr(kChain * size, IBV_ACCESS_LOCAL_WRITE);
	verbs::Ah own(pd_, own_ah_attr());
	std::vector<Endpoint> u;

	fill_pattern(bufs->data(), bufs->length(), kGuardSeed);
	for (size_t i = 0; i < kChain; i++) {
		u.push_back(make_endpoint(IBV_QPT_UD, {}, cq, cq));
		modify_to_init(*u[i].qp);
		ibv_qp_attr a{};
		a.qp_state = IBV_QPS_RTR;
		u[i].qp->modify(a, IBV_QP_STATE);

		ibv_sge s = verbs::sge(*bufs, i * (kGrhSize + size),
				       kGrhSize + size);
		ibv_recv_wr r{};
		r.wr_id = 0x1000 + i;
		r.sg_list = &s;
		r.num_sge = 1;
		verbs::post_recv(*u[i].qp, r);
		fill_pattern(src->data() + i * size, size, kSeed + i);
	}
	/* QP i holds a send of payload i + 1 to QP i + 1. */
	for (size_t i = 0; i + 1 < kChain; i++) {
		ibv_sge s = verbs::sge(*src, (i + 1) * size, size);
		ibv_send_wr w = wr_of(IBV_WR_SEND, &s, 0x2000 + i);
		w.wr.ud.ah = own.get();
		w.wr.ud.remote_qpn = u[i + 1].qp->num();
		w.wr.ud.remote_qkey = kQkey;
		ibv_send_wr *bad = nullptr;
		const int err = ibv_post_send(u[i].qp->get(), &w, &bad);
		/*
		 * rxe refuses a send posted before RTS (an immediate error);
		 * vrnic queues it for RTS, as NICs do, and must take it.
		 */
		if (err && i == 0 && !dev(Side::local).is_vrnic())
			GTEST_SKIP() << dev(Side::local).device
				     << " refuses a send posted in RTR (" << std::strerror(err)
				     << "): no chain to build";
		ASSERT_EQ(err, 0) << "post_send in RTR on QP " << i << ": "
				  << std::strerror(err);
	}
	for (auto &e : u) {
		ibv_qp_attr a{};
		a.qp_state = IBV_QPS_RTS;
		a.sq_psn = kPsnA;
		e.qp->modify(a, IBV_QP_STATE | IBV_QP_SQ_PSN);
	}

	/* The first datagram: payload 0, from the peer device to QP 0. */
	auto peer = make_remote_endpoint(IBV_QPT_UD);
	ud_to_rts(*peer.qp, Side::remote);
	verbs::Ah to_dut(pd(Side::remote), ah_attr(Side::remote, Side::local));
	auto first = make_remote_mr(size, IBV_ACCESS_LOCAL_WRITE);
	fill_pattern(first->data(), size, kSeed);
	{
		ibv_sge s = verbs::sge(*first, 0, size);
		ibv_send_wr w = wr_of(IBV_WR_SEND, &s, 1);
		w.wr.ud.ah = to_dut.get();
		w.wr.ud.remote_qpn = u[0].qp->num();
		w.wr.ud.remote_qkey = kQkey;
		verbs::post_send(*peer.qp, w);
	}
	EXPECT_TRUE(wc_ok(poll_one(*peer.send_cq, "the first datagram's send"),
			  IBV_WC_SEND, 1));

	/* kChain receives and kChain - 1 sends, in any order. */
	std::vector<bool> got(kChain), sent(kChain);
	for (const ibv_wc &wc : poll_n(*cq, 2 * kChain - 1,
				       "the chain's completions")) {
		ASSERT_EQ(wc.status, IBV_WC_SUCCESS) << describe(wc);
		if (wc.opcode == IBV_WC_SEND) {
			ASSERT_LT(wc.wr_id - 0x2000, kChain - 1) << describe(wc);
			sent[wc.wr_id - 0x2000] = true;
			continue;
		}
		ASSERT_EQ(wc.opcode, IBV_WC_RECV) << describe(wc);
		const size_t i = wc.wr_id - 0x1000;
		ASSERT_LT(i, kChain) << describe(wc);
		EXPECT_EQ(wc.qp_num, u[i].qp->num());
		EXPECT_EQ(wc.byte_len, kGrhSize + size) << describe(wc);
		EXPECT_TRUE(matches_pattern(bufs->data() + i * (kGrhSize + size) +
						    kGrhSize,
					    size, kSeed + i))
			<< "payload at QP " << i << " of the chain";
		got[i] = true;
	}
	for (size_t i = 0; i < kChain; i++) {
		EXPECT_TRUE(got[i]) << "QP " << i << " of the chain got nothing";
		if (i + 1 < kChain) {
			EXPECT_TRUE(sent[i])
				<< "QP " << i << "'s send did not complete";
		}
	}
}

/*
 * Multicast (IBA 10.5): UD QPs attached to a group each receive a copy of
 * a datagram sent to the group's GID with destination QP 0xFFFFFF; a QP
 * detached no longer does.  The group is IPv4 (239.255.42.7) when the
 * GIDs are IPv4-mapped, else IPv6 (ff0e::42:7).
 */
class UdMulticastTest : public UdTest {
protected:
	static constexpr uint32_t kMcastQpn = 0xffffff;

	ibv_gid group() const
	{
		ibv_gid g{};

		if (dev(Side::remote).has_ipv4) {
			g.raw[10] = 0xff;
			g.raw[11] = 0xff;
			g.raw[12] = 239;
			g.raw[13] = 255;
			g.raw[14] = 42;
			g.raw[15] = 7;
		} else {
			g.raw[0] = 0xff;
			g.raw[1] = 0x0e;
			g.raw[13] = 0x42;
			g.raw[15] = 7;
		}
		return g;
	}

	/* One datagram of @size pattern bytes (@seed) from a_ to the group. */
	void send_to_group(size_t size, uint32_t seed, uint64_t wr_id)
	{
		ibv_ah_attr attr = ah_attr(Side::local, Side::remote);

		attr.grh.dgid = group();
		auto ah = std::make_shared<verbs::Ah>(pd_, attr);
		auto src = make_mr(size, IBV_ACCESS_LOCAL_WRITE);
		ibv_sge s = verbs::sge(*src, 0, static_cast<uint32_t>(size));
		ibv_send_wr wr{};

		fill_pattern(src->data(), size, seed);
		wr.wr_id = wr_id;
		wr.sg_list = &s;
		wr.num_sge = 1;
		wr.opcode = IBV_WR_SEND;
		wr.send_flags = IBV_SEND_SIGNALED;
		wr.wr.ud.ah = ah->get();
		wr.wr.ud.remote_qpn = kMcastQpn;
		wr.wr.ud.remote_qkey = kQkey;
		verbs::post_send(*a_.qp, wr);
		EXPECT_TRUE(wc_ok(poll_one(*a_.send_cq, "multicast SEND"),
				  IBV_WC_SEND, wr_id));
	}

	/* @e's copy: whole, from a_, its GRH naming the group. */
	void expect_copy(const Endpoint &e, const Mr &dst, size_t size,
			 uint32_t seed, uint64_t recv_id, const char *who,
			 std::optional<ibv_wc> got = std::nullopt)
	{
		SCOPED_TRACE(who);
		ibv_wc wc = got ? *got : poll_one(*e.recv_cq, "multicast RECV");

		ASSERT_TRUE(wc_ok(wc, IBV_WC_RECV, recv_id));
		EXPECT_EQ(wc.byte_len, kGrhSize + size);
		EXPECT_EQ(wc.src_qp, a_.qp->num());
		EXPECT_EQ(wc.qp_num, e.qp->num());
		EXPECT_TRUE(wc.wc_flags & IBV_WC_GRH) << describe(wc);
		const ibv_gid g = group();
		const uint8_t *grh = dst.data();

		if (dev(Side::remote).has_ipv4)
			EXPECT_EQ(std::memcmp(grh + 20 + 16, g.raw + 12, 4), 0)
				<< "the GRH's IPv4 destination is the group";
		else
			EXPECT_EQ(std::memcmp(grh + 24, g.raw, 16), 0)
				<< "the GRH's destination GID is the group";
		EXPECT_TRUE(matches_pattern(dst.data() + kGrhSize, size, seed))
			<< "payload after the GRH";
		EXPECT_TRUE(matches_pattern(dst.data() + kGrhSize + size,
					    kGuard, kGuardSeed,
					    kGrhSize + size))
			<< "bytes past the message were written";
	}
};

TEST_F(UdMulticastTest, AttachedQpsEachGetACopyDetachedDoesNot)
{
	constexpr size_t kSize = 200;
	Endpoint c = make_remote_endpoint(IBV_QPT_UD);
	ibv_gid g = group();

	ud_to_rts(*c.qp, Side::remote);
	if (peer_dev_attr_.max_mcast_grp <= 0)
		VRNIC_SKIP_OR_FAIL(cfg().remote(), cfg().remote().device
				   << " reports max_mcast_grp 0");
	ASSERT_EQ(ibv_attach_mcast(b_.qp->get(), &g, 0), 0) << "attach b";
	ASSERT_EQ(ibv_attach_mcast(c.qp->get(), &g, 0), 0) << "attach c";
	EXPECT_EQ(ibv_attach_mcast(c.qp->get(), &g, 0), 0)
		<< "attaching twice is no error";

	auto db = post_recv(kSize, 21);
	auto dc = post_recv(kSize, 31, c.qp.get());

	/*
	 * A join reaches the netdev's receive filter when the netdev gets
	 * to it: virtio-net from Linux 6.8 programs its filter from a work
	 * item, after the attach has returned, and a datagram sent before
	 * that is dropped by the NIC (UD: lost).  So the first datagram is
	 * sent again until b has it; each QP holds one receive WQE, so a
	 * late copy of an earlier try finds none.  Every copy is of the
	 * same datagram's bytes; c must have it too.
	 */
	std::optional<ibv_wc> first;
	for (int i = 0; i < 10 && !first; i++) {
		send_to_group(kSize, 0x7100, 1);
		first = try_poll(*b_.recv_cq, milliseconds(500));
	}
	ASSERT_TRUE(first) << "10 datagrams to the group, none reached b";
	expect_copy(b_, *db, kSize, 0x7100, 21, "b, attached", first);
	expect_copy(c, *dc, kSize, 0x7100, 31, "c, attached");
	EXPECT_FALSE(try_poll(*b_.recv_cq, cfg().quiet)) << "b got two copies";
	EXPECT_FALSE(try_poll(*c.recv_cq, cfg().quiet)) << "c got two copies";

	/* c leaves: the next datagram reaches b only. */
	ASSERT_EQ(ibv_detach_mcast(c.qp->get(), &g, 0), 0) << "detach c";
	EXPECT_EQ(ibv_detach_mcast(c.qp->get(), &g, 0), EINVAL)
		<< "detaching a QP not attached";
	db = post_recv(kSize, 22);
	dc = post_recv(kSize, 32, c.qp.get());
	send_to_group(kSize, 0x7200, 2);
	expect_copy(b_, *db, kSize, 0x7200, 22, "b, still attached");
	auto late = try_poll(*c.recv_cq, cfg().quiet);
	EXPECT_FALSE(late) << "c received after leaving the group: "
			   << (late ? describe(*late) : std::string());
	EXPECT_TRUE(matches_pattern(dc->data(), dc->length(), kGuardSeed))
		<< "c's receive buffer was written after it left";

	/* The last QP out leaves the group; a datagram then reaches none. */
	ASSERT_EQ(ibv_detach_mcast(b_.qp->get(), &g, 0), 0) << "detach b";
	send_to_group(kSize, 0x7300, 3);
	late = try_poll(*b_.recv_cq, cfg().quiet);
	EXPECT_FALSE(late) << "b received after the group was left: "
			   << (late ? describe(*late) : std::string());
}

/* Only UD QPs join groups, and only multicast GIDs are groups. */
TEST_F(UdMulticastTest, AttachRefusesRcQpAndUnicastGid)
{
	ibv_gid g = group();
	ibv_gid unicast = dev(Side::remote).gid;
	QpPair rc = make_pair(IBV_QPT_RC);

	EXPECT_EQ(ibv_attach_mcast(rc.b.qp->get(), &g, 0), EINVAL)
		<< "an RC QP attached to a group";
	EXPECT_EQ(ibv_attach_mcast(b_.qp->get(), &unicast, 0), EINVAL)
		<< "a unicast GID taken as a group";
	EXPECT_EQ(ibv_detach_mcast(b_.qp->get(), &g, 0), EINVAL)
		<< "detach from a group never joined";
}

} // namespace
} // namespace vrnic::test
