// SPDX-License-Identifier: GPL-2.0-only
/*
 * Byte counts on the command line: "4096", "64K", "16M", "1G", "1GiB"
 * (binary multiples; a trailing "B" or "iB" is accepted).
 */
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace vrnic::traffic {

/* nullopt for anything but a whole number with an optional suffix. */
std::optional<uint64_t> parse_size(std::string_view text);

/* The largest exact binary unit: 16777216 -> "16M", 1000 -> "1000". */
std::string format_size(uint64_t bytes);

} // namespace vrnic::traffic
