// SPDX-License-Identifier: GPL-2.0-only
/*
 * libvrnic: the knob table, validation messages, and reading knob files.
 */
#include <set>

#include <gtest/gtest.h>

#include "fake_sysfs.hpp"
#include "vrnic/error.hpp"
#include "vrnic/knobs.hpp"

using namespace vrnic;
using vrnic::test::FakeSysfs;

namespace {

std::string check(std::string_view name, std::string_view value)
{
	const Knob *k = find_knob(name);
	if (!k)
		return "no such knob";
	return knob_check(*k, value).value_or("ok");
}

} // namespace

TEST(Knobs, TableIsTheContract)
{
	std::set<std::string_view> names;
	for (auto &k : knob_table()) {
		EXPECT_TRUE(names.insert(k.name).second) << "duplicate " << k.name;
		EXPECT_NE(k.name.find('.'), std::string_view::npos) << k.name;
		EXPECT_FALSE(k.meaning.empty()) << k.name;
		EXPECT_EQ(knob_check(k, k.def), std::nullopt) << k.name << " default " << k.def;
	}
	EXPECT_EQ(names, (std::set<std::string_view>{
				 "pcie.gen", "pcie.lanes", "pcie.mps", "pcie.mrrs", "pcie.ecrc",
				 "dma.read_latency_ns", "dma.read_ps_per_byte", "qpc.mode", "qpc.entries", "qpc.ctx_bytes",
				 "mrc.entries", "doorbell.mode", "doorbell.batch_wqes",
				 "doorbell.batch_ns", "doorbell.mmio_ns", "clock.mode", "clock.dilation"}));
}

TEST(Knobs, MpsMessageNamesTheChoices)
{
	EXPECT_EQ(check("pcie.mps", "100"),
		  "pcie.mps must be one of 128 256 512 1024 2048 4096 (bytes); got 100");
	EXPECT_EQ(check("pcie.mps", "4096"), "ok");
	EXPECT_EQ(check("pcie.mrrs", "8192"),
		  "pcie.mrrs must be one of 128 256 512 1024 2048 4096 (bytes); got 8192");
}

TEST(Knobs, RangeMessages)
{
	EXPECT_EQ(check("pcie.gen", "6"), "pcie.gen must be an integer in 1..5; got 6");
	EXPECT_EQ(check("pcie.gen", "0"), "pcie.gen must be an integer in 1..5; got 0");
	EXPECT_EQ(check("pcie.gen", "5"), "ok");
	EXPECT_EQ(check("dma.read_latency_ns", "100001"),
		  "dma.read_latency_ns must be an integer in 0..100000 (ns); got 100001");
	EXPECT_EQ(check("dma.read_latency_ns", "0"), "ok");
	EXPECT_EQ(check("dma.read_ps_per_byte", "100001"),
		  "dma.read_ps_per_byte must be an integer in 0..100000 (ps/byte); got 100001");
	EXPECT_EQ(check("dma.read_ps_per_byte", "0"), "ok");
	EXPECT_EQ(check("doorbell.batch_ns", "1000000"), "ok");
	EXPECT_EQ(check("clock.dilation", "0"),
		  "clock.dilation must be an integer in 1..100000 (x); got 0");
	EXPECT_EQ(check("qpc.entries", "65537"),
		  "qpc.entries must be an integer in 1..65536 (entries); got 65537");
	EXPECT_EQ(check("qpc.ctx_bytes", "63"),
		  "qpc.ctx_bytes must be an integer in 64..4096 (bytes); got 63");
}

TEST(Knobs, SetsAndKeywords)
{
	EXPECT_EQ(check("pcie.lanes", "3"), "pcie.lanes must be one of 1 2 4 8 16 (lanes); got 3");
	EXPECT_EQ(check("pcie.lanes", "16"), "ok");
	EXPECT_EQ(check("pcie.ecrc", "2"), "pcie.ecrc must be one of 0 1; got 2");
	EXPECT_EQ(check("qpc.mode", "dram"), "qpc.mode must be one of onchip host; got dram");
	EXPECT_EQ(check("qpc.mode", "host"), "ok");
	EXPECT_EQ(check("doorbell.mode", "shadow"), "ok");
	EXPECT_EQ(check("doorbell.mode", "MMIO"),
		  "doorbell.mode must be one of mmio batch shadow; got MMIO");
	EXPECT_EQ(check("clock.mode", "pace"), "ok");
}

TEST(Knobs, NotNumbersAreRefused)
{
	for (auto v : {"", "0x10", "1e3", " 3", "3 ", "+3", "3.0", "three", "99999999999999999999"})
		EXPECT_NE(check("pcie.gen", v), "ok") << "'" << v << "'";
	EXPECT_NE(check("dma.read_latency_ns", "-1"), "ok");
}

TEST(Knobs, ValueText)
{
	EXPECT_EQ(knob_value_text("256\n"), "256");
	EXPECT_EQ(knob_value_text("  onchip "), "onchip");
	EXPECT_EQ(knob_value_text("mmio [batch] shadow"), "batch");
	EXPECT_EQ(knob_value_text("[off] account\n"), "off");
}

TEST(Knobs, Choices)
{
	EXPECT_EQ(knob_choices("[off] account\n"), (std::vector<std::string>{"off", "account"}));
	EXPECT_EQ(knob_choices("mmio [batch] shadow"),
		  (std::vector<std::string>{"mmio", "batch", "shadow"}));
	EXPECT_TRUE(knob_choices("512").empty());
	EXPECT_TRUE(knob_choices("onchip").empty());
	EXPECT_EQ(knob_block("pcie.mps"), "pcie");
	EXPECT_EQ(knob_block("dma.a.b"), "dma");
	EXPECT_EQ(knob_block("odd"), "odd");
}

TEST(Knobs, ReadKnobsKnownInTableOrderThenUnknown)
{
	FakeSysfs f;
	f.add_vrnic("vrnic0");
	f.add_model("vrnic0");
	f.file("class/infiniband/vrnic0/model/pcie.mps", "512");
	f.file("class/infiniband/vrnic0/model/pcie.zeta", "7");
	f.file("class/infiniband/vrnic0/model/aaa.new_knob", "x");
	auto fs = f.sysfs();
	auto all = read_knobs(fs, "vrnic0");
	ASSERT_EQ(all.size(), knob_table().size() + 2);
	for (size_t i = 0; i < knob_table().size(); i++)
		EXPECT_EQ(all[i].name, knob_table()[i].name);
	EXPECT_EQ(all[2].value, "512");
	EXPECT_EQ(all[7].name, "qpc.mode");
	EXPECT_EQ(all[7].value, "host");
	EXPECT_EQ(all[all.size() - 2].name, "aaa.new_knob");
	EXPECT_EQ(all.back().name, "pcie.zeta");
	EXPECT_EQ(all.back().knob, nullptr);

	auto pcie = read_knobs(fs, "vrnic0", "pcie");
	EXPECT_EQ(pcie.size(), 6u);
	try {
		read_knobs(fs, "vrnic0", "pci");
		FAIL() << "no error";
	} catch (const Error &e) {
		EXPECT_STREQ(e.what(), "vrnic0 has no model block pci");
		EXPECT_EQ(e.hint(), "its blocks: aaa clock dma doorbell mrc pcie qpc");
	}
	EXPECT_EQ(knob_path(fs, "vrnic0", "pcie.mps"),
		  f.root() / "class/infiniband/vrnic0/model/pcie.mps");
}
