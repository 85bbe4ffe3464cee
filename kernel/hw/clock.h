/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vrnic hardware model: the clock that paces the device to its modeled link (clock.c).
 *
 * Copyright (c) 2026 The vrnic authors
 */

#ifndef VRNIC_HW_CLOCK_H
#define VRNIC_HW_CLOCK_H

#include "model.h"

u64 vrnic_model_pace_wait(struct vrnic_model *m);
void vrnic_model_pace_count(struct vrnic_model *m, u64 wait_ns);
void vrnic_model_pace_advance(struct vrnic_model *m, u64 busy_ns, u64 latency_ns,
			      bool dependent, u64 now);

#endif /* VRNIC_HW_CLOCK_H */
