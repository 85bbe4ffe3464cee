/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * vrnic: 24-bit packet sequence number arithmetic.
 *
 * A PSN is a 24-bit counter that wraps from 0xffffff to 0 (IBTA Vol 1,
 * 9.2 BTH and 9.7 reliable service).  Order between two PSNs is only defined
 * within half the space: the responder treats the 2^23 PSNs before the one it
 * expects as duplicates and the rest as out of sequence, so "a before b"
 * means "b - a, taken modulo 2^24, is in (0, 2^23)".
 *
 * Every function takes and returns PSNs in CPU order, already masked to
 * 24 bits where they return a PSN.
 *
 * Copyright (c) 2026 The vrnic authors
 */

#ifndef VRNIC_PSN_H
#define VRNIC_PSN_H

#include <linux/types.h>

#include "wire/vrnic_hdr.h"

/* Half of the PSN space: the largest distance with a defined order. */
#define VRNIC_PSN_HALF		0x00800000
#define VRNIC_PSN_SPACE		0x01000000

static inline bool vrnic_psn_valid(u32 psn)
{
	return !(psn & ~VRNIC_PSN_MASK);
}

/* @psn + @n, wrapping at 2^24. */
static inline u32 vrnic_psn_add(u32 psn, u32 n)
{
	return (psn + n) & VRNIC_PSN_MASK;
}

/* @psn - @n, wrapping at 2^24. */
static inline u32 vrnic_psn_sub(u32 psn, u32 n)
{
	return (psn - n) & VRNIC_PSN_MASK;
}

static inline u32 vrnic_psn_next(u32 psn)
{
	return vrnic_psn_add(psn, 1);
}

/*
 * Signed distance from @b to @a, in (-2^23, 2^23]: positive when @a comes
 * after @b.  The exact half point has no order; it counts as +2^23, so both
 * PSNs are "after" each other there.  Callers never meet it as long as
 * fewer than 2^23 PSNs are outstanding, which the reliable transport's
 * duplicate detection requires anyway.
 */
static inline s32 vrnic_psn_diff(u32 a, u32 b)
{
	u32 d = (a - b) & VRNIC_PSN_MASK;

	return d > VRNIC_PSN_HALF ? (s32)d - VRNIC_PSN_SPACE : (s32)d;
}

/* True when @a comes strictly before @b. */
static inline bool vrnic_psn_before(u32 a, u32 b)
{
	return vrnic_psn_diff(a, b) < 0;
}

/* True when @a comes strictly after @b. */
static inline bool vrnic_psn_after(u32 a, u32 b)
{
	return vrnic_psn_diff(a, b) > 0;
}

/*
 * True when @psn is one of the @len PSNs that start at @start, i.e. in
 * [@start, @start + @len) modulo 2^24.  @len of 0 is an empty window; @len
 * of 2^24 or more covers every PSN.
 */
static inline bool vrnic_psn_in_window(u32 psn, u32 start, u32 len)
{
	return ((psn - start) & VRNIC_PSN_MASK) < len;
}

#endif /* VRNIC_PSN_H */
