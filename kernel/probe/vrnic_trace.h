/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vrnic tracepoints, system "vrnic".  Every field is a plain integer, plus
 * the device name as a string, so bpftrace scripts need no BTF:
 *
 *   bpftrace -e 'tracepoint:vrnic:qp_state { printf("%s qp %u %d->%d\n",
 *                str(args->dev), args->qpn, args->old_state,
 *                args->new_state); }'
 *
 * States are enum ib_qp_state (0 RESET .. 6 ERR), QP types enum ib_qp_type,
 * statuses enum ib_wc_status, events enum ib_event_type.
 *
 * Copyright (c) 2026 The vrnic authors
 */

#undef TRACE_SYSTEM
#define TRACE_SYSTEM vrnic

#if !defined(VRNIC_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define VRNIC_TRACE_H

#include <linux/tracepoint.h>
#include <rdma/ib_verbs.h>

#include "vrnic_compat.h"

/* Why a QP changed state: enum vrnic_qp_cause. */
#define VRNIC_TRACE_CAUSES			\
	{ 0, "verb" },				\
	{ 1, "error" },				\
	{ 2, "retry" },				\
	{ 3, "destroy" }

/* Why the requester sends again: enum vrnic_retransmit_reason. */
#define VRNIC_TRACE_RETRANSMITS			\
	{ 0, "timeout" },			\
	{ 1, "seq_nak" },			\
	{ 2, "rnr_nak" },			\
	{ 3, "lost_response" }

/* A cache lookup's result (MR and QP context caches): enum vrnic_cam_result. */
#define VRNIC_TRACE_CAM_RESULTS			\
	{ 0, "hit" },				\
	{ 1, "miss" },				\
	{ 2, "miss-evict" }

/* What a DMA moves: enum vrnic_dma_kind. */
#define VRNIC_TRACE_DMA_KINDS			\
	{ 0, "payload" },			\
	{ 1, "sq_wqe" },			\
	{ 2, "rq_wqe" },			\
	{ 3, "cqe" },				\
	{ 4, "mpt" },				\
	{ 5, "qpc" },				\
	{ 6, "dbr" }

TRACE_EVENT(qp_state,
	TP_PROTO(const struct ib_qp *qp, u32 old_state, u32 new_state,
		 u32 cause),
	TP_ARGS(qp, old_state, new_state, cause),
	TP_STRUCT__entry(
		__string(dev, dev_name(&qp->device->dev))
		__field(u32, qpn)
		__field(u32, qp_type)
		__field(u32, old_state)
		__field(u32, new_state)
		__field(u32, cause)
	),
	TP_fast_assign(
		vrnic_assign_str(dev, dev_name(&qp->device->dev));
		__entry->qpn = qp->qp_num;
		__entry->qp_type = qp->qp_type;
		__entry->old_state = old_state;
		__entry->new_state = new_state;
		__entry->cause = cause;
	),
	TP_printk("%s qpn %u type %u %u -> %u (%s)", __get_str(dev),
		  __entry->qpn, __entry->qp_type, __entry->old_state,
		  __entry->new_state,
		  __print_symbolic(__entry->cause, VRNIC_TRACE_CAUSES))
);

TRACE_EVENT(retransmit,
	TP_PROTO(const struct ib_qp *qp, u32 psn, u32 reason, u32 retry_left),
	TP_ARGS(qp, psn, reason, retry_left),
	TP_STRUCT__entry(
		__string(dev, dev_name(&qp->device->dev))
		__field(u32, qpn)
		__field(u32, psn)
		__field(u32, reason)
		__field(u32, retry_left)
	),
	TP_fast_assign(
		vrnic_assign_str(dev, dev_name(&qp->device->dev));
		__entry->qpn = qp->qp_num;
		__entry->psn = psn;
		__entry->reason = reason;
		__entry->retry_left = retry_left;
	),
	TP_printk("%s qpn %u from psn %u (%s) retries left %u",
		  __get_str(dev), __entry->qpn, __entry->psn,
		  __print_symbolic(__entry->reason, VRNIC_TRACE_RETRANSMITS),
		  __entry->retry_left)
);

/* @sent: 1 when this QP's responder sent it, 0 when its requester got it. */
TRACE_EVENT(nak,
	TP_PROTO(const struct ib_qp *qp, u32 psn, u32 syndrome, u32 sent),
	TP_ARGS(qp, psn, syndrome, sent),
	TP_STRUCT__entry(
		__string(dev, dev_name(&qp->device->dev))
		__field(u32, qpn)
		__field(u32, psn)
		__field(u32, syndrome)
		__field(u32, sent)
	),
	TP_fast_assign(
		vrnic_assign_str(dev, dev_name(&qp->device->dev));
		__entry->qpn = qp->qp_num;
		__entry->psn = psn;
		__entry->syndrome = syndrome;
		__entry->sent = sent;
	),
	TP_printk("%s qpn %u %s psn %u syndrome 0x%02x", __get_str(dev),
		  __entry->qpn, __entry->sent ? "sent" : "received",
		  __entry->psn, __entry->syndrome)
);

TRACE_EVENT(cqe_error,
	TP_PROTO(const struct ib_cq *cq, const struct ib_wc *wc),
	TP_ARGS(cq, wc),
	TP_STRUCT__entry(
		__string(dev, dev_name(&cq->device->dev))
		__field(u32, qpn)
		__field(u64, wr_id)
		__field(u32, status)
		__field(u32, opcode)
	),
	TP_fast_assign(
		vrnic_assign_str(dev, dev_name(&cq->device->dev));
		__entry->qpn = wc->qp ? wc->qp->qp_num : 0;
		__entry->wr_id = wc->wr_id;
		__entry->status = wc->status;
		__entry->opcode = wc->opcode;
	),
	TP_printk("%s qpn %u wr_id 0x%llx status %u opcode %u",
		  __get_str(dev), __entry->qpn, __entry->wr_id,
		  __entry->status, __entry->opcode)
);

/* @element: the QPN, CQ or SRQ number, or the port, as the event names. */
TRACE_EVENT(async_event,
	TP_PROTO(const struct ib_device *ibdev, u32 event, u32 element),
	TP_ARGS(ibdev, event, element),
	TP_STRUCT__entry(
		__string(dev, dev_name(&ibdev->dev))
		__field(u32, event)
		__field(u32, element)
	),
	TP_fast_assign(
		vrnic_assign_str(dev, dev_name(&ibdev->dev));
		__entry->event = event;
		__entry->element = element;
	),
	TP_printk("%s event %u element %u", __get_str(dev),
		  __entry->event, __entry->element)
);

/* An MR cache lookup: result 0 hit, 1 miss, 2 miss that evicted. */
TRACE_EVENT(mr_cache,
	TP_PROTO(const struct ib_device *ibdev, u32 key, u32 result, u32 pages),
	TP_ARGS(ibdev, key, result, pages),
	TP_STRUCT__entry(
		__string(dev, dev_name(&ibdev->dev))
		__field(u32, key)
		__field(u32, result)
		__field(u32, pages)
	),
	TP_fast_assign(
		vrnic_assign_str(dev, dev_name(&ibdev->dev));
		__entry->key = key;
		__entry->result = result;
		__entry->pages = pages;
	),
	TP_printk("%s key 0x%x %s (%u MTT entries)", __get_str(dev),
		  __entry->key,
		  __print_symbolic(__entry->result, VRNIC_TRACE_CAM_RESULTS),
		  __entry->pages)
);

/* A QP context lookup: result 0 hit, 1 miss, 2 miss that evicted. */
TRACE_EVENT(qpc_cache,
	TP_PROTO(const struct ib_device *ibdev, u32 qpn, u32 result),
	TP_ARGS(ibdev, qpn, result),
	TP_STRUCT__entry(
		__string(dev, dev_name(&ibdev->dev))
		__field(u32, qpn)
		__field(u32, result)
	),
	TP_fast_assign(
		vrnic_assign_str(dev, dev_name(&ibdev->dev));
		__entry->qpn = qpn;
		__entry->result = result;
	),
	TP_printk("%s qpn %u %s", __get_str(dev), __entry->qpn,
		  __print_symbolic(__entry->result, VRNIC_TRACE_CAM_RESULTS))
);

/*
 * A send queue doorbell, or a batch released by its timer: mode 0 mmio,
 * 1 batch, 2 shadow; action 0 ring, 1 hold, 2 full, 3 timer, 4 absorbed,
 * 5 wake; wqes announced, released to the requester, and (batch) the
 * time the released WQEs waited in all.
 */
TRACE_EVENT(doorbell,
	TP_PROTO(const struct ib_device *ibdev, u32 qpn, u32 mode, u32 action,
		 u32 wqes, u32 released, u64 wait_ns),
	TP_ARGS(ibdev, qpn, mode, action, wqes, released, wait_ns),
	TP_STRUCT__entry(
		__string(dev, dev_name(&ibdev->dev))
		__field(u32, qpn)
		__field(u32, mode)
		__field(u32, action)
		__field(u32, wqes)
		__field(u32, released)
		__field(u64, wait_ns)
	),
	TP_fast_assign(
		vrnic_assign_str(dev, dev_name(&ibdev->dev));
		__entry->qpn = qpn;
		__entry->mode = mode;
		__entry->action = action;
		__entry->wqes = wqes;
		__entry->released = released;
		__entry->wait_ns = wait_ns;
	),
	TP_printk("%s qpn %u %s %s: %u WQEs rung, %u released, waited %llu ns",
		  __get_str(dev), __entry->qpn,
		  __print_symbolic(__entry->mode, { 0, "mmio" }, { 1, "batch" },
				   { 2, "shadow" }),
		  __print_symbolic(__entry->action, { 0, "ring" }, { 1, "hold" },
				   { 2, "full" }, { 3, "timer" },
				   { 4, "absorbed" }, { 5, "wake" }),
		  __entry->wqes, __entry->released, __entry->wait_ns)
);

/*
 * One DMA of the engine as the model costs it (clock.mode account):
 * write is 1 for device to host memory, 0 for a read of host memory.
 */
TRACE_EVENT(dma,
	TP_PROTO(const struct ib_device *ibdev, u32 write, u32 kind, u32 len,
		 u32 tlps, u64 link_bytes, u64 ns),
	TP_ARGS(ibdev, write, kind, len, tlps, link_bytes, ns),
	TP_STRUCT__entry(
		__string(dev, dev_name(&ibdev->dev))
		__field(u32, write)
		__field(u32, kind)
		__field(u32, len)
		__field(u32, tlps)
		__field(u64, link_bytes)
		__field(u64, ns)
	),
	TP_fast_assign(
		vrnic_assign_str(dev, dev_name(&ibdev->dev));
		__entry->write = write;
		__entry->kind = kind;
		__entry->len = len;
		__entry->tlps = tlps;
		__entry->link_bytes = link_bytes;
		__entry->ns = ns;
	),
	TP_printk("%s %s %s %u bytes: %u TLPs, %llu link bytes, %llu ns",
		  __get_str(dev), __entry->write ? "write" : "read",
		  __print_symbolic(__entry->kind, VRNIC_TRACE_DMA_KINDS),
		  __entry->len, __entry->tlps, __entry->link_bytes, __entry->ns)
);

#endif /* VRNIC_TRACE_H */

/* From the module's top folder, which the build puts on the include path. */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH probe
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE vrnic_trace
#include <trace/define_trace.h>
