// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the fuzzer: header layout against the driver's opcode
 * table, the ICRC against independently computed vectors, and the
 * generator's determinism, fate predictions and safety rule, with and
 * without a foreign source.
 */
#include "mutate.hpp"

#include <gtest/gtest.h>

#include <set>
#include <vector>

using namespace vrnic::fuzz;

namespace {

std::vector<uint8_t> bytes(std::initializer_list<int> l)
{
	return std::vector<uint8_t>(l.begin(), l.end());
}

/* RC SEND ONLY to QP 0x11, PSN 0x123456, AckReq, "hello vrnic!", ICRC slot. */
std::vector<uint8_t> send_only()
{
	std::vector<uint8_t> p(kBthBytes + 12 + kIcrcBytes);
	Bth b;
	b.opcode = 0x04;
	b.qpn = 0x11;
	b.psn = 0x123456;
	b.ackreq = true;
	write_bth(p.data(), b);
	const char *msg = "hello vrnic!";
	std::copy(msg, msg + 12, p.begin() + kBthBytes);
	return p;
}

Endpoints v4()
{
	return *endpoints_for("10.97.0.2", "10.97.0.1");
}

} // namespace

TEST(Wire, BthLayout)
{
	std::vector<uint8_t> p(kBthBytes);
	Bth b;
	b.opcode = 0x0a;
	b.se = true;
	b.pad = 3;
	b.pkey = 0x8001;
	b.resv8a = 0x5a;
	b.qpn = 0xabcdef;
	b.ackreq = true;
	b.psn = 0x00fedc;
	write_bth(p.data(), b);
	EXPECT_EQ(p, bytes({0x0a, 0xb0, 0x80, 0x01, 0x5a, 0xab, 0xcd, 0xef,
			    0x80, 0x00, 0xfe, 0xdc}));
}

/* The header lengths of kernel/wire/vrnic_opcode.c (HDRS_LEN) for each layout. */
TEST(Wire, HeaderLengthsMatchTheDriver)
{
	EXPECT_EQ(headers_length(opcode_info(0x04).hdrs), 12u);	/* SEND ONLY */
	EXPECT_EQ(headers_length(opcode_info(0x0b).hdrs), 32u);	/* WRITE ONLY IMM */
	EXPECT_EQ(headers_length(opcode_info(0x12).hdrs), 24u);	/* ATOMIC ACK */
	EXPECT_EQ(headers_length(opcode_info(0x13).hdrs), 40u);	/* CMP SWAP */
	EXPECT_EQ(headers_length(opcode_info(0x1c).hdrs), 32u);	/* FLUSH */
	EXPECT_EQ(headers_length(opcode_info(0x65).hdrs), 24u);	/* UD SEND IMM */
	EXPECT_EQ(header_offset(opcode_info(0x0b).hdrs, kHdrImmdt), 28u);
	EXPECT_EQ(header_offset(opcode_info(0x1c).hdrs, kHdrReth), 16u);
	EXPECT_EQ(header_offset(opcode_info(0x12).hdrs, kHdrAtmack), 16u);
	unsigned known = 0;
	for (unsigned op = 0; op < 256; op++)
		known += opcode_known(op);
	EXPECT_EQ(known, 25u + 12u + 2u);	/* RC, UC, UD as the driver has them */
	EXPECT_FALSE(opcode_known(0x15));
	EXPECT_FALSE(opcode_known(0x40));	/* RD */
}

TEST(Icrc, SeedIsTheLrhPlaceholder)
{
	const std::vector<uint8_t> ff(8, 0xff);
	EXPECT_EQ(crc32_le(~0u, ff), kIcrcSeed);
}

TEST(Icrc, Crc32MatchesTheStandardCheckValue)
{
	const std::string s = "123456789";
	const std::span<const uint8_t> d(reinterpret_cast<const uint8_t *>(s.data()), s.size());
	EXPECT_EQ(~crc32_le(~0u, d), 0xcbf43926u);
}

/*
 * Vectors computed apart from this code, in Python from vrnic_icrc.c's
 * description: zlib.crc32(8 x ff + masked IP + masked UDP + BTH with
 * resv8a = ff + the rest up to the ICRC).
 */
TEST(Icrc, Ipv4Vector)
{
	Endpoints ep = v4();
	ep.sport = 49152;
	EXPECT_EQ(icrc(ep, send_only()), 0xee9b4a39u);
}

TEST(Icrc, Ipv6Vector)
{
	Endpoints ep = *endpoints_for("fd97::2", "fd97::1");
	ep.sport = 49152;
	EXPECT_EQ(icrc(ep, send_only()), 0x120e5d36u);
}

/* The variant fields do not change it; the invariant ones do. */
TEST(Icrc, MaskedAndCoveredFields)
{
	Endpoints ep = v4();
	ep.sport = 49152;
	auto p = send_only();
	const uint32_t ref = icrc(ep, p);
	p[4] = 0x77;			/* resv8a: masked */
	EXPECT_EQ(icrc(ep, p), ref);
	p[5] ^= 1;			/* DestQP: covered */
	EXPECT_NE(icrc(ep, p), ref);
	p[5] ^= 1;
	ep.ip_id = 1;			/* IP ID: covered */
	EXPECT_NE(icrc(ep, p), ref);
	ep.ip_id = 0;
	ep.sport = 49153;		/* UDP source port: covered */
	EXPECT_NE(icrc(ep, p), ref);
}

TEST(Icrc, WireIsLittleEndian)
{
	std::vector<uint8_t> p(16);
	put_icrc(p, 0x11223344);
	EXPECT_EQ(std::vector<uint8_t>(p.end() - 4, p.end()), bytes({0x44, 0x33, 0x22, 0x11}));
}

namespace {

Config config()
{
	Config c;
	c.ep = v4();
	c.ep.sport = 40000;
	c.mtu = 9000;
	c.path_mtu = 4096;
	c.targets = {{0x11, QpType::rc, 0x100, 0x200000, 0},
		     {0x12, QpType::ud, 0, 0, 0x11111111}};
	c.rkeys = {0x1234};
	c.seed = 7;
	return c;
}

/*
 * From an address no live QP's peer has: an RC QP in RTS, a UC QP, the UD
 * QP, and an RC QP in RTR (responses to it are dropped for its state).
 */
Config foreign()
{
	Config c = config();
	c.foreign_source = true;
	c.targets.push_back({0x13, QpType::uc, 0x300, 0x400, 0});
	c.targets.push_back({0x14, QpType::rc, 0x500, 0, 0, QpState::rtr});
	return c;
}

uint32_t qpn_of(const std::vector<uint8_t> &b) { return b[5] << 16 | b[6] << 8 | b[7]; }
uint32_t psn_of(const std::vector<uint8_t> &b) { return b[9] << 16 | b[10] << 8 | b[11]; }

} // namespace

TEST(Generator, SameSeedSamePackets)
{
	Generator a(config()), b(config());
	std::vector<uint8_t> x(a.max_len()), y(b.max_len());
	for (uint64_t i : {0ull, 1ull, 11ull, 12345ull, 999999ull}) {
		Packet p = a.build(i, x), q = b.build(i, y);
		ASSERT_EQ(p.len, q.len);
		EXPECT_EQ(std::vector<uint8_t>(x.begin(), x.begin() + p.len),
			  std::vector<uint8_t>(y.begin(), y.begin() + q.len));
		EXPECT_EQ(p.fate, q.fate);
	}
	/* Out of order too: packet i depends on the seed and i alone. */
	Packet p = a.build(5, x);
	std::vector<uint8_t> first(x.begin(), x.begin() + p.len);
	a.build(6, x);
	p = a.build(5, x);
	EXPECT_EQ(first, std::vector<uint8_t>(x.begin(), x.begin() + p.len));
}

TEST(Generator, OtherSeedOtherPackets)
{
	Config c = config();
	Generator a(c);
	c.seed = 8;
	Generator b(c);
	std::vector<uint8_t> x(a.max_len()), y(b.max_len());
	unsigned differ = 0;
	for (uint64_t i = 0; i < 100; i++) {
		Packet p = a.build(i, x), q = b.build(i, y);
		differ += p.len != q.len || !std::equal(x.begin(), x.begin() + p.len, y.begin());
	}
	EXPECT_GT(differ, 90u);
}

/*
 * Every class and every opcode appear; the fates agree with predict().
 * Without a foreign source class forged does not, and no packet is dropped
 * for its address; config() has no QP in a state that drops any.
 */
class Covers : public testing::TestWithParam<bool> {};

TEST_P(Covers, ClassesOpcodesAndFates)
{
	const bool foreign_source = GetParam();
	Generator g(foreign_source ? foreign() : config());
	std::vector<uint8_t> buf(g.max_len());
	std::set<unsigned> classes, fates, sweep;
	for (uint64_t i = 0; i < 50000; i++) {
		Packet p = g.build(i, buf);
		ASSERT_EQ(p.klass, g.klass_of(i));
		classes.insert(unsigned(p.klass));
		fates.insert(unsigned(p.fate));
		if (p.klass == Klass::opcode_sweep && p.len > 0)
			sweep.insert(buf[0]);
		ASSERT_LE(p.len, g.max_len());
		ASSERT_EQ(p.fate, g.predict(std::span(buf).first(p.len))) << "packet " << i;
		if (p.klass == Klass::bad_icrc || !p.valid_icrc) {
			ASSERT_EQ(p.fate, Fate::rx_drop_icrc) << "packet " << i;
		}
		if (p.klass == Klass::truncated) {
			ASSERT_NE(p.fate, Fate::to_qp) << "packet " << i;
		}
	}
	EXPECT_EQ(sweep.size(), 256u);
	if (foreign_source) {
		EXPECT_EQ(classes.size(), kClasses);
		EXPECT_EQ(fates.size(), kFates);
		return;
	}
	EXPECT_EQ(classes.size(), kClasses - 1);
	EXPECT_FALSE(classes.count(unsigned(Klass::forged)));
	EXPECT_EQ(fates.size(), kFates - 2);
	EXPECT_FALSE(fates.count(unsigned(Fate::rx_drop_addr)));
	EXPECT_FALSE(fates.count(unsigned(Fate::rx_drop_qp_state)));
}

INSTANTIATE_TEST_SUITE_P(Generator, Covers, testing::Values(false, true),
			 [](const testing::TestParamInfo<bool> &i) {
				 return i.param ? "ForeignSource" : "PeerSource";
			 });

/*
 * No packet with a valid ICRC that the live QP would take reaches it, the
 * expected PSNs of its RC QP included, whatever its state: outside
 * foreign-source mode the safety rule holds for every class.
 */
TEST(Generator, LiveQpsAreSafe)
{
	Config c = config();
	c.targets.push_back({0x14, QpType::rc, 0x500, 0x600, 0, QpState::rtr});
	Generator g(c);
	std::vector<uint8_t> buf(g.max_len());
	for (uint64_t i = 0; i < 50000; i++) {
		Packet p = g.build(i, buf);
		ASSERT_NE(p.klass, Klass::forged) << "packet " << i;
		ASSERT_NE(p.fate, Fate::rx_drop_addr) << "packet " << i;
		const bool live_rc = p.valid_icrc && p.len >= kBthBytes &&
				     (qpn_of(buf) == 0x11 || qpn_of(buf) == 0x14);
		if (live_rc && p.fate == Fate::rx_drop_qp_state) {
			/* Its state drops it now, but the rule does not count on it. */
			ASSERT_EQ(qpn_of(buf), 0x14u) << "packet " << i;
			ASSERT_GE((psn_of(buf) - (0x600 - c.psn_back)) & kPsnMask,
				  c.psn_back + c.psn_guard) << "packet " << i;
		}
		if (p.fate != Fate::to_qp)
			continue;
		const uint32_t qpn = buf[5] << 16 | buf[6] << 8 | buf[7];
		const uint32_t psn = buf[9] << 16 | buf[10] << 8 | buf[11];
		ASSERT_NE(qpn, 0x12u) << "a UD send the live UD QP would take, packet " << i;
		if (qpn != 0x11 && qpn != 0x14)
			continue;
		const uint32_t rq = qpn == 0x11 ? 0x100 : 0x500;
		const uint32_t sq = qpn == 0x11 ? 0x200000 : 0x600;
		if (opcode_info(buf[0]).flags & kOpResp)
			ASSERT_GE((psn - (sq - c.psn_back)) & kPsnMask,
				  c.psn_back + c.psn_guard) << "packet " << i;
		else
			ASSERT_GE((psn - rq) & kPsnMask, c.psn_guard) << "packet " << i;
	}
}

/*
 * fuzz.sh counts rx_drop_dup against Detail::req_behind_rd: every READ,
 * atomic or FLUSH request to a live RC QP behind the PSN it expects by at most
 * 2^23 - psn_guard (req_behind_rd_far: further), and nothing else, so none
 * of them may be classed otherwise, and some of each must be sent.
 */
TEST(Generator, DuplicateReadsAndAtomicsAreCounted)
{
	Config c = config();
	Generator g(c);
	std::vector<uint8_t> buf(g.max_len());
	unsigned rd = 0, far = 0;
	for (uint64_t i = 0; i < 50000; i++) {
		Packet p = g.build(i, buf);
		if (p.fate != Fate::to_qp || qpn_of(buf) != 0x11)
			continue;
		const bool req = !(opcode_info(buf[0]).flags & kOpResp);
		const bool behind = ((psn_of(buf) - 0x100) & kPsnMask) >= (1u << 23);
		const bool rd_op = buf[0] == 0x0c || buf[0] == 0x13 ||
				   buf[0] == 0x14 || buf[0] == 0x1c;
		const bool near = ((0x100 - psn_of(buf)) & kPsnMask) <= (1u << 23) - c.psn_guard;
		ASSERT_EQ(p.detail == Detail::req_behind_rd, req && behind && rd_op && near)
			<< "packet " << i << " opcode " << unsigned(buf[0]);
		ASSERT_EQ(p.detail == Detail::req_behind_rd_far, req && behind && rd_op && !near)
			<< "packet " << i << " opcode " << unsigned(buf[0]);
		rd += p.detail == Detail::req_behind_rd;
		far += p.detail == Detail::req_behind_rd_far;
	}
	EXPECT_GT(rd, 0u);
	EXPECT_GT(far, 0u);
	EXPECT_EQ(detail_name(Detail::req_behind_rd), "req-behind-rd");
}

/* Class forged takes turns only in foreign-source mode, as many as asked. */
TEST(Generator, ForgedOnlyFromAForeignSource)
{
	Config c = config();
	c.forged_weight = 12;		/* ignored without a foreign source */
	Generator peer(c);
	EXPECT_FALSE(peer.generates(Klass::forged));
	/* The classes take turns as before class forged existed. */
	for (uint64_t i = 0; i < 1000; i++)
		ASSERT_EQ(peer.klass_of(i), Klass(i % (kClasses - 1))) << "packet " << i;
	std::vector<uint8_t> buf(peer.max_len());
	for (uint64_t i = 0; i < 20000; i++)
		ASSERT_NE(peer.build(i, buf).klass, Klass::forged) << "packet " << i;

	c.foreign_source = true;
	Generator g(c);
	EXPECT_TRUE(g.generates(Klass::forged));
	unsigned forged = 0;
	for (uint64_t i = 0; i < 24000; i++)
		forged += g.build(i, buf).klass == Klass::forged;
	EXPECT_EQ(forged, 12000u);	/* 12 of every 12 + 12 */

	c.forged_weight = 0;
	Generator none(c);
	EXPECT_FALSE(none.generates(Klass::forged));
	for (uint64_t i = 0; i < 1000; i++)
		ASSERT_NE(none.klass_of(i), Klass::forged) << "packet " << i;
}

/*
 * Every forged packet is valid, for a live RC or UC QP that takes it in its
 * state, at a PSN it expects, and dropped for its address.  Together they
 * cover what the class is for: SENDs, WRITEs and READs (a huge one too) with
 * a live rkey, atomics, each syndrome class of ACK, READ responses and
 * atomic ACKs, at rq-psn, sq-psn - 1 and sq-psn exactly.
 */
TEST(Generator, ForgedPacketsAreDroppedForTheirAddress)
{
	Config c = foreign();
	c.forged_weight = 4;
	Generator g(c);
	Generator peer(config());
	std::vector<uint8_t> buf(g.max_len());
	std::set<unsigned> ops, syndromes, rkeys;
	unsigned at_rq = 0, at_sq = 0, before_sq = 0, huge_read = 0, uc = 0, seen = 0;
	for (uint64_t i = 0; i < 40000; i++) {
		Packet p = g.build(i, buf);
		if (p.klass != Klass::forged)
			continue;
		seen++;
		const std::span<const uint8_t> pkt(buf.data(), p.len);
		const OpcodeInfo &info = opcode_info(buf[0]);
		ASSERT_TRUE(p.valid_icrc) << "packet " << i;
		ASSERT_EQ(p.fate, Fate::rx_drop_addr) << "packet " << i;
		ASSERT_EQ(g.predict(pkt), Fate::rx_drop_addr) << "packet " << i;
		ASSERT_EQ((buf[2] << 8 | buf[3]), kDefaultPkey) << "packet " << i;
		ASSERT_TRUE(info.name) << "packet " << i;
		const uint32_t qpn = qpn_of(buf), psn = psn_of(buf);
		ASSERT_TRUE(qpn == 0x11 || qpn == 0x13 || qpn == 0x14) << "packet " << i;
		ASSERT_EQ(transport_of(buf[0]), qpn == 0x13 ? 0x20 : 0x00) << "packet " << i;
		ops.insert(buf[0]);
		uc += qpn == 0x13;
		if (info.flags & kOpResp) {
			ASSERT_EQ(qpn, 0x11u) << "a response to a QP not in RTS, packet " << i;
			ASSERT_LT((psn - (0x200000 - c.psn_back)) & kPsnMask,
				  c.psn_back + c.psn_guard) << "packet " << i;
			at_sq += psn == 0x200000;
			before_sq += psn == 0x1fffff;
			if (buf[0] == 0x11)
				syndromes.insert(buf[kBthBytes] >> 5);
		} else {
			const uint32_t rq = qpn == 0x11 ? 0x100 : qpn == 0x13 ? 0x300 : 0x500;
			ASSERT_LT((psn - rq) & kPsnMask, c.psn_guard) << "packet " << i;
			at_rq += psn == rq;
		}
		if (info.hdrs & kHdrReth) {
			const uint8_t *reth = buf.data() + header_offset(info.hdrs, kHdrReth);
			rkeys.insert(get_be32(reth + 8));
			huge_read += buf[0] == 0x0c && get_be32(reth + 12) >= (1u << 30);
		}
		/* With the peer's address, the same packet reaches the QP. */
		if (qpn != 0x13 && qpn != 0x14) {
			ASSERT_EQ(peer.predict(pkt), Fate::to_qp) << "packet " << i;
		}
	}
	EXPECT_EQ(seen, 10000u);	/* 4 of every 12 + 4 */
	for (uint8_t op : {0x04, 0x00, 0x0a, 0x0c, 0x13, 0x14, 0x11, 0x10, 0x0d, 0x12,
			   0x24, 0x20, 0x2a})
		EXPECT_TRUE(ops.count(op)) << "opcode " << int(op);
	EXPECT_EQ(syndromes, (std::set<unsigned>{0, 1, 2, 3}));	/* ACK, RNR, reserved, NAK */
	EXPECT_EQ(rkeys.count(0x1234), 1u);
	EXPECT_GT(at_rq, 1000u);
	EXPECT_GT(at_sq, 100u);
	EXPECT_GT(before_sq, 100u);
	EXPECT_GT(huge_read, 10u);
	EXPECT_GT(uc, 1000u);
}

/*
 * From a foreign source every packet that would reach a live RC or UC QP is
 * dropped for its address, the psn class's too, while UD and GSI targets
 * fare as from the peer: the same bytes, predicted both ways.
 */
TEST(Generator, ForeignSourceDropsOnlyConnectedQps)
{
	Config fc = foreign(), pc = foreign();
	pc.foreign_source = false;
	Generator g(fc), peer(pc);
	std::vector<uint8_t> buf(g.max_len());
	unsigned psn_rc = 0, ud = 0, ud_to_qp = 0;
	for (uint64_t i = 0; i < 40000; i++) {
		Packet p = g.build(i, buf);
		const std::span<const uint8_t> pkt(buf.data(), p.len);
		const Fate from_peer = peer.predict(pkt);
		const uint32_t qpn = p.len >= kBthBytes ? qpn_of(buf) : ~0u;
		if (qpn == 0x11 || qpn == 0x13 || qpn == 0x14) {
			const Fate want = from_peer == Fate::to_qp ? Fate::rx_drop_addr
								   : from_peer;
			ASSERT_EQ(p.fate, want) << "packet " << i;
			if (p.klass == Klass::psn && qpn == 0x11 && p.valid_icrc &&
			    from_peer == Fate::to_qp)
				psn_rc++;
		} else {
			ASSERT_EQ(p.fate, from_peer) << "packet " << i;
			ASSERT_NE(p.fate, Fate::rx_drop_addr) << "packet " << i;
			if (qpn == 0x12) {
				ud++;
				ud_to_qp += p.fate == Fate::to_qp;
			}
		}
	}
	EXPECT_GT(psn_rc, 100u);
	EXPECT_GT(ud, 1000u);
	/* The safety rule still holds for the UD QP: nothing it would take. */
	EXPECT_EQ(ud_to_qp, 0u);
}

TEST(Generator, OversizeExceedsThePathMtu)
{
	Generator g(config());
	std::vector<uint8_t> buf(g.max_len());
	unsigned seen = 0;
	for (uint64_t i = 0; i < 20000; i++) {
		if (g.klass_of(i) != Klass::oversize)
			continue;
		Packet p = g.build(i, buf);
		ASSERT_EQ(p.klass, Klass::oversize);
		EXPECT_GT(p.len, 4096u + 12u);
		seen++;
	}
	EXPECT_GT(seen, 1000u);
}

TEST(Predict, DriverChecksInOrder)
{
	Generator g(config());
	auto p = send_only();
	Endpoints ep = config().ep;
	put_icrc(p, icrc(ep, p));
	EXPECT_EQ(g.predict(p), Fate::to_qp);		/* QP 0x11, RC */
	p[7] = 0x13;					/* no such QP */
	put_icrc(p, icrc(ep, p));
	EXPECT_EQ(g.predict(p), Fate::rx_drop_no_qp);
	p[7] = 0x12;					/* RC opcode at a UD QP */
	put_icrc(p, icrc(ep, p));
	EXPECT_EQ(g.predict(p), Fate::rx_drop_malformed);
	p[0] = 0x15;					/* reserved opcode */
	put_icrc(p, icrc(ep, p));
	EXPECT_EQ(g.predict(p), Fate::rx_drop_malformed);
	p[0] = 0x04;
	p[20] ^= 1;					/* payload changed, ICRC not */
	EXPECT_EQ(g.predict(p), Fate::rx_drop_icrc);
	EXPECT_EQ(g.predict(std::span(p).first(15)), Fate::rx_drop_icrc);
}

/* The QP's state, then (RC and UC only) the address, then the Q_Key. */
TEST(Predict, StateThenAddressThenQkey)
{
	Config pc = foreign();
	pc.foreign_source = false;	/* the same QPs, from their peer */
	Generator peer(pc), g(foreign());
	Endpoints ep = config().ep;
	auto p = send_only();
	put_icrc(p, icrc(ep, p));
	EXPECT_EQ(peer.predict(p), Fate::to_qp);		/* RC QP 0x11 in RTS */
	EXPECT_EQ(g.predict(p), Fate::rx_drop_addr);
	p[7] = 0x14;					/* RC QP in RTR: takes requests */
	put_icrc(p, icrc(ep, p));
	EXPECT_EQ(peer.predict(p), Fate::to_qp);
	EXPECT_EQ(g.predict(p), Fate::rx_drop_addr);
	p[0] = 0x11;					/* but not an ACK */
	p.resize(kBthBytes + kAethBytes + kIcrcBytes);
	put_icrc(p, icrc(ep, p));
	EXPECT_EQ(peer.predict(p), Fate::rx_drop_qp_state);
	EXPECT_EQ(g.predict(p), Fate::rx_drop_qp_state);
	p[7] = 0x13;					/* an RC ACK at the UC QP */
	put_icrc(p, icrc(ep, p));
	EXPECT_EQ(g.predict(p), Fate::rx_drop_malformed);
	p[0] = 0x24;					/* UC SEND ONLY */
	put_icrc(p, icrc(ep, p));
	EXPECT_EQ(peer.predict(p), Fate::to_qp);
	EXPECT_EQ(g.predict(p), Fate::rx_drop_addr);

	/* UD SEND ONLY to the UD QP: its Q_Key decides, from anyone. */
	std::vector<uint8_t> ud(kBthBytes + kDethBytes + 8 + kIcrcBytes);
	Bth b;
	b.opcode = 0x64;
	b.qpn = 0x12;
	write_bth(ud.data(), b);
	put_be32(ud.data() + kBthBytes, 0x11111111);
	put_icrc(ud, icrc(ep, ud));
	EXPECT_EQ(peer.predict(ud), Fate::to_qp);
	EXPECT_EQ(g.predict(ud), Fate::to_qp);
	put_be32(ud.data() + kBthBytes, 0x11111112);
	put_icrc(ud, icrc(ep, ud));
	EXPECT_EQ(peer.predict(ud), Fate::rx_drop_qkey);
	EXPECT_EQ(g.predict(ud), Fate::rx_drop_qkey);
}
