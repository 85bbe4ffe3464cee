// SPDX-License-Identifier: GPL-2.0-only
/*
 * Conformance suite plumbing: the run configuration (devices, port, GIDs),
 * the VerbsTest fixture (opens the devices per test), QP connection helpers,
 * and completion/event helpers that always run against a deadline.
 *
 * Topology: every transfer test connects two QPs. The first (the requester
 * where a test has a direction) is on the device under test (--device); the
 * second, with its PD, CQs and MRs, is on the peer device (--peer-device)
 * when one is given, else on the device under test too, which then talks to
 * its own RoCEv2 GID (loopback). Each side addresses the other through the
 * other's GID.
 */
#pragma once

#include "pattern.hpp"
#include <vrnic/verbs.hpp>

#include <gtest/gtest.h>
#include <netinet/in.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace vrnic::test {

using namespace std::chrono_literals;
using std::chrono::milliseconds;

/* One RDMA device of the run: its port and the GID used on it. */
struct DeviceConfig {
	std::string device;
	uint8_t port = 1;
	int gid_index = -1;
	ibv_gid gid{};
	std::string gid_type;	/* "RoCE v2", "IB/RoCE v1" */
	bool has_ipv4 = false;	/* gid is IPv4-mapped (::ffff:a.b.c.d) */
	in_addr ipv4{};
	/*
	 * --driver/--peer-driver: what the device is, as the caller knows
	 * it ("" when not given).  A test may skip for a feature the device
	 * lacks only when the device may lack it: on vrnic, whose features
	 * the suite knows, such a skip is a failure (VRNIC_SKIP_OR_FAIL below).
	 */
	std::string driver;

	bool is_vrnic() const { return driver == "vrnic"; }
};

/*
 * The device under test (the DeviceConfig fields), the optional peer device
 * and the deadlines.
 */
struct Config : DeviceConfig {
	/* --peer-device: the remote side of two-QP tests. */
	std::optional<DeviceConfig> peer;
	/* Deadline for one expected completion or event. */
	milliseconds timeout{10000};
	/* How long "nothing arrives" is watched for. */
	milliseconds quiet{500};

	/* The remote side: the peer device, else the device under test. */
	const DeviceConfig &remote() const { return peer ? *peer : *this; }
};

/* The process-wide configuration, filled in by main() before the tests run. */
Config &config();

/*
 * VRNIC_SKIP_OR_FAIL(dev, message...): the test cannot run because the
 * device (a DeviceConfig) lacks something.  A skip, unless the device is
 * vrnic, which has it: then a failure, with the same message.  Returns
 * from the calling function, as GTEST_SKIP() does.
 */
#define VRNIC_SKIP_OR_FAIL(dev, ...)                                          \
	do {                                                                  \
		if ((dev).is_vrnic())                                         \
			GTEST_FAIL() << (dev).device << " is vrnic, which "   \
				     << "must not skip this: " << __VA_ARGS__; \
		else                                                          \
			GTEST_SKIP() << __VA_ARGS__;                          \
	} while (0)

struct GidChoice {
	int index = -1;
	ibv_gid gid{};
	std::string type;
	bool has_ipv4 = false;
	in_addr ipv4{};
};

/*
 * The GID type of one table entry: sysfs gid_attrs/types/<index> when
 * readable, else ibv_query_gid_ex(); "" if the entry is empty or unknown.
 */
std::string gid_type_of(ibv_context *ctx, const std::string &device,
			uint8_t port, int index);

/*
 * The default GID: the first RoCE v2 entry that is IPv4-mapped, else the first
 * RoCE v2 entry of any kind; nullopt if the port has no RoCE v2 GID.
 */
std::optional<GidChoice> choose_gid(ibv_context *ctx, const std::string &device,
				    uint8_t port);

bool gid_is_zero(const ibv_gid &gid);
bool gid_is_ipv4_mapped(const ibv_gid &gid);
std::string format_gid(const ibv_gid &gid);
std::string format_ipv4(const in_addr &addr);

/* ---- completions ---- */

std::string describe(const ibv_wc &wc);

/* Poll up to timeout for one completion (timeout 0: a single poll). */
std::optional<ibv_wc> try_poll(const verbs::Cq &cq, milliseconds timeout);
/* One completion within config().timeout, else throw naming what. */
ibv_wc poll_one(const verbs::Cq &cq, std::string_view what);
/* n completions within config().timeout (each), else throw. */
std::vector<ibv_wc> poll_n(const verbs::Cq &cq, size_t n,
			   std::string_view what);

/* status == IBV_WC_SUCCESS, opcode and wr_id as given. */
::testing::AssertionResult wc_ok(const ibv_wc &wc, ibv_wc_opcode opcode,
				 uint64_t wr_id);
/* status and wr_id as given (opcode is undefined for errors). */
::testing::AssertionResult wc_status(const ibv_wc &wc, ibv_wc_status status,
				     uint64_t wr_id);

/* A signaled send WR of @op with the one SGE @s (none if null). */
inline ibv_send_wr wr_of(ibv_wr_opcode op, ibv_sge *s, uint64_t wr_id)
{
	ibv_send_wr wr{};

	wr.wr_id = wr_id;
	wr.sg_list = s;
	wr.num_sge = s ? 1 : 0;
	wr.opcode = op;
	wr.send_flags = IBV_SEND_SIGNALED;
	return wr;
}

/* A signaled RDMA WRITE or READ WR (wr_of()) at @remote_addr under @rkey. */
inline ibv_send_wr rdma_wr(ibv_wr_opcode op, ibv_sge *s, uint64_t wr_id,
			   uint64_t remote_addr, uint32_t rkey)
{
	ibv_send_wr wr = wr_of(op, s, wr_id);

	wr.wr.rdma.remote_addr = remote_addr;
	wr.wr.rdma.rkey = rkey;
	return wr;
}

inline ibv_send_wr rdma_wr(ibv_wr_opcode op, ibv_sge &s, uint64_t wr_id,
			   uint64_t remote_addr, uint32_t rkey)
{
	return rdma_wr(op, &s, wr_id, remote_addr, rkey);
}

/* Query the QP until it reports want or timeout; returns the last state. */
ibv_qp_state wait_qp_state(const verbs::Qp &qp, ibv_qp_state want,
			   milliseconds timeout);

/* ---- counters ---- */

/*
 * A device's port 1 hw_counters (rdma statistic): every counter sampled at
 * construction, delta(name) its growth since.  Throws naming the counter
 * and device when one cannot be read.
 */
class Counters {
public:
	explicit Counters(std::string device);
	/* Waits out the core's cache of the values (lifespan, ms) first. */
	uint64_t delta(const std::string &name) const;

private:
	uint64_t read(const std::string &name) const;

	std::string device_;
	std::vector<std::pair<std::string, uint64_t>> before_;
};

/* ---- events ---- */

/* poll() one fd for POLLIN. */
bool fd_readable(int fd, milliseconds timeout);

/*
 * Wait for an async event of the given type on the context. Every event read
 * is acked at once (so object teardown never blocks on an unacked event);
 * other event types are skipped and their names appended to *skipped.
 */
std::optional<ibv_async_event> wait_async_event(const verbs::Context &ctx,
						ibv_event_type type,
						milliseconds timeout,
						std::vector<std::string> *skipped = nullptr);

struct CqEvent {
	ibv_cq *cq;
	void *cq_context;
};

/*
 * poll() the channel fd, then ibv_get_cq_event() and ibv_ack_cq_events(cq, 1)
 * at once; nullopt if no event within timeout.
 */
std::optional<CqEvent> wait_cq_event(const verbs::CompChannel &channel,
				     milliseconds timeout);

/* ---- parameters ---- */

inline constexpr size_t kMessageSizes[] = {
	1, 63, 64, 4095, 4096, 4097, 65536, size_t{1} << 20,
};

/* "1B", "4097B", "4KiB", "1MiB": usable as a gtest parameter name. */
std::string size_name(size_t size);

struct SizeParamName {
	std::string operator()(const ::testing::TestParamInfo<size_t> &info) const
	{
		return size_name(info.param);
	}
};

/* ---- QP connection constants ---- */

/* QP access flags of every connected QP; MRs opt into atomics themselves. */
inline constexpr int kAllAccess = IBV_ACCESS_LOCAL_WRITE |
				  IBV_ACCESS_REMOTE_WRITE |
				  IBV_ACCESS_REMOTE_READ |
				  IBV_ACCESS_REMOTE_ATOMIC;
/* Default MR access: local write, remote read and write. */
inline constexpr int kMrAccess = IBV_ACCESS_LOCAL_WRITE |
				 IBV_ACCESS_REMOTE_WRITE |
				 IBV_ACCESS_REMOTE_READ;
inline constexpr uint32_t kPsnA = 0x010203;
inline constexpr uint32_t kPsnB = 0xabcdef;
inline constexpr uint32_t kQkey = 0x11111111;
inline constexpr uint8_t kHopLimit = 64;
inline constexpr uint8_t kTimeout = 17;		/* 4.096 us * 2^17 = 0.54 s */
inline constexpr uint8_t kRetryCnt = 7;
inline constexpr uint8_t kRnrRetry = 7;		/* infinite */
inline constexpr uint8_t kMinRnrTimer = 12;	/* 0.64 ms */
/* Bytes of guard pattern around every target area. */
inline constexpr size_t kGuard = 64;
/* The GRH a UD receive buffer starts with. */
inline constexpr size_t kGrhSize = 40;

/* One QP with its CQs. */
struct Endpoint {
	std::shared_ptr<verbs::Cq> send_cq;
	std::shared_ptr<verbs::Cq> recv_cq;
	std::shared_ptr<verbs::Qp> qp;
};

/*
 * Two connected RC (or UC) QPs: a sends to b and b to a. a is on the device
 * under test, b on the remote side (see the topology above).
 */
struct QpPair {
	Endpoint a;
	Endpoint b;
};

/*
 * Where a test object lives: on the device under test, or on the remote side
 * (the peer device; the device under test itself when there is no peer).
 */
enum class Side { local, remote };

class VerbsTest : public ::testing::Test {
protected:
	void SetUp() override;

	const Config &cfg() const { return config(); }
	/* The configuration of one side. */
	const DeviceConfig &dev(Side side) const;
	/* True when a --peer-device was given. */
	bool has_peer() const { return cfg().peer.has_value(); }

	const std::shared_ptr<verbs::Context> &context(Side side) const;
	const std::shared_ptr<verbs::Pd> &pd(Side side) const;

	std::shared_ptr<verbs::Cq> make_cq(int cqe = 256,
					   Side side = Side::local);
	std::shared_ptr<verbs::Mr> make_mr(size_t size, int access = kMrAccess,
					   Side side = Side::local);
	/* An MR on the remote side's PD: b's receive buffers, rkey targets. */
	std::shared_ptr<verbs::Mr> make_remote_mr(size_t size,
						  int access = kMrAccess)
	{
		return make_mr(size, access, Side::remote);
	}

	/*
	 * A QP with fresh CQs unless given; recv_cq may equal send_cq. The
	 * CQs and SRQ given must belong to the same side.
	 */
	Endpoint make_endpoint(ibv_qp_type type, const verbs::QpCaps &caps = {},
			       std::shared_ptr<verbs::Cq> send_cq = {},
			       std::shared_ptr<verbs::Cq> recv_cq = {},
			       std::shared_ptr<verbs::Srq> srq = {},
			       Side side = Side::local);
	Endpoint make_remote_endpoint(ibv_qp_type type,
				      const verbs::QpCaps &caps = {},
				      std::shared_ptr<verbs::Cq> send_cq = {},
				      std::shared_ptr<verbs::Cq> recv_cq = {},
				      std::shared_ptr<verbs::Srq> srq = {})
	{
		return make_endpoint(type, caps, std::move(send_cq),
				     std::move(recv_cq), std::move(srq),
				     Side::remote);
	}

	/*
	 * The 40 bytes a UD receive starts with: the network header the
	 * receiving device wrote for a datagram from the device under test
	 * to the remote side (RoCEv2 over IPv4: 20 zero bytes, then the IPv4
	 * header; over IPv6: the IPv6 header).
	 */
	void expect_grh(const uint8_t *grh) const;

	/*
	 * A READ into @sink is under way: the first 64 bytes no longer hold
	 * the guard pattern @sink was filled with (kGuardSeed at offset
	 * @guard_off), or the timeout passed.
	 */
	void wait_first_bytes(const uint8_t *sink, size_t guard_off) const;
	/*
	 * A SEND and an RDMA WRITE over @p (a to b), each payload (pattern
	 * @seed, then @seed + 1) and the guards around it checked; @what
	 * names the pair in failures.
	 */
	void expect_traffic(const QpPair &p, uint32_t seed, const char *what);
	/*
	 * A long READ of @size bytes, whose source (pattern @seed) was revoked
	 * (deregistered, deallocated: @revoked names it) while the READ was
	 * answered and then overwritten with pattern @secret, ended in @wc.
	 * Each byte of @sink must be the source's, or the guard pattern it
	 * held (kGuardSeed at offset @guard_off): a secret byte leaked
	 * through the revoked key.  A READ cut short fails with a remote
	 * access error, and the responder (@responder) goes to ERR
	 * (IBA 9.9.3.1.3).  Should that NAK be lost, the requester can only
	 * run out of retries: that end, with the responder in ERR, shows
	 * nothing either way.  Prints the counts.
	 */
	enum class ReadEnd { kWhole, kCut, kNakLost };
	ReadEnd judge_revoked_read(const ibv_wc &wc, const uint8_t *sink,
				   size_t size, uint32_t seed, uint32_t secret,
				   size_t guard_off, const char *revoked,
				   const verbs::Qp &responder) const;
	/*
	 * Up to 3 tries of @one_try, which revokes the source of a long READ
	 * while it is answered and sets the end judge_revoked_read() gave,
	 * until one READ is cut: one must be.  A READ that ended first, or
	 * whose NAK was lost, tested nothing.
	 */
	void expect_read_cut(const std::function<void(ReadEnd &)> &one_try,
			     const char *revoked);

	/* Address vector from side from's GID to side to's GID. */
	ibv_ah_attr ah_attr(Side from, Side to) const;
	/* Address vector to this device's own GID (loopback). */
	ibv_ah_attr own_ah_attr() const
	{
		return ah_attr(Side::local, Side::local);
	}
	/*
	 * max_rd_atomic / max_dest_rd_atomic used for RC QPs: what both
	 * sides support.
	 */
	uint8_t rd_atomic() const;
	/* Path MTU of connected QPs: the smaller active MTU of the sides. */
	ibv_mtu path_mtu() const;
	uint32_t path_mtu_bytes() const;

	/* RESET->INIT on side's port; UD gets kQkey, RC/UC the access flags. */
	void modify_to_init(const verbs::Qp &qp, int access = kAllAccess,
			    Side side = Side::local) const;
	/* INIT->RTR towards remote_qpn through av (RC/UC). */
	void modify_to_rtr(const verbs::Qp &qp, uint32_t remote_qpn,
			   uint32_t rq_psn, const ibv_ah_attr &av) const;
	/* INIT->RTR towards remote_qpn on the own GID (RC/UC, loopback). */
	void modify_to_rtr(const verbs::Qp &qp, uint32_t remote_qpn,
			   uint32_t rq_psn) const
	{
		modify_to_rtr(qp, remote_qpn, rq_psn, own_ah_attr());
	}
	/* RTR->RTS. */
	void modify_to_rts(const verbs::Qp &qp, uint32_t sq_psn,
			   uint8_t rnr_retry = kRnrRetry) const;

	/*
	 * RC or UC: bring a (on the device under test) and b (on the remote
	 * side) to RTS connected to each other; a_rnr_retry is a's RNR retry
	 * count, access both QPs' access flags. Throws if a or b is on the
	 * wrong device.
	 */
	void connect(const Endpoint &a, const Endpoint &b,
		     uint8_t a_rnr_retry = kRnrRetry,
		     int access = kAllAccess) const;
	/* UD: RESET->INIT->RTR->RTS on side's port. */
	void ud_to_rts(const verbs::Qp &qp, Side side = Side::local) const;

	/* a on the device under test, b on the remote side, connected. */
	QpPair make_pair(ibv_qp_type type = IBV_QPT_RC,
			 const verbs::QpCaps &caps = {});

	/* The device under test. */
	std::shared_ptr<verbs::Context> ctx_;
	std::shared_ptr<verbs::Pd> pd_;
	ibv_device_attr dev_attr_{};
	ibv_port_attr port_attr_{};
	/*
	 * The remote side: the peer device's context and PD, or the very
	 * objects above when there is no peer.
	 */
	std::shared_ptr<verbs::Context> peer_ctx_;
	std::shared_ptr<verbs::Pd> peer_pd_;
	ibv_device_attr peer_dev_attr_{};
	ibv_port_attr peer_port_attr_{};
};

} // namespace vrnic::test
