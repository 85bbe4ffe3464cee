# Log-scan self-test: load a module that WARNs.  The run must FAIL because of
# the scan even though this script exits 0.
. tools/testbed/guest-lib.sh
insmod "$VRNIC_KMOD/../warn-module/warn_test.ko"
rmmod warn_test
