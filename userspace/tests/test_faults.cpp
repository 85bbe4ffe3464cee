// SPDX-License-Identifier: GPL-2.0-only
/*
 * Recovery paths, one fault at a time: vrnic's debugfs fault injection
 * (/sys/kernel/debug/vrnic/<dev>/faults) drops, duplicates or corrupts the
 * one packet with a given destination QPN and PSN on transmit, so each
 * recovery path of the RC protocol gets an exact test: a lost request, a
 * gap that draws a sequence NAK, a lost ACK, a lost read response, a
 * duplicate atomic, a lost atomic ACK, a corrupted packet.  Each asserts
 * that the data arrives once and intact, that every WR succeeds, and that
 * the counters of the recovery moved.
 *
 * Devices without that file (rxe, or no debugfs) skip these tests.
 */

#include "fixture.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

namespace vrnic::test {
namespace {

std::string faults_path(const std::string &device)
{
	return "/sys/kernel/debug/vrnic/" + device + "/faults";
}

/* Write one line to a device's faults file; 0 or the errno. */
int write_faults(const std::string &device, const std::string &line)
{
	int fd = ::open(faults_path(device).c_str(), O_WRONLY);

	if (fd < 0)
		return errno;
	ssize_t n = ::write(fd, line.data(), line.size());
	int err = n < 0 ? errno : 0;

	::close(fd);
	return err;
}

std::string read_file(const std::string &path)
{
	std::ifstream in(path);
	std::stringstream ss;

	ss << in.rdbuf();
	return ss.str();
}

/*
 * A module parameter of rdma_vrnic set for an object's lifetime, put back
 * as it was when the object goes.
 */
class ModuleParam {
public:
	ModuleParam(std::string name, const std::string &value)
		: path_("/sys/module/rdma_vrnic/parameters/" + std::move(name)),
		  old_(read_param(path_))
	{
		write_param(path_, value);
	}
	~ModuleParam()
	{
		try {
			write_param(path_, old_);
		} catch (const std::exception &e) {
			ADD_FAILURE() << e.what();
		}
	}
	ModuleParam(const ModuleParam &) = delete;
	ModuleParam &operator=(const ModuleParam &) = delete;

private:
	static std::string read_param(const std::string &path)
	{
		std::ifstream in(path);
		std::string v;

		if (!(in >> v))
			throw std::runtime_error("cannot read " + path +
						 ": is rdma_vrnic loaded?");
		return v;
	}
	static void write_param(const std::string &path, const std::string &v)
	{
		std::ofstream out(path);

		if (!(out << v << '\n') || !out.flush())
			throw std::runtime_error("cannot write " + v + " to " +
						 path + " (as root?)");
	}

	std::string path_;
	std::string old_;
};

uint32_t psn_add(uint32_t psn, uint32_t n)
{
	return (psn + n) & 0xffffff;
}

class FaultTest : public VerbsTest {
protected:
	void SetUp() override
	{
		VerbsTest::SetUp();
		if (IsSkipped())
			return;
		for (const DeviceConfig *d : {static_cast<const DeviceConfig *>(&cfg()),
					      &cfg().remote()})
			if (::access(faults_path(d->device).c_str(), W_OK) != 0)
				VRNIC_SKIP_OR_FAIL(*d, "no fault injection on "
					<< d->device << " (" << faults_path(d->device)
					<< ": vrnic's debugfs, as root: is debugfs "
					   "mounted on /sys/kernel/debug?)");
		/*
		 * The counts these tests assert are exact for the QP's own
		 * timer: adaptive retransmission's early expiries (a few
		 * measured RTTs, which a slow guest can exceed) resend
		 * without a loss to answer, so it is off while they run.
		 */
		fixed_timer_.emplace("adaptive_retrans", "0");
		pair_ = make_pair();
	}
	void TearDown() override
	{
		if (!IsSkipped()) {
			write_faults(cfg().device, "clear");
			write_faults(cfg().remote().device, "clear");
		}
		VerbsTest::TearDown();
	}

	/*
	 * A fault on the packet to QP @qpn with @psn, sent by @from: requests
	 * leave a's device (to b's QPN), responses b's device (to a's QPN).
	 */
	void inject(Side from, const std::string &action, uint32_t qpn,
		    uint32_t psn, uint32_t count = 1)
	{
		const std::string &dev = this->dev(from).device;
		std::string line = action + " qpn " + std::to_string(qpn) +
				   " psn " + std::to_string(psn) + " count " +
				   std::to_string(count);

		ASSERT_EQ(write_faults(dev, line), 0) << line;
	}
	void inject_request(const std::string &action, uint32_t psn,
			    uint32_t count = 1)
	{
		inject(Side::local, action, pair_.b.qp->num(), psn, count);
	}
	void inject_response(const std::string &action, uint32_t psn)
	{
		inject(Side::remote, action, pair_.a.qp->num(), psn);
	}
	struct Rule {
		std::string line;
		unsigned count;
		unsigned hits;
	};
	/* The fault rules of @side's device, as its faults file lists them. */
	std::vector<Rule> rules(Side side)
	{
		std::istringstream in(read_file(faults_path(dev(side).device)));
		std::vector<Rule> out;
		std::string line;

		while (std::getline(in, line)) {
			auto c = line.find(" count "), h = line.find(" hits ");

			if (c == std::string::npos || h == std::string::npos) {
				ADD_FAILURE() << "not a fault rule: " << line;
				continue;
			}
			out.push_back({ line,
					static_cast<unsigned>(std::stoul(line.substr(c + 7))),
					static_cast<unsigned>(std::stoul(line.substr(h + 6))) });
		}
		return out;
	}
	/* Every rule of @side's device acted as many times as it may. */
	void expect_all_hit(Side side)
	{
		auto all = rules(side);

		for (const Rule &r : all)
			EXPECT_EQ(r.hits, r.count) << "rule never met its packet: "
						   << r.line;
		EXPECT_FALSE(all.empty());
	}
	/* The hits of @side's device's one fault rule. */
	unsigned drop_hits(Side side)
	{
		auto all = rules(side);

		EXPECT_EQ(all.size(), 1u) << "one fault rule expected";
		return all.empty() ? 0 : all.front().hits;
	}

	/*
	 * A SEND of @src's first @size bytes (three packets or more) from a
	 * to b whose second packet is dropped, and every resend of it:
	 * returns once the second has left, and the first has had time to
	 * take b's receive WQE.
	 */
	void send_with_second_packet_lost(const verbs::Mr &src, size_t size)
	{
		inject_request("drop", psn_add(kPsnA, 1), 1000);
		ibv_sge s = verbs::sge(src, 0, static_cast<uint32_t>(size));
		ibv_send_wr wr = wr_of(IBV_WR_SEND, &s, 1);
		verbs::post_send(*pair_.a.qp, wr);

		const auto until = std::chrono::steady_clock::now() + cfg().timeout;
		while (read_file(faults_path(dev(Side::local).device))
			       .find(" hits 0") != std::string::npos) {
			ASSERT_LT(std::chrono::steady_clock::now(), until)
				<< "the second packet never left";
			std::this_thread::sleep_for(10ms);
		}
		std::this_thread::sleep_for(cfg().quiet);
	}

	/* A SEND of @size bytes from a to b, verified, delivered once. */
	void send_once(size_t size, uint32_t seed)
	{
		auto src = make_mr(size, IBV_ACCESS_LOCAL_WRITE);
		auto dst = make_remote_mr(size + kGuard);

		fill_pattern(src->data(), size, seed);
		fill_pattern(dst->data(), dst->length(), kGuardSeed);
		ibv_sge r = verbs::sge(*dst, 0,
				       static_cast<uint32_t>(dst->length()));
		ibv_recv_wr rwr{};

		rwr.wr_id = 2;
		rwr.sg_list = &r;
		rwr.num_sge = 1;
		verbs::post_recv(*pair_.b.qp, rwr);
		ibv_sge s = verbs::sge(*src, 0, static_cast<uint32_t>(size));
		ibv_send_wr wr = wr_of(IBV_WR_SEND, &s, 1);
		verbs::post_send(*pair_.a.qp, wr);

		EXPECT_TRUE(wc_ok(poll_one(*pair_.a.send_cq, "SEND"),
				  IBV_WC_SEND, 1));
		ibv_wc rwc = poll_one(*pair_.b.recv_cq, "RECV");
		ASSERT_TRUE(wc_ok(rwc, IBV_WC_RECV, 2));
		EXPECT_EQ(rwc.byte_len, size);
		EXPECT_TRUE(matches_pattern(dst->data(), size, seed));
		EXPECT_TRUE(matches_pattern(dst->data() + size, kGuard,
					    kGuardSeed, size));
		auto extra = try_poll(*pair_.b.recv_cq, cfg().quiet);
		EXPECT_FALSE(extra) << "delivered twice: " << describe(*extra);
	}

	/* An RDMA op of @size bytes between a's @local and b's @remote. */
	void rdma_once(ibv_wr_opcode op, verbs::Mr &local, verbs::Mr &remote,
		       size_t size)
	{
		ibv_sge s = verbs::sge(local, 0, static_cast<uint32_t>(size));
		ibv_send_wr wr = wr_of(op, &s, 7);

		wr.wr.rdma.remote_addr = remote.addr();
		wr.wr.rdma.rkey = remote.rkey();
		verbs::post_send(*pair_.a.qp, wr);
		EXPECT_TRUE(wc_ok(poll_one(*pair_.a.send_cq, "RDMA op"),
				  op == IBV_WR_RDMA_READ ? IBV_WC_RDMA_READ :
							   IBV_WC_RDMA_WRITE,
				  7));
	}

	/* A FETCH_AND_ADD of @add on b's word; returns the original value. */
	uint64_t fetch_add(verbs::Mr &word, uint64_t add)
	{
		auto result = make_mr(8, IBV_ACCESS_LOCAL_WRITE);
		ibv_sge s = verbs::sge(*result, 0, 8);
		ibv_send_wr wr = wr_of(IBV_WR_ATOMIC_FETCH_AND_ADD, &s, 9);
		uint64_t orig;

		wr.wr.atomic.remote_addr = word.addr();
		wr.wr.atomic.rkey = word.rkey();
		wr.wr.atomic.compare_add = add;
		verbs::post_send(*pair_.a.qp, wr);
		ibv_wc wc = poll_one(*pair_.a.send_cq, "FETCH_AND_ADD");
		EXPECT_TRUE(wc_ok(wc, IBV_WC_FETCH_ADD, 9));
		std::memcpy(&orig, result->data(), 8);
		return orig;
	}

	size_t mtu() const { return path_mtu_bytes(); }

	std::optional<ModuleParam> fixed_timer_;
	QpPair pair_;
};

/* The knob refuses what it does not understand, and keeps nothing of it. */
TEST_F(FaultTest, RulesAreValidated)
{
	const std::string &d = cfg().device;

	for (const char *bad : {
		     "drop", "drop qpn 5", "drop psn 5", "lose qpn 5 psn 5",
		     "drop qpn 0x1000000 psn 5", "drop qpn 5 psn 0x1000000",
		     "drop qpn 5 psn 5 count 0", "drop qpn 5 psn 5 count",
		     "drop qpn five psn 5", "drop qpn 5 psn 5 extra 1",
	     }) {
		EXPECT_EQ(write_faults(d, bad), EINVAL) << bad;
	}
	EXPECT_EQ(read_file(faults_path(d)), "");
	ASSERT_EQ(write_faults(d, "dup qpn 0x12 psn 100 count 3\n"), 0);
	EXPECT_EQ(read_file(faults_path(d)),
		  "dup qpn 18 psn 100 count 3 hits 0\n");
	ASSERT_EQ(write_faults(d, "clear"), 0);
	EXPECT_EQ(read_file(faults_path(d)), "");
}

/* A lone SEND lost: nothing follows it, so the retransmit timer resends. */
TEST_F(FaultTest, LostRequestIsResentOnTimeout)
{
	Counters req(cfg().device);

	inject_request("drop", kPsnA);
	send_once(64, 0x31);
	expect_all_hit(Side::local);
	EXPECT_EQ(req.delta("retransmits"), 1u);
}

/*
 * The second packet of a four-packet WRITE lost: the third arrives out of
 * order, the responder NAKs the gap once and the requester goes back to
 * the lost packet at once, not on the timer.
 */
TEST_F(FaultTest, GapDrawsSequenceNakAndResend)
{
	const size_t size = 4 * mtu();
	auto src = make_mr(size, IBV_ACCESS_LOCAL_WRITE);
	auto dst = make_remote_mr(size + kGuard);
	Counters req(cfg().device), resp(cfg().remote().device);

	fill_pattern(src->data(), size, 0x32);
	fill_pattern(dst->data(), dst->length(), kGuardSeed);
	inject_request("drop", psn_add(kPsnA, 1));
	rdma_once(IBV_WR_RDMA_WRITE, *src, *dst, size);
	expect_all_hit(Side::local);
	EXPECT_TRUE(matches_pattern(dst->data(), size, 0x32));
	EXPECT_TRUE(matches_pattern(dst->data() + size, kGuard, kGuardSeed,
				    size));
	/* One gap, one NAK, one go-back: the fourth packet is dropped
	 * behind the gap already NAKed, not NAKed again. */
	EXPECT_EQ(resp.delta("out_of_seq_request"), 1u);
	EXPECT_EQ(req.delta("rcvd_seq_err"), 1u);
	EXPECT_EQ(req.delta("retransmits"), 1u);
}

/*
 * The ACK of a SEND lost: the requester resends, the responder sees a
 * duplicate, acknowledges it and does not deliver it again.
 */
TEST_F(FaultTest, LostAckIsAnsweredAsDuplicate)
{
	Counters req(cfg().device), resp(cfg().remote().device);

	inject_response("drop", kPsnA);
	send_once(200, 0x33);
	expect_all_hit(Side::remote);
	EXPECT_EQ(req.delta("retransmits"), 1u);
	EXPECT_EQ(resp.delta("duplicate_request"), 1u);
}

/*
 * Every ACK of a 64-packet WRITE lost, once: the timer sends the WRITE
 * again from its first packet, and the responder answers the first
 * duplicates with an ACK of the last PSN it executed, the WRITE's last.
 * That ACK answers the first copies and is taken, although the resend has
 * not reached that PSN yet (it is no ghost): the requester completes the
 * WRITE and sends none of the rest again.  A requester that took it for a
 * response to a PSN it had not sent would resend all 64 packets, each
 * answered by an ACK it drops the same way, and beside other traffic on a
 * slow host time out again before the resend got through (the debug
 * kernel's RC streams over veth ran out of retries so).
 */
TEST_F(FaultTest, AckPastTheResendIsTaken)
{
	constexpr uint32_t kPkts = 64;
	const size_t size = kPkts * mtu();
	auto src = make_mr(size, IBV_ACCESS_LOCAL_WRITE);
	auto dst = make_remote_mr(size + kGuard);
	Counters req(cfg().device), resp(cfg().remote().device);

	fill_pattern(src->data(), size, 0x3a);
	fill_pattern(dst->data(), dst->length(), kGuardSeed);
	for (uint32_t i = 0; i < kPkts; i++)
		inject(Side::remote, "drop", pair_.a.qp->num(), psn_add(kPsnA, i));
	rdma_once(IBV_WR_RDMA_WRITE, *src, *dst, size);
	EXPECT_TRUE(matches_pattern(dst->data(), size, 0x3a));
	EXPECT_TRUE(matches_pattern(dst->data() + size, kGuard, kGuardSeed,
				    size));
	EXPECT_GE(req.delta("retransmits"), 1u);
	uint64_t dups = resp.delta("duplicate_request");
	EXPECT_GE(dups, 1u);
	EXPECT_LT(dups, kPkts) << "the whole WRITE was sent again: the ACK "
				  "of its last PSN was dropped as a ghost";
	EXPECT_EQ(req.delta("retry_exceeded_err"), 0u);
}

/*
 * The second of three read responses lost: the third tells the requester
 * (implied NAK), which asks again for the READ from the missing packet;
 * the responder reads memory again for the duplicate.
 */
TEST_F(FaultTest, LostReadResponseIsReadAgain)
{
	const size_t size = 3 * mtu();
	auto dst = make_mr(size + kGuard, IBV_ACCESS_LOCAL_WRITE);
	auto src = make_remote_mr(size);
	Counters req(cfg().device), resp(cfg().remote().device);

	fill_pattern(src->data(), size, 0x34);
	fill_pattern(dst->data(), dst->length(), kGuardSeed);
	inject_response("drop", psn_add(kPsnA, 1));
	rdma_once(IBV_WR_RDMA_READ, *dst, *src, size);
	expect_all_hit(Side::remote);
	EXPECT_TRUE(matches_pattern(dst->data(), size, 0x34));
	EXPECT_TRUE(matches_pattern(dst->data() + size, kGuard, kGuardSeed,
				    size));
	EXPECT_EQ(req.delta("retransmits"), 1u);
	EXPECT_EQ(resp.delta("duplicate_request"), 1u);
}

/* An atomic request that arrives twice is executed once. */
TEST_F(FaultTest, DuplicateAtomicExecutesOnce)
{
	auto word = make_remote_mr(8, kMrAccess | IBV_ACCESS_REMOTE_ATOMIC);
	const uint64_t base = 1000;
	Counters resp(cfg().remote().device);

	std::memcpy(word->data(), &base, 8);
	inject_request("dup", kPsnA);
	EXPECT_EQ(fetch_add(*word, 5), base);
	/* The duplicate may trail the completion. */
	for (int i = 0; i < 50 && resp.delta("duplicate_request") == 0; i++)
		usleep(10000);
	expect_all_hit(Side::local);
	EXPECT_EQ(resp.delta("duplicate_request"), 1u);
	uint64_t now;
	std::memcpy(&now, word->data(), 8);
	EXPECT_EQ(now, base + 5) << "the duplicate was executed again";
	/* The next atomic sees exactly one add before it. */
	EXPECT_EQ(fetch_add(*word, 1), base + 5);
}

/*
 * The atomic ACK lost: the requester resends the atomic on the timer and
 * the responder answers from the result it kept, not by adding again.
 */
TEST_F(FaultTest, LostAtomicAckIsReplayed)
{
	auto word = make_remote_mr(8, kMrAccess | IBV_ACCESS_REMOTE_ATOMIC);
	const uint64_t base = 77;
	Counters req(cfg().device), resp(cfg().remote().device);

	std::memcpy(word->data(), &base, 8);
	inject_response("drop", kPsnA);
	EXPECT_EQ(fetch_add(*word, 3), base) << "the replay returned another "
						"original value";
	expect_all_hit(Side::remote);
	uint64_t now;
	std::memcpy(&now, word->data(), 8);
	EXPECT_EQ(now, base + 3) << "the resent atomic was executed again";
	EXPECT_EQ(req.delta("retransmits"), 1u);
	EXPECT_EQ(resp.delta("duplicate_request"), 1u);
}

/* A packet with a bad ICRC is dropped and counted; the resend delivers. */
TEST_F(FaultTest, CorruptPacketIsDroppedAndResent)
{
	Counters req(cfg().device), resp(cfg().remote().device);

	inject_request("corrupt", kPsnA);
	send_once(300, 0x35);
	expect_all_hit(Side::local);
	EXPECT_EQ(resp.delta("rx_drop_icrc"), 1u);
	EXPECT_EQ(req.delta("retransmits"), 1u);
}

/*
 * Many atomics in flight, every one of their ACKs lost once: the
 * requester recovers all of them from the responder's kept results.
 */
TEST_F(FaultTest, ManyLostAtomicAcksAreReplayed)
{
	const size_t n = std::min<size_t>(16, rd_atomic());
	auto word = make_remote_mr(8, kMrAccess | IBV_ACCESS_REMOTE_ATOMIC);
	auto result = make_mr(8 * n, IBV_ACCESS_LOCAL_WRITE);
	std::vector<ibv_sge> s(n);
	std::vector<ibv_send_wr> wrs(n);
	const uint64_t base = 5;

	std::memcpy(word->data(), &base, 8);
	for (size_t i = 0; i < n; i++) {
		inject_response("drop", psn_add(kPsnA, i));
		s[i] = verbs::sge(*result, 8 * i, 8);
		wrs[i] = wr_of(IBV_WR_ATOMIC_FETCH_AND_ADD, &s[i], i);
		wrs[i].wr.atomic.remote_addr = word->addr();
		wrs[i].wr.atomic.rkey = word->rkey();
		wrs[i].wr.atomic.compare_add = 1;
		wrs[i].next = i + 1 < n ? &wrs[i + 1] : nullptr;
	}
	verbs::post_send(*pair_.a.qp, wrs[0]);
	auto wcs = poll_n(*pair_.a.send_cq, n, "atomics with lost ACKs");
	for (size_t i = 0; i < n; i++) {
		uint64_t orig;

		EXPECT_TRUE(wc_ok(wcs[i], IBV_WC_FETCH_ADD, i));
		std::memcpy(&orig, result->data() + 8 * i, 8);
		EXPECT_EQ(orig, base + i) << "atomic " << i;
	}
	uint64_t now;
	std::memcpy(&now, word->data(), 8);
	EXPECT_EQ(now, base + n);
	expect_all_hit(Side::remote);
}

/*
 * A peer that never answers (every copy of the request lost): the
 * requester retries retry_cnt times on the timer, then completes the WR
 * with a retry-exceeded error, moves the QP to ERR and flushes the rest.
 */
TEST_F(FaultTest, PeerGoneIsRetryExceeded)
{
	/*
	 * The IBA count, exactly: the first try and retry_cnt resends of
	 * the oldest PSN (the second SEND draws a sequence NAK, whose
	 * go-back spends the first retry; the QP's full timeout the rest),
	 * then IBV_WC_RETRY_EXC_ERR.
	 */
	auto src = make_mr(64, IBV_ACCESS_LOCAL_WRITE);
	ibv_sge s[2] = { verbs::sge(*src, 0, 64), verbs::sge(*src, 0, 64) };
	ibv_send_wr wr[2] = { wr_of(IBV_WR_SEND, &s[0], 1),
			      wr_of(IBV_WR_SEND, &s[1], 2) };
	Counters req(cfg().device);
	/* The fixture's timeout (0.54 s) times kRetryCnt + 1 tries. */
	const auto budget = (kRetryCnt + 1) * 540ms + cfg().timeout;

	inject_request("drop", kPsnA, 1000);
	wr[0].next = &wr[1];
	verbs::post_send(*pair_.a.qp, wr[0]);
	auto wc = try_poll(*pair_.a.send_cq, budget);
	ASSERT_TRUE(wc) << "no completion within the retry budget";
	EXPECT_TRUE(wc_status(*wc, IBV_WC_RETRY_EXC_ERR, 1));
	EXPECT_TRUE(wc_status(poll_one(*pair_.a.send_cq, "flushed SEND"),
			      IBV_WC_WR_FLUSH_ERR, 2));
	EXPECT_EQ(wait_qp_state(*pair_.a.qp, IBV_QPS_ERR, cfg().timeout),
		  IBV_QPS_ERR);
	EXPECT_EQ(req.delta("retry_exceeded_err"), 1u);
	EXPECT_EQ(req.delta("retransmits"), uint64_t{kRetryCnt});
	EXPECT_EQ(drop_hits(Side::local), kRetryCnt + 1u)
		<< "tries of the first PSN: the first and kRetryCnt resends";
	auto rwc = try_poll(*pair_.b.recv_cq, 0ms);
	EXPECT_FALSE(rwc) << "the responder received " << describe(*rwc);
}

/*
 * A receive WQE that a multi-packet SEND has taken is the receiver's
 * oldest outstanding receive: when the QP goes to ERR before the message
 * is whole (its second packet lost for good here), that WQE completes with
 * IB_WC_WR_FLUSH_ERR first, then the ones still queued, in order. Lost, the
 * consumer would wait for it for ever.
 */
TEST_F(FaultTest, PartlyReceivedSendIsFlushed)
{
	const size_t size = 3 * mtu();
	auto src = make_mr(size, IBV_ACCESS_LOCAL_WRITE);
	auto dst = make_remote_mr(2 * size);
	ibv_sge r[2] = { verbs::sge(*dst, 0, static_cast<uint32_t>(size)),
			 verbs::sge(*dst, size, static_cast<uint32_t>(size)) };
	ibv_recv_wr rwr[2]{};

	for (int i = 0; i < 2; i++) {
		rwr[i].wr_id = 20 + i;
		rwr[i].sg_list = &r[i];
		rwr[i].num_sge = 1;
		verbs::post_recv(*pair_.b.qp, rwr[i]);
	}
	ASSERT_NO_FATAL_FAILURE(send_with_second_packet_lost(*src, size));

	ibv_qp_attr a{};
	a.qp_state = IBV_QPS_ERR;
	pair_.b.qp->modify(a, IBV_QP_STATE);
	auto wcs = poll_n(*pair_.b.recv_cq, 2, "flushed receives");
	EXPECT_TRUE(wc_status(wcs[0], IBV_WC_WR_FLUSH_ERR, 20))
		<< "the receive the SEND had begun to fill";
	EXPECT_TRUE(wc_status(wcs[1], IBV_WC_WR_FLUSH_ERR, 21));
	auto extra = try_poll(*pair_.b.recv_cq, cfg().quiet);
	EXPECT_FALSE(extra) << "flushed twice: " << describe(*extra);
}

/*
 * The same receive WQE, taken by a SEND whose second packet is lost, when
 * both QPs go to RESET instead (IBA 10.3.1: a QP entering Reset loses its
 * queued work).  Whatever completions RESET left are drained; reconnected,
 * the QPs carry a new SEND into a new receive, and a later ERR flushes
 * only what was posted since: nothing of the WQE held before RESET comes
 * back (an offset or wr_id kept across it would place the new SEND
 * behind the old bytes, or complete wr 20 again).
 */
TEST_F(FaultTest, PartlyReceivedSendLeavesNothingAfterReset)
{
	const size_t size = 3 * mtu();
	auto src = make_mr(size, IBV_ACCESS_LOCAL_WRITE);
	auto dst = make_remote_mr(size);
	ibv_sge r = verbs::sge(*dst, 0, static_cast<uint32_t>(size));
	ibv_recv_wr rwr{};

	rwr.wr_id = 20;
	rwr.sg_list = &r;
	rwr.num_sge = 1;
	verbs::post_recv(*pair_.b.qp, rwr);
	ASSERT_NO_FATAL_FAILURE(send_with_second_packet_lost(*src, size));

	ibv_qp_attr a{};
	a.qp_state = IBV_QPS_RESET;
	pair_.b.qp->modify(a, IBV_QP_STATE);
	pair_.a.qp->modify(a, IBV_QP_STATE);
	write_faults(cfg().device, "clear");
	while (try_poll(*pair_.a.send_cq, cfg().quiet))
		;
	while (try_poll(*pair_.b.recv_cq, cfg().quiet))
		;
	connect(pair_.a, pair_.b);

	/* A new SEND lands whole in a new receive, from its first byte. */
	send_once(size, 0x3c);

	rwr.wr_id = 31;
	verbs::post_recv(*pair_.b.qp, rwr);
	a.qp_state = IBV_QPS_ERR;
	pair_.b.qp->modify(a, IBV_QP_STATE);
	ibv_wc wc = poll_one(*pair_.b.recv_cq, "the receive posted after RESET");
	EXPECT_TRUE(wc_status(wc, IBV_WC_WR_FLUSH_ERR, 31))
		<< "only the receive posted since RESET is flushed";
	auto extra = try_poll(*pair_.b.recv_cq, cfg().quiet);
	EXPECT_FALSE(extra) << "a completion from before RESET: "
			    << describe(*extra);
}

} // namespace
} // namespace vrnic::test
