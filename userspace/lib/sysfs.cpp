// SPDX-License-Identifier: GPL-2.0-only
/*
 * libvrnic: sysfs attributes under a configurable root.
 */
#include "vrnic/sysfs.hpp"
#include "vrnic/fd.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <fcntl.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace vrnic {

Sysfs::Sysfs(fs::path root) : root_(std::move(root)) {}

Sysfs Sysfs::from_env()
{
	const char *r = std::getenv("VRNIC_SYSFS_ROOT");
	return Sysfs(r && *r ? fs::path(r) : fs::path("/sys"));
}

fs::path Sysfs::dev_path(std::string_view dev) const
{
	return root_ / "class/infiniband" / std::string(dev);
}

std::vector<std::string> Sysfs::rdma_devices() const
{
	return list(root_ / "class/infiniband");
}

bool Sysfs::exists(const fs::path &p) const
{
	std::error_code ec;
	return fs::exists(p, ec);
}

std::vector<std::string> Sysfs::list(const fs::path &p) const
{
	std::vector<std::string> names;
	std::error_code ec;
	for (fs::directory_iterator it(p, ec), end; !ec && it != end; it.increment(ec))
		names.push_back(it->path().filename().string());
	std::sort(names.begin(), names.end());
	return names;
}

std::optional<std::string> Sysfs::read(const fs::path &p) const
{
	Fd fd(::open(p.c_str(), O_RDONLY | O_CLOEXEC));
	if (fd.get() < 0)
		return std::nullopt;
	std::string s;
	char buf[4096];
	for (;;) {
		ssize_t n = ::read(fd.get(), buf, sizeof(buf));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return std::nullopt;
		}
		if (n == 0)
			break;
		s.append(buf, static_cast<size_t>(n));
	}
	while (!s.empty() && (s.back() == '\n' || s.back() == ' '))
		s.pop_back();
	return s;
}

int Sysfs::write(const fs::path &p, std::string_view value) const
{
	Fd fd(::open(p.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC));
	if (fd.get() < 0)
		return errno;
	ssize_t n;
	do {
		n = ::write(fd.get(), value.data(), value.size());
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return errno;
	if (static_cast<size_t>(n) != value.size())
		return EIO;
	return 0;
}

} // namespace vrnic
