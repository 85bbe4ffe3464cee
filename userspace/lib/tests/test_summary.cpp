// SPDX-License-Identifier: GPL-2.0-only
/*
 * libvrnic: the hardware model's summary figures, computed by hand.
 */
#include <gtest/gtest.h>

#include "vrnic/summary.hpp"

using namespace vrnic;

namespace {

const SummaryItem *find(const std::vector<SummaryItem> &s, const std::string &key)
{
	for (auto &i : s)
		if (i.key == key)
			return &i;
	return nullptr;
}

double value(const std::vector<SummaryItem> &s, const std::string &key)
{
	auto *i = find(s, key);
	EXPECT_NE(i, nullptr) << key << " is missing";
	return i ? i->value : -1;
}

/* 10 DMA writes of 1000 bytes at MPS 256: 4 TLPs each; 5 reads of 64. */
const std::map<std::string, std::uint64_t> traffic = {
	{"model_pcie_tlps_up", 45},		/* 40 writes, 5 read requests */
	{"model_pcie_bytes_up", 11080},		/* 10000 + 40 x 24 + 5 x 24 */
	{"model_pcie_up_ns", 800},
	{"model_pcie_tlps_down", 5},
	{"model_pcie_bytes_down", 420},		/* 320 + 5 x 20 */
	{"model_pcie_down_ns", 30},
	{"model_dma_reads", 5},
	{"model_dma_read_bytes", 320},
	{"model_dma_read_ns", 3000},
	{"model_dma_writes", 10},
	{"model_dma_write_bytes", 10000},
	{"model_mrc_hits", 96},
	{"model_mrc_misses", 4},
	{"model_mrc_evictions", 0},
	{"model_qpc_hits", 30},
	{"model_qpc_misses", 10},
	{"model_qpc_evictions", 8},
	{"model_db_rings", 8},
	{"model_db_wqes", 12},
	{"model_db_mmio_writes", 3},
	{"sent_pkts", 77},
};

} // namespace

TEST(Summary, Totals)
{
	auto s = model_summary(traffic, std::nullopt);
	EXPECT_EQ(value(s, "pcie-up-tlps"), 45);
	EXPECT_TRUE(find(s, "pcie-up-tlps")->integer);
	EXPECT_EQ(find(s, "pcie-up-tlps")->count, 45u);
	EXPECT_DOUBLE_EQ(value(s, "pcie-up-bytes-per-tlp"), 11080.0 / 45);
	EXPECT_DOUBLE_EQ(value(s, "pcie-down-bytes-per-tlp"), 84);
	EXPECT_EQ(value(s, "pcie-up-busy-ns"), 800);
	EXPECT_DOUBLE_EQ(value(s, "dma-read-latency-ns"), 600);
	EXPECT_DOUBLE_EQ(value(s, "payload-share"), 10320.0 / 11500);
	EXPECT_EQ(value(s, "mrc-lookups"), 100);
	EXPECT_DOUBLE_EQ(value(s, "mrc-hit-rate"), 0.96);
	EXPECT_DOUBLE_EQ(value(s, "qpc-hit-rate"), 0.75);
	EXPECT_EQ(value(s, "qpc-evictions"), 8);
	EXPECT_DOUBLE_EQ(value(s, "wqes-per-doorbell"), 1.5);
	EXPECT_DOUBLE_EQ(value(s, "mmio-writes-per-wqe"), 0.25);
	EXPECT_EQ(value(s, "link-busy-ns"), 800);
	/* No wall time: nothing is per second or per wall time. */
	EXPECT_EQ(find(s, "pcie-up-utilisation"), nullptr);
	EXPECT_EQ(find(s, "link-time-per-wall"), nullptr);
	/* Zero counts are left out. */
	EXPECT_EQ(find(s, "mrc-evictions"), nullptr);
	EXPECT_EQ(find(s, "pace-wait-ns"), nullptr);
}

TEST(Summary, OverAnInterval)
{
	auto s = model_summary(traffic, 0.000002);	/* 2 us */
	EXPECT_DOUBLE_EQ(value(s, "pcie-up-utilisation"), 0.4);
	EXPECT_DOUBLE_EQ(value(s, "pcie-down-utilisation"), 0.015);
	EXPECT_DOUBLE_EQ(value(s, "pcie-up-gbit-s"), 11080.0 * 8 / 2000);
	EXPECT_DOUBLE_EQ(value(s, "link-time-per-wall"), 0.4);
}

TEST(Summary, DownBusierThanUp)
{
	auto c = traffic;
	c["model_pcie_down_ns"] = 5000;
	auto s = model_summary(c, 0.00001);
	EXPECT_EQ(value(s, "link-busy-ns"), 5000);
	EXPECT_DOUBLE_EQ(value(s, "link-time-per-wall"), 0.5);
}

TEST(Summary, NothingAccountedIsEmpty)
{
	std::map<std::string, std::uint64_t> off = {
		{"sent_pkts", 100}, {"model_pcie_tlps_up", 0}, {"model_qpc_refused", 2}};
	EXPECT_FALSE(model_accounted(off));
	EXPECT_TRUE(model_summary(off, 1.0).empty());
	EXPECT_TRUE(model_accounted(traffic));
}

TEST(Summary, NoDivisionByZero)
{
	/* Misses only, and doorbells with no WQEs (cannot happen, but the
	 * figures must not divide by zero or invent a rate). */
	std::map<std::string, std::uint64_t> c = {{"model_mrc_misses", 3},
						   {"model_db_mmio_writes", 2}};
	auto s = model_summary(c, 0.0);
	EXPECT_DOUBLE_EQ(value(s, "mrc-hit-rate"), 0);
	EXPECT_EQ(find(s, "wqes-per-doorbell"), nullptr);
	EXPECT_EQ(find(s, "mmio-writes-per-wqe"), nullptr);
	EXPECT_EQ(find(s, "link-time-per-wall"), nullptr);
}

TEST(Summary, CountsAreExact)
{
	/* Above 2^53 a double loses units; a count must not. */
	const std::uint64_t big = (1ULL << 60) + 1;
	std::map<std::string, std::uint64_t> c = {{"model_pcie_tlps_up", 1},
						   {"model_pcie_up_ns", big}};
	auto s = model_summary(c, std::nullopt);
	ASSERT_NE(find(s, "pcie-up-busy-ns"), nullptr);
	EXPECT_EQ(find(s, "pcie-up-busy-ns")->count, big);
	EXPECT_EQ(find(s, "link-busy-ns")->count, big);
}
