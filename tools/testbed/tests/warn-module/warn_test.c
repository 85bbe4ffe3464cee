// SPDX-License-Identifier: GPL-2.0-only
/*
 * Testbed self-test: a module whose only job is to WARN once when loaded,
 * so that the testbed can prove its kernel log scan catches a WARN.
 */
#include <linux/module.h>
#include <linux/bug.h>

static int __init warn_test_init(void)
{
	WARN(1, "vrnic testbed: deliberate WARN for the log scan self-test\n");
	return 0;
}

static void __exit warn_test_exit(void)
{
}

module_init(warn_test_init);
module_exit(warn_test_exit);
MODULE_DESCRIPTION("vrnic testbed log-scan self-test");
MODULE_LICENSE("GPL");
