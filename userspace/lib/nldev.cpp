// SPDX-License-Identifier: GPL-2.0-only
/*
 * libvrnic: RDMA netlink (nldev) through libmnl.
 *
 * Requests and their parsing follow iproute2's rdma tool: one message per
 * request, NLM_F_DUMP where the kernel can dump, the answer's attributes
 * indexed by type (nested tables parsed the same way).  The 6.1 kernel
 * dumps ports and resources one device at a time (RDMA_NLDEV_ATTR_DEV_INDEX
 * is required).
 */
#include "vrnic/nldev.hpp"

#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <functional>

#include <fmt/format.h>
#include <libmnl/libmnl.h>
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>

#include "vrnic/error.hpp"

namespace vrnic {

namespace {

using Attrs = std::array<const nlattr *, RDMA_NLDEV_ATTR_MAX>;

int store_attr(const nlattr *a, void *data)
{
	auto *tb = static_cast<Attrs *>(data);
	unsigned t = mnl_attr_get_type(a);
	if (t < tb->size())
		(*tb)[t] = a;
	return MNL_CB_OK;
}

Attrs parse(const nlmsghdr *nlh)
{
	Attrs tb{};
	mnl_attr_parse(nlh, 0, store_attr, &tb);
	return tb;
}

Attrs parse_nested(const nlattr *nest)
{
	Attrs tb{};
	mnl_attr_parse_nested(nest, store_attr, &tb);
	return tb;
}

/* Each attribute nested directly in @nest. */
template <typename F>
void for_each_nested(const nlattr *nest, F &&f)
{
	const char *payload = static_cast<const char *>(mnl_attr_get_payload(nest));
	const char *end = payload + mnl_attr_get_payload_len(nest);
	for (auto *a = reinterpret_cast<const nlattr *>(payload);
	     mnl_attr_ok(a, static_cast<int>(end - reinterpret_cast<const char *>(a)));
	     a = mnl_attr_next(a))
		f(a);
}

std::optional<std::uint32_t> u32(const Attrs &tb, int t)
{
	if (!tb[t])
		return std::nullopt;
	return mnl_attr_get_u32(tb[t]);
}

std::string str(const Attrs &tb, int t)
{
	return tb[t] ? std::string(mnl_attr_get_str(tb[t])) : std::string();
}

std::string proc_comm(std::uint32_t pid)
{
	std::ifstream f(fmt::format("/proc/{}/comm", pid));
	std::string s;
	std::getline(f, s);
	return s;
}

struct CbCtx {
	std::function<void(const nlmsghdr *)> fn;
};

int trampoline(const nlmsghdr *nlh, void *data)
{
	static_cast<CbCtx *>(data)->fn(nlh);
	return MNL_CB_OK;
}

} // namespace

std::string qp_type_name(unsigned t)
{
	/* enum ib_qp_type */
	static const char *const names[] = {"SMI", "GSI", "RC", "UC", "UD", "RAW_IPV6",
					    "RAW_ETHERTYPE", "UNKNOWN", "RAW_PACKET",
					    "XRC_INI", "XRC_TGT"};
	if (t < std::size(names))
		return names[t];
	return fmt::format("TYPE_{}", t);
}

std::string qp_state_name(unsigned s)
{
	/* enum ib_qp_state */
	static const char *const names[] = {"RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR"};
	if (s < std::size(names))
		return names[s];
	return fmt::format("STATE_{}", s);
}

void RdmaNetlink::SocketDeleter::operator()(mnl_socket *s) const noexcept
{
	mnl_socket_close(s);
}

RdmaNetlink::RdmaNetlink()
{
	sock_.reset(mnl_socket_open(NETLINK_RDMA));
	if (!sock_)
		throw Error(fmt::format("cannot open RDMA netlink: {}", std::strerror(errno)),
			    "load the RDMA core: modprobe ib_core");
	if (mnl_socket_bind(sock_.get(), 0, MNL_SOCKET_AUTOPID) < 0)
		throw Error(fmt::format("cannot bind RDMA netlink: {}", std::strerror(errno)));
	portid_ = mnl_socket_get_portid(sock_.get());
}

RdmaNetlink::~RdmaNetlink() = default;

template <typename Cb>
void RdmaNetlink::request(std::uint16_t op, bool dump, std::optional<std::uint32_t> dev_index,
			  Cb &&cb)
{
	/* Dumps of many QPs come in messages up to a page or two each. */
	std::vector<char> buf(32768);
	nlmsghdr *nlh = mnl_nlmsg_put_header(buf.data());
	nlh->nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, op);
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | (dump ? NLM_F_DUMP : 0);
	unsigned seq = ++seq_;
	nlh->nlmsg_seq = seq;
	if (dev_index)
		mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, *dev_index);
	if (mnl_socket_sendto(sock_.get(), nlh, nlh->nlmsg_len) < 0)
		throw Error(fmt::format("RDMA netlink request failed: {}", std::strerror(errno)));

	CbCtx ctx{std::forward<Cb>(cb)};
	int ret;
	do {
		ssize_t n = mnl_socket_recvfrom(sock_.get(), buf.data(), buf.size());
		if (n < 0)
			throw Error(fmt::format("RDMA netlink answer failed: {}",
						std::strerror(errno)));
		ret = mnl_cb_run(buf.data(), static_cast<size_t>(n), seq, portid_, trampoline,
				 &ctx);
	} while (ret > 0);
	if (ret < 0) {
		int e = errno;
		throw Error(fmt::format("the kernel refused RDMA netlink request {}: {}", op,
					std::strerror(e)),
			    e == EPERM ? "needs root (CAP_NET_ADMIN)" : "");
	}
}

std::vector<NlDevice> RdmaNetlink::devices()
{
	std::vector<NlDevice> out;
	request(RDMA_NLDEV_CMD_GET, true, std::nullopt, [&](const nlmsghdr *nlh) {
		auto tb = parse(nlh);
		if (auto i = u32(tb, RDMA_NLDEV_ATTR_DEV_INDEX))
			out.push_back({*i, str(tb, RDMA_NLDEV_ATTR_DEV_NAME)});
	});
	return out;
}

std::vector<NlPort> RdmaNetlink::ports(std::uint32_t dev_index)
{
	std::vector<NlPort> out;
	request(RDMA_NLDEV_CMD_PORT_GET, true, dev_index, [&](const nlmsghdr *nlh) {
		auto tb = parse(nlh);
		NlPort p;
		p.dev_index = u32(tb, RDMA_NLDEV_ATTR_DEV_INDEX).value_or(dev_index);
		p.dev = str(tb, RDMA_NLDEV_ATTR_DEV_NAME);
		p.port = u32(tb, RDMA_NLDEV_ATTR_PORT_INDEX).value_or(0);
		if (tb[RDMA_NLDEV_ATTR_NDEV_NAME])
			p.netdev = str(tb, RDMA_NLDEV_ATTR_NDEV_NAME);
		out.push_back(std::move(p));
	});
	return out;
}

std::map<std::string, std::uint64_t> RdmaNetlink::res_summary(std::uint32_t dev_index)
{
	std::map<std::string, std::uint64_t> out;
	request(RDMA_NLDEV_CMD_RES_GET, false, dev_index, [&](const nlmsghdr *nlh) {
		auto tb = parse(nlh);
		if (!tb[RDMA_NLDEV_ATTR_RES_SUMMARY])
			return;
		for_each_nested(tb[RDMA_NLDEV_ATTR_RES_SUMMARY], [&](const nlattr *e) {
			auto et = parse_nested(e);
			if (et[RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_NAME] &&
			    et[RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_CURR])
				out[str(et, RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_NAME)] =
					mnl_attr_get_u64(et[RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_CURR]);
		});
	});
	return out;
}

std::vector<QpInfo> RdmaNetlink::qps(std::uint32_t dev_index)
{
	std::vector<QpInfo> out;
	request(RDMA_NLDEV_CMD_RES_QP_GET, true, dev_index, [&](const nlmsghdr *nlh) {
		auto tb = parse(nlh);
		if (!tb[RDMA_NLDEV_ATTR_RES_QP])
			return;
		std::string dev = str(tb, RDMA_NLDEV_ATTR_DEV_NAME);
		for_each_nested(tb[RDMA_NLDEV_ATTR_RES_QP], [&](const nlattr *e) {
			auto q = parse_nested(e);
			if (!q[RDMA_NLDEV_ATTR_RES_LQPN])
				return;
			QpInfo qp;
			qp.dev = dev;
			qp.port = u32(q, RDMA_NLDEV_ATTR_PORT_INDEX);
			qp.lqpn = *u32(q, RDMA_NLDEV_ATTR_RES_LQPN);
			qp.rqpn = u32(q, RDMA_NLDEV_ATTR_RES_RQPN);
			qp.sq_psn = u32(q, RDMA_NLDEV_ATTR_RES_SQ_PSN);
			qp.rq_psn = u32(q, RDMA_NLDEV_ATTR_RES_RQ_PSN);
			if (q[RDMA_NLDEV_ATTR_RES_TYPE])
				qp.type = qp_type_name(mnl_attr_get_u8(q[RDMA_NLDEV_ATTR_RES_TYPE]));
			if (q[RDMA_NLDEV_ATTR_RES_STATE])
				qp.state = qp_state_name(mnl_attr_get_u8(q[RDMA_NLDEV_ATTR_RES_STATE]));
			qp.pid = u32(q, RDMA_NLDEV_ATTR_RES_PID);
			if (qp.pid)
				qp.comm = proc_comm(*qp.pid);
			else if (q[RDMA_NLDEV_ATTR_RES_KERN_NAME])
				qp.comm = "[" + str(q, RDMA_NLDEV_ATTR_RES_KERN_NAME) + "]";
			out.push_back(std::move(qp));
		});
	});
	return out;
}

} // namespace vrnic
