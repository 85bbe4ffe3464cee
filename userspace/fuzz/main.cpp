// SPDX-License-Identifier: GPL-2.0-only
/*
 * vrnic-fuzz: send malformed and adversarial RoCEv2 packets at a live device.
 *
 *   vrnic-fuzz [OPTIONS] DST
 *
 * Datagrams go from an ordinary UDP socket, bound to --src, to DST:4791, in
 * sendmmsg() batches.  See mutate.hpp for the mutation classes and the rule
 * that keeps the real traffic of the live QPs (--target-qpn) out of harm's
 * way, lifted for RC and UC QPs with --foreign-source (--src is then an
 * address that is no live QP's peer), and the summary (-j for JSON) for
 * what the device's drop counters must show.
 */
#include "mutate.hpp"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <vrnic/fd.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

using namespace vrnic::fuzz;
using vrnic::Fd;
using Clock = std::chrono::steady_clock;

namespace {

[[noreturn]] void sys_error(const std::string &what)
{
	throw std::runtime_error(what + ": " + std::strerror(errno));
}

struct Addr {
	sockaddr_storage ss{};
	socklen_t len = 0;
};

Addr make_addr(const Endpoints &ep, bool dst, uint16_t port)
{
	Addr a;
	const auto &ip = dst ? ep.dst : ep.src;

	if (ep.family == 4) {
		auto *s = reinterpret_cast<sockaddr_in *>(&a.ss);
		s->sin_family = AF_INET;
		s->sin_port = htons(port);
		std::memcpy(&s->sin_addr, ip.data(), 4);
		a.len = sizeof(*s);
	} else {
		auto *s = reinterpret_cast<sockaddr_in6 *>(&a.ss);
		s->sin6_family = AF_INET6;
		s->sin6_port = htons(port);
		std::memcpy(&s->sin6_addr, ip.data(), 16);
		a.len = sizeof(*s);
	}
	return a;
}

/* The source address the routing table picks for @dst. */
std::string route_source(const std::string &dst)
{
	std::array<uint8_t, 16> raw{};
	const int fam = inet_pton(AF_INET, dst.c_str(), raw.data()) == 1 ? AF_INET : AF_INET6;
	Endpoints ep;

	ep.family = fam == AF_INET ? 4 : 6;
	if (inet_pton(fam, dst.c_str(), ep.dst.data()) != 1)
		throw std::runtime_error("'" + dst + "' is not an IPv4 or IPv6 address");
	Fd fd(::socket(fam, SOCK_DGRAM, 0));
	if (fd.get() < 0)
		sys_error("socket");
	Addr a = make_addr(ep, true, kRoceV2Port);
	if (::connect(fd.get(), reinterpret_cast<sockaddr *>(&a.ss), a.len))
		sys_error("no route to " + dst + " (connect)");
	Addr me;
	me.len = sizeof(me.ss);
	if (::getsockname(fd.get(), reinterpret_cast<sockaddr *>(&me.ss), &me.len))
		sys_error("getsockname");
	char buf[INET6_ADDRSTRLEN];
	const void *p = fam == AF_INET
		? static_cast<const void *>(&reinterpret_cast<sockaddr_in *>(&me.ss)->sin_addr)
		: static_cast<const void *>(&reinterpret_cast<sockaddr_in6 *>(&me.ss)->sin6_addr);
	return inet_ntop(fam, p, buf, sizeof(buf));
}

uint32_t number(const std::string &s, const std::string &what)
{
	size_t end = 0;
	unsigned long v;

	try {
		v = std::stoul(s, &end, 0);
	} catch (const std::exception &) {
		end = 0;
	}
	if (end != s.size() || s.empty() || v > 0xffffffffUL)
		throw CLI::ValidationError(what, "'" + s + "' is not a 32-bit number");
	return uint32_t(v);
}

/* QPN[:TYPE[:RQ_PSN[:SQ_PSN[:QKEY[:STATE]]]]] */
Target parse_target(const std::string &spec)
{
	std::vector<std::string> f;
	size_t pos = 0, c;

	while ((c = spec.find(':', pos)) != std::string::npos) {
		f.push_back(spec.substr(pos, c - pos));
		pos = c + 1;
	}
	f.push_back(spec.substr(pos));
	Target t;
	t.qpn = number(f[0], "--target-qpn") & kPsnMask;
	if (f.size() > 1) {
		if (f[1] == "rc") t.type = QpType::rc;
		else if (f[1] == "uc") t.type = QpType::uc;
		else if (f[1] == "ud") t.type = QpType::ud;
		else if (f[1] == "gsi") t.type = QpType::gsi;
		else throw CLI::ValidationError("--target-qpn", "type '" + f[1] +
						"' is not rc, uc, ud or gsi");
	}
	if (f.size() > 2) t.rq_psn = number(f[2], "--target-qpn") & kPsnMask;
	if (f.size() > 3) t.sq_psn = number(f[3], "--target-qpn") & kPsnMask;
	if (f.size() > 4) t.qkey = number(f[4], "--target-qpn");
	if (f.size() > 5) {
		/* rdma res show qp's names, either case */
		static const std::array<std::string_view, 7> states = {
			"reset", "init", "rtr", "rts", "sqd", "sqe", "err",
		};
		std::string low = f[5];
		for (char &c : low)
			c = char(std::tolower(static_cast<unsigned char>(c)));
		unsigned k = 0;
		while (k < states.size() && states[k] != low)
			k++;
		if (k == states.size())
			throw CLI::ValidationError("--target-qpn", "state '" + f[5] +
				"' is not reset, init, rtr, rts, sqd, sqe or err");
		t.state = QpState(k);
	}
	if (f.size() > 6)
		throw CLI::ValidationError("--target-qpn", "'" + spec +
			"': expected QPN[:TYPE[:RQ_PSN[:SQ_PSN[:QKEY[:STATE]]]]]");
	return t;
}

std::string hex(std::span<const uint8_t> p)
{
	std::string s;
	char b[4];

	for (size_t i = 0; i < p.size(); i++) {
		std::snprintf(b, sizeof(b), "%02x", p[i]);
		s += b;
		if (i + 1 < p.size())
			s += (i % 16 == 15) ? '\n' : ' ';
	}
	return s;
}

struct Tally {
	std::array<uint64_t, kClasses> sent{};
	std::array<uint64_t, kClasses> valid{};
	std::array<uint64_t, kFates> fate{};
	std::array<std::array<uint64_t, kFates>, kClasses> class_fate{};
	std::array<uint64_t, kDetails> detail{};
	uint64_t total = 0;
	uint64_t send_errors = 0;
	uint64_t retries = 0;

	void add(const Packet &p)
	{
		sent[unsigned(p.klass)]++;
		valid[unsigned(p.klass)] += p.valid_icrc;
		fate[unsigned(p.fate)]++;
		class_fate[unsigned(p.klass)][unsigned(p.fate)]++;
		if (p.fate == Fate::to_qp)
			detail[unsigned(p.detail)]++;
		total++;
	}
};

/* --show N (one packet in hex) or --list (one line per packet). */
int show_or_list(const Generator &g, int64_t show, uint64_t count, uint64_t seed)
{
	if (show >= 0) {
		std::vector<uint8_t> buf(g.max_len());
		Packet p = g.build(uint64_t(show), buf);
		std::cout << "packet " << show << " seed " << seed << " class "
			  << klass_name(p.klass) << " fate " << fate_name(p.fate)
			  << " valid-icrc " << p.valid_icrc << " len " << p.len
			  << " sport " << g.config().ep.sport << "\n"
			  << hex(std::span(buf).first(p.len)) << "\n";
		return 0;
	}
	std::vector<uint8_t> buf(g.max_len());
	for (uint64_t i = 0; i < count; i++) {
		Packet p = g.build(i, buf);
		std::printf("%llu %s %s icrc-%s", (unsigned long long)i,
			    std::string(klass_name(p.klass)).c_str(),
			    std::string(fate_name(p.fate)).c_str(),
			    p.valid_icrc ? "ok" : "bad");
		if (p.len >= kBthBytes)
			std::printf(" op 0x%02x qpn %u psn %u", buf[0],
				    get_be32(&buf[4]) & kPsnMask,
				    get_be32(&buf[8]) & kPsnMask);
		std::printf(" len %u\n", p.len);
	}
	return 0;
}

} // namespace

int main(int argc, char **argv)
{
	CLI::App app{"vrnic-fuzz: malformed and adversarial RoCEv2 packets at DST:4791"};
	std::string dst, src;
	uint64_t count = 1000000, seed = 1, rate = 0, batch = 64;
	int64_t show = -1;
	uint32_t sport = 0;
	std::vector<std::string> targets, rkeys;
	Config cfg;
	bool json = false;

	app.add_option("dst", dst, "IP address of the device under test")->required();
	app.add_option("--src", src, "source address to bind the socket to (default: the route's)");
	app.add_option("--sport", sport, "UDP source port (default: any free one)")
		->check(CLI::Range(0, 65535));
	app.add_option("-n,--count", count, "packets to send")->capture_default_str();
	app.add_option("--seed", seed, "random seed; the same seed sends the same packets")
		->capture_default_str();
	app.add_option("--rate", rate, "packets per second, 0 = as fast as possible")
		->capture_default_str();
	app.add_option("--target-qpn", targets,
		       "a QP of the device: QPN[:rc|uc|ud|gsi[:RQ_PSN[:SQ_PSN[:QKEY[:STATE]]]]], "
		       "STATE as rdma res show qp names it (default rts) "
		       "(repeat for each; name every QP the device has)");
	app.add_option("--target-rkey", rkeys, "a live rkey to aim at (repeatable)");
	app.add_option("--valid-icrc", cfg.valid_icrc,
		       "fraction of packets with a valid ICRC")
		->check(CLI::Range(0.0, 1.0))->capture_default_str();
	app.add_option("--mtu", cfg.mtu, "netdev MTU (IP packet bytes) on the way to DST")
		->check(CLI::Range(100, 65535))->capture_default_str();
	app.add_option("--path-mtu", cfg.path_mtu, "RoCE path MTU of the live QPs")
		->capture_default_str();
	app.add_option("--psn-guard", cfg.psn_guard,
		       "PSNs after a live QP's that are never forged with a valid ICRC "
		       "(but to RC and UC QPs with --foreign-source)")
		->capture_default_str();
	app.add_flag("--foreign-source", cfg.foreign_source,
		     "--src is no live QP's peer: packets that would reach an RC or UC QP "
		     "are dropped for their address (rx-drop-addr), and class forged "
		     "aims at exactly the PSNs they expect");
	app.add_option("--forged-weight", cfg.forged_weight,
		       "with --foreign-source: class forged takes this many packet "
		       "numbers of every 12 + this many, the other classes one each")
		->check(CLI::Range(0, 1000))->capture_default_str();
	app.add_option("--batch", batch, "datagrams per sendmmsg()")
		->check(CLI::Range(1, 1024))->capture_default_str();
	app.add_option("--show", show, "print packet N of this seed in hex and exit");
	std::vector<std::string> only;
	app.add_option("--class", only, "send only packets of this class (repeatable; "
		       "the packets keep their numbers, so --show and --list still "
		       "name them)");
	bool list = false;
	app.add_flag("--list", list, "print one line per packet (index, class, fate, "
		     "opcode, qpn, psn, length) instead of sending");
	app.add_flag("-j,--json", json, "print the summary as JSON");
	CLI11_PARSE(app, argc, argv);

	try {
		std::array<bool, kClasses> want{};
		want.fill(only.empty());
		for (const auto &name : only) {
			unsigned c = 0;
			while (c < kClasses && klass_name(Klass(c)) != name)
				c++;
			if (c == kClasses)
				throw CLI::ValidationError("--class", "no class '" + name + "'");
			if (Klass(c) == Klass::forged && !cfg.foreign_source)
				throw CLI::ValidationError("--class", "class forged is sent "
							   "only with --foreign-source");
			if (Klass(c) == Klass::forged && cfg.forged_weight == 0)
				throw CLI::ValidationError("--class", "class forged with "
							   "--forged-weight 0 sends nothing");
			want[c] = true;
		}
		for (const auto &t : targets)
			cfg.targets.push_back(parse_target(t));
		for (const auto &k : rkeys)
			cfg.rkeys.push_back(number(k, "--target-rkey"));
		const bool src_given = !src.empty();
		if (!src_given)
			src = route_source(dst);
		auto ep = endpoints_for(src, dst);
		if (!ep)
			throw std::runtime_error("--src " + src + " and " + dst +
						 " must be addresses of one family");
		cfg.seed = seed;
		cfg.ep = *ep;

		if (show >= 0 || list) {
			/* Offline: the packets of a run, given its --src and --sport. */
			cfg.ep.sport = uint16_t(sport);
			Generator offline(cfg);
			return show_or_list(offline, show, list ? count : 0, seed);
		}
		if (!src_given && cfg.foreign_source)
			std::cerr << "vrnic-fuzz: --foreign-source from the route's source "
				     "address " << src << ": make sure no live QP's peer has it\n";
		const int fam = ep->family == 4 ? AF_INET : AF_INET6;
		Fd fd(::socket(fam, SOCK_DGRAM, 0));
		if (fd.get() < 0)
			sys_error("socket");
		/*
		 * DF and no fragmentation: IPv4 then goes out with ID 0 from an
		 * unconnected socket, which the ICRC covers.
		 */
		int v = fam == AF_INET ? IP_PMTUDISC_DO : IPV6_PMTUDISC_DO;
		if (fam == AF_INET ? ::setsockopt(fd.get(), IPPROTO_IP, IP_MTU_DISCOVER, &v, sizeof(v))
				   : ::setsockopt(fd.get(), IPPROTO_IPV6, IPV6_MTU_DISCOVER, &v, sizeof(v)))
			sys_error("setsockopt(MTU_DISCOVER)");
		v = 4 << 20;
		::setsockopt(fd.get(), SOL_SOCKET, SO_SNDBUF, &v, sizeof(v));
		Addr me = make_addr(cfg.ep, false, uint16_t(sport));
		if (::bind(fd.get(), reinterpret_cast<sockaddr *>(&me.ss), me.len))
			sys_error("bind to " + src + " port " + std::to_string(sport) +
				  " (is --src an address of this namespace?)");
		me.len = sizeof(me.ss);
		if (::getsockname(fd.get(), reinterpret_cast<sockaddr *>(&me.ss), &me.len))
			sys_error("getsockname");
		cfg.ep.sport = ntohs(fam == AF_INET
			? reinterpret_cast<sockaddr_in *>(&me.ss)->sin_port
			: reinterpret_cast<sockaddr_in6 *>(&me.ss)->sin6_port);

		Generator gen(cfg);
		Addr to = make_addr(cfg.ep, true, kRoceV2Port);
		std::vector<std::vector<uint8_t>> bufs(batch, std::vector<uint8_t>(gen.max_len()));
		std::vector<Packet> pk(batch);
		std::vector<iovec> iov(batch);
		std::vector<mmsghdr> msgs(batch);
		Tally tally;
		const auto t0 = Clock::now();

		uint64_t index = 0;	/* packet numbers, skipping unwanted classes */
		for (uint64_t i = 0; i < count;) {
			const unsigned n = unsigned(std::min<uint64_t>(batch, count - i));
			for (unsigned k = 0; k < n; k++) {
				while (!want[unsigned(gen.klass_of(index))])
					index++;
				pk[k] = gen.build(index++, bufs[k]);
				iov[k] = {bufs[k].data(), pk[k].len};
				msgs[k] = {};
				msgs[k].msg_hdr.msg_name = &to.ss;
				msgs[k].msg_hdr.msg_namelen = to.len;
				msgs[k].msg_hdr.msg_iov = &iov[k];
				msgs[k].msg_hdr.msg_iovlen = 1;
			}
			unsigned done = 0;
			while (done < n) {
				int r = ::sendmmsg(fd.get(), &msgs[done], n - done, 0);
				if (r > 0) {
					for (int k = 0; k < r; k++)
						tally.add(pk[done + k]);
					done += r;
					continue;
				}
				if (errno == EINTR)
					continue;
				if (errno == ENOBUFS || errno == EAGAIN) {
					tally.retries++;
					std::this_thread::sleep_for(std::chrono::microseconds(200));
					continue;
				}
				if (errno == EMSGSIZE || errno == ECONNREFUSED) {
					tally.send_errors++;	/* this one datagram is lost */
					done++;
					continue;
				}
				sys_error("sendmmsg to " + dst);
			}
			i += n;
			if (rate) {
				const auto due = t0 + std::chrono::duration<double>(double(i) / rate);
				std::this_thread::sleep_until(
					std::chrono::time_point_cast<Clock::duration>(due));
			}
		}
		const double secs = std::chrono::duration<double>(Clock::now() - t0).count();

		nlohmann::ordered_json j;
		j["schema-version"] = 1;
		j["tool"] = "vrnic-fuzz";
		j["seed"] = seed;
		j["src"] = src;
		j["dst"] = dst;
		j["sport"] = cfg.ep.sport;
		j["foreign-source"] = cfg.foreign_source;
		j["forged-weight"] = cfg.foreign_source ? cfg.forged_weight : 0;
		j["count"] = count;
		j["sent"] = tally.total;
		j["send-errors"] = tally.send_errors;
		j["send-retries"] = tally.retries;
		j["elapsed-s"] = secs;
		j["pps"] = secs > 0 ? double(tally.total) / secs : 0.0;
		j["valid-icrc"] = 0;
		uint64_t valid = 0;
		for (unsigned c = 0; c < kClasses; c++) {
			auto &e = j["classes"][std::string(klass_name(Klass(c)))];
			e["sent"] = tally.sent[c];
			e["valid-icrc"] = tally.valid[c];
			for (unsigned f = 0; f < kFates; f++)
				e["expect"][std::string(fate_name(Fate(f)))] = tally.class_fate[c][f];
			valid += tally.valid[c];
		}
		j["valid-icrc"] = valid;
		for (unsigned f = 0; f < kFates; f++)
			j["expect"][std::string(fate_name(Fate(f)))] = tally.fate[f];
		for (unsigned d = 0; d < kDetails; d++)
			j["to-qp"][std::string(detail_name(Detail(d)))] = tally.detail[d];

		if (json) {
			std::cout << j.dump(1) << "\n";
		} else {
			std::printf("sent %llu of %llu packets in %.1f s (%.0f/s), seed %llu, "
				    "%s:%u -> %s:%u%s, %llu send errors\n",
				    (unsigned long long)tally.total, (unsigned long long)count,
				    secs, j["pps"].get<double>(), (unsigned long long)seed,
				    src.c_str(), cfg.ep.sport, dst.c_str(), kRoceV2Port,
				    cfg.foreign_source ? " (foreign source)" : "",
				    (unsigned long long)tally.send_errors);
			for (unsigned c = 0; c < kClasses; c++)
				std::printf("class %-13s sent %9llu valid-icrc %9llu\n",
					    std::string(klass_name(Klass(c))).c_str(),
					    (unsigned long long)tally.sent[c],
					    (unsigned long long)tally.valid[c]);
			for (unsigned f = 0; f < kFates; f++)
				std::printf("expect %-17s %9llu\n",
					    std::string(fate_name(Fate(f))).c_str(),
					    (unsigned long long)tally.fate[f]);
			for (unsigned d = 0; d < kDetails; d++)
				std::printf("to-qp  %-17s %9llu\n",
					    std::string(detail_name(Detail(d))).c_str(),
					    (unsigned long long)tally.detail[d]);
		}
		return tally.send_errors ? 2 : 0;
	} catch (const CLI::Error &e) {
		return app.exit(e);
	} catch (const std::exception &e) {
		std::cerr << "vrnic-fuzz: " << e.what() << "\n";
		return 1;
	}
}
