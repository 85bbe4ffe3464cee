// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for the adaptations of vrnic_compat.h that have behaviour:
 * the ib_udata create_cq finds in its argument on either side of v6.11
 * (none for a kernel CQ, the command's otherwise), and the unaligned
 * accessors the ICRC reads and writes with, wherever they are declared.
 * The other adaptations are checked where they act: the host build test
 * builds against both kernels (the static_asserts of the header among
 * it), and the conformance runs check the trace events' device names.
 *
 * Copyright (c) 2026 The vrnic authors
 */

#include <kunit/test.h>

#include "vrnic_compat.h"

/* A kernel CQ (ib_create_cq()) has no user data on either kernel. */
static void vrnic_compat_create_cq_kernel_has_no_udata(struct kunit *test)
{
	KUNIT_EXPECT_NULL(test, vrnic_create_cq_udata(NULL));
}

/*
 * A user's CQ: the command's ib_udata, inside the argument (the bundle
 * from v6.11 on, the ib_udata itself before), the same one every time.
 */
static void vrnic_compat_create_cq_user_udata(struct kunit *test)
{
	struct vrnic_create_cq_arg *arg;
	struct ib_udata *udata;

	arg = kunit_kzalloc(test, sizeof(*arg), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, arg);
	udata = vrnic_create_cq_udata(arg);
	KUNIT_ASSERT_NOT_NULL(test, udata);
	KUNIT_EXPECT_TRUE(test, (void *)udata >= (void *)arg);
	KUNIT_EXPECT_TRUE(test, (void *)(udata + 1) <= (void *)(arg + 1));
	udata->outlen = 123;
	KUNIT_EXPECT_PTR_EQ(test, vrnic_create_cq_udata(arg), udata);
	KUNIT_EXPECT_EQ(test, vrnic_create_cq_udata(arg)->outlen, 123);
}

/* The ICRC is stored little-endian at any byte offset. */
static void vrnic_compat_unaligned(struct kunit *test)
{
	u8 buf[8] = {};

	put_unaligned_le32(0x11223344, buf + 1);
	KUNIT_EXPECT_EQ(test, buf[1], 0x44);
	KUNIT_EXPECT_EQ(test, buf[4], 0x11);
	KUNIT_EXPECT_EQ(test, get_unaligned_le32(buf + 1), 0x11223344);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(buf + 1), 0x44332211);
	KUNIT_EXPECT_EQ(test, buf[0] | buf[5], 0);
}

static struct kunit_case vrnic_compat_cases[] = {
	KUNIT_CASE(vrnic_compat_create_cq_kernel_has_no_udata),
	KUNIT_CASE(vrnic_compat_create_cq_user_udata),
	KUNIT_CASE(vrnic_compat_unaligned),
	{}
};

static struct kunit_suite vrnic_compat_suite = {
	.name = "vrnic_compat",
	.test_cases = vrnic_compat_cases,
};

kunit_test_suite(vrnic_compat_suite);
