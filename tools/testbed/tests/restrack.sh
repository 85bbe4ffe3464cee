# SPDX-License-Identifier: GPL-2.0
# Driver detail in the resource tracker: `rdma res show qp|mr|cq -dd` (text
# and -j) lists vrnic's fields, with the values the verbs set and the
# traffic produced.
#
# 1. Known values: a small verbs program (vrnic-qpstates, userspace/tests)
#    holds RC QPs in RESET, INIT, RTR, RTS and ERR, a UC and a UD QP in RTS
#    and one user MR, all with chosen attributes; each QP must report
#    exactly the fields its type and state have, with those values.
# 2. Live traffic: ib_write_bw between vrnic0 (ns0) and vrnic1 (ns1); while
#    it runs, the PSNs must be 24-bit, move, and agree across the two ends
#    (una <= the responder's ePSN <= the next PSN), dest_qpn must name the
#    peer's QP, and the benchmark's MRs must have as many MTT entries as
#    their pages.  With clock.mode account the live QPs report their
#    context on chip (qpc_cached) and the MRs their translation
#    (mrc_cached).
. tools/testbed/guest-lib.sh
T=60	# a bound on each wait; D: the benchmark's duration, a bound: it
D=300	# is ended once sampled (a busy guest took 40 s to sample it)
[[ $VRNIC_KERNEL = debug* ]] && T=240

work=$(mktemp -d)
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rdma link delete vrnic0 2>/dev/null || true
	rdma link delete vrnic1 2>/dev/null || true
	rmmod rdma_vrnic 2>/dev/null || true
	ip netns del ns0 2>/dev/null || true
	ip netns del ns1 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

tb_netns_pair
g0=$(tb_gid_index vrnic0)
g1=$(tb_gid_index vrnic1)

# res NS OBJ: `rdma res show OBJ -dd -j` in namespace NS, into $work/NS.OBJ.json.
res() {
	ip netns exec "$1" rdma res show "$2" -dd -j >"$work/$1.$2.json"
}

# check NAME PYTHON-BODY ARGS...: run the Python assertions with the JSON
# helpers below; each failed assertion prints and the check FAILs.
check() {
	local name=$1 body=$2
	shift 2
	tb_check "$name" python3 - "$work" "$@" <<PY
import json, sys, os
work = sys.argv[1]
args = sys.argv[2:]
bad = []
def load(ns, obj):
    with open(os.path.join(work, "%s.%s.json" % (ns, obj))) as f:
        return json.load(f)
def drv(e):
    # iproute2 prints driver attributes as drv_<name>; hex ones may be text.
    d = {}
    for k, v in e.items():
        if k.startswith("drv_"):
            if isinstance(v, str) and v.startswith("0x"):
                v = int(v, 16)
            elif isinstance(v, int) and v < 0:
                # iproute2 6.1 prints unsigned driver values in JSON
                # through a signed int: undo the sign.
                v &= 0xffffffff
            d[k[4:]] = v
    return d
def on(entries, dev):
    # In shared netns mode every namespace sees every device: keep DEV's.
    return [e for e in entries if dev in (e.get("ifname"), e.get("dev"))]
def num(v):
    return int(v, 16) if isinstance(v, str) else v
def expect(cond, what):
    if not cond:
        bad.append(what)
        print("FAIL:", what)
def psn_le(a, b):
    return ((b - a) & 0xffffff) < 0x800000
def qpstates():
    # vrnic-qpstates's "name value" lines.
    return dict(l.split() for l in open(os.path.join(work, "qpstates.out")) if len(l.split()) == 2)
def mr_listed(lkey, what):
    # vrnic0's MR @lkey as ns0 lists it, which must be listed once.
    mrs = [e for e in on(load("ns0", "mr"), "vrnic0") if num(e.get("lkey")) == lkey]
    expect(len(mrs) == 1, "%s lkey %#x listed once (%d)" % (what, lkey, len(mrs)))
    return mrs[0] if mrs else {}
$body
sys.exit(1 if bad else 0)
PY
}

# --- 1. known values --------------------------------------------------------
# vrnic-qpstates (userspace/tests/qpstates.cpp, built on the host with the
# rest of userspace; compiling a helper here took the guest 11 s).
qpstates=${VRNIC_BUILD:-build}/userspace/tests/vrnic-qpstates
[ -x "$qpstates" ] || echo "$qpstates is not built (make userspace)"
tb_check restrack/helper-built test -x "$qpstates"
ip netns exec ns0 "$qpstates" vrnic0 "$g0" >"$work/qpstates.out" 2>&1 &
pids+=($!)
for ((i = 0; i < T * 10; i++)); do
	grep -q '^ready' "$work/qpstates.out" 2>/dev/null && break
	sleep 0.1
done
cat "$work/qpstates.out"
tb_check restrack/helper-ready grep -q '^ready' "$work/qpstates.out"

# The flush of the ERR QP's receives is the QP's work: give it time.
for ((i = 0; i < 50; i++)); do
	res ns0 cq
	python3 -c 'import json,sys; sys.exit(0 if any(e.get("drv_used") == 3 for e in json.load(open(sys.argv[1]))) else 1)' \
		"$work/ns0.cq.json" 2>/dev/null && break
	sleep 0.1
done
res ns0 qp
res ns0 mr
echo "--- rdma res show qp -dd (ns0)"
ip netns exec ns0 rdma res show qp -dd
echo "--- rdma res show mr -dd (ns0)"
ip netns exec ns0 rdma res show mr -dd
echo "--- rdma res show cq -dd (ns0)"
ip netns exec ns0 rdma res show cq -dd

# The text output carries the driver fields too (and only with -dd).
tb_check restrack/text-qp-dd bash -c "ip netns exec ns0 rdma res show qp -dd | grep -Eq 'una_psn 11259375( |\$)'"
addr=$(printf '%x' "$(awk '$1 == "mr_addr" { print $2 }' "$work/qpstates.out")")
tb_check restrack/text-mr-iova bash -c "ip netns exec ns0 rdma res show mr -dd | grep -q 'iova 0x$addr '"
tb_check restrack/text-no-dd bash -c "! ip netns exec ns0 rdma res show qp | grep -Eq 'una_psn|sq_depth'"

check restrack/qp-states '
ids = {}
for line in open(os.path.join(work, "qpstates.out")):
    k, _, v = line.partition(" ")
    if v.strip():
        ids[k] = int(v)
qps = {e["lqpn"]: e for e in load("ns0", "qp") if e.get("ifname") == "vrnic0"}
queues = {"sq_outstanding", "sq_depth", "rq_posted", "rq_depth"}
responder = {"mtu", "dest_qpn", "resp_epsn"}
rc_responder = {"resp_msn", "max_dest_rd_atomic", "min_rnr_timer"}
rc_requester = {"una_psn", "retry_left", "retry_cnt", "rnr_retry_left",
                "rnr_retry", "timeout", "max_rd_atomic"}
want_keys = {
    "reset": queues,
    "init": queues,
    "rtr": queues | responder | rc_responder,
    "rts": queues | responder | rc_responder | rc_requester | {"req_psn"},
    "err": queues | responder | rc_responder | rc_requester | {"req_psn"},
    "uc": queues | responder | {"req_psn"},
    "ud": queues | {"qkey", "mtu", "req_psn"},
}
for name, keys in want_keys.items():
    e = qps.get(ids.get(name))
    expect(e is not None, "QP %s (%s) listed" % (name, ids.get(name)))
    if e is None:
        continue
    d = drv(e)
    expect(set(d) == keys, "QP %s fields %s, want %s" % (name, sorted(d), sorted(keys)))
    expect(d.get("sq_depth", 0) >= 16, "QP %s sq_depth %s >= 16" % (name, d.get("sq_depth")))
    expect(d.get("rq_depth", 0) >= 16, "QP %s rq_depth %s >= 16" % (name, d.get("rq_depth")))
    if "mtu" in d:
        expect(d["mtu"] == 1024 if name != "ud" else d["mtu"] in (256, 512, 1024, 2048, 4096),
               "QP %s mtu %s" % (name, d["mtu"]))
    if "dest_qpn" in d:
        expect(d["dest_qpn"] == ids[name], "QP %s dest_qpn %s" % (name, d["dest_qpn"]))
        expect(d["dest_qpn"] == e.get("rqpn"), "QP %s dest_qpn %s = rqpn %s" % (name, d["dest_qpn"], e.get("rqpn")))
    if "resp_epsn" in d:
        expect(d["resp_epsn"] == 0x010203, "QP %s resp_epsn %#x" % (name, d["resp_epsn"]))
    if "req_psn" in d:
        expect(d["req_psn"] == 0xabcdef, "QP %s req_psn %#x" % (name, d["req_psn"]))
rts = drv(qps.get(ids["rts"], {}))
for k, v in (("una_psn", 0xabcdef), ("retry_left", 5), ("retry_cnt", 5),
             ("rnr_retry_left", 6), ("rnr_retry", 6), ("timeout", 14),
             ("max_rd_atomic", 4), ("max_dest_rd_atomic", 4),
             ("min_rnr_timer", 12), ("resp_msn", 0), ("rq_posted", 3),
             ("sq_outstanding", 0)):
    expect(rts.get(k) == v, "RTS QP %s = %s, want %s" % (k, rts.get(k), v))
ud = drv(qps.get(ids["ud"], {}))
expect(ud.get("qkey") == 0x11111111, "UD qkey %s" % ud.get("qkey"))
err = qps.get(ids["err"], {})
expect(err.get("state") == "ERR", "ERR QP state %s" % err.get("state"))
expect(drv(err).get("rq_posted") == 0, "ERR QP rq_posted %s (flushed)" % drv(err).get("rq_posted"))
expect(qps.get(ids["reset"], {}).get("state") == "RESET", "RESET QP state")
# QP1 (GSI, kernel) is in RTS: a qkey and a PSN, no RC fields.
gsi = drv(qps.get(1, {}))
expect("qkey" in gsi and "req_psn" in gsi and "una_psn" not in gsi, "GSI QP fields %s" % sorted(gsi))
'

check restrack/mr-known '
info = qpstates()
mr = mr_listed(int(info["mr_lkey"]), "MR")
d = drv(mr)
for k, v in (("type", "user"), ("state", "valid"), ("access", 0x7),
             ("mtt_entries", 4), ("page_size", 4096), ("length", 3 * 4096),
             ("iova", int(info["mr_addr"]))):
    if k == "iova" and isinstance(d.get(k), int):
        # iproute2 6.1 prints 64-bit driver values in JSON through an
        # int: compare the low 32 bits here, the text output in full.
        d[k] &= 0xffffffff
        v &= 0xffffffff
    expect(d.get(k) == v, "MR %s = %r, want %r" % (k, d.get(k), v))
expect("mapped_pages" not in d, "a user MR has no mapped_pages")
if mr:
    expect(mr.get("mrlen") == d.get("length"), "MR length %s = mrlen %s" % (d.get("length"), mr.get("mrlen")))
'

# An on-demand paging MR (vrnic-qpstates registers one): its type named
# (a type without a name was a NULL string in the netlink put: an oops).
check restrack/mr-odp '
d = drv(mr_listed(int(qpstates()["odp_mr_lkey"]), "ODP MR"))
for k, v in (("type", "odp"), ("state", "valid"), ("mtt_entries", 2),
             ("page_size", 4096), ("length", 2 * 4096)):
    expect(d.get(k) == v, "ODP MR %s = %r, want %r" % (k, d.get(k), v))
'

check restrack/cq-known '
info = qpstates()
cqs = on(load("ns0", "cq"), "vrnic0")
user = [e for e in cqs if e.get("drv_ring") == "user"]
kern = [e for e in cqs if e.get("drv_ring") == "kernel"]
expect(len(user) == 2, "2 user CQs (%d)" % len(user))
expect(len(kern) >= 1, "the MAD layer has kernel CQs (%d)" % len(kern))
for e in cqs:
    d = drv(e)
    expect(set(d) == {"depth", "used", "armed", "overflowed", "ring"}, "CQ fields %s" % sorted(d))
    expect(d.get("depth") == e.get("cqe"), "CQ depth %s = cqe %s" % (d.get("depth"), e.get("cqe")))
    expect(0 <= d.get("used", -1) <= d.get("depth", 0), "CQ used %s <= depth" % d.get("used"))
    expect(d.get("armed") in ("none", "solicited", "next"), "CQ armed %s" % d.get("armed"))
    expect(d.get("overflowed") == 0, "CQ overflowed %s" % d.get("overflowed"))
errcq = [e for e in user if e.get("cqe") == int(info["cq_err_cqe"])]
expect(any(drv(e)["used"] == 3 for e in errcq), "the ERR QP CQ holds its 3 flushed completions")
'
kill "${pids[0]}"
wait "${pids[0]}" 2>/dev/null || true
pids=()

# --- 2. live traffic ----------------------------------------------------------
SIZE=65536
ip netns exec ns0 timeout $((T + D + 30)) ib_write_bw -d vrnic0 -x "$g0" -F -D "$D" -s $SIZE \
	>"$VRNIC_OUT/restrack.server.log" 2>&1 &
srv=$!
pids+=($srv)
tb_wait_port 18515 "$T" ns0 || true
ip netns exec ns1 timeout $((T + D + 30)) ib_write_bw -d vrnic1 -x "$g1" -F -D "$D" -s $SIZE 10.97.0.1 \
	>"$VRNIC_OUT/restrack.client.log" 2>&1 &
cli=$!
pids+=($cli)

# Wait until the client's RC QP is in RTS and the server's (which only is
# written into: perftest leaves it in RTR) in RTR or RTS, then sample:
# client, server, client, and both once more a second later.
live_qp() {
	local out
	out=$(ip netns exec ns$1 rdma res show qp -dd)
	grep -Eq "^link vrnic$1/1 .*type RC state ($2) " <<<"$out"
}
echo "$(date +%T.%N) traffic started"
end=$((SECONDS + T))
until live_qp 1 RTS && live_qp 0 'RTR|RTS'; do
	if [ $SECONDS -ge $end ]; then
		echo "no live RC QPs after $T s:"
		ip netns exec ns1 rdma res show qp -dd
		break
	fi
	sleep 0.2
done
echo "$(date +%T.%N) both QPs in RTS"
sleep 1
res ns1 qp && cp "$work/ns1.qp.json" "$work/c1.json"
res ns0 qp && cp "$work/ns0.qp.json" "$work/s.json"
res ns1 qp && cp "$work/ns1.qp.json" "$work/c2.json"
sleep 1
res ns1 qp && cp "$work/ns1.qp.json" "$work/c3.json"
res ns0 qp && cp "$work/ns0.qp.json" "$work/s2.json"
res ns0 mr
res ns1 mr
res ns0 cq
res ns1 cq
echo "$(date +%T.%N) sampled"
# The model's view, while the clock accounts: the live QPs' contexts and
# the benchmark MRs' translations are on chip (the traffic keeps them
# there); with the clock off the fields are absent (as in the checks
# below).  Sampled now, while the traffic surely runs (each check below
# starts a python3, seconds in a busy guest), and checked last; the
# samples above are put back for the checks that read them.
for k in ns0.qp ns1.qp ns0.mr ns1.mr; do cp "$work/$k.json" "$work/live.$k.json"; done
for n in 0 1; do echo account >/sys/class/infiniband/vrnic$n/model/clock.mode; done
sleep 1
res ns0 qp && res ns1 qp && res ns0 mr && res ns1 mr
for n in 0 1; do echo off >/sys/class/infiniband/vrnic$n/model/clock.mode; done
echo "--- rdma res show qp -dd (ns1, clock.mode account)"
ip netns exec ns1 rdma res show qp -dd
for k in ns0.qp ns1.qp ns0.mr ns1.mr; do
	cp "$work/$k.json" "$work/acct.$k.json"
	cp "$work/live.$k.json" "$work/$k.json"
done
echo "--- rdma res show qp -dd (ns1, under traffic)"
ip netns exec ns1 rdma res show qp -dd
echo "--- rdma res show mr -dd (ns1, under traffic)"
ip netns exec ns1 rdma res show mr -dd
echo "--- rdma res show cq -dd (ns1, under traffic)"
ip netns exec ns1 rdma res show cq -dd
still=0
kill -0 $cli 2>/dev/null && still=1
tb_check restrack/traffic-still-running test $still -eq 1

check restrack/qp-live '
def rcq(path, dev, states):
    with open(os.path.join(work, path)) as f:
        return [e for e in on(json.load(f), dev) if e.get("type") == "RC" and e.get("state") in states]
c1, c2, c3 = (rcq(p, "vrnic1", ("RTS",)) for p in ("c1.json", "c2.json", "c3.json"))
s, s2 = (rcq(p, "vrnic0", ("RTR", "RTS")) for p in ("s.json", "s2.json"))
expect(all(len(x) == 1 for x in (c1, c2, c3, s, s2)),
       "one live RC QP at each end (%s)" % [len(x) for x in (c1, c2, c3, s, s2)])
if not bad:
    a, b, c, z, y = drv(c1[0]), drv(s[0]), drv(c2[0]), drv(c3[0]), drv(s2[0])
    # The server is only written into: requester fields only if in RTS.
    srv_req = s[0]["state"] == "RTS"
    want = {"sq_outstanding", "sq_depth", "rq_posted", "rq_depth", "mtu",
            "dest_qpn", "resp_epsn", "resp_msn", "max_dest_rd_atomic",
            "min_rnr_timer"}
    req = {"req_psn", "una_psn", "retry_left", "retry_cnt", "rnr_retry_left",
           "rnr_retry", "timeout", "max_rd_atomic"}
    expect(set(a) == want | req, "client fields %s" % sorted(a))
    expect(set(b) == (want | req if srv_req else want), "server fields %s" % sorted(b))
    for n, d in (("client", a), ("server", b)):
        for k in ("req_psn", "una_psn", "resp_epsn"):
            if k in d or n == "client" or srv_req:
                expect(0 <= d.get(k, -1) < 1 << 24, "%s %s %s is 24-bit" % (n, k, d.get(k)))
        expect(0 <= d.get("sq_outstanding", -1) <= d.get("sq_depth", -1), "%s sq %s/%s" % (n, d.get("sq_outstanding"), d.get("sq_depth")))
        expect(0 <= d.get("rq_posted", -1) <= d.get("rq_depth", -1), "%s rq %s/%s" % (n, d.get("rq_posted"), d.get("rq_depth")))
        expect(d.get("mtu") in (256, 512, 1024, 2048, 4096), "%s mtu %s" % (n, d.get("mtu")))
        if n == "server" and not srv_req:
            continue
        expect(d.get("retry_left", 99) <= d.get("retry_cnt", -1) <= 7, "%s retries %s/%s" % (n, d.get("retry_left"), d.get("retry_cnt")))
        expect(d.get("rnr_retry_left", 99) <= 7 and d.get("rnr_retry", 99) <= 7, "%s rnr retries %s/%s" % (n, d.get("rnr_retry_left"), d.get("rnr_retry")))
        expect(psn_le(d.get("una_psn", 0), d.get("req_psn", 0)), "%s una %s <= next %s" % (n, d.get("una_psn"), d.get("req_psn")))
    expect(a.get("dest_qpn") == s[0].get("lqpn") and b.get("dest_qpn") == c1[0].get("lqpn"),
           "dest_qpn names the peer: %s/%s %s/%s" % (a.get("dest_qpn"), s[0].get("lqpn"), b.get("dest_qpn"), c1[0].get("lqpn")))
    # The client writes: what it sent the server expects, in PSN order.
    expect(psn_le(a["una_psn"], b["resp_epsn"]) and psn_le(b["resp_epsn"], c["req_psn"]),
           "client una %d <= server epsn %d <= client next %d" % (a["una_psn"], b["resp_epsn"], c["req_psn"]))
    expect(z["req_psn"] != a["req_psn"], "the client PSN moves (%d -> %d)" % (a["req_psn"], z["req_psn"]))
    expect(y["resp_epsn"] != b["resp_epsn"], "the server ePSN moves (%d -> %d)" % (b["resp_epsn"], y["resp_epsn"]))
    expect(y["resp_msn"] != b["resp_msn"], "the server MSN moves (%d -> %d)" % (b["resp_msn"], y["resp_msn"]))
    expect(a.get("sq_outstanding", 0) > 0 or c.get("sq_outstanding", 0) > 0 or z.get("sq_outstanding", 0) > 0,
           "the client has WQEs outstanding")
'

check restrack/mr-live "
size = $SIZE
for ns in ('ns0', 'ns1'):
    mrs = [e for e in on(load(ns, 'mr'), 'vrnic' + ns[2]) if drv(e).get('type') == 'user']
    expect(len(mrs) >= 1, '%s: the benchmark MR is listed' % ns)
    for e in mrs:
        d = drv(e)
        ps = d.get('page_size', 0)
        expect(ps == 4096, '%s: page_size %s' % (ns, ps))
        if not ps:
            continue
        first = d['iova'] // ps
        last = (d['iova'] + d['length'] - 1) // ps
        expect(d.get('mtt_entries') == last - first + 1,
               '%s: MR %s mtt_entries %s for %#x+%d' % (ns, e.get('mrn'), d.get('mtt_entries'), d['iova'], d['length']))
        expect(d['length'] == e.get('mrlen') and d['length'] >= size,
               '%s: MR length %s (mrlen %s) >= %d' % (ns, d['length'], e.get('mrlen'), size))
        expect(d.get('access', 0) & 1, '%s: MR access %#x has LOCAL_WRITE' % (ns, d.get('access', 0)))
    # The server is written into: its MR must allow it.
    if ns == 'ns0':
        expect(any(drv(e).get('access', 0) & 2 for e in mrs), 'ns0: an MR has REMOTE_WRITE')
"

check restrack/cq-live '
for ns in ("ns0", "ns1"):
    cqs = [e for e in on(load(ns, "cq"), "vrnic" + ns[2]) if e.get("drv_ring") == "user"]
    expect(len(cqs) >= 1, "%s: the benchmark CQ is listed" % ns)
    for e in cqs:
        d = drv(e)
        expect(0 <= d.get("used", -1) <= d.get("depth", 0) and d.get("overflowed") == 0,
               "%s: CQ %s used %s/%s overflowed %s" % (ns, e.get("cqn"), d.get("used"), d.get("depth"), d.get("overflowed")))
'

# The model's view, sampled above while the traffic ran.
for k in ns0.qp ns1.qp ns0.mr ns1.mr; do cp "$work/acct.$k.json" "$work/$k.json"; done
check restrack/model-residency '
for ns in ("ns0", "ns1"):
    dev = "vrnic" + ns[2]
    qps = [e for e in on(load(ns, "qp"), dev) if e.get("type") == "RC"]
    expect(len(qps) == 1 and drv(qps[0]).get("qpc_cached") == 1,
           "%s: the live RC QP is in the QPC cache: %s" % (ns, [drv(e).get("qpc_cached") for e in qps]))
    mrs = [e for e in on(load(ns, "mr"), dev) if drv(e).get("type") == "user"]
    expect(len(mrs) >= 1 and all("mrc_cached" in drv(e) for e in mrs),
           "%s: user MRs report mrc_cached: %s" % (ns, [drv(e).get("mrc_cached") for e in mrs]))
    expect(any(drv(e).get("mrc_cached") == 1 for e in mrs),
           "%s: the benchmark MR is in the MR cache" % ns)
'

# The traffic has served (traffic-still-running above): end it.  Each
# side ends by the signal (143) or, if it was done, by itself (0).  Both
# perftests are stopped before either is signalled: signalled one after
# the other, the second could see its peer go first and exit 1 on its
# own (a cold make check did: client 143, server 1).
rc=0 src=0
bw=$(pgrep -P "$cli"; pgrep -P "$srv") || true
if [ -n "$bw" ]; then
	kill -STOP $bw 2>/dev/null || true
	kill -TERM $bw 2>/dev/null || true
	kill -CONT $bw 2>/dev/null || true
fi
kill "$cli" "$srv" 2>/dev/null || true
wait $cli || rc=$?
wait $srv || src=$?
pids=()
tail -n 3 "$VRNIC_OUT/restrack.client.log"
if [[ " 0 143 " == *" $rc "* && " 0 143 " == *" $src "* ]]; then
	tb_result restrack/ib_write_bw PASS
else
	tb_result restrack/ib_write_bw FAIL "client $rc server $src"
fi
