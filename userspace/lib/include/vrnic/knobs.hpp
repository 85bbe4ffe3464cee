// SPDX-License-Identifier: GPL-2.0-only
/*
 * The hardware model's knobs: the one table userspace has of their names,
 * units, ranges, defaults and meanings, and the validation that explains a
 * bad value before anything is written.
 *
 * The kernel's contract: one file per knob, flat in one directory (the RDMA
 * core's per-device attribute group "model" makes only one level), at
 * /sys/class/infiniband/<dev>/model/<block>.<knob>; reading gives the value
 * (a decimal integer, or for modes the choices with the current one in
 * brackets: "[off] account"); writing sets it.  The kernel answers -EINVAL
 * for a value out of range (and logs the accepted range), -EINVAL or
 * -EOPNOTSUPP for a choice it does not implement yet, and -EBUSY for a knob
 * that cannot change while the device has live resources.  A kernel may
 * have only some of the table's knobs (blocks arrive over time) and knobs
 * the table does not know.
 */
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "vrnic/sysfs.hpp"

namespace vrnic {

enum class KnobKind {
	range,		/* an integer in [min, max] */
	set,		/* one of a list of integers */
	keyword,	/* one of a list of words */
};

struct Knob {
	std::string_view name;		/* "<block>.<knob>" */
	std::string_view unit;		/* "bytes", "ns", ... or "" */
	KnobKind kind = KnobKind::range;
	std::int64_t min = 0, max = 0;			/* range */
	std::vector<std::int64_t> values;		/* set */
	std::vector<std::string_view> words;		/* keyword */
	std::string_view def;		/* the default, as written */
	std::string_view meaning;	/* one line */

	std::string_view block() const { return name.substr(0, name.find('.')); }
	std::string_view file() const { return name.substr(name.find('.') + 1); }
};

/* Every knob vrnicctl knows, block by block. */
std::span<const Knob> knob_table();

/* The knob named @name ("pcie.mps"), or nullptr. */
const Knob *find_knob(std::string_view name);

/* "1..5", "128 256 512", "onchip host". */
std::string knob_range(const Knob &k);

/*
 * nullopt when @value is valid for @k, else the message that explains it:
 * "pcie.mps must be one of 128 256 512 1024 2048 4096 (bytes); got 100".
 */
std::optional<std::string> knob_check(const Knob &k, std::string_view value);

/*
 * A knob file's contents as a value: trimmed; for a "[a] b c" choice list
 * the selected word.
 */
std::string knob_value_text(std::string_view raw);

/*
 * The choices a keyword knob file lists ("[off] account" -> off account);
 * empty when @raw is a bare value (no brackets).
 */
std::vector<std::string> knob_choices(std::string_view raw);

/* The block of a knob name: "pcie" of "pcie.mps" (all of a name without '.'). */
std::string_view knob_block(std::string_view name);

struct KnobValue {
	std::string name;		/* "<block>.<knob>" */
	std::string value;		/* as read */
	const Knob *knob = nullptr;	/* nullptr: not in the table */
};

/* Does @dev have the model/ directory? */
bool has_model(const Sysfs &fs, std::string_view dev);

/*
 * Every knob file of @dev's model/ (only those of @block, the part of the
 * file name before the first '.', when given), known knobs in table order,
 * then unknown ones by name.  Throws Error listing the blocks present when
 * @block is given and no file has it.
 */
std::vector<KnobValue> read_knobs(const Sysfs &fs, std::string_view dev,
				  std::string_view block = {});

/* model/<block>.<knob> of @dev for a "<block>.<knob>" name. */
std::filesystem::path knob_path(const Sysfs &fs, std::string_view dev,
				std::string_view name);

} // namespace vrnic
