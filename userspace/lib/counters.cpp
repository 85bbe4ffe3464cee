// SPDX-License-Identifier: GPL-2.0-only
/*
 * libvrnic: hw_counters samples and per-second rates.
 */
#include "vrnic/counters.hpp"

#include <charconv>
#include <map>

#include <fmt/format.h>

#include "vrnic/error.hpp"

namespace vrnic {

CounterSample sample_counters(const Sysfs &fs, std::string_view dev, unsigned port,
			      Clock::time_point when)
{
	auto dir = fs.dev_path(dev) / "ports" / std::to_string(port) / "hw_counters";
	if (!fs.exists(dir))
		throw Error(fmt::format("{}/{} has no hw_counters", dev, port),
			    "the module registers none for this port");
	CounterSample s{std::string(dev), port, when, {}};
	for (const auto &name : fs.list(dir)) {
		if (name == "lifespan")
			continue;
		auto v = fs.read(dir / name);
		if (!v)
			continue;
		std::uint64_t n;
		auto [p, ec] = std::from_chars(v->data(), v->data() + v->size(), n);
		if (ec != std::errc() || p != v->data() + v->size())
			continue;
		s.values.emplace_back(name, n);
	}
	return s;
}

double interval_seconds(const CounterSample &earlier, const CounterSample &later)
{
	return std::chrono::duration<double>(later.when - earlier.when).count();
}

std::vector<CounterRate> counter_rates(const CounterSample &earlier, const CounterSample &later)
{
	double dt = interval_seconds(earlier, later);
	if (dt <= 0)
		throw Error("counter samples are not in time order",
			    "sample again after a positive interval");
	std::map<std::string_view, std::uint64_t> before;
	for (const auto &[n, v] : earlier.values)
		before.emplace(n, v);
	std::vector<CounterRate> out;
	for (const auto &[n, v] : later.values) {
		CounterRate r{n, v, 0, 0};
		auto it = before.find(n);
		if (it != before.end() && v >= it->second)
			r.delta = v - it->second;
		r.per_second = static_cast<double>(r.delta) / dt;
		out.push_back(std::move(r));
	}
	return out;
}

} // namespace vrnic
