// SPDX-License-Identifier: GPL-2.0-only
/*
 * Data patterns for byte-exact checks. The byte at message offset i under seed
 * s is a hash of (s, i), so a shifted, truncated, duplicated or misrouted copy
 * never matches by accident, and two buffers filled with different seeds
 * differ almost everywhere.
 */
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>

namespace vrnic::test {

/* Seed for guard areas around a target that must stay untouched. */
constexpr uint32_t kGuardSeed = 0x6a09e667;

inline uint8_t pattern_byte(uint32_t seed, uint64_t offset)
{
	uint64_t x = offset * 0x9e3779b97f4a7c15ull +
		     (seed + 1ull) * 0xd1b54a32d192ed03ull;

	x ^= x >> 31;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 29;
	return static_cast<uint8_t>(x);
}

inline void fill_pattern(uint8_t *p, size_t n, uint32_t seed,
			 uint64_t offset0 = 0)
{
	for (size_t i = 0; i < n; i++)
		p[i] = pattern_byte(seed, offset0 + i);
}

/*
 * Compare p[0, n) with the pattern for message offsets [offset0, offset0 + n);
 * on mismatch report the first differing offset and the number of bad bytes.
 */
inline ::testing::AssertionResult matches_pattern(const uint8_t *p, size_t n,
						  uint32_t seed,
						  uint64_t offset0 = 0)
{
	size_t bad = 0, first = 0;

	for (size_t i = 0; i < n; i++) {
		if (p[i] != pattern_byte(seed, offset0 + i)) {
			if (!bad)
				first = i;
			bad++;
		}
	}
	if (!bad)
		return ::testing::AssertionSuccess();

	char msg[160];

	std::snprintf(msg, sizeof(msg),
		      "%zu of %zu bytes differ; first at offset %zu: "
		      "expected 0x%02x, got 0x%02x (seed 0x%x)",
		      bad, n, first,
		      pattern_byte(seed, offset0 + first), p[first], seed);
	return ::testing::AssertionFailure() << msg;
}

} // namespace vrnic::test
