# SPDX-License-Identifier: GPL-2.0
# The verbs conformance suite for single-host CI: vrnic0 on the loopback
# netdev of a namespace of its own, the suite run in that namespace
# (conformance.sh, CONFORMANCE_PATH=lo).
CONFORMANCE_PATH=lo
. tools/testbed/tests/conformance.sh
