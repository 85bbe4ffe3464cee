# SPDX-License-Identifier: GPL-2.0
# The verbs conformance suite across a wire: vrnic0 in ns0 and vrnic1 in
# ns1 on the guest's two virtio-net NICs, joined through the host
# (run.sh --topo wire; conformance.sh, CONFORMANCE_PATH=wire).
CONFORMANCE_PATH=wire
. tools/testbed/tests/conformance.sh
