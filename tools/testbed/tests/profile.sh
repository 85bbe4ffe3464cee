# The data path's profile (not a test): one perftest pair over
# PROFILE_DRIVER (vrnic) between two guests, sampled on both while it runs
# (bpftrace, 499 Hz per CPU: the kernel function each sample interrupted,
# or the command for samples in user space; perf record in these TCG
# guests kept one or two samples of thousands).  Each host writes
# $VRNIC_OUT/profile.txt: the top 40 by share of samples.  PROFILE_TOOL and
# PROFILE_ARGS choose the perftest (ib_write_bw, "-s 65536 -n 2000").
# Beside the samples it counts virtio kicks, task switches, softirqs (the
# network receive's, NET_RX, by who ran them: ksoftirqd, or an interrupt's
# exit or a bottom half's end elsewhere) and ksoftirqd's wakeups with the
# mean time from each to its running.
. tools/testbed/guest-lib.sh
drv=${PROFILE_DRIVER:-vrnic}
tool=${PROFILE_TOOL:-ib_write_bw}
args=${PROFILE_ARGS:--s 65536 -n 2000}
server=10.99.0.1
dev=$(tb_rdma_dev "$drv")
gid=$(tb_gid_index "$dev")
pt="-d $dev -x $gid -F $args"
raw=$VRNIC_OUT/profile.raw
# PROFILE_FUNCS: kernel functions whose calls are counted and timed
# (entry to return, mean ns), e.g. "vrnic_recv vrnic_qp_work".
prog='BEGIN { printf("Tracing\n"); }
profile:hz:499 {
	if (reg("ip") >= 0xffff800000000000) { @k[ksym(reg("ip"))] = count(); }
	else { @u[comm] = count(); }
}
tracepoint:workqueue:workqueue_execute_start { @w[ksym(args->function)] = count(); }
kprobe:vp_notify { @e["virtio kicks (vp_notify)"] = count(); }
tracepoint:sched:sched_switch { @e["task switches"] = count(); }
tracepoint:irq:softirq_entry {
	@e["softirqs"] = count();
	if (args->vec == 3) {	/* NET_RX_SOFTIRQ */
		if (strncmp(comm, "ksoftirqd", 9) == 0) { @e["NET_RX softirqs in ksoftirqd"] = count(); }
		else { @e["NET_RX softirqs elsewhere"] = count(); }
	}
}
tracepoint:sched:sched_wakeup /strncmp(args->comm, "ksoftirqd", 9) == 0/ { @kw[args->pid] = nsecs; }
tracepoint:sched:sched_switch /@kw[args->next_pid]/ { @a["ksoftirqd wakeup to running, mean ns"] = avg(nsecs - @kw[args->next_pid]); @e["ksoftirqd wakeups"] = count(); delete(@kw[args->next_pid]); }
END { clear(@kw); }'
n=0
for f in ${PROFILE_FUNCS:-}; do
	n=$((n + 1))
	prog+="
kprobe:$f { @t$n[tid] = nsecs; }
kretprobe:$f /@t$n[tid]/ { @ns[\"$f\"] = avg(nsecs - @t$n[tid]); @calls[\"$f\"] = count(); delete(@t$n[tid]); }"
done
printf '%s\n' "$prog" >"$VRNIC_OUT/profile.bt"
tb_bpftrace_start "$VRNIC_OUT/profile.bt" "$raw" 120 || true
tb_barrier profile-attached 300
# The device's counters around the run: what it sent and received.
c0=$(tb_hw_counters "$dev")
rc=0
tb_client_server "profile/$drv/$tool" 600 18515 "$tool $pt" "$tool $pt $server" || rc=$?
counters=$({ printf '%s\n--\n' "$c0"; tb_hw_counters "$dev"; } |
	awk '$0 == "--" { after = 1; next } !after { v[$1] = $2; next }
	     $2 != v[$1] { printf "%12d  %s\n", $2 - v[$1], $1 }')
# One SIGINT, and time for the maps to print (a second one cuts them off).
tb_bpftrace_stop || true
awk -F': ' '/^@k\[/ { s = $1; sub(/^@k\[/, "", s); sub(/\]$/, "", s); n[s] += $2; t += $2 }
	/^@u\[/ { s = $1; sub(/^@u\[/, "", s); sub(/\]$/, "", s); n["(user) " s] += $2; t += $2 }
	END { for (s in n) printf "%6.2f%%  %6d  %s\n", 100 * n[s] / t, n[s], s; printf "%6.2f%%  %6d  (all samples)\n", 100, t }' \
	"$raw" | sort -k2,2nr | sed -n 1,41p >"$VRNIC_OUT/profile.txt"
{
	echo "-- events during the run (all CPUs), and the work items run most"
	sed -n 's/^@[ea]\[\(.*\)\]: \([0-9]*\)$/\2  \1/p' "$raw" | awk '{ printf "%12d  %s\n", $1, substr($0, index($0, $2)) }'
	sed -n 's/^@w\[\(.*\)\]: \([0-9]*\)$/\2  work \1/p' "$raw" | sort -nr | sed -n 1,8p |
		awk '{ printf "%12d  %s\n", $1, substr($0, index($0, $2)) }'
	[ -z "${PROFILE_FUNCS:-}" ] || {
		echo "-- calls and mean ns from entry to return"
		for f in $PROFILE_FUNCS; do
			printf '%12s calls %10s ns  %s\n' \
				"$(sed -n "s/^@calls\[$f\]: //p" "$raw")" "$(sed -n "s/^@ns\[$f\]: //p" "$raw")" "$f"
		done
	}
	echo "-- $dev's counters that moved"
	echo "$counters"
} >>"$VRNIC_OUT/profile.txt"
echo "== host $VRNIC_HOST: $tool $args over $drv"
cat "$VRNIC_OUT/profile.txt"
exit $rc
