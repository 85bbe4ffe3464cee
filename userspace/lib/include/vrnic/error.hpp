// SPDX-License-Identifier: GPL-2.0-only
/*
 * libvrnic errors: what went wrong, and what to do next.
 */
#pragma once

#include <stdexcept>
#include <string>

namespace vrnic {

/*
 * A failure the user can act on.  what() says what went wrong; hint() says
 * what to do about it (may be empty).
 */
class Error : public std::runtime_error {
public:
	explicit Error(const std::string &what, std::string hint = {})
		: std::runtime_error(what), hint_(std::move(hint)) {}
	const std::string &hint() const noexcept { return hint_; }

private:
	std::string hint_;
};

/* A command line that does not follow the grammar (exit status 2). */
class UsageError : public Error {
public:
	using Error::Error;
};

} // namespace vrnic
