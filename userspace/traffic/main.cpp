// SPDX-License-Identifier: GPL-2.0-only
/*
 * vrnic-traffic: RC traffic with every byte verified at the receiver.
 *
 *   vrnic-traffic --device vrnic0 [OPTIONS]            # server
 *   vrnic-traffic --device vrnic1 [OPTIONS] SERVER     # client
 *
 * The client chooses the op, sizes, seed and QP retry knobs and sends them
 * to the server over the TCP side channel; both print the combined result
 * (text, or JSON with -j).  Exit codes: 0 everything requested was
 * transferred and verified with success completions; 3 the run ended in a
 * retry-exceeded error (and flushes) and --allow-retry-exceeded was given;
 * 2 bad usage or setup; 1 anything else (mismatch, error completion, hang
 * caught by --deadline).
 */

#include "session.hpp"
#include "size.hpp"

#include <CLI/CLI.hpp>

#include <iostream>

using namespace vrnic::traffic;

int main(int argc, char **argv)
{
	CLI::App app{"vrnic-traffic: byte-verified RC traffic between two RDMA devices.\n"
		     "Without SERVER it waits for a client; with SERVER it connects, runs and\n"
		     "prints the result of both sides."};
	Options o;
	std::string op = "write", bytes = "16M", size = "64K";
	int timeout = o.timeout, retry = o.retry, rnr_retry = o.rnr_retry, ib_port = o.ib_port;

	app.add_option("SERVER", o.server, "the server's address (client mode)");
	app.add_option("-d,--device", o.device, "RDMA device, e.g. vrnic0")->required();
	app.add_option("-x,--gid-index", o.gid_index,
		       "GID index (default: the first IPv4-mapped GID)");
	app.add_option("--ib-port", ib_port, "device port")->capture_default_str();
	app.add_option("-p,--port", o.port, "TCP port of the side channel")->capture_default_str();
	app.add_option("-o,--op", op, "send, write, read or atomic")
		->capture_default_str()
		->check(CLI::IsMember({"send", "write", "read", "atomic"}));
	app.add_option("-b,--bytes", bytes, "total bytes (K/M/G suffixes; atomics count 8 each)")
		->capture_default_str();
	app.add_option("-s,--size", size, "message size (K/M suffixes)")->capture_default_str();
	app.add_option("-q,--depth", o.depth, "outstanding messages")
		->capture_default_str()->check(CLI::Range(1u, 4096u));
	app.add_option("--timeout", timeout, "QP local ACK timeout exponent (4.096 us << N)")
		->capture_default_str()->check(CLI::Range(0, 31));
	app.add_option("--retry", retry, "QP retry_cnt")->capture_default_str()->check(CLI::Range(0, 7));
	app.add_option("--rnr-retry", rnr_retry, "QP rnr_retry (7: forever)")
		->capture_default_str()->check(CLI::Range(0, 7));
	app.add_option("--seed", o.seed, "pattern seed")->capture_default_str();
	app.add_option("--deadline", o.deadline_s,
		       "seconds before the run is declared hung and reported")
		->capture_default_str()->check(CLI::PositiveNumber);
	app.add_flag("--allow-retry-exceeded", o.allow_retry_exceeded,
		     "a run that ends in retry-exceeded exits 3, not 1");
	app.add_flag("-j,--json", o.json, "print the result as JSON");

	try {
		app.parse(argc, argv);
	} catch (const CLI::ParseError &e) {
		int rc = app.exit(e);

		return rc ? kExitUsage : 0;
	}

	auto b = parse_size(bytes);
	auto s = parse_size(size);

	if (!b || *b == 0 || !s || *s == 0 || *s > (1u << 30)) {
		std::cerr << "vrnic-traffic: --bytes and --size take a positive count with an "
			     "optional K, M or G suffix (size at most 1G)\n";
		return kExitUsage;
	}
	o.op = *parse_op(op);
	o.bytes = *b;
	o.size = static_cast<uint32_t>(*s);
	o.timeout = static_cast<uint8_t>(timeout);
	o.retry = static_cast<uint8_t>(retry);
	o.rnr_retry = static_cast<uint8_t>(rnr_retry);
	o.ib_port = static_cast<uint8_t>(ib_port);

	try {
		return o.server.empty() ? run_server(o) : run_client(o);
	} catch (const std::exception &e) {
		std::cerr << "vrnic-traffic: " << e.what() << "\n";
		return kExitUsage;
	}
}
