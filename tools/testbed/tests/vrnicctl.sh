# SPDX-License-Identifier: GPL-2.0
# vrnicctl against a live vrnic device in one guest: dev show (text and
# -j) against sysfs, rdma and ibv_devinfo; stats show -j against the
# hw_counters files; counters and rates under ibv_rc_pingpong (the device
# talking to its own GID); qp show listing the pingpong's RC QP; stats
# watch; model show/set (flat model/<block>.<knob> files) and the kernel
# refusing an out-of-range knob written straight into sysfs; the error
# paths and their exit statuses.
. tools/testbed/guest-lib.sh
k=$VRNIC_KERNEL
vc=$VRNIC_REPO/${VRNIC_BUILD:-build}/userspace/vrnicctl/vrnicctl
[ -x "$vc" ] || { echo "$vc is not built (make userspace)"; exit 1; }
T=${VRNICCTL_TIMEOUT:-120}
[[ $k = debug* ]] && T=600
out=$VRNIC_OUT/vrnicctl
mkdir -p "$out"

# Before the module: no devices, and the error says how to make one.
tb_modprobe ib_core ib_uverbs rdma_ucm
no_devices() {
	local rc=0
	"$vc" dev show >"$out/nodev.out" 2>"$out/nodev.err" || rc=$?
	cat "$out/nodev.err"
	[ "$rc" -ne 0 ] && grep -q 'no vrnic devices' "$out/nodev.err" &&
		grep -q 'rdma link add vrnic0 type vrnic netdev' "$out/nodev.err"
}
tb_check "vrnicctl/$k/no-devices-error" no_devices

dev=$(tb_rdma_dev vrnic)
gid=$(tb_gid_index "$dev")
sysd=/sys/class/infiniband/$dev
"$vc" dev show
"$vc" -p dev show

# dev show: text and JSON agree with sysfs, rdma and ibv_devinfo.
dev_text() {
	local l
	l=$("$vc" dev show "$dev")
	echo "$l"
	[[ $l == "$dev/1: netdev eth0 state ACTIVE active-mtu "*" driver vrnic"* ]]
}
tb_check "vrnicctl/$k/dev-show-text" dev_text
dev_json() {
	local j mtu gids
	j=$("$vc" -j dev show)
	mtu=$(ibv_devinfo -d "$dev" | sed -n 's/.*active_mtu:[[:space:]]*\([0-9]*\).*/\1/p')
	gids=$(grep -vc '^[0:]*$' "$sysd"/ports/1/gids/* | awk -F: '{ n += $2 } END { print n }')
	echo "$j"; echo "ibv_devinfo active_mtu $mtu, sysfs gids $gids"
	echo "$j" | jq -e --arg dev "$dev" --argjson mtu "$mtu" --argjson gids "$gids" '
		length == 1 and .[0].dev == $dev and .[0].port == 1 and
		.[0].netdev == "eth0" and .[0].state == "ACTIVE" and
		.[0]["active-mtu"] == $mtu and .[0].gids == $gids and
		.[0].driver == "vrnic" and (.[0].qps | type) == "number" and
		(.[0].mrs | type) == "number"' >/dev/null
}
tb_check "vrnicctl/$k/dev-show-json" dev_json
# The same keys in text and JSON.
same_keys() {
	local tk jk
	tk=$("$vc" dev show "$dev" | cut -d: -f2- | tr ' ' '\n' | awk 'NR % 2 == 0' | sort | paste -sd' ')
	jk=$("$vc" -j dev show "$dev" | jq -r '.[0] | del(.dev, .port) | keys[]' | sort | paste -sd' ')
	echo "text: $tk"; echo "json: $jk"
	[ -n "$tk" ] && [ "$tk" = "$jk" ]
}
tb_check "vrnicctl/$k/dev-show-same-keys" same_keys
tb_check "vrnicctl/$k/abbreviation" bash -c "[ \"\$('$vc' d)\" = \"\$('$vc' dev show)\" ]"
ambiguous() {
	local rc=0
	"$vc" model s "$dev" 2>"$out/amb.err" || rc=$?
	cat "$out/amb.err"
	[ "$rc" -ne 0 ] && grep -q "ambiguous command 's'.*show set" "$out/amb.err"
}
tb_check "vrnicctl/$k/ambiguous-prefix" ambiguous

# stats show -j: exactly the hw_counters files (less lifespan), same values.
stats_files() {
	tb_hw_counters "$dev" | sort
}
stats_match() {
	stats_files >"$out/stats.sysfs"
	"$vc" -j stats show "$dev/1" |
		jq -r '.[0].counters | to_entries[] | "\(.key) \(.value)"' | sort >"$out/stats.vrnicctl"
	diff "$out/stats.sysfs" "$out/stats.vrnicctl" && [ "$(wc -l <"$out/stats.sysfs")" -ge 10 ]
}
tb_check "vrnicctl/$k/stats-show-json-matches-sysfs" stats_match
"$vc" stats show

# A pingpong server creates its RC QP before it waits for the client, so
# qp show must list it while the server waits.
counter() { "$vc" -j stats show "$dev" | jq -r ".[0].counters.$1"; }
sent0=$(counter sent_pkts)
rcvd0=$(counter rcvd_pkts)
timeout "$T" ibv_rc_pingpong -d "$dev" -g "$gid" -n 500 >"$out/pp-server.log" 2>&1 &
srv=$!
tb_wait_port 18515 "$T" || true
qp_listed() {
	local j
	j=$("$vc" -j qp show "$dev")
	echo "$j"
	"$vc" qp show "$dev"
	qpn=$(echo "$j" | jq -r '[.[] | select(.type == "RC" and .comm == "ibv_rc_pingpong")][0].lqpn')
	[ "$qpn" != null ] || return 1
	# The QP's pid is the server's (a child of its timeout, $srv).
	pid=$(echo "$j" | jq -r --argjson q "$qpn" '[.[] | select(.lqpn == $q)][0].pid')
	[ "$(ps -o ppid= -p "$pid" | tr -d ' ')" = "$srv" ] || return 1
	echo "$j" | jq -e --argjson q "$qpn" \
		'[.[] | select(.lqpn == $q)][0] | (.state | IN("INIT", "RTR", "RTS")) and
		 (."sq-psn" | type) == "number"' >/dev/null
}
tb_check "vrnicctl/$k/qp-show-lists-pingpong" qp_listed
qp_one() {
	[ -n "${qpn:-}" ] && [ "$qpn" != null ] || return 1
	local l
	l=$("$vc" qp show "$dev" qpn "$qpn")
	echo "$l"
	[[ $l == "$dev/1: lqpn $qpn "*" type RC "* ]] && [ "$(echo "$l" | wc -l)" -eq 1 ]
}
tb_check "vrnicctl/$k/qp-show-qpn" qp_one
# The resource summary counts the server's QP and MR besides QP1.
res_counts() {
	local j
	j=$("$vc" -j dev show "$dev")
	echo "$j"
	echo "$j" | jq -e '.[0].qps >= 2 and .[0].mrs >= 1' >/dev/null
}
tb_check "vrnicctl/$k/dev-show-counts-resources" res_counts
rc=0
timeout "$T" ibv_rc_pingpong -d "$dev" -g "$gid" -n 500 "$VRNIC_IP" >"$out/pp-client.log" 2>&1 || rc=$?
src=0
wait $srv || src=$?
cat "$out/pp-client.log"
if [ "$rc" -eq 0 ] && [ "$src" -eq 0 ]; then
	tb_result "vrnicctl/$k/pingpong" PASS
else
	tb_result "vrnicctl/$k/pingpong" FAIL "client $rc server $src"
fi
moved() {
	local s r
	s=$(counter sent_pkts); r=$(counter rcvd_pkts)
	echo "sent_pkts $sent0 -> $s, rcvd_pkts $rcvd0 -> $r"
	# 500 round trips both ways: at least 1000 SENDs left and arrived.
	[ $((s - sent0)) -ge 1000 ] && [ $((r - rcvd0)) -ge 1000 ]
}
tb_check "vrnicctl/$k/stats-moved-with-traffic" moved

# Rates over an interval during traffic.  The traffic is a loop of
# 2000-round-trip pingpongs that runs until told to stop, so it covers the
# interval however fast this machine is at the moment.  (Sized from a first
# run's clock it both ended within the interval, at 7.9 ms a round trip
# against 2 ms later, and outran its 120 s limit, at 0.2 s for 500 round
# trips first and six times that under make check's load.)  Each run must
# end by itself with status 0; the loop stops after the run in progress.
sent1=$(counter sent_pkts)
pp_loop() {
	local n=0 rc src srv
	while [ ! -e "$out/pp2.stop" ]; do
		n=$((n + 1))
		timeout "$T" ibv_rc_pingpong -d "$dev" -g "$gid" -n 2000 >"$out/pp2-server.log" 2>&1 &
		srv=$!
		tb_wait_port 18515 "$T" || true
		rc=0; src=0
		timeout "$T" ibv_rc_pingpong -d "$dev" -g "$gid" -n 2000 "$VRNIC_IP" \
			>"$out/pp2-client.log" 2>&1 || rc=$?
		wait $srv || src=$?
		if [ "$rc" -ne 0 ] || [ "$src" -ne 0 ]; then
			echo "run $n: client $rc server $src"
			cat "$out/pp2-client.log" "$out/pp2-server.log"
			return 1
		fi
	done
	echo "$n runs of 2000 round trips, each ended with status 0"
}
rm -f "$out/pp2.stop"
pp_loop >"$out/pp2-loop.log" 2>&1 &
cli=$!
# The interval starts once the pair moves data: a client that takes
# seconds to start on a loaded machine would otherwise leave it empty.
started=0
for ((w = 0; w < 10 * T; w++)); do
	kill -0 $cli 2>/dev/null || break
	[ "$(counter sent_pkts)" -gt $((sent1 + 20)) ] && { started=1; break; }
	sleep 0.1
done
echo "traffic started: $started after ${w} polls"
"$vc" -j stats show "$dev" -i 2 >"$out/rates.json"
running=0
kill -0 $cli 2>/dev/null && running=1
"$vc" stats show "$dev" -i 0.5
rates_ok() {
	cat "$out/rates.json"
	jq -e '.[0] | (.interval >= 1.9 and .interval < 4) and
		(.rates | to_entries | all(.value >= 0)) and
		((.rates | keys) == (.counters | keys))' "$out/rates.json" >/dev/null
}
tb_check "vrnicctl/$k/stats-rates-non-negative" rates_ok
rates_moving() {
	[ "$started" -eq 1 ] || { echo "the second pingpong sent nothing (see pp2-*.log)"; return 1; }
	[ "$running" -eq 1 ] || { echo "the pingpong loop ended before the interval did (pp2-loop.log)"; return 1; }
	jq -e '.[0].rates.sent_pkts > 0 and .[0].rates.rcvd_pkts > 0' "$out/rates.json" >/dev/null
}
tb_check "vrnicctl/$k/stats-rates-during-traffic" rates_moving
watch_ok() {
	local o
	o=$("$vc" stats watch "$dev" -i 0.3 -n 3 </dev/null)
	echo "$o" | tail -n 5
	[ "$(echo "$o" | grep -c $'\e\[H\e\[2J')" -eq 3 ] &&
		[ "$(echo "$o" | grep -c '^ *sent_pkts ')" -eq 3 ]
}
tb_check "vrnicctl/$k/stats-watch" watch_ok
touch "$out/pp2.stop"
rc=0; wait $cli || rc=$?
cat "$out/pp2-loop.log"
if [ "$rc" -eq 0 ]; then
	tb_result "vrnicctl/$k/pingpong-long" PASS
else
	tb_result "vrnicctl/$k/pingpong-long" FAIL "$(grep -m1 "^run " "$out/pp2-loop.log")"
fi

# Error paths: nonzero exit and a message that says what to do.
# expect_error NAME REGEX CMD...: CMD fails and its stderr matches REGEX.
expect_error() {
	local name=$1 re=$2 rc=0
	shift 2
	"$@" >"$out/$name.out" 2>"$out/$name.err" || rc=$?
	cat "$out/$name.err"
	[ "$rc" -ne 0 ] && grep -Ezq -e "$re" "$out/$name.err"
}
tb_check "vrnicctl/$k/no-such-device" expect_error nosuch \
	"no device nosuch0.*vrnic devices: $dev" "$vc" dev show nosuch0
tb_check "vrnicctl/$k/no-such-port" expect_error noport "has no port 7" "$vc" stats show "$dev/7"
tb_check "vrnicctl/$k/no-such-qp" expect_error noqp "no QP 16777000" "$vc" qp show "$dev" qpn 16777000
tb_check "vrnicctl/$k/bad-interval" expect_error badint "-i wants seconds" "$vc" stats show -i 0
# vrnic always has the model's sysfs directory: without it the model
# block below would produce no result, so its absence is a failure.
tb_check "vrnicctl/$k/model-sysfs" test -d "$sysd/model"
model_snapshot() { [ -d "$sysd/model" ] && grep -r . "$sysd/model" | sort; true; }
before=$(model_snapshot)
tb_check "vrnicctl/$k/model-set-out-of-range" expect_error mps \
	"pcie.mps must be one of 128 256 512 1024 2048 4096 \(bytes\); got 100" \
	"$vc" model set "$dev" pcie.mps 100
tb_check "vrnicctl/$k/model-set-range-message" expect_error latency \
	"dma.read_latency_ns must be an integer in 0..100000 \(ns\); got 100001" \
	"$vc" model set "$dev" pcie.mps 256 dma.read_latency_ns 100001
tb_check "vrnicctl/$k/model-set-bad-keyword" expect_error mode \
	"qpc.mode must be one of onchip host; got dram" "$vc" model set "$dev" qpc.mode dram
tb_check "vrnicctl/$k/model-set-wrote-nothing" bash -c "[ \"\$1\" = \"\$(grep -r . '$sysd/model' 2>/dev/null | sort)\" ]" _ "$before"
if [ -d "$sysd/model" ]; then
	# The knobs are flat files, model/<block>.<knob>: model show lists
	# every one of them (those the table lacks too), and a block is the
	# part of the name before the first dot.
	model_show_all() {
		local files shown
		files=$(ls "$sysd/model" | sort | paste -sd' ')
		shown=$("$vc" -j model show "$dev" | jq -r '.[0].knobs[].knob' | sort | paste -sd' ')
		"$vc" model show "$dev"
		echo "files: $files"; echo "shown: $shown"
		[ -n "$files" ] && [ "$files" = "$shown" ]
	}
	tb_check "vrnicctl/$k/model-show-lists-every-file" model_show_all
	model_show_block() {
		local b files shown
		b=$(ls "$sysd/model" | head -n1); b=${b%%.*}
		files=$(cd "$sysd/model" && ls -d "$b".* | sort | paste -sd' ')
		shown=$("$vc" -j model show "$dev" "$b" | jq -r '.[0].knobs[].knob' | sort | paste -sd' ')
		echo "block $b: files: $files"; echo "shown: $shown"
		[ -n "$files" ] && [ "$files" = "$shown" ]
	}
	tb_check "vrnicctl/$k/model-show-block" model_show_block
	tb_check "vrnicctl/$k/model-show-no-such-block" expect_error noblock \
		"has no model block nosuch.*its blocks: " "$vc" model show "$dev" nosuch
fi
if [ -e "$sysd/model/pcie.mps" ]; then
	mps0=$(cat "$sysd/model/pcie.mps")
	model_set() {
		"$vc" model set "$dev" pcie.mps 512 &&
			[ "$(cat "$sysd/model/pcie.mps")" = 512 ] &&
			"$vc" -j model show "$dev" pcie | jq -e '[.[0].knobs[] | select(.knob == "pcie.mps")][0].value == 512' >/dev/null
	}
	tb_check "vrnicctl/$k/model-set" model_set
	tb_check "vrnicctl/$k/model-set-needs-root" expect_error root "needs root" \
		setpriv --reuid=65534 --regid=65534 --clear-groups "$vc" model set "$dev" pcie.mps 256
	# Straight into sysfs, past vrnicctl's checks: the kernel refuses an
	# out-of-range value, keeps the old one, and logs the knob with the
	# values it accepts.
	sysfs_refuses() {
		local v0 v1 n0 rc=0 log
		v0=$(cat "$sysd/model/pcie.mps")
		n0=$(dmesg | wc -l)
		( echo 100 >"$sysd/model/pcie.mps" ) 2>"$out/sysfs-mps.err" || rc=$?
		v1=$(cat "$sysd/model/pcie.mps")
		log=$(dmesg | tail -n +$((n0 + 1)))
		[ -n "$log" ] || log=$(dmesg | tail -n 20)
		echo "echo 100 > model/pcie.mps: exit $rc, $(cat "$out/sysfs-mps.err")"
		echo "pcie.mps $v0 -> $v1"
		echo "$log"
		[ "$rc" -ne 0 ] && [ "$v0" = "$v1" ] &&
			echo "$log" | grep -F 'pcie.mps' | grep -w 128 | grep -qw 4096
	}
	tb_check "vrnicctl/$k/model-sysfs-write-out-of-range" sysfs_refuses
	"$vc" model set "$dev" pcie.mps "$mps0" || true
fi
if [ ! -d "$sysd/model" ]; then
	model_absent() {
		local o
		o=$("$vc" model show) && echo "$o" && echo "$o" | grep -q "^$dev: .*no hardware model knobs yet" &&
			"$vc" -j model show | jq -e '.[0].knobs == [] and (.[0].note | type) == "string"' >/dev/null
	}
	tb_check "vrnicctl/$k/model-show-without-model" model_absent
	tb_check "vrnicctl/$k/model-set-without-model" expect_error nomodel \
		"has no hardware model knobs" "$vc" model set "$dev" pcie.mps 256
fi

# stats show summary on the live device: with the clock off the model
# counted nothing and the note says how to turn it on; accounting a
# pingpong, the figures are the model's counters (TLPs, doorbells, the
# MR cache: one lookup per packet's payload, hits and misses adding up).
if [ -d "$sysd/model" ]; then
	summary_live() {
		local j rc=0 spid
		"$vc" model set "$dev" clock.mode off >/dev/null
		j=$("$vc" -j stats show "$dev/1" summary)
		echo "$j"
		echo "$j" | jq -e '.[0].summary == {} and (.[0].note | test("clock.mode account"))' \
			>/dev/null || return 1
		"$vc" model set "$dev" clock.mode account
		timeout "$T" ibv_rc_pingpong -d "$dev" -g "$gid" -n 100 >"$out/sum-server.log" 2>&1 &
		spid=$!
		tb_wait_port 18515 "$T" || true
		timeout "$T" ibv_rc_pingpong -d "$dev" -g "$gid" -n 100 127.0.0.1 \
			>"$out/sum-client.log" 2>&1 || rc=1
		wait $spid || rc=1
		"$vc" model set "$dev" clock.mode off >/dev/null
		sleep 0.1
		"$vc" stats show "$dev/1" summary
		j=$("$vc" -j stats show "$dev/1" summary)
		local up hits miss
		read -r up <"$sysd/ports/1/hw_counters/model_pcie_tlps_up"
		read -r hits <"$sysd/ports/1/hw_counters/model_mrc_hits"
		read -r miss <"$sysd/ports/1/hw_counters/model_mrc_misses"
		echo "$j" | jq -e --argjson up "$up" --argjson l $((hits + miss)) \
			'.[0]."clock-mode" == "off" and .[0].summary."pcie-up-tlps" == $up and $up > 0 and
			 .[0].summary."mrc-lookups" == $l and .[0].summary."db-rings" > 0 and
			 (.[0].summary."wqes-per-doorbell" >= 1)' >/dev/null || rc=1
		return $rc
	}
	tb_check "vrnicctl/$k/stats-summary-live" summary_live
fi

rdma link delete "$dev"
rmmod rdma_vrnic
tb_check "vrnicctl/$k/gone-after-rmmod" expect_error gone "no vrnic devices" "$vc" dev show
