// SPDX-License-Identifier: GPL-2.0-only
/*
 * libvrnic: the one thing only verbs tells: a port's active MTU.
 */
#include "vrnic/system.hpp"
#include "vrnic/verbs.hpp"

namespace vrnic {

std::optional<unsigned> verbs_active_mtu(std::string_view dev, unsigned port)
{
	ibv_port_attr attr{};

	try {
		attr = verbs::Context(std::string(dev)).query_port(static_cast<uint8_t>(port));
	} catch (const verbs::VerbsError &) {
		return std::nullopt;
	}
	/* enum ibv_mtu: 1 = 256 bytes ... 5 = 4096 bytes */
	if (attr.active_mtu < IBV_MTU_256 || attr.active_mtu > IBV_MTU_4096)
		return std::nullopt;
	return 128u << attr.active_mtu;
}

} // namespace vrnic
