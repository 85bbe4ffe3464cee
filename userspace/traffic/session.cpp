// SPDX-License-Identifier: GPL-2.0-only
/*
 * vrnic-traffic's client and server engines: see session.hpp.
 */

#include "session.hpp"

#include "channel.hpp"
#include "pattern.hpp"

#include <vrnic/verbs.hpp>

#include <arpa/inet.h>
#include <poll.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <stdexcept>
#include <vector>

namespace vrnic::traffic {

using namespace vrnic::verbs;
using Clock = std::chrono::steady_clock;
using nlohmann::json;

namespace {

/* wr_id: message index << 2 | kind. */
enum WrKind : uint64_t { kData = 0, kNotify = 1, kCredit = 2 };

uint64_t wr_id(uint64_t index, WrKind kind) { return index << 2 | kind; }
uint64_t wr_index(uint64_t id) { return id >> 2; }
WrKind wr_kind(uint64_t id) { return static_cast<WrKind>(id & 3); }

constexpr int kTcpTimeoutMs = 60000;

double seconds_since(Clock::time_point t)
{
	return std::chrono::duration<double>(Clock::now() - t).count();
}

std::string gid_hex(const ibv_gid &g)
{
	char s[33];

	for (int i = 0; i < 16; i++)
		std::snprintf(s + 2 * i, 3, "%02x", g.raw[i]);
	return s;
}

ibv_gid gid_parse(const std::string &s)
{
	ibv_gid g{};

	if (s.size() != 32)
		throw std::runtime_error("bad GID from the peer: " + s);
	for (int i = 0; i < 16; i++)
		g.raw[i] = static_cast<uint8_t>(std::stoul(s.substr(2 * i, 2), nullptr, 16));
	return g;
}

/* Messages and their lengths for the requested byte count. */
struct Plan {
	Op op;
	uint64_t bytes;
	uint32_t size;
	uint64_t messages;

	Plan(Op o, uint64_t b, uint32_t s) : op(o), bytes(b), size(o == Op::Atomic ? 8 : s)
	{
		messages = (bytes + size - 1) / size;
	}
	uint32_t len(uint64_t i) const
	{
		uint64_t left = bytes - i * size;

		return static_cast<uint32_t>(std::min<uint64_t>(size, left));
	}
};

/*
 * The verbs objects of one side: context, PD, CQ with a completion channel,
 * the RC QP, the data buffer and a control buffer for credits.
 */
class Endpoint {
public:
	Endpoint(const Options &o, size_t data_bytes, size_t ctl_bytes,
		 uint32_t sq, uint32_t rq)
		: ib_port_(o.ib_port)
	{
		ctx_ = std::make_shared<Context>(o.device);
		gid_index_ = o.gid_index >= 0 ? o.gid_index : find_ipv4_gid();
		gid_ = ctx_->query_gid(ib_port_, gid_index_);
		mtu_ = ctx_->query_port(ib_port_).active_mtu;
		max_rd_atomic_ = static_cast<uint32_t>(
			std::max(1, ctx_->query_device().max_qp_rd_atom));
		pd_ = std::make_shared<Pd>(ctx_);
		ch_ = std::make_shared<CompChannel>(ctx_);
		cq_ = std::make_shared<Cq>(ctx_, static_cast<int>(sq + rq + 16), ch_);
		QpCaps caps;

		caps.max_send_wr = sq;
		caps.max_recv_wr = rq;
		caps.max_send_sge = 1;
		caps.max_recv_sge = 1;
		qp_ = std::make_shared<Qp>(pd_, IBV_QPT_RC, cq_, cq_, caps);
		const int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;
		data_ = std::make_shared<Mr>(pd_, std::make_shared<Buffer>(data_bytes), access);
		ctl_ = std::make_shared<Mr>(pd_, std::make_shared<Buffer>(ctl_bytes), access);

		ibv_qp_attr a{};

		a.qp_state = IBV_QPS_INIT;
		a.pkey_index = 0;
		a.port_num = ib_port_;
		a.qp_access_flags = access;
		qp_->modify(a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				       IBV_QP_ACCESS_FLAGS);
		if (ibv_req_notify_cq(cq_->get(), 0))
			throw std::runtime_error("ibv_req_notify_cq failed");
	}

	json local_info(uint32_t psn) const
	{
		return {{"qpn", qp_->num()}, {"psn", psn}, {"gid", gid_hex(gid_)},
			{"addr", data_->addr()}, {"rkey", data_->rkey()},
			{"max-rd-atomic", max_rd_atomic_}};
	}

	void connect(const json &peer, uint32_t my_psn, const json &knobs)
	{
		ibv_qp_attr a{};
		uint32_t rd = std::min({knobs.at("depth").get<uint32_t>(), max_rd_atomic_,
					peer.at("max-rd-atomic").get<uint32_t>(), 16u});

		a.qp_state = IBV_QPS_RTR;
		a.path_mtu = mtu_;
		a.dest_qp_num = peer.at("qpn").get<uint32_t>();
		a.rq_psn = peer.at("psn").get<uint32_t>();
		a.max_dest_rd_atomic = static_cast<uint8_t>(rd);
		a.min_rnr_timer = 12;	/* 0.64 ms */
		a.ah_attr.is_global = 1;
		a.ah_attr.grh.dgid = gid_parse(peer.at("gid").get<std::string>());
		a.ah_attr.grh.sgid_index = static_cast<uint8_t>(gid_index_);
		a.ah_attr.grh.hop_limit = 64;
		a.ah_attr.port_num = ib_port_;
		qp_->modify(a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
				       IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
				       IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);

		ibv_qp_attr r{};

		r.qp_state = IBV_QPS_RTS;
		r.timeout = knobs.at("timeout").get<uint8_t>();
		r.retry_cnt = knobs.at("retry").get<uint8_t>();
		r.rnr_retry = knobs.at("rnr-retry").get<uint8_t>();
		r.sq_psn = my_psn;
		r.max_rd_atomic = static_cast<uint8_t>(rd);
		qp_->modify(r, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				       IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
				       IBV_QP_MAX_QP_RD_ATOMIC);
	}

	/* Move to ERR so every outstanding WR flushes. */
	void to_error()
	{
		ibv_qp_attr a{};

		a.qp_state = IBV_QPS_ERR;
		qp_->modify(a, IBV_QP_STATE);
	}

	/* Poll up to 64 completions and hand each to @handle; returns how many. */
	template <typename Handler> int poll_each(Handler &&handle)
	{
		int n = poll(wcs_);

		for (int k = 0; k < n; k++)
			handle(wcs_[k]);
		return n;
	}

	/*
	 * Arm the CQ, then sleep until a completion event, the side channel
	 * is readable, or @ms passed.  The caller polls the CQ again after.
	 */
	void wait(int ms, int other_fd)
	{
		if (ibv_req_notify_cq(cq_->get(), 0))
			throw std::runtime_error("ibv_req_notify_cq failed");
		/*
		 * A completion that arrived between the caller's last poll and
		 * the arming raises no event: poll once more, and keep what
		 * that finds for the caller's next poll().
		 */
		ibv_wc wc[16];
		int n = ibv_poll_cq(cq_->get(), 16, wc);

		if (n < 0)
			throw std::runtime_error("ibv_poll_cq failed");
		if (n > 0) {
			stash_.insert(stash_.end(), wc, wc + n);
			return;
		}

		pollfd p[2] = {{ch_->fd(), POLLIN, 0}, {other_fd, POLLIN, 0}};

		if (::poll(p, other_fd >= 0 ? 2 : 1, ms) > 0 && (p[0].revents & POLLIN)) {
			ibv_cq *cq;
			void *ctx;

			if (ibv_get_cq_event(ch_->get(), &cq, &ctx) == 0)
				ibv_ack_cq_events(cq, 1);
		}
	}

	void post_send(ibv_send_wr &wr) { verbs::post_send(qp_->get(), wr); }
	/* A receive of @sge (none: a zero-length receive) tagged @id. */
	void post_recv(uint64_t id, ibv_sge *sge)
	{
		ibv_recv_wr wr{};

		wr.wr_id = id;
		wr.sg_list = sge;
		wr.num_sge = sge ? 1 : 0;
		verbs::post_recv(qp_->get(), wr);
	}

	uint8_t *data() const { return data_->data(); }
	uint8_t *ctl() const { return ctl_->data(); }
	ibv_sge data_sge(size_t off, uint32_t len) const { return sge(*data_, off, len); }
	ibv_sge ctl_sge(size_t off, uint32_t len) const { return sge(*ctl_, off, len); }

private:
	int poll(std::vector<ibv_wc> &wc)
	{
		if (!stash_.empty()) {
			int n = static_cast<int>(std::min(stash_.size(), wc.size()));

			std::copy_n(stash_.begin(), n, wc.begin());
			stash_.erase(stash_.begin(), stash_.begin() + n);
			return n;
		}
		int n = ibv_poll_cq(cq_->get(), static_cast<int>(wc.size()), wc.data());

		if (n < 0)
			throw std::runtime_error("ibv_poll_cq failed");
		return n;
	}

	int find_ipv4_gid() const
	{
		int n = ctx_->query_port(ib_port_).gid_tbl_len;

		for (int i = 0; i < n; i++) {
			ibv_gid g{};

			if (ibv_query_gid(ctx_->get(), ib_port_, i, &g))
				continue;
			static const uint8_t v4[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

			if (!std::memcmp(g.raw, v4, sizeof(v4)))
				return i;
		}
		throw std::runtime_error(
			"device has no IPv4 GID on port " + std::to_string(ib_port_) +
			": give one with --gid-index, or add an IPv4 address to its netdev");
	}

	uint8_t ib_port_;
	int gid_index_ = 0;
	ibv_gid gid_{};
	ibv_mtu mtu_ = IBV_MTU_1024;
	uint32_t max_rd_atomic_ = 1;
	std::shared_ptr<Context> ctx_;
	std::shared_ptr<Pd> pd_;
	std::shared_ptr<CompChannel> ch_;
	std::shared_ptr<Cq> cq_;
	std::shared_ptr<Qp> qp_;
	std::shared_ptr<Mr> data_;
	std::shared_ptr<Mr> ctl_;
	std::vector<ibv_wc> stash_;
	std::vector<ibv_wc> wcs_ = std::vector<ibv_wc>(64);
};

uint32_t initial_psn(uint32_t seed, bool server)
{
	return (seed * 2654435761u + (server ? 0x5bd1e9u : 0x1b873u)) & 0xffffff;
}

/* Fill the side's status from what it saw, unless already decided. */
void settle(SideReport &s, bool deadline, const std::string &why)
{
	if (deadline) {
		s.status = "deadline";
		s.detail = why;
	} else if (!s.first_error.empty()) {
		s.status = "error";
		if (s.detail.empty())
			s.detail = "first error completion: " + s.first_error;
	} else if (s.mismatches) {
		s.status = "mismatch";
	} else if (!why.empty() && s.status == "ok") {
		s.status = "error";
		s.detail = why;
	}
}

/* The run as requested, before either side has done anything. */
Result new_result(const Plan &plan, uint32_t depth, uint32_t seed)
{
	Result res;

	res.op = plan.op;
	res.bytes_requested = plan.bytes;
	res.messages_requested = plan.messages;
	res.size = plan.size;
	res.depth = depth;
	res.seed = seed;
	return res;
}

/* Count a message that failed its check; the first one is described. */
void note_mismatch(SideReport &s, const std::string &what)
{
	if (!s.mismatches)
		s.first_mismatch = what;
	s.mismatches++;
}

std::string hex64(uint64_t v)
{
	char s[19];

	std::snprintf(s, sizeof(s), "0x%016llx", static_cast<unsigned long long>(v));
	return s;
}

/* The --deadline watchdog, started with the traffic. */
struct Watchdog {
	const Clock::time_point t0 = Clock::now();
	const Clock::time_point end;

	explicit Watchdog(double deadline_s)
		: end(t0 + std::chrono::duration_cast<Clock::duration>(
				   std::chrono::duration<double>(deadline_s)))
	{
	}
	bool expired() const { return Clock::now() >= end; }
	double elapsed_s() const { return seconds_since(t0); }
};

/* Judge the run, print it (text or JSON) and return the exit code. */
int conclude(const Result &res, bool allow_retry_exceeded, bool as_json)
{
	Verdict v = judge(res, allow_retry_exceeded);

	if (as_json)
		std::cout << to_json(res, v).dump(2) << std::endl;
	else
		std::cout << to_text(res, v) << std::flush;
	return v.exit_code;
}

/* ---- client ------------------------------------------------------------- */

/*
 * One client run.  Setup is the member initialisation (the endpoint, then
 * the side channel); run() does the handshake, the post/complete/check
 * loop and the exchange of reports.
 */
struct Client {
	const Options &o;
	const Plan plan;
	const uint32_t slots;
	const bool credits_used;
	const uint32_t sq;
	Endpoint ep;
	const uint32_t psn;
	Channel ch;
	uint64_t raddr = 0;
	uint32_t rkey = 0;
	Result res;
	SideReport &me;
	uint64_t next = 0, credits = 0, out_sq = 0, out_rq = 0;
	std::vector<bool> busy;
	std::vector<uint64_t> expect;
	AtomicModel model;
	bool failed = false, deadline = false, aborted = false;
	bool drained_by_us = false;
	std::string why;

	explicit Client(const Options &opts)
		: o(opts), plan(o.op, o.bytes, o.size), slots(o.depth),
		  credits_used(o.op == Op::Send || o.op == Op::Write),
		  sq(o.op == Op::Write ? 2 * o.depth : o.depth),
		  ep(o, static_cast<size_t>(slots) * plan.size, slots * 8ull, sq,
		     credits_used ? slots : 1),
		  psn(initial_psn(o.seed, false)),
		  ch(Channel::connect_to(o.server, o.port, kTcpTimeoutMs)),
		  res(new_result(plan, o.depth, o.seed)), me(res.client),
		  busy(slots, false), expect(slots, 0), model(o.seed)
	{
	}

	int run()
	{
		handshake();
		if (credits_used)
			for (uint32_t s = 0; s < slots; s++)
				post_credit_recv(s);
		loop();
		return report();
	}

	/* Send the knobs and our QP, take the server's, and connect. */
	void handshake()
	{
		json knobs = {{"op", op_name(o.op)}, {"bytes", o.bytes}, {"size", plan.size},
			      {"depth", o.depth}, {"seed", o.seed}, {"timeout", o.timeout},
			      {"retry", o.retry}, {"rnr-retry", o.rnr_retry},
			      {"allow-retry-exceeded", o.allow_retry_exceeded}};

		ch.send({{"type", "hello"}, {"knobs", knobs}, {"qp", ep.local_info(psn)}});
		auto welcome = ch.recv(kTcpTimeoutMs);
		if (!welcome || welcome->at("type") != "welcome")
			throw std::runtime_error(welcome && welcome->at("type") == "refused" ?
				"server refused: " + welcome->at("why").get<std::string>() :
				"no answer from the server on the side channel");
		const json &peer = welcome->at("qp");

		raddr = peer.at("addr").get<uint64_t>();
		rkey = peer.at("rkey").get<uint32_t>();
		ep.connect(peer, psn, knobs);
	}

	void post_credit_recv(uint32_t slot)
	{
		ibv_sge s = ep.ctl_sge(slot * 8ull, 8);

		ep.post_recv(wr_id(slot, kCredit), &s);
		out_rq++;
	}

	/* Post, complete and check until finished or out of time. */
	void loop()
	{
		const Watchdog clock(o.deadline_s);

		while (!finished()) {
			int n = ep.poll_each([this](const ibv_wc &wc) { handle(wc); });

			while (can_post())
				post_one();
			/*
			 * After a failure the QP is in ERR when the failure was an
			 * error completion; move it there ourselves otherwise (the
			 * server aborted) so the receives flush.
			 */
			if (failed && out_sq == 0 && out_rq && !drained_by_us) {
				ep.to_error();
				drained_by_us = true;
			}
			if (n)
				continue;
			watch_server();
			if (clock.expired()) {
				why = stall_report();
				deadline = true;
				break;
			}
			ep.wait(100, ch.fd());
		}
		res.elapsed_s = clock.elapsed_s();
	}

	bool finished() const
	{
		if (failed)
			return out_sq == 0 && out_rq == 0;
		return me.messages == plan.messages && out_sq == 0 &&
		       (!credits_used || credits == plan.messages);
	}

	bool can_post() const
	{
		if (failed || next >= plan.messages || busy[next % slots])
			return false;
		if (credits_used && next >= credits + slots)
			return false;
		return out_sq + (o.op == Op::Write ? 2 : 1) <= sq;
	}

	/* Post message next (for write, with its WRITE_WITH_IMM). */
	void post_one()
	{
		const uint64_t i = next;
		const uint32_t slot = static_cast<uint32_t>(i % slots);
		const uint32_t len = plan.len(i);
		ibv_sge s = ep.data_sge(static_cast<size_t>(slot) * plan.size, len);
		ibv_send_wr wr{}, notify{};

		wr.wr_id = wr_id(i, kData);
		wr.sg_list = &s;
		wr.num_sge = 1;
		wr.send_flags = IBV_SEND_SIGNALED;
		prepare(wr, notify, i, slot, len);
		ep.post_send(wr);
		out_sq += o.op == Op::Write ? 2 : 1;
		busy[slot] = true;
		next++;
	}

	/* The op's part of message i: its opcode, target and slot contents. */
	void prepare(ibv_send_wr &wr, ibv_send_wr &notify, uint64_t i, uint32_t slot,
		     uint32_t len)
	{
		uint8_t *p = ep.data() + static_cast<size_t>(slot) * plan.size;

		switch (o.op) {
		case Op::Send:
			fill_pattern({p, len}, o.seed, i);
			wr.opcode = IBV_WR_SEND;
			break;
		case Op::Write:
			fill_pattern({p, len}, o.seed, i);
			wr.opcode = IBV_WR_RDMA_WRITE;
			wr.wr.rdma.remote_addr = raddr + static_cast<uint64_t>(slot) * plan.size;
			wr.wr.rdma.rkey = rkey;
			notify.wr_id = wr_id(i, kNotify);
			notify.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
			notify.send_flags = IBV_SEND_SIGNALED;
			notify.imm_data = htonl(static_cast<uint32_t>(i));
			notify.wr.rdma.remote_addr = wr.wr.rdma.remote_addr;
			notify.wr.rdma.rkey = rkey;
			wr.next = &notify;
			break;
		case Op::Read:
			/* Poison, so a READ that placed nothing cannot pass. */
			std::memset(p, 0xa5, len);
			wr.opcode = IBV_WR_RDMA_READ;
			wr.wr.rdma.remote_addr = raddr + static_cast<uint64_t>(slot) * plan.size;
			wr.wr.rdma.rkey = rkey;
			break;
		case Op::Atomic: {
			AtomicOp a = model.next();

			std::memset(p, 0xa5, 8);
			expect[slot] = a.expect;
			wr.opcode = a.cmp_swap ? IBV_WR_ATOMIC_CMP_AND_SWP
					       : IBV_WR_ATOMIC_FETCH_AND_ADD;
			wr.wr.atomic.remote_addr = raddr + a.counter * 8ull;
			wr.wr.atomic.rkey = rkey;
			wr.wr.atomic.compare_add = a.cmp_swap ? a.compare : a.add;
			wr.wr.atomic.swap = a.swap;
			break;
		}
		}
	}

	void handle(const ibv_wc &wc)
	{
		const WrKind kind = wr_kind(wc.wr_id);
		const uint64_t i = wr_index(wc.wr_id);

		me.count(wc.status);
		if (kind == kCredit)
			out_rq--;
		else
			out_sq--;
		if (wc.status != IBV_WC_SUCCESS) {
			failed = true;
			return;
		}
		if (kind == kCredit) {
			credits++;
			if (!failed)
				post_credit_recv(static_cast<uint32_t>(i));
			return;
		}
		complete(i, kind);
	}

	/* Message i's WR completed with success: check what came back. */
	void complete(uint64_t i, WrKind kind)
	{
		const uint32_t slot = static_cast<uint32_t>(i % slots);
		const uint8_t *p = ep.data() + static_cast<size_t>(slot) * plan.size;

		switch (o.op) {
		case Op::Send:
			break;
		case Op::Write:
			if (kind != kNotify)
				return;
			break;
		case Op::Read:
			check_read(i, slot, p);
			break;
		case Op::Atomic:
			check_atomic(i, slot, p);
			break;
		}
		busy[slot] = false;
		me.messages++;
	}

	void check_read(uint64_t i, uint32_t slot, const uint8_t *p)
	{
		const uint32_t len = plan.len(i);
		auto bad = check_pattern({p, len}, o.seed, slot);

		if (bad)
			note_mismatch(me, "READ " + bad->describe(slot) +
					  " (read number " + std::to_string(i) + ")");
		else
			me.bytes_verified += len;
	}

	void check_atomic(uint64_t i, uint32_t slot, const uint8_t *p)
	{
		uint64_t got;

		std::memcpy(&got, p, 8);
		if (got != expect[slot])
			note_mismatch(me, "atomic " + std::to_string(i) + " returned " +
					  hex64(got) + ", expected " + hex64(expect[slot]));
		else
			me.bytes_verified += 8;
	}

	/* The server aborted or went away: fail, and flush our WRs. */
	void watch_server()
	{
		if (auto m = ch.poll_recv(); (m && m->at("type") == "abort") ||
					     ch.closed()) {
			aborted = true;
			why = m ? "the server aborted: " + m->value("why", "")
				: "the server closed the side channel";
			if (!failed) {
				failed = true;
				ep.to_error();
				drained_by_us = true;
			}
		}
	}

	std::string stall_report() const
	{
		char s[256];

		std::snprintf(s, sizeof(s),
			      "did not finish: %llu of %llu messages completed, %llu "
			      "posted, %llu credits, %llu send and %llu receive WRs "
			      "outstanding after %.0f s",
			      static_cast<unsigned long long>(me.messages),
			      static_cast<unsigned long long>(plan.messages),
			      static_cast<unsigned long long>(next),
			      static_cast<unsigned long long>(credits),
			      static_cast<unsigned long long>(out_sq),
			      static_cast<unsigned long long>(out_rq), o.deadline_s);
		return s;
	}

	/* Settle our side, trade it for the server's, judge and print. */
	int report()
	{
		settle(me, deadline, deadline || aborted ? why : "");
		if (aborted && !deadline)
			me.detail = why;

		ch.send({{"type", "done"}, {"client", to_json(me)}});
		auto report = ch.recv(kTcpTimeoutMs);
		if (report && report->at("type") == "report") {
			res.server = side_from_json(report->at("server"));
		} else {
			res.server.status = "no-report";
			res.server.detail = "the server sent no report within " +
					    std::to_string(kTcpTimeoutMs / 1000) + " s";
		}
		return conclude(res, o.allow_retry_exceeded, o.json);
	}
};

/* ---- server ------------------------------------------------------------- */

json receive_hello(Channel &ch)
{
	auto hello = ch.recv(kTcpTimeoutMs);

	if (!hello || hello->at("type") != "hello")
		throw std::runtime_error("the client sent no hello");
	return *hello;
}

/* The op the client asked for; an unknown one is refused. */
Op requested_op(Channel &ch, const json &knobs)
{
	auto op = parse_op(knobs.at("op").get<std::string>());

	if (!op) {
		ch.send({{"type", "refused"}, {"why", "unknown op"}});
		throw std::runtime_error("the client asked for an unknown op");
	}
	return *op;
}

/*
 * One server run.  Setup is the member initialisation (accept the client,
 * take its hello and knobs, then the endpoint); run() preloads the data,
 * connects, and checks what arrives until the client's done.
 */
struct Server {
	const Options &o;
	Channel ch;
	const json hello;
	const json knobs;
	const Op op;
	const Plan plan;
	const uint32_t depth;
	const uint32_t seed;
	const bool allow;
	const uint32_t slots;
	const bool credits_used;
	const uint32_t sq;
	Endpoint ep;
	const uint32_t psn;
	Result res;
	SideReport &me;
	uint64_t out_sq = 0, out_rq = 0, pending_credits = 0;
	bool failed = false, own_flush = false, done = false, deadline = false;
	bool abort_sent = false;
	Clock::time_point drain_end{};
	std::string why;

	explicit Server(const Options &opts)
		: o(opts), ch(Channel::accept_one(o.port, static_cast<int>(o.deadline_s * 1000))),
		  hello(receive_hello(ch)), knobs(hello.at("knobs")),
		  op(requested_op(ch, knobs)),
		  plan(op, knobs.at("bytes").get<uint64_t>(), knobs.at("size").get<uint32_t>()),
		  depth(knobs.at("depth").get<uint32_t>()),
		  seed(knobs.at("seed").get<uint32_t>()),
		  allow(knobs.at("allow-retry-exceeded").get<bool>()),
		  slots(depth), credits_used(op == Op::Send || op == Op::Write), sq(2 * depth),
		  ep(o, op == Op::Atomic ? AtomicModel::kCounters * 8ull
					 : static_cast<size_t>(slots) * plan.size,
		     slots * 8ull, sq, slots),
		  psn(initial_psn(seed, true)),
		  res(new_result(plan, depth, seed)), me(res.server)
	{
	}

	int run()
	{
		preload();
		if (credits_used)
			for (uint32_t s = 0; s < slots; s++)
				post_recv(s);
		ep.connect(hello.at("qp"), psn, knobs);
		ch.send({{"type", "welcome"}, {"qp", ep.local_info(psn)}});
		loop();
		return report();
	}

	/* What the client reads: read's slots, atomic's counters. */
	void preload()
	{
		if (op == Op::Read) {
			for (uint32_t s = 0; s < slots; s++)
				fill_pattern({ep.data() + static_cast<size_t>(s) * plan.size, plan.size},
					     seed, s);
		} else if (op == Op::Atomic) {
			auto init = AtomicModel::initial(seed);

			std::memcpy(ep.data(), init.data(), init.size() * 8);
		}
	}

	void post_recv(uint32_t slot)
	{
		ibv_sge s = ep.data_sge(static_cast<size_t>(slot) * plan.size, plan.size);

		ep.post_recv(wr_id(slot, kData), op == Op::Send ? &s : nullptr);
		out_rq++;
	}

	/* Check and credit what arrives until the client is done, or time is up. */
	void loop()
	{
		const Watchdog clock(o.deadline_s);

		for (;;) {
			int n = ep.poll_each([this](const ibv_wc &wc) { handle(wc); });

			post_credits();
			if (failed && !abort_sent) {
				ch.send({{"type", "abort"},
					 {"why", "server error completion: " + me.first_error}});
				abort_sent = true;
			}
			if (done && drain_over())
				break;
			if (n)
				continue;
			if (!done) {
				if (take_done())
					continue;
				if (ch.closed()) {
					why = "the client closed the side channel without a result";
					res.client.status = "no-report";
					res.client.detail = why;
					break;
				}
			}
			if (clock.expired()) {
				why = "the client did not finish within " +
				      std::to_string(static_cast<int>(o.deadline_s)) + " s; " +
				      std::to_string(me.messages) + " of " +
				      std::to_string(plan.messages) + " messages arrived";
				deadline = true;
				break;
			}
			ep.wait(100, done ? -1 : ch.fd());
		}
		res.elapsed_s = clock.elapsed_s();
	}

	void handle(const ibv_wc &wc)
	{
		/* A failed completion's opcode is undefined: go by the wr_id. */
		const bool recv = wr_kind(wc.wr_id) == kData;

		if (!(own_flush && wc.status == IBV_WC_WR_FLUSH_ERR))
			me.count(wc.status);
		else
			me.completions["wr-flush-err"]++;
		if (recv)
			out_rq--;
		else
			out_sq--;
		if (wc.status != IBV_WC_SUCCESS) {
			if (!own_flush)
				failed = true;
			return;
		}
		if (!recv)
			return;
		const uint32_t slot = static_cast<uint32_t>(wr_index(wc.wr_id));

		check(wc, slot);
		me.messages++;
		post_recv(slot);
		pending_credits++;
	}

	/* Check message me.messages, which just arrived in @slot (send) or by WRITE. */
	void check(const ibv_wc &wc, uint32_t slot)
	{
		const uint8_t *p = ep.data() + static_cast<size_t>(slot) * plan.size;
		const uint64_t i = me.messages;
		const uint32_t len = i < plan.messages ? plan.len(i) : 0;

		if (i >= plan.messages) {
			note_mismatch(me, "message " + std::to_string(i) + " arrived, but only " +
					  std::to_string(plan.messages) + " were sent");
		} else if (op == Op::Send) {
			if (wc.byte_len != len)
				note_mismatch(me, "message " + std::to_string(i) + ": length " +
						  std::to_string(wc.byte_len) + ", expected " +
						  std::to_string(len));
			else if (auto bad = check_pattern({p, len}, seed, i))
				note_mismatch(me, "SEND " + bad->describe(i));
			else
				me.bytes_verified += len;
		} else {
			const uint64_t imm = ntohl(wc.imm_data);
			const uint32_t wslot = static_cast<uint32_t>(i % slots);
			const uint8_t *wp = ep.data() + static_cast<size_t>(wslot) * plan.size;

			if (!(wc.wc_flags & IBV_WC_WITH_IMM) || imm != i)
				note_mismatch(me, "message " + std::to_string(i) +
						  ": the WRITE_WITH_IMM carried " + std::to_string(imm));
			else if (auto bad = check_pattern({wp, len}, seed, i))
				note_mismatch(me, "WRITE " + bad->describe(i));
			else
				me.bytes_verified += len;
		}
	}

	/* A credit (8-byte SEND of the checked count) per checked message. */
	void post_credits()
	{
		while (!failed && !own_flush && pending_credits && out_sq < sq) {
			uint64_t v = me.messages;
			uint32_t slot = static_cast<uint32_t>(v % slots);
			ibv_sge s = ep.ctl_sge(slot * 8ull, 8);
			ibv_send_wr wr{};

			std::memcpy(ep.ctl() + slot * 8ull, &v, 8);
			wr.wr_id = wr_id(v, kCredit);
			wr.sg_list = &s;
			wr.num_sge = 1;
			wr.opcode = IBV_WR_SEND;
			wr.send_flags = IBV_SEND_SIGNALED;
			ep.post_send(wr);
			out_sq++;
			pending_credits--;
		}
	}

	/* After the client's done: true once our WRs settled or the drain timed out. */
	bool drain_over()
	{
		bool settled = own_flush ? out_sq == 0 && out_rq == 0
					 : out_sq == 0 && !pending_credits;
		if (settled)
			return true;
		if (Clock::now() >= drain_end) {
			why = "outstanding WRs did not complete within 10 s of the client's done";
			deadline = true;
			return true;
		}
		return false;
	}

	/* Take the client's done if it came; flush our WRs if the run failed. */
	bool take_done()
	{
		auto m = ch.poll_recv();

		if (!(m && m->at("type") == "done"))
			return false;
		res.client = side_from_json(m->at("client"));
		done = true;
		drain_end = Clock::now() + std::chrono::seconds(10);
		if (res.client.status != "ok" || failed) {
			ep.to_error();
			own_flush = true;
		}
		return true;
	}

	/* atomic: the counters must hold what the model predicts. */
	void check_counters()
	{
		const uint64_t issued = res.client.messages;

		if (!(res.client.status == "ok" && issued == plan.messages)) {
			me.detail = "counters not checked: the client did not finish";
			return;
		}
		auto want = atomic_final(seed, plan.messages);

		for (uint32_t k = 0; k < AtomicModel::kCounters; k++) {
			uint64_t got;

			std::memcpy(&got, ep.data() + k * 8ull, 8);
			if (got != want[k])
				note_mismatch(me, "counter " + std::to_string(k) + " holds " +
						  hex64(got) + ", expected " + hex64(want[k]));
		}
		if (!me.mismatches)
			me.detail = "all " + std::to_string(AtomicModel::kCounters) +
				    " counters hold the values predicted after " +
				    std::to_string(plan.messages) + " atomics";
	}

	/* Settle our side, send it to the client, judge and print. */
	int report()
	{
		if (op == Op::Atomic && done)
			check_counters();
		settle(me, deadline, why);
		if (me.status == "ok" && credits_used && done && res.client.status == "ok" &&
		    me.messages != plan.messages) {
			me.status = "error";
			me.detail = "only " + std::to_string(me.messages) + " of " +
				    std::to_string(plan.messages) + " messages arrived";
		}
		if (done)
			ch.send({{"type", "report"}, {"server", to_json(me)}});
		return conclude(res, allow, o.json);
	}
};

} // namespace

int run_client(const Options &o)
{
	Client client(o);

	return client.run();
}

int run_server(const Options &o)
{
	Server server(o);

	return server.run();
}

} // namespace vrnic::traffic
