// SPDX-License-Identifier: GPL-2.0-only
/*
 * RAII wrappers for librdmacm objects: see cm.hpp.
 */

#include "cm.hpp"

#include <cerrno>
#include <fcntl.h>
#include <poll.h>

namespace vrnic::cm {

using verbs::throw_error;

static int last_errno()
{
	return errno ? errno : EIO;
}

EventChannel::EventChannel()
{
	errno = 0;
	ch_ = rdma_create_event_channel();
	if (!ch_)
		throw_error("rdma_create_event_channel", last_errno(),
			    "is rdma_ucm loaded?");

	int flags = fcntl(ch_->fd, F_GETFL);

	if (flags < 0 || fcntl(ch_->fd, F_SETFL, flags | O_NONBLOCK) < 0) {
		int err = last_errno();

		rdma_destroy_event_channel(ch_);
		ch_ = nullptr;
		throw_error("fcntl(O_NONBLOCK) on the rdma_cm channel", err);
	}
}

EventChannel::~EventChannel()
{
	if (ch_)
		rdma_destroy_event_channel(ch_);
}

Id::Id(std::shared_ptr<EventChannel> channel, rdma_port_space ps)
	: channel_(std::move(channel))
{
	errno = 0;
	if (rdma_create_id(channel_->get(), &id_, nullptr, ps)) {
		id_ = nullptr;
		throw_error("rdma_create_id", last_errno());
	}
}

Id::Id(std::shared_ptr<EventChannel> channel, rdma_cm_id *adopted)
	: channel_(std::move(channel)), id_(adopted)
{
	if (!id_)
		throw_error("Id(adopt)", EINVAL, "null rdma_cm_id");
}

Id::~Id()
{
	if (id_)
		rdma_destroy_id(id_);
}

std::string Id::device_name() const
{
	if (!id_->verbs)
		return {};
	return ibv_get_device_name(id_->verbs->device);
}

void EventAck::operator()(rdma_cm_event *event) const noexcept
{
	rdma_ack_cm_event(event);
}

EventPtr get_event(const EventChannel &channel,
		   std::chrono::milliseconds timeout)
{
	using Clock = std::chrono::steady_clock;
	const auto deadline = Clock::now() + timeout;

	for (;;) {
		rdma_cm_event *event = nullptr;

		errno = 0;
		if (rdma_get_cm_event(channel.get(), &event) == 0)
			return EventPtr(event);
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
			throw_error("rdma_get_cm_event", last_errno());

		auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
			deadline - Clock::now());
		if (left.count() <= 0)
			return nullptr;

		pollfd pfd{channel.fd(), POLLIN, 0};
		int rc = poll(&pfd, 1, static_cast<int>(left.count()) + 1);

		if (rc < 0 && errno != EINTR)
			throw_error("poll(rdma_cm channel)", last_errno());
	}
}

std::shared_ptr<verbs::Context> context_of(const std::shared_ptr<Id> &id)
{
	if (!id->get()->verbs)
		throw_error("context_of", ENODEV,
			    "rdma_cm id is not bound to an RDMA device");
	return std::make_shared<verbs::Context>(id->get()->verbs, id);
}

Qp::Qp(std::shared_ptr<Id> id, std::shared_ptr<verbs::Pd> pd,
       std::shared_ptr<verbs::Cq> send_cq, std::shared_ptr<verbs::Cq> recv_cq,
       const verbs::QpCaps &caps)
	: id_(std::move(id)), pd_(std::move(pd)), send_cq_(std::move(send_cq)),
	  recv_cq_(std::move(recv_cq))
{
	ibv_qp_init_attr init{};

	init.send_cq = send_cq_->get();
	init.recv_cq = recv_cq_->get();
	init.cap.max_send_wr = caps.max_send_wr;
	init.cap.max_recv_wr = caps.max_recv_wr;
	init.cap.max_send_sge = caps.max_send_sge;
	init.cap.max_recv_sge = caps.max_recv_sge;
	init.cap.max_inline_data = caps.max_inline_data;
	init.qp_type = IBV_QPT_RC;
	errno = 0;
	if (rdma_create_qp(id_->get(), pd_->get(), &init))
		throw_error("rdma_create_qp", last_errno());
	created_ = true;
}

Qp::~Qp()
{
	if (created_)
		rdma_destroy_qp(id_->get());
}

} // namespace vrnic::cm
