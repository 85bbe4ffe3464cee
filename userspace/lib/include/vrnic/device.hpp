// SPDX-License-Identifier: GPL-2.0-only
/*
 * vrnic devices in sysfs: which RDMA devices are vrnic's, their ports,
 * port state and GID table, and DEV[/PORT] addressing.
 */
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vrnic/sysfs.hpp"

namespace vrnic {

/* DEV or DEV/PORT, as the rdma tool writes them. */
struct DevPort {
	std::string dev;
	std::optional<unsigned> port;
};

/* Parse "vrnic0" or "vrnic0/1"; throws UsageError for a bad port. */
DevPort parse_dev_port(std::string_view s);

/*
 * Is RDMA device @dev one of vrnic's?  vrnic reports rxe's driver id (so
 * librxe drives it) and rxe's vendor id, so neither tells them apart; what
 * does is what only vrnic creates:
 *  - a model/ directory (the hardware model's knobs), or
 *  - vrnic's receive-drop counters in a port's hw_counters
 *    (rx_drop_no_qp, rx_drop_icrc), which rxe's counter table lacks.
 */
bool is_vrnic(const Sysfs &fs, std::string_view dev);

/* vrnic's devices, sorted by name. */
std::vector<std::string> vrnic_devices(const Sysfs &fs);

/*
 * The vrnic devices to act on: all of them when @dev is empty, else just
 * @dev.  Throws Error with what to do next when there are none, when @dev
 * does not exist, or when it is not a vrnic device.
 */
std::vector<std::string> select_devices(const Sysfs &fs, std::string_view dev);

/* The device's port numbers (sysfs ports/), sorted. */
std::vector<unsigned> dev_ports(const Sysfs &fs, std::string_view dev);

/* The ports of a DEV[/PORT] selection; throws Error for a missing port. */
std::vector<unsigned> select_ports(const Sysfs &fs, const DevPort &dp);

/* "4: ACTIVE" -> "ACTIVE"; the raw text when it has no "N: " prefix. */
std::string strip_state_number(std::string_view s);

/* The port's state ("ACTIVE", "DOWN"...), or nullopt. */
std::optional<std::string> port_state(const Sysfs &fs, std::string_view dev, unsigned port);

/* Valid (non-zero) GID table entries of the port. */
unsigned gid_count(const Sysfs &fs, std::string_view dev, unsigned port);

/* The netdev of GID 0 (sysfs gid_attrs/ndevs/0), or nullopt. */
std::optional<std::string> gid0_netdev(const Sysfs &fs, std::string_view dev, unsigned port);

/* The device's node description, or nullopt. */
std::optional<std::string> node_desc(const Sysfs &fs, std::string_view dev);

} // namespace vrnic
