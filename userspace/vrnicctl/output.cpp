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
