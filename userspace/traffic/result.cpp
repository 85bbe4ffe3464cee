// SPDX-License-Identifier: GPL-2.0-only
/*
 * vrnic-traffic results: see result.hpp.
 */

#include "result.hpp"

#include <array>
#include <cstdio>

namespace vrnic::traffic {

std::string_view op_name(Op op)
{
	switch (op) {
	case Op::Send: return "send";
	case Op::Write: return "write";
	case Op::Read: return "read";
	case Op::Atomic: return "atomic";
	}
	return "?";
}

std::optional<Op> parse_op(std::string_view name)
{
	for (Op op : {Op::Send, Op::Write, Op::Read, Op::Atomic})
		if (name == op_name(op))
			return op;
	return std::nullopt;
}

std::string wc_status_name(ibv_wc_status status)
{
	switch (status) {
	case IBV_WC_SUCCESS: return "success";
	case IBV_WC_LOC_LEN_ERR: return "loc-len-err";
	case IBV_WC_LOC_QP_OP_ERR: return "loc-qp-op-err";
	case IBV_WC_LOC_EEC_OP_ERR: return "loc-eec-op-err";
	case IBV_WC_LOC_PROT_ERR: return "loc-prot-err";
	case IBV_WC_WR_FLUSH_ERR: return "wr-flush-err";
	case IBV_WC_MW_BIND_ERR: return "mw-bind-err";
	case IBV_WC_BAD_RESP_ERR: return "bad-resp-err";
	case IBV_WC_LOC_ACCESS_ERR: return "loc-access-err";
	case IBV_WC_REM_INV_REQ_ERR: return "rem-inv-req-err";
	case IBV_WC_REM_ACCESS_ERR: return "rem-access-err";
	case IBV_WC_REM_OP_ERR: return "rem-op-err";
	case IBV_WC_RETRY_EXC_ERR: return "retry-exc-err";
	case IBV_WC_RNR_RETRY_EXC_ERR: return "rnr-retry-exc-err";
	case IBV_WC_LOC_RDD_VIOL_ERR: return "loc-rdd-viol-err";
	case IBV_WC_REM_INV_RD_REQ_ERR: return "rem-inv-rd-req-err";
	case IBV_WC_REM_ABORT_ERR: return "rem-abort-err";
	case IBV_WC_INV_EECN_ERR: return "inv-eecn-err";
	case IBV_WC_INV_EEC_STATE_ERR: return "inv-eec-state-err";
	case IBV_WC_FATAL_ERR: return "fatal-err";
	case IBV_WC_RESP_TIMEOUT_ERR: return "resp-timeout-err";
	case IBV_WC_GENERAL_ERR: return "general-err";
	case IBV_WC_TM_ERR: return "tm-err";
	case IBV_WC_TM_RNDV_INCOMPLETE: return "tm-rndv-incomplete";
	}
	return "status-" + std::to_string(static_cast<int>(status));
}

void SideReport::count(ibv_wc_status status)
{
	std::string name = wc_status_name(status);

	completions[name]++;
	if (status != IBV_WC_SUCCESS && first_error.empty())
		first_error = name;
}

bool SideReport::only_flushes_after_first_error() const
{
	for (const auto &[name, n] : completions) {
		if (name == "success" || name == "wr-flush-err")
			continue;
		if (name != first_error || n != 1)
			return false;
	}
	return true;
}

nlohmann::json to_json(const SideReport &s)
{
	nlohmann::json j = {
		{"status", s.status},
		{"messages", s.messages},
		{"bytes-verified", s.bytes_verified},
		{"mismatches", s.mismatches},
		{"completions", s.completions},
	};

	if (!s.detail.empty())
		j["detail"] = s.detail;
	if (!s.first_mismatch.empty())
		j["first-mismatch"] = s.first_mismatch;
	if (!s.first_error.empty())
		j["first-error"] = s.first_error;
	return j;
}

SideReport side_from_json(const nlohmann::json &j)
{
	SideReport s;

	s.status = j.at("status").get<std::string>();
	s.messages = j.at("messages").get<uint64_t>();
	s.bytes_verified = j.at("bytes-verified").get<uint64_t>();
	s.mismatches = j.at("mismatches").get<uint64_t>();
	s.completions = j.at("completions").get<std::map<std::string, uint64_t>>();
	s.detail = j.value("detail", "");
	s.first_mismatch = j.value("first-mismatch", "");
	s.first_error = j.value("first-error", "");
	return s;
}

uint64_t Result::bytes_verified() const
{
	/* SEND and WRITE land in the server; READ and atomics return to the client. */
	return op == Op::Send || op == Op::Write ? server.bytes_verified
						 : client.bytes_verified;
}

double Result::mb_per_s() const
{
	return elapsed_s > 0 ? bytes_verified() / elapsed_s / 1e6 : 0;
}

Verdict judge(const Result &r, bool allow_retry_exceeded)
{
	if (r.client.mismatches || r.server.mismatches ||
	    r.client.status == "mismatch" || r.server.status == "mismatch")
		return {"mismatch", kExitFail};
	if (r.client.status == "deadline" || r.server.status == "deadline")
		return {"deadline", kExitFail};
	/*
	 * The retry budget ran out on one side (the client's data WRs or the
	 * server's credits) and everything else flushed.
	 */
	auto exhausted = [](const SideReport &s) {
		return s.first_error == "retry-exc-err" &&
		       s.only_flushes_after_first_error();
	};
	auto flushed = [](const SideReport &s) {
		for (const auto &[name, n] : s.completions)
			if (name != "success" && name != "wr-flush-err")
				return false;
		return true;
	};
	if ((exhausted(r.client) && flushed(r.server)) ||
	    (exhausted(r.server) && flushed(r.client)))
		return {"retry-exceeded",
			allow_retry_exceeded ? kExitRetryExceeded : kExitFail};
	if (r.client.status != "ok" || r.server.status != "ok")
		return {"error", kExitFail};
	if (r.bytes_verified() != r.bytes_requested)
		return {"incomplete", kExitFail};
	return {"ok", kExitOk};
}

nlohmann::json to_json(const Result &r, const Verdict &v)
{
	return {
		{"schema", 1},
		{"op", op_name(r.op)},
		{"bytes-requested", r.bytes_requested},
		{"bytes-verified", r.bytes_verified()},
		{"messages", r.messages_requested},
		{"size", r.size},
		{"depth", r.depth},
		{"seed", r.seed},
		{"elapsed-s", r.elapsed_s},
		{"mb-per-s", r.mb_per_s()},
		{"status", v.status},
		{"exit-code", v.exit_code},
		{"client", to_json(r.client)},
		{"server", to_json(r.server)},
	};
}

static std::string side_text(std::string_view who, const SideReport &s)
{
	std::string t = std::string(who) + ": " + s.status + ", " +
			std::to_string(s.messages) + " messages, completions";

	for (const auto &[name, n] : s.completions)
		t += " " + name + " " + std::to_string(n);
	if (s.completions.empty())
		t += " none";
	t += "\n";
	if (!s.detail.empty())
		t += "  " + s.detail + "\n";
	if (s.mismatches)
		t += "  " + std::to_string(s.mismatches) +
		     " messages mismatched; first: " + s.first_mismatch + "\n";
	return t;
}

std::string to_text(const Result &r, const Verdict &v)
{
	char head[256];

	std::snprintf(head, sizeof(head),
		      "op %s: %llu of %llu bytes verified in %llu messages "
		      "(size %u, depth %u, seed %u), %.3f s, %.2f MB/s\n",
		      std::string(op_name(r.op)).c_str(),
		      static_cast<unsigned long long>(r.bytes_verified()),
		      static_cast<unsigned long long>(r.bytes_requested),
		      static_cast<unsigned long long>(r.messages_requested),
		      r.size, r.depth, r.seed, r.elapsed_s, r.mb_per_s());
	return std::string(head) + side_text("client", r.client) +
	       side_text("server", r.server) + "result: " + v.status +
	       " (exit " + std::to_string(v.exit_code) + ")\n";
}

} // namespace vrnic::traffic
