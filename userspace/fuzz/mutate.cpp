// SPDX-License-Identifier: GPL-2.0-only
/*
 * The fuzzer's packet generator; see mutate.hpp.
 */
#include "mutate.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace vrnic::fuzz {

namespace {

uint64_t splitmix64(uint64_t &x)
{
	uint64_t z = (x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

constexpr std::array<std::string_view, kClasses> kKlassNames = {
	"opcode-sweep", "truncated", "bad-length", "oversize", "psn", "qpn",
	"rkey", "aeth", "bad-icrc", "ud-qkey", "pkey", "bth-bits", "forged",
};
/* klass_of(): forged takes the turns after the others'. */
static_assert(unsigned(Klass::forged) == kClasses - 1);

constexpr std::array<std::string_view, kDetails> kDetailNames = {
	"gsi", "req-behind", "req-behind-rd", "req-behind-rd-far",
	"req-ahead", "resp-before", "resp-after", "other",
};

constexpr std::array<std::string_view, kFates> kFateNames = {
	"rx-drop-icrc", "rx-drop-malformed", "rx-drop-no-qp", "rx-drop-pkey",
	"rx-drop-qp-state", "rx-drop-addr", "rx-drop-qkey",
	"to-qp",
};

std::vector<uint8_t> known_opcodes(uint32_t need = 0, uint32_t refuse = 0)
{
	std::vector<uint8_t> v;

	for (unsigned op = 0; op < 256; op++) {
		const OpcodeInfo &i = opcode_info(op);
		if (i.name && (i.flags & need) == need && !(i.flags & refuse))
			v.push_back(op);
	}
	return v;
}

const std::vector<uint8_t> &all_known()
{
	static const auto v = known_opcodes();
	return v;
}

/* RC opcodes: what a live RC QP can be sent. */
const std::vector<uint8_t> &rc_known()
{
	static const auto v = [] {
		std::vector<uint8_t> r;
		for (uint8_t op : all_known())
			if (transport_of(op) == 0x00)
				r.push_back(op);
		return r;
	}();
	return v;
}

template <typename T> T pick(Rng &r, const std::vector<T> &v)
{
	return v[r.below(v.size())];
}

bool in_zone(uint32_t psn, uint32_t start, uint32_t len)
{
	return ((psn - start) & kPsnMask) < len;
}

/* vrnic_state_ok(): may a QP in state @s take a request (@req) or a response? */
bool takes(QpState s, bool req)
{
	switch (s) {
	case QpState::rtr:
		return req;
	case QpState::rts:
	case QpState::sqd:
	case QpState::sqe:
		return true;
	default:
		return false;
	}
}

bool connected(QpType t) { return t == QpType::rc || t == QpType::uc; }

} // namespace

Rng::Rng(uint64_t seed)
{
	for (auto &w : s_)
		w = splitmix64(seed);
}

uint64_t Rng::next()
{
	const uint64_t result = rotl(s_[1] * 5, 7) * 9;
	const uint64_t t = s_[1] << 17;

	s_[2] ^= s_[0];
	s_[3] ^= s_[1];
	s_[1] ^= s_[2];
	s_[0] ^= s_[3];
	s_[2] ^= t;
	s_[3] = rotl(s_[3], 45);
	return result;
}

uint32_t Rng::below(uint32_t n) { return uint32_t((next() >> 32) * n >> 32); }
uint32_t Rng::range(uint32_t lo, uint32_t hi) { return lo + below(hi - lo + 1); }
bool Rng::chance(double p) { return double(next() >> 11) * 0x1p-53 < p; }

void Rng::fill(std::span<uint8_t> out)
{
	size_t i = 0;

	while (i < out.size()) {
		uint64_t w = next();
		for (int k = 0; k < 8 && i < out.size(); k++, w >>= 8)
			out[i++] = uint8_t(w);
	}
}

std::string_view klass_name(Klass k) { return kKlassNames.at(unsigned(k)); }
std::string_view fate_name(Fate f) { return kFateNames.at(unsigned(f)); }
std::string_view detail_name(Detail d) { return kDetailNames.at(unsigned(d)); }

Generator::Generator(Config cfg) : cfg_(std::move(cfg))
{
	const unsigned ip = cfg_.ep.family == 4 ? 20 : 40;

	if (cfg_.mtu < ip + 8 + 64)
		throw std::invalid_argument("the MTU is too small for RoCEv2 packets");
	if (cfg_.psn_guard + cfg_.psn_back + 2 * cfg_.psn_window >= (1u << 23))
		throw std::invalid_argument("--psn-guard must stay well below 2^23");
	if (cfg_.forged_weight > 1000)
		throw std::invalid_argument("--forged-weight must be at most 1000");
	max_len_ = cfg_.mtu - ip - 8;
	turns_ = kClasses - 1 + (cfg_.foreign_source ? cfg_.forged_weight : 0);
	for (size_t i = 0; i < cfg_.targets.size(); i++) {
		const Target &t = cfg_.targets[i];
		if (t.type == QpType::rc)
			rc_targets_.push_back(i);
		if (connected(t.type) && takes(t.state, true))
			forge_req_.push_back(i);
		if (t.type == QpType::rc && takes(t.state, false))
			forge_resp_.push_back(i);
	}
}

Klass Generator::klass_of(uint64_t index) const
{
	const uint64_t turn = index % turns_;

	return turn < kClasses - 1 ? Klass(turn) : Klass::forged;
}

bool Generator::generates(Klass k) const
{
	return k != Klass::forged || turns_ > kClasses - 1;
}

const Target *Generator::find(uint32_t qpn) const
{
	for (const Target &t : cfg_.targets)
		if (t.qpn == qpn)
			return &t;
	/* Every RoCE port has the GSI QP; ib_mad creates it. */
	static const Target gsi{1, QpType::gsi, 0, 0, kGsiQkey};
	return qpn == 1 ? &gsi : nullptr;
}

namespace {

/*
 * An RC request that takes a responder resource and whose duplicates the
 * responder answers from its record (READ, COMPARE SWAP, FETCH ADD, FLUSH):
 * one behind the PSN window that matches no record is dropped (rx_drop_dup).
 */
bool is_rd_request(uint8_t op)
{
	return op == 0x0c || op == 0x13 || op == 0x14 || op == 0x1c;
}

/*
 * vrnic_parse_hdrs() and the QP checks of vrnic_recv(), ICRC given; @foreign:
 * the packet does not come from any RC or UC QP's peer.
 */
Fate fate_of(const Target *t, std::span<const uint8_t> pkt, bool icrc_ok, bool foreign)
{
	const unsigned len = pkt.size();

	if (len < kBthBytes + kIcrcBytes || !icrc_ok)
		return Fate::rx_drop_icrc;
	const uint8_t op = pkt[0];
	const OpcodeInfo &info = opcode_info(op);
	if (!info.name || (pkt[1] & 0x0f) != 0)
		return Fate::rx_drop_malformed;
	const unsigned hlen = headers_length(info.hdrs);
	if (len % 4 || len < hlen + kIcrcBytes)
		return Fate::rx_drop_malformed;
	const unsigned rest = len - hlen - kIcrcBytes;
	const unsigned pad = (pkt[1] >> 4) & 3;
	if (pad > rest || (!(info.flags & kOpPayload) && rest) ||
	    (pad && !(info.flags & kOpLast)) ||
	    ((info.flags & kOpAtomicWrite) && (rest != 8 || pad)))
		return Fate::rx_drop_malformed;
	if (!t)
		return Fate::rx_drop_no_qp;
	uint8_t want;
	switch (t->type) {
	case QpType::rc: want = 0x00; break;
	case QpType::uc: want = 0x20; break;
	default: want = 0x60; break;
	}
	if (transport_of(op) != want)
		return Fate::rx_drop_malformed;
	if ((uint16_t(pkt[2] << 8 | pkt[3]) & 0x7fff) != (kDefaultPkey & 0x7fff))
		return Fate::rx_drop_pkey;
	if (!takes(t->state, info.flags & kOpReq))
		return Fate::rx_drop_qp_state;
	if (foreign && connected(t->type))
		return Fate::rx_drop_addr;	/* vrnic_qp_addr_ok() */
	if (info.hdrs & kHdrDeth) {
		const uint32_t qkey = get_be32(pkt.data() + kBthBytes);
		if (qkey != (t->type == QpType::gsi ? kGsiQkey : t->qkey))
			return Fate::rx_drop_qkey;
	}
	return Fate::to_qp;
}

uint32_t bth_qpn(std::span<const uint8_t> pkt) { return get_be32(&pkt[4]) & kPsnMask; }
uint32_t bth_psn(std::span<const uint8_t> pkt) { return get_be32(&pkt[8]) & kPsnMask; }

void set_bth_psn(std::span<uint8_t> pkt, uint32_t psn)
{
	put_be32(&pkt[8], (get_be32(&pkt[8]) & ~kPsnMask) | (psn & kPsnMask));
}

/* The ICRC a packet carries: its last 4 bytes, little-endian. */
uint32_t carried_icrc(std::span<const uint8_t> pkt)
{
	const uint8_t *p = pkt.data() + pkt.size() - kIcrcBytes;

	return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 |
	       uint32_t(p[3]) << 24;
}

} // namespace

Fate Generator::predict(std::span<const uint8_t> pkt) const
{
	bool ok = pkt.size() >= kBthBytes + kIcrcBytes &&
		  icrc(cfg_.ep, pkt) == carried_icrc(pkt);
	const Target *t = pkt.size() >= kBthBytes ? find(bth_qpn(pkt)) : nullptr;

	return fate_of(t, pkt, ok, cfg_.foreign_source);
}

/*
 * Would this packet, with a valid ICRC, disturb a live QP's traffic?  Not
 * if dispatch drops it (in foreign-source mode, every packet to an RC or
 * UC QP); its state is not counted on, though: it may change.
 */
bool Generator::unsafe(std::span<const uint8_t> pkt) const
{
	const Target *t = find(bth_qpn(pkt));

	if (!t || t->type == QpType::gsi)
		return false;
	Target any = *t;	/* in a state that takes everything */
	any.state = QpState::rts;
	if (fate_of(&any, pkt, true, cfg_.foreign_source) != Fate::to_qp)
		return false;
	if (t->type != QpType::rc)
		return true;	/* UD takes any PSN; UC resyncs on FIRST/ONLY */
	const uint32_t psn = bth_psn(pkt);
	if (opcode_info(pkt[0]).flags & kOpResp)
		return in_zone(psn, t->sq_psn - cfg_.psn_back,
			       cfg_.psn_back + cfg_.psn_guard);
	return in_zone(psn, t->rq_psn, cfg_.psn_guard);
}

void Generator::finish(std::span<uint8_t> pkt, Packet &p, bool valid, Rng &r) const
{
	p.len = pkt.size();
	if (pkt.size() < kBthBytes + kIcrcBytes) {
		p.valid_icrc = false;
		p.fate = Fate::rx_drop_icrc;
		return;
	}
	if (valid && unsafe(pkt)) {
		const Target *t = find(bth_qpn(pkt));
		if (t->type == QpType::rc) {
			/* Move it just past the zone: a sequence error. */
			const bool resp = opcode_info(pkt[0]).flags & kOpResp;
			set_bth_psn(pkt, (resp ? t->sq_psn : t->rq_psn) +
					 cfg_.psn_guard + r.below(cfg_.psn_window));
		} else {
			valid = false;
		}
	}
	uint32_t v = icrc(cfg_.ep, pkt);
	if (!valid) {
		switch (r.below(3)) {
		case 0: v ^= 1u << r.below(32); break;
		case 1: v = ~v; break;
		default: v ^= r.range(1, 0xffffffff); break;
		}
	}
	put_icrc(pkt, v);
	p.valid_icrc = valid;
	const Target *t = find(bth_qpn(pkt));
	p.fate = fate_of(t, pkt, valid, cfg_.foreign_source);
	if (p.fate == Fate::to_qp) {
		const uint32_t psn = bth_psn(pkt);
		if (t->type == QpType::gsi)
			p.detail = Detail::gsi;
		else if (t->type != QpType::rc)
			p.detail = Detail::other;
		else if (opcode_info(pkt[0]).flags & kOpResp)
			p.detail = ((psn - t->sq_psn) & kPsnMask) >= (1u << 23)
				   ? Detail::resp_before : Detail::resp_after;
		else if (((psn - t->rq_psn) & kPsnMask) < (1u << 23))
			p.detail = Detail::req_ahead;
		else if (is_rd_request(pkt[0]))
			p.detail = ((t->rq_psn - psn) & kPsnMask) <= (1u << 23) - cfg_.psn_guard
				   ? Detail::req_behind_rd : Detail::req_behind_rd_far;
		else
			p.detail = Detail::req_behind;
	}
}

/*
 * Class forged: the BTH and payload size of a packet a live RC or UC QP
 * would take from its peer, at the PSN it expects (rq-psn and a few after
 * for requests, sq-psn - 1 and sq-psn for responses), or anywhere in the
 * zone of the safety rule, which the traffic moves through while the
 * fuzzer runs.  Only the QP's address check stops these: without it a
 * SEND completes a receive WQE of the victim's, a NAK or a bad request
 * moves its QP to ERR, a READ is answered at its real peer.  Valid ICRC
 * (build()), default P_Key, TVer 0, the target's transport; the headers
 * are forge_headers()'s.
 */
void Generator::forge(Rng &r, Bth &b, uint8_t &op, unsigned &payload) const
{
	/* Requests, with the READs and atomics twice: their replies go out. */
	static const std::vector<uint8_t> rc_req = {
		0x04, 0x04, 0x05, 0x00, 0x02, 0x0a, 0x0a, 0x0b, 0x06,
		0x0c, 0x0c, 0x13, 0x14, 0x17, 0x1c, 0x1d,
	};
	static const std::vector<uint8_t> uc_req = {
		0x24, 0x24, 0x25, 0x20, 0x22, 0x2a, 0x2a, 0x2b, 0x26,
	};
	/* ACKs (every syndrome class), READ responses, atomic ACKs. */
	static const std::vector<uint8_t> rc_resp = {
		0x11, 0x11, 0x11, 0x10, 0x0d, 0x0e, 0x0f, 0x12,
	};

	b.pkey = kDefaultPkey;
	const bool resp = !forge_resp_.empty() && (forge_req_.empty() || r.below(5) < 2);
	const std::vector<size_t> &from = resp ? forge_resp_ : forge_req_;
	if (from.empty()) {
		/* No live RC or UC QP to aim at: a valid request, anywhere. */
		op = pick(r, rc_req);
		b.qpn = r.below(1u << 24);
		b.psn = r.below(1u << 24);
	} else {
		const Target &t = cfg_.targets[pick(r, from)];
		b.qpn = t.qpn;
		if (resp) {
			op = pick(r, rc_resp);
			switch (r.below(4)) {
			case 0: b.psn = t.sq_psn - 1; break;	/* the last one sent */
			case 1: b.psn = t.sq_psn; break;
			case 2: b.psn = t.sq_psn - r.range(2, 8); break;
			default:
				b.psn = t.sq_psn - cfg_.psn_back +
					r.below(cfg_.psn_back + cfg_.psn_guard);
				break;
			}
		} else {
			op = pick(r, t.type == QpType::uc ? uc_req : rc_req);
			const uint32_t k = r.below(8);
			b.psn = t.rq_psn + (k < 4 ? 0 : k < 6 ? r.range(1, 3)
						      : r.below(cfg_.psn_guard));
		}
		b.psn &= kPsnMask;
	}
	b.ackreq = !(opcode_info(op).flags & kOpResp) && r.below(4);

	const OpcodeInfo &i = opcode_info(op);
	const unsigned room = (max_len_ - headers_length(i.hdrs) - kIcrcBytes) & ~3u;
	const unsigned full = std::min(cfg_.path_mtu, room) & ~3u;
	if (i.flags & kOpAtomicWrite)
		payload = 8;
	else if (!(i.flags & kOpPayload))
		payload = 0;
	else if (!(i.flags & kOpLast))
		payload = full;		/* FIRST and MIDDLE: a full path MTU */
	else
		payload = r.below(4) ? r.below(65) : r.below(full + 1);
}

/* Class forged: the extension headers of @pkt, as its peer would send them. */
void Generator::forge_headers(Rng &r, std::span<uint8_t> pkt, uint16_t hdrs) const
{
	const uint8_t op = pkt[0];
	const unsigned pad = (pkt[1] >> 4) & 3;
	const unsigned paylen = pkt.size() - headers_length(hdrs) - kIcrcBytes - pad;
	auto at = [&](Hdr h) { return (hdrs & h) ? pkt.data() + header_offset(hdrs, h) : nullptr; };
	auto rkey = [&] { return cfg_.rkeys.empty() ? uint32_t(r.next()) : pick(r, cfg_.rkeys); };
	/* Where user space buffers are: below 2^47, 8-byte aligned. */
	auto va = [&] {
		return 0x7f0000000000ull + (uint64_t(r.below(1u << 24)) << 12) +
		       (r.below(2) ? 0 : 8 * r.below(512));
	};

	if (uint8_t *h = at(kHdrReth)) {
		uint32_t len;
		switch (op) {
		case 0x0c:	/* READ: a few MTUs, or far more than any MR */
			if (r.below(4)) {
				len = r.range(1, 4 * cfg_.path_mtu);
			} else {
				static const std::array<uint32_t, 4> huge = {
					0x80000000u, 0xffffffffu, 1u << 30, 0x7fffffffu,
				};
				len = huge[r.below(huge.size())];
			}
			break;
		case 0x06:
		case 0x26:	/* WRITE FIRST: a message of several packets */
			len = paylen * r.range(2, 8);
			break;
		case 0x1c:	/* FLUSH */
			len = r.range(1, 1u << 20);
			break;
		default:	/* WRITE ONLY, ATOMIC WRITE: this payload */
			len = paylen;
			break;
		}
		put_be64(h, va());
		put_be32(h + 8, rkey());
		put_be32(h + 12, len);
	}
	if (uint8_t *f = at(kHdrFeth))	/* selectivity level, placement type */
		put_be32(f, r.below(2) << 4 | r.range(1, 2));
	if (uint8_t *a = at(kHdrAtmeth)) {
		put_be64(a, va());
		put_be32(a + 8, rkey());
		put_be64(a + 12, r.next());	/* swap or add */
		put_be64(a + 20, r.next());	/* compare */
	}
	if (uint8_t *a = at(kHdrAeth)) {
		/*
		 * An ACK carries every class of syndrome (ACK with credits,
		 * RNR NAK, NAK: sequence error, invalid request, remote access
		 * and operational error, invalid RD request; the reserved
		 * class); READ responses and atomic ACKs an ACK.
		 */
		uint8_t syn = uint8_t(r.below(32));
		if (op == 0x11) {
			switch (r.below(10)) {
			case 0: case 1: case 2: break;
			case 3: syn |= 0x20; break;
			case 4: case 5: case 6: case 7: syn = uint8_t(0x60 | r.below(4)); break;
			default: syn = r.below(2) ? 0x64 : uint8_t(0x40 | r.below(32)); break;
			}
		}
		put_be32(a, uint32_t(syn) << 24 | r.below(1u << 24));
	}
	if (uint8_t *o = at(kHdrAtmack))
		put_be64(o, r.next());		/* the original value */
	if (uint8_t *k = at(kHdrIeth))
		put_be32(k, rkey());		/* the rkey to invalidate */
}

/*
 * A packet while build() makes it: what its stages decide, in the order
 * they draw from its random stream (the order is the packet: any change to
 * it changes every packet of every seed).
 */
struct Generator::Draft {
	explicit Draft(uint64_t seed) : r(seed) {}

	Rng r;
	Packet p;
	uint64_t round = 0;		/* the packet's round of classes */
	bool valid = false;		/* to have a valid ICRC */
	const Target *live = nullptr;	/* a live target, if there is one */
	const Target *live_rc = nullptr; /* a live RC QP: they carry the traffic */
	const Target *aim = nullptr;	/* a live RC QP the class aims at */
	Bth b;
	uint8_t op = 0;
	unsigned payload = 0;
	int extra = 0;			/* bytes added after the ICRC slot */
	unsigned cut = ~0u;		/* truncate to this many bytes */
	uint16_t hdrs = 0;		/* the extension headers laid out */
};

namespace {

/* A QP number: 0, 1 (GSI), 0xffffff, the live QP's, its neighbour's, any. */
uint32_t pick_qpn(Rng &r, const Target *live)
{
	const uint32_t k = r.below(20);
	if (k == 0)
		return 0;
	if (k == 1)
		return 1;
	if (k == 2)
		return 0xffffff;
	if (k <= 10)	/* 40 %: a live QP */
		return live ? live->qpn : r.below(64);
	if (k == 11)
		return live ? (live->qpn + 1) & kPsnMask : 2;
	return r.below(1u << 24);
}

/*
 * A PSN near the safety zone of @t's requests (or responses, @resp):
 * behind it, ahead of it, half the PSN space away, a quarter behind; or
 * any (also when there is no @t).
 */
uint32_t psn_near(const Config &cfg, Rng &r, const Target *t, bool resp)
{
	if (!t)
		return r.below(1u << 24);
	const uint32_t w = cfg.psn_window;
	const uint32_t lo = resp ? t->sq_psn - cfg.psn_back : t->rq_psn;
	const uint32_t hi = (resp ? t->sq_psn : t->rq_psn) + cfg.psn_guard;
	switch (r.below(5)) {
	case 0: return (lo - 1 - r.below(w)) & kPsnMask;	/* behind */
	case 1: return (hi + r.below(w)) & kPsnMask;		/* ahead */
	case 2: return (lo + (1u << 23) - w / 2 + r.below(w)) & kPsnMask;
	case 3: return (lo - (1u << 22) + r.below(w)) & kPsnMask;
	default: return r.below(1u << 24);
	}
}

/* A payload size that suits opcode @o. */
unsigned payload_for(const Config &cfg, Rng &r, uint8_t o)
{
	const OpcodeInfo &i = opcode_info(o);
	if (i.flags & kOpAtomicWrite)
		return 8;
	if (!(i.flags & kOpPayload))
		return 0;
	/* Non-last packets carry a full MTU in the spec; keep small ones word sized. */
	const unsigned n = r.below(4) ? r.below(65) : r.below(cfg.path_mtu + 1);
	return (i.flags & kOpLast) ? n : n & ~3u;
}

/* The classes that aim at a live RC QP (any QP when none is given). */
bool aims_at_live_rc(Klass k)
{
	return k == Klass::oversize || k == Klass::psn || k == Klass::rkey ||
	       k == Klass::aeth || k == Klass::bad_icrc || k == Klass::pkey;
}

/* Header @h of @pkt (laid out with @hdrs), if there and its first word is. */
uint8_t *header_at(std::span<uint8_t> pkt, uint16_t hdrs, Hdr h)
{
	const unsigned off = header_offset(hdrs, h);
	return (hdrs & h) && off + 4 <= pkt.size() ? pkt.data() + off : nullptr;
}

} // namespace

Packet Generator::build(uint64_t index, std::span<uint8_t> buf) const
{
	if (buf.size() < max_len_)
		throw std::invalid_argument("packet buffer smaller than max_len()");
	uint64_t mix = index;
	Draft d(cfg_.seed * 0x9e3779b97f4a7c15ull ^ splitmix64(mix));
	d.p.klass = klass_of(index);
	d.round = index / turns_;

	draft_common(d);
	draft_class(d);
	aim_psn(d);
	std::span<uint8_t> pkt = lay_out(d, buf);
	fill_headers(d, pkt);
	finish(pkt, d.p, d.valid, d.r);
	return d.p;
}

/* What every class starts from: the ICRC's fate, targets, a random BTH. */
void Generator::draft_common(Draft &d) const
{
	Rng &r = d.r;

	d.valid = r.chance(cfg_.valid_icrc);
	/* A live target, if there is one, for the classes that aim at them. */
	d.live = cfg_.targets.empty() ? nullptr :
		 &cfg_.targets[r.below(cfg_.targets.size())];
	/* The RC QPs carry the traffic the classes aim at. */
	if (!rc_targets_.empty())
		d.live_rc = &cfg_.targets[rc_targets_[r.below(rc_targets_.size())]];
	d.b.pkey = r.below(16) ? kDefaultPkey : uint16_t(r.below(1 << 16));
	d.b.qpn = pick_qpn(r, d.live);
	d.b.ackreq = r.below(2);
	d.b.se = !r.below(4);
	d.op = pick(r, all_known());
}

/* The class's opcode, payload size and BTH fields. */
void Generator::draft_class(Draft &d) const
{
	Rng &r = d.r;
	Bth &b = d.b;

	switch (d.p.klass) {
	case Klass::opcode_sweep:
		d.op = uint8_t(d.round);
		d.payload = r.below(8) ? (opcode_known(d.op) ? payload_for(cfg_, r, d.op)
							     : r.below(65))
				       : r.below(65);
		b.psn = r.below(1u << 24);
		if (!r.below(16))
			b.tver = r.below(16);
		break;
	case Klass::truncated:
		d.payload = payload_for(cfg_, r, d.op);
		b.psn = r.below(1u << 24);
		d.cut = r.below(headers_length(opcode_info(d.op).hdrs) + kIcrcBytes);
		break;
	case Klass::bad_length:
		draft_bad_length(d);
		break;
	case Klass::oversize:
	case Klass::psn:
	case Klass::rkey:
	case Klass::aeth:
	case Klass::bad_icrc:
	case Klass::pkey:
		draft_aimed(d);
		break;
	case Klass::qpn:
		d.payload = payload_for(cfg_, r, d.op);
		b.psn = r.below(1u << 24);
		break;
	case Klass::ud_qkey:
		d.op = r.below(2) ? 0x64 : 0x65;
		b.qpn = r.below(2) ? 1 : pick_qpn(r, d.live);
		d.payload = r.below(257);
		b.psn = r.below(1u << 24);
		break;
	case Klass::bth_bits:
		d.payload = payload_for(cfg_, r, d.op);
		b.psn = psn_near(cfg_, r, find(b.qpn), opcode_info(d.op).flags & kOpResp);
		if (r.below(2))
			b.tver = r.range(1, 15);
		b.resv8a = r.below(256);
		b.resv7 = r.below(128);
		b.migreq = r.below(2);
		break;
	case Klass::forged:
		forge(r, b, d.op, d.payload);
		d.valid = true;
		break;
	case Klass::count:
		break;
	}
}

/* Class bad_length: lengths, pads and opcodes that do not agree. */
void Generator::draft_bad_length(Draft &d) const
{
	Rng &r = d.r;
	Bth &b = d.b;

	d.payload = payload_for(cfg_, r, d.op);
	b.psn = psn_near(cfg_, r, find(b.qpn), opcode_info(d.op).flags & kOpResp);
	switch (r.below(5)) {
	case 0:		/* not a multiple of 4 */
		d.extra = r.range(1, 3);
		break;
	case 1: {	/* pad count larger than payload + pad */
		static const auto last = known_opcodes(kOpLast | kOpPayload);
		d.op = pick(r, last);
		d.payload = 0;
		b.pad = r.range(1, 3);
		break;
	}
	case 2: {	/* payload on an opcode that carries none */
		static const auto none = known_opcodes(0, kOpPayload);
		d.op = pick(r, none);
		d.payload = 4 * r.range(1, 16);
		break;
	}
	case 3: {	/* pad on a first or middle packet */
		static const auto notlast = known_opcodes(kOpPayload, kOpLast);
		d.op = pick(r, notlast);
		d.payload = 4 * r.range(1, 16);
		b.pad = r.range(1, 3);
		break;
	}
	default:	/* ATOMIC WRITE with other than 8 bytes */
		d.op = 0x1d;
		d.payload = r.below(3) ? 4 * r.below(8) : 8;
		if (d.payload == 8)
			b.pad = r.range(1, 3);
		break;
	}
}

/*
 * The classes that aim at a live RC QP (aims_at_live_rc()): the opcode,
 * the payload size and what else the class changes; aim_psn() the QPN
 * and PSN.
 */
void Generator::draft_aimed(Draft &d) const
{
	static const auto data = known_opcodes(kOpPayload, kOpAtomicWrite);
	static const std::vector<uint8_t> keyed = {
		0x06, 0x0a, 0x0b, 0x0c, 0x13, 0x14, 0x1c, 0x1d, 0x26, 0x2a, 0x2b,
	};
	static const std::vector<uint8_t> resp = {0x0d, 0x0f, 0x10, 0x11, 0x12};
	const Klass k = d.p.klass;
	const std::vector<uint8_t> &ops = k == Klass::oversize ? data :
					  k == Klass::rkey ? keyed :
					  k == Klass::aeth ? resp :
					  rc_known();	/* psn, bad_icrc, pkey */
	Rng &r = d.r;

	d.op = pick(r, ops);
	d.aim = d.live_rc;
	if (k == Klass::oversize) {
		const unsigned room = max_len_ - headers_length(opcode_info(d.op).hdrs) -
				      kIcrcBytes;
		/* Whole words, at least one more than the path MTU allows. */
		const unsigned hi = room & ~3u;
		const unsigned lo = std::min((cfg_.path_mtu + 4) & ~3u, hi);
		d.payload = lo + 4 * r.below((hi - lo) / 4 + 1);
		return;
	}
	d.payload = payload_for(cfg_, r, d.op);
	if (k == Klass::bad_icrc)
		d.valid = false;
	if (k == Klass::pkey)
		d.b.pkey = r.below(4) ? uint16_t(r.below(0x7fff)) : uint16_t(0x7fff);
}

/*
 * The QPN and PSN of the classes that aim at a live RC QP: near the
 * PSNs it expects, bad_icrc exactly those; without one, any.
 */
void Generator::aim_psn(Draft &d) const
{
	if (d.aim) {
		d.b.qpn = d.aim->qpn;
		const bool resp = opcode_info(d.op).flags & kOpResp;
		d.b.psn = d.p.klass == Klass::bad_icrc
			  ? (resp ? d.aim->sq_psn : d.aim->rq_psn)
			  : psn_near(cfg_, d.r, d.aim, resp);
	} else if (aims_at_live_rc(d.p.klass)) {
		d.b.qpn = pick_qpn(d.r, d.live); /* no live QP given: still exercise the class */
		d.b.psn = d.r.below(1u << 24);
	}
}

/*
 * Lay the packet out in @buf: BTH, random extension headers, payload, pad,
 * ICRC, lengthened or cut as the class asks; the packet's bytes.
 */
std::span<uint8_t> Generator::lay_out(Draft &d, std::span<uint8_t> buf) const
{
	Bth &b = d.b;

	b.opcode = d.op;
	if (d.p.klass != Klass::bad_length || b.pad == 0)
		b.pad = (-d.payload) & 3;

	const OpcodeInfo &info = opcode_info(d.op);
	d.hdrs = info.name ? info.hdrs : uint16_t(d.r.below(256));
	const unsigned hlen = headers_length(d.hdrs);
	unsigned len = hlen + d.payload + ((-d.payload) & 3) + kIcrcBytes;
	if (d.p.klass == Klass::bad_length && b.pad && d.payload == 0)
		len = hlen + kIcrcBytes;	/* pad bytes claimed but absent */
	len += d.extra;
	len = std::min({len, d.cut, max_len_});
	std::span<uint8_t> pkt = buf.first(len);
	d.r.fill(pkt);
	if (len >= kBthBytes)
		write_bth(pkt.data(), b);
	else if (len > 0) {
		std::array<uint8_t, kBthBytes> tmp{};
		write_bth(tmp.data(), b);
		std::memcpy(pkt.data(), tmp.data(), len);
	}
	return pkt;
}

/* Fill the headers the classes aim with; zero the pad. */
void Generator::fill_headers(Draft &d, std::span<uint8_t> pkt) const
{
	const unsigned len = pkt.size();
	const uint8_t pad = d.b.pad;

	if (uint8_t *deth = header_at(pkt, d.hdrs, kHdrDeth);
	    deth && len >= kBthBytes + kDethBytes)
		fill_deth(d, deth);
	if (d.p.klass == Klass::rkey)
		fill_rkey(d, pkt);
	if (uint8_t *a = header_at(pkt, d.hdrs, kHdrAeth)) {
		/* Every class of syndrome: ACK, RNR NAK, reserved, NAK; resv bit. */
		uint8_t syn = uint8_t(d.r.below(4) << 5 | d.r.below(32));
		if (!d.r.below(8))
			syn |= 0x80;
		put_be32(a, uint32_t(syn) << 24 | d.r.below(1u << 24));
	}
	if (d.p.klass == Klass::forged)
		forge_headers(d.r, pkt, d.hdrs);
	/* Pad bytes are zero on the wire. */
	if (pad && len >= kIcrcBytes + pad && d.p.klass != Klass::bad_length)
		std::memset(pkt.data() + len - kIcrcBytes - pad, 0, pad);
}

/* The DETH at @deth: the target's Q_Key (class ud_qkey: a wrong one), a source QP. */
void Generator::fill_deth(Draft &d, uint8_t *deth) const
{
	Rng &r = d.r;
	const Target *t = find(d.b.qpn);
	uint32_t qkey = t ? (t->type == QpType::gsi ? kGsiQkey : t->qkey)
			  : uint32_t(r.next());

	/*
	 * Garbage MADs reach ib_mad, which logs each one: keep them
	 * to one GSI packet in 16 so the console keeps up.
	 */
	if (t && t->type == QpType::gsi && r.below(16))
		qkey ^= 1u << r.below(32);
	if (d.p.klass == Klass::ud_qkey) {
		switch (r.below(4)) {
		case 0: qkey ^= 1u << r.below(32); break;
		case 1: qkey = 0x80000000u | r.below(1u << 31); break;
		case 2: qkey = t && t->type == QpType::gsi ? 0 : kGsiQkey; break;
		default: qkey = ~qkey; break;
		}
	}
	put_be32(deth, qkey);
	put_be32(deth + 4, r.below(1u << 24));
}

/* Class rkey: the RETH's or AtomicETH's VA, rkey and length, wild or live. */
void Generator::fill_rkey(Draft &d, std::span<uint8_t> pkt) const
{
	Rng &r = d.r;
	uint8_t *reth = header_at(pkt, d.hdrs, kHdrReth);
	uint8_t *h = reth ? reth : header_at(pkt, d.hdrs, kHdrAtmeth);
	const unsigned hl = reth ? kRethBytes : kAtmethBytes;

	if (!h || h + hl > pkt.data() + pkt.size())
		return;
	static const std::array<uint64_t, 6> vas = {
		0, ~0ull, ~0ull - 7, 1ull << 63, 0xffff800000000000ull, 4096,
	};
	uint64_t va = r.below(2) ? vas[r.below(vas.size())] : r.next();
	if (!r.below(4))
		va |= r.range(1, 7);	/* unaligned for atomics */
	uint32_t rkey = !cfg_.rkeys.empty() && r.below(2)
			? pick(r, cfg_.rkeys) : uint32_t(r.next());
	put_be64(h, va);
	put_be32(h + 8, rkey);
	if (hl == kRethBytes) {
		static const std::array<uint32_t, 5> lens = {
			0, 1, 0x80000000u, 0xffffffffu, 4096,
		};
		put_be32(h + 12, r.below(2) ? lens[r.below(lens.size())]
					    : uint32_t(r.next()));
	}
}

} // namespace vrnic::fuzz
