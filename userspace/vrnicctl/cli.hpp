// SPDX-License-Identifier: GPL-2.0-only
/*
 * vrnicctl's grammar, after iproute2's rdma tool:
 *
 *   vrnicctl [OPTIONS] OBJECT [COMMAND] [ARGS]...
 *
 * The first command of an object is its default; objects and commands may
 * be abbreviated to any prefix that is not ambiguous.
 */
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "vrnic/counters.hpp"
#include "vrnic/sysfs.hpp"
#include "vrnic/system.hpp"

namespace vrnicctl {

inline constexpr std::string_view version = "0.1.0";

/* Everything a command touches, so tests can substitute each part. */
struct Context {
	vrnic::Sysfs fs;
	vrnic::SystemQuery &sys;
	std::ostream &out;
	std::ostream &err;
	std::function<vrnic::Clock::time_point()> now = vrnic::Clock::now;
	/* Wait @d; false when the user asked to stop (q, SIGINT). */
	std::function<bool(std::chrono::milliseconds)> wait;
	/*
	 * Write a knob file: 0 or an errno.  Unset: fs.write.  (Tests answer
	 * as the kernel would refuse: EINVAL, EBUSY, EOPNOTSUPP.)
	 */
	std::function<int(const std::filesystem::path &, std::string_view)> write_attr;

	int write(const std::filesystem::path &p, std::string_view v) const
	{
		return write_attr ? write_attr(p, v) : fs.write(p, v);
	}
};

struct Options {
	bool json = false;
	bool pretty = false;
};

/* The words after the command, consumed left to right. */
class Args {
public:
	explicit Args(std::vector<std::string> words) : words_(std::move(words)) {}
	bool empty() const { return pos_ >= words_.size(); }
	const std::string &peek() const { return words_[pos_]; }
	std::string next() { return words_[pos_++]; }
	/* The value after option @opt; UsageError when there is none. */
	std::string value_of(std::string_view opt);

private:
	std::vector<std::string> words_;
	size_t pos_ = 0;
};

/*
 * The index of @word in @names: an exact match, else the only name it is a
 * prefix of.  UsageError naming the candidates when it matches several,
 * or listing @names when it matches none (@what: "object", "command").
 */
size_t match_prefix(std::string_view word, std::span<const std::string_view> names,
		    std::string_view what);

/* Run one command line (without argv[0]); returns the exit status. */
int run(const std::vector<std::string> &argv, Context &ctx);

/* Parse a positive number of seconds ("0.5", "2"). */
double parse_seconds(std::string_view s, std::string_view opt);

} // namespace vrnicctl
