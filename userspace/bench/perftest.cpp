// SPDX-License-Identifier: GPL-2.0-only
/*
 * vrnic-bench: reading perftest's results (see perftest.hpp).
 *
 * Copyright (c) 2026 The vrnic authors
 */
#include "perftest.hpp"

#include "vrnic/error.hpp"

#include <cstdlib>
#include <regex>
#include <sstream>
#include <vector>

namespace vrnic::bench {

namespace {

std::vector<std::string> split(const std::string &line, const std::regex &sep)
{
	std::vector<std::string> out;
	std::sregex_token_iterator it(line.begin(), line.end(), sep, -1), end;
	for (; it != end; ++it)
		if (!it->str().empty())
			out.push_back(it->str());
	return out;
}

} // namespace

std::map<std::string, double> parse_perftest(std::string_view output)
{
	static const std::regex columns("[ \t]{2,}|\t");
	static const std::regex blanks("[ \t]+");
	std::istringstream in{std::string(output)};
	std::string line;
	std::vector<std::string> names;

	while (std::getline(in, line)) {
		if (names.empty()) {
			auto pos = line.find("#bytes");
			if (pos == std::string::npos)
				continue;
			/*
			 * Names hold single spaces ("BW peak[MB/sec]"), but the
			 * latency tools print "#bytes #iterations": a '#'
			 * starts a column too.
			 */
			for (auto &n : split(line.substr(pos), columns)) {
				size_t start = 0, hash;
				while ((hash = n.find(" #", start)) != std::string::npos) {
					names.push_back(n.substr(start, hash - start));
					start = hash + 1;
				}
				names.push_back(n.substr(start));
			}
			for (auto &n : names)
				n.erase(n.find_last_not_of(" \t\r") + 1);
			continue;
		}
		auto values = split(line, blanks);
		if (values.empty())
			continue;
		if (values.size() != names.size())
			throw Error("perftest's result row has " + std::to_string(values.size()) +
				    " values for " + std::to_string(names.size()) + " columns: " + line);
		std::map<std::string, double> row;
		for (size_t i = 0; i < names.size(); i++) {
			char *end = nullptr;
			double v = std::strtod(values[i].c_str(), &end);
			if (!end || *end)
				throw Error("perftest's result row: \"" + values[i] +
					    "\" under \"" + names[i] + "\" is not a number");
			row[names[i]] = v;
		}
		return row;
	}
	throw Error("no perftest result table in the output",
		    "the run failed: see its log for perftest's own error");
}

} // namespace vrnic::bench
