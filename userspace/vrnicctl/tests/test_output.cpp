// SPDX-License-Identifier: GPL-2.0-only
/*
 * vrnicctl's output against a fake sysfs tree: text and JSON of every
 * command, the same keys in both, rates over a (fake) interval, the model
 * knobs and the errors of model set.
 */
#include <cerrno>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "harness.hpp"
#include "vrnic/knobs.hpp"

using nlohmann::json;
using vrnicctl::test::Harness;

namespace {

bool has(const std::string &s, std::string_view what)
{
	return s.find(what) != std::string::npos;
}

std::string slurp(const std::filesystem::path &p)
{
	std::ifstream f(p);
	std::string s;
	std::getline(f, s);
	return s;
}

/* The knob file @name of @dev, relative to the fake root. */
std::filesystem::path model_file(std::string_view dev, std::string_view name)
{
	return std::filesystem::path("class/infiniband") / std::string(dev) / "model" /
	       std::string(name);
}

const json &knob_of(const json &knobs, std::string_view name)
{
	for (auto &k : knobs)
		if (k["knob"] == name)
			return k;
	static const json none;
	return none;
}

} // namespace

TEST(DevShow, Text)
{
	Harness h;
	h.tree.add_vrnic("vrnic0");
	auto r = h.run({"dev"});
	EXPECT_EQ(r.status, 0);
	EXPECT_EQ(r.out, "vrnic0/1: netdev eth0 state ACTIVE active-mtu 1024 gids 2 qps 3 mrs 2 "
			 "driver vrnic node-desc vrnic\n");
}

TEST(DevShow, JsonHasTheTextKeys)
{
	Harness h;
	h.tree.add_vrnic("vrnic0");
	h.tree.add_vrnic("vrnic1", "veth1");
	h.tree.add_rxe("rxe0");
	auto r = h.run({"-j", "dev"});
	EXPECT_EQ(r.status, 0);
	auto j = json::parse(r.out);
	ASSERT_EQ(j.size(), 2u);
	EXPECT_EQ(j[0], json::parse(R"({"dev":"vrnic0","port":1,"netdev":"eth0","state":"ACTIVE",
		"active-mtu":1024,"gids":2,"qps":3,"mrs":2,"driver":"vrnic","node-desc":"vrnic"})"));
	EXPECT_EQ(j[1]["netdev"], "veth1");
	/* Every JSON key but dev and port is a key of the text line. */
	auto text = h.run({"dev", "show", "vrnic1"}).out;
	for (auto &[k, v] : j[1].items()) {
		if (k != "dev" && k != "port") {
			EXPECT_TRUE(has(text, " " + k + " ")) << k;
		}
	}
}

TEST(DevShow, UnknownPartsAreLeftOut)
{
	Harness h;
	h.tree.add_vrnic("vrnic0");
	h.sys.mtu.reset();
	h.sys.summary.reset();
	auto r = h.run({"dev"});
	EXPECT_EQ(r.out, "vrnic0/1: netdev eth0 state ACTIVE gids 2 driver vrnic node-desc vrnic\n");
	auto j = json::parse(h.run({"-j", "dev"}).out);
	EXPECT_FALSE(j[0].contains("active-mtu"));
	EXPECT_FALSE(j[0].contains("qps"));
}

TEST(StatsShow, TextIsOneLinePerPort)
{
	Harness h;
	h.tree.add_vrnic("vrnic0");
	h.tree.counter("vrnic0", 1, "sent_pkts", 42);
	auto r = h.run({"stats"});
	EXPECT_EQ(r.status, 0);
	EXPECT_EQ(r.out.substr(0, 10), "vrnic0/1: ");
	EXPECT_TRUE(has(r.out, " sent_pkts 42\n")) << r.out;
	EXPECT_FALSE(has(r.out, "lifespan"));
}

TEST(StatsShow, JsonIsEveryCounterFile)
{
	Harness h;
	h.tree.add_vrnic("vrnic0");
	h.tree.counter("vrnic0", 1, "future_counter", 9);
	auto j = json::parse(h.run({"-j", "stats", "show", "vrnic0"}).out);
	ASSERT_EQ(j.size(), 1u);
	EXPECT_EQ(j[0]["dev"], "vrnic0");
	EXPECT_EQ(j[0]["port"], 1);
	EXPECT_EQ(j[0]["counters"].size(), 17u);
	EXPECT_EQ(j[0]["counters"]["future_counter"], 9);
	EXPECT_FALSE(j[0]["counters"].contains("lifespan"));
	EXPECT_FALSE(j[0].contains("rates"));
}

TEST(StatsShow, RatesOverTheInterval)
{
	Harness h;
	h.tree.add_vrnic("vrnic0");
	h.tree.counter("vrnic0", 1, "sent_pkts", 100);
	h.tree.counter("vrnic0", 1, "rcvd_pkts", 50);
	h.on_wait = [&](unsigned) {
		h.tree.counter("vrnic0", 1, "sent_pkts", 400);
		h.tree.counter("vrnic0", 1, "rcvd_pkts", 20);	/* went down: reset */
	};
	auto r = h.run({"-j", "stats", "show", "vrnic0/1", "-i", "1.5"});
	ASSERT_EQ(r.status, 0) << r.err;
	EXPECT_EQ(h.waits, 1u);
	auto j = json::parse(r.out)[0];
	EXPECT_DOUBLE_EQ(j["interval"].get<double>(), 1.5);
	EXPECT_EQ(j["counters"]["sent_pkts"], 400);
	EXPECT_DOUBLE_EQ(j["rates"]["sent_pkts"].get<double>(), 200.0);
	EXPECT_DOUBLE_EQ(j["rates"]["rcvd_pkts"].get<double>(), 0.0);
	EXPECT_EQ(j["rates"].size(), j["counters"].size());

	auto t = h.run({"stats", "show", "-i", "1.5"}).out;
	EXPECT_TRUE(has(t, "vrnic0/1: interval 1.500 s\n")) << t;
	EXPECT_TRUE(has(t, "counter")) << t;
	EXPECT_TRUE(has(t, "rate/s")) << t;
}

TEST(StatsShow, SummaryOfTheModel)
{
	Harness h;
	h.tree.add_vrnic("vrnic0");
	h.tree.add_model("vrnic0");
	h.tree.file("class/infiniband/vrnic0/model/clock.mode", "off [account] pace");
	h.tree.counter("vrnic0", 1, "sent_pkts", 7);
	h.tree.counter("vrnic0", 1, "model_pcie_tlps_up", 10);
	h.tree.counter("vrnic0", 1, "model_pcie_bytes_up", 2000);
	h.tree.counter("vrnic0", 1, "model_pcie_up_ns", 100);
	h.tree.counter("vrnic0", 1, "model_mrc_hits", 9);
	h.tree.counter("vrnic0", 1, "model_mrc_misses", 1);
	h.tree.counter("vrnic0", 1, "model_db_rings", 4);
	h.tree.counter("vrnic0", 1, "model_db_wqes", 8);
	auto r = h.run({"-j", "stats", "show", "vrnic0/1", "summary"});
	ASSERT_EQ(r.status, 0) << r.err;
	auto j = json::parse(r.out)[0];
	EXPECT_EQ(j["clock-mode"], "account");
	EXPECT_EQ(j["summary"]["pcie-up-tlps"], 10);
	EXPECT_DOUBLE_EQ(j["summary"]["pcie-up-bytes-per-tlp"].get<double>(), 200);
	EXPECT_DOUBLE_EQ(j["summary"]["mrc-hit-rate"].get<double>(), 0.9);
	EXPECT_DOUBLE_EQ(j["summary"]["wqes-per-doorbell"].get<double>(), 2);
	/* Zero and non-model counters are not in it; no interval, no rates. */
	EXPECT_FALSE(j["summary"].contains("pcie-down-tlps"));
	EXPECT_FALSE(j["summary"].contains("qpc-hit-rate"));
	EXPECT_FALSE(j["summary"].contains("pcie-up-utilisation"));
	EXPECT_FALSE(j.contains("counters"));

	auto t = h.run({"stats", "show", "vrnic0", "summary"}).out;
	EXPECT_TRUE(has(t, "vrnic0/1: the modeled NIC (clock.mode account)\n")) << t;
	EXPECT_TRUE(has(t, "10 TLPs, 2.0 kB on the link, 200 B per TLP, link busy 100 ns")) << t;
	EXPECT_TRUE(has(t, "90.0% hits of 10 lookups")) << t;
	EXPECT_TRUE(has(t, "2.00 WQEs per doorbell")) << t;
	EXPECT_FALSE(has(t, "PCIe down")) << t;

	/* Over an interval: what grew, and the utilisation. */
	h.on_wait = [&](unsigned) {
		h.tree.counter("vrnic0", 1, "model_pcie_tlps_up", 30);
		h.tree.counter("vrnic0", 1, "model_pcie_bytes_up", 6000);
		h.tree.counter("vrnic0", 1, "model_pcie_up_ns", 500100);
	};
	j = json::parse(h.run({"-j", "stats", "show", "vrnic0/1", "-s", "-i", "2"}).out)[0];
	EXPECT_EQ(j["summary"]["pcie-up-tlps"], 20);
	EXPECT_DOUBLE_EQ(j["summary"]["pcie-up-utilisation"].get<double>(), 0.00025);
	EXPECT_DOUBLE_EQ(j["summary"]["link-time-per-wall"].get<double>(), 0.00025);
	EXPECT_FALSE(j["summary"].contains("mrc-lookups"));	/* did not move */
}

TEST(StatsShow, SummaryWithTheModelOffSaysSo)
{
	Harness h;
	h.tree.add_vrnic("vrnic0");
	h.tree.add_model("vrnic0");
	h.tree.counter("vrnic0", 1, "sent_pkts", 7);
	auto r = h.run({"stats", "show", "summary"});
	ASSERT_EQ(r.status, 0) << r.err;
	EXPECT_TRUE(has(r.out, "counted nothing")) << r.out;
	EXPECT_TRUE(has(r.out, "vrnicctl model set vrnic0 clock.mode account")) << r.out;
	auto j = json::parse(h.run({"-j", "stats", "show", "summary"}).out)[0];
	EXPECT_TRUE(j["summary"].empty());
	EXPECT_TRUE(j.contains("note"));
}

TEST(StatsShow, InterruptedIntervalIsAnError)
{
	Harness h;
	h.tree.add_vrnic("vrnic0");
	h.max_waits = 0;
	auto r = h.run({"stats", "show", "-i", "5"});
	EXPECT_EQ(r.status, 1);
	EXPECT_TRUE(r.out.empty());
	EXPECT_TRUE(has(r.err, "error: interrupted before the interval ended"));
}

TEST(StatsWatch, RedrawsCountTimes)
{
	Harness h;
	h.tree.add_vrnic("vrnic0");
	h.on_wait = [&](unsigned n) { h.tree.counter("vrnic0", 1, "sent_pkts", n * 10); };
	auto r = h.run({"stats", "watch", "-i", "0.5", "-n", "3"});
	EXPECT_EQ(r.status, 0);
	EXPECT_EQ(h.waits, 3u);
	size_t clears = 0;
	for (size_t p = 0; (p = r.out.find("\x1b[H\x1b[2J", p)) != std::string::npos; p++)
		clears++;
	EXPECT_EQ(clears, 3u);
	/* 10 packets every 0.5 s after the first: 20/s. */
	EXPECT_TRUE(has(r.out, "20.0")) << r.out;
}

TEST(StatsWatch, StopsWhenAskedAndJsonLines)
{
	Harness h;
	h.tree.add_vrnic("vrnic0");
	h.max_waits = 2;	/* the third wait is "q" */
	auto r = h.run({"-j", "stats", "watch"});
	EXPECT_EQ(r.status, 0);
	EXPECT_EQ(h.waits, 3u);
	std::istringstream lines(r.out);
	std::string l;
	int n = 0;
	while (std::getline(lines, l)) {
		auto j = json::parse(l);
		EXPECT_DOUBLE_EQ(j[0]["interval"].get<double>(), 1.0);
		n++;
	}
	EXPECT_EQ(n, 2);
}

TEST(QpShow, TextAndJson)
{
	Harness h;
	h.tree.add_vrnic("vrnic0");
	vrnic::QpInfo gsi{"vrnic0", 1, 1, std::nullopt, "GSI", "RTS", 0, std::nullopt,
			  std::nullopt, "[ib_core]"};
	vrnic::QpInfo rc{"vrnic0", 1, 17, 18, "RC", "RTS", 1234, 5678, 321, "ibv_rc_pingpong"};
	h.sys.qp_list = {gsi, rc};
	auto r = h.run({"qp"});
	EXPECT_EQ(r.status, 0);
	EXPECT_EQ(r.out, "vrnic0/1: lqpn 1 type GSI state RTS sq-psn 0 comm [ib_core]\n"
			 "vrnic0/1: lqpn 17 rqpn 18 type RC state RTS sq-psn 1234 rq-psn 5678 "
			 "pid 321 comm ibv_rc_pingpong\n");
	auto j = json::parse(h.run({"-j", "qp", "show", "vrnic0", "qpn", "17"}).out);
	ASSERT_EQ(j.size(), 1u);
	EXPECT_EQ(j[0], json::parse(R"({"dev":"vrnic0","port":1,"lqpn":17,"rqpn":18,"type":"RC",
		"state":"RTS","sq-psn":1234,"rq-psn":5678,"pid":321,"comm":"ibv_rc_pingpong"})"));
	auto none = h.run({"qp", "show", "vrnic0", "qpn", "99"});
	EXPECT_EQ(none.status, 1);
	EXPECT_TRUE(has(none.err, "error: no QP 99 on vrnic0"));
}

TEST(ModelShow, WithoutModelIsANoteNotAnError)
{
	Harness h;
	h.tree.add_vrnic("vrnic0");
	auto r = h.run({"model"});
	EXPECT_EQ(r.status, 0);
	EXPECT_EQ(r.out, "vrnic0: the loaded rdma_vrnic has no hardware model knobs yet "
			 "(no model/ in its sysfs directory)\n");
	auto j = json::parse(h.run({"-j", "model"}).out);
	EXPECT_EQ(j[0]["knobs"], json::array());
	EXPECT_TRUE(j[0]["note"].is_string());
}

TEST(ModelShow, KnobsWithUnitsRangesDefaults)
{
	Harness h;
	h.tree.add_vrnic("vrnic0");
	h.tree.add_model("vrnic0");
	h.tree.file(model_file("vrnic0", "pcie.mps"), "512");
	h.tree.file(model_file("vrnic0", "qpc.mode"), "onchip [host]");
	h.tree.file(model_file("vrnic0", "pcie.future"), "abc");
	auto j = json::parse(h.run({"-j", "model", "show", "vrnic0"}).out);
	auto &knobs = j[0]["knobs"];
	ASSERT_EQ(knobs.size(), vrnic::knob_table().size() + 1);
	for (size_t i = 0; i < vrnic::knob_table().size(); i++)
		EXPECT_EQ(knobs[i]["knob"], vrnic::knob_table()[i].name);	/* table order */
	EXPECT_EQ(knob_of(knobs, "pcie.mps"),
		  json::parse(R"({"knob":"pcie.mps","value":512,"unit":"bytes",
		"range":"128 256 512 1024 2048 4096","default":"256",
		"meaning":"Max Payload Size: largest posted write/completion TLP payload"})"));
	EXPECT_EQ(knob_of(knobs, "qpc.mode")["value"], "host");
	EXPECT_EQ(knob_of(knobs, "clock.mode")["value"], "off");
	EXPECT_EQ(knob_of(knobs, "dma.read_latency_ns")["default"], "550");
	EXPECT_EQ(knob_of(knobs, "dma.read_ps_per_byte"),
		  json::parse(R"j({"knob":"dma.read_ps_per_byte","value":300,"unit":"ps/byte",
		"range":"0..100000","default":"300",
		"meaning":"DMA read time per byte beyond the fixed latency (pcie-bench: ~0.3 ns/B)"})j"));
	/* A file the table does not know is shown, last, without the rest. */
	EXPECT_EQ(knobs.back(), json::parse(R"({"knob":"pcie.future","value":"abc"})"));

	auto t = h.run({"model", "show", "vrnic0", "pcie"}).out;
	EXPECT_EQ(t.substr(0, 8), "vrnic0:\n");
	EXPECT_TRUE(has(t, "knob")) << t;
	EXPECT_TRUE(has(t, "pcie.mps")) << t;
	EXPECT_TRUE(has(t, "pcie.future")) << t;
	EXPECT_FALSE(has(t, "qpc.mode")) << t;
	auto nb = h.run({"model", "show", "vrnic0", "nic"});
	EXPECT_EQ(nb.status, 1);
	EXPECT_TRUE(has(nb.err, "error: vrnic0 has no model block nic\n"
				"  its blocks: clock dma doorbell mrc pcie qpc\n"))
		<< nb.err;
}

TEST(ModelShow, BlockIsTheNameBeforeTheFirstDot)
{
	Harness h;
	h.tree.add_vrnic("vrnic0");
	h.tree.add_model("vrnic0");
	h.tree.file(model_file("vrnic0", "dmax.knob"), "1");
	h.tree.file(model_file("vrnic0", "dma.extra.part"), "2");
	auto j = json::parse(h.run({"-j", "model", "show", "vrnic0", "dma"}).out);
	std::vector<std::string> names;
	for (auto &k : j[0]["knobs"])
		names.push_back(k["knob"]);
	EXPECT_EQ(names, (std::vector<std::string>{"dma.read_latency_ns", "dma.read_ps_per_byte",
						   "dma.extra.part"}));
	EXPECT_EQ(j[0]["knobs"][2], json::parse(R"({"knob":"dma.extra.part","value":2})"));
	auto t = h.run({"model", "show", "vrnic0", "dmax"}).out;
	EXPECT_TRUE(has(t, "dmax.knob")) << t;
	EXPECT_FALSE(has(t, "dma.read")) << t;
	auto nb = h.run({"model", "show", "vrnic0", "dm"});
	EXPECT_TRUE(has(nb.err, "its blocks: clock dma dmax doorbell mrc pcie qpc\n")) << nb.err;
}

TEST(ModelShow, KernelWithSomeBlocksOnly)
{
	/* A kernel with the first blocks only, and one the table lacks. */
	Harness h;
	h.tree.add_vrnic("vrnic0");
	for (auto *n : {"pcie.mrrs", "dma.read_latency_ns", "pcie.gen", "aaa.new"})
		h.tree.file(model_file("vrnic0", n), "512");
	auto j = json::parse(h.run({"-j", "model", "show"}).out);
	std::vector<std::string> names;
	for (auto &k : j[0]["knobs"])
		names.push_back(k["knob"]);
	EXPECT_EQ(names, (std::vector<std::string>{"pcie.gen", "pcie.mrrs", "dma.read_latency_ns",
						   "aaa.new"}));
	auto nb = h.run({"model", "show", "vrnic0", "qpc"});
	EXPECT_EQ(nb.status, 1);
	EXPECT_TRUE(has(nb.err, "error: vrnic0 has no model block qpc\n  its blocks: aaa dma pcie\n"))
		<< nb.err;
}

TEST(ModelSet, ValidatesEveryValueBeforeWriting)
{
	Harness h;
	h.tree.add_vrnic("vrnic0");
	h.tree.add_model("vrnic0");
	auto mps = h.tree.root() / model_file("vrnic0", "pcie.mps");
	auto r = h.run({"model", "set", "vrnic0", "pcie.mps", "512", "pcie.gen", "9"});
	EXPECT_EQ(r.status, 1);
	EXPECT_TRUE(has(r.err, "error: pcie.gen must be an integer in 1..5; got 9\n")) << r.err;
	EXPECT_EQ(slurp(mps), "256");	/* the valid one was not written either */

	r = h.run({"model", "set", "vrnic0", "pcie.mps", "100"});
	EXPECT_TRUE(has(r.err,
			"error: pcie.mps must be one of 128 256 512 1024 2048 4096 (bytes); got 100"));
	r = h.run({"model", "set", "vrnic0", "pcie.mps", "512", "dma.read_ps_per_byte", "-1"});
	EXPECT_TRUE(has(r.err, "error: dma.read_ps_per_byte must be an integer in 0..100000 "
			       "(ps/byte); got -1"))
		<< r.err;
	EXPECT_EQ(h.writes, 0u);
}

TEST(ModelSet, WritesAndReportsOldAndNew)
{
	Harness h;
	h.tree.add_vrnic("vrnic0");
	h.tree.add_model("vrnic0");
	auto r = h.run({"model", "set", "vrnic0", "pcie.mps", "512", "qpc.mode", "onchip"});
	EXPECT_EQ(r.status, 0) << r.err;
	EXPECT_EQ(r.out, "vrnic0: pcie.mps 256 -> 512\nvrnic0: qpc.mode host -> onchip\n");
	EXPECT_EQ(slurp(h.tree.root() / model_file("vrnic0", "pcie.mps")), "512");
	auto j = json::parse(h.run({"-j", "model", "set", "vrnic0", "pcie.gen", "4"}).out);
	EXPECT_EQ(j[0], json::parse(R"({"dev":"vrnic0","knob":"pcie.gen","old":"3","value":"4"})"));
	r = h.run({"model", "set", "vrnic0", "dma.read_ps_per_byte", "250"});
	EXPECT_EQ(r.out, "vrnic0: dma.read_ps_per_byte 300 -> 250\n") << r.err;
}

TEST(ModelSet, UnknownKnobsAndMissingModel)
{
	Harness h;
	h.tree.add_vrnic("vrnic0");
	auto r = h.run({"model", "set", "vrnic0", "pcie.mps", "256"});
	EXPECT_EQ(r.status, 1);
	EXPECT_TRUE(has(r.err, "vrnic0 has no hardware model knobs")) << r.err;

	h.tree.add_model("vrnic0");
	h.tree.file(model_file("vrnic0", "pcie.future"), "1");
	r = h.run({"model", "set", "vrnic0", "pcie.future", "2"});
	EXPECT_EQ(r.status, 0) << r.err;	/* a knob the kernel has is written as-is */
	EXPECT_EQ(slurp(h.tree.root() / model_file("vrnic0", "pcie.future")), "2");
	r = h.run({"model", "set", "vrnic0", "pcie.nothing", "2"});
	EXPECT_EQ(r.status, 1);
	EXPECT_TRUE(has(r.err, "error: unknown knob 'pcie.nothing'\n  knobs: pcie.gen")) << r.err;
	/* Only file names of model/: no paths. */
	r = h.run({"model", "set", "vrnic0", "../model/pcie.mps", "512"});
	EXPECT_TRUE(has(r.err, "error: unknown knob '../model/pcie.mps'")) << r.err;
	r = h.run({"model", "set", "vrnic0", "pcie", "512"});
	EXPECT_TRUE(has(r.err, "error: unknown knob 'pcie'")) << r.err;
	EXPECT_EQ(h.writes, 1u);
}

TEST(ModelSet, KnobTheLoadedModuleLacks)
{
	Harness h;
	h.tree.add_vrnic("vrnic0");
	h.tree.add_model("vrnic0");
	std::filesystem::remove(h.tree.root() / model_file("vrnic0", "clock.mode"));
	auto r = h.run({"model", "set", "vrnic0", "pcie.mps", "512", "clock.mode", "pace"});
	EXPECT_EQ(r.status, 1);
	EXPECT_EQ(r.err, "error: the loaded rdma_vrnic has no knob clock.mode\n"
			 "  its knobs: vrnicctl model show vrnic0\n");
	EXPECT_EQ(h.writes, 0u);	/* pcie.mps neither */
	EXPECT_EQ(slurp(h.tree.root() / model_file("vrnic0", "pcie.mps")), "256");
}

TEST(ModelSet, ChoiceTheKernelDoesNotList)
{
	/* The kernel lists its choices; one it lacks is refused before any write. */
	Harness h;
	h.tree.add_vrnic("vrnic0");
	h.tree.add_model("vrnic0");
	h.tree.file(model_file("vrnic0", "clock.mode"), "[off] account");
	auto r = h.run({"model", "set", "vrnic0", "pcie.mps", "512", "clock.mode", "pace"});
	EXPECT_EQ(r.status, 1);
	EXPECT_EQ(r.err, "error: the loaded rdma_vrnic does not offer clock.mode pace on vrnic0\n"
			 "  its choices for clock.mode: off account\n");
	EXPECT_EQ(h.writes, 0u);
	r = h.run({"model", "set", "vrnic0", "clock.mode", "account"});
	EXPECT_EQ(r.out, "vrnic0: clock.mode off -> account\n") << r.err;
}

TEST(ModelSet, KernelRefusesOutOfRange)
{
	Harness h;
	h.tree.add_vrnic("vrnic0");
	h.tree.add_model("vrnic0");
	h.refuse["pcie.mps"] = EINVAL;
	auto r = h.run({"model", "set", "vrnic0", "pcie.mps", "4096"});
	EXPECT_EQ(r.status, 1);
	EXPECT_TRUE(r.out.empty());
	EXPECT_EQ(r.err, "error: the kernel refused pcie.mps 4096 for vrnic0: Invalid argument "
			 "(EINVAL)\n"
			 "  see dmesg for the accepted range (dmesg | tail); vrnicctl's table has "
			 "pcie.mps 128 256 512 1024 2048 4096 (bytes)\n");
	EXPECT_EQ(slurp(h.tree.root() / model_file("vrnic0", "pcie.mps")), "256");

	/* A knob the table lacks: no range to offer but dmesg's. */
	h.tree.file(model_file("vrnic0", "pcie.future"), "1");
	h.refuse["pcie.future"] = EINVAL;
	r = h.run({"model", "set", "vrnic0", "pcie.future", "7"});
	EXPECT_TRUE(has(r.err, "the kernel refused pcie.future 7 for vrnic0: Invalid argument "
			       "(EINVAL)\n  see dmesg for the accepted values"))
		<< r.err;
}

TEST(ModelSet, KernelRefusesAChoiceItDoesNotImplement)
{
	Harness h;
	h.tree.add_vrnic("vrnic0");
	h.tree.add_model("vrnic0");
	h.refuse["clock.mode"] = EOPNOTSUPP;
	auto r = h.run({"model", "set", "vrnic0", "pcie.mps", "512", "clock.mode", "pace"});
	EXPECT_EQ(r.status, 1);
	EXPECT_EQ(r.err, "error: the kernel refused clock.mode pace for vrnic0: Operation not "
			 "supported (EOPNOTSUPP); already set: pcie.mps 512\n"
			 "  the loaded rdma_vrnic does not implement clock.mode pace yet (it offers "
			 "off account pace); choose another value, or load a newer rdma_vrnic\n");

	h.refuse["clock.mode"] = EINVAL;
	r = h.run({"model", "set", "vrnic0", "clock.mode", "pace"});
	EXPECT_TRUE(has(r.err, "error: the kernel refused clock.mode pace for vrnic0: Invalid "
			       "argument (EINVAL)\n  the loaded rdma_vrnic does not accept clock.mode "
			       "pace (it offers off account pace); see dmesg"))
		<< r.err;
	EXPECT_EQ(slurp(h.tree.root() / model_file("vrnic0", "clock.mode")), "[off] account pace");
}

TEST(ModelSet, BusyNamesTheKnobAndWhatToDo)
{
	Harness h;
	h.tree.add_vrnic("vrnic0");
	h.tree.add_model("vrnic0");
	h.refuse["qpc.entries"] = EBUSY;
	auto r = h.run({"model", "set", "vrnic0", "pcie.gen", "4", "qpc.entries", "64"});
	EXPECT_EQ(r.status, 1);
	EXPECT_EQ(r.err, "error: the kernel refused qpc.entries 64 for vrnic0: Device or resource "
			 "busy (EBUSY): qpc.entries cannot change while vrnic0 has live resources; "
			 "already set: pcie.gen 4\n"
			 "  destroy the device's QPs/MRs first (stop the applications using it; see "
			 "vrnicctl qp show vrnic0), then set qpc.entries again\n");
	EXPECT_EQ(slurp(h.tree.root() / model_file("vrnic0", "qpc.entries")), "1024");
}

TEST(ModelSet, PermissionAndOtherErrors)
{
	Harness h;
	h.tree.add_vrnic("vrnic0");
	h.tree.add_model("vrnic0");
	h.refuse["pcie.mps"] = EACCES;
	auto r = h.run({"model", "set", "vrnic0", "pcie.mps", "512"});
	EXPECT_EQ(r.err, "error: cannot write pcie.mps of vrnic0: Permission denied (EACCES)\n"
			 "  needs root: run vrnicctl as root (or with sudo)\n");
	h.refuse["pcie.mps"] = ENODEV;
	r = h.run({"model", "set", "vrnic0", "pcie.mps", "512"});
	EXPECT_TRUE(has(r.err, "error: writing pcie.mps 512 for vrnic0 failed: No such device "
			       "(ENODEV)\n  see dmesg"))
		<< r.err;
}
