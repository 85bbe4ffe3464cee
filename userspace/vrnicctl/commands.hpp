// SPDX-License-Identifier: GPL-2.0-only
/*
 * vrnicctl's commands: one function per OBJECT COMMAND.
 */
#pragma once

#include "cli.hpp"

namespace vrnicctl {

using Handler = void (*)(Context &, const Options &, Args &);

void dev_show(Context &, const Options &, Args &);
void stats_show(Context &, const Options &, Args &);
void stats_watch(Context &, const Options &, Args &);
void qp_show(Context &, const Options &, Args &);
void model_show(Context &, const Options &, Args &);
void model_set(Context &, const Options &, Args &);

} // namespace vrnicctl
