// SPDX-License-Identifier: GPL-2.0-only
/*
 * RDMA netlink (NETLINK_RDMA, the nldev client) through libmnl, as
 * iproute2's rdma tool uses it: devices and their indexes, ports and
 * their netdevs, resource counts, and the QP resource dump.
 */
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

struct mnl_socket;

namespace vrnic {

struct NlDevice {
	std::uint32_t index = 0;
	std::string name;
};

struct NlPort {
	std::uint32_t dev_index = 0;
	std::string dev;
	std::uint32_t port = 0;
	std::optional<std::string> netdev;
};

struct QpInfo {
	std::string dev;
	std::optional<std::uint32_t> port;
	std::uint32_t lqpn = 0;
	std::optional<std::uint32_t> rqpn;
	std::string type;	/* "RC", "UD", "GSI"... */
	std::string state;	/* "RESET", "INIT", "RTS"... */
	std::optional<std::uint32_t> sq_psn;
	std::optional<std::uint32_t> rq_psn;
	std::optional<std::uint32_t> pid;	/* user QPs */
	std::string comm;	/* /proc/<pid>/comm, or "[kernel name]" */
};

/* ib_qp_type and ib_qp_state as rdma names them. */
std::string qp_type_name(unsigned t);
std::string qp_state_name(unsigned s);

class RdmaNetlink {
public:
	/* Throws Error when the RDMA netlink family is not there (no ib_core). */
	RdmaNetlink();
	~RdmaNetlink();
	RdmaNetlink(const RdmaNetlink &) = delete;
	RdmaNetlink &operator=(const RdmaNetlink &) = delete;

	std::vector<NlDevice> devices();
	/* The ports of one device (the kernel dumps them per device). */
	std::vector<NlPort> ports(std::uint32_t dev_index);
	/* Resource counts by name ("qp", "mr", "pd", "cq"...). */
	std::map<std::string, std::uint64_t> res_summary(std::uint32_t dev_index);
	/* QPs of one device (the kernel dumps them per device). */
	std::vector<QpInfo> qps(std::uint32_t dev_index);

private:
	struct SocketDeleter {
		void operator()(mnl_socket *s) const noexcept;
	};
	/* Send one request and feed every answer to @cb. */
	template <typename Cb>
	void request(std::uint16_t op, bool dump, std::optional<std::uint32_t> dev_index,
		     Cb &&cb);

	std::unique_ptr<mnl_socket, SocketDeleter> sock_;
	std::uint32_t portid_ = 0;
	std::uint32_t seq_ = 0;
};

} // namespace vrnic
