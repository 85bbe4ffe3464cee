// SPDX-License-Identifier: GPL-2.0-only
/*
 * One vrnic-traffic run: an RC QP between a client and a server, connected
 * over the TCP side channel, carrying one op's traffic with every byte
 * checked.
 *
 *   send    the client SENDs message i (pattern (seed, i)); the server
 *           checks its length and bytes in arrival order.
 *   write   the client RDMA WRITEs message i into server slot i % depth,
 *           then a zero-length WRITE_WITH_IMM carrying i; the server checks
 *           the slot when the immediate arrives.
 *   read    the server fills slot s with message s; the client READs slot
 *           i % depth and checks it (its buffer is poisoned before each).
 *   atomic  FETCH_AND_ADD and CMP_AND_SWP on eight server counters; every
 *           returned original value is predicted (AtomicModel) and the
 *           server checks the final counters.
 *
 * For send and write the server returns a credit (an 8-byte SEND) per
 * checked message, and the client keeps at most depth unchecked messages,
 * so no slot is overwritten before it is checked and no SEND meets an empty
 * receive queue.
 */
#pragma once

#include "result.hpp"

#include <cstdint>
#include <string>

namespace vrnic::traffic {

struct Options {
	std::string device;
	int gid_index = -1;		/* -1: the first IPv4-mapped GID */
	uint8_t ib_port = 1;
	uint16_t port = 18516;		/* TCP side channel */
	std::string server;		/* empty: be the server */
	Op op = Op::Write;
	uint64_t bytes = 16ull << 20;
	uint32_t size = 65536;
	uint32_t depth = 16;
	uint8_t timeout = 14;		/* local ACK timeout: 4.096 us << timeout */
	uint8_t retry = 7;
	uint8_t rnr_retry = 7;
	uint32_t seed = 1;
	double deadline_s = 300;	/* watchdog: give up and report a hang */
	bool allow_retry_exceeded = false;
	bool json = false;
};

/* Run the client or the server; returns the exit code. */
int run_client(const Options &o);
int run_server(const Options &o);

} // namespace vrnic::traffic
