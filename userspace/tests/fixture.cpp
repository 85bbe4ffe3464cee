// SPDX-License-Identifier: GPL-2.0-only
/*
 * Conformance suite plumbing: see fixture.hpp.
 */

#include "fixture.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <thread>

namespace vrnic::test {

using Clock = std::chrono::steady_clock;
using verbs::throw_error;

Config &config()
{
	static Config cfg;
	return cfg;
}

bool gid_is_zero(const ibv_gid &gid)
{
	return std::all_of(std::begin(gid.raw), std::end(gid.raw),
			   [](uint8_t b) { return b == 0; });
}

bool gid_is_ipv4_mapped(const ibv_gid &gid)
{
	static const uint8_t prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
					   0xff, 0xff};

	return std::memcmp(gid.raw, prefix, sizeof(prefix)) == 0;
}

std::string format_gid(const ibv_gid &gid)
{
	char buf[INET6_ADDRSTRLEN] = "";

	inet_ntop(AF_INET6, gid.raw, buf, sizeof(buf));
	return buf;
}

std::string format_ipv4(const in_addr &addr)
{
	char buf[INET_ADDRSTRLEN] = "";

	inet_ntop(AF_INET, &addr, buf, sizeof(buf));
	return buf;
}

std::string gid_type_of(ibv_context *ctx, const std::string &device,
			uint8_t port, int index)
{
	std::string path = "/sys/class/infiniband/" + device + "/ports/" +
			   std::to_string(port) + "/gid_attrs/types/" +
			   std::to_string(index);
	std::ifstream in(path);
	std::string line;

	if (in && std::getline(in, line))
		return line;

	ibv_gid_entry entry{};

	if (ibv_query_gid_ex(ctx, port, index, &entry, 0))
		return {};
	switch (entry.gid_type) {
	case IBV_GID_TYPE_ROCE_V2: return "RoCE v2";
	case IBV_GID_TYPE_ROCE_V1: return "IB/RoCE v1";
	case IBV_GID_TYPE_IB: return "IB";
	}
	return {};
}

std::optional<GidChoice> choose_gid(ibv_context *ctx, const std::string &device,
				    uint8_t port)
{
	ibv_port_attr pattr{};
	std::optional<GidChoice> any_v2;

	if (ibv_query_port(ctx, port, &pattr))
		return std::nullopt;
	for (int i = 0; i < pattr.gid_tbl_len; i++) {
		GidChoice c;

		if (ibv_query_gid(ctx, port, i, &c.gid) || gid_is_zero(c.gid))
			continue;
		c.type = gid_type_of(ctx, device, port, i);
		if (c.type != "RoCE v2")
			continue;
		c.index = i;
		if (gid_is_ipv4_mapped(c.gid)) {
			c.has_ipv4 = true;
			std::memcpy(&c.ipv4, c.gid.raw + 12, 4);
			return c;
		}
		if (!any_v2)
			any_v2 = c;
	}
	return any_v2;
}

/* ---- completions ---- */

std::string describe(const ibv_wc &wc)
{
	char buf[256];

	std::snprintf(buf, sizeof(buf),
		      "wc{wr_id=%llu status=%d (%s) opcode=%d (%s) byte_len=%u "
		      "qp_num=0x%x src_qp=0x%x wc_flags=0x%x imm_data=0x%08x "
		      "vendor_err=0x%x}",
		      static_cast<unsigned long long>(wc.wr_id), wc.status,
		      ibv_wc_status_str(wc.status), wc.opcode,
		      verbs::wc_opcode_str(wc.opcode), wc.byte_len, wc.qp_num,
		      wc.src_qp, wc.wc_flags, ntohl(wc.imm_data),
		      wc.vendor_err);
	return buf;
}

std::optional<ibv_wc> try_poll(const verbs::Cq &cq, milliseconds timeout)
{
	const auto deadline = Clock::now() + timeout;
	unsigned empty = 0;

	for (;;) {
		ibv_wc wc{};
		int n = ibv_poll_cq(cq.get(), 1, &wc);

		if (n < 0)
			throw_error("ibv_poll_cq", n == -1 && errno ? errno : -n);
		if (n == 1)
			return wc;
		if (Clock::now() >= deadline)
			return std::nullopt;
		/*
		 * Spin briefly, then back off, 50 us doubling to 800 us: the soft
		 * device's engines run on the same (few) CPUs as this test, and
		 * a wait that expects nothing (the quiet windows) woke 20000
		 * times a second at a fixed 50 us, which under an emulator
		 * keeps a vCPU busy for the whole window.
		 */
		if (++empty > 64) {
			auto us = std::chrono::microseconds(50) * (1u << std::min(empty - 65, 4u));

			std::this_thread::sleep_for(us);
		}
	}
}

ibv_wc poll_one(const verbs::Cq &cq, std::string_view what)
{
	auto wc = try_poll(cq, config().timeout);

	if (!wc)
		throw std::runtime_error(
			"timed out after " +
			std::to_string(config().timeout.count()) +
			" ms waiting for a completion: " + std::string(what));
	return *wc;
}

std::vector<ibv_wc> poll_n(const verbs::Cq &cq, size_t n, std::string_view what)
{
	std::vector<ibv_wc> out;

	while (out.size() < n) {
		auto wc = try_poll(cq, config().timeout);

		if (!wc) {
			std::string msg = "timed out after " +
					  std::to_string(config().timeout.count()) +
					  " ms waiting for completion " +
					  std::to_string(out.size() + 1) + " of " +
					  std::to_string(n) + ": " +
					  std::string(what);
			for (const auto &got : out)
				msg += "\n  got " + describe(got);
			throw std::runtime_error(msg);
		}
		out.push_back(*wc);
	}
	return out;
}

::testing::AssertionResult wc_ok(const ibv_wc &wc, ibv_wc_opcode opcode,
				 uint64_t wr_id)
{
	if (wc.status == IBV_WC_SUCCESS && wc.opcode == opcode &&
	    wc.wr_id == wr_id)
		return ::testing::AssertionSuccess();
	return ::testing::AssertionFailure()
	       << "expected success, opcode " << verbs::wc_opcode_str(opcode)
	       << ", wr_id " << wr_id << "; got " << describe(wc);
}

::testing::AssertionResult wc_status(const ibv_wc &wc, ibv_wc_status status,
				     uint64_t wr_id)
{
	if (wc.status == status && wc.wr_id == wr_id)
		return ::testing::AssertionSuccess();
	return ::testing::AssertionFailure()
	       << "expected status " << ibv_wc_status_str(status) << ", wr_id "
	       << wr_id << "; got " << describe(wc);
}

ibv_qp_state wait_qp_state(const verbs::Qp &qp, ibv_qp_state want,
			   milliseconds timeout)
{
	const auto deadline = Clock::now() + timeout;

	for (;;) {
		ibv_qp_state s = qp.state();

		if (s == want || Clock::now() >= deadline)
			return s;
		std::this_thread::sleep_for(1ms);
	}
}

/* ---- events ---- */

bool fd_readable(int fd, milliseconds timeout)
{
	const auto deadline = Clock::now() + timeout;

	for (;;) {
		auto left = std::chrono::duration_cast<milliseconds>(
			deadline - Clock::now());
		pollfd pfd{fd, POLLIN, 0};
		int rc = poll(&pfd, 1,
			      static_cast<int>(std::max<long long>(0, left.count())));

		if (rc > 0)
			return true;
		if (rc == 0)
			return false;
		if (errno != EINTR)
			throw_error("poll", errno);
	}
}

std::optional<ibv_async_event> wait_async_event(const verbs::Context &ctx,
						ibv_event_type type,
						milliseconds timeout,
						std::vector<std::string> *skipped)
{
	const auto deadline = Clock::now() + timeout;
	int fd = ctx.get()->async_fd;
	int flags = fcntl(fd, F_GETFL);

	/* Non-blocking, so a spurious wakeup can never block in the read. */
	if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0)
		throw_error("fcntl(async_fd, O_NONBLOCK)", errno);

	for (;;) {
		auto left = std::chrono::duration_cast<milliseconds>(
			deadline - Clock::now());

		if (!fd_readable(fd, std::max(left, milliseconds(0))))
			return std::nullopt;

		ibv_async_event ev{};

		if (ibv_get_async_event(ctx.get(), &ev)) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			throw_error("ibv_get_async_event", errno);
		}
		ibv_async_event copy = ev;

		ibv_ack_async_event(&ev);
		if (copy.event_type == type)
			return copy;
		if (skipped)
			skipped->emplace_back(ibv_event_type_str(copy.event_type));
	}
}

std::optional<CqEvent> wait_cq_event(const verbs::CompChannel &channel,
				     milliseconds timeout)
{
	if (!fd_readable(channel.fd(), timeout))
		return std::nullopt;

	CqEvent ev{};

	if (ibv_get_cq_event(channel.get(), &ev.cq, &ev.cq_context))
		throw_error("ibv_get_cq_event", errno ? errno : EIO);
	ibv_ack_cq_events(ev.cq, 1);
	return ev;
}

/* ---- parameters ---- */

std::string size_name(size_t size)
{
	if (size >= (1u << 20) && size % (1u << 20) == 0)
		return std::to_string(size >> 20) + "MiB";
	if (size >= 1024 && size % 1024 == 0)
		return std::to_string(size >> 10) + "KiB";
	return std::to_string(size) + "B";
}

/* ---- fixture ---- */

void VerbsTest::SetUp()
{
	ctx_ = std::make_shared<verbs::Context>(cfg().device);
	pd_ = std::make_shared<verbs::Pd>(ctx_);
	dev_attr_ = ctx_->query_device();
	port_attr_ = ctx_->query_port(cfg().port);
	if (!has_peer()) {
		peer_ctx_ = ctx_;
		peer_pd_ = pd_;
		peer_dev_attr_ = dev_attr_;
		peer_port_attr_ = port_attr_;
		return;
	}
	peer_ctx_ = std::make_shared<verbs::Context>(cfg().peer->device);
	peer_pd_ = std::make_shared<verbs::Pd>(peer_ctx_);
	peer_dev_attr_ = peer_ctx_->query_device();
	peer_port_attr_ = peer_ctx_->query_port(cfg().peer->port);
}

const DeviceConfig &VerbsTest::dev(Side side) const
{
	return side == Side::local ? cfg() : cfg().remote();
}

const std::shared_ptr<verbs::Context> &VerbsTest::context(Side side) const
{
	return side == Side::local ? ctx_ : peer_ctx_;
}

const std::shared_ptr<verbs::Pd> &VerbsTest::pd(Side side) const
{
	return side == Side::local ? pd_ : peer_pd_;
}

std::shared_ptr<verbs::Cq> VerbsTest::make_cq(int cqe, Side side)
{
	return std::make_shared<verbs::Cq>(context(side), cqe);
}

std::shared_ptr<verbs::Mr> VerbsTest::make_mr(size_t size, int access,
					      Side side)
{
	return std::make_shared<verbs::Mr>(
		pd(side), std::make_shared<verbs::Buffer>(size), access);
}

Endpoint VerbsTest::make_endpoint(ibv_qp_type type, const verbs::QpCaps &caps,
				  std::shared_ptr<verbs::Cq> send_cq,
				  std::shared_ptr<verbs::Cq> recv_cq,
				  std::shared_ptr<verbs::Srq> srq, Side side)
{
	Endpoint ep;

	ep.send_cq = send_cq ? std::move(send_cq) : make_cq(256, side);
	ep.recv_cq = recv_cq ? std::move(recv_cq) : make_cq(256, side);
	ep.qp = std::make_shared<verbs::Qp>(pd(side), type, ep.send_cq,
					    ep.recv_cq, caps, std::move(srq));
	return ep;
}

ibv_ah_attr VerbsTest::ah_attr(Side from, Side to) const
{
	ibv_ah_attr ah{};

	ah.is_global = 1;
	ah.grh.dgid = dev(to).gid;
	ah.grh.sgid_index = static_cast<uint8_t>(dev(from).gid_index);
	ah.grh.hop_limit = kHopLimit;
	ah.grh.traffic_class = 0;
	ah.grh.flow_label = 0;
	ah.dlid = 0;
	ah.sl = 0;
	ah.src_path_bits = 0;
	ah.port_num = dev(from).port;
	return ah;
}

uint8_t VerbsTest::rd_atomic() const
{
	int max = std::min({16, dev_attr_.max_qp_rd_atom,
			    dev_attr_.max_qp_init_rd_atom,
			    peer_dev_attr_.max_qp_rd_atom,
			    peer_dev_attr_.max_qp_init_rd_atom});
	uint8_t v = 1;

	if (max <= 0)
		return 0;
	/* A power of two, so the value reads back unchanged. */
	while (v * 2 <= max)
		v *= 2;
	return v;
}

ibv_mtu VerbsTest::path_mtu() const
{
	return std::min(port_attr_.active_mtu, peer_port_attr_.active_mtu);
}

uint32_t VerbsTest::path_mtu_bytes() const
{
	return 128u << path_mtu();
}

void VerbsTest::modify_to_init(const verbs::Qp &qp, int access, Side side) const
{
	ibv_qp_attr a{};
	int mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;

	a.qp_state = IBV_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = dev(side).port;
	if (qp.type() == IBV_QPT_UD) {
		a.qkey = kQkey;
		mask |= IBV_QP_QKEY;
	} else {
		/* UC has no RDMA READ or atomics. */
		a.qp_access_flags = qp.type() == IBV_QPT_UC ?
			access & (IBV_ACCESS_LOCAL_WRITE |
				  IBV_ACCESS_REMOTE_WRITE) :
			access;
		mask |= IBV_QP_ACCESS_FLAGS;
	}
	qp.modify(a, mask);
}

void VerbsTest::modify_to_rtr(const verbs::Qp &qp, uint32_t remote_qpn,
			      uint32_t rq_psn, const ibv_ah_attr &av) const
{
	ibv_qp_attr a{};
	int mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
		   IBV_QP_DEST_QPN | IBV_QP_RQ_PSN;

	a.qp_state = IBV_QPS_RTR;
	a.ah_attr = av;
	a.path_mtu = path_mtu();
	a.dest_qp_num = remote_qpn;
	a.rq_psn = rq_psn;
	if (qp.type() == IBV_QPT_RC) {
		a.max_dest_rd_atomic = rd_atomic();
		a.min_rnr_timer = kMinRnrTimer;
		mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	}
	qp.modify(a, mask);
}

void VerbsTest::modify_to_rts(const verbs::Qp &qp, uint32_t sq_psn,
			      uint8_t rnr_retry) const
{
	ibv_qp_attr a{};
	int mask = IBV_QP_STATE | IBV_QP_SQ_PSN;

	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = sq_psn;
	if (qp.type() == IBV_QPT_RC) {
		a.timeout = kTimeout;
		a.retry_cnt = kRetryCnt;
		a.rnr_retry = rnr_retry;
		a.max_rd_atomic = rd_atomic();
		mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			IBV_QP_MAX_QP_RD_ATOMIC;
	}
	qp.modify(a, mask);
}

void VerbsTest::connect(const Endpoint &a, const Endpoint &b,
			uint8_t a_rnr_retry, int access) const
{
	/* A QP on the wrong device would talk to the wrong GID: catch it. */
	if (a.qp->get()->context != ctx_->get() ||
	    b.qp->get()->context != peer_ctx_->get())
		throw std::logic_error(
			"connect(a, b): a must be on " + cfg().device +
			" and b on " + cfg().remote().device +
			" (make_endpoint / make_remote_endpoint)");
	modify_to_init(*a.qp, access, Side::local);
	modify_to_init(*b.qp, access, Side::remote);
	modify_to_rtr(*a.qp, b.qp->num(), kPsnB,
		      ah_attr(Side::local, Side::remote));
	modify_to_rtr(*b.qp, a.qp->num(), kPsnA,
		      ah_attr(Side::remote, Side::local));
	modify_to_rts(*a.qp, kPsnA, a_rnr_retry);
	modify_to_rts(*b.qp, kPsnB);
}

void VerbsTest::ud_to_rts(const verbs::Qp &qp, Side side) const
{
	ibv_qp_attr a{};

	modify_to_init(qp, kAllAccess, side);
	a.qp_state = IBV_QPS_RTR;
	qp.modify(a, IBV_QP_STATE);
	a = {};
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = kPsnA;
	qp.modify(a, IBV_QP_STATE | IBV_QP_SQ_PSN);
}

QpPair VerbsTest::make_pair(ibv_qp_type type, const verbs::QpCaps &caps)
{
	QpPair p;

	p.a = make_endpoint(type, caps);
	p.b = make_remote_endpoint(type, caps);
	connect(p.a, p.b);
	return p;
}

void VerbsTest::wait_first_bytes(const uint8_t *sink, size_t guard_off) const
{
	const auto until = std::chrono::steady_clock::now() + cfg().timeout;

	while (matches_pattern(sink, 64, kGuardSeed, guard_off) &&
	       std::chrono::steady_clock::now() < until)
		std::this_thread::yield();
}

VerbsTest::ReadEnd
VerbsTest::judge_revoked_read(const ibv_wc &wc, const uint8_t *sink,
			      size_t size, uint32_t seed, uint32_t secret,
			      size_t guard_off, const char *revoked,
			      const verbs::Qp &responder) const
{
	size_t leaked = 0, read = 0, untouched = 0;

	for (size_t i = 0; i < size; i++) {
		if (sink[i] == pattern_byte(seed, i))
			read++;
		else if (sink[i] == pattern_byte(kGuardSeed, guard_off + i))
			untouched++;
		else if (sink[i] == pattern_byte(secret, i))
			leaked++;
	}
	std::printf("%s: %zu bytes of the source, %zu written after it was %s, "
		    "%zu never written, %zu other\n",
		    describe(wc).c_str(), read, leaked, revoked, untouched,
		    size - read - leaked - untouched);
	EXPECT_EQ(leaked, 0u) << "bytes written after the source was "
			      << revoked << " reached the reader";
	if (wc.status == IBV_WC_SUCCESS)
		return ReadEnd::kWhole;
	if (wc.status == IBV_WC_RETRY_EXC_ERR &&
	    responder.state() == IBV_QPS_ERR) {
		std::printf("the responder cut the READ and went to ERR; its NAK "
			    "was lost\n");
		return ReadEnd::kNakLost;
	}
	EXPECT_TRUE(wc_status(wc, IBV_WC_REM_ACCESS_ERR, wc.wr_id))
		<< "a READ cut short fails with a remote access error";
	return ReadEnd::kCut;
}

void VerbsTest::expect_read_cut(const std::function<void(ReadEnd &)> &one_try,
				const char *revoked)
{
	ReadEnd end = ReadEnd::kWhole;
	int tries = 0;

	for (; tries < 3 && end != ReadEnd::kCut; tries++) {
		SCOPED_TRACE("try " + std::to_string(tries + 1));
		end = ReadEnd::kWhole;
		one_try(end);
		if (HasFailure())
			return;
	}
	EXPECT_EQ(end, ReadEnd::kCut)
		<< "in " << tries << " tries the source was never " << revoked
		<< " while the READ was answered";
}

void VerbsTest::expect_grh(const uint8_t *grh) const
{
	const DeviceConfig &src = dev(Side::local);
	const DeviceConfig &dst = dev(Side::remote);

	if (src.has_ipv4) {
		static const uint8_t zero[20] = {};
		const uint8_t *ip = grh + 20;

		EXPECT_EQ(std::memcmp(grh, zero, 20), 0)
			<< "the GRH's first 20 bytes (RoCEv2/IPv4)";
		EXPECT_EQ(ip[0] >> 4, 4) << "IP version";
		EXPECT_EQ(ip[9], IPPROTO_UDP) << "IP protocol";
		EXPECT_EQ(std::memcmp(ip + 12, &src.ipv4, 4), 0)
			<< "IPv4 source address";
		EXPECT_EQ(std::memcmp(ip + 16, &dst.ipv4, 4), 0)
			<< "IPv4 destination address";
	} else {
		EXPECT_EQ(grh[0] >> 4, 6) << "IP version";
		EXPECT_EQ(grh[6], IPPROTO_UDP) << "next header";
		EXPECT_EQ(std::memcmp(grh + 8, src.gid.raw, 16), 0)
			<< "source GID";
		EXPECT_EQ(std::memcmp(grh + 24, dst.gid.raw, 16), 0)
			<< "destination GID";
	}
}

/* ---- counters ---- */

namespace {

std::string counters_dir(const std::string &device)
{
	return "/sys/class/infiniband/" + device + "/ports/1/hw_counters/";
}

} // namespace

Counters::Counters(std::string device) : device_(std::move(device))
{
	std::error_code ec;

	for (const auto &e : std::filesystem::directory_iterator(counters_dir(device_), ec)) {
		const std::string name = e.path().filename().string();

		if (name != "lifespan")
			before_.emplace_back(name, read(name));
	}
	if (ec || before_.empty())
		throw std::runtime_error("no hw_counters under " + counters_dir(device_) +
					 (ec ? ": " + ec.message() : std::string()));
}

uint64_t Counters::read(const std::string &name) const
{
	std::ifstream in(counters_dir(device_) + name);
	uint64_t v = 0;

	if (!(in >> v))
		throw std::runtime_error("cannot read counter " + name + " of " + device_);
	return v;
}

uint64_t Counters::delta(const std::string &name) const
{
	std::this_thread::sleep_for(milliseconds(read("lifespan") + 2));
	for (const auto &[n, v] : before_)
		if (n == name)
			return read(name) - v;
	throw std::logic_error("counter " + name + " of " + device_ + " not sampled");
}

/* A SEND and an RDMA WRITE over @p, with the data and guards checked. */
void VerbsTest::expect_traffic(const QpPair &p, uint32_t seed,
			       const char *what)
{
	SCOPED_TRACE(what);
	constexpr uint32_t n = 1500;
	auto src = make_mr(n, IBV_ACCESS_LOCAL_WRITE);
	auto dst = make_remote_mr(kGuard + n + kGuard);

	fill_pattern(src->data(), n, seed);
	fill_pattern(dst->data(), dst->length(), kGuardSeed);
	ibv_sge r = verbs::sge(*dst, kGuard, n);
	ibv_recv_wr rwr{};
	rwr.wr_id = 0x5a;
	rwr.sg_list = &r;
	rwr.num_sge = 1;
	verbs::post_recv(*p.b.qp, rwr);

	ibv_sge s = verbs::sge(*src, 0, n);
	ibv_send_wr wr{};
	wr.wr_id = 0xa5;
	wr.sg_list = &s;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED;
	verbs::post_send(*p.a.qp, wr);
	EXPECT_TRUE(wc_ok(poll_one(*p.a.send_cq, "sanity SEND"),
			  IBV_WC_SEND, 0xa5));
	ibv_wc rwc = poll_one(*p.b.recv_cq, "sanity RECV");
	EXPECT_TRUE(wc_ok(rwc, IBV_WC_RECV, 0x5a));
	EXPECT_EQ(rwc.byte_len, n);
	EXPECT_TRUE(matches_pattern(dst->data() + kGuard, n, seed))
		<< "SEND payload";

	fill_pattern(src->data(), n, seed + 1);
	wr.wr_id = 0xa6;
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.wr.rdma.remote_addr = dst->addr() + kGuard;
	wr.wr.rdma.rkey = dst->rkey();
	verbs::post_send(*p.a.qp, wr);
	EXPECT_TRUE(wc_ok(poll_one(*p.a.send_cq, "sanity WRITE"),
			  IBV_WC_RDMA_WRITE, 0xa6));
	EXPECT_TRUE(matches_pattern(dst->data() + kGuard, n, seed + 1))
		<< "WRITE payload";
	EXPECT_TRUE(matches_pattern(dst->data(), kGuard, kGuardSeed))
		<< "bytes before the target";
	EXPECT_TRUE(matches_pattern(dst->data() + kGuard + n, kGuard,
				    kGuardSeed, kGuard + n))
		<< "bytes after the target";
}

} // namespace vrnic::test
