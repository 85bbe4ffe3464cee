// SPDX-License-Identifier: GPL-2.0-only
/*
 * vrnic-bench: the built-in verbs workloads, for what perftest does not do.
 * Each connects RC QPs on one device to QPs on another, in one process,
 * and RDMA WRITEs from the first to the second.
 *
 * mr-reg: registering an MR per I/O against reusing one.  perftest
 * registers its buffers once; a storage or RPC stack that registers each
 * I/O's buffer pays pinning, DMA mapping and the MTT write every time (and
 * the MR cache misses on every new key).  @ios WRITEs of @size bytes, one
 * at a time, from one MR registered up front or from a buffer registered
 * before and deregistered after each WRITE.
 *
 * working-set: @msgs WRITEs of @size bytes, @depth in flight, spread round
 * robin over @qps QPs and @mrs MRs (message k goes on QP k mod @qps, from
 * local MR k mod @mrs to remote MR k mod @mrs, each MR its own 4 KiB page).
 * perftest posts each QP's WRs in bursts from one MR, so a cache hits
 * within a burst however small it is; an application that spreads its
 * I/O over its MRs and QPs, as this does, touches each once per round
 * and thrashes an LRU cache smaller than its working set.
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

struct WorkingSetRun {
	std::string requester, responder;
	int requester_gid = 0, responder_gid = 0;
	uint32_t size = 64;
	uint32_t qps = 1, mrs = 1;
	uint32_t msgs = 1000;
	uint32_t depth = 16;
};

struct WorkingSetResult {
	double msgs_per_s = 0;		/* 0 if the devices refused a QP */
	uint32_t qps_created = 0;	/* on the device that took fewer */
	std::string refused;		/* why QP creation stopped, if it did */
};

/*
 * Runs @r; a device that refuses a QP (qpc.mode onchip, all contexts
 * taken) is a result, not an error: nothing is sent then.  Throws
 * vrnic::Error on any other verbs failure.
 */
WorkingSetResult run_working_set(const WorkingSetRun &r);

} // namespace vrnic::bench
