// SPDX-License-Identifier: GPL-2.0-only
/*
 * vrnicctl's commands.  Each builds records (see output.hpp) and prints
 * them as text or JSON; errors are thrown as vrnic::Error with what to do
 * next.
 */
#include "commands.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "output.hpp"
#include "vrnic/counters.hpp"
#include "vrnic/device.hpp"
#include "vrnic/error.hpp"
#include "vrnic/knobs.hpp"
#include "vrnic/summary.hpp"

namespace vrnicctl {

using vrnic::Error;
using vrnic::UsageError;

namespace {

void print(Context &ctx, const Options &o, const Json &records)
{
	if (o.json) {
		print_json(ctx.out, o, records);
		return;
	}
	for (auto &r : records)
		print_line(ctx.out, r);
}

void too_many(const std::string &word, std::string_view usage)
{
	throw UsageError(fmt::format("unexpected argument '{}'", word),
			 fmt::format("usage: vrnicctl {}", usage));
}

unsigned parse_count(std::string_view s, std::string_view what)
{
	unsigned v = 0;
	auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
	if (ec != std::errc() || p != s.data() + s.size())
		throw UsageError(fmt::format("{} wants a number; got '{}'", what, s));
	return v;
}

double round3(double v)
{
	return std::round(v * 1000) / 1000;
}

/* DEV[/PORT] -> the (device, port) pairs it selects (every vrnic port when
 * empty). */
std::vector<std::pair<std::string, unsigned>> select_ports(Context &ctx, const std::string &target)
{
	vrnic::DevPort dp;
	if (!target.empty())
		dp = vrnic::parse_dev_port(target);
	std::vector<std::pair<std::string, unsigned>> out;
	for (auto &d : vrnic::select_devices(ctx.fs, dp.dev)) {
		vrnic::DevPort one{d, dp.port};
		for (auto p : vrnic::select_ports(ctx.fs, one))
			out.emplace_back(d, p);
	}
	return out;
}

/* Options of stats show/watch. */
struct StatsArgs {
	std::string target;
	std::optional<double> interval;
	std::optional<unsigned> count;
	bool summary = false;
};

StatsArgs parse_stats_args(Args &a, bool watch)
{
	std::string_view usage = watch ? "stats watch [DEV[/PORT]] [-i SECONDS] [-n COUNT]"
				       : "stats show [DEV[/PORT]] [summary] [-i SECONDS]";
	StatsArgs s;
	while (!a.empty()) {
		std::string w = a.next();
		if (w == "-i" || w == "--interval") {
			s.interval = parse_seconds(a.value_of(w), w);
		} else if (!watch && (w == "summary" || w == "-s" || w == "--summary")) {
			s.summary = true;
		} else if (watch && (w == "-n" || w == "--count")) {
			s.count = parse_count(a.value_of(w), w);
			if (*s.count == 0)
				throw UsageError("-n wants a count of at least 1");
		} else if (!w.empty() && w[0] == '-') {
			throw UsageError(fmt::format("unknown option {}", w),
					 fmt::format("usage: vrnicctl {}", usage));
		} else if (s.target.empty()) {
			s.target = w;
		} else {
			too_many(w, usage);
		}
	}
	return s;
}

Json counters_record(const vrnic::CounterSample &now, const vrnic::CounterSample *before)
{
	Json r = {{"dev", now.dev}, {"port", now.port}};
	Json c = Json::object();
	for (auto &[n, v] : now.values)
		c[n] = v;
	if (before) {
		r["interval"] = round3(vrnic::interval_seconds(*before, now));
		r["counters"] = c;
		Json rates = Json::object();
		for (auto &cr : vrnic::counter_rates(*before, now))
			rates[cr.name] = round3(cr.per_second);
		r["rates"] = rates;
	} else {
		r["counters"] = c;
	}
	return r;
}

/*
 * The hardware model's summary of one port (vrnic/summary.hpp): of the
 * counters' totals, or, with @before, of what they grew since it.
 */
Json summary_record(Context &ctx, const vrnic::CounterSample &now,
		    const vrnic::CounterSample *before)
{
	Json r = {{"dev", now.dev}, {"port", now.port}};
	std::map<std::string, std::uint64_t> c;
	std::optional<double> interval;
	if (before) {
		for (auto &cr : vrnic::counter_rates(*before, now))
			c[cr.name] = cr.delta;
		interval = vrnic::interval_seconds(*before, now);
		r["interval"] = round3(*interval);
	} else {
		for (auto &[n, v] : now.values)
			c[n] = v;
	}
	if (vrnic::has_model(ctx.fs, now.dev)) {
		auto raw = ctx.fs.read(vrnic::knob_path(ctx.fs, now.dev, "clock.mode"));
		if (raw)
			r["clock-mode"] = vrnic::knob_value_text(*raw);
	}
	Json items = Json::object();
	for (auto &i : vrnic::model_summary(c, interval)) {
		if (i.integer)
			items[i.key] = i.count;
		else
			items[i.key] = i.value;
	}
	if (items.empty())
		r["note"] = fmt::format("the hardware model counted nothing{}: it counts while "
					"clock.mode is account or pace (vrnicctl model set {} "
					"clock.mode account)",
					before ? " in the interval" : "", now.dev);
	r["summary"] = std::move(items);
	return r;
}

std::vector<vrnic::CounterSample>
sample_all(Context &ctx, const std::vector<std::pair<std::string, unsigned>> &ports)
{
	std::vector<vrnic::CounterSample> s;
	for (auto &[d, p] : ports)
		s.push_back(vrnic::sample_counters(ctx.fs, d, p, ctx.now()));
	return s;
}

std::chrono::milliseconds to_ms(double seconds)
{
	return std::chrono::milliseconds(static_cast<long long>(std::llround(seconds * 1000)));
}

std::string errno_name(int e)
{
	switch (e) {
	case EINVAL: return "EINVAL";
	case EBUSY: return "EBUSY";
	case EACCES: return "EACCES";
	case EPERM: return "EPERM";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case ENOENT: return "ENOENT";
	case ENODEV: return "ENODEV";
	case ERANGE: return "ERANGE";
	case EIO: return "EIO";
	default: return fmt::format("errno {}", e);
	}
}

/* "Invalid argument (EINVAL)". */
std::string errno_text(int e)
{
	return fmt::format("{} ({})", std::strerror(e), errno_name(e));
}

/* Knob names are "<block>.<knob>" file names in model/, nothing else. */
bool knob_name_ok(std::string_view k)
{
	return k.find('.') != std::string_view::npos && k.front() != '.' && k.back() != '.' &&
	       k.find('/') == std::string_view::npos;
}

/*
 * The error for the kernel refusing @v for knob @k of @dev with errno @e;
 * @choices: what the knob file lists after the refusal (may be empty);
 * @already: the knobs written before this one.
 */
Error write_error(const std::string &dev, const std::string &k, const std::string &v, int e,
		  const std::vector<std::string> &choices, const std::vector<std::string> &already)
{
	const auto *knob = vrnic::find_knob(k);
	std::string done = already.empty()
				   ? ""
				   : fmt::format("; already set: {}", fmt::join(already, ", "));
	std::string refused =
		fmt::format("the kernel refused {} {} for {}: {}", k, v, dev, errno_text(e));
	bool keyword = !choices.empty() || (knob && knob->kind == vrnic::KnobKind::keyword);
	std::string offers = choices.empty()
				     ? fmt::format("vrnicctl model show {} {}", dev, vrnic::knob_block(k))
				     : fmt::format("it offers {}", fmt::join(choices, " "));
	switch (e) {
	case EACCES:
	case EPERM:
		return Error(fmt::format("cannot write {} of {}: {}{}", k, dev, errno_text(e), done),
			     "needs root: run vrnicctl as root (or with sudo)");
	case EBUSY:
		return Error(fmt::format("{}: {} cannot change while {} has live resources{}", refused,
					 k, dev, done),
			     fmt::format("destroy the device's QPs/MRs first (stop the applications "
					 "using it; see vrnicctl qp show {}), then set {} again",
					 dev, k));
	case EOPNOTSUPP:
		return Error(fmt::format("{}{}", refused, done),
			     fmt::format("the loaded rdma_vrnic does not implement {} {} yet ({}); "
					 "choose another value, or load a newer rdma_vrnic",
					 k, v, offers));
	case EINVAL:
		if (keyword)
			return Error(fmt::format("{}{}", refused, done),
				     fmt::format("the loaded rdma_vrnic does not accept {} {} ({}); "
						 "see dmesg for why (dmesg | tail)",
						 k, v, offers));
		return Error(fmt::format("{}{}", refused, done),
			     knob ? fmt::format("see dmesg for the accepted range (dmesg | tail); "
						"vrnicctl's table has {} {}{}",
						k, vrnic::knob_range(*knob),
						knob->unit.empty()
							? ""
							: fmt::format(" ({})", knob->unit))
				  : std::string("see dmesg for the accepted values (dmesg | tail)"));
	default:
		return Error(fmt::format("writing {} {} for {} failed: {}{}", k, v, dev,
					 errno_text(e), done),
			     fmt::format("see dmesg (dmesg | tail); the knobs: vrnicctl model show {}",
					 dev));
	}
}

} // namespace

void dev_show(Context &ctx, const Options &o, Args &a)
{
	std::string target;
	while (!a.empty()) {
		std::string w = a.next();
		if (target.empty() && w[0] != '-')
			target = w;
		else
			too_many(w, "dev show [DEV[/PORT]]");
	}
	Json records = Json::array();
	std::map<std::string, std::optional<std::map<std::string, std::uint64_t>>> summaries;
	for (auto &[d, p] : select_ports(ctx, target)) {
		Json r = {{"dev", d}, {"port", p}};
		if (auto n = ctx.sys.netdev(d, p))
			r["netdev"] = *n;
		if (auto s = vrnic::port_state(ctx.fs, d, p))
			r["state"] = *s;
		if (auto m = ctx.sys.active_mtu(d, p))
			r["active-mtu"] = *m;
		r["gids"] = vrnic::gid_count(ctx.fs, d, p);
		if (!summaries.count(d))
			summaries[d] = ctx.sys.res_summary(d);
		if (auto &s = summaries[d]) {
			for (auto [key, name] : {std::pair{"qps", "qp"}, {"mrs", "mr"}})
				if (auto it = s->find(name); it != s->end())
					r[key] = it->second;
		}
		r["driver"] = "vrnic";
		if (auto nd = vrnic::node_desc(ctx.fs, d))
			r["node-desc"] = *nd;
		records.push_back(std::move(r));
	}
	print(ctx, o, records);
}

void stats_show(Context &ctx, const Options &o, Args &a)
{
	auto s = parse_stats_args(a, false);
	auto ports = select_ports(ctx, s.target);
	auto first = sample_all(ctx, ports);
	Json records = Json::array();
	if (!s.interval) {
		for (auto &smp : first)
			records.push_back(s.summary ? summary_record(ctx, smp, nullptr)
						    : counters_record(smp, nullptr));
		if (s.summary && !o.json) {
			for (auto &r : records)
				print_summary(ctx.out, r);
			return;
		}
		print(ctx, o, records);
		return;
	}
	if (!ctx.wait(to_ms(*s.interval)))
		throw Error("interrupted before the interval ended", "leave it running for -i SECONDS");
	auto second = sample_all(ctx, ports);
	for (size_t i = 0; i < second.size(); i++)
		records.push_back(s.summary ? summary_record(ctx, second[i], &first[i])
					    : counters_record(second[i], &first[i]));
	if (o.json) {
		print_json(ctx.out, o, records);
		return;
	}
	for (auto &r : records)
		if (s.summary)
			print_summary(ctx.out, r);
		else
			print_counter_table(ctx.out, r);
}

void stats_watch(Context &ctx, const Options &o, Args &a)
{
	auto s = parse_stats_args(a, true);
	double interval = s.interval.value_or(1.0);
	auto ports = select_ports(ctx, s.target);
	auto prev = sample_all(ctx, ports);
	for (unsigned n = 0; !s.count || n < *s.count; n++) {
		if (!ctx.wait(to_ms(interval)))
			break;
		auto cur = sample_all(ctx, ports);
		Json records = Json::array();
		for (size_t i = 0; i < cur.size(); i++)
			records.push_back(counters_record(cur[i], &prev[i]));
		if (o.json) {
			/* One JSON document per refresh (JSON lines). */
			print_json(ctx.out, Options{true, false}, records);
		} else {
			/* ANSI: cursor home, clear screen, redraw. */
			ctx.out << "\x1b[H\x1b[2J";
			ctx.out << fmt::format("vrnicctl stats watch: every {} s; q or Ctrl-C quits\n\n",
					       interval);
			for (auto &r : records)
				print_counter_table(ctx.out, r);
		}
		ctx.out.flush();
		prev = std::move(cur);
	}
}

void qp_show(Context &ctx, const Options &o, Args &a)
{
	std::string_view usage = "qp show [DEV[/PORT]] [qpn N]";
	std::string target;
	std::optional<unsigned> qpn;
	while (!a.empty()) {
		std::string w = a.next();
		if (w == "qpn" || w == "lqpn")
			qpn = parse_count(a.value_of(w), w);
		else if (target.empty() && w[0] != '-')
			target = w;
		else
			too_many(w, usage);
	}
	vrnic::DevPort dp;
	if (!target.empty())
		dp = vrnic::parse_dev_port(target);
	Json records = Json::array();
	for (auto &d : vrnic::select_devices(ctx.fs, dp.dev)) {
		if (dp.port)
			vrnic::select_ports(ctx.fs, dp);
		for (auto &q : ctx.sys.qps(d)) {
			if (dp.port && q.port != dp.port)
				continue;
			if (qpn && q.lqpn != *qpn)
				continue;
			Json r = {{"dev", q.dev.empty() ? d : q.dev}};
			if (q.port)
				r["port"] = *q.port;
			r["lqpn"] = q.lqpn;
			if (q.rqpn)
				r["rqpn"] = *q.rqpn;
			r["type"] = q.type;
			r["state"] = q.state;
			if (q.sq_psn)
				r["sq-psn"] = *q.sq_psn;
			if (q.rq_psn)
				r["rq-psn"] = *q.rq_psn;
			if (q.pid)
				r["pid"] = *q.pid;
			if (!q.comm.empty())
				r["comm"] = q.comm;
			records.push_back(std::move(r));
		}
	}
	if (qpn && records.empty())
		throw Error(fmt::format("no QP {} on {}", *qpn,
					dp.dev.empty() ? std::string("any vrnic device") : target),
			    "list them: vrnicctl qp show");
	print(ctx, o, records);
}

void model_show(Context &ctx, const Options &o, Args &a)
{
	std::string dev, block;
	while (!a.empty()) {
		std::string w = a.next();
		if (dev.empty() && w[0] != '-')
			dev = w;
		else if (block.empty() && w[0] != '-')
			block = w;
		else
			too_many(w, "model show [DEV] [BLOCK]");
	}
	Json records = Json::array();
	for (auto &d : vrnic::select_devices(ctx.fs, dev)) {
		Json r = {{"dev", d}};
		if (!vrnic::has_model(ctx.fs, d)) {
			r["knobs"] = Json::array();
			r["note"] = "the loaded rdma_vrnic has no hardware model knobs yet "
				    "(no model/ in its sysfs directory)";
			records.push_back(std::move(r));
			continue;
		}
		Json knobs = Json::array();
		for (auto &kv : vrnic::read_knobs(ctx.fs, d, block)) {
			Json k = {{"knob", kv.name}};
			std::int64_t n;
			auto [p, ec] = std::from_chars(kv.value.data(),
						       kv.value.data() + kv.value.size(), n);
			bool numeric = ec == std::errc() && p == kv.value.data() + kv.value.size() &&
				       (!kv.knob || kv.knob->kind != vrnic::KnobKind::keyword);
			if (numeric)
				k["value"] = n;
			else
				k["value"] = kv.value;
			if (kv.knob) {
				k["unit"] = kv.knob->unit;
				k["range"] = vrnic::knob_range(*kv.knob);
				k["default"] = kv.knob->def;
				k["meaning"] = kv.knob->meaning;
			}
			knobs.push_back(std::move(k));
		}
		r["knobs"] = std::move(knobs);
		records.push_back(std::move(r));
	}
	if (o.json) {
		print_json(ctx.out, o, records);
		return;
	}
	for (auto &r : records)
		print_knob_table(ctx.out, r);
}

void model_set(Context &ctx, const Options &o, Args &a)
{
	std::string_view usage = "model set DEV KNOB VALUE [KNOB VALUE]...";
	if (a.empty())
		throw UsageError("model set needs a device", fmt::format("usage: vrnicctl {}", usage));
	std::string dev = a.next();
	std::vector<std::pair<std::string, std::string>> pairs;
	while (!a.empty()) {
		std::string k = a.next();
		if (a.empty())
			throw UsageError(fmt::format("knob {} has no value", k),
					 fmt::format("usage: vrnicctl {}", usage));
		pairs.emplace_back(k, a.next());
	}
	if (pairs.empty())
		throw UsageError("model set needs KNOB VALUE", fmt::format("usage: vrnicctl {}", usage));

	/* Every value is checked before anything is written. */
	for (auto &[k, v] : pairs)
		if (auto *knob = vrnic::find_knob(k))
			if (auto msg = vrnic::knob_check(*knob, v))
				throw Error(*msg, fmt::format("{}: {}", knob->name, knob->meaning));

	vrnic::select_devices(ctx.fs, dev);
	if (!vrnic::has_model(ctx.fs, dev))
		throw Error(fmt::format("{} has no hardware model knobs: the loaded rdma_vrnic "
					"predates the hardware model",
					dev),
			    "load a module built with the hardware model (kernel/hw/)");
	/*
	 * Every knob must be a file of the device's model/, and a value for a
	 * knob that lists its choices one of them, before anything is written.
	 */
	for (auto &[k, v] : pairs) {
		auto path = vrnic::knob_path(ctx.fs, dev, k);
		if (knob_name_ok(k) && ctx.fs.exists(path)) {
			auto choices = vrnic::knob_choices(ctx.fs.read(path).value_or(""));
			if (!choices.empty() &&
			    std::find(choices.begin(), choices.end(), v) == choices.end())
				throw Error(fmt::format("the loaded rdma_vrnic does not offer {} {} on {}",
							k, v, dev),
					    fmt::format("its choices for {}: {}", k,
							fmt::join(choices, " ")));
			continue;
		}
		if (vrnic::find_knob(k))
			throw Error(fmt::format("the loaded rdma_vrnic has no knob {}", k),
				    fmt::format("its knobs: vrnicctl model show {}", dev));
		std::vector<std::string_view> names;
		for (auto &kn : vrnic::knob_table())
			names.push_back(kn.name);
		throw Error(fmt::format("unknown knob '{}'", k),
			    fmt::format("knobs: {}", fmt::join(names, " ")));
	}

	Json records = Json::array();
	std::vector<std::string> done;
	for (auto &[k, v] : pairs) {
		auto path = vrnic::knob_path(ctx.fs, dev, k);
		auto old = ctx.fs.read(path);
		if (int e = ctx.write(path, v))
			throw write_error(dev, k, v, e,
					  vrnic::knob_choices(ctx.fs.read(path).value_or("")), done);
		done.push_back(fmt::format("{} {}", k, v));
		auto now = ctx.fs.read(path);
		Json r = {{"dev", dev}, {"knob", k}};
		r["old"] = old ? vrnic::knob_value_text(*old) : "?";
		r["value"] = now ? vrnic::knob_value_text(*now) : v;
		records.push_back(std::move(r));
	}
	if (o.json) {
		print_json(ctx.out, o, records);
		return;
	}
	for (auto &r : records)
		ctx.out << fmt::format("{}: {} {} -> {}\n", r["dev"].get<std::string>(),
				       r["knob"].get<std::string>(), r["old"].get<std::string>(),
				       r["value"].get<std::string>());
}

} // namespace vrnicctl
