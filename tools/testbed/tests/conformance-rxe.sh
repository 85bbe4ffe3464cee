# SPDX-License-Identifier: GPL-2.0
# The conformance suite on the reference, rxe (conformance.sh with
# VRNIC_DRIVER=rxe), for a suite whose other tests run on vrnic: make
# check's 6.12 guest runs both in one boot (SUITE="conformance:300
# conformance-rxe:300" with VRNIC_DRIVER=vrnic).  rxe's documented
# deviations are the running kernel's (tb_rxe_deviations, guest-lib.sh).
VRNIC_DRIVER=rxe exec bash -e tools/testbed/tests/conformance.sh
