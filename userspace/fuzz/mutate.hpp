// SPDX-License-Identifier: GPL-2.0-only
/*
 * The fuzzer's packet generator: mutation classes, and what the driver's
 * receive dispatch (kernel/exec/vrnic_recv.c) must do with each packet.
 *
 * Packet i depends only on the seed and i (its random stream is seeded from
 * both), so any single packet of a run can be rebuilt from the command line
 * that sent it (vrnic-fuzz --show I).
 *
 * Safety rule: real traffic runs on the live QPs while the fuzzer sends, and
 * RoCE has no authentication, so a forged packet that the IBTA requires the
 * device to accept (valid ICRC and headers, the right QPN, P_Key and the
 * PSN the QP expects next) would legitimately disturb that traffic.  The
 * generator therefore never sends, with a valid ICRC to a live QP, a
 * request PSN in [rq-psn, rq-psn + guard) nor a response PSN in
 * [sq-psn - back, sq-psn + guard), the PSNs the live QP may expect while
 * the fuzzer runs (rq-psn and sq-psn as read before it starts).  Behind
 * and ahead of that zone are duplicates and sequence errors, which the
 * device must survive without harm.  Packets with a bad ICRC carry any PSN,
 * the exact expected one included: the ICRC must stop them.  The rule does
 * not count on the QPs' states (they may change while the fuzzer runs).
 *
 * Foreign source (Config::foreign_source): the fuzzer sends from an address
 * that is no live QP's peer.  The driver takes an RC or UC packet only from
 * the QP's peer address, sent to the QP's own (vrnic_qp_addr_ok()), so
 * every packet that would otherwise reach a live RC or UC QP is dropped for
 * its address (Fate::rx_drop_addr) before an engine sees it.  The rule is
 * lifted for RC and UC targets there: class forged aims at exactly the PSNs
 * they expect, with a valid ICRC, and the address check must stop it.  UD
 * and GSI targets take packets from anyone (their Q_Key is the check) and
 * keep the rule.
 */
#pragma once

#include "wire.hpp"

#include <array>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace vrnic::fuzz {

/* xoshiro256** seeded by splitmix64: small, fast, the same everywhere. */
class Rng {
public:
	explicit Rng(uint64_t seed);
	uint64_t next();
	uint32_t below(uint32_t n);		/* uniform in [0, n), n > 0 */
	uint32_t range(uint32_t lo, uint32_t hi); /* uniform in [lo, hi] */
	bool chance(double p);
	void fill(std::span<uint8_t> out);

private:
	std::array<uint64_t, 4> s_{};
};

enum class QpType { rc, uc, ud, gsi };

/* IBA 10.3.1 QP states, as `rdma res show qp` names them. */
enum class QpState { reset, init, rtr, rts, sqd, sqe, err };

/* A QP of the device under test that exists (and, for rc/uc, carries traffic). */
struct Target {
	uint32_t qpn = 0;
	QpType type = QpType::rc;
	uint32_t rq_psn = 0;	/* the next request PSN it expects */
	uint32_t sq_psn = 0;	/* the next PSN it sends */
	uint32_t qkey = 0;	/* ud: its Q_Key */
	QpState state = QpState::rts;	/* as read before the fuzzer starts */
};

enum class Klass {
	opcode_sweep,	/* every opcode 0..255, random headers */
	truncated,	/* a known opcode, shorter than BTH + headers + ICRC */
	bad_length,	/* not a word multiple, pad/payload/opcode mismatch */
	oversize,	/* payload above the path MTU, up to the netdev MTU */
	psn,		/* live QPs, PSNs behind/ahead/across the window */
	qpn,		/* random, 0, 1 (GSI), 0xffffff, live */
	rkey,		/* RETH/AtomicETH: random and live rkeys, wild VAs */
	aeth,		/* unasked responses: every AETH syndrome class */
	bad_icrc,	/* well-formed packets, the expected PSN, a bad ICRC */
	ud_qkey,	/* UD sends with wrong Q_Keys, GSI included */
	pkey,		/* a P_Key other than the default */
	bth_bits,	/* TVer, resv8a, resv7, MigReq, SE */
	forged,		/* foreign source only: valid requests and responses
			   at the PSNs live RC/UC QPs expect, see above */
	count
};
inline constexpr unsigned kClasses = unsigned(Klass::count);
std::string_view klass_name(Klass k);

/*
 * What vrnic_recv() must do with a packet, in its order of checks; every
 * fate but to_qp is one drop counter.
 */
enum class Fate {
	rx_drop_icrc,		/* bad ICRC, or too short to have one */
	rx_drop_malformed,	/* opcode, TVer, length, pad; wrong transport */
	rx_drop_no_qp,
	rx_drop_pkey,		/* IBA 10.9.3: not the default P_Key */
	rx_drop_qp_state,	/* IBA 10.3.1: a request to a QP before RTR or
				   in ERR, a response before RTS (Target::state) */
	rx_drop_addr,		/* RC/UC: not from the QP's peer (foreign source) */
	rx_drop_qkey,
	to_qp,			/* handed to the QP: the engines decide */
	count
};
inline constexpr unsigned kFates = unsigned(Fate::count);
std::string_view fate_name(Fate f);	/* kebab-case: "rx-drop-icrc" */

/*
 * Where a to_qp packet lands, for the accounting: the GSI QP, or an RC
 * QP's responder (a request behind or ahead of the PSN it expects) or
 * completer (a response for a PSN before or after the live sq-psn).  Its
 * P_Key is the default one: others are dropped first (Fate::rx_drop_pkey).
 * A READ, atomic or FLUSH request behind (req_behind_rd) is a duplicate
 * the responder answers only if it resends one the QP executed: against
 * traffic that issues none, each is dropped (rx_drop_dup).  One more than
 * 2^23 - psn_guard behind (req_behind_rd_far) may be either: the traffic
 * can move the expected PSN up to psn_guard meanwhile, and past half the
 * PSN space a request is ahead (a sequence error).
 */
enum class Detail {
	gsi,
	req_behind,	/* SEND, WRITE, ATOMIC WRITE */
	req_behind_rd,	/* RDMA READ, COMPARE SWAP, FETCH ADD, FLUSH */
	req_behind_rd_far,
	req_ahead,
	resp_before,
	resp_after,
	other,		/* UD/UC targets */
	count
};
inline constexpr unsigned kDetails = unsigned(Detail::count);
std::string_view detail_name(Detail d);	/* "req-behind" */

struct Config {
	Endpoints ep;
	std::vector<Target> targets;	/* every QP the device has */
	std::vector<uint32_t> rkeys;	/* live rkeys to aim at */
	uint64_t seed = 1;
	double valid_icrc = 0.8;	/* fraction of packets with a valid ICRC */
	unsigned mtu = 1500;		/* netdev MTU: IP packet bytes */
	unsigned path_mtu = 1024;	/* RoCE path MTU of the live QPs */
	uint32_t psn_guard = 1u << 21;	/* see the safety rule above */
	uint32_t psn_back = 4096;
	unsigned psn_window = 256;	/* how far behind/ahead "near" is */
	bool foreign_source = false;	/* ep.src is no live QP's peer: see above */
	unsigned forged_weight = 1;	/* foreign source: of every kClasses - 1 +
					   forged_weight packet numbers, class
					   forged takes this many, the others one */
};

struct Packet {
	Klass klass = Klass::opcode_sweep;
	Fate fate = Fate::to_qp;
	bool valid_icrc = false;
	unsigned len = 0;		/* UDP payload bytes in the buffer */
	Detail detail = Detail::other;	/* for fate to_qp */
};

class Generator {
public:
	explicit Generator(Config cfg);

	/* The largest UDP payload the generator emits (buffer size). */
	unsigned max_len() const { return max_len_; }

	/*
	 * The class of packet @index: the classes take turns, one packet
	 * number each, forged Config::forged_weight of them in foreign-source
	 * mode and none otherwise (then the classes are numbered as they were
	 * before class forged existed).
	 */
	Klass klass_of(uint64_t index) const;
	/* Whether klass_of() ever returns @k. */
	bool generates(Klass k) const;

	/* Build packet @index into @buf (at least max_len() bytes). */
	Packet build(uint64_t index, std::span<uint8_t> buf) const;

	/* What vrnic_recv() does with the UDP payload @pkt (ICRC checked). */
	Fate predict(std::span<const uint8_t> pkt) const;

	const Config &config() const { return cfg_; }

private:
	const Target *find(uint32_t qpn) const;
	void finish(std::span<uint8_t> pkt, Packet &p, bool valid, Rng &r) const;
	bool unsafe(std::span<const uint8_t> pkt) const;
	void forge(Rng &r, Bth &b, uint8_t &op, unsigned &payload) const;
	void forge_headers(Rng &r, std::span<uint8_t> pkt, uint16_t hdrs) const;

	/* build()'s stages, in the order they draw from the packet's stream. */
	struct Draft;	/* a packet while build() makes it */
	void draft_common(Draft &d) const;
	void draft_class(Draft &d) const;
	void draft_bad_length(Draft &d) const;
	void draft_aimed(Draft &d) const;
	void aim_psn(Draft &d) const;
	std::span<uint8_t> lay_out(Draft &d, std::span<uint8_t> buf) const;
	void fill_headers(Draft &d, std::span<uint8_t> pkt) const;
	void fill_deth(Draft &d, uint8_t *deth) const;
	void fill_rkey(Draft &d, std::span<uint8_t> pkt) const;

	Config cfg_;
	unsigned max_len_;
	uint64_t turns_;			/* packet numbers in a round of classes */
	std::vector<size_t> rc_targets_;	/* indices of the RC targets */
	/* Class forged: RC/UC targets whose state takes requests; RC ones
	   whose state takes responses. */
	std::vector<size_t> forge_req_, forge_resp_;
};

} // namespace vrnic::fuzz
