// SPDX-License-Identifier: GPL-2.0-only
/*
 * vrnic-traffic's TCP side channel: see channel.hpp.
 */

#include "channel.hpp"

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <thread>

namespace vrnic::traffic {

static std::runtime_error sys_error(const std::string &what)
{
	return std::runtime_error(what + ": " + std::strerror(errno));
}

static void set_nodelay(int fd)
{
	int one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

Channel Channel::accept_one(uint16_t port, int timeout_ms)
{
	Fd ls(::socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0));
	int one = 1, zero = 0;

	if (ls.get() < 0)
		throw sys_error("socket");
	setsockopt(ls.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	/* Accept IPv4 clients too. */
	setsockopt(ls.get(), IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));

	sockaddr_in6 sa{};

	sa.sin6_family = AF_INET6;
	sa.sin6_port = htons(port);
	sa.sin6_addr = in6addr_any;
	if (::bind(ls.get(), reinterpret_cast<sockaddr *>(&sa), sizeof(sa)) < 0)
		throw sys_error("bind to TCP port " + std::to_string(port) +
				" (is another server running? pick one with --port)");
	if (::listen(ls.get(), 1) < 0)
		throw sys_error("listen");

	pollfd p{ls.get(), POLLIN, 0};
	int n = ::poll(&p, 1, timeout_ms);

	if (n < 0)
		throw sys_error("poll");
	if (n == 0)
		throw std::runtime_error("no client connected to TCP port " +
					 std::to_string(port) + " within " +
					 std::to_string(timeout_ms / 1000) + " s");
	Fd c(::accept4(ls.get(), nullptr, nullptr, SOCK_CLOEXEC));

	if (c.get() < 0)
		throw sys_error("accept");
	set_nodelay(c.get());
	return Channel(std::move(c));
}

Channel Channel::connect_to(const std::string &host, uint16_t port,
			    int timeout_ms)
{
	auto end = std::chrono::steady_clock::now() +
		   std::chrono::milliseconds(timeout_ms);
	std::string last = "no address";

	for (;;) {
		addrinfo hints{}, *res = nullptr;

		hints.ai_socktype = SOCK_STREAM;
		int rc = ::getaddrinfo(host.c_str(), std::to_string(port).c_str(),
				       &hints, &res);
		if (rc)
			throw std::runtime_error("cannot resolve " + host + ": " +
						 gai_strerror(rc));
		std::unique_ptr<addrinfo, void (*)(addrinfo *)> guard(res, freeaddrinfo);

		for (addrinfo *ai = res; ai; ai = ai->ai_next) {
			Fd fd(::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC,
				       ai->ai_protocol));

			if (fd.get() < 0)
				continue;
			if (::connect(fd.get(), ai->ai_addr, ai->ai_addrlen) == 0) {
				set_nodelay(fd.get());
				return Channel(std::move(fd));
			}
			last = std::strerror(errno);
		}
		if (std::chrono::steady_clock::now() >= end)
			throw std::runtime_error("cannot connect to " + host + ":" +
						 std::to_string(port) + ": " + last +
						 " (is the server running?)");
		std::this_thread::sleep_for(std::chrono::milliseconds(100));
	}
}

void Channel::send(const nlohmann::json &msg)
{
	std::string line = msg.dump() + "\n";
	size_t off = 0;

	while (off < line.size()) {
		ssize_t n = ::send(fd_.get(), line.data() + off, line.size() - off,
				   MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			throw sys_error("send on the TCP side channel");
		}
		off += static_cast<size_t>(n);
	}
}

std::optional<nlohmann::json> Channel::take_line()
{
	size_t nl = buf_.find('\n');

	if (nl == std::string::npos)
		return std::nullopt;
	std::string line = buf_.substr(0, nl);

	buf_.erase(0, nl + 1);
	try {
		return nlohmann::json::parse(line);
	} catch (const nlohmann::json::exception &e) {
		throw std::runtime_error("bad message on the TCP side channel: " +
					 std::string(e.what()));
	}
}

std::optional<nlohmann::json> Channel::recv(int timeout_ms)
{
	auto end = std::chrono::steady_clock::now() +
		   std::chrono::milliseconds(timeout_ms);

	for (;;) {
		if (auto m = take_line())
			return m;
		if (eof_)
			return std::nullopt;
		int left = static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(
			end - std::chrono::steady_clock::now()).count());
		pollfd p{fd_.get(), POLLIN, 0};
		int n = ::poll(&p, 1, left > 0 ? left : 0);

		if (n < 0 && errno != EINTR)
			throw sys_error("poll on the TCP side channel");
		if (n <= 0) {
			if (left <= 0)
				return std::nullopt;
			continue;
		}
		char chunk[4096];
		ssize_t r = ::recv(fd_.get(), chunk, sizeof(chunk), 0);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			throw sys_error("recv on the TCP side channel");
		}
		if (r == 0)
			eof_ = true;
		buf_.append(chunk, static_cast<size_t>(r));
	}
}

} // namespace vrnic::traffic
