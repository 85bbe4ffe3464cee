// SPDX-License-Identifier: GPL-2.0-only
/*
 * libvrnic: the live SystemQuery (RDMA netlink, verbs, sysfs fallbacks).
 */
#include "vrnic/system.hpp"

#include <fmt/format.h>

#include "vrnic/device.hpp"
#include "vrnic/error.hpp"

namespace vrnic {

namespace {

class LiveSystem : public SystemQuery {
public:
	explicit LiveSystem(const Sysfs &fs) : fs_(fs) {}

	std::optional<std::string> netdev(std::string_view dev, unsigned port) override
	{
		if (auto *nl = netlink()) {
			try {
				if (auto idx = index_of(dev))
					for (auto &p : nl->ports(*idx))
						if (p.port == port && p.netdev)
							return p.netdev;
			} catch (const Error &) {
				/* fall back to sysfs */
			}
		}
		return gid0_netdev(fs_, dev, port);
	}

	std::optional<unsigned> active_mtu(std::string_view dev, unsigned port) override
	{
		return verbs_active_mtu(dev, port);
	}

	std::optional<std::map<std::string, std::uint64_t>>
	res_summary(std::string_view dev) override
	{
		auto *nl = netlink();
		if (!nl)
			return std::nullopt;
		try {
			if (auto idx = index_of(dev))
				return nl->res_summary(*idx);
		} catch (const Error &) {
		}
		return std::nullopt;
	}

	std::vector<QpInfo> qps(std::string_view dev) override
	{
		if (!netlink())
			throw Error(netlink_error_, netlink_hint_);
		auto idx = index_of(dev);
		if (!idx)
			throw Error(fmt::format("RDMA netlink does not list {}", dev),
				    "is the device in another network namespace? "
				    "(rdma system show netns)");
		return nl_->qps(*idx);
	}

private:
	RdmaNetlink *netlink()
	{
		if (!nl_ && netlink_error_.empty()) {
			try {
				nl_ = std::make_unique<RdmaNetlink>();
			} catch (const Error &e) {
				netlink_error_ = e.what();
				netlink_hint_ = e.hint();
			}
		}
		return nl_.get();
	}

	std::optional<std::uint32_t> index_of(std::string_view dev)
	{
		if (devices_.empty())
			devices_ = nl_->devices();
		for (auto &d : devices_)
			if (d.name == dev)
				return d.index;
		return std::nullopt;
	}

	const Sysfs &fs_;
	std::unique_ptr<RdmaNetlink> nl_;
	std::string netlink_error_, netlink_hint_;
	std::vector<NlDevice> devices_;
};

} // namespace

std::unique_ptr<SystemQuery> live_system(const Sysfs &fs)
{
	return std::make_unique<LiveSystem>(fs);
}

} // namespace vrnic
