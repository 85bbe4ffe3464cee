// SPDX-License-Identifier: GPL-2.0-only
/*
 * vrnicctl's grammar: options, default commands, prefixes, ambiguity,
 * DEV/PORT and bad arguments, with their exit statuses.
 */
#include <gtest/gtest.h>

#include "harness.hpp"
#include "vrnic/error.hpp"

using vrnicctl::test::Harness;

namespace {

bool has(const std::string &s, std::string_view what)
{
	return s.find(what) != std::string::npos;
}

} // namespace

TEST(MatchPrefix, ExactPrefixAmbiguousUnknown)
{
	std::vector<std::string_view> n = {"show", "set", "help"};
	EXPECT_EQ(vrnicctl::match_prefix("show", n, "command"), 0u);
	EXPECT_EQ(vrnicctl::match_prefix("sh", n, "command"), 0u);
	EXPECT_EQ(vrnicctl::match_prefix("se", n, "command"), 1u);
	EXPECT_EQ(vrnicctl::match_prefix("h", n, "command"), 2u);
	try {
		vrnicctl::match_prefix("s", n, "command");
		FAIL() << "no error";
	} catch (const vrnic::UsageError &e) {
		EXPECT_STREQ(e.what(), "ambiguous command 's': it could be show set");
	}
	try {
		vrnicctl::match_prefix("x", n, "command");
		FAIL() << "no error";
	} catch (const vrnic::UsageError &e) {
		EXPECT_STREQ(e.what(), "unknown command 'x'");
		EXPECT_EQ(e.hint(), "commands: show set help");
	}
	/* An exact name wins over a longer one it prefixes. */
	std::vector<std::string_view> m = {"dev", "devx"};
	EXPECT_EQ(vrnicctl::match_prefix("dev", m, "object"), 0u);
}

TEST(Grammar, NoArgumentsPrintsUsage)
{
	Harness h;
	auto r = h.run({});
	EXPECT_EQ(r.status, 0);
	EXPECT_TRUE(has(r.out, "Usage: vrnicctl [OPTIONS] OBJECT"));
}

TEST(Grammar, Version)
{
	Harness h;
	for (auto v : {"-V", "--version"}) {
		auto r = h.run({v});
		EXPECT_EQ(r.status, 0);
		EXPECT_EQ(r.out, "vrnicctl 0.1.0\n");
	}
}

TEST(Grammar, HelpAtEachLevel)
{
	Harness h;
	EXPECT_TRUE(has(h.run({"help"}).out, "OBJECT := { dev | stats | qp | model | help }"));
	EXPECT_TRUE(has(h.run({"-h"}).out, "OBJECT :="));
	EXPECT_TRUE(has(h.run({"help", "st"}).out, "vrnicctl stats watch"));
	EXPECT_TRUE(has(h.run({"stats", "help"}).out, "vrnicctl stats show [DEV[/PORT]] [summary] [-i SECONDS]"));
	EXPECT_TRUE(has(h.run({"qp", "-h"}).out, "vrnicctl qp show"));
	auto m = h.run({"m", "h"});
	EXPECT_EQ(m.status, 0);
	EXPECT_TRUE(has(m.out, "pcie.mps"));
	EXPECT_TRUE(has(m.out, "128 256 512 1024 2048 4096 (bytes)"));
}

TEST(Grammar, ObjectAloneRunsShow)
{
	Harness h;
	h.tree.add_vrnic("vrnic0");
	auto full = h.run({"dev", "show"});
	EXPECT_EQ(full.status, 0);
	EXPECT_EQ(h.run({"dev"}).out, full.out);
	EXPECT_EQ(h.run({"d"}).out, full.out);
	EXPECT_EQ(h.run({"de", "sh"}).out, full.out);
	EXPECT_EQ(h.run({"d", "vrnic0"}).out, full.out);
}

TEST(Grammar, AmbiguousCommandListsCandidates)
{
	Harness h;
	h.tree.add_vrnic("vrnic0");
	auto r = h.run({"model", "s", "vrnic0"});
	EXPECT_EQ(r.status, 2);
	EXPECT_TRUE(has(r.err, "error: ambiguous command 's': it could be show set")) << r.err;
}

TEST(Grammar, UnknownObjectAndOption)
{
	Harness h;
	auto r = h.run({"link"});
	EXPECT_EQ(r.status, 2);
	EXPECT_TRUE(has(r.err, "unknown object 'link'"));
	EXPECT_TRUE(has(r.err, "objects: dev stats qp model help"));
	r = h.run({"-x", "dev"});
	EXPECT_EQ(r.status, 2);
	EXPECT_TRUE(has(r.err, "unknown option -x"));
	r = h.run({"--jsn", "dev"});
	EXPECT_EQ(r.status, 2);
}

TEST(Grammar, CombinedShortOptions)
{
	Harness h;
	h.tree.add_vrnic("vrnic0");
	auto r = h.run({"-jp", "dev"});
	EXPECT_EQ(r.status, 0);
	EXPECT_EQ(r.out.substr(0, 6), "[\n    ");
	/* -p alone implies JSON. */
	EXPECT_EQ(h.run({"-p", "dev"}).out, r.out);
}

TEST(Grammar, DevPortAddressing)
{
	Harness h;
	h.tree.add_vrnic("vrnic0");
	h.tree.add_vrnic("vrnic1");
	auto one = h.run({"stats", "show", "vrnic1/1"});
	EXPECT_EQ(one.status, 0);
	EXPECT_EQ(one.out.substr(0, 10), "vrnic1/1: ");
	EXPECT_EQ(std::count(one.out.begin(), one.out.end(), '\n'), 1);
	auto both = h.run({"stats"});
	EXPECT_EQ(std::count(both.out.begin(), both.out.end(), '\n'), 2);

	auto bad = h.run({"stats", "show", "vrnic0/x"});
	EXPECT_EQ(bad.status, 2);
	EXPECT_TRUE(has(bad.err, "'vrnic0/x': port must be a number from 1"));
	auto noport = h.run({"stats", "show", "vrnic0/2"});
	EXPECT_EQ(noport.status, 1);
	EXPECT_TRUE(has(noport.err, "error: vrnic0 has no port 2\n  its ports: 1"));
}

TEST(Grammar, BadArguments)
{
	Harness h;
	h.tree.add_vrnic("vrnic0");
	struct Case {
		std::vector<std::string> args;
		std::string_view err;
	} cases[] = {
		{{"dev", "show", "vrnic0", "extra"}, "unexpected argument 'extra'"},
		{{"stats", "show", "-i"}, "option -i needs a value"},
		{{"stats", "show", "-i", "0"}, "-i wants seconds above 0"},
		{{"stats", "show", "-i", "abc"}, "-i wants seconds above 0"},
		{{"stats", "show", "-n", "3"}, "unknown option -n"},
		{{"stats", "watch", "-n", "0"}, "-n wants a count of at least 1"},
		{{"qp", "show", "vrnic0", "qpn"}, "option qpn needs a value"},
		{{"qp", "show", "vrnic0", "qpn", "x"}, "qpn wants a number; got 'x'"},
		{{"model", "set"}, "model set needs a device"},
		{{"model", "set", "vrnic0"}, "model set needs KNOB VALUE"},
		{{"model", "set", "vrnic0", "pcie.mps"}, "knob pcie.mps has no value"},
	};
	for (auto &c : cases) {
		auto r = h.run(c.args);
		EXPECT_EQ(r.status, 2) << c.args[0] << " " << c.args[1];
		EXPECT_TRUE(has(r.err, c.err)) << r.err;
		EXPECT_TRUE(r.out.empty());
	}
}

TEST(Grammar, NoSuchDeviceIsExit1WithTheList)
{
	Harness h;
	h.tree.add_vrnic("vrnic0");
	auto r = h.run({"dev", "show", "nosuch0"});
	EXPECT_EQ(r.status, 1);
	EXPECT_EQ(r.err, "error: no device nosuch0\n  vrnic devices: vrnic0\n");
}

TEST(Grammar, NoDevicesSaysLoadTheModule)
{
	Harness h;
	auto r = h.run({"stats"});
	EXPECT_EQ(r.status, 1);
	EXPECT_TRUE(has(r.err, "error: no vrnic devices\n  load the module: modprobe rdma_vrnic"));
	EXPECT_TRUE(has(r.err, "rdma link add vrnic0 type vrnic netdev eth0"));
}
