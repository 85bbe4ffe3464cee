// SPDX-License-Identifier: GPL-2.0-only
/*
 * The TCP side channel between vrnic-traffic's client and server: one JSON
 * object per line (the QP exchange, then "done" and "report").
 */
#pragma once

#include <nlohmann/json.hpp>
#include <vrnic/fd.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace vrnic::traffic {

using vrnic::Fd;

class Channel {
public:
	/* Listen on every address of @port, accept one client. */
	static Channel accept_one(uint16_t port, int timeout_ms);
	/* Connect to @host:@port, retrying until @timeout_ms passed. */
	static Channel connect_to(const std::string &host, uint16_t port,
				  int timeout_ms);

	void send(const nlohmann::json &msg);
	/* The next message, waiting up to @timeout_ms; nullopt on timeout. */
	std::optional<nlohmann::json> recv(int timeout_ms);
	/* A message that already arrived, without waiting. */
	std::optional<nlohmann::json> poll_recv() { return recv(0); }
	int fd() const { return fd_.get(); }
	/* The peer closed the connection. */
	bool closed() const { return eof_; }

private:
	explicit Channel(Fd fd) : fd_(std::move(fd)) {}
	std::optional<nlohmann::json> take_line();

	Fd fd_;
	std::string buf_;
	bool eof_ = false;
};

} // namespace vrnic::traffic
