// SPDX-License-Identifier: GPL-2.0-only
/*
 * libvrnic: the hardware model's knob table and its validation.
 *
 * The kernel shows each knob as one file, model/<block>.<knob>, in the
 * device's sysfs directory (the RDMA core's per-device attribute group, which
 * is one directory deep).
 *
 * The defaults are the modeled NIC's out of the box (a PCIe Gen3 x16
 * ConnectX-class card); the kernel's module parameters own the real ones,
 * and "vrnicctl model show" prints what the kernel reports.
 */
#include "vrnic/knobs.hpp"

#include <algorithm>
#include <charconv>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "vrnic/error.hpp"

namespace vrnic {

namespace {

Knob range(std::string_view name, std::string_view unit, std::int64_t min,
	   std::int64_t max, std::string_view def, std::string_view meaning)
{
	Knob k;
	k.name = name;
	k.unit = unit;
	k.kind = KnobKind::range;
	k.min = min;
	k.max = max;
	k.def = def;
	k.meaning = meaning;
	return k;
}

Knob set(std::string_view name, std::string_view unit, std::vector<std::int64_t> values,
	 std::string_view def, std::string_view meaning)
{
	Knob k;
	k.name = name;
	k.unit = unit;
	k.kind = KnobKind::set;
	k.values = std::move(values);
	k.def = def;
	k.meaning = meaning;
	return k;
}

Knob keyword(std::string_view name, std::vector<std::string_view> words,
	     std::string_view def, std::string_view meaning)
{
	Knob k;
	k.name = name;
	k.kind = KnobKind::keyword;
	k.words = std::move(words);
	k.def = def;
	k.meaning = meaning;
	return k;
}

const std::vector<std::int64_t> pow2_128_4096 = {128, 256, 512, 1024, 2048, 4096};

const std::vector<Knob> &table()
{
	static const std::vector<Knob> t = {
		range("pcie.gen", "", 1, 5, "3",
		      "PCIe generation of the link (per-lane rate and encoding)"),
		set("pcie.lanes", "lanes", {1, 2, 4, 8, 16}, "16",
		    "PCIe link width"),
		set("pcie.mps", "bytes", pow2_128_4096, "256",
		    "Max Payload Size: largest posted write/completion TLP payload"),
		set("pcie.mrrs", "bytes", pow2_128_4096, "512",
		    "Max Read Request Size: largest DMA read request"),
		set("pcie.ecrc", "", {0, 1}, "0",
		    "end-to-end CRC: 4 more bytes on every TLP"),
		range("dma.read_latency_ns", "ns", 0, 100000, "550",
		      "round trip of a DMA read across PCIe and host memory"),
		range("dma.read_ps_per_byte", "ps/byte", 0, 100000, "300",
		      "DMA read time per byte beyond the fixed latency (pcie-bench: ~0.3 ns/B)"),
		keyword("qpc.mode", {"onchip", "host"}, "host",
			"QP contexts on chip (at most qpc.entries QPs), or in host memory behind a cache"),
		range("qpc.entries", "entries", 1, 65536, "1024",
		      "on-chip QP contexts, or QP context cache entries (host mode)"),
		range("qpc.ctx_bytes", "bytes", 64, 4096, "256",
		      "size of one QP context fetched on a cache miss"),
		range("mrc.entries", "entries", 1, 65536, "1024",
		      "MR translation cache entries (LRU)"),
		keyword("doorbell.mode", {"mmio", "batch", "shadow"}, "mmio",
			"per-post MMIO doorbell, coalesced batches, or polled shadow doorbell"),
		range("doorbell.batch_wqes", "WQEs", 1, 1024, "16",
		      "batch mode: ring after this many WQEs"),
		range("doorbell.batch_ns", "ns", 0, 1000000, "1000",
		      "batch mode: ring at most this long after the first WQE"),
		range("doorbell.mmio_ns", "ns", 0, 100000, "200",
		      "cost of one MMIO doorbell write (CPU store to the NIC)"),
		keyword("clock.mode", {"off", "account", "pace"}, "off",
			"no modeled time, count modeled time, or pace the data path to it"),
		range("clock.dilation", "x", 1, 100000, "1",
		      "time dilation: modeled time runs this many times slower"),
	};
	return t;
}

bool parse_int(std::string_view s, std::int64_t &out)
{
	if (s.empty())
		return false;
	auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
	return ec == std::errc() && p == s.data() + s.size();
}

std::string unit_suffix(const Knob &k)
{
	return k.unit.empty() ? std::string() : fmt::format(" ({})", k.unit);
}

} // namespace

std::span<const Knob> knob_table()
{
	return table();
}

const Knob *find_knob(std::string_view name)
{
	for (const auto &k : table())
		if (k.name == name)
			return &k;
	return nullptr;
}

std::string knob_range(const Knob &k)
{
	switch (k.kind) {
	case KnobKind::range:
		return fmt::format("{}..{}", k.min, k.max);
	case KnobKind::set:
		return fmt::format("{}", fmt::join(k.values, " "));
	case KnobKind::keyword:
		return fmt::format("{}", fmt::join(k.words, " "));
	}
	return {};
}

std::optional<std::string> knob_check(const Knob &k, std::string_view value)
{
	std::int64_t v;
	switch (k.kind) {
	case KnobKind::range:
		if (parse_int(value, v) && v >= k.min && v <= k.max)
			return std::nullopt;
		return fmt::format("{} must be an integer in {}{}; got {}", k.name,
				   knob_range(k), unit_suffix(k), value);
	case KnobKind::set:
		if (parse_int(value, v) &&
		    std::find(k.values.begin(), k.values.end(), v) != k.values.end())
			return std::nullopt;
		return fmt::format("{} must be one of {}{}; got {}", k.name,
				   knob_range(k), unit_suffix(k), value);
	case KnobKind::keyword:
		if (std::find(k.words.begin(), k.words.end(), value) != k.words.end())
			return std::nullopt;
		return fmt::format("{} must be one of {}; got {}", k.name, knob_range(k),
				   value);
	}
	return std::nullopt;
}

std::string knob_value_text(std::string_view raw)
{
	auto b = raw.find_first_not_of(" \t\n");
	if (b == std::string_view::npos)
		return {};
	auto e = raw.find_last_not_of(" \t\n");
	raw = raw.substr(b, e - b + 1);
	auto open = raw.find('[');
	auto close = raw.find(']', open == std::string_view::npos ? 0 : open);
	if (open != std::string_view::npos && close != std::string_view::npos)
		return std::string(raw.substr(open + 1, close - open - 1));
	return std::string(raw);
}

std::vector<std::string> knob_choices(std::string_view raw)
{
	std::vector<std::string> words;
	if (raw.find('[') == std::string_view::npos)
		return words;
	size_t i = 0;
	while (i < raw.size()) {
		i = raw.find_first_not_of(" \t\n[]", i);
		if (i == std::string_view::npos)
			break;
		auto e = raw.find_first_of(" \t\n[]", i);
		if (e == std::string_view::npos)
			e = raw.size();
		words.emplace_back(raw.substr(i, e - i));
		i = e;
	}
	return words;
}

std::string_view knob_block(std::string_view name)
{
	return name.substr(0, name.find('.'));
}

bool has_model(const Sysfs &fs, std::string_view dev)
{
	return fs.exists(fs.dev_path(dev) / "model");
}

std::filesystem::path knob_path(const Sysfs &fs, std::string_view dev, std::string_view name)
{
	return fs.dev_path(dev) / "model" / std::string(name);
}

std::vector<KnobValue> read_knobs(const Sysfs &fs, std::string_view dev, std::string_view block)
{
	auto model = fs.dev_path(dev) / "model";
	auto files = fs.list(model);
	std::set<std::string_view> blocks;
	for (const auto &f : files)
		blocks.insert(knob_block(f));
	if (!block.empty() && !blocks.count(block))
		throw Error(fmt::format("{} has no model block {}", dev, block),
			    fmt::format("its blocks: {}", fmt::join(blocks, " ")));

	std::vector<KnobValue> known, unknown;
	for (const auto &f : files) {
		if (!block.empty() && knob_block(f) != block)
			continue;
		auto raw = fs.read(model / f);
		KnobValue kv{f, raw ? knob_value_text(*raw) : "?", find_knob(f)};
		(kv.knob ? known : unknown).push_back(std::move(kv));
	}
	auto pos = [](const Knob *k) { return k - knob_table().data(); };
	std::sort(known.begin(), known.end(),
		  [&](const KnobValue &a, const KnobValue &b) { return pos(a.knob) < pos(b.knob); });
	known.insert(known.end(), unknown.begin(), unknown.end());
	return known;
}

} // namespace vrnic
