# SPDX-License-Identifier: GPL-2.0
# The verbs conformance suite between two vrnic devices of one namespace
# (conformance.sh, CONFORMANCE_PATH=samens): every packet from one device
# to the other is delivered without the wire, and must reach the device
# that holds its destination address.  GTEST_FILTER, else the two-device
# RC, UD, RDMA and SRQ tests.
CONFORMANCE_PATH=samens
GTEST_FILTER=${GTEST_FILTER:-RcTest.*:Sizes/RcSendRecv.*:UdTest.*:Sizes/UdSendRecv.*:Sizes/RdmaSize.*:AtomicTest.*:SrqTest.*}
. tools/testbed/tests/conformance.sh
