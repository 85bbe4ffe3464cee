/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vrnic: send work requests.
 *
 * Copyright (c) 2026 The vrnic authors
 */

#ifndef VRNIC_WR_H
#define VRNIC_WR_H

#include <rdma/ib_verbs.h>

enum ib_wc_opcode vrnic_wr_wc_opcode(u32 wr_opcode);

#endif /* VRNIC_WR_H */
