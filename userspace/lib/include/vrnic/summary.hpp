// SPDX-License-Identifier: GPL-2.0-only
/*
 * What the hardware model's counters (model_*, Documentation/model.rst)
 * say the modeled NIC did, in a few figures: PCIe TLPs and bytes each
 * way with their link time and utilisation, the MR and QP context cache
 * hit rates, doorbells per WQE, the modeled DMA read latency, and the
 * modeled link time against wall time.  Only what the counters can say:
 * a figure whose counters are all zero, or whose denominator is zero, is
 * left out.
 */
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace vrnic {

struct SummaryItem {
	std::string key;	/* kebab-case, as vrnicctl's JSON keys */
	double value = 0;
	bool integer = false;	/* a count: @count holds it exactly */
	std::uint64_t count = 0;
};

/*
 * The figures for @counters (hw_counters name -> value: totals, or what
 * they grew over an interval) in a fixed order.  @interval_s, when given
 * (> 0), is the wall time the counters grew over: then also the link
 * utilisation each way (the modeled link's busy time over the wall time)
 * and the link's throughput.  Keys:
 *   pcie-up-tlps, pcie-up-bytes, pcie-up-bytes-per-tlp, pcie-up-busy-ns,
 *   pcie-up-utilisation, pcie-up-gbit-s (and the same for down);
 *   dma-reads, dma-read-bytes, dma-writes, dma-write-bytes,
 *   dma-read-latency-ns (average modeled wait of a DMA read),
 *   payload-share (DMA bytes over link bytes, both ways);
 *   mrc-lookups, mrc-hit-rate, mrc-evictions; qpc-lookups, qpc-hit-rate,
 *   qpc-evictions;
 *   db-rings, db-wqes, wqes-per-doorbell, mmio-writes-per-wqe;
 *   pace-wait-ns; link-busy-ns (the busier direction's time);
 *   link-time-per-wall (link-busy-ns over the interval).
 * Ratios are fractions (0.5, not 50).
 */
std::vector<SummaryItem> model_summary(const std::map<std::string, std::uint64_t> &counters,
				       std::optional<double> interval_s);

/* True when @counters hold any non-zero model_* counter (the clock was
 * accounting, or pacing, while traffic ran). */
bool model_accounted(const std::map<std::string, std::uint64_t> &counters);

} // namespace vrnic
