/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vrnic: deliberate faults, to prove that the tests catch a broken vrnic.
 *
 * tools/mutate.sh builds the module once per fault with VRNIC_MUTATE=<name>
 * (Kbuild turns it into -DVRNIC_MUTATE_<name>=1) and runs the tests against
 * it: each fault must make some test fail.  vrnic_mutant(name) is a
 * compile-time constant, 0 in every other build, so a fault cannot be
 * switched on at run time and costs nothing when it is off.
 *
 * Copyright (c) 2026 The vrnic authors
 */

#ifndef VRNIC_MUTATE_H
#define VRNIC_MUTATE_H

#include <linux/kconfig.h>

#define vrnic_mutant(name)	IS_ENABLED(VRNIC_MUTATE_##name)

/* The faults; Documentation/testbed.rst, "Mutations", says what each does. */
#define VRNIC_MUTANT_ANY	(vrnic_mutant(icrc_skip) ||		\
				 vrnic_mutant(retry_short) ||		\
				 vrnic_mutant(payload_flip) ||		\
				 vrnic_mutant(ack_drop) ||		\
				 vrnic_mutant(byte_len) ||		\
				 vrnic_mutant(psn_window) ||		\
				 vrnic_mutant(rkey_pd) ||		\
				 vrnic_mutant(mw_range) ||		\
				 vrnic_mutant(mw_bind_any) ||		\
				 vrnic_mutant(mw_qp) ||		\
				 vrnic_mutant(odp_stale))

#if defined(VRNIC_MUTATE_NAME) && !VRNIC_MUTANT_ANY
#error "VRNIC_MUTATE names no fault of vrnic_mutate.h"
#endif

#endif /* VRNIC_MUTATE_H */
