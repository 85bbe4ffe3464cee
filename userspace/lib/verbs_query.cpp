// SPDX-License-Identifier: GPL-2.0-only
/*
 * libvrnic: the one thing only verbs tells: a port's active MTU.
 */
#include <infiniband/verbs.h>

#include <memory>

#include "vrnic/system.hpp"

namespace vrnic {

namespace {

struct DeviceListDeleter {
	void operator()(ibv_device **l) const noexcept { ibv_free_device_list(l); }
};
struct ContextDeleter {
	void operator()(ibv_context *c) const noexcept { ibv_close_device(c); }
};

} // namespace

std::optional<unsigned> verbs_active_mtu(std::string_view dev, unsigned port)
{
	int n = 0;
	std::unique_ptr<ibv_device *, DeviceListDeleter> list(ibv_get_device_list(&n));
	if (!list)
		return std::nullopt;
	for (int i = 0; i < n; i++) {
		if (dev != ibv_get_device_name(list.get()[i]))
			continue;
		std::unique_ptr<ibv_context, ContextDeleter> ctx(ibv_open_device(list.get()[i]));
		if (!ctx)
			return std::nullopt;
		ibv_port_attr attr{};
		if (ibv_query_port(ctx.get(), static_cast<uint8_t>(port), &attr))
			return std::nullopt;
		/* enum ibv_mtu: 1 = 256 bytes ... 5 = 4096 bytes */
		if (attr.active_mtu < IBV_MTU_256 || attr.active_mtu > IBV_MTU_4096)
			return std::nullopt;
		return 128u << attr.active_mtu;
	}
	return std::nullopt;
}

} // namespace vrnic
