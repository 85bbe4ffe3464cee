// SPDX-License-Identifier: GPL-2.0-only
/*
 * vrnic-bench: reading perftest's results.
 *
 * Copyright (c) 2026 The vrnic authors
 */
#pragma once

#include <map>
#include <string>
#include <string_view>

namespace vrnic::bench {

/*
 * The result table perftest prints: a header of column names ("#bytes",
 * "BW average[MB/sec]", "t_avg[usec]"...) separated by two or more
 * spaces, then a row of numbers.  Returns the row by column name; throws
 * vrnic::Error when @output has no such table (the tool failed).
 */
std::map<std::string, double> parse_perftest(std::string_view output);

} // namespace vrnic::bench
