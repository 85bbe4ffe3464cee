// SPDX-License-Identifier: GPL-2.0-only
/*
 * vrnic-bench: running a sweep on live devices (see runner.hpp).
 *
 * perftest runs as it would by hand: `ip netns exec NS <tool> -d DEV -x GID
 * ...`, the server first, the client once the server listens.
 *
 * Copyright (c) 2026 The vrnic authors
 */
#include "runner.hpp"

#include "workloads.hpp"
#include "perftest.hpp"
#include "vrnic/counters.hpp"
#include "vrnic/error.hpp"
#include "vrnic/knobs.hpp"
#include "vrnic/sysfs.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include <fmt/format.h>

extern char **environ;

namespace vrnic::bench {

namespace {

/* A child process; killed and reaped if it is still there at the end. */
class Child {
public:
	Child(const std::vector<std::string> &argv, const std::filesystem::path &log)
	{
		std::vector<char *> args;
		for (const auto &a : argv)
			args.push_back(const_cast<char *>(a.c_str()));
		args.push_back(nullptr);
		posix_spawn_file_actions_t fa;
		posix_spawn_file_actions_init(&fa);
		posix_spawn_file_actions_addopen(&fa, 1, log.c_str(),
						 O_WRONLY | O_CREAT | O_TRUNC, 0644);
		posix_spawn_file_actions_adddup2(&fa, 1, 2);
		int err = posix_spawnp(&pid_, args[0], &fa, nullptr, args.data(), environ);
		posix_spawn_file_actions_destroy(&fa);
		if (err)
			throw Error(fmt::format("cannot run {}: {}", argv[0], std::strerror(err)));
	}
	Child(const Child &) = delete;
	Child &operator=(const Child &) = delete;
	~Child()
	{
		if (pid_ > 0) {
			kill(pid_, SIGKILL);
			waitpid(pid_, nullptr, 0);
		}
	}
	/* The exit status (128 + signal when killed). */
	int wait()
	{
		int st = 0;

		if (waitpid(pid_, &st, 0) < 0)
			st = 0;
		pid_ = -1;
		return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	}

private:
	pid_t pid_ = -1;
};

std::string slurp(const std::filesystem::path &p)
{
	std::ifstream in(p);
	std::stringstream ss;
	ss << in.rdbuf();
	return ss.str();
}

/* The GID index of @dev's first RoCE v2 IPv4-mapped GID (what perftest's -x wants). */
std::string gid_index(const Sysfs &fs, const std::string &dev)
{
	auto port = fs.dev_path(dev) / "ports/1";
	for (int i = 0; i < 16; i++) {
		auto gid = fs.read(port / "gids" / std::to_string(i));
		auto type = fs.read(port / "gid_attrs/types" / std::to_string(i));
		if (gid && type && *type == "RoCE v2" &&
		    gid->rfind("0000:0000:0000:0000:0000:ffff:", 0) == 0)
			return std::to_string(i);
	}
	throw Error(fmt::format("{} has no RoCE v2 IPv4 GID", dev),
		    "give its netdev an IPv4 address and bring it up");
}

Deltas counters(const Sysfs &fs, const std::string &dev)
{
	Deltas d;
	for (auto &[name, value] : sample_counters(fs, dev, 1, Clock::now()).values)
		d[name] = value;
	return d;
}

Deltas minus(const Deltas &after, const Deltas &before)
{
	Deltas d;
	for (const auto &[name, v] : after) {
		auto it = before.find(name);
		d[name] = it != before.end() && it->second <= v ? v - it->second : 0;
	}
	return d;
}

std::map<std::string, std::string> knob_map(const Sysfs &fs, const std::string &dev)
{
	std::map<std::string, std::string> m;
	for (const auto &k : read_knobs(fs, dev))
		m[k.name] = knob_value_text(k.value);
	return m;
}

class Bench {
public:
	Bench(const Topology &t, const std::filesystem::path &logdir)
		: t_(t), logdir_(logdir), fs_(Sysfs::from_env())
	{
		for (const auto &dev : {t.server_dev, t.client_dev})
			if (!has_model(fs_, dev))
				throw Error(dev + " is not a vrnic device with the hardware model",
					    "create it: rdma link add " + dev +
						    " type vrnic netdev <netdev>");
		sgid_ = gid_index(fs_, t.server_dev);
		cgid_ = gid_index(fs_, t.client_dev);
	}

	/* Set @knobs on both devices; remember the first value of each. */
	void set(const Knobs &knobs)
	{
		for (const auto &[name, value] : knobs)
			for (const auto &dev : {t_.server_dev, t_.client_dev}) {
				auto path = knob_path(fs_, dev, name);
				auto old = fs_.read(path);
				if (old && !saved_.count({dev, name}))
					saved_[{dev, name}] = knob_value_text(*old);
				if (int err = fs_.write(path, value))
					throw Error(fmt::format("{}: cannot set {} to {}: {}", dev,
								name, value, std::strerror(err)),
						    "see the kernel log for the range it takes; "
						    "EBUSY means QPs still hold contexts");
			}
	}

	void restore()
	{
		for (const auto &[key, value] : saved_)
			fs_.write(knob_path(fs_, key.first, key.second), value);
		saved_.clear();
	}

	/* One run, and how much both devices' counters grew over it. */
	RunResult run(const Run &r, const std::string &tag)
	{
		RunResult res;
		auto s0 = counters(fs_, t_.server_dev), c0 = counters(fs_, t_.client_dev);
		perform(r, tag, res);
		res.server = minus(counters(fs_, t_.server_dev), s0);
		res.client = minus(counters(fs_, t_.client_dev), c0);
		return res;
	}

	std::map<std::string, std::string> client_knobs() { return knob_map(fs_, t_.client_dev); }

private:
	/* Run @r: a built-in workload here, or perftest; fills @res's perf and refused. */
	void perform(const Run &r, const std::string &tag, RunResult &res)
	{
		if (r.tool == kMrRegTool) {
			/* In this process: args SIZE, reuse|per-io, IOS. */
			MrRegRun m{t_.client_dev, t_.server_dev, std::stoi(cgid_),
				   std::stoi(sgid_),
				   static_cast<uint32_t>(std::stoul(r.args.at(0))),
				   static_cast<uint32_t>(std::stoul(r.args.at(2))),
				   r.args.at(1) == "per-io"};
			res.perf = {{"#bytes", m.size}, {"#iterations", m.ios},
				    {"ios_per_s", run_mr_reg(m)}};
			return;
		}
		if (r.tool == kWorkingSetTool) {
			/* In this process: args SIZE, QPS, MRS, MSGS. */
			WorkingSetRun w{t_.client_dev, t_.server_dev, std::stoi(cgid_),
					std::stoi(sgid_),
					static_cast<uint32_t>(std::stoul(r.args.at(0))),
					static_cast<uint32_t>(std::stoul(r.args.at(1))),
					static_cast<uint32_t>(std::stoul(r.args.at(2))),
					static_cast<uint32_t>(std::stoul(r.args.at(3)))};
			auto got = run_working_set(w);
			res.perf = {{"#bytes", w.size}, {"#iterations", w.msgs},
				    {"qps", w.qps}, {"mrs", w.mrs},
				    {"qps_created", got.qps_created},
				    {"msgs_per_s", got.msgs_per_s}};
			res.refused = got.refused;
			return;
		}
		auto port = std::to_string(t_.port);
		auto tmo = std::to_string(t_.timeout_s);
		std::vector<std::string> srv = {"ip", "netns", "exec", t_.server_ns, "timeout",
						tmo, r.tool, "-d", t_.server_dev, "-x", sgid_,
						"-p", port};
		std::vector<std::string> cli = {"ip", "netns", "exec", t_.client_ns, "timeout",
						tmo, r.tool, "-d", t_.client_dev, "-x", cgid_,
						"-p", port};
		srv.insert(srv.end(), r.args.begin(), r.args.end());
		cli.insert(cli.end(), r.args.begin(), r.args.end());
		cli.push_back(t_.server_ip);

		auto slog = logdir_ / (tag + ".server.log"), clog = logdir_ / (tag + ".client.log");
		Child server(srv, slog);
		wait_listening();
		int crc = Child(cli, clog).wait();
		int src = server.wait();
		if (crc || src)
			throw Error(fmt::format("{} failed (client exit {}, server exit {})", r.tool,
						crc, src),
				    "see " + clog.string() + " and " + slog.string());
		res.perf = parse_perftest(slurp(clog));
	}

	/* The server listens on its TCP port (perftest's side channel). */
	void wait_listening()
	{
		auto log = logdir_ / "ss.log";
		for (int i = 0; i < 300; i++) {
			Child ss({"ip", "netns", "exec", t_.server_ns, "ss", "-Hltn",
				  "sport = :" + std::to_string(t_.port)},
				 log);
			if (ss.wait() == 0 && !slurp(log).empty())
				return;
			std::this_thread::sleep_for(std::chrono::milliseconds(100));
		}
		throw Error("the perftest server did not listen within 30 s",
			    "see its log in " + logdir_.string());
	}

	Topology t_;
	std::filesystem::path logdir_;
	Sysfs fs_;
	std::string sgid_, cgid_;
	std::map<std::pair<std::string, std::string>, std::string> saved_;
};

/* Restores the knobs whatever happens. */
struct Restore {
	Bench &b;
	~Restore() { b.restore(); }
};

} // namespace

nlohmann::json run_sweep(const Sweep &s, const Topology &topo,
			 const std::filesystem::path &logdir, const std::string &note,
			 const std::function<void(const std::string &)> &progress)
{
	std::filesystem::create_directories(logdir);
	Bench b(topo, logdir);
	Restore restore{b};
	std::vector<Measured> points;

	b.set(s.setup);
	for (size_t i = 0; i < s.points.size(); i++) {
		const auto &p = s.points[i];
		Measured m;
		b.set(p.knobs);
		m.knobs = b.client_knobs();
		for (size_t r = 0; r < p.runs.size(); r++) {
			b.set(p.runs[r].knobs);
			auto tag = fmt::format("{}-{}-{}", s.name, p.x, p.runs[r].tool);
			m.runs.push_back(b.run(p.runs[r], tag));
			const auto &refused = m.runs.back().refused;
			progress(fmt::format("{} x={} {}: {}", s.name, p.x, p.runs[r].tool,
					     refused.empty() ? "done" : "refused, " + refused));
		}
		points.push_back(std::move(m));
	}

	utsname u{};
	uname(&u);
	nlohmann::json ctx = {
		{"kernel", u.release},
		{"machine", u.machine},
		{"cpus", std::thread::hardware_concurrency()},
		{"server", {{"ns", topo.server_ns}, {"dev", topo.server_dev}}},
		{"client", {{"ns", topo.client_ns}, {"dev", topo.client_dev}}},
		{"note", note},
		{"summary", fmt::format("kernel {}, {} CPUs{}{}", u.release,
					std::thread::hardware_concurrency(),
					note.empty() ? "" : ", ", note)},
		{"clock", "modeled figures come from the model's counters; wall-clock figures "
			  "are this host's, paced to the model only in clock.mode pace"},
	};
	auto r = results_json(s, points, ctx);
	/*
	 * Pace mode shows the model only if the host keeps up with it.  A
	 * host that does still moves ~80% of the paced rate (each burst's
	 * first read latency, perftest's own gaps); well below that, the host
	 * is the bottleneck.
	 */
	for (auto &p : r["points"]) {
		auto w = p["metrics"].value("wall_over_paced", nlohmann::json());
		if (w.is_number() && w.get<double>() < 0.6) {
			p["host_too_slow"] = true;
			progress(fmt::format("{} x={}: the host moved {:.0f}% of the paced model's "
					     "rate: too slow for clock.dilation {}; raise it",
					     s.name, p["x"].get<double>(), 100 * w.get<double>(),
					     p["knobs"].value("clock.dilation", "?")));
		}
	}
	return r;
}

} // namespace vrnic::bench
