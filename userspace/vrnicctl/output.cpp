// SPDX-License-Identifier: GPL-2.0-only
/*
 * vrnicctl: text and JSON output of records.
 */
#include "output.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace vrnicctl {

void print_json(std::ostream &out, const Options &o, const Json &records)
{
	out << (o.pretty ? records.dump(4) : records.dump()) << '\n';
}

std::string record_name(const Json &r)
{
	std::string name = r.value("dev", "");
	if (r.contains("port") && r["port"].is_number())
		name += "/" + r["port"].dump();
	return name;
}

std::string scalar_text(const Json &v)
{
	if (v.is_string())
		return v.get<std::string>();
	return v.dump();
}

static void flatten(std::string &line, const Json &obj)
{
	for (auto &[k, v] : obj.items()) {
		if (v.is_object())
			flatten(line, v);
		else if (!v.is_array() && !v.is_null())
			line += fmt::format(" {} {}", k, scalar_text(v));
	}
}

void print_line(std::ostream &out, const Json &r)
{
	std::string line = record_name(r) + ":";
	Json rest = Json::object();
	for (auto &[k, v] : r.items())
		if (k != "dev" && k != "port")
			rest[k] = v;
	flatten(line, rest);
	out << line << '\n';
}

void print_counter_table(std::ostream &out, const Json &r)
{
	std::string head = record_name(r) + ":";
	if (r.contains("interval"))
		head += fmt::format(" interval {:.3f} s", r["interval"].get<double>());
	out << head << '\n';
	size_t w = 7;
	for (auto &[k, v] : r["counters"].items())
		w = std::max(w, k.size());
	out << fmt::format("  {:<{}}  {:>20}  {:>14}\n", "counter", w, "value", "rate/s");
	for (auto &[k, v] : r["counters"].items()) {
		std::string rate = "-";
		if (r.contains("rates") && r["rates"].contains(k))
			rate = fmt::format("{:.1f}", r["rates"][k].get<double>());
		out << fmt::format("  {:<{}}  {:>20}  {:>14}\n", k, w, scalar_text(v), rate);
	}
}

void print_knob_table(std::ostream &out, const Json &r)
{
	out << record_name(r) << ":";
	if (r.contains("note")) {
		out << ' ' << r["note"].get<std::string>() << '\n';
		return;
	}
	out << '\n';
	const char *cols[] = {"knob", "value", "unit", "range", "default", "meaning"};
	size_t w[6];
	for (int i = 0; i < 6; i++)
		w[i] = std::string_view(cols[i]).size();
	auto cell = [](const Json &k, const char *c) {
		std::string s = k.contains(c) ? scalar_text(k[c]) : std::string();
		return s.empty() ? std::string("-") : s;
	};
	for (auto &k : r["knobs"])
		for (int i = 0; i < 5; i++)
			w[i] = std::max(w[i], cell(k, cols[i]).size());
	auto row = [&](auto get) {
		std::string s = " ";
		for (int i = 0; i < 5; i++)
			s += fmt::format(" {:<{}}", get(i), w[i]);
		s += " " + get(5);
		while (!s.empty() && s.back() == ' ')
			s.pop_back();
		out << s << '\n';
	};
	row([&](int i) { return std::string(cols[i]); });
	for (auto &k : r["knobs"])
		row([&](int i) { return cell(k, cols[i]); });
}

} // namespace vrnicctl

namespace vrnicctl {

namespace {

/* 11080 -> "11.1 kB" (decimal units, as link rates are). */
std::string human_bytes(double b)
{
	const char *unit[] = {"B", "kB", "MB", "GB", "TB"};
	int i = 0;
	while (b >= 1000 && i < 4) {
		b /= 1000;
		i++;
	}
	return i ? fmt::format("{:.1f} {}", b, unit[i]) : fmt::format("{:.0f} B", b);
}

/* 1234567 ns -> "1.23 ms". */
std::string human_ns(double ns)
{
	if (ns < 1e3)
		return fmt::format("{:.0f} ns", ns);
	if (ns < 1e6)
		return fmt::format("{:.2f} us", ns / 1e3);
	if (ns < 1e9)
		return fmt::format("{:.2f} ms", ns / 1e6);
	return fmt::format("{:.2f} s", ns / 1e9);
}

std::string percent(double f)
{
	return f >= 0.001 || f == 0 ? fmt::format("{:.1f}%", f * 100) : fmt::format("{:.2g}%", f * 100);
}

} // namespace

void print_summary(std::ostream &out, const Json &r)
{
	std::string head = record_name(r) + ": the modeled NIC";
	if (r.contains("clock-mode"))
		head += fmt::format(" (clock.mode {})", r["clock-mode"].get<std::string>());
	if (r.contains("interval"))
		head += fmt::format(", over {:.3f} s", r["interval"].get<double>());
	out << head << '\n';
	if (r.contains("note")) {
		out << "  " << r["note"].get<std::string>() << '\n';
		return;
	}
	const Json &s = r["summary"];
	auto has = [&](const char *k) { return s.contains(k); };
	auto num = [&](const char *k) { return s[k].get<double>(); };
	auto row = [&](std::string_view what, const std::vector<std::string> &parts) {
		std::string line;
		for (auto &p : parts)
			if (!p.empty())
				line += (line.empty() ? "" : ", ") + p;
		if (!line.empty())
			out << fmt::format("  {:<28} {}\n", what, line);
	};
	for (auto [dir, what] : {std::pair{"up", "PCIe up (device to host)"},
				 {"down", "PCIe down (host to device)"}}) {
		auto k = [&](const char *f) { return fmt::format("pcie-{}-{}", dir, f); };
		if (!s.contains(k("tlps")))
			continue;
		std::vector<std::string> p = {
			fmt::format("{} TLPs", s[k("tlps")].get<std::uint64_t>()),
			fmt::format("{} on the link", human_bytes(s.value(k("bytes"), 0.0))),
			fmt::format("{:.0f} B per TLP", s.value(k("bytes-per-tlp"), 0.0)),
			fmt::format("link busy {}", human_ns(s.value(k("busy-ns"), 0.0)))};
		if (s.contains(k("utilisation")))
			p.push_back(fmt::format("{} utilised ({:.3g} Gbit/s)",
						percent(s[k("utilisation")].get<double>()),
						s[k("gbit-s")].get<double>()));
		row(what, p);
	}
	if (has("dma-reads") || has("dma-writes"))
		row("DMA",
		    {has("dma-reads") ? fmt::format("{:.0f} reads of {}", num("dma-reads"),
						    human_bytes(s.value("dma-read-bytes", 0.0)))
				      : "",
		     has("dma-read-latency-ns")
			     ? fmt::format("{} modeled latency each", human_ns(num("dma-read-latency-ns")))
			     : "",
		     has("dma-writes") ? fmt::format("{:.0f} writes of {}", num("dma-writes"),
						     human_bytes(s.value("dma-write-bytes", 0.0)))
				       : "",
		     has("payload-share")
			     ? fmt::format("payload {} of the link's bytes", percent(num("payload-share")))
			     : ""});
	for (auto [c, what] : {std::pair{"mrc", "MR cache"}, {"qpc", "QP context cache"}}) {
		auto k = [&](const char *f) { return fmt::format("{}-{}", c, f); };
		if (!s.contains(k("lookups")))
			continue;
		row(what, {fmt::format("{} hits of {:.0f} lookups", percent(s[k("hit-rate")].get<double>()),
				       s[k("lookups")].get<double>()),
			   fmt::format("{:.0f} evictions", s.value(k("evictions"), 0.0))});
	}
	if (has("db-rings"))
		row("doorbells",
		    {fmt::format("{:.0f} rung for {:.0f} WQEs", num("db-rings"), s.value("db-wqes", 0.0)),
		     has("wqes-per-doorbell")
			     ? fmt::format("{:.2f} WQEs per doorbell", num("wqes-per-doorbell"))
			     : "",
		     has("mmio-writes-per-wqe")
			     ? fmt::format("{:.2f} MMIO writes per WQE", num("mmio-writes-per-wqe"))
			     : ""});
	if (has("pace-wait-ns"))
		row("pacing", {fmt::format("waited {} for the modeled link", human_ns(num("pace-wait-ns")))});
	if (has("link-busy-ns"))
		row("modeled link time",
		    {fmt::format("{} (the busier direction)", human_ns(num("link-busy-ns"))),
		     has("link-time-per-wall")
			     ? fmt::format("{} of the {:.3f} s wall time",
					   percent(num("link-time-per-wall")),
					   r["interval"].get<double>())
			     : ""});
}

} // namespace vrnicctl
