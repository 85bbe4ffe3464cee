// SPDX-License-Identifier: GPL-2.0-only
/*
 * Device, port, P_Key and GID queries.
 */

#include "fixture.hpp"

#include <arpa/inet.h>

#include <cstring>
#include <vector>

namespace vrnic::test {
namespace {

class DeviceTest : public VerbsTest {};

TEST_F(DeviceTest, NameMatchesCommandLine)
{
	EXPECT_EQ(ctx_->device_name(), cfg().device);
	EXPECT_EQ(ibv_get_device_guid(ctx_->get()->device), dev_attr_.node_guid);
}

TEST_F(DeviceTest, QueryDeviceSaneValues)
{
	const ibv_device_attr &a = dev_attr_;

	EXPECT_GT(a.max_qp, 0);
	EXPECT_GT(a.max_qp_wr, 0);
	EXPECT_GT(a.max_sge, 0);
	EXPECT_GT(a.max_cq, 0);
	EXPECT_GT(a.max_cqe, 0);
	EXPECT_GT(a.max_mr, 0);
	EXPECT_GT(a.max_mr_size, 0u);
	EXPECT_GT(a.max_pd, 0);
	EXPECT_GT(a.max_ah, 0);
	/* The suite's RDMA READ tests need at least one outstanding read. */
	EXPECT_GT(a.max_qp_rd_atom, 0);
	EXPECT_GT(a.max_qp_init_rd_atom, 0);
	EXPECT_NE(a.node_guid, 0u);
	EXPECT_GE(a.phys_port_cnt, cfg().port);
	EXPECT_TRUE(a.atomic_cap == IBV_ATOMIC_NONE ||
		    a.atomic_cap == IBV_ATOMIC_HCA ||
		    a.atomic_cap == IBV_ATOMIC_GLOB)
		<< "atomic_cap " << a.atomic_cap;
	/* A device that claims atomics must allow them on a QP. */
	if (a.atomic_cap != IBV_ATOMIC_NONE) {
		EXPECT_GT(a.max_qp_rd_atom, 0);
	}
}

TEST_F(DeviceTest, QueryDeviceExAgrees)
{
	ibv_device_attr_ex ex{};

	ASSERT_EQ(ibv_query_device_ex(ctx_->get(), nullptr, &ex), 0);
	EXPECT_EQ(ex.orig_attr.node_guid, dev_attr_.node_guid);
	EXPECT_EQ(ex.orig_attr.max_qp, dev_attr_.max_qp);
	EXPECT_EQ(ex.orig_attr.max_qp_wr, dev_attr_.max_qp_wr);
	EXPECT_EQ(ex.orig_attr.max_cqe, dev_attr_.max_cqe);
	EXPECT_EQ(ex.orig_attr.max_mr_size, dev_attr_.max_mr_size);
	EXPECT_EQ(ex.orig_attr.atomic_cap, dev_attr_.atomic_cap);
	EXPECT_EQ(ex.orig_attr.phys_port_cnt, dev_attr_.phys_port_cnt);
}

TEST_F(DeviceTest, PortActiveEthernet)
{
	const ibv_port_attr &p = port_attr_;

	EXPECT_EQ(p.state, IBV_PORT_ACTIVE);
	EXPECT_EQ(p.link_layer, IBV_LINK_LAYER_ETHERNET);
	EXPECT_GE(p.active_mtu, IBV_MTU_256);
	EXPECT_LE(p.active_mtu, IBV_MTU_4096);
	EXPECT_GE(p.max_mtu, IBV_MTU_256);
	EXPECT_LE(p.max_mtu, IBV_MTU_4096);
	EXPECT_LE(p.active_mtu, p.max_mtu);
	EXPECT_GT(p.gid_tbl_len, cfg().gid_index);
	EXPECT_GE(p.pkey_tbl_len, 1);
	/* The largest message this suite sends. */
	EXPECT_GE(p.max_msg_sz, 1u << 20);
}

TEST_F(DeviceTest, DefaultPkey)
{
	__be16 pkey = 0;

	ASSERT_EQ(ibv_query_pkey(ctx_->get(), cfg().port, 0, &pkey), 0);
	EXPECT_EQ(ntohs(pkey), 0xffff);
}

TEST_F(DeviceTest, GidIsRoceV2AndNonZero)
{
	ibv_gid gid = ctx_->query_gid(cfg().port, cfg().gid_index);

	EXPECT_FALSE(gid_is_zero(gid));
	EXPECT_EQ(std::memcmp(gid.raw, cfg().gid.raw, sizeof(gid.raw)), 0)
		<< "gid " << format_gid(gid) << " changed since start-up ("
		<< format_gid(cfg().gid) << ")";
	EXPECT_EQ(gid_type_of(ctx_->get(), cfg().device, cfg().port,
			      cfg().gid_index),
		  "RoCE v2");
}

TEST_F(DeviceTest, QueryGidExAgrees)
{
	ibv_gid gid = ctx_->query_gid(cfg().port, cfg().gid_index);
	ibv_gid_entry entry{};

	ASSERT_EQ(ibv_query_gid_ex(ctx_->get(), cfg().port, cfg().gid_index,
				   &entry, 0),
		  0);
	EXPECT_EQ(std::memcmp(entry.gid.raw, gid.raw, sizeof(gid.raw)), 0)
		<< "ibv_query_gid_ex " << format_gid(entry.gid)
		<< " vs ibv_query_gid " << format_gid(gid);
	EXPECT_EQ(entry.gid_index, static_cast<uint32_t>(cfg().gid_index));
	EXPECT_EQ(entry.port_num, cfg().port);
	EXPECT_EQ(entry.gid_type, IBV_GID_TYPE_ROCE_V2);
	/* A RoCE GID belongs to a netdev. */
	EXPECT_GT(entry.ndev_ifindex, 0u);
}

TEST_F(DeviceTest, QueryGidTableAgrees)
{
	std::vector<ibv_gid_entry> table(
		static_cast<size_t>(port_attr_.gid_tbl_len) *
		dev_attr_.phys_port_cnt);
	ssize_t n = ibv_query_gid_table(ctx_->get(), table.data(),
					table.size(), 0);

	ASSERT_GT(n, 0);
	bool found = false;

	for (ssize_t i = 0; i < n; i++) {
		const ibv_gid_entry &e = table[i];

		if (e.port_num != cfg().port)
			continue;
		/* Every entry agrees with ibv_query_gid for its index. */
		ibv_gid gid = ctx_->query_gid(cfg().port,
					      static_cast<int>(e.gid_index));
		EXPECT_EQ(std::memcmp(e.gid.raw, gid.raw, sizeof(gid.raw)), 0)
			<< "index " << e.gid_index;
		if (e.gid_index == static_cast<uint32_t>(cfg().gid_index)) {
			found = true;
			EXPECT_EQ(e.gid_type, IBV_GID_TYPE_ROCE_V2);
		}
	}
	EXPECT_TRUE(found) << "gid index " << cfg().gid_index
			   << " missing from ibv_query_gid_table";
}

TEST_F(DeviceTest, Ipv4GidMatchesAddress)
{
	if (!cfg().has_ipv4)
		GTEST_SKIP() << "GID " << format_gid(cfg().gid)
			     << " is not IPv4-mapped";
	ibv_gid gid = ctx_->query_gid(cfg().port, cfg().gid_index);

	EXPECT_TRUE(gid_is_ipv4_mapped(gid));
	EXPECT_EQ(std::memcmp(gid.raw + 12, &cfg().ipv4, 4), 0);
}

} // namespace
} // namespace vrnic::test
