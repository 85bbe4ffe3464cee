// SPDX-License-Identifier: GPL-2.0-only
/*
 * vrnic-bench: sweeps of the hardware model's knobs under real verbs
 * traffic (perftest between two vrnic devices), their results as JSON,
 * and their plots (gnuplot).
 *
 * A sweep sets some knobs for all its points, then per point the knob it
 * sweeps; at each point it runs one or more perftest runs (server on one
 * device, client on the other) and records, per run, perftest's result
 * table and how much every counter of both devices grew.  Its metrics are
 * computed from those: wall-clock ones from perftest, modeled ones from
 * the model's counters (clock.mode account).
 *
 * Copyright (c) 2026 The vrnic authors
 */
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace vrnic::bench {

using Knobs = std::vector<std::pair<std::string, std::string>>;
using Deltas = std::map<std::string, std::uint64_t>;

/*
 * The built-in workloads of workloads.hpp instead of a perftest tool.
 * mr-reg args: SIZE, "reuse" or "per-io", IOS.  working-set args: SIZE,
 * QPS, MRS, MSGS.
 */
inline constexpr const char *kMrRegTool = "mr-reg";
inline constexpr const char *kWorkingSetTool = "working-set";

/*
 * One run: the tool and its arguments (for perftest, no -d, -x, -p,
 * server), and knobs set on both devices before it (after the point's).
 */
struct Run {
	std::string tool;
	std::vector<std::string> args;
	Knobs knobs = {};
};

struct Point {
	double x = 0;
	Knobs knobs;		/* set on both devices before the runs */
	std::vector<Run> runs;
};

/* What one run measured. */
struct RunResult {
	std::map<std::string, double> perf;	/* the client's result table */
	Deltas server, client;			/* counter growth per device */
	std::string refused;			/* a device refused the workload's QPs */
};

/* What a metric sees: the point's runs, and the client's knobs there. */
struct Measured {
	std::vector<RunResult> runs;
	std::map<std::string, std::string> knobs;
};

struct Metric {
	std::string name;	/* JSON key, "msg_rate_mpps" */
	std::string label;	/* axis label, with its unit */
	bool modeled = false;	/* from the model's counters, else wall clock */
	std::function<double(const Measured &)> value;
};

struct Sweep {
	std::string name, title, xlabel;
	bool logx = false;
	Knobs setup;		/* for the whole sweep, on both devices */
	std::vector<Point> points;
	std::vector<Metric> metrics;
	std::string y1, y2;	/* the metrics plotted: left and right axis */
};

/* The sweeps vrnic-bench knows, in the order it lists them. */
const std::vector<Sweep> &sweeps();
const Sweep *find_sweep(const std::string &name);

/*
 * @s with only the points at @xs, in @s's order (all of them when @xs is
 * empty).  Throws UsageError naming the points @s has for an x it lacks.
 */
Sweep only_points(const Sweep &s, const std::vector<double> &xs);

/*
 * A sweep's results: {"sweep", "title", "xlabel", "logx", "y1", "y2",
 * "context": @context, "metrics": [{name, label, modeled}],
 * "points": [{"x", "knobs", "metrics": {name: value}, "runs": [...]}]}.
 */
nlohmann::json results_json(const Sweep &s, const std::vector<Measured> &points,
			    const nlohmann::json &context);

/* The gnuplot script that draws @results into @svg: SVG, or PNG if it ends in .png. */
std::string gnuplot_script(const nlohmann::json &results, const std::string &svg);

} // namespace vrnic::bench
