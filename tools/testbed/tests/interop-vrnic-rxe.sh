# SPDX-License-Identifier: GPL-2.0
# Interop with stock rxe between two guests: vrnic on host0 (the servers),
# rxe on host1 (the clients), the smoke tools (smoke.sh) between them; a
# test of its own so that a suite (suite.sh) can run it beside others.
export VRNIC_DRIVER0=vrnic VRNIC_DRIVER1=rxe
. tools/testbed/tests/smoke.sh
