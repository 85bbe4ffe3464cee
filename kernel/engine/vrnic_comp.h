/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vrnic: the completer engine.
 *
 * Copyright (c) 2026 The vrnic authors
 */

#ifndef VRNIC_COMP_H
#define VRNIC_COMP_H

#include <linux/types.h>

struct sk_buff;
struct vrnic_qp;

void vrnic_comp_rx(struct vrnic_qp *qp, struct sk_buff *skb);
void vrnic_comp_timeout(struct vrnic_qp *qp);
void vrnic_comp_retire(struct vrnic_qp *qp);
void vrnic_comp_arm(struct vrnic_qp *qp);
void vrnic_comp_sent(struct vrnic_qp *qp, u32 psn);
u32 vrnic_comp_max_window(void);
/*
 * The retransmit timer in microseconds: the QP's @timeout (IBA 9.7.6.1.3),
 * or sooner, when @adaptive and an estimate is known, after SRTT + 4
 * RTTVAR, doubled for each of @early expiries in a row (see vrnic_comp.c).
 */
u64 vrnic_comp_rto_us(u8 timeout, bool adaptive, u32 srtt_us, u32 rttvar_us,
		      u32 early);
void vrnic_rtt_update(u32 *srtt_us, u32 *rttvar_us, u64 sample_us);

#endif /* VRNIC_COMP_H */
