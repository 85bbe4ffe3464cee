// SPDX-License-Identifier: GPL-2.0-only
/*
 * vrnic-bench: registering an MR per I/O against reusing one.
 *
 * perftest registers its buffers once; a storage or RPC stack that
 * registers each I/O's buffer pays pinning, DMA mapping and the MTT write
 * every time (and the MR cache misses on every new key).  This workload
 * connects an RC QP on one device to one on another, in one process, and
 * RDMA WRITEs @ios messages of @size bytes one at a time, either from one
 * MR registered up front or from a buffer registered before and
 * deregistered after each WRITE.
 *
 * Copyright (c) 2026 The vrnic authors
 */
#pragma once

#include <cstdint>
#include <string>

namespace vrnic::bench {

struct MrRegRun {
	std::string requester, responder;	/* device names */
	int requester_gid = 0, responder_gid = 0;
	uint32_t size = 4096;
	uint32_t ios = 1000;
	bool per_io = false;
};

/* Writes per second over the run; throws vrnic::Error on any verbs failure. */
double run_mr_reg(const MrRegRun &r);

} // namespace vrnic::bench
