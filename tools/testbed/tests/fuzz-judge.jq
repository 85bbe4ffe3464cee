# SPDX-License-Identifier: GPL-2.0
# fuzz.sh's judge of one phase: jq -n -r --slurpfile fz PHASE.fuzz.json
# --slurpfile a PHASE.before.json --slurpfile b PHASE.after.json -f this.
# fz is vrnic-fuzz -j's report (each packet's predicted fate, summed), a
# and b fuzz.sh's counters() before and after the phase.  Prints the
# table and, last, "verdict ok" or "verdict fail": every drop counter
# moved by what the fuzzer predicted (less what was lost before the
# device: veth and UDP drops, unsent packets), and the device counted at
# least every packet that reached it.  rx_drop_qp_state counts what the
# QPs' states refuse (the fuzzer is told them), rx_drop_addr what RC and UC
# QPs refuse from a foreign source (vrnic-fuzz --foreign-source): none in
# the other phases, and in that one at least one packet must have been
# aimed at them, or the phase proved nothing.  rx_drop_dup counts the
# duplicate READs, atomics and FLUSHes the responders dropped as resends
# of none they executed: the live traffic (SEND and WRITE) issues none, so
# each such request the fuzzer aimed behind a live RC QP's expected
# PSN (to-qp req-behind-rd) is one, and no other packet is, but for
# those so far behind that the traffic may have made them ahead meanwhile
# (req-behind-rd-far: either); before the
# responder kept a record of its READs, it read each such READ again and
# sent the bytes to the QP's peer.  A phase that sent nothing, or (from
# a QP's peer) aimed no packet at a live RC QP's engines, proved nothing
# and fails: no verdict rests on counters that stayed at 0 because
# nothing was tried.
def sp($n): if $n > 0 then " " * $n else "" end;
def l($n): tostring | . + sp($n - length);
def r($n): tostring | sp($n - length) + .;
def drops: [.link[][] | (.stats64 // .stats // {}) | (.rx.dropped // 0) + (.tx.dropped // 0)]
	| add // 0;
def delta($a; $b): $a | keys | map(select(. != "-")) | map({key: ., value: ($b[.] - $a[.])})
	| from_entries;

$fz[0] as $fz | $a[0] as $a | $b[0] as $b
| delta($a.hw; $b.hw) as $hw
| delta($a.snmp; $b.snmp) as $udp
| (($b | drops) - ($a | drops)) as $link
| (($udp.InErrors // 0) + ($udp.RcvbufErrors // 0) + ($udp.InCsumErrors // 0)) as $udp_lost
| ($link + $udp_lost + $fz.count - $fz.sent) as $lost
| $fz.expect as $exp
| ["duplicate_request", "out_of_seq_request", "rcvd_seq_err", "rcvd_rnr_err",
   "remote_access_err", "send_rnr_err", "retransmits", "retry_exceeded_err", "send_err",
   "rx_drop_req", "rx_drop_resp"] as $eng
| ($fz["foreign-source"] // false) as $foreign
# In vrnic_recv()'s order of checks.  A counter the device lacks is null:
# never equal to what is expected.
| ([("rx-drop-icrc", "rx-drop-malformed", "rx-drop-no-qp", "rx-drop-pkey", "rx-drop-qp-state",
    "rx-drop-addr", "rx-drop-qkey")
   | . as $c | $hw[$c | gsub("-"; "_")] as $d | $exp[$c] as $e
   | {c: $c, d: $d, e: $e,
      good: (if $d == null then false elif $lost == 0 then $d == $e
             else $e - $lost <= $d and $d <= $e end)}]
  # After dispatch, a QP's full receive queue (rx_drop_busy) also loses.
  + [($lost + ($hw.rx_drop_busy // 0)) as $gone
     | $hw.rx_drop_dup as $d | ($fz["to-qp"]["req-behind-rd"] // null) as $e
     | ($fz["to-qp"]["req-behind-rd-far"] // 0) as $far
     | {c: "rx-drop-dup", d: $d, e: $e,
        good: ($d != null and $e != null and $e - $gone <= $d and $d <= $e + $far)}]) as $rows
| ([$eng[] | $hw[.] // 0] | add) as $counted
| ($hw.rcvd_pkts != null and $hw.rcvd_pkts >= $fz.sent - $lost) as $rcvd_ok
| ((($exp["rx-drop-addr"] // 0) > 0) or ($foreign | not)) as $aimed
| ([$fz["to-qp"] // {} | (.["req-behind"], .["req-behind-rd"], .["req-behind-rd-far"],
    .["req-ahead"], .["resp-before"], .["resp-after"]) // 0] | add) as $to_rc
| (($fz.sent // 0) > 0 and ($foreign or $to_rc > 0)) as $tried
| "seed \($fz.seed), \($fz.sent) sent (\($fz["valid-icrc"]) with a valid ICRC), \($fz.pps | round)/s; lost before the device: \($lost) (veth \($link), UDP \($udp_lost), unsent \($fz.count - $fz.sent))",
  "from \($fz.src)" + (if $foreign then ", no live QP's peer (foreign source; class forged \($fz["forged-weight"]) of every \(($fz.classes | length) - 1 + $fz["forged-weight"]) packet numbers)" else "" end),
  ("counter" | l(20)) + " " + ("expected" | r(10)) + " " + ("delta" | r(10)),
  ($rows[] | (.c | l(20)) + " " + (.e | r(10)) + " " + (.d | r(10)) + " "
   + (if .good then "" else "MISMATCH" end)),
  ("to-qp" | l(20)) + " " + ($exp["to-qp"] | r(10)) + " " + (0 | r(10))
   + "  (to the QPs: the engines decide)",
  ($eng[] | l(20) + " " + ("" | r(10)) + " " + ($hw[.] // 0 | r(10))),
  "to-qp by destination: " + ([$fz["to-qp"] | to_entries[] | "\(.key)=\(.value)"] | join(" ")),
  "to-qp packets no counter shows (at least; real traffic also moves the engine counters): \([$exp["to-qp"] - $counted, 0] | max) of \($exp["to-qp"])",
  "rcvd_pkts delta \($hw.rcvd_pkts) (fuzz \($fz.sent) + real traffic), UDP InDatagrams delta \($udp.InDatagrams // 0)",
  "per class (sent, valid ICRC, expected fates):",
  ($fz.classes | to_entries[] | "  " + (.key | l(13)) + " " + (.value.sent | r(8)) + " "
   + (.value["valid-icrc"] | r(8)) + "  "
   + ([.value.expect | to_entries[] | select(.value != 0) | "\(.key)=\(.value)"] | join(" "))),
  "to the live RC QPs' engines: \($to_rc)",
  (if ([$rows[].good] | all) and $rcvd_ok and $aimed and $tried then "verdict ok"
   else "verdict fail"
    + (if $rcvd_ok then "" else " (rcvd_pkts below what reached the device)" end)
    + (if $aimed then "" else " (a foreign source, but no packet aimed at a live RC or UC QP)" end)
    + (if $tried then "" else " (no packet sent, or none aimed at a live RC QP's engines)" end)
   end)
