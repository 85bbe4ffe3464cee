// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the fuzzer: header layout against the driver's opcode
 * table, the ICRC against independently computed vectors, and the
 * generator's determinism and fate predictions.
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

/* The header lengths of kernel/vrnic_opcode.c (HDRS_LEN) for each layout. */
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

/* Every class and every opcode appear; the fates agree with predict(). */
TEST(Generator, CoversClassesOpcodesAndFates)
{
	Generator g(config());
	std::vector<uint8_t> buf(g.max_len());
	std::set<unsigned> classes, fates, sweep;
	for (uint64_t i = 0; i < 50000; i++) {
		Packet p = g.build(i, buf);
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
	EXPECT_EQ(classes.size(), kClasses);
	EXPECT_EQ(fates.size(), kFates);
	EXPECT_EQ(sweep.size(), 256u);
}

/* No packet with a valid ICRC that the live QP would take reaches it. */
TEST(Generator, LiveQpsAreSafe)
{
	Config c = config();
	Generator g(c);
	std::vector<uint8_t> buf(g.max_len());
	for (uint64_t i = 0; i < 50000; i++) {
		Packet p = g.build(i, buf);
		if (p.fate != Fate::to_qp)
			continue;
		const uint32_t qpn = buf[5] << 16 | buf[6] << 8 | buf[7];
		const uint32_t psn = buf[9] << 16 | buf[10] << 8 | buf[11];
		ASSERT_NE(qpn, 0x12u) << "a UD send the live UD QP would take, packet " << i;
		if (qpn != 0x11)
			continue;
		if (opcode_info(buf[0]).flags & kOpResp)
			ASSERT_GE((psn - (0x200000 - c.psn_back)) & kPsnMask,
				  c.psn_back + c.psn_guard) << "packet " << i;
		else
			ASSERT_GE((psn - 0x100) & kPsnMask, c.psn_guard) << "packet " << i;
	}
}

TEST(Generator, OversizeExceedsThePathMtu)
{
	Generator g(config());
	std::vector<uint8_t> buf(g.max_len());
	unsigned seen = 0;
	for (uint64_t i = uint64_t(Klass::oversize); i < 20000; i += kClasses) {
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
