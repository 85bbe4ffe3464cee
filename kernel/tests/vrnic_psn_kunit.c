// SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
/*
 * KUnit tests for vrnic's 24-bit PSN arithmetic: wrap at 2^24, the signed
 * distance and its half-space edge, and windows that straddle the wrap.
 *
 * Copyright (c) 2026 The vrnic authors
 */

#include <kunit/test.h>
#include <linux/string.h>

#include "wire/vrnic_psn.h"

#define MAXPSN	0xffffff
#define HALF	0x800000

struct psn_op_case {
	const char *name;
	u32 psn, n, want;
};

static void psn_op_desc(const struct psn_op_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

static const struct psn_op_case add_cases[] = {
	{ "zero", 0, 0, 0 },
	{ "plain", 100, 23, 123 },
	{ "to_max", MAXPSN - 1, 1, MAXPSN },
	{ "max_plus_1_wraps", MAXPSN, 1, 0 },
	{ "wrap_past_zero", 0xfffffe, 5, 3 },
	{ "add_max_is_minus_1", 7, MAXPSN, 6 },
	{ "add_full_space", 0x123456, 0x1000000, 0x123456 },
	{ "add_half", 0x400000, HALF, 0xc00000 },
	{ "add_half_wraps", 0xc00000, HALF, 0x400000 },
};

KUNIT_ARRAY_PARAM(add, add_cases, psn_op_desc);

static void vrnic_psn_add_wraps(struct kunit *test)
{
	const struct psn_op_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, vrnic_psn_add(c->psn, c->n), c->want);
	KUNIT_EXPECT_TRUE(test, vrnic_psn_valid(vrnic_psn_add(c->psn, c->n)));
}

static const struct psn_op_case sub_cases[] = {
	{ "zero", 0, 0, 0 },
	{ "plain", 123, 23, 100 },
	{ "zero_minus_1_wraps", 0, 1, MAXPSN },
	{ "wrap_past_zero", 3, 5, 0xfffffe },
	{ "sub_full_space", 0x123456, 0x1000000, 0x123456 },
	{ "sub_half_wraps", 0x400000, HALF, 0xc00000 },
};

KUNIT_ARRAY_PARAM(sub, sub_cases, psn_op_desc);

static void vrnic_psn_sub_wraps(struct kunit *test)
{
	const struct psn_op_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, vrnic_psn_sub(c->psn, c->n), c->want);
	/* And back: addition undoes subtraction. */
	KUNIT_EXPECT_EQ(test, vrnic_psn_add(vrnic_psn_sub(c->psn, c->n), c->n),
			c->psn & VRNIC_PSN_MASK);
}

static void vrnic_psn_next_wraps(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, vrnic_psn_next(0), 1);
	KUNIT_EXPECT_EQ(test, vrnic_psn_next(0x7fffff), HALF);
	KUNIT_EXPECT_EQ(test, vrnic_psn_next(MAXPSN), 0);
}

static void vrnic_psn_valid_24_bits(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, vrnic_psn_valid(0));
	KUNIT_EXPECT_TRUE(test, vrnic_psn_valid(MAXPSN));
	KUNIT_EXPECT_FALSE(test, vrnic_psn_valid(MAXPSN + 1));
	KUNIT_EXPECT_FALSE(test, vrnic_psn_valid(0x80000000));
}

struct psn_diff_case {
	const char *name;
	u32 a, b;
	s32 diff;
	bool before, after;	/* a before b, a after b */
};

static const struct psn_diff_case diff_cases[] = {
	{ "equal", 5, 5, 0, false, false },
	{ "equal_at_max", MAXPSN, MAXPSN, 0, false, false },
	{ "one_after", 6, 5, 1, false, true },
	{ "one_before", 5, 6, -1, true, false },
	{ "zero_after_max", 0, MAXPSN, 1, false, true },
	{ "max_before_zero", MAXPSN, 0, -1, true, false },
	{ "wrap_after", 2, 0xfffffd, 5, false, true },
	{ "wrap_before", 0xfffffd, 2, -5, true, false },
	/* The largest distances that still have an order. */
	{ "half_minus_1_after", 0x7fffff, 0, 0x7fffff, false, true },
	{ "half_minus_1_before", 0, 0x7fffff, -0x7fffff, true, false },
	{ "half_plus_1_is_before", 0x800001, 0, -0x7fffff, true, false },
	{ "wrapped_half_minus_1", 0, 0x800001, 0x7fffff, false, true },
	/* Exactly half: no order, counted as +2^23 both ways. */
	{ "half_from_zero", HALF, 0, HALF, false, true },
	{ "half_to_zero", 0, HALF, HALF, false, true },
	{ "half_across_wrap", 0x400000, 0xc00000, HALF, false, true },
	/* Bits above 24 are not part of a PSN. */
	{ "high_bits_ignored", 0x01000005, 3, 2, false, true },
};

static void psn_diff_desc(const struct psn_diff_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(diff, diff_cases, psn_diff_desc);

static void vrnic_psn_diff_signed(struct kunit *test)
{
	const struct psn_diff_case *c = test->param_value;
	s32 d = vrnic_psn_diff(c->a, c->b);

	KUNIT_EXPECT_EQ(test, d, c->diff);
	/* The range is (-2^23, 2^23]. */
	KUNIT_EXPECT_GT(test, d, -HALF);
	KUNIT_EXPECT_LE(test, d, HALF);
	/* b + diff(a, b) == a */
	KUNIT_EXPECT_EQ(test, vrnic_psn_add(c->b, d), c->a & VRNIC_PSN_MASK);
}

static void vrnic_psn_order(struct kunit *test)
{
	const struct psn_diff_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, vrnic_psn_before(c->a, c->b), c->before);
	KUNIT_EXPECT_EQ(test, vrnic_psn_after(c->a, c->b), c->after);
	/* Away from the half point, before and after mirror each other. */
	if (vrnic_psn_diff(c->a, c->b) != HALF) {
		KUNIT_EXPECT_EQ(test, vrnic_psn_before(c->b, c->a), c->after);
		KUNIT_EXPECT_EQ(test, vrnic_psn_diff(c->b, c->a),
				-vrnic_psn_diff(c->a, c->b));
	}
}

struct psn_window_case {
	const char *name;
	u32 psn, start, len;
	bool in;
};

static const struct psn_window_case window_cases[] = {
	{ "start", 10, 10, 4, true },
	{ "last", 13, 10, 4, true },
	{ "one_past", 14, 10, 4, false },
	{ "one_before", 9, 10, 4, false },
	{ "empty", 10, 10, 0, false },
	{ "single", 10, 10, 1, true },
	{ "wrap_start", 0xfffffe, 0xfffffe, 4, true },
	{ "wrap_max", MAXPSN, 0xfffffe, 4, true },
	{ "wrap_zero", 0, 0xfffffe, 4, true },
	{ "wrap_last", 1, 0xfffffe, 4, true },
	{ "wrap_one_past", 2, 0xfffffe, 4, false },
	{ "wrap_one_before", 0xfffffd, 0xfffffe, 4, false },
	{ "half_window_last", 0x7fffff, 0, HALF, true },
	{ "half_window_past", HALF, 0, HALF, false },
	{ "full_space", 0x123456, 0xabcdef, 0x1000000, true },
	{ "full_space_minus_1_excl", 0xabcdee, 0xabcdef, MAXPSN, false },
};

static void psn_window_desc(const struct psn_window_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(window, window_cases, psn_window_desc);

static void vrnic_psn_window_membership(struct kunit *test)
{
	const struct psn_window_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, vrnic_psn_in_window(c->psn, c->start, c->len),
			c->in);
}

static void vrnic_psn_window_sweep_across_wrap(struct kunit *test)
{
	u32 start = 0xfffff0, len = 32, i;

	/* Walk from 8 before the window to 8 past it, across the wrap. */
	for (i = 0; i < len + 16; i++) {
		u32 psn = vrnic_psn_add(start - 8, i);
		bool want = i >= 8 && i < len + 8;

		KUNIT_EXPECT_EQ_MSG(test, vrnic_psn_in_window(psn, start, len),
				    want, "psn %#x", psn);
		if (want)
			KUNIT_EXPECT_FALSE_MSG(test,
					       vrnic_psn_before(psn, start),
					       "psn %#x", psn);
	}
}

static struct kunit_case vrnic_psn_cases[] = {
	KUNIT_CASE_PARAM(vrnic_psn_add_wraps, add_gen_params),
	KUNIT_CASE_PARAM(vrnic_psn_sub_wraps, sub_gen_params),
	KUNIT_CASE(vrnic_psn_next_wraps),
	KUNIT_CASE(vrnic_psn_valid_24_bits),
	KUNIT_CASE_PARAM(vrnic_psn_diff_signed, diff_gen_params),
	KUNIT_CASE_PARAM(vrnic_psn_order, diff_gen_params),
	KUNIT_CASE_PARAM(vrnic_psn_window_membership, window_gen_params),
	KUNIT_CASE(vrnic_psn_window_sweep_across_wrap),
	{}
};

static struct kunit_suite vrnic_psn_suite = {
	.name = "vrnic_psn",
	.test_cases = vrnic_psn_cases,
};

kunit_test_suites(&vrnic_psn_suite);
