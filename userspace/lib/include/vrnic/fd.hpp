// SPDX-License-Identifier: GPL-2.0-only
/*
 * A file descriptor that closes itself: movable, not copyable.
 */
#pragma once

#include <unistd.h>

namespace vrnic {

class Fd {
public:
	Fd() = default;
	explicit Fd(int fd) : fd_(fd) {}
	Fd(Fd &&o) noexcept : fd_(o.release()) {}
	Fd &operator=(Fd &&o) noexcept
	{
		if (this != &o) {
			reset();
			fd_ = o.release();
		}
		return *this;
	}
	Fd(const Fd &) = delete;
	Fd &operator=(const Fd &) = delete;
	~Fd() { reset(); }

	int get() const { return fd_; }
	int release()
	{
		int fd = fd_;

		fd_ = -1;
		return fd;
	}

private:
	void reset()
	{
		if (fd_ >= 0)
			::close(fd_);
		fd_ = -1;
	}

	int fd_ = -1;
};

} // namespace vrnic
