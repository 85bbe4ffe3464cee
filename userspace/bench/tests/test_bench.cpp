// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host tests of vrnic-bench: perftest's result tables, the sweeps'
 * definitions, their metrics, JSON and gnuplot script.
 *
 * Copyright (c) 2026 The vrnic authors
 */
#include "perftest.hpp"
#include "sweep.hpp"
#include "vrnic/error.hpp"
#include "vrnic/knobs.hpp"

#include <gtest/gtest.h>

#include <set>

using namespace vrnic;
using namespace vrnic::bench;

namespace {

const char *bw_out =
	" remote address: LID 0000 QPN 0x0026 PSN 0xc48a92 RKey 0x001dac VAddr 0x0055b2d4ba6000\n"
	"---------------------------------------------------------------------------------------\n"
	" #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]\n"
	" 4096       300              26.26              23.45  \t\t   0.006004\n"
	"---------------------------------------------------------------------------------------\n";

const char *lat_out =
	" #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    "
	"t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] \n"
	" 2       500          194.38         3178.49      314.00   \t       449.96      \t475.14 "
	"\t\t2791.77 \t\t3178.49\n";

} // namespace

TEST(Perftest, BandwidthTable)
{
	auto r = parse_perftest(bw_out);
	EXPECT_DOUBLE_EQ(r.at("#bytes"), 4096);
	EXPECT_DOUBLE_EQ(r.at("BW average[MB/sec]"), 23.45);
	EXPECT_DOUBLE_EQ(r.at("MsgRate[Mpps]"), 0.006004);
	EXPECT_EQ(r.size(), 5u);
}

TEST(Perftest, LatencyTable)
{
	auto r = parse_perftest(lat_out);
	EXPECT_DOUBLE_EQ(r.at("t_avg[usec]"), 449.96);
	EXPECT_DOUBLE_EQ(r.at("99.9% percentile[usec]"), 3178.49);
}

TEST(Perftest, FailedRunSaysSo)
{
	try {
		parse_perftest(" Couldn't connect to 10.97.0.1:18515\n");
		FAIL() << "no exception";
	} catch (const Error &e) {
		EXPECT_NE(std::string(e.what()).find("no perftest result table"), std::string::npos);
		EXPECT_NE(e.hint().find("log"), std::string::npos);
	}
	EXPECT_THROW(parse_perftest(" #bytes     #iterations    BW peak[MB/sec]\n 4096 300\n"), Error);
	EXPECT_THROW(parse_perftest(" #bytes     #iterations\n 4096 lots\n"), Error);
}

TEST(Sweeps, WellFormed)
{
	std::set<std::string> names;
	ASSERT_GE(sweeps().size(), 4u);
	for (const auto &s : sweeps()) {
		EXPECT_TRUE(names.insert(s.name).second) << s.name;
		EXPECT_EQ(find_sweep(s.name), &s);
		EXPECT_GE(s.points.size(), 4u) << s.name;
		std::set<std::string> metrics;
		for (const auto &m : s.metrics)
			metrics.insert(m.name);
		EXPECT_TRUE(metrics.count(s.y1)) << s.name << " y1 " << s.y1;
		EXPECT_TRUE(metrics.count(s.y2)) << s.name << " y2 " << s.y2;
		auto knobs = s.setup;
		for (const auto &p : s.points) {
			EXPECT_FALSE(p.runs.empty()) << s.name;
			knobs.insert(knobs.end(), p.knobs.begin(), p.knobs.end());
		}
		/* Every value a sweep writes is one the knob takes. */
		for (const auto &[k, v] : knobs) {
			const Knob *knob = find_knob(k);
			ASSERT_NE(knob, nullptr) << s.name << ": " << k;
			EXPECT_EQ(knob_check(*knob, v), std::nullopt) << s.name << ": " << k << " " << v;
		}
	}
	EXPECT_EQ(find_sweep("nosuch"), nullptr);
}

TEST(Sweeps, OnlyPoints)
{
	const Sweep *s = find_sweep("mrc");
	ASSERT_NE(s, nullptr);
	EXPECT_EQ(only_points(*s, {}).points.size(), s->points.size());
	Sweep sub = only_points(*s, {32, 16});
	ASSERT_EQ(sub.points.size(), 2u);
	EXPECT_EQ(sub.points[0].x, 16);	/* the sweep's order, not the list's */
	EXPECT_EQ(sub.points[1].x, 32);
	EXPECT_EQ(sub.metrics.size(), s->metrics.size());
	try {
		only_points(*s, {16, 17});
		ADD_FAILURE() << "a point the sweep lacks was taken";
	} catch (const UsageError &e) {
		EXPECT_NE(std::string(e.what()).find("no point at 17"), std::string::npos);
		EXPECT_NE(e.hint().find("1 2 4 8 16 32 64 128"), std::string::npos) << e.hint();
	}
}

TEST(Sweeps, MetricsFromCounters)
{
	const Sweep *s = find_sweep("mrc");
	ASSERT_NE(s, nullptr);
	Measured m;
	RunResult r;
	r.perf = {{"msgs_per_s", 2500}, {"#iterations", 100}};
	r.client = {{"model_mrc_misses", 6}, {"model_mrc_hits", 14},
		    {"model_pace_wait_ns", 300000}};
	r.server = {{"model_mrc_misses", 4}, {"model_mrc_hits", 76}};
	m.runs.push_back(r);
	Measured empty;	/* a point whose counters did not move */
	empty.runs.push_back({});
	auto j = results_json(*s, {m, empty}, {{"kernel", "test"}});
	ASSERT_EQ(j["points"].size(), 2u);
	auto &p = j["points"][0]["metrics"];
	/* 10 misses in 100 lookups over both devices; 6 in 20 at the requester. */
	EXPECT_DOUBLE_EQ(p["mrc_miss_pct"].get<double>(), 10.0);
	EXPECT_DOUBLE_EQ(p["requester_miss_pct"].get<double>(), 30.0);
	EXPECT_DOUBLE_EQ(p["msg_rate_kps"].get<double>(), 2.5);
	/* 300 us held over 100 messages. */
	EXPECT_DOUBLE_EQ(p["pace_wait_us_per_msg"].get<double>(), 3.0);
	EXPECT_TRUE(j["points"][1]["metrics"]["mrc_miss_pct"].is_null());
	EXPECT_EQ(j["points"][0]["runs"][0]["tool"], "working-set");
	EXPECT_EQ(j["points"][0]["x"].get<double>(), 1);
	EXPECT_EQ(j["context"]["kernel"], "test");
}

/* The QPC sweep: host mode's run, then onchip mode's, each with its knob. */
TEST(Sweeps, QpcHostAndOnchip)
{
	const Sweep *s = find_sweep("qpc");
	ASSERT_NE(s, nullptr);
	ASSERT_FALSE(s->points.empty());
	const auto &runs = s->points.back().runs;
	ASSERT_EQ(runs.size(), 2u);
	EXPECT_EQ(runs[0].knobs, (Knobs{{"qpc.mode", "host"}}));
	EXPECT_EQ(runs[1].knobs, (Knobs{{"qpc.mode", "onchip"}}));

	Measured m;
	m.knobs = {{"qpc.ctx_bytes", "256"}};
	RunResult host, onchip;
	host.perf = {{"msgs_per_s", 4000}, {"#iterations", 1000}};
	host.client = {{"model_qpc_misses", 900}, {"model_qpc_evictions", 890},
		       {"model_qpc_hits", 100}};
	onchip.perf = {{"msgs_per_s", 0}, {"qps_created", 7}};
	onchip.refused = "vrnic1: ibv_create_qp (QP 8 of 64): Cannot allocate memory";
	m.runs = {host, onchip};
	auto j = results_json(*s, {m}, {});
	auto &p = j["points"][0]["metrics"];
	EXPECT_DOUBLE_EQ(p["host_rate_kps"].get<double>(), 4.0);
	EXPECT_DOUBLE_EQ(p["qpc_miss_pct"].get<double>(), 90.0);
	/* (900 fetched + 890 written back) x 256 bytes over 1000 messages. */
	EXPECT_DOUBLE_EQ(p["qpc_bytes_per_msg"].get<double>(), 1790 * 256 / 1000.0);
	EXPECT_DOUBLE_EQ(p["onchip_rate_kps"].get<double>(), 0.0);
	EXPECT_DOUBLE_EQ(p["onchip_qps"].get<double>(), 7.0);
	EXPECT_EQ(j["points"][0]["runs"][1]["refused"], onchip.refused);
	EXPECT_EQ(j["points"][0]["runs"][1]["knobs"][0][1], "onchip");
}

TEST(Sweeps, GnuplotScript)
{
	const Sweep *s = find_sweep("doorbell");
	ASSERT_NE(s, nullptr);
	Measured m;
	RunResult bw, lat;
	bw.client = {{"model_db_wqes", 80}, {"model_db_mmio_writes", 10}};
	lat.perf = {{"t_avg[usec]", 12.5}};
	m.runs = {bw, lat};
	auto j = results_json(*s, {m}, {{"summary", "kernel x \"quoted\""}});
	auto g = gnuplot_script(j, "/tmp/out dir/doorbell.svg");
	EXPECT_NE(g.find("set output \"/tmp/out dir/doorbell.svg\""), std::string::npos) << g;
	EXPECT_NE(g.find("set logscale x 2"), std::string::npos);
	EXPECT_NE(g.find("kernel x \\\"quoted\\\""), std::string::npos) << g;
	EXPECT_NE(g.find("axes x1y2"), std::string::npos);
	/* y1 (latency) then y2 (WQEs per MMIO write), each ended by "e". */
	EXPECT_NE(g.find("\n1 12.5\ne\n1 8\ne\n"), std::string::npos) << g;
}
