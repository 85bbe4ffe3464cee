// SPDX-License-Identifier: GPL-2.0-only
/*
 * vrnic-traffic data patterns and the atomic sequence: see pattern.hpp.
 */

#include "pattern.hpp"

#include <cstdio>
#include <cstring>

namespace vrnic::traffic {

static uint64_t mix(uint64_t x)
{
	/* splitmix64's finalizer */
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 31;
	return x;
}

uint64_t pattern_word(uint32_t seed, uint64_t msg, uint64_t word)
{
	return mix(word * 0x9e3779b97f4a7c15ull ^
		   mix(msg * 0xd1b54a32d192ed03ull + seed + 1));
}

uint8_t pattern_byte(uint32_t seed, uint64_t msg, uint64_t offset)
{
	return static_cast<uint8_t>(pattern_word(seed, msg, offset / 8) >>
				    (8 * (offset % 8)));
}

/* Little-endian bytes of one word, whatever the host's byte order. */
static void put_le(uint8_t *p, uint64_t v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = static_cast<uint8_t>(v >> (8 * i));
}

void fill_pattern(std::span<uint8_t> buf, uint32_t seed, uint64_t msg)
{
	uint64_t base = mix(msg * 0xd1b54a32d192ed03ull + seed + 1);
	size_t n = buf.size(), w;

	for (w = 0; (w + 1) * 8 <= n; w++) {
		uint8_t b[8];

		put_le(b, mix(w * 0x9e3779b97f4a7c15ull ^ base), 8);
		std::memcpy(buf.data() + w * 8, b, 8);
	}
	if (w * 8 < n)
		put_le(buf.data() + w * 8,
		       mix(w * 0x9e3779b97f4a7c15ull ^ base), n - w * 8);
}

std::optional<Mismatch> check_pattern(std::span<const uint8_t> buf,
				      uint32_t seed, uint64_t msg)
{
	uint64_t base = mix(msg * 0xd1b54a32d192ed03ull + seed + 1);
	size_t n = buf.size();
	std::optional<Mismatch> bad;

	for (size_t w = 0; w * 8 < n; w++) {
		size_t len = n - w * 8 < 8 ? n - w * 8 : 8;
		uint8_t want[8];

		put_le(want, mix(w * 0x9e3779b97f4a7c15ull ^ base), len);
		if (std::memcmp(want, buf.data() + w * 8, len) == 0)
			continue;
		for (size_t i = 0; i < len; i++) {
			if (want[i] == buf[w * 8 + i])
				continue;
			if (!bad) {
				bad = Mismatch{w * 8 + i, want[i],
					       buf[w * 8 + i], 0};
			}
			bad->bad_bytes++;
		}
	}
	return bad;
}

std::string Mismatch::describe(uint64_t msg) const
{
	char s[160];

	std::snprintf(s, sizeof(s),
		      "message %llu: %llu bytes differ, first at offset %llu "
		      "(expected 0x%02x, got 0x%02x)",
		      static_cast<unsigned long long>(msg),
		      static_cast<unsigned long long>(bad_bytes),
		      static_cast<unsigned long long>(offset), expected, got);
	return s;
}

std::vector<uint64_t> AtomicModel::initial(uint32_t seed)
{
	std::vector<uint64_t> v(kCounters);

	for (uint32_t i = 0; i < kCounters; i++)
		v[i] = mix(0xa0761d6478bd642full * (i + 1) + seed);
	return v;
}

AtomicModel::AtomicModel(uint32_t seed) : seed_(seed), values_(initial(seed))
{
}

AtomicOp AtomicModel::next()
{
	uint64_t i = index_++;
	uint64_t r = mix(i * 0xe7037ed1a0b428dbull + seed_);
	AtomicOp op{};

	op.counter = static_cast<uint32_t>(i % kCounters);
	uint64_t &v = values_[op.counter];

	op.expect = v;
	if (i % 11 == 7) {
		op.cmp_swap = true;
		op.compare = v;
		op.swap = r;
		v = r;
	} else if (i % 11 == 3) {
		op.cmp_swap = true;
		op.compare = v + 1;
		op.swap = r;
	} else {
		op.add = r >> 8;
		v += op.add;
	}
	return op;
}

std::vector<uint64_t> atomic_final(uint32_t seed, uint64_t count)
{
	AtomicModel m(seed);

	while (m.issued() < count)
		m.next();
	return m.values();
}

} // namespace vrnic::traffic
