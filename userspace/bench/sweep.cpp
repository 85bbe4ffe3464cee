// SPDX-License-Identifier: GPL-2.0-only
/*
 * vrnic-bench: the sweeps, their results as JSON and their plots (see
 * sweep.hpp).
 *
 * Copyright (c) 2026 The vrnic authors
 */
#include "sweep.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

#include <fmt/format.h>

#include "vrnic/error.hpp"

namespace vrnic::bench {

namespace {

constexpr double nan = std::numeric_limits<double>::quiet_NaN();

/*
 * The cache sweeps' pace: at dilation 200 a miss's ~0.6 us of modeled
 * fetch takes ~120 us of wall clock, far above what this host spends per
 * message, and a hit's modeled time stays below it.
 */
constexpr const char *kCacheDilation = "200";
constexpr const char *kCacheMsgs = "4000";

double ratio(double a, double b)
{
	return b > 0 ? a / b : nan;
}

/* A column of run @i's perftest table, whatever unit perftest chose. */
double perf(const Measured &m, size_t i, std::initializer_list<const char *> names)
{
	if (i >= m.runs.size())
		return nan;
	for (const char *n : names) {
		auto it = m.runs[i].perf.find(n);
		if (it != m.runs[i].perf.end())
			return it->second;
	}
	return nan;
}

double get(const Deltas &d, const std::string &name)
{
	auto it = d.find(name);
	return it == d.end() ? 0 : static_cast<double>(it->second);
}

/* Counter @name's growth over both devices in run @i. */
double both(const Measured &m, size_t i, const std::string &name)
{
	if (i >= m.runs.size())
		return nan;
	return get(m.runs[i].server, name) + get(m.runs[i].client, name);
}

double knob(const Measured &m, const std::string &name)
{
	auto it = m.knobs.find(name);
	return it == m.knobs.end() ? nan : std::strtod(it->second.c_str(), nullptr);
}

Metric msg_rate(size_t run)
{
	return {"msg_rate_mpps", "message rate (Mpps, wall clock, this host)", false,
		[run](const Measured &m) { return perf(m, run, {"MsgRate[Mpps]"}); }};
}

Metric miss_pct(const std::string &cache, const std::string &what)
{
	return {cache + "_miss_pct", what + " misses (% of lookups, modeled)", true,
		[cache](const Measured &m) {
			double miss = both(m, 0, "model_" + cache + "_misses");
			return 100 * ratio(miss, miss + both(m, 0, "model_" + cache + "_hits"));
		}};
}

std::vector<Sweep> make_sweeps()
{
	std::vector<Sweep> all;

	/*
	 * 1. MPS: large WRITEs in pace mode.  Dilation 5000 holds the modeled
	 * Gen3 x16 link (~13 GB/s) to ~2.6 MB/s of wall clock, below the
	 * ~4.7 MB/s a TCG guest's ib_write_bw moved (2000 was too little), so
	 * perftest sees the modeled link's differences.
	 */
	Sweep mps{"mps", "PCIe Max Payload Size: 1 MiB RDMA WRITEs, pace mode (Gen3 x16)",
		  "pcie.mps (bytes)", true,
		  {{"clock.mode", "pace"}, {"clock.dilation", "5000"}}, {}, {}, "", ""};
	for (int v : {128, 256, 512, 1024})
		mps.points.push_back({double(v), {{"pcie.mps", std::to_string(v)}},
				      {{"ib_write_bw", {"-s", "1048576", "-n", "8", "-F"}}}});
	/* The requester gathers the payload: read completions come down. */
	auto modeled_gbps = [](const Measured &m) {
		return ratio(8 * get(m.runs[0].client, "model_dma_read_bytes"),
			     get(m.runs[0].client, "model_pcie_down_ns"));
	};
	auto wall_mbs = [](const Measured &m) { return perf(m, 0, {"BW average[MB/sec]"}); };
	mps.metrics = {
		{"bw_mbs", "bandwidth (MB/s, wall clock, paced)", false, wall_mbs},
		{"link_goodput_gbps", "requester link goodput (Gb/s, modeled)", true, modeled_gbps},
		{"paced_mbs", "modeled goodput / dilation (MB/s)", true,
		 [modeled_gbps](const Measured &m) {
			 return modeled_gbps(m) * 1000 / 8 / knob(m, "clock.dilation");
		 }},
		/* 1 when the host keeps up with the paced model; well below: too slow. */
		{"wall_over_paced", "wall clock / paced model", false,
		 [modeled_gbps, wall_mbs](const Measured &m) {
			 return ratio(wall_mbs(m), modeled_gbps(m) * 1000 / 8 /
							   knob(m, "clock.dilation"));
		 }},
	};
	mps.y1 = "bw_mbs";
	mps.y2 = "link_goodput_gbps";
	all.push_back(std::move(mps));

	/*
	 * 2. MRs in the working set against a 16-entry MR cache, in pace
	 * mode: 64-byte WRITEs round robin over the MRs (the working-set
	 * workload; perftest's bursts from one MR hit however small the
	 * cache).  Past 16 MRs every lookup misses, and each miss holds the
	 * engine for an MPT/MTT read.
	 */
	Sweep mrc{"mrc", "MRs in the working set against a 16-entry MR cache: 64-byte WRITEs, pace mode",
		  "MRs in the working set (round robin)", true,
		  {{"clock.mode", "pace"}, {"clock.dilation", kCacheDilation},
		   {"mrc.entries", "16"}}, {}, {}, "", ""};
	for (int v : {1, 2, 4, 8, 16, 32, 64, 128})
		mrc.points.push_back({double(v), {},
				      {{kWorkingSetTool, {"64", "1", std::to_string(v),
							  kCacheMsgs}}}});
	mrc.metrics = {
		{"msg_rate_kps", "message rate (k/s, wall clock, paced)", false,
		 [](const Measured &m) { return perf(m, 0, {"msgs_per_s"}) / 1000; }},
		miss_pct("mrc", "MR cache"),
		{"requester_miss_pct", "requester's MR cache misses (% of its lookups, modeled)",
		 true,
		 [](const Measured &m) {
			 double miss = get(m.runs[0].client, "model_mrc_misses");
			 return 100 * ratio(miss, miss + get(m.runs[0].client, "model_mrc_hits"));
		 }},
		{"pace_wait_us_per_msg", "requester held for the model per message (us, wall clock)",
		 false,
		 [](const Measured &m) {
			 return ratio(get(m.runs[0].client, "model_pace_wait_ns") / 1000,
				      perf(m, 0, {"#iterations"}));
		 }},
	};
	mrc.y1 = "msg_rate_kps";
	mrc.y2 = "mrc_miss_pct";
	all.push_back(std::move(mrc));

	/* 3. Doorbell batching: WQEs per MMIO write against latency. */
	Sweep db{"doorbell", "Doorbell batch size (batch mode, 100 us bound)",
		 "doorbell.batch_wqes", true,
		 {{"clock.mode", "account"}, {"doorbell.mode", "batch"},
		  {"doorbell.batch_ns", "100000"}}, {}, {}, "", ""};
	for (int v : {1, 2, 4, 8, 16, 32})
		db.points.push_back({double(v), {{"doorbell.batch_wqes", std::to_string(v)}},
				     {{"ib_write_bw", {"-s", "64", "-n", "2000", "-F"}},
				      {"ib_send_lat", {"-s", "64", "-n", "200", "-F"}}}});
	db.metrics = {
		{"wqes_per_mmio", "WQEs per MMIO doorbell write (modeled)", true,
		 [](const Measured &m) {
			 return ratio(get(m.runs[0].client, "model_db_wqes"),
				      get(m.runs[0].client, "model_db_mmio_writes"));
		 }},
		{"added_ns_per_wqe", "doorbell latency added per WQE (ns, modeled)", true,
		 [](const Measured &m) {
			 return ratio(get(m.runs[0].client, "model_db_added_ns"),
				      get(m.runs[0].client, "model_db_wqes"));
		 }},
		msg_rate(0),
		{"send_lat_us", "ib_send_lat average latency (us, wall clock, this host)", false,
		 [](const Measured &m) { return perf(m, 1, {"t_avg[usec]"}); }},
	};
	db.y1 = "send_lat_us";
	db.y2 = "wqes_per_mmio";
	all.push_back(std::move(db));

	/*
	 * 4. QPs in use against 8 QP contexts, pace mode: 64-byte WRITEs round
	 * robin over the QPs (the working-set workload).  In host mode the
	 * contexts are cached: past 8 QPs every lookup misses and fetches
	 * the context (and writes the victim back).  In onchip mode the 8
	 * contexts are all there is: the device refuses the QP that needs a
	 * ninth (the GSI QP holds one of them).
	 */
	Sweep qpc{"qpc", "QPs in use against 8 QP contexts: 64-byte WRITEs round robin, pace mode",
		  "QPs (round robin)", true,
		  {{"clock.mode", "pace"}, {"clock.dilation", kCacheDilation},
		   {"qpc.entries", "8"}}, {}, {}, "", ""};
	for (int v : {1, 2, 4, 8, 16, 32, 64})
		qpc.points.push_back({double(v), {},
				      {{kWorkingSetTool, {"64", std::to_string(v), "1", kCacheMsgs},
					{{"qpc.mode", "host"}}},
				       {kWorkingSetTool, {"64", std::to_string(v), "1", kCacheMsgs},
					{{"qpc.mode", "onchip"}}}}});
	qpc.metrics = {
		{"host_rate_kps", "host mode: message rate (k/s, wall clock, paced)", false,
		 [](const Measured &m) { return perf(m, 0, {"msgs_per_s"}) / 1000; }},
		miss_pct("qpc", "host mode: QP context cache"),
		{"qpc_bytes_per_msg", "host mode: context bytes moved per message (modeled)", true,
		 [](const Measured &m) {
			 double moved = (both(m, 0, "model_qpc_misses") +
					 both(m, 0, "model_qpc_evictions")) *
					knob(m, "qpc.ctx_bytes");
			 return ratio(moved, perf(m, 0, {"#iterations"}));
		 }},
		{"onchip_rate_kps", "onchip mode: message rate (k/s, wall clock, paced; 0: refused)",
		 false, [](const Measured &m) { return perf(m, 1, {"msgs_per_s"}) / 1000; }},
		{"onchip_qps", "onchip mode: QPs the devices took", false,
		 [](const Measured &m) { return perf(m, 1, {"qps_created"}); }},
	};
	qpc.y1 = "host_rate_kps";
	qpc.y2 = "qpc_miss_pct";
	all.push_back(std::move(qpc));

	/*
	 * 5. Registering an MR per I/O against reusing one: WRITEs one at a
	 * time (measured on this host; the registration counters say where
	 * the time went).
	 */
	Sweep reg{"mrreg", "An MR registered per I/O against one reused: one WRITE at a time",
		  "I/O size (bytes)", true, {{"clock.mode", "account"}}, {}, {}, "", ""};
	for (int v : {4096, 16384, 65536, 262144, 1048576})
		reg.points.push_back({double(v), {},
				      {{kMrRegTool, {std::to_string(v), "reuse", "300"}},
				       {kMrRegTool, {std::to_string(v), "per-io", "300"}}}});
	reg.metrics = {
		{"per_io_pct", "I/O rate registering per I/O (% of reusing one MR)", false,
		 [](const Measured &m) {
			 return 100 * ratio(perf(m, 1, {"ios_per_s"}), perf(m, 0, {"ios_per_s"}));
		 }},
		{"reg_us_per_io", "registration + deregistration host time per I/O (us)", false,
		 [](const Measured &m) {
			 const auto &c = m.runs.size() > 1 ? m.runs[1].client : Deltas{};
			 double ns = get(c, "mr_reg_pin_map_ns") + get(c, "mr_reg_mtt_ns") +
				     get(c, "mr_dereg_ns");
			 return ratio(ns / 1000, get(c, "mr_regs"));
		 }},
		{"reuse_ios", "I/Os per second, one MR reused (wall clock)", false,
		 [](const Measured &m) { return perf(m, 0, {"ios_per_s"}); }},
		{"per_io_ios", "I/Os per second, an MR per I/O (wall clock)", false,
		 [](const Measured &m) { return perf(m, 1, {"ios_per_s"}); }},
		{"mrc_misses_per_io", "MR cache misses per I/O, per-I/O case (modeled)", true,
		 [](const Measured &m) {
			 if (m.runs.size() < 2)
				 return nan;
			 return ratio(both(m, 1, "model_mrc_misses"),
				      get(m.runs[1].client, "mr_regs"));
		 }},
	};
	reg.y1 = "per_io_pct";
	reg.y2 = "reg_us_per_io";
	all.push_back(std::move(reg));

	/*
	 * 6. What accounting costs: the driver benchmark's bandwidth, message
	 * rate and latency with clock.mode off (x 0) and account (x 1),
	 * alternating, five times each, runs of several seconds: this host's
	 * noise shows in the spread, and the medians are compared.
	 */
	Sweep ovh{"overhead", "Cost of accounting: clock.mode off (0) against account (1)",
		  "clock.mode (0 off, 1 account)", false, {}, {}, {}, "", ""};
	for (int rep = 0; rep < 5; rep++)
		for (int v : {0, 1})
			ovh.points.push_back({double(v), {{"clock.mode", v ? "account" : "off"}},
					      {{"ib_write_bw", {"-s", "65536", "-n", "4000", "-F"}},
					       {"ib_write_bw", {"-s", "64", "-n", "40000", "-F"}},
					       {"ib_send_lat", {"-s", "64", "-n", "4000", "-F"}}}});
	ovh.metrics = {
		{"bw_mbs", "64 KiB WRITE bandwidth (MB/s, wall clock)", false,
		 [](const Measured &m) { return perf(m, 0, {"BW average[MB/sec]"}); }},
		{"msg_rate_mpps", "64 B WRITE message rate (Mpps, wall clock)", false,
		 [](const Measured &m) { return perf(m, 1, {"MsgRate[Mpps]"}); }},
		{"send_lat_us", "64 B SEND latency (us, wall clock)", false,
		 [](const Measured &m) { return perf(m, 2, {"t_avg[usec]"}); }},
	};
	ovh.y1 = "bw_mbs";
	ovh.y2 = "send_lat_us";
	all.push_back(std::move(ovh));
	return all;
}

nlohmann::json number(double v)
{
	return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
}

} // namespace

const std::vector<Sweep> &sweeps()
{
	static const std::vector<Sweep> all = make_sweeps();
	return all;
}

const Sweep *find_sweep(const std::string &name)
{
	for (const auto &s : sweeps())
		if (s.name == name)
			return &s;
	return nullptr;
}

Sweep only_points(const Sweep &s, const std::vector<double> &xs)
{
	if (xs.empty())
		return s;
	std::string have;
	for (const auto &p : s.points)
		have += fmt::format("{}{}", have.empty() ? "" : " ", p.x);
	for (double x : xs)
		if (std::none_of(s.points.begin(), s.points.end(),
				 [x](const Point &p) { return p.x == x; }))
			throw UsageError(fmt::format("sweep {} has no point at {}", s.name, x),
					 fmt::format("its points are at {}", have));
	Sweep sub = s;
	std::erase_if(sub.points, [&xs](const Point &p) {
		return std::find(xs.begin(), xs.end(), p.x) == xs.end();
	});
	return sub;
}

nlohmann::json results_json(const Sweep &s, const std::vector<Measured> &points,
			    const nlohmann::json &context)
{
	nlohmann::json j = {{"sweep", s.name}, {"title", s.title}, {"xlabel", s.xlabel},
			    {"logx", s.logx}, {"y1", s.y1}, {"y2", s.y2},
			    {"context", context}, {"metrics", nlohmann::json::array()},
			    {"points", nlohmann::json::array()}};
	for (const auto &m : s.metrics)
		j["metrics"].push_back({{"name", m.name}, {"label", m.label},
					{"modeled", m.modeled}});
	for (size_t i = 0; i < points.size() && i < s.points.size(); i++) {
		nlohmann::json p = {{"x", s.points[i].x}, {"knobs", points[i].knobs},
				    {"metrics", nlohmann::json::object()},
				    {"runs", nlohmann::json::array()}};
		for (const auto &m : s.metrics)
			p["metrics"][m.name] = number(m.value(points[i]));
		for (size_t r = 0; r < points[i].runs.size(); r++) {
			const auto &run = points[i].runs[r];
			nlohmann::json rj = {{"tool", s.points[i].runs[r].tool},
					     {"args", s.points[i].runs[r].args},
					     {"perftest", run.perf},
					     {"server", run.server}, {"client", run.client}};
			if (!s.points[i].runs[r].knobs.empty())
				rj["knobs"] = s.points[i].runs[r].knobs;
			if (!run.refused.empty())
				rj["refused"] = run.refused;
			p["runs"].push_back(std::move(rj));
		}
		j["points"].push_back(std::move(p));
	}
	return j;
}

namespace {

std::string quoted(const std::string &s)
{
	std::string q = "\"";
	for (char c : s) {
		if (c == '"' || c == '\\')
			q += '\\';
		q += c;
	}
	return q + '"';
}

std::string label_of(const nlohmann::json &r, const std::string &metric)
{
	for (const auto &m : r.at("metrics"))
		if (m.at("name") == metric)
			return m.at("label").get<std::string>();
	return metric;
}

void data_block(std::string &out, const nlohmann::json &r, const std::string &metric)
{
	for (const auto &p : r.at("points")) {
		const auto &v = p.at("metrics").value(metric, nlohmann::json());
		out += fmt::format("{} {}\n", p.at("x").get<double>(),
				   v.is_number() ? fmt::format("{}", v.get<double>()) : "NaN");
	}
	out += "e\n";
}

} // namespace

std::string gnuplot_script(const nlohmann::json &r, const std::string &svg)
{
	const std::string y1 = r.at("y1"), y2 = r.at("y2");
	const auto &ctx = r.at("context");
	std::string s;

	/* noenhanced: knob names have underscores, not subscripts. */
	if (svg.size() > 4 && svg.compare(svg.size() - 4, 4, ".png") == 0)
		s += "set terminal pngcairo size 800,520 noenhanced font 'sans,10'\n";
	else
		s += "set terminal svg size 800,520 dynamic noenhanced font 'sans,11'\n";
	s += "set output " + quoted(svg) + "\n";
	/* Title, then the testbed on a second line ("\n" joined in gnuplot). */
	s += "set title " + quoted(r.at("title").get<std::string>()) + " . \"\\n\" . " +
	     quoted(ctx.value("summary", std::string())) + "\n";
	s += "set xlabel " + quoted(r.at("xlabel")) + "\n";
	s += "set ylabel " + quoted(label_of(r, y1)) + "\n";
	s += "set y2label " + quoted(label_of(r, y2)) + "\n";
	s += "set ytics nomirror\nset y2tics\nset grid\nset key below\n";
	s += "set yrange [0:*]\nset y2range [0:*]\n";
	if (r.at("logx").get<bool>())
		s += "set logscale x 2\n";
	s += "plot '-' using 1:2 with linespoints lw 2 pt 7 title " + quoted(label_of(r, y1)) +
	     ", '-' using 1:2 axes x1y2 with linespoints lw 2 pt 5 dt 2 title " +
	     quoted(label_of(r, y2)) + "\n";
	data_block(s, r, y1);
	data_block(s, r, y2);
	return s;
}

} // namespace vrnic::bench
