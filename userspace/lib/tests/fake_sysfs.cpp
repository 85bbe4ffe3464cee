// SPDX-License-Identifier: GPL-2.0-only
/*
 * The fake sysfs tree for host tests.
 */
#include "fake_sysfs.hpp"

#include <cstdlib>
#include <fstream>
#include <stdexcept>

#include "vrnic/knobs.hpp"

namespace fs = std::filesystem;

namespace vrnic::test {

FakeSysfs::FakeSysfs()
{
	std::string tmpl = (fs::temp_directory_path() / "vrnic-sysfs-XXXXXX").string();
	if (!mkdtemp(tmpl.data()))
		throw std::runtime_error("mkdtemp failed");
	root_ = tmpl;
	fs::create_directories(root_ / "class/infiniband");
}

FakeSysfs::~FakeSysfs()
{
	std::error_code ec;
	fs::remove_all(root_, ec);
}

void FakeSysfs::file(const fs::path &rel, std::string_view contents)
{
	auto p = root_ / rel;
	fs::create_directories(p.parent_path());
	std::ofstream(p) << contents << '\n';
}

void FakeSysfs::counter(std::string_view dev, unsigned port, std::string_view name,
			std::uint64_t value)
{
	file(fs::path("class/infiniband") / std::string(dev) / "ports" / std::to_string(port) /
		     "hw_counters" / std::string(name),
	     std::to_string(value));
}

static void add_port(FakeSysfs &f, const fs::path &d, std::string_view netdev)
{
	f.file(d / "node_desc", "vrnic");
	f.file(d / "ports/1/state", "4: ACTIVE");
	f.file(d / "ports/1/phys_state", "5: LinkUp");
	f.file(d / "ports/1/gids/0", "fe80:0000:0000:0000:5054:00ff:fe12:3456");
	f.file(d / "ports/1/gids/1", "0000:0000:0000:0000:0000:ffff:0a63:0001");
	f.file(d / "ports/1/gids/2", "0000:0000:0000:0000:0000:0000:0000:0000");
	f.file(d / "ports/1/gids/3", "0000:0000:0000:0000:0000:0000:0000:0000");
	f.file(d / "ports/1/gid_attrs/ndevs/0", netdev);
	f.file(d / "ports/1/hw_counters/lifespan", "10");
}

void FakeSysfs::add_vrnic(std::string_view dev, std::string_view netdev)
{
	auto d = fs::path("class/infiniband") / std::string(dev);
	add_port(*this, d, netdev);
	for (auto c : {"sent_pkts", "rcvd_pkts", "rx_drop_malformed", "rx_drop_icrc",
		       "rx_drop_no_qp", "rx_drop_qp_state", "rx_drop_qkey", "duplicate_request",
		       "out_of_seq_request", "rcvd_seq_err", "send_rnr_err", "rcvd_rnr_err",
		       "retransmits", "retry_exceeded_err", "remote_access_err", "send_err"})
		counter(dev, 1, c, 0);
}

void FakeSysfs::add_rxe(std::string_view dev)
{
	auto d = fs::path("class/infiniband") / std::string(dev);
	add_port(*this, d, "eth1");
	file(d / "node_desc", "rxe");
	for (auto c : {"sent_pkts", "rcvd_pkts", "duplicate_request", "out_of_seq_request",
		       "rcvd_rnr_err", "send_rnr_err", "rcvd_seq_err", "ack_deferred",
		       "retry_exceeded_err", "retry_rnr_exceeded_err", "completer_retry_err",
		       "send_err", "link_downed", "rdma_sends", "rdma_recvs"})
		counter(dev, 1, c, 0);
}

void FakeSysfs::add_model(std::string_view dev)
{
	for (const auto &k : knob_table()) {
		/* As the kernel shows them: keyword knobs list their choices,
		 * the current one in brackets ("[off] account pace"). */
		std::string v;
		if (k.kind == KnobKind::keyword) {
			for (auto w : k.words) {
				if (!v.empty())
					v += ' ';
				v += w == k.def ? "[" + std::string(w) + "]" : std::string(w);
			}
		} else {
			v = k.def;
		}
		file(fs::path("class/infiniband") / std::string(dev) / "model" / std::string(k.name), v);
	}
}

} // namespace vrnic::test
