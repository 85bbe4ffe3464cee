// SPDX-License-Identifier: GPL-2.0-only
/*
 * libvrnic: vrnic devices, ports and DEV[/PORT] addressing.
 */
#include "vrnic/device.hpp"

#include <algorithm>
#include <charconv>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "vrnic/error.hpp"

namespace vrnic {

namespace {

const char *const no_devices_hint =
	"load the module: modprobe rdma_vrnic (or insmod rdma_vrnic.ko); "
	"create one: rdma link add vrnic0 type vrnic netdev eth0";

bool parse_uint(std::string_view s, unsigned &out)
{
	if (s.empty())
		return false;
	auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
	return ec == std::errc() && p == s.data() + s.size();
}

} // namespace

DevPort parse_dev_port(std::string_view s)
{
	DevPort dp;
	auto slash = s.find('/');
	dp.dev = std::string(s.substr(0, slash));
	if (dp.dev.empty())
		throw UsageError(fmt::format("'{}' names no device", s),
				 "write DEV or DEV/PORT, e.g. vrnic0 or vrnic0/1");
	if (slash != std::string_view::npos) {
		unsigned port;
		if (!parse_uint(s.substr(slash + 1), port) || port == 0)
			throw UsageError(fmt::format("'{}': port must be a number from 1", s),
					 "write DEV/PORT, e.g. vrnic0/1");
		dp.port = port;
	}
	return dp;
}

bool is_vrnic(const Sysfs &fs, std::string_view dev)
{
	auto d = fs.dev_path(dev);
	if (fs.exists(d / "model"))
		return true;
	for (const auto &p : fs.list(d / "ports")) {
		auto c = d / "ports" / p / "hw_counters";
		if (fs.exists(c / "rx_drop_no_qp") && fs.exists(c / "rx_drop_icrc"))
			return true;
	}
	return false;
}

std::vector<std::string> vrnic_devices(const Sysfs &fs)
{
	std::vector<std::string> out;
	for (auto &d : fs.rdma_devices())
		if (is_vrnic(fs, d))
			out.push_back(d);
	return out;
}

std::vector<std::string> select_devices(const Sysfs &fs, std::string_view dev)
{
	auto all = vrnic_devices(fs);
	if (all.empty()) {
		auto others = fs.rdma_devices();
		if (!dev.empty() && std::find(others.begin(), others.end(), dev) != others.end())
			throw Error(fmt::format("{} is not a vrnic device, and there are no vrnic devices", dev),
				    no_devices_hint);
		throw Error("no vrnic devices", no_devices_hint);
	}
	if (dev.empty())
		return all;
	if (std::find(all.begin(), all.end(), dev) != all.end())
		return {std::string(dev)};
	auto others = fs.rdma_devices();
	if (std::find(others.begin(), others.end(), dev) != others.end())
		throw Error(fmt::format("{} is an RDMA device but not a vrnic device", dev),
			    fmt::format("vrnic devices: {}", fmt::join(all, " ")));
	throw Error(fmt::format("no device {}", dev),
		    fmt::format("vrnic devices: {}", fmt::join(all, " ")));
}

std::vector<unsigned> dev_ports(const Sysfs &fs, std::string_view dev)
{
	std::vector<unsigned> ports;
	for (auto &p : fs.list(fs.dev_path(dev) / "ports")) {
		unsigned n;
		if (parse_uint(p, n))
			ports.push_back(n);
	}
	std::sort(ports.begin(), ports.end());
	return ports;
}

std::vector<unsigned> select_ports(const Sysfs &fs, const DevPort &dp)
{
	auto ports = dev_ports(fs, dp.dev);
	if (!dp.port)
		return ports;
	if (std::find(ports.begin(), ports.end(), *dp.port) == ports.end())
		throw Error(fmt::format("{} has no port {}", dp.dev, *dp.port),
			    fmt::format("its ports: {}", fmt::join(ports, " ")));
	return {*dp.port};
}

std::string strip_state_number(std::string_view s)
{
	auto colon = s.find(": ");
	if (colon != std::string_view::npos && colon > 0 &&
	    std::all_of(s.begin(), s.begin() + colon, [](char c) { return c >= '0' && c <= '9'; }))
		return std::string(s.substr(colon + 2));
	return std::string(s);
}

std::optional<std::string> port_state(const Sysfs &fs, std::string_view dev, unsigned port)
{
	auto s = fs.read(fs.dev_path(dev) / "ports" / std::to_string(port) / "state");
	if (!s)
		return std::nullopt;
	return strip_state_number(*s);
}

unsigned gid_count(const Sysfs &fs, std::string_view dev, unsigned port)
{
	auto dir = fs.dev_path(dev) / "ports" / std::to_string(port) / "gids";
	unsigned n = 0;
	for (auto &g : fs.list(dir)) {
		auto v = fs.read(dir / g);
		if (v && v->find_first_not_of("0:") != std::string::npos)
			n++;
	}
	return n;
}

std::optional<std::string> gid0_netdev(const Sysfs &fs, std::string_view dev, unsigned port)
{
	auto v = fs.read(fs.dev_path(dev) / "ports" / std::to_string(port) /
			 "gid_attrs/ndevs/0");
	if (!v || v->empty())
		return std::nullopt;
	return v;
}

std::optional<std::string> node_desc(const Sysfs &fs, std::string_view dev)
{
	return fs.read(fs.dev_path(dev) / "node_desc");
}

} // namespace vrnic
