// SPDX-License-Identifier: GPL-2.0-only
/*
 * Byte counts with K/M/G suffixes: see size.hpp.
 */

#include "size.hpp"

#include <cctype>
#include <limits>

namespace vrnic::traffic {

std::optional<uint64_t> parse_size(std::string_view text)
{
	size_t i = 0;
	uint64_t v = 0;

	while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
		uint64_t d = static_cast<uint64_t>(text[i] - '0');

		if (v > (std::numeric_limits<uint64_t>::max() - d) / 10)
			return std::nullopt;
		v = v * 10 + d;
		i++;
	}
	if (i == 0)
		return std::nullopt;

	std::string_view suffix = text.substr(i);
	unsigned shift = 0;

	if (!suffix.empty()) {
		switch (std::toupper(static_cast<unsigned char>(suffix[0]))) {
		case 'K': shift = 10; break;
		case 'M': shift = 20; break;
		case 'G': shift = 30; break;
		case 'T': shift = 40; break;
		case 'B': shift = 0; break;
		default: return std::nullopt;
		}
		if (std::toupper(static_cast<unsigned char>(suffix[0])) != 'B') {
			suffix.remove_prefix(1);
			if (suffix == "i" || suffix == "iB" || suffix == "ib")
				suffix = {};
		}
		if (suffix == "B" || suffix == "b")
			suffix = {};
		if (!suffix.empty())
			return std::nullopt;
	}
	if (shift && v > (std::numeric_limits<uint64_t>::max() >> shift))
		return std::nullopt;
	return v << shift;
}

std::string format_size(uint64_t bytes)
{
	static const char units[] = "KMGT";
	int u = -1;

	while (bytes && bytes % 1024 == 0 && u < 3) {
		bytes /= 1024;
		u++;
	}
	std::string s = std::to_string(bytes);

	if (u >= 0)
		s += units[u];
	return s;
}

} // namespace vrnic::traffic
