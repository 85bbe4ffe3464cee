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
	ch_.reset(rdma_create_event_channel());
	if (!ch_)
		throw_error("rdma_create_event_channel", last_errno(),
			    "is rdma_ucm loaded?");

	int flags = fcntl(ch_->fd, F_GETFL);

	if (flags < 0 || fcntl(ch_->fd, F_SETFL, flags | O_NONBLOCK) < 0)
		throw_error("fcntl(O_NONBLOCK) on the rdma_cm channel",
			    last_errno());
}

Id::Id(std::shared_ptr<EventChannel> channel, rdma_port_space ps)
	: channel_(std::move(channel))
{
	rdma_cm_id *id = nullptr;

	errno = 0;
	if (rdma_create_id(channel_->get(), &id, nullptr, ps))
		throw_error("rdma_create_id", last_errno());
	id_.reset(id);
}

Id::Id(std::shared_ptr<EventChannel> channel, rdma_cm_id *adopted)
	: channel_(std::move(channel)), id_(adopted)
{
	if (!id_)
		throw_error("Id(adopt)", EINVAL, "null rdma_cm_id");
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

std::shared_ptr<verbs::Qp> create_qp(std::shared_ptr<Id> id,
				     std::shared_ptr<verbs::Pd> pd,
				     std::shared_ptr<verbs::Cq> send_cq,
				     std::shared_ptr<verbs::Cq> recv_cq,
				     const verbs::QpCaps &caps)
{
	ibv_qp_init_attr init = verbs::qp_init_attr(IBV_QPT_RC, *send_cq,
						    *recv_cq, caps);

	errno = 0;
	if (rdma_create_qp(id->get(), pd->get(), &init))
		throw_error("rdma_create_qp", last_errno());

	ibv_qp *qp = id->get()->qp;
	verbs::Owner<ibv_qp> owner(qp, [id](ibv_qp *) {
		rdma_destroy_qp(id->get());
	});

	return std::make_shared<verbs::Qp>(std::move(pd), std::move(owner),
					   std::move(send_cq),
					   std::move(recv_cq), caps);
}

} // namespace vrnic::cm
