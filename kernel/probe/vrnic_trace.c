// SPDX-License-Identifier: GPL-2.0-only
/*
 * vrnic: the tracepoints' definitions (see vrnic_trace.h).
 *
 * Copyright (c) 2026 The vrnic authors
 */

#define CREATE_TRACE_POINTS
#include "probe/vrnic_trace.h"
