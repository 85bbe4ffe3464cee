// SPDX-License-Identifier: GPL-2.0-only
/*
 * vrnic-bench: sweeps of the hardware model's knobs under perftest traffic.
 *
 *   vrnic-bench [-j] list
 *   vrnic-bench [-j] run SWEEP... [-o DIR] [--note TEXT] [topology options]
 *   vrnic-bench plot RESULTS.json [-o PLOT.svg]
 *
 * run writes DIR/SWEEP.json and, with gnuplot, DIR/SWEEP.svg.  It needs
 * root and two vrnic devices joined by a network (by default the
 * testbed's: vrnic0 in ns0 at 10.97.0.1 serving, vrnic1 in ns1).
 *
 * Copyright (c) 2026 The vrnic authors
 */
#include "runner.hpp"
#include "sweep.hpp"
#include "vrnic/error.hpp"

#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

using namespace vrnic;
using namespace vrnic::bench;

namespace {

struct PipeClose {
	void operator()(FILE *f) const { pclose(f); }
};

/* Draw @results into @svg with gnuplot. */
void plot(const nlohmann::json &results, const std::string &svg)
{
	std::unique_ptr<FILE, PipeClose> gp(popen("gnuplot", "w"));
	if (!gp)
		throw Error("cannot run gnuplot", "install it: apt-get install gnuplot-nox");
	auto script = gnuplot_script(results, svg);
	fwrite(script.data(), 1, script.size(), gp.get());
	if (pclose(gp.release()) != 0)
		throw Error("gnuplot failed to draw " + svg,
			    "is gnuplot installed (apt-get install gnuplot-nox)?");
}

nlohmann::json load(const std::string &path)
{
	std::ifstream in(path);
	if (!in)
		throw Error("cannot read " + path);
	try {
		return nlohmann::json::parse(in);
	} catch (const nlohmann::json::exception &e) {
		throw Error(path + " is not vrnic-bench JSON: " + e.what());
	}
}

} // namespace

int main(int argc, char **argv)
{
	CLI::App app{"vrnic-bench: sweeps of vrnic's hardware model knobs under perftest traffic"};
	bool json = false;
	app.add_flag("-j,--json", json, "JSON output");
	app.require_subcommand(1);

	auto *list = app.add_subcommand("list", "the sweeps there are");

	auto *run = app.add_subcommand("run", "run sweeps; write SWEEP.json and SWEEP.svg");
	std::vector<std::string> names;
	std::string outdir = ".", note;
	Topology topo;
	run->add_option("SWEEP", names, "sweeps to run (see list)")->required();
	run->add_option("-o,--out", outdir, "where results and logs go")->capture_default_str();
	run->add_option("--note", note, "testbed context for the results (\"TCG guest\")");
	run->add_option("--server-ns", topo.server_ns)->capture_default_str();
	run->add_option("--server-dev", topo.server_dev)->capture_default_str();
	run->add_option("--server-ip", topo.server_ip)->capture_default_str();
	run->add_option("--client-ns", topo.client_ns)->capture_default_str();
	run->add_option("--client-dev", topo.client_dev)->capture_default_str();
	run->add_option("--port", topo.port, "perftest's TCP port")->capture_default_str();
	std::vector<double> at;
	run->add_option("--at", at, "only the points at these x values (comma separated)")
		->delimiter(',');

	auto *plt = app.add_subcommand("plot", "draw a results file with gnuplot");
	std::string in, svg;
	plt->add_option("RESULTS", in, "a SWEEP.json of run")->required()->check(CLI::ExistingFile);
	plt->add_option("-o,--output", svg, "the SVG (default: RESULTS with .svg)");

	CLI11_PARSE(app, argc, argv);
	try {
		if (*list) {
			nlohmann::json j = nlohmann::json::array();
			for (const auto &s : sweeps()) {
				if (!json)
					std::cout << fmt::format("{:<10} {}\n", s.name, s.title);
				j.push_back({{"name", s.name}, {"title", s.title},
					     {"points", s.points.size()}});
			}
			if (json)
				std::cout << j.dump() << "\n";
			return 0;
		}
		if (*plt) {
			if (svg.empty())
				svg = std::filesystem::path(in).replace_extension(".svg").string();
			plot(load(in), svg);
			std::cout << svg << "\n";
			return 0;
		}
		std::vector<Sweep> todo;
		for (const auto &n : names) {
			const Sweep *s = find_sweep(n);
			if (!s)
				throw UsageError("no sweep named " + n, "vrnic-bench list shows them");
			todo.push_back(only_points(*s, at));
		}
		nlohmann::json all = nlohmann::json::array();
		for (const auto &sw : todo) {
			const std::string &n = sw.name;
			std::filesystem::path dir(outdir);
			auto r = run_sweep(sw, topo, dir / "logs", note,
					   [](const std::string &l) { std::cerr << l << "\n"; });
			std::ofstream(dir / (n + ".json")) << r.dump(1) << "\n";
			try {
				plot(r, (dir / (n + ".svg")).string());
			} catch (const Error &e) {
				std::cerr << "vrnic-bench: no plot: " << e.what() << "\n";
			}
			if (!json) {
				std::cout << n << ": " << r["title"].get<std::string>() << "\n";
				for (const auto &p : r["points"])
					std::cout << fmt::format("  x={:<6} {}\n", p["x"].get<double>(),
								 p["metrics"].dump());
			}
			all.push_back(std::move(r));
		}
		if (json)
			std::cout << all.dump() << "\n";
	} catch (const UsageError &e) {
		std::cerr << "vrnic-bench: " << e.what() << "\n";
		if (!e.hint().empty())
			std::cerr << "  " << e.hint() << "\n";
		return 2;
	} catch (const Error &e) {
		std::cerr << "vrnic-bench: " << e.what() << "\n";
		if (!e.hint().empty())
			std::cerr << "  " << e.hint() << "\n";
		return 1;
	}
	return 0;
}
