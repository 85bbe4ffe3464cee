// SPDX-License-Identifier: GPL-2.0-only
/*
 * Running vrnicctl's command lines in-process against a fake sysfs tree,
 * a SystemQuery with fixed answers, a clock the test moves and knob writes
 * the test can have refused as the kernel would.
 */
#pragma once

#include <map>
#include <sstream>

#include "cli.hpp"
#include "fake_sysfs.hpp"
#include "vrnic/device.hpp"

namespace vrnicctl::test {

class FakeSystem : public vrnic::SystemQuery {
public:
	std::optional<std::string> netdev(std::string_view dev, unsigned port) override
	{
		return vrnic::gid0_netdev(vrnic::Sysfs(root), dev, port);
	}
	std::optional<unsigned> active_mtu(std::string_view, unsigned) override { return mtu; }
	std::optional<std::map<std::string, std::uint64_t>> res_summary(std::string_view) override
	{
		return summary;
	}
	std::vector<vrnic::QpInfo> qps(std::string_view dev) override
	{
		std::vector<vrnic::QpInfo> out;
		for (auto &q : qp_list)
			if (q.dev == dev)
				out.push_back(q);
		return out;
	}

	std::filesystem::path root;
	std::optional<unsigned> mtu = 1024;
	std::optional<std::map<std::string, std::uint64_t>> summary =
		std::map<std::string, std::uint64_t>{{"qp", 3}, {"mr", 2}, {"pd", 1}};
	std::vector<vrnic::QpInfo> qp_list;
};

struct Result {
	int status;
	std::string out, err;
};

class Harness {
public:
	Harness() { sys.root = tree.root(); }

	/* Run "vrnicctl ARGS..."; each wait() moves the clock and may call
	 * @on_wait (to change counters while "time passes"). */
	Result run(std::vector<std::string> args)
	{
		std::ostringstream out, err;
		Context ctx{tree.sysfs(), sys, out, err, [this] { return now; },
			    [this](std::chrono::milliseconds d) {
				    now += d;
				    waits++;
				    if (on_wait)
					    on_wait(waits);
				    return waits <= max_waits;
			    },
			    [this](const std::filesystem::path &p, std::string_view v) {
				    writes++;
				    auto it = refuse.find(p.filename().string());
				    if (it != refuse.end())
					    return it->second;
				    return vrnic::Sysfs(tree.root()).write(p, v);
			    }};
		int st = vrnicctl::run(args, ctx);
		return {st, out.str(), err.str()};
	}

	vrnic::test::FakeSysfs tree;
	FakeSystem sys;
	vrnic::Clock::time_point now{};
	unsigned waits = 0, max_waits = 1000;
	std::function<void(unsigned)> on_wait;
	/* Knob files ("pcie.mps") whose writes the "kernel" refuses, with the
	 * errno it answers; the file keeps its contents. */
	std::map<std::string, int> refuse;
	unsigned writes = 0;
};

} // namespace vrnicctl::test
