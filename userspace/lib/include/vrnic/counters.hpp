// SPDX-License-Identifier: GPL-2.0-only
/*
 * Port counters from sysfs hw_counters/ (rdma_hw_stats): every file there
 * but "lifespan" (the core's cache time, a setting rather than a counter),
 * so a counter the module adds shows up with no change here.
 */
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "vrnic/sysfs.hpp"

namespace vrnic {

using Clock = std::chrono::steady_clock;

struct CounterSample {
	std::string dev;
	unsigned port = 0;
	Clock::time_point when{};
	/* (name, value), in directory order (sorted by name). */
	std::vector<std::pair<std::string, std::uint64_t>> values;
};

/* Read every counter of @dev/@port, stamped @when.  Throws Error when
 * the port has no hw_counters directory. */
CounterSample sample_counters(const Sysfs &fs, std::string_view dev, unsigned port,
			      Clock::time_point when);

struct CounterRate {
	std::string name;
	std::uint64_t value = 0;	/* in the later sample */
	std::uint64_t delta = 0;	/* later - earlier; 0 after a reset */
	double per_second = 0;		/* delta / interval; never negative */
};

/*
 * Per-second rates between two samples of one port.  A counter that went
 * down (the device was recreated) counts as a reset: delta and rate 0.  A
 * counter only in @later (new) has delta 0.  Throws Error when @later is
 * not after @earlier.
 */
std::vector<CounterRate> counter_rates(const CounterSample &earlier,
				       const CounterSample &later);

/* Seconds between two samples. */
double interval_seconds(const CounterSample &earlier, const CounterSample &later);

} // namespace vrnic
