# SPDX-License-Identifier: GPL-2.0
# What clock.mode account costs against off (a benchmark, not a test).
#
# A TCG guest's speed follows whatever else its host runs: separate
# perftest runs of each mode, minutes apart, spread by up to 40% on the
# same host, far more than the 5% to be measured.  So one long perftest
# run per workload carries traffic while the model's clock flips between
# off and account on both devices every OVH_INT seconds (no QP notices:
# the knob takes effect on the next packet).  The requester's sent_pkts
# over each interval gives the packet rate; each pair of neighbouring
# intervals (off then account, or account then off, alternately, so that
# a trend cancels) gives one ratio, and the median of the ratios is the
# cost.  Host slowdowns longer than an interval cancel within a pair.
#
# The guest has one vCPU (tools/overhead.sh): a rate is then the inverse
# of the CPU time per packet, which is what the model adds to.  With two,
# a veth reorders a QP's packets between CPUs, the go-back-N resends that
# follow swamp the rates (Documentation/vrnic.rst, "Execution contexts"),
# and the 64 B WRITE pairs spread from 0.5 to 1.35.
#
# Workloads: 64 KiB WRITEs (bandwidth), 64 B WRITEs (message rate) and
# 64 B SEND ping-pong (latency: packets per second are round trips; on
# CQ events, see below).
# Writes $VRNIC_OUT/overhead.txt: "workload pair off_pps account_pps".
# OVH_PAIRS (default 20) pairs of OVH_INT (default 2) second intervals;
# OVH_WORKLOADS (default all three) picks workloads.
. tools/testbed/guest-lib.sh
WORKLOADS=${OVH_WORKLOADS:-write_64k write_64 send_lat_64}
for w in $WORKLOADS; do
	case $w in
	write_64k | write_64 | send_lat_64) ;;
	*) echo "OVH_WORKLOADS: unknown workload '$w'; pick from write_64k write_64 send_lat_64"; exit 1 ;;
	esac
done
PAIRS=${OVH_PAIRS:-20}
INT=${OVH_INT:-2}
out=$VRNIC_OUT/overhead.txt
: >"$out"
tb_netns_pair
g0=$(tb_gid_index vrnic0)
g1=$(tb_gid_index vrnic1)
cnt=/sys/class/infiniband/vrnic1/ports/1/hw_counters/sent_pkts
port=18515

mode() {
	echo "$1" >/sys/class/infiniband/vrnic0/model/clock.mode
	echo "$1" >/sys/class/infiniband/vrnic1/model/clock.mode
}

# now: the wall clock in seconds, ns resolution.
now() {
	date +%s.%N
}

# interval MODE: vrnic1's packets per second over INT seconds in MODE.
interval() {
	local c0 c1 t0 t1
	mode "$1"
	sleep 0.2	# packets already on their way
	read -r c0 <"$cnt"
	t0=$(now)
	sleep "$INT"
	read -r c1 <"$cnt"
	t1=$(now)
	awk -v c="$((c1 - c0))" -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", c / (b - a) }'
}

# measure NAME TOOL ARGS...: the pairs over one long run of TOOL.
measure() {
	local name=$1 tool=$2 i off acc dur len
	shift 2
	# Long enough for the pairs with room to spare (a busy vCPU runs
	# the script's own commands late); stopped once they are measured.
	# perftest's duration mode does not work with CQ events: a count of
	# iterations no run reaches instead (ib_send_lat keeps a timestamp
	# per iteration: 40 MB).
	dur=$((PAIRS * 2 * (INT + 1) * 3 + 60))
	len=(-D "$dur")
	[[ " $* " != *" -e "* ]] || len=(-n 5000000)
	ip netns exec ns0 timeout $((dur + 60)) "$tool" -d vrnic0 -x "$g0" -p "$port" \
		"${len[@]}" -F "$@" >"$VRNIC_OUT/overhead-$name.server.log" 2>&1 &
	local spid=$!
	tb_wait_port "$port" 30 ns0 || true
	ip netns exec ns1 timeout $((dur + 60)) "$tool" -d vrnic1 -x "$g1" -p "$port" \
		"${len[@]}" -F "$@" 10.97.0.1 >"$VRNIC_OUT/overhead-$name.client.log" 2>&1 &
	local cpid=$!
	sleep 5		# connected and running
	for ((i = 1; i <= PAIRS; i++)); do
		if ((i % 2)); then
			off=$(interval off)
			acc=$(interval account)
		else
			acc=$(interval account)
			off=$(interval off)
		fi
		echo "$name $i $off $acc" | tee -a "$out"
	done
	mode off
	kill "$cpid" "$spid" 2>/dev/null || true
	wait "$cpid" "$spid" 2>/dev/null || true
	port=$((port + 1))
}

for w in $WORKLOADS; do
	case $w in
	write_64k) measure write_64k ib_write_bw -s 65536 ;;
	write_64) measure write_64 ib_write_bw -s 64 ;;
	# -e: a lone vCPU cannot carry two busy-polling processes
	# round trip by round trip; they sleep on CQ events instead.
	send_lat_64) measure send_lat_64 ib_send_lat -s 64 -e ;;
	esac
done

# The median ratio per workload: throughput account/off - 1; for the
# ping-pong, latency is the inverse of its rate.
for w in $WORKLOADS; do
	awk -v w="$w" '$1 == w && $3 > 0 && $4 > 0 { printf "%.6f\n", $4 / $3 }' "$out" |
		sort -g | awk -v w="$w" '{ r[++n] = $1 }
		END {
			if (!n) { print w ": no intervals"; exit }
			m = n % 2 ? r[(n + 1) / 2] : (r[n / 2] + r[n / 2 + 1]) / 2
			if (w ~ /lat/)
				printf "%s: account against off: latency %+.1f%% (median of %d pairs; pairs %.3f..%.3f)\n", w, (1 / m - 1) * 100, n, 1 / r[n], 1 / r[1]
			else
				printf "%s: account against off: rate %+.1f%% (median of %d pairs; pairs %.3f..%.3f)\n", w, (m - 1) * 100, n, r[1], r[n]
		}'
done | tee -a "$VRNIC_OUT/overhead-summary.txt"
tb_netns_pair_del
