// SPDX-License-Identifier: GPL-2.0-only
/*
 * A fake sysfs tree in a temporary directory, for host tests of code that
 * reads /sys/class/infiniband.  Removed when the object goes.
 */
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>

#include "vrnic/sysfs.hpp"

namespace vrnic::test {

class FakeSysfs {
public:
	FakeSysfs();
	~FakeSysfs();
	FakeSysfs(const FakeSysfs &) = delete;
	FakeSysfs &operator=(const FakeSysfs &) = delete;

	Sysfs sysfs() const { return Sysfs(root_); }
	const std::filesystem::path &root() const { return root_; }

	/* Write @contents (plus a newline) to @rel, making directories. */
	void file(const std::filesystem::path &rel, std::string_view contents);

	/* A vrnic device as the module makes it: port 1 ACTIVE, GIDs 0 and 1
	 * set (of 4 entries), vrnic's counters all zero, GID 0 on @netdev. */
	void add_vrnic(std::string_view dev, std::string_view netdev = "eth0");
	/* An rxe device: rxe's counters, no model/. */
	void add_rxe(std::string_view dev);
	/* The hardware model's knob files, flat (model/<block>.<knob>), each
	 * at its table default. */
	void add_model(std::string_view dev);

	void counter(std::string_view dev, unsigned port, std::string_view name,
		     std::uint64_t value);

private:
	std::filesystem::path root_;
};

} // namespace vrnic::test
