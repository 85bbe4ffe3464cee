// SPDX-License-Identifier: GPL-2.0-only
/*
 * Reading and writing sysfs attributes under a configurable root, so that
 * tests can point libvrnic at a fake tree in a temporary directory.
 */
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace vrnic {

class Sysfs {
public:
	/* @root: where sysfs is mounted ("/sys"), or a fake tree. */
	explicit Sysfs(std::filesystem::path root = "/sys");

	/*
	 * The root named by $VRNIC_SYSFS_ROOT when it is set, else /sys.
	 * (For tests and for inspecting a copied tree.)
	 */
	static Sysfs from_env();

	const std::filesystem::path &root() const noexcept { return root_; }

	/* /sys/class/infiniband/<dev>, relative paths below it. */
	std::filesystem::path dev_path(std::string_view dev) const;

	/* Names of every RDMA device, sorted. */
	std::vector<std::string> rdma_devices() const;

	bool exists(const std::filesystem::path &p) const;

	/* The entries of directory @p, sorted; empty when it does not exist. */
	std::vector<std::string> list(const std::filesystem::path &p) const;

	/*
	 * The attribute's contents without the trailing newline, or nullopt
	 * when it does not exist or cannot be read (some attributes refuse
	 * reads with an errno, e.g. a GID type of an empty table entry).
	 */
	std::optional<std::string> read(const std::filesystem::path &p) const;

	/*
	 * Write @value to the attribute in one write(2), as sysfs wants.
	 * Returns 0 or the errno of the open or the write.
	 */
	int write(const std::filesystem::path &p, std::string_view value) const;

private:
	std::filesystem::path root_;
};

} // namespace vrnic
