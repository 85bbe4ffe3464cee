// SPDX-License-Identifier: GPL-2.0-only
/*
 * libvrnic: the hardware model's counters in a few figures.
 */
#include "vrnic/summary.hpp"

#include <algorithm>

namespace vrnic {

namespace {

class Figures {
public:
	explicit Figures(const std::map<std::string, std::uint64_t> &c) : c_(c) {}

	std::uint64_t get(const std::string &name) const
	{
		auto it = c_.find(name);
		return it == c_.end() ? 0 : it->second;
	}
	void count(const std::string &key, std::uint64_t v)
	{
		if (v)
			out.push_back({key, static_cast<double>(v), true, v});
	}
	/* @num / @den, when @den is not zero. */
	void ratio(const std::string &key, double num, double den)
	{
		if (den > 0)
			out.push_back({key, num / den, false});
	}

	std::vector<SummaryItem> out;

private:
	const std::map<std::string, std::uint64_t> &c_;
};

} // namespace

bool model_accounted(const std::map<std::string, std::uint64_t> &counters)
{
	return std::any_of(counters.begin(), counters.end(), [](const auto &kv) {
		return kv.first.starts_with("model_") && kv.first != "model_qpc_refused" &&
		       kv.second != 0;
	});
}

std::vector<SummaryItem> model_summary(const std::map<std::string, std::uint64_t> &counters,
				       std::optional<double> interval_s)
{
	Figures f(counters);
	bool wall = interval_s && *interval_s > 0;
	double wall_ns = wall ? *interval_s * 1e9 : 0;

	for (const char *dir : {"up", "down"}) {
		std::string d = dir;
		auto tlps = f.get("model_pcie_tlps_" + d);
		auto bytes = f.get("model_pcie_bytes_" + d);
		auto ns = f.get("model_pcie_" + d + "_ns");
		f.count("pcie-" + d + "-tlps", tlps);
		f.count("pcie-" + d + "-bytes", bytes);
		f.ratio("pcie-" + d + "-bytes-per-tlp", static_cast<double>(bytes),
			static_cast<double>(tlps));
		f.count("pcie-" + d + "-busy-ns", ns);
		if (wall && tlps) {
			f.ratio("pcie-" + d + "-utilisation", static_cast<double>(ns), wall_ns);
			f.ratio("pcie-" + d + "-gbit-s", static_cast<double>(bytes) * 8, wall_ns);
		}
	}

	auto reads = f.get("model_dma_reads"), writes = f.get("model_dma_writes");
	auto rbytes = f.get("model_dma_read_bytes"), wbytes = f.get("model_dma_write_bytes");
	f.count("dma-reads", reads);
	f.count("dma-read-bytes", rbytes);
	f.count("dma-writes", writes);
	f.count("dma-write-bytes", wbytes);
	f.ratio("dma-read-latency-ns", static_cast<double>(f.get("model_dma_read_ns")),
		static_cast<double>(reads));
	f.ratio("payload-share", static_cast<double>(rbytes + wbytes),
		static_cast<double>(f.get("model_pcie_bytes_up") + f.get("model_pcie_bytes_down")));

	for (const char *cache : {"mrc", "qpc"}) {
		std::string c = cache;
		auto hits = f.get("model_" + c + "_hits");
		auto lookups = hits + f.get("model_" + c + "_misses");
		f.count(c + "-lookups", lookups);
		f.ratio(c + "-hit-rate", static_cast<double>(hits), static_cast<double>(lookups));
		if (lookups)
			f.count(c + "-evictions", f.get("model_" + c + "_evictions"));
	}

	auto rings = f.get("model_db_rings"), wqes = f.get("model_db_wqes");
	f.count("db-rings", rings);
	f.count("db-wqes", wqes);
	f.ratio("wqes-per-doorbell", static_cast<double>(wqes), static_cast<double>(rings));
	f.ratio("mmio-writes-per-wqe", static_cast<double>(f.get("model_db_mmio_writes")),
		static_cast<double>(wqes));

	f.count("pace-wait-ns", f.get("model_pace_wait_ns"));
	auto busy = std::max(f.get("model_pcie_up_ns"), f.get("model_pcie_down_ns"));
	f.count("link-busy-ns", busy);
	if (wall && busy)
		f.ratio("link-time-per-wall", static_cast<double>(busy), wall_ns);
	return f.out;
}

} // namespace vrnic
