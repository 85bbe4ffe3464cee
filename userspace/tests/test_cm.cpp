// SPDX-License-Identifier: GPL-2.0-only
/*
 * rdma_cm: listen on the device's IPv4 address, resolve, connect, accept,
 * exchange private data, SEND/RECV both ways and an RDMA WRITE, disconnect.
 *
 * Both sides are driven from this one thread: each has its own event channel
 * with a non-blocking fd, and every wait has a deadline.
 */

#include "cm.hpp"
#include "fixture.hpp"

#include <arpa/inet.h>

#include <cerrno>
#include <cstring>

namespace vrnic::test {
namespace {

constexpr int kResolveMs = 5000;
constexpr size_t kSize = 8192 + 7;

/* What each side tells the other in its private data. */
struct Cookie {
	uint64_t magic;
	uint64_t addr;
	uint32_t rkey;
	uint32_t length;
};
constexpr uint64_t kClientMagic = 0x636c69656e742121ull;
constexpr uint64_t kServerMagic = 0x7365727665722121ull;

std::string last_error()
{
	return verbs::errno_name(errno);
}

class CmTest : public ::testing::Test {
protected:
	void SetUp() override
	{
		/*
		 * rdma_cm binds and resolves IP addresses in the caller's
		 * network namespace, and two RoCE devices of one host live
		 * in different namespaces (each needs UDP port 4791).
		 */
		if (config().peer)
			GTEST_SKIP() << "rdma_cm is tested on one device only: "
					"with --peer-device the two IP addresses "
					"are not both in this process's network "
					"namespace";
		if (!config().has_ipv4)
			GTEST_SKIP() << "GID " << format_gid(config().gid)
				     << " is not IPv4-mapped; the rdma_cm test "
					"needs the device's IPv4 address";
	}

	/*
	 * The next event on channel, which must be of type want; nullptr (with
	 * a failure recorded) on timeout or another event.
	 */
	static cm::EventPtr expect_event(const cm::EventChannel &channel,
					 rdma_cm_event_type want,
					 const char *side)
	{
		cm::EventPtr ev = cm::get_event(channel, config().timeout);

		if (!ev) {
			ADD_FAILURE() << side << ": no " << rdma_event_str(want)
				      << " within " << config().timeout.count()
				      << " ms";
			return nullptr;
		}
		if (ev->event != want) {
			ADD_FAILURE() << side << ": expected "
				      << rdma_event_str(want) << ", got "
				      << rdma_event_str(ev->event) << " (status "
				      << ev->status << ")";
			return nullptr;
		}
		return ev;
	}

	static sockaddr_in address(uint16_t port_be)
	{
		sockaddr_in sin{};

		sin.sin_family = AF_INET;
		sin.sin_addr = config().ipv4;
		sin.sin_port = port_be;
		return sin;
	}
};

/* One side of the connection: its PD, CQ, QP and buffers on the id. */
struct Side {
	std::shared_ptr<cm::Id> id;
	std::shared_ptr<verbs::Context> ctx;
	std::shared_ptr<verbs::Pd> pd;
	std::shared_ptr<verbs::Cq> cq;
	std::shared_ptr<verbs::Qp> qp;
	std::shared_ptr<verbs::Mr> send_buf;
	std::shared_ptr<verbs::Mr> recv_buf;
	std::shared_ptr<verbs::Mr> write_target;

	explicit Side(std::shared_ptr<cm::Id> cm_id) : id(std::move(cm_id))
	{
		ctx = cm::context_of(id);
		pd = std::make_shared<verbs::Pd>(ctx);
		cq = std::make_shared<verbs::Cq>(ctx, 64);
		qp = cm::create_qp(id, pd, cq, cq, verbs::QpCaps{});
		send_buf = mr(kSize, IBV_ACCESS_LOCAL_WRITE);
		recv_buf = mr(kSize, IBV_ACCESS_LOCAL_WRITE);
		write_target = mr(kSize, IBV_ACCESS_LOCAL_WRITE |
						 IBV_ACCESS_REMOTE_WRITE);
		fill_pattern(recv_buf->data(), kSize, kGuardSeed);
		fill_pattern(write_target->data(), kSize, kGuardSeed);
	}

	std::shared_ptr<verbs::Mr> mr(size_t size, int access)
	{
		return std::make_shared<verbs::Mr>(
			pd, std::make_shared<verbs::Buffer>(size), access);
	}

	void post_recv(uint64_t wr_id)
	{
		ibv_sge s = verbs::sge(*recv_buf, 0, kSize);
		ibv_recv_wr wr{};

		wr.wr_id = wr_id;
		wr.sg_list = &s;
		wr.num_sge = 1;
		verbs::post_recv(qp->get(), wr);
	}

	Cookie cookie(uint64_t magic) const
	{
		return {magic, write_target->addr(), write_target->rkey(),
			static_cast<uint32_t>(kSize)};
	}
};

TEST_F(CmTest, ConnectTransferDisconnect)
{
	const std::string ip = format_ipv4(config().ipv4);
	auto server_ch = std::make_shared<cm::EventChannel>();
	auto client_ch = std::make_shared<cm::EventChannel>();

	/* Listener on the device's address, ephemeral port. */
	auto listen_id = std::make_shared<cm::Id>(server_ch, RDMA_PS_TCP);
	sockaddr_in any_port = address(0);
	ASSERT_EQ(rdma_bind_addr(listen_id->get(),
				 reinterpret_cast<sockaddr *>(&any_port)),
		  0)
		<< "rdma_bind_addr(" << ip << "): " << last_error();
	if (listen_id->device_name() != config().device)
		VRNIC_SKIP_OR_FAIL(config(), ip << " binds to RDMA device '"
			<< listen_id->device_name() << "', not "
			<< config().device);
	ASSERT_EQ(rdma_listen(listen_id->get(), 4), 0)
		<< "rdma_listen: " << last_error();
	const uint16_t port_be = rdma_get_src_port(listen_id->get());
	ASSERT_NE(port_be, 0);

	/* Client: resolve address and route to the listener. */
	auto client_id = std::make_shared<cm::Id>(client_ch, RDMA_PS_TCP);
	sockaddr_in src = address(0), dst = address(port_be);
	ASSERT_EQ(rdma_resolve_addr(client_id->get(),
				    reinterpret_cast<sockaddr *>(&src),
				    reinterpret_cast<sockaddr *>(&dst),
				    kResolveMs),
		  0)
		<< "rdma_resolve_addr: " << last_error();
	ASSERT_TRUE(expect_event(*client_ch, RDMA_CM_EVENT_ADDR_RESOLVED,
				 "client"));
	if (client_id->device_name() != config().device)
		VRNIC_SKIP_OR_FAIL(config(), "client id resolved onto RDMA "
			"device '" << client_id->device_name() << "', not "
			<< config().device);
	ASSERT_EQ(rdma_resolve_route(client_id->get(), kResolveMs), 0)
		<< "rdma_resolve_route: " << last_error();
	ASSERT_TRUE(expect_event(*client_ch, RDMA_CM_EVENT_ROUTE_RESOLVED,
				 "client"));

	Side client(client_id);
	client.post_recv(1);
	Cookie client_cookie = client.cookie(kClientMagic);

	rdma_conn_param cp{};
	cp.private_data = &client_cookie;
	cp.private_data_len = sizeof(client_cookie);
	cp.responder_resources = 1;
	cp.initiator_depth = 1;
	cp.retry_count = 7;
	cp.rnr_retry_count = 7;
	ASSERT_EQ(rdma_connect(client_id->get(), &cp), 0)
		<< "rdma_connect: " << last_error();

	/* Server: the connect request carries the client's cookie. */
	std::shared_ptr<cm::Id> conn_id;
	{
		cm::EventPtr ev = expect_event(
			*server_ch, RDMA_CM_EVENT_CONNECT_REQUEST, "server");
		ASSERT_TRUE(ev);
		conn_id = std::make_shared<cm::Id>(server_ch, ev->id);
		EXPECT_EQ(ev->listen_id, listen_id->get());
		ASSERT_GE(ev->param.conn.private_data_len, sizeof(Cookie));
		ASSERT_NE(ev->param.conn.private_data, nullptr);
		EXPECT_EQ(std::memcmp(ev->param.conn.private_data,
				      &client_cookie, sizeof(Cookie)),
			  0)
			<< "client private data garbled";
	}
	EXPECT_EQ(conn_id->device_name(), config().device);

	Side server(conn_id);
	server.post_recv(2);
	Cookie server_cookie = server.cookie(kServerMagic);

	rdma_conn_param sp{};
	sp.private_data = &server_cookie;
	sp.private_data_len = sizeof(server_cookie);
	sp.responder_resources = 1;
	sp.initiator_depth = 1;
	sp.rnr_retry_count = 7;
	ASSERT_EQ(rdma_accept(conn_id->get(), &sp), 0)
		<< "rdma_accept: " << last_error();

	/* Client established first (it sends the RTU), then the server. */
	Cookie remote{};
	{
		cm::EventPtr ev = expect_event(
			*client_ch, RDMA_CM_EVENT_ESTABLISHED, "client");
		ASSERT_TRUE(ev);
		ASSERT_GE(ev->param.conn.private_data_len, sizeof(Cookie));
		ASSERT_NE(ev->param.conn.private_data, nullptr);
		std::memcpy(&remote, ev->param.conn.private_data, sizeof(remote));
	}
	EXPECT_EQ(remote.magic, kServerMagic) << "server private data garbled";
	EXPECT_EQ(remote.addr, server_cookie.addr);
	EXPECT_EQ(remote.rkey, server_cookie.rkey);
	{
		cm::EventPtr ev = expect_event(
			*server_ch, RDMA_CM_EVENT_ESTABLISHED, "server");
		ASSERT_TRUE(ev);
		EXPECT_EQ(ev->id, conn_id->get());
	}

	/* Client SEND -> server RECV. */
	{
		fill_pattern(client.send_buf->data(), kSize, 0xc1);
		ibv_sge s = verbs::sge(*client.send_buf, 0, kSize);
		ibv_send_wr wr{};
		wr.wr_id = 10;
		wr.sg_list = &s;
		wr.num_sge = 1;
		wr.opcode = IBV_WR_SEND;
		wr.send_flags = IBV_SEND_SIGNALED;
		verbs::post_send(client.qp->get(), wr);
		/* The client CQ carries its send and receive completions. */
		ibv_wc swc = poll_one(*client.cq, "client SEND");
		EXPECT_TRUE(wc_ok(swc, IBV_WC_SEND, 10));
		ibv_wc rwc = poll_one(*server.cq, "server RECV");
		ASSERT_TRUE(wc_ok(rwc, IBV_WC_RECV, 2));
		EXPECT_EQ(rwc.byte_len, kSize);
		EXPECT_TRUE(matches_pattern(server.recv_buf->data(), kSize, 0xc1));
	}

	/* Client RDMA WRITE into the buffer the server advertised. */
	{
		fill_pattern(client.send_buf->data(), kSize, 0xc2);
		ibv_sge s = verbs::sge(*client.send_buf, 0, kSize);
		ibv_send_wr wr{};
		wr.wr_id = 11;
		wr.sg_list = &s;
		wr.num_sge = 1;
		wr.opcode = IBV_WR_RDMA_WRITE;
		wr.send_flags = IBV_SEND_SIGNALED;
		wr.wr.rdma.remote_addr = remote.addr;
		wr.wr.rdma.rkey = remote.rkey;
		verbs::post_send(client.qp->get(), wr);
		EXPECT_TRUE(wc_ok(poll_one(*client.cq, "client RDMA WRITE"),
				  IBV_WC_RDMA_WRITE, 11));
		EXPECT_TRUE(matches_pattern(server.write_target->data(), kSize,
					    0xc2));
	}

	/* Server SEND -> client RECV. */
	{
		fill_pattern(server.send_buf->data(), kSize, 0x5e);
		ibv_sge s = verbs::sge(*server.send_buf, 0, kSize);
		ibv_send_wr wr{};
		wr.wr_id = 20;
		wr.sg_list = &s;
		wr.num_sge = 1;
		wr.opcode = IBV_WR_SEND;
		wr.send_flags = IBV_SEND_SIGNALED;
		verbs::post_send(server.qp->get(), wr);
		auto wcs = poll_n(*server.cq, 1, "server SEND");
		EXPECT_TRUE(wc_ok(wcs[0], IBV_WC_SEND, 20));
		ibv_wc rwc = poll_one(*client.cq, "client RECV");
		ASSERT_TRUE(wc_ok(rwc, IBV_WC_RECV, 1));
		EXPECT_EQ(rwc.byte_len, kSize);
		EXPECT_TRUE(matches_pattern(client.recv_buf->data(), kSize, 0x5e));
	}

	/* Client disconnects; the server sees it and answers; both see it. */
	ASSERT_EQ(rdma_disconnect(client_id->get()), 0)
		<< "rdma_disconnect(client): " << last_error();
	{
		cm::EventPtr ev = expect_event(
			*server_ch, RDMA_CM_EVENT_DISCONNECTED, "server");
		ASSERT_TRUE(ev);
		EXPECT_EQ(ev->id, conn_id->get());
	}
	EXPECT_EQ(rdma_disconnect(conn_id->get()), 0)
		<< "rdma_disconnect(server): " << last_error();
	{
		cm::EventPtr ev = expect_event(
			*client_ch, RDMA_CM_EVENT_DISCONNECTED, "client");
		ASSERT_TRUE(ev);
		EXPECT_EQ(ev->id, client_id->get());
	}
}

} // namespace
} // namespace vrnic::test
