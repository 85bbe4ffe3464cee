// SPDX-License-Identifier: GPL-2.0-only
/*
 * One print path for text and JSON: commands build records (ordered JSON
 * objects with kebab-case keys) and these functions print them either as
 * JSON or as text lines that use the same keys.
 */
#pragma once

#include <ostream>

#include <nlohmann/json.hpp>

#include "cli.hpp"

namespace vrnicctl {

using Json = nlohmann::ordered_json;

/* Print @records (an array) as JSON: one line, or indented with -p. */
void print_json(std::ostream &out, const Options &o, const Json &records);

/*
 * One record as an rdma-style line: "DEV[/PORT]: key value key value...".
 * Nested objects are flattened into their keys; arrays are left out.
 */
void print_line(std::ostream &out, const Json &record);

/* "vrnic0/1" for a record with "dev" and "port", "vrnic0" without a port. */
std::string record_name(const Json &record);

/* A scalar as text: strings bare, numbers as JSON writes them. */
std::string scalar_text(const Json &v);

/* Counters and their rates as a table (stats show -i, stats watch). */
void print_counter_table(std::ostream &out, const Json &record);

/* The hardware model's summary of one port (stats show summary). */
void print_summary(std::ostream &out, const Json &record);

/* The knobs of one device as a table (model show). */
void print_knob_table(std::ostream &out, const Json &record);

} // namespace vrnicctl
