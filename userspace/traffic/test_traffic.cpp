// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host unit tests for vrnic-traffic's pure parts: the data pattern and its
 * checker, the atomic sequence, size parsing, and the result's verdict and
 * JSON.
 */

#include "pattern.hpp"
#include "result.hpp"
#include "size.hpp"

#include <gtest/gtest.h>

#include <vector>

using namespace vrnic::traffic;

TEST(Pattern, WordsAndBytesAgree)
{
	std::vector<uint8_t> b(37);

	fill_pattern(b, 5, 9);
	for (size_t i = 0; i < b.size(); i++)
		EXPECT_EQ(b[i], pattern_byte(5, 9, i)) << "offset " << i;
	EXPECT_EQ(b[8], static_cast<uint8_t>(pattern_word(5, 9, 1)));
}

TEST(Pattern, DependsOnSeedAndMessage)
{
	std::vector<uint8_t> a(4096), b(4096), c(4096);

	fill_pattern(a, 1, 0);
	fill_pattern(b, 1, 1);
	fill_pattern(c, 2, 0);
	size_t same_ab = 0, same_ac = 0;

	for (size_t i = 0; i < a.size(); i++) {
		same_ab += a[i] == b[i];
		same_ac += a[i] == c[i];
	}
	/* About 1/256 of the bytes agree by chance. */
	EXPECT_LT(same_ab, 64u);
	EXPECT_LT(same_ac, 64u);
}

TEST(Pattern, ShorterMessageIsAPrefix)
{
	std::vector<uint8_t> a(100), b(13);

	fill_pattern(a, 3, 4);
	fill_pattern(b, 3, 4);
	EXPECT_TRUE(std::equal(b.begin(), b.end(), a.begin()));
}

TEST(Pattern, CheckAcceptsItsOwnFill)
{
	for (size_t n : {0, 1, 7, 8, 9, 4096, 4099}) {
		std::vector<uint8_t> b(n);

		fill_pattern(b, 11, 77);
		EXPECT_FALSE(check_pattern(b, 11, 77).has_value()) << "size " << n;
	}
}

TEST(Pattern, CheckReportsFirstOffsetAndCount)
{
	std::vector<uint8_t> b(1000);

	fill_pattern(b, 1, 2);
	b[123] ^= 0x10;
	b[900] ^= 0xff;
	auto m = check_pattern(b, 1, 2);

	ASSERT_TRUE(m.has_value());
	EXPECT_EQ(m->offset, 123u);
	EXPECT_EQ(m->bad_bytes, 2u);
	EXPECT_EQ(m->got, b[123]);
	EXPECT_EQ(m->expected, static_cast<uint8_t>(b[123] ^ 0x10));
	EXPECT_NE(m->describe(2).find("offset 123"), std::string::npos);
}

TEST(Pattern, CheckCatchesWrongMessage)
{
	std::vector<uint8_t> b(64);

	fill_pattern(b, 1, 2);
	EXPECT_TRUE(check_pattern(b, 1, 3).has_value());
	EXPECT_TRUE(check_pattern(b, 2, 2).has_value());
}

TEST(Atomic, ReturnValuesChainPerCounter)
{
	AtomicModel m(7);
	auto v = AtomicModel::initial(7);
	int cas_ok = 0, cas_fail = 0;

	for (int i = 0; i < 200; i++) {
		AtomicOp op = m.next();

		ASSERT_EQ(op.counter, static_cast<uint32_t>(i % AtomicModel::kCounters));
		EXPECT_EQ(op.expect, v[op.counter]) << "op " << i;
		if (!op.cmp_swap) {
			v[op.counter] += op.add;
		} else if (op.compare == v[op.counter]) {
			v[op.counter] = op.swap;
			cas_ok++;
		} else {
			cas_fail++;
		}
	}
	EXPECT_EQ(v, m.values());
	EXPECT_EQ(v, atomic_final(7, 200));
	EXPECT_GT(cas_ok, 0);
	EXPECT_GT(cas_fail, 0);
}

TEST(Atomic, FinalDependsOnCountAndSeed)
{
	EXPECT_EQ(atomic_final(1, 0), AtomicModel::initial(1));
	EXPECT_NE(atomic_final(1, 100), atomic_final(1, 101));
	EXPECT_NE(atomic_final(1, 100), atomic_final(2, 100));
}

TEST(Size, Parses)
{
	EXPECT_EQ(parse_size("0"), 0u);
	EXPECT_EQ(parse_size("4096"), 4096u);
	EXPECT_EQ(parse_size("64K"), 65536u);
	EXPECT_EQ(parse_size("64k"), 65536u);
	EXPECT_EQ(parse_size("16M"), 16u << 20);
	EXPECT_EQ(parse_size("1G"), 1ull << 30);
	EXPECT_EQ(parse_size("1GiB"), 1ull << 30);
	EXPECT_EQ(parse_size("2MB"), 2u << 20);
	EXPECT_EQ(parse_size("100B"), 100u);
}

TEST(Size, Rejects)
{
	for (const char *s : {"", "K", "-1", "1.5M", "12X", "1Gx", "1 G",
			      "99999999999999999999", "17179869184G"})
		EXPECT_FALSE(parse_size(s).has_value()) << s;
}

TEST(Size, Formats)
{
	EXPECT_EQ(format_size(16u << 20), "16M");
	EXPECT_EQ(format_size(1000), "1000");
	EXPECT_EQ(format_size(1536), "1536");
	EXPECT_EQ(format_size(1ull << 30), "1G");
}

static Result good(Op op)
{
	Result r;

	r.op = op;
	r.bytes_requested = 1 << 20;
	r.messages_requested = 16;
	r.elapsed_s = 0.5;
	SideReport &v = op == Op::Send || op == Op::Write ? r.server : r.client;

	v.bytes_verified = r.bytes_requested;
	r.client.count(IBV_WC_SUCCESS);
	return r;
}

TEST(Verdict, OkNeedsEveryByteVerified)
{
	Result r = good(Op::Write);

	EXPECT_EQ(judge(r, false).status, "ok");
	EXPECT_EQ(judge(r, false).exit_code, kExitOk);
	r.server.bytes_verified -= 1;
	EXPECT_EQ(judge(r, false).status, "incomplete");
	EXPECT_EQ(judge(r, false).exit_code, kExitFail);
}

TEST(Verdict, VerifyingSideFollowsOp)
{
	Result r = good(Op::Read);

	EXPECT_EQ(r.bytes_verified(), r.bytes_requested);
	EXPECT_DOUBLE_EQ(r.mb_per_s(), (1 << 20) / 0.5 / 1e6);
	r.op = Op::Send;
	EXPECT_EQ(r.bytes_verified(), 0u);
}

TEST(Verdict, RetryExceededThenFlushes)
{
	Result r = good(Op::Send);

	r.client.count(IBV_WC_RETRY_EXC_ERR);
	r.client.count(IBV_WC_WR_FLUSH_ERR);
	r.client.count(IBV_WC_WR_FLUSH_ERR);
	r.client.status = "error";
	EXPECT_EQ(judge(r, true).status, "retry-exceeded");
	EXPECT_EQ(judge(r, true).exit_code, kExitRetryExceeded);
	EXPECT_EQ(judge(r, false).exit_code, kExitFail);
}

TEST(Verdict, RetryExceededOnTheServersCredits)
{
	Result r = good(Op::Write);

	r.server.count(IBV_WC_RETRY_EXC_ERR);
	r.server.status = "error";
	r.client.count(IBV_WC_WR_FLUSH_ERR);
	r.client.status = "error";
	EXPECT_EQ(judge(r, true).status, "retry-exceeded");
	r.client.count(IBV_WC_REM_OP_ERR);
	EXPECT_EQ(judge(r, true).status, "error");
}

TEST(Verdict, OtherErrorsAndMismatchesFail)
{
	Result r = good(Op::Send);

	r.client.count(IBV_WC_RETRY_EXC_ERR);
	r.client.count(IBV_WC_REM_ACCESS_ERR);
	r.client.status = "error";
	EXPECT_EQ(judge(r, true).status, "error");
	EXPECT_EQ(judge(r, true).exit_code, kExitFail);

	Result m = good(Op::Write);

	m.server.mismatches = 1;
	m.server.status = "mismatch";
	EXPECT_EQ(judge(m, true).status, "mismatch");

	Result d = good(Op::Write);

	d.client.status = "deadline";
	EXPECT_EQ(judge(d, true).status, "deadline");
	EXPECT_EQ(judge(d, true).exit_code, kExitFail);
}

TEST(Json, KeysAndRoundTrip)
{
	Result r = good(Op::Atomic);

	r.client.first_mismatch = "";
	r.client.detail = "d";
	auto j = to_json(r, judge(r, false));

	EXPECT_EQ(j.at("op"), "atomic");
	EXPECT_EQ(j.at("status"), "ok");
	EXPECT_EQ(j.at("exit-code"), 0);
	EXPECT_EQ(j.at("bytes-verified"), 1u << 20);
	EXPECT_EQ(j.at("client").at("completions").at("success"), 1);
	SideReport back = side_from_json(j.at("client"));

	EXPECT_EQ(back.detail, "d");
	EXPECT_EQ(back.completions, r.client.completions);
	EXPECT_EQ(back.bytes_verified, r.client.bytes_verified);
}

TEST(Text, NamesStatusAndCompletions)
{
	Result r = good(Op::Send);

	r.client.count(IBV_WC_RETRY_EXC_ERR);
	r.client.status = "error";
	std::string t = to_text(r, judge(r, true));

	EXPECT_NE(t.find("retry-exc-err 1"), std::string::npos) << t;
	EXPECT_NE(t.find("result: retry-exceeded (exit 3)"), std::string::npos) << t;
}

TEST(Op, Names)
{
	for (Op op : {Op::Send, Op::Write, Op::Read, Op::Atomic})
		EXPECT_EQ(parse_op(op_name(op)), op);
	EXPECT_FALSE(parse_op("write-imm").has_value());
	EXPECT_EQ(wc_status_name(IBV_WC_RNR_RETRY_EXC_ERR), "rnr-retry-exc-err");
}
