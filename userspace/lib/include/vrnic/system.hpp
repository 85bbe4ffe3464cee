// SPDX-License-Identifier: GPL-2.0-only
/*
 * What tools ask of the running system beyond sysfs: netdevs, active MTU,
 * resource counts and QPs.  An interface, so that tests give fixed answers
 * and tools stay testable against a fake sysfs tree.
 */
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vrnic/nldev.hpp"
#include "vrnic/sysfs.hpp"

namespace vrnic {

class SystemQuery {
public:
	virtual ~SystemQuery() = default;
	virtual std::optional<std::string> netdev(std::string_view dev, unsigned port) = 0;
	/* The port's active MTU in bytes (verbs query_port). */
	virtual std::optional<unsigned> active_mtu(std::string_view dev, unsigned port) = 0;
	/* Resource counts ("qp", "mr"...), or nullopt when unavailable. */
	virtual std::optional<std::map<std::string, std::uint64_t>>
	res_summary(std::string_view dev) = 0;
	/* The device's QPs; throws Error when they cannot be listed. */
	virtual std::vector<QpInfo> qps(std::string_view dev) = 0;
};

/*
 * The live system: RDMA netlink (opened on first use) and libibverbs, with
 * sysfs as the fallback for the netdev.
 */
std::unique_ptr<SystemQuery> live_system(const Sysfs &fs);

/* Active MTU through libibverbs, or nullopt (no uverbs, no access). */
std::optional<unsigned> verbs_active_mtu(std::string_view dev, unsigned port);

} // namespace vrnic
