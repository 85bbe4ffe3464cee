// SPDX-License-Identifier: GPL-2.0-only
/*
 * libvrnic: device discovery, DEV/PORT addressing and sysfs access against
 * a fake tree.
 */
#include <gtest/gtest.h>

#include "fake_sysfs.hpp"
#include "vrnic/device.hpp"
#include "vrnic/error.hpp"

using namespace vrnic;
using vrnic::test::FakeSysfs;

TEST(DevPort, NameAlone)
{
	auto dp = parse_dev_port("vrnic0");
	EXPECT_EQ(dp.dev, "vrnic0");
	EXPECT_FALSE(dp.port);
}

TEST(DevPort, NameAndPort)
{
	auto dp = parse_dev_port("vrnic3/2");
	EXPECT_EQ(dp.dev, "vrnic3");
	EXPECT_EQ(dp.port, 2u);
}

TEST(DevPort, BadPortsAreUsageErrors)
{
	for (auto s : {"vrnic0/", "vrnic0/x", "vrnic0/0", "vrnic0/1x", "/1", "vrnic0/-1"})
		EXPECT_THROW(parse_dev_port(s), UsageError) << s;
}

TEST(Discovery, VrnicByCountersNotRxe)
{
	FakeSysfs f;
	f.add_vrnic("vrnic0");
	f.add_rxe("rxe0");
	f.add_vrnic("vrnic1", "veth1");
	auto fs = f.sysfs();
	EXPECT_TRUE(is_vrnic(fs, "vrnic0"));
	EXPECT_FALSE(is_vrnic(fs, "rxe0"));
	EXPECT_EQ(vrnic_devices(fs), (std::vector<std::string>{"vrnic0", "vrnic1"}));
}

TEST(Discovery, ModelDirectoryMarksVrnic)
{
	FakeSysfs f;
	f.add_rxe("odd0");
	f.file("class/infiniband/odd0/model/pcie.gen", "3");
	EXPECT_TRUE(is_vrnic(f.sysfs(), "odd0"));
}

TEST(Discovery, NoDevicesSaysHowToCreateOne)
{
	FakeSysfs f;
	f.add_rxe("rxe0");
	try {
		select_devices(f.sysfs(), "");
		FAIL() << "no error";
	} catch (const Error &e) {
		EXPECT_STREQ(e.what(), "no vrnic devices");
		EXPECT_NE(e.hint().find("modprobe rdma_vrnic"), std::string::npos);
		EXPECT_NE(e.hint().find("rdma link add vrnic0 type vrnic netdev eth0"),
			  std::string::npos);
	}
}

TEST(Discovery, UnknownDeviceListsTheOnesThere)
{
	FakeSysfs f;
	f.add_vrnic("vrnic0");
	f.add_vrnic("vrnic1");
	try {
		select_devices(f.sysfs(), "vrnic7");
		FAIL() << "no error";
	} catch (const Error &e) {
		EXPECT_STREQ(e.what(), "no device vrnic7");
		EXPECT_EQ(e.hint(), "vrnic devices: vrnic0 vrnic1");
	}
}

TEST(Discovery, RxeIsNotVrnic)
{
	FakeSysfs f;
	f.add_vrnic("vrnic0");
	f.add_rxe("rxe0");
	try {
		select_devices(f.sysfs(), "rxe0");
		FAIL() << "no error";
	} catch (const Error &e) {
		EXPECT_STREQ(e.what(), "rxe0 is an RDMA device but not a vrnic device");
		EXPECT_EQ(e.hint(), "vrnic devices: vrnic0");
	}
}

TEST(Discovery, SelectOneOrAll)
{
	FakeSysfs f;
	f.add_vrnic("vrnic1");
	f.add_vrnic("vrnic0");
	EXPECT_EQ(select_devices(f.sysfs(), ""), (std::vector<std::string>{"vrnic0", "vrnic1"}));
	EXPECT_EQ(select_devices(f.sysfs(), "vrnic1"), (std::vector<std::string>{"vrnic1"}));
}

TEST(Ports, MissingPortListsPorts)
{
	FakeSysfs f;
	f.add_vrnic("vrnic0");
	EXPECT_EQ(select_ports(f.sysfs(), {"vrnic0", std::nullopt}), (std::vector<unsigned>{1}));
	try {
		select_ports(f.sysfs(), {"vrnic0", 2});
		FAIL() << "no error";
	} catch (const Error &e) {
		EXPECT_STREQ(e.what(), "vrnic0 has no port 2");
		EXPECT_EQ(e.hint(), "its ports: 1");
	}
}

TEST(Ports, StateGidsNetdev)
{
	FakeSysfs f;
	f.add_vrnic("vrnic0", "veth0");
	auto fs = f.sysfs();
	EXPECT_EQ(port_state(fs, "vrnic0", 1), "ACTIVE");
	EXPECT_EQ(gid_count(fs, "vrnic0", 1), 2u);
	EXPECT_EQ(gid0_netdev(fs, "vrnic0", 1), "veth0");
	EXPECT_EQ(node_desc(fs, "vrnic0"), "vrnic");
	EXPECT_FALSE(port_state(fs, "vrnic0", 2));
}

TEST(Ports, StripStateNumber)
{
	EXPECT_EQ(strip_state_number("4: ACTIVE"), "ACTIVE");
	EXPECT_EQ(strip_state_number("1: DOWN"), "DOWN");
	EXPECT_EQ(strip_state_number("ACTIVE"), "ACTIVE");
	EXPECT_EQ(strip_state_number("x: y"), "x: y");
}

TEST(Sysfs, ReadTrimsAndWriteReportsErrno)
{
	FakeSysfs f;
	f.file("a/b", "hello");
	auto fs = f.sysfs();
	EXPECT_EQ(fs.read(f.root() / "a/b"), "hello");
	EXPECT_FALSE(fs.read(f.root() / "a/none"));
	EXPECT_EQ(fs.write(f.root() / "a/b", "42"), 0);
	EXPECT_EQ(fs.read(f.root() / "a/b"), "42");
	EXPECT_EQ(fs.write(f.root() / "nodir/x", "1"), ENOENT);
	EXPECT_EQ(fs.list(f.root() / "a"), (std::vector<std::string>{"b"}));
	EXPECT_TRUE(fs.list(f.root() / "none").empty());
}
