// SPDX-License-Identifier: GPL-2.0-only
/*
 * vrnic-bench: running a sweep on live devices.
 *
 * Copyright (c) 2026 The vrnic authors
 */
#pragma once

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "sweep.hpp"

namespace vrnic::bench {

/* Where the traffic runs: perftest's server on one device, its client on another. */
struct Topology {
	std::string server_ns = "ns0", server_dev = "vrnic0", server_ip = "10.97.0.1";
	std::string client_ns = "ns1", client_dev = "vrnic1";
	unsigned port = 18515;
	unsigned timeout_s = 300;	/* per perftest run */
};

/*
 * Run @s on @topo's devices: set its knobs, run every point, restore the
 * knobs it changed.  Logs of each run go to @logdir.  @progress gets a
 * line per run.  Throws vrnic::Error (with what to do) when a knob cannot
 * be set or a run fails.
 */
nlohmann::json run_sweep(const Sweep &s, const Topology &topo,
			 const std::filesystem::path &logdir, const std::string &note,
			 const std::function<void(const std::string &)> &progress);

} // namespace vrnic::bench
