# SPDX-License-Identifier: GPL-2.0
# vrnic's KUnit suites, built into a test build of rdma_vrnic.ko
# (CONFIG_RDMA_VRNIC_KUNIT_TEST=y, against the debug kernel): loading the
# module runs them.  Every case, and every parameter of a parametrised case,
# becomes a result "kunit/<suite>/<case>[/<param>]", and each suite's own
# verdict "kunit/<suite>".
#
# VRNIC_KUNIT_KO: absolute path of that rdma_vrnic.ko.
# VRNIC_ULP_KO: the suite that drives a device through ib_core's kernel
# verbs, as a ULP does (vrnic_ulp_test.ko, built beside it; default: the
# one next to VRNIC_KUNIT_KO).  It runs after the module's own suites, on
# a device on eth0 of the module just loaded.
#
# insmod succeeds even when cases fail, so the verdicts come from the KTAP.
# 6.1 keeps only 512 bytes of KTAP per case in debugfs
# (/sys/kernel/debug/kunit/<suite>/results), which a case with many
# parameters overflows, so the per-case lines are read from the kernel log
# of the insmod (the same KTAP, complete), falling back to debugfs; the
# suite verdict is always the one debugfs reports.
. tools/testbed/guest-lib.sh

ko=${VRNIC_KUNIT_KO:?set VRNIC_KUNIT_KO to the KUnit build of rdma_vrnic.ko}
ulp_ko=${VRNIC_ULP_KO:-${ko%/*}/vrnic_ulp_test.ko}
dbg=/sys/kernel/debug/kunit

[ -f "$ko" ] || { echo "no module at $ko" >&2; exit 1; }
[ -d "$dbg" ] || { echo "$dbg missing: kernel without KUNIT_DEBUGFS?" >&2; exit 1; }

# What the module links against (ib_core, ib_uverbs, UDP tunnels, ...).
deps=$(modinfo -F depends "$ko" | tr ',' ' ')
# shellcheck disable=SC2086
tb_modprobe ib_core ib_uverbs $deps

marker="vrnic-kunit-start-$$-$RANDOM"
echo "$marker" >/dev/kmsg
if ! insmod "$ko"; then
	tb_result kunit/insmod FAIL
	exit 1
fi
klog=$(dmesg --notime | sed -n "/$marker/,\$p")

# ktap_results SUITE: read KTAP on stdin, print "STATUS NAME" for each case
# and parameter of SUITE, and "PLAN N" with the number of cases it plans.
ktap_results() {
	awk -v want="$1" '
	function result(s, name,    st, rest) {
		st = "PASS"
		if (s ~ /^not ok /) { st = "FAIL"; sub(/^not ok [0-9]+ /, "", s) }
		else sub(/^ok [0-9]+ /, "", s)
		if (s ~ / # SKIP/) {
			if (st == "PASS") st = "SKIP"
			sub(/ # SKIP.*/, "", s)
		}
		gsub(/[^A-Za-z0-9_.:+-]/, "_", s)
		print st, name s
	}
	{
		match($0, /^ */)
		ind = RLENGTH
		s = substr($0, ind + 1)
	}
	ind == 4 && s ~ /^# Subtest: / {
		insuite = (substr(s, 12) == want)
		param = ""
		next
	}
	!insuite { next }
	ind == 4 && s ~ /^1\.\.[0-9]+$/ { print "PLAN", substr(s, 4); next }
	ind == 8 && s ~ /^# Subtest: / { param = substr(s, 12); next }
	ind == 8 && s ~ /^(not )?ok [0-9]+ / { result(s, param "/"); next }
	ind == 4 && s ~ /^(not )?ok [0-9]+ / { result(s, ""); param = ""; next }
	ind == 0 && s ~ /^(not )?ok [0-9]+ / { insuite = 0 }
	'
}

# The loop below starts one process per suite (the awk) and writes each
# suite's results at once: in the debug kernel under TCG every fork costs
# a quarter of a second or more, and every write to the results share
# some 18 ms; a grep, sed and tail per suite, a pipe and two writes per
# result took 53 s of CI's time for some 500 results.
suite_results() {
	local klog=$1 dir suite res src close_re lines plan ncases verdict batch st name l verdict_re
	shift
	for dir in "$@"; do
		[ -f "$dir/results" ] || continue
		suite=${dir##*/}
		nsuites=$((nsuites + 1))
		res=
		IFS= read -r -d '' res <"$dir/results" || true
		printf '%s' "$res"

		# The kernel log holds the whole suite if its closing line is there.
		src=$klog
		close_re=$'(^|\n)(not )?ok [0-9]+ '"$suite"$'(\n|$)'
		[[ $klog =~ $close_re ]] || src=$res
		lines=$(ktap_results "$suite" <<<"$src")

		plan="" ncases=0 verdict="" batch=""
		while read -r st name; do
			if [ "$st" = PLAN ]; then
				[ -n "$plan" ] || plan=$name
				continue
			fi
			[ -n "$name" ] || continue
			batch+="${batch:+$'\n'}$st kunit/$suite/$name"
			case "$name" in */*) ;; *) ncases=$((ncases + 1)) ;; esac
		done <<<"$lines"
		tb_results "$batch"

		# The suite's verdict: the last "ok N SUITE" line debugfs holds.
		verdict_re="^(not )?ok [0-9]+ $suite( |\$)"
		while IFS= read -r l; do
			if [[ $l =~ $verdict_re ]]; then verdict=$l; fi
		done <<<"$res"
		case "$verdict" in
		"not ok"*) tb_result "kunit/$suite" FAIL ;;
		*"# SKIP"*) tb_result "kunit/$suite" SKIP ;;
		ok*)
			if [ "$ncases" -eq 0 ] || [ "$ncases" != "${plan:-0}" ]; then
				tb_result "kunit/$suite" FAIL "$ncases of ${plan:-?} cases reported"
			else
				tb_result "kunit/$suite" PASS "$ncases cases"
			fi
			;;
		*) tb_result "kunit/$suite" FAIL "no verdict in $dir/results" ;;
		esac
	done
}

# The module's own suites (every vrnic* but the ULP's).
nsuites=0
suites=()
for dir in "$dbg"/vrnic*; do
	[ "${dir##*/}" = vrnic_ulp ] || suites+=("$dir")
done
suite_results "$klog" "${suites[@]}"

# Every suite the sources declare must have run and reported: a suite
# that vanished (left out of the Kbuild, failed to register) is a
# failure, not one result fewer.
declared=$(sed -n 's/^[[:space:]]*\.name[[:space:]]*=[[:space:]]*"\(vrnic_[a-z0-9_]*\)".*/\1/p' \
	"$VRNIC_REPO"/kernel/tests/*_kunit.c | grep -vx vrnic_ulp | sort)
ran=$(for dir in "${suites[@]}"; do [ -e "$dir" ] && echo "${dir##*/}"; done | sort)
if [ -z "$declared" ]; then
	tb_result kunit/suites FAIL "no suite declared in $VRNIC_REPO/kernel/tests"
elif [ "$declared" != "$ran" ]; then
	tb_result kunit/suites FAIL "declared: $(echo $declared); ran: $(echo $ran)"
else
	tb_result kunit/suites PASS "$(echo "$declared" | wc -l) suites"
fi
if [ "$nsuites" -eq 0 ]; then
	tb_result kunit/suites-reported FAIL "no vrnic suite in $dbg"
	rmmod rdma_vrnic || true
	exit 1
fi

# The ULP suite: a device of the module just loaded, on eth0.
if [ ! -f "$ulp_ko" ]; then
	tb_result kunit/vrnic_ulp FAIL "no module at $ulp_ko"
elif ! rdma link add vrnic0 type vrnic netdev eth0; then
	tb_result kunit/vrnic_ulp FAIL "rdma link add vrnic0 failed"
else
	tb_wait_gids vrnic0 2>/dev/null
	marker="vrnic-ulp-start-$$-$RANDOM"
	echo "$marker" >/dev/kmsg
	if insmod "$ulp_ko" dev=vrnic0; then
		klog=$(dmesg --notime | sed -n "/$marker/,\$p")
		n=$nsuites
		suite_results "$klog" "$dbg/vrnic_ulp"
		[ "$nsuites" -gt "$n" ] ||
			tb_result kunit/vrnic_ulp FAIL "no vrnic_ulp suite in $dbg"
		tb_check kunit/ulp-rmmod rmmod vrnic_ulp_test
	else
		tb_result kunit/vrnic_ulp FAIL "insmod $ulp_ko failed"
	fi
	rdma link delete vrnic0 || true
fi

tb_check kunit/rmmod rmmod rdma_vrnic
