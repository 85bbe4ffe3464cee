# SPDX-License-Identifier: GPL-2.0
# The verbs conformance suite across a veth pair: vrnic0 in ns0 against
# vrnic1 in ns1 (conformance.sh, CONFORMANCE_PATH=veth).
CONFORMANCE_PATH=veth
. tools/testbed/tests/conformance.sh
