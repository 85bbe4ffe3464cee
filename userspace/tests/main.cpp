// SPDX-License-Identifier: GPL-2.0-only
/*
 * vrnic-conformance: verbs conformance suite for one RoCEv2 device, alone
 * (loopback through its own GID) or against a peer device (interop).
 *
 *   vrnic-conformance --device rxe0 [--gid-index N] [--port N]
 *                     [--peer-device DEV [--peer-gid-index N]]
 *                     [--driver NAME] [--peer-driver NAME]
 *                     [--timeout-ms MS] [--quiet-ms MS] [gtest flags]
 *   vrnic-conformance --list-devices
 *
 * Exit status: 0 all tests passed, 1 a test failed, 2 usage error or the
 * device is missing or unusable (no test ran).
 */

#include "fixture.hpp"

#include <gtest/gtest.h>

#include <endian.h>

#include <charconv>
#include <cstdio>
#include <cstring>
#include <exception>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace {

using vrnic::test::config;
using vrnic::test::format_gid;
using vrnic::test::format_ipv4;

constexpr int kExitUsage = 2;

void usage(FILE *out)
{
	std::fprintf(out,
		"usage: vrnic-conformance --device DEV [options] [gtest flags]\n"
		"       vrnic-conformance --list-devices\n"
		"\n"
		"  --device DEV      RDMA device under test (e.g. rxe0, vrnic0)\n"
		"  --gid-index N     GID index to use (default: first RoCE v2 GID,\n"
		"                    IPv4-mapped preferred)\n"
		"  --peer-device DEV put the remote side of every two-QP test\n"
		"                    (the responder: second QP, its PD, CQs and\n"
		"                    MRs) on DEV; the requester stays on --device.\n"
		"                    Default: both QPs on --device (loopback)\n"
		"  --peer-gid-index N\n"
		"                    GID index on the peer (default: chosen as\n"
		"                    for --device)\n"
		"  --driver NAME, --peer-driver NAME\n"
		"                    what --device (--peer-device) is: vrnic,\n"
		"                    rxe, ...  On vrnic, a test that would skip\n"
		"                    for a missing feature or prerequisite\n"
		"                    (fault injection, atomics, rdma_cm binding\n"
		"                    to it) fails instead\n"
		"  --port N          port number, on both devices (default 1)\n"
		"  --timeout-ms MS   deadline for each expected completion or\n"
		"                    event (default 10000)\n"
		"  --quiet-ms MS     how long 'nothing arrives' is watched\n"
		"                    (default 500)\n"
		"  --list-devices    list RDMA devices, ports and GIDs, then exit\n"
		"\n"
		"Exit status: 0 pass, 1 test failure, 2 usage or device error.\n"
		"Run with --gtest_help for the GoogleTest flags.\n");
}

struct Options {
	std::optional<std::string> device;
	std::optional<int> gid_index;
	std::optional<std::string> peer_device;
	std::optional<int> peer_gid_index;
	std::string driver;
	std::string peer_driver;
	int port = 1;
	long timeout_ms = 10000;
	long quiet_ms = 500;
	bool list_devices = false;
	bool help = false;
};

template <typename T>
bool parse_number(std::string_view s, T &out)
{
	auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
	return ec == std::errc() && end == s.data() + s.size();
}

/*
 * Take our own flags out of argv (both "--flag value" and "--flag=value"),
 * leaving argv[0] and everything else for GoogleTest. Returns false on a
 * usage error, after printing it.
 */
bool parse_args(int &argc, char **argv, Options &opt)
{
	std::vector<char *> rest{argv[0]};

	for (int i = 1; i < argc; i++) {
		std::string_view arg = argv[i];
		std::string_view name = arg, value;
		bool has_value = false;
		auto eq = arg.find('=');

		if (arg.starts_with("--") && eq != std::string_view::npos) {
			name = arg.substr(0, eq);
			value = arg.substr(eq + 1);
			has_value = true;
		}

		auto take_value = [&]() -> bool {
			if (has_value)
				return true;
			if (i + 1 >= argc) {
				std::fprintf(stderr,
					     "vrnic-conformance: %.*s needs a value\n",
					     static_cast<int>(name.size()),
					     name.data());
				return false;
			}
			value = argv[++i];
			return true;
		};
		auto bad_number = [&]() {
			std::fprintf(stderr,
				     "vrnic-conformance: bad value '%.*s' for %.*s\n",
				     static_cast<int>(value.size()), value.data(),
				     static_cast<int>(name.size()), name.data());
			return false;
		};

		if (name == "--device") {
			if (!take_value())
				return false;
			opt.device = std::string(value);
		} else if (name == "--gid-index" ||
			   name == "--peer-gid-index") {
			auto &slot = name == "--gid-index" ? opt.gid_index :
							     opt.peer_gid_index;
			int n;

			if (!take_value())
				return false;
			if (!parse_number(value, n) || n < 0)
				return bad_number();
			slot = n;
		} else if (name == "--peer-device") {
			if (!take_value())
				return false;
			opt.peer_device = std::string(value);
		} else if (name == "--driver" || name == "--peer-driver") {
			if (!take_value())
				return false;
			(name == "--driver" ? opt.driver : opt.peer_driver) =
				std::string(value);
		} else if (name == "--port") {
			if (!take_value())
				return false;
			if (!parse_number(value, opt.port) || opt.port < 1 ||
			    opt.port > 255)
				return bad_number();
		} else if (name == "--timeout-ms") {
			if (!take_value())
				return false;
			if (!parse_number(value, opt.timeout_ms) ||
			    opt.timeout_ms < 1)
				return bad_number();
		} else if (name == "--quiet-ms") {
			if (!take_value())
				return false;
			if (!parse_number(value, opt.quiet_ms) ||
			    opt.quiet_ms < 1)
				return bad_number();
		} else if (arg == "--list-devices") {
			opt.list_devices = true;
		} else if (arg == "-h" || arg == "-?" || arg == "/?") {
			/* GoogleTest 1.12 knows only --help: hand it that. */
			static char gtest_help[] = "--help";

			opt.help = true;
			rest.push_back(gtest_help);
		} else {
			/* GoogleTest's own help flags: print ours as well. */
			if (arg == "--help" || arg.starts_with("--gtest_help"))
				opt.help = true;
			rest.push_back(argv[i]);
		}
	}
	for (size_t i = 0; i < rest.size(); i++)
		argv[i] = rest[i];
	argv[rest.size()] = nullptr;
	argc = static_cast<int>(rest.size());
	return true;
}

const char *port_state_str(ibv_port_state s)
{
	switch (s) {
	case IBV_PORT_NOP: return "NOP";
	case IBV_PORT_DOWN: return "DOWN";
	case IBV_PORT_INIT: return "INIT";
	case IBV_PORT_ARMED: return "ARMED";
	case IBV_PORT_ACTIVE: return "ACTIVE";
	case IBV_PORT_ACTIVE_DEFER: return "ACTIVE_DEFER";
	}
	return "?";
}

int list_devices()
{
	try {
		vrnic::verbs::DeviceList list;

		if (list.devices().empty())
			std::printf("no RDMA devices\n");
		for (const std::string &name : list.names()) {
			vrnic::verbs::Context ctx(name);
			ibv_device_attr dattr = ctx.query_device();

			std::printf("%s: node_guid 0x%016llx ports %u\n",
				    name.c_str(),
				    static_cast<unsigned long long>(
					    be64toh(dattr.node_guid)),
				    dattr.phys_port_cnt);
			for (uint8_t port = 1; port <= dattr.phys_port_cnt;
			     port++) {
				ibv_port_attr pattr = ctx.query_port(port);

				std::printf("  port %u: %s, link %s, active_mtu %u\n",
					    port, port_state_str(pattr.state),
					    pattr.link_layer ==
							    IBV_LINK_LAYER_ETHERNET ?
						    "Ethernet" :
						    "InfiniBand",
					    128u << pattr.active_mtu);
				for (int i = 0; i < pattr.gid_tbl_len; i++) {
					ibv_gid gid{};

					if (ibv_query_gid(ctx.get(), port, i, &gid) ||
					    vrnic::test::gid_is_zero(gid))
						continue;
					std::printf("    gid %d: %s (%s)\n", i,
						    format_gid(gid).c_str(),
						    vrnic::test::gid_type_of(
							    ctx.get(), name, port, i)
							    .c_str());
				}
			}
		}
	} catch (const std::exception &e) {
		std::fprintf(stderr, "vrnic-conformance: %s\n", e.what());
		return kExitUsage;
	}
	return 0;
}

/*
 * Open one device, check its port and choose its GID (the given index, or
 * choose_gid()); fill out and print a summary line. On failure print why
 * (flag names the option that chose the device) and return false.
 */
bool setup_one(const std::string &device, std::optional<int> gid_index,
	       uint8_t port, const char *flag, vrnic::test::DeviceConfig &out)
{
	out.device = device;
	out.port = port;

	vrnic::verbs::DeviceList list;

	if (!list.find(device)) {
		std::string names;

		for (const auto &n : list.names())
			names += (names.empty() ? "" : ", ") + n;
		std::fprintf(stderr,
			     "vrnic-conformance: %s: RDMA device '%s' not found "
			     "(available: %s)\n",
			     flag, device.c_str(),
			     names.empty() ? "none" : names.c_str());
		return false;
	}

	vrnic::verbs::Context ctx(device);
	ibv_device_attr dattr = ctx.query_device();

	if (port > dattr.phys_port_cnt) {
		std::fprintf(stderr,
			     "vrnic-conformance: %s has %u port(s), no port %u\n",
			     device.c_str(), dattr.phys_port_cnt, port);
		return false;
	}

	ibv_port_attr pattr = ctx.query_port(port);

	if (gid_index) {
		int idx = *gid_index;

		if (idx >= pattr.gid_tbl_len) {
			std::fprintf(stderr,
				     "vrnic-conformance: %s: gid index %d out of "
				     "range (table of %s has %d entries)\n",
				     flag, idx, device.c_str(),
				     pattr.gid_tbl_len);
			return false;
		}
		out.gid_index = idx;
		out.gid = ctx.query_gid(port, idx);
		out.gid_type = vrnic::test::gid_type_of(ctx.get(), device, port,
							idx);
		if (vrnic::test::gid_is_zero(out.gid)) {
			std::fprintf(stderr,
				     "vrnic-conformance: gid index %d of %s "
				     "port %u is empty\n",
				     idx, device.c_str(), port);
			return false;
		}
		out.has_ipv4 = vrnic::test::gid_is_ipv4_mapped(out.gid);
		if (out.has_ipv4)
			std::memcpy(&out.ipv4, out.gid.raw + 12, 4);
	} else {
		auto choice = vrnic::test::choose_gid(ctx.get(), device, port);

		if (!choice) {
			std::fprintf(stderr,
				     "vrnic-conformance: %s port %u has no "
				     "RoCE v2 GID (is the netdev up with an "
				     "IP address?)\n",
				     device.c_str(), port);
			return false;
		}
		out.gid_index = choice->index;
		out.gid = choice->gid;
		out.gid_type = choice->type;
		out.has_ipv4 = choice->has_ipv4;
		out.ipv4 = choice->ipv4;
	}

	std::printf("vrnic-conformance: %s %s port %u gid-index %d gid %s "
		    "(%s)%s%s, active_mtu %u\n",
		    flag + 2, out.device.c_str(), out.port, out.gid_index,
		    format_gid(out.gid).c_str(), out.gid_type.c_str(),
		    out.has_ipv4 ? ", ipv4 " : "",
		    out.has_ipv4 ? format_ipv4(out.ipv4).c_str() : "",
		    128u << pattr.active_mtu);
	return true;
}

/* Check the devices and fill config(); on failure print why, return false. */
bool setup_device(const Options &opt)
{
	auto &cfg = config();

	if (!opt.device) {
		std::fprintf(stderr, "vrnic-conformance: --device is required\n\n");
		usage(stderr);
		return false;
	}
	if (opt.peer_gid_index && !opt.peer_device) {
		std::fprintf(stderr, "vrnic-conformance: --peer-gid-index needs "
				     "--peer-device\n");
		return false;
	}
	if (!opt.peer_driver.empty() && !opt.peer_device) {
		std::fprintf(stderr, "vrnic-conformance: --peer-driver needs "
				     "--peer-device\n");
		return false;
	}
	cfg.timeout = std::chrono::milliseconds(opt.timeout_ms);
	cfg.quiet = std::chrono::milliseconds(opt.quiet_ms);

	try {
		const auto port = static_cast<uint8_t>(opt.port);

		if (!setup_one(*opt.device, opt.gid_index, port, "--device", cfg))
			return false;
		cfg.driver = opt.driver;
		if (opt.peer_device) {
			vrnic::test::DeviceConfig peer;

			if (!setup_one(*opt.peer_device, opt.peer_gid_index, port,
				       "--peer-device", peer))
				return false;
			peer.driver = opt.peer_driver;
			cfg.peer = peer;
		}
		std::printf("vrnic-conformance: %s, timeout %ld ms\n",
			    cfg.peer ? "two devices (requester on --device, "
				       "responder on --peer-device)" :
				       "one device (loopback through its own GID)",
			    static_cast<long>(cfg.timeout.count()));
		std::fflush(stdout);
	} catch (const std::exception &e) {
		std::fprintf(stderr, "vrnic-conformance: %s\n", e.what());
		return false;
	}
	return true;
}

} // namespace

int main(int argc, char **argv)
{
	Options opt;

	if (!parse_args(argc, argv, opt))
		return kExitUsage;
	if (opt.help)
		usage(stdout);

	::testing::InitGoogleTest(&argc, argv);
	/* GoogleTest leaves its help flags in argv; anything else is unknown. */
	if (argc > 1 && !opt.help) {
		std::fprintf(stderr, "vrnic-conformance: unknown argument '%s'\n\n",
			     argv[1]);
		usage(stderr);
		return kExitUsage;
	}

	if (opt.list_devices)
		return list_devices();
	/* Listing the tests or the help needs no device. */
	if (opt.help || GTEST_FLAG_GET(list_tests))
		return RUN_ALL_TESTS();
	if (!setup_device(opt))
		return kExitUsage;
	return RUN_ALL_TESTS();
}
