// SPDX-License-Identifier: GPL-2.0-only
/*
 * The outcome of one vrnic-traffic run: what each side saw, the verdict and
 * exit code, and one print path for text and -j JSON (same kebab-case keys).
 */
#pragma once

#include <infiniband/verbs.h>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace vrnic::traffic {

enum class Op { Send, Write, Read, Atomic };

std::string_view op_name(Op op);
std::optional<Op> parse_op(std::string_view name);

/* "success", "retry-exc-err", "wr-flush-err", ...: IBV_WC_* in kebab case. */
std::string wc_status_name(ibv_wc_status status);

/* Exit codes. */
constexpr int kExitOk = 0;
constexpr int kExitFail = 1;
constexpr int kExitUsage = 2;
constexpr int kExitRetryExceeded = 3;

/* One side's view. */
struct SideReport {
	/*
	 * "ok": everything this side had to do completed with success and
	 * verified; "mismatch", "error" (an error completion or a failed
	 * verb), "deadline" (the --deadline watchdog fired), "aborted" (the
	 * peer ended the run), "no-report" (the peer never answered).
	 */
	std::string status = "ok";
	std::string detail;
	uint64_t messages = 0;		/* messages completed (and verified) */
	uint64_t bytes_verified = 0;
	uint64_t mismatches = 0;	/* messages that failed verification */
	std::string first_mismatch;
	std::string first_error;	/* wc_status_name of the first error */
	std::map<std::string, uint64_t> completions;	/* by status name */

	void count(ibv_wc_status status);
	/* Every error completion besides the first is a flush. */
	bool only_flushes_after_first_error() const;
};

nlohmann::json to_json(const SideReport &s);
SideReport side_from_json(const nlohmann::json &j);

struct Result {
	Op op = Op::Send;
	uint64_t bytes_requested = 0;
	uint64_t messages_requested = 0;
	uint32_t size = 0;
	uint32_t depth = 0;
	uint32_t seed = 0;
	double elapsed_s = 0;
	SideReport client;
	SideReport server;

	/* Bytes verified by the side that checks this op's data. */
	uint64_t bytes_verified() const;
	double mb_per_s() const;
};

struct Verdict {
	std::string status;	/* ok, mismatch, deadline, retry-exceeded, error, incomplete */
	int exit_code;
};

Verdict judge(const Result &r, bool allow_retry_exceeded);

nlohmann::json to_json(const Result &r, const Verdict &v);
std::string to_text(const Result &r, const Verdict &v);

} // namespace vrnic::traffic
