// SPDX-License-Identifier: GPL-2.0-only
/*
 * RAII wrappers for librdmacm objects: event channel, cm id, events, and a QP
 * created with rdma_create_qp(). Same rules as vrnic/verbs.hpp: non-copyable,
 * each holds its parent, constructors throw, destructors stay quiet.
 *
 * Every event is acked when its EventPtr goes away; rdma_destroy_id() waits for
 * all events of the id to be acked, so never keep an EventPtr alive past the
 * id it belongs to.
 */
#pragma once

#include <vrnic/verbs.hpp>

#include <rdma/rdma_cma.h>

#include <chrono>
#include <memory>

namespace vrnic::cm {

/* rdma_create_event_channel(), with its fd set non-blocking. */
class EventChannel : verbs::NonCopyable {
public:
	EventChannel();

	rdma_event_channel *get() const { return ch_.get(); }
	int fd() const { return ch_->fd; }

private:
	std::unique_ptr<rdma_event_channel,
			verbs::Deleter<rdma_destroy_event_channel>> ch_;
};

class Id : verbs::NonCopyable {
public:
	Id(std::shared_ptr<EventChannel> channel, rdma_port_space ps);
	/* Adopt the id of a CONNECT_REQUEST event (it reports on channel). */
	Id(std::shared_ptr<EventChannel> channel, rdma_cm_id *adopted);

	rdma_cm_id *get() const { return id_.get(); }
	/* Name of the RDMA device the id is bound to, "" if none yet. */
	std::string device_name() const;

private:
	std::shared_ptr<EventChannel> channel_;
	std::unique_ptr<rdma_cm_id, verbs::Deleter<rdma_destroy_id>> id_;
};

struct EventAck {
	void operator()(rdma_cm_event *event) const noexcept;
};
using EventPtr = std::unique_ptr<rdma_cm_event, EventAck>;

/*
 * Wait up to timeout for the next event on the channel; nullptr on timeout.
 * Throws if rdma_get_cm_event() fails with anything but EAGAIN.
 */
EventPtr get_event(const EventChannel &channel,
		   std::chrono::milliseconds timeout);

/* The id's verbs context (owned by librdmacm), kept valid by the id. */
std::shared_ptr<verbs::Context> context_of(const std::shared_ptr<Id> &id);

/*
 * An RC QP made with rdma_create_qp() on a PD and CQs of the id's context;
 * rdma_destroy_qp() destroys it, and it keeps the id until then.
 */
std::shared_ptr<verbs::Qp> create_qp(std::shared_ptr<Id> id,
				     std::shared_ptr<verbs::Pd> pd,
				     std::shared_ptr<verbs::Cq> send_cq,
				     std::shared_ptr<verbs::Cq> recv_cq,
				     const verbs::QpCaps &caps);

} // namespace vrnic::cm
