// SPDX-License-Identifier: GPL-2.0-only
/*
 * vrnicctl: the OBJECT/COMMAND dispatcher, options, help and errors.
 */
#include "cli.hpp"

#include <charconv>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "commands.hpp"
#include "vrnic/error.hpp"
#include "vrnic/knobs.hpp"

namespace vrnicctl {

using vrnic::UsageError;

namespace {

struct CommandDef {
	std::string_view name;
	Handler fn;		/* nullptr: help */
	std::string_view usage;
	std::string_view summary;
};

struct ObjectDef {
	std::string_view name;
	std::string_view summary;
	std::vector<CommandDef> commands;	/* the first is the default */
};

const std::vector<ObjectDef> &objects()
{
	static const std::vector<ObjectDef> t = {
		{"dev", "vrnic devices and their ports",
		 {{"show", dev_show, "dev show [DEV]",
		   "name, netdev, port state, active MTU, GIDs, QPs, MRs, driver"},
		  {"help", nullptr, "dev help", "this text"}}},
		{"stats", "port counters (hw_counters) and their rates",
		 {{"show", stats_show, "stats show [DEV[/PORT]] [summary] [-i SECONDS]",
		   "every counter; with -i, also the per-second rate over SECONDS;\n"
		   "      summary: what the hardware model counted (PCIe, caches, doorbells)"},
		  {"watch", stats_watch, "stats watch [DEV[/PORT]] [-i SECONDS] [-n COUNT]",
		   "redraw counters and rates every SECONDS (1); q or Ctrl-C quits"},
		  {"help", nullptr, "stats help", "this text"}}},
		{"qp", "queue pairs (RDMA netlink resource dump)",
		 {{"show", qp_show, "qp show [DEV[/PORT]] [qpn N]",
		   "lqpn, rqpn, type, state, sq-psn, rq-psn, pid, comm"},
		  {"help", nullptr, "qp help", "this text"}}},
		{"model", "the hardware model's knobs",
		 {{"show", model_show, "model show [DEV] [BLOCK]",
		   "every knob: value, unit, range, default, meaning"},
		  {"set", model_set, "model set DEV KNOB VALUE [KNOB VALUE]...",
		   "check every value against its range, then write them"},
		  {"help", nullptr, "model help", "this text"}}},
		{"help", "this text", {}},
	};
	return t;
}

void top_help(std::ostream &out)
{
	out << "Usage: vrnicctl [OPTIONS] OBJECT { COMMAND | help }\n"
	       "       vrnicctl [OPTIONS] help [OBJECT]\n"
	       "where  OBJECT := { dev | stats | qp | model | help }\n"
	       "       OPTIONS := { -j[son] | -p[retty] | -V[ersion] | -h[elp] }\n"
	       "Objects and commands may be abbreviated to any unique prefix;\n"
	       "an object alone runs its first command (show).  DEV or DEV/PORT\n"
	       "names a device or one of its ports.\n\n";
	for (auto &o : objects())
		if (!o.commands.empty())
			out << fmt::format("  {:<6} {}\n", o.name, o.summary);
}

void object_help(std::ostream &out, const ObjectDef &o)
{
	out << fmt::format("Usage: vrnicctl [OPTIONS] {} {{ COMMAND | help }}\n", o.name);
	for (auto &c : o.commands)
		out << fmt::format("  vrnicctl {}\n      {}\n", c.usage, c.summary);
	if (o.name == "model") {
		out << "\nKnobs (vrnicctl model show lists them with their values):\n";
		for (auto &k : vrnic::knob_table())
			out << fmt::format("  {:<20} {:<36} {}\n", k.name,
					   vrnic::knob_range(k) +
						   (k.unit.empty() ? "" : fmt::format(" ({})", k.unit)),
					   k.meaning);
	}
}

std::vector<std::string_view> names_of(const auto &defs)
{
	std::vector<std::string_view> n;
	for (auto &d : defs)
		n.push_back(d.name);
	return n;
}

void report(std::ostream &err, const vrnic::Error &e)
{
	err << "error: " << e.what() << '\n';
	if (!e.hint().empty())
		err << "  " << e.hint() << '\n';
}

} // namespace

std::string Args::value_of(std::string_view opt)
{
	if (empty())
		throw UsageError(fmt::format("option {} needs a value", opt));
	return next();
}

size_t match_prefix(std::string_view word, std::span<const std::string_view> names,
		    std::string_view what)
{
	std::vector<size_t> hits;
	for (size_t i = 0; i < names.size(); i++) {
		if (names[i] == word)
			return i;
		if (!word.empty() && names[i].starts_with(word))
			hits.push_back(i);
	}
	if (hits.size() == 1)
		return hits[0];
	if (hits.empty())
		throw UsageError(fmt::format("unknown {} '{}'", what, word),
				 fmt::format("{}s: {}", what, fmt::join(names, " ")));
	std::vector<std::string_view> cands;
	for (auto i : hits)
		cands.push_back(names[i]);
	throw UsageError(fmt::format("ambiguous {} '{}': it could be {}", what, word,
				     fmt::join(cands, " ")),
			 "type more of it");
}

double parse_seconds(std::string_view s, std::string_view opt)
{
	double v = 0;
	auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
	if (ec != std::errc() || p != s.data() + s.size() || !std::isfinite(v) || v <= 0 ||
	    v > 86400)
		throw UsageError(fmt::format("{} wants seconds above 0 (e.g. 1 or 0.5); got '{}'",
					     opt, s));
	return v;
}

int run(const std::vector<std::string> &argv, Context &ctx)
{
	try {
		Options o;
		size_t i = 0;
		for (; i < argv.size() && argv[i].size() > 1 && argv[i][0] == '-'; i++) {
			const std::string &a = argv[i];
			if (a == "--json") {
				o.json = true;
			} else if (a == "--pretty") {
				o.json = o.pretty = true;
			} else if (a == "--version") {
				ctx.out << "vrnicctl " << version << '\n';
				return 0;
			} else if (a == "--help") {
				top_help(ctx.out);
				return 0;
			} else if (a[1] != '-') {
				for (char c : a.substr(1)) {
					switch (c) {
					case 'j': o.json = true; break;
					case 'p': o.json = o.pretty = true; break;
					case 'V':
						ctx.out << "vrnicctl " << version << '\n';
						return 0;
					case 'h': top_help(ctx.out); return 0;
					default:
						throw UsageError(fmt::format("unknown option -{}", c),
								 "options: -j -p -V -h");
					}
				}
			} else {
				throw UsageError(fmt::format("unknown option {}", a),
						 "options: --json --pretty --version --help");
			}
		}
		if (i == argv.size()) {
			top_help(ctx.out);
			return 0;
		}
		auto &objs = objects();
		auto onames = names_of(objs);
		const ObjectDef &obj = objs[match_prefix(argv[i++], onames, "object")];
		if (obj.commands.empty()) {	/* help [OBJECT] */
			if (i == argv.size()) {
				top_help(ctx.out);
				return 0;
			}
			const ObjectDef &about = objs[match_prefix(argv[i], onames, "object")];
			if (about.commands.empty())
				top_help(ctx.out);
			else
				object_help(ctx.out, about);
			return 0;
		}
		const CommandDef *cmd = &obj.commands[0];
		/* A word that is not a command is the default command's argument
		 * only when no command starts with it ("vrnicctl dev vrnic0"). */
		if (i < argv.size()) {
			auto cnames = names_of(obj.commands);
			bool any = false;
			for (auto n : cnames)
				any = any || n.starts_with(argv[i]);
			if (argv[i] == "-h" || argv[i] == "--help") {
				cmd = &obj.commands.back();
				i++;
			} else if (any) {
				cmd = &obj.commands[match_prefix(argv[i], cnames, "command")];
				i++;
			}
		}
		if (!cmd->fn) {
			object_help(ctx.out, obj);
			return 0;
		}
		Args args(std::vector<std::string>(argv.begin() + static_cast<long>(i), argv.end()));
		cmd->fn(ctx, o, args);
		return 0;
	} catch (const UsageError &e) {
		report(ctx.err, e);
		ctx.err << "  see: vrnicctl help\n";
		return 2;
	} catch (const vrnic::Error &e) {
		report(ctx.err, e);
		return 1;
	} catch (const std::exception &e) {
		ctx.err << "error: " << e.what() << '\n';
		return 1;
	}
}

} // namespace vrnicctl
