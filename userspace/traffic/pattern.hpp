// SPDX-License-Identifier: GPL-2.0-only
/*
 * What vrnic-traffic puts on the wire and how it checks what arrived.
 *
 * Message m under seed s is a stream of 64-bit words, word w being a hash of
 * (s, m, w) stored little-endian; a message's bytes are that stream cut to its
 * length.  A shifted, truncated, duplicated, stale or misrouted message
 * never matches by accident, and eight bytes come out of one hash, which
 * keeps a TCG guest's CPU out of the measurement.
 *
 * Atomics: AtomicModel replays the sequence of FETCH_AND_ADD and
 * CMP_AND_SWP operations the client issues, so both sides know what each
 * operation must return (the QP executes its atomics in order) and what the
 * counters hold at the end.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace vrnic::traffic {

uint64_t pattern_word(uint32_t seed, uint64_t msg, uint64_t word);
uint8_t pattern_byte(uint32_t seed, uint64_t msg, uint64_t offset);

/* Fill @buf with message @msg's first buf.size() bytes. */
void fill_pattern(std::span<uint8_t> buf, uint32_t seed, uint64_t msg);

struct Mismatch {
	uint64_t offset = 0;	/* first differing byte in the message */
	uint8_t expected = 0;
	uint8_t got = 0;
	uint64_t bad_bytes = 0;	/* how many bytes differ in all */

	std::string describe(uint64_t msg) const;
};

/* Compare @buf with message @msg; nullopt when every byte matches. */
std::optional<Mismatch> check_pattern(std::span<const uint8_t> buf,
				      uint32_t seed, uint64_t msg);

/* One atomic operation of the client's sequence. */
struct AtomicOp {
	uint32_t counter;	/* index of the 8-byte target */
	bool cmp_swap;		/* CMP_AND_SWP, else FETCH_AND_ADD */
	uint64_t add;		/* FETCH_AND_ADD: the addend */
	uint64_t compare;	/* CMP_AND_SWP: compare and swap values */
	uint64_t swap;
	uint64_t expect;	/* the original value the op must return */
};

class AtomicModel {
public:
	static constexpr uint32_t kCounters = 8;

	explicit AtomicModel(uint32_t seed);

	/* The counters' values before the first operation. */
	static std::vector<uint64_t> initial(uint32_t seed);
	/*
	 * Operation @index (operations are issued in index order) and the
	 * model's state after it.  Operation i targets counter i % 8; when
	 * i % 11 is 7 it is a CMP_AND_SWP that must succeed, when 3 one that
	 * must fail (its compare value is off by one), so both paths of the
	 * responder are verified; the rest are FETCH_AND_ADDs.
	 */
	AtomicOp next();
	const std::vector<uint64_t> &values() const { return values_; }
	uint64_t issued() const { return index_; }

private:
	uint32_t seed_;
	uint64_t index_ = 0;
	std::vector<uint64_t> values_;
};

/* The counters after @count operations under @seed. */
std::vector<uint64_t> atomic_final(uint32_t seed, uint64_t count);

} // namespace vrnic::traffic
