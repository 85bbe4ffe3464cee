# The middleware RDMA users run, between two guests (host0 serves, host1
# connects), as Debian 12 ships it and with no setting for vrnic:
# - UCX 1.13's ucx_perftest over the verbs transports (rc_verbs, with
#   ud_verbs for its wireup): tag_lat at 8 B and tag_bw at 64 KiB.  Its UD
#   transport finds a datagram's destination GID by the network header
#   type a ConnectX reports in the receive's SL (vrnic.rst, "Verbs");
#   with SL 0, as rxe 6.1 reports, UCX drops every RoCEv2/IPv4 datagram
#   and the endpoint times out after 30 s.
# - libfabric's fi_pingpong over its verbs provider, on an MSG endpoint
#   (RC, connected through rdma_cm) and a DGRAM endpoint (UD), every byte
#   checked (-v).
# Each must also have moved its packets through the device: ucx_perftest
# could otherwise pick another transport, and the counters say it did not.
. tools/testbed/guest-lib.sh
drv=${VRNIC_DRIVER:-vrnic}
dev=$(tb_rdma_dev "$drv")
server=10.99.0.1
label=$drv
ncpu=$(nproc)
[ "$ncpu" -eq 1 ] || label="$label/smp$ncpu"
T=${MIDDLEWARE_TIMEOUT:-150}
export UCX_NET_DEVICES=$dev:1 UCX_TLS=rc_verbs,ud_verbs,self
echo "device $dev; $(ucx_info -v | head -n1); $(fi_info --version | head -n1)"

# run NAME PORT MIN-PACKETS CMD...: CMD on host0, CMD plus the server's
# address on host1; host1 records NAME, and NAME/on-device: the device's
# sent and received packets each grew by at least MIN-PACKETS.
run() {
	local name=middleware/$label/$1 port=$2 min=$3 s0 r0 s1 r1
	shift 3
	s0=$(tb_hw_counters "$dev" sent_pkts) r0=$(tb_hw_counters "$dev" rcvd_pkts)
	tb_client_server "$name" "$T" "$port" "$*" "$* $server"
	[ "$VRNIC_HOST" -eq 1 ] || return 0
	s1=$(tb_hw_counters "$dev" sent_pkts) r1=$(tb_hw_counters "$dev" rcvd_pkts)
	s0=${s0##* } r0=${r0##* } s1=${s1##* } r1=${r1##* }
	if [ $((s1 - s0)) -ge "$min" ] && [ $((r1 - r0)) -ge "$min" ]; then
		tb_result "$name/on-device" PASS
	else
		tb_result "$name/on-device" FAIL \
			"$dev sent $((s1 - s0)) and received $((r1 - r0)) packets, want $min each"
	fi
}

run ucx-tag_lat 13337 500 ucx_perftest -t tag_lat -s 8 -n 500
run ucx-tag_bw 13337 200 ucx_perftest -t tag_bw -s 65536 -n 100
run fi_pingpong-msg 47592 400 fi_pingpong -p verbs -e msg -v -S 4096 -I 200
run fi_pingpong-dgram 47592 200 fi_pingpong -p verbs -e dgram -v -S 512 -I 200
