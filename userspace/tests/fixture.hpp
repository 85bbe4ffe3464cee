// SPDX-License-Identifier: GPL-2.0-only
/*
 * Conformance suite plumbing: the run configuration (device, port, GID), the
 * VerbsTest fixture (opens the device per test), QP connection helpers,
 * and completion/event helpers that always run against a deadline.
 *
 * Topology: every transfer test uses two QPs on the one device under test,
 * connected to each other through the device's own RoCEv2 GID (loopback).
 */
#pragma once

#include "pattern.hpp"
#include "verbs.hpp"

#include <gtest/gtest.h>
#include <netinet/in.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace vrnic::test {

using namespace std::chrono_literals;
using std::chrono::milliseconds;

struct Config {
	std::string device;
	uint8_t port = 1;
	int gid_index = -1;
	ibv_gid gid{};
	std::string gid_type;	/* "RoCE v2", "IB/RoCE v1" */
	bool has_ipv4 = false;	/* gid is IPv4-mapped (::ffff:a.b.c.d) */
	in_addr ipv4{};
	/* Deadline for one expected completion or event. */
	milliseconds timeout{10000};
	/* How long "nothing arrives" is watched for. */
	milliseconds quiet{500};
};

/* The process-wide configuration, filled in by main() before the tests run. */
Config &config();

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

/* Query the QP until it reports want or timeout; returns the last state. */
ibv_qp_state wait_qp_state(const verbs::Qp &qp, ibv_qp_state want,
			   milliseconds timeout);

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

/* Two connected RC (or UC) QPs: a sends to b and b to a. */
struct QpPair {
	Endpoint a;
	Endpoint b;
};

class VerbsTest : public ::testing::Test {
protected:
	void SetUp() override;

	const Config &cfg() const { return config(); }

	std::shared_ptr<verbs::Cq> make_cq(int cqe = 256);
	std::shared_ptr<verbs::Mr> make_mr(size_t size, int access = kMrAccess);

	/* A QP with fresh CQs unless given; recv_cq may equal send_cq. */
	Endpoint make_endpoint(ibv_qp_type type, const verbs::QpCaps &caps = {},
			       std::shared_ptr<verbs::Cq> send_cq = {},
			       std::shared_ptr<verbs::Cq> recv_cq = {},
			       std::shared_ptr<verbs::Srq> srq = {});

	/* Address vector to this device's own GID (loopback). */
	ibv_ah_attr own_ah_attr() const;
	/* max_rd_atomic / max_dest_rd_atomic used for RC QPs. */
	uint8_t rd_atomic() const;
	uint32_t path_mtu_bytes() const;

	/* RESET->INIT; UD gets kQkey, RC/UC the access flags. */
	void modify_to_init(const verbs::Qp &qp, int access = kAllAccess) const;
	/* INIT->RTR towards remote_qpn on the own GID (RC/UC). */
	void modify_to_rtr(const verbs::Qp &qp, uint32_t remote_qpn,
			   uint32_t rq_psn) const;
	/* RTR->RTS. */
	void modify_to_rts(const verbs::Qp &qp, uint32_t sq_psn) const;

	/* RC or UC: bring a and b to RTS connected to each other. */
	void connect(const Endpoint &a, const Endpoint &b) const;
	/* UD: RESET->INIT->RTR->RTS. */
	void ud_to_rts(const verbs::Qp &qp) const;

	QpPair make_pair(ibv_qp_type type = IBV_QPT_RC,
			 const verbs::QpCaps &caps = {});

	std::shared_ptr<verbs::Context> ctx_;
	std::shared_ptr<verbs::Pd> pd_;
	ibv_device_attr dev_attr_{};
	ibv_port_attr port_attr_{};
};

} // namespace vrnic::test
