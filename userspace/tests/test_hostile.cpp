// SPDX-License-Identifier: GPL-2.0-only
/*
 * Hostile userspace: what a process can hand the kernel through the rxe
 * userspace ABI must be rejected, or contained to the process's own QP.
 *
 * librxe's objects are private, so these tests speak the ABI themselves:
 * they create QPs and SRQs with raw commands on the context's command fd
 * (the legacy write() interface of /dev/infiniband/uverbsN: struct
 * ib_uverbs_cmd_hdr and the command structs of <rdma/ib_user_verbs.h>),
 * map their queues from the offsets in struct rxe_create_qp_resp, write
 * work queue entries and producer indices in the mapped rings as librxe
 * would, and ring the doorbell with a POST_SEND carrying no work request.
 * That way they can also write what librxe never would: corrupted
 * producer indices, WQEs with a bad opcode, a huge SGE count or inline
 * length, SGEs outside any MR; and malformed commands.
 *
 * The peers of these QPs, and the CQs, are ordinary librxe objects. Every
 * test ends by checking that the device still carries traffic: a QP pair
 * made before the hostile act (a bystander) and a fresh one each complete
 * a SEND and an RDMA WRITE with the data intact.
 */

#include "fixture.hpp"

#include <rdma/ib_user_verbs.h>
#include <rdma/rdma_user_rxe.h>
#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <functional>
#include <thread>
#include <vector>

namespace vrnic::test {
namespace {

using verbs::Mr;
using verbs::throw_error;
using Clock = std::chrono::steady_clock;

/* ---- the rxe queue layout ---- */

/*
 * struct rxe_dma_info without its trailing union of flexible arrays: C++
 * gives the empty struct inside __DECLARE_FLEX_ARRAY() a size of 1, so the
 * uapi structs that contain it have another layout in C++ than in the
 * kernel. These have the kernel's; the SGEs or inline bytes follow them.
 */
struct DmaInfo {
	uint32_t length;
	uint32_t resid;
	uint32_t cur_sge;
	uint32_t num_sge;
	uint32_t sge_offset;
	uint32_t reserved;
};

struct SendWqe {			/* struct rxe_send_wqe */
	rxe_send_wr wr;
	uint32_t status;
	uint32_t state;
	uint64_t iova;
	uint32_t mask;
	uint32_t first_psn;
	uint32_t last_psn;
	uint32_t ack_length;
	uint32_t ssn;
	uint32_t has_rd_atomic;
	DmaInfo dma;

	rxe_sge *sge() { return reinterpret_cast<rxe_sge *>(this + 1); }
	uint8_t *inline_data() { return reinterpret_cast<uint8_t *>(this + 1); }
};
static_assert(sizeof(rxe_send_wr) == 144 && sizeof(SendWqe) == 208,
	      "struct rxe_send_wqe: the SGEs start at byte 208");

struct RecvWqe {			/* struct rxe_recv_wqe */
	uint64_t wr_id;
	uint32_t reserved;
	uint32_t padding;
	DmaInfo dma;

	rxe_sge *sge() { return reinterpret_cast<rxe_sge *>(this + 1); }
};
static_assert(sizeof(RecvWqe) == 40, "struct rxe_recv_wqe: SGEs at byte 40");

/* ---- raw commands ---- */

/*
 * write() one legacy uverbs command: the header, then @len bytes of @cmd.
 * @out_bytes is what the response buffer named in @cmd holds. @in_words,
 * when given, replaces the true length in the header.
 * Return: 0, or the errno of the failed write().
 */
int uverbs_write(ibv_context *ctx, uint32_t command, const void *cmd,
		 size_t len, size_t out_bytes, int in_words = -1)
{
	std::vector<uint8_t> buf(sizeof(ib_uverbs_cmd_hdr) + len);
	ib_uverbs_cmd_hdr hdr{};

	hdr.command = command;
	hdr.in_words = static_cast<uint16_t>(
		in_words >= 0 ? in_words : static_cast<int>(buf.size() / 4));
	hdr.out_words = static_cast<uint16_t>(out_bytes / 4);
	std::memcpy(buf.data(), &hdr, sizeof(hdr));
	std::memcpy(buf.data() + sizeof(hdr), cmd, len);
	ssize_t n = write(ctx->cmd_fd, buf.data(), buf.size());

	if (n == static_cast<ssize_t>(buf.size()))
		return 0;
	return n < 0 ? errno : EIO;
}

template <typename Cmd>
int uverbs_cmd(ibv_context *ctx, uint32_t command, const Cmd &cmd,
	       size_t out_bytes)
{
	return uverbs_write(ctx, command, &cmd, sizeof(cmd), out_bytes);
}

uint64_t ptr(const void *p)
{
	return reinterpret_cast<uintptr_t>(p);
}

/*
 * A response buffer: the core response, then the driver's (rxe) part.
 * Bytes, because the core structs end in flexible arrays.
 */
template <typename Core, typename Drv> struct Resp {
	alignas(8) uint8_t bytes[sizeof(Core) + sizeof(Drv)]{};

	Core core() const
	{
		Core c;

		std::memcpy(&c, bytes, sizeof(c));
		return c;
	}
	Drv drv() const
	{
		Drv d;

		std::memcpy(&d, bytes + sizeof(Core), sizeof(d));
		return d;
	}
};

/* ibv_qp_attr and a mask as the MODIFY_QP command carries them. */
ib_uverbs_modify_qp modify_cmd(uint32_t handle, const ibv_qp_attr &a, int mask)
{
	ib_uverbs_modify_qp c{};

	c.qp_handle = handle;
	c.attr_mask = static_cast<uint32_t>(mask);
	c.qp_state = a.qp_state;
	c.cur_qp_state = a.cur_qp_state;
	c.path_mtu = a.path_mtu;
	c.path_mig_state = a.path_mig_state;
	c.qkey = a.qkey;
	c.rq_psn = a.rq_psn;
	c.sq_psn = a.sq_psn;
	c.dest_qp_num = a.dest_qp_num;
	c.qp_access_flags = static_cast<uint32_t>(a.qp_access_flags);
	c.pkey_index = a.pkey_index;
	c.alt_pkey_index = a.alt_pkey_index;
	c.en_sqd_async_notify = a.en_sqd_async_notify;
	c.max_rd_atomic = a.max_rd_atomic;
	c.max_dest_rd_atomic = a.max_dest_rd_atomic;
	c.min_rnr_timer = a.min_rnr_timer;
	c.port_num = a.port_num;
	c.timeout = a.timeout;
	c.retry_cnt = a.retry_cnt;
	c.rnr_retry = a.rnr_retry;
	std::memcpy(c.dest.dgid, a.ah_attr.grh.dgid.raw, 16);
	c.dest.flow_label = a.ah_attr.grh.flow_label;
	c.dest.sgid_index = a.ah_attr.grh.sgid_index;
	c.dest.hop_limit = a.ah_attr.grh.hop_limit;
	c.dest.traffic_class = a.ah_attr.grh.traffic_class;
	c.dest.dlid = a.ah_attr.dlid;
	c.dest.sl = a.ah_attr.sl;
	c.dest.src_path_bits = a.ah_attr.src_path_bits;
	c.dest.static_rate = a.ah_attr.static_rate;
	c.dest.is_global = a.ah_attr.is_global;
	c.dest.port_num = a.ah_attr.port_num;
	return c;
}

int raw_modify_qp(ibv_context *ctx, uint32_t handle, const ibv_qp_attr &a,
		  int mask)
{
	return uverbs_cmd(ctx, IB_USER_VERBS_CMD_MODIFY_QP,
			  modify_cmd(handle, a, mask), 0);
}

/* The zero-WR POST_SEND: librxe's doorbell. Return: 0 or errno. */
int raw_doorbell(ibv_context *ctx, uint32_t qp_handle)
{
	ib_uverbs_post_send c{};
	ib_uverbs_post_send_resp resp{};

	c.response = ptr(&resp);
	c.qp_handle = qp_handle;
	c.wqe_size = sizeof(ib_uverbs_send_wr);
	return uverbs_cmd(ctx, IB_USER_VERBS_CMD_POST_SEND, c, sizeof(resp));
}

/* ---- mapped queues ---- */

/* One queue of the rxe ABI, mapped from the command fd. */
class MappedQueue : verbs::NonCopyable {
public:
	MappedQueue(ibv_context *ctx, const mminfo &mi, const char *what)
		: size_(mi.size)
	{
		void *p = mmap(nullptr, size_, PROT_READ | PROT_WRITE,
			       MAP_SHARED, ctx->cmd_fd,
			       static_cast<off_t>(mi.offset));

		if (p == MAP_FAILED)
			throw_error("mmap", errno, what);
		mem_ = p;
		if (size_ < sizeof(rxe_queue_buf) ||
		    ((size_t{mask()} + 1) << hdr()->log2_elem_size) >
			    size_ - sizeof(rxe_queue_buf))
			throw std::runtime_error(
				std::string(what) +
				": the mapped queue is smaller than its header "
				"says (log2_elem_size, index_mask)");
	}
	~MappedQueue() { munmap(mem_, size_); }

	rxe_queue_buf *hdr() const { return static_cast<rxe_queue_buf *>(mem_); }
	uint32_t mask() const { return hdr()->index_mask; }
	uint32_t slots() const { return mask() + 1; }
	size_t elem_size() const { return size_t{1} << hdr()->log2_elem_size; }
	uint32_t producer() const
	{
		return __atomic_load_n(&hdr()->producer_index, __ATOMIC_ACQUIRE);
	}
	uint32_t consumer() const
	{
		return __atomic_load_n(&hdr()->consumer_index, __ATOMIC_ACQUIRE);
	}
	/* What librxe does to post: release the slot's contents. */
	void set_producer(uint32_t v)
	{
		__atomic_store_n(&hdr()->producer_index, v, __ATOMIC_RELEASE);
	}
	/* Slot @index (masked), zeroed for a new WQE. */
	template <typename T> T *fresh_slot(uint32_t index)
	{
		uint8_t *p = hdr()->data + (size_t{index & mask()} <<
					    hdr()->log2_elem_size);

		std::memset(p, 0, elem_size());
		return reinterpret_cast<T *>(p);
	}

private:
	void *mem_ = nullptr;
	size_t size_;
};

/*
 * The object librxe would have allocated for a QP or SRQ: its address is
 * the command's user_handle, which async events carry back, and
 * ibv_ack_async_event() takes its mutex and signals its condition.
 */
template <typename T> struct EventTarget {
	T obj{};

	EventTarget()
	{
		pthread_mutex_init(&obj.mutex, nullptr);
		pthread_cond_init(&obj.cond, nullptr);
	}
	~EventTarget()
	{
		pthread_cond_destroy(&obj.cond);
		pthread_mutex_destroy(&obj.mutex);
	}
	EventTarget(const EventTarget &) = delete;
	EventTarget &operator=(const EventTarget &) = delete;
};

/* An SRQ made with CREATE_SRQ; its ring is ours to write. */
class RawSrq : verbs::NonCopyable {
public:
	RawSrq(std::shared_ptr<verbs::Pd> pd, uint32_t max_wr, uint32_t max_sge)
		: pd_(std::move(pd))
	{
		ibv_context *ctx = pd_->context()->get();
		Resp<ib_uverbs_create_srq_resp, rxe_create_srq_resp> resp;
		ib_uverbs_create_srq c{};

		c.response = ptr(resp.bytes);
		c.user_handle = ptr(&ev_.obj);
		c.pd_handle = pd_->get()->handle;
		c.max_wr = max_wr;
		c.max_sge = max_sge;
		int err = uverbs_cmd(ctx, IB_USER_VERBS_CMD_CREATE_SRQ, c,
				     sizeof(resp.bytes));

		if (err)
			throw_error("CREATE_SRQ", err);
		handle_ = resp.core().srq_handle;
		max_sge_ = resp.core().max_sge;
		ev_.obj.context = ctx;
		ev_.obj.handle = handle_;
		ev_.obj.pd = pd_->get();
		srq_ = verbs::Owner<ibv_srq>(&ev_.obj, destroy);
		queue_ = std::make_unique<MappedQueue>(ctx, resp.drv().mi, "SRQ");
	}

	uint32_t handle() const { return handle_; }
	uint32_t max_sge() const { return max_sge_; }
	MappedQueue &queue() const { return *queue_; }

private:
	static void destroy(ibv_srq *srq)
	{
		ib_uverbs_destroy_srq c{};
		ib_uverbs_destroy_srq_resp resp{};

		c.response = ptr(&resp);
		c.srq_handle = srq->handle;
		uverbs_cmd(srq->context, IB_USER_VERBS_CMD_DESTROY_SRQ, c,
			   sizeof(resp));
	}

	std::shared_ptr<verbs::Pd> pd_;
	EventTarget<ibv_srq> ev_;
	uint32_t handle_ = 0;
	uint32_t max_sge_ = 0;
	verbs::Owner<ibv_srq> srq_;		/* &ev_.obj, until DESTROY_SRQ */
	std::unique_ptr<MappedQueue> queue_;	/* unmapped before that */
};

/*
 * An RC QP made with CREATE_QP, with its send queue (and receive queue,
 * unless it has an SRQ) mapped. The CQs are librxe's.
 */
class RawQp : verbs::NonCopyable {
public:
	RawQp(std::shared_ptr<verbs::Pd> pd, std::shared_ptr<verbs::Cq> scq,
	      std::shared_ptr<verbs::Cq> rcq, const verbs::QpCaps &caps,
	      std::shared_ptr<RawSrq> srq = {})
		: pd_(std::move(pd)), scq_(std::move(scq)),
		  rcq_(std::move(rcq)), srq_(std::move(srq))
	{
		ibv_context *ctx = pd_->context()->get();
		Resp<ib_uverbs_create_qp_resp, rxe_create_qp_resp> resp;
		ib_uverbs_create_qp c{};

		c.response = ptr(resp.bytes);
		c.user_handle = ptr(&ev_.obj);
		c.pd_handle = pd_->get()->handle;
		c.send_cq_handle = scq_->get()->handle;
		c.recv_cq_handle = rcq_->get()->handle;
		c.srq_handle = srq_ ? srq_->handle() : 0;
		c.is_srq = srq_ ? 1 : 0;
		c.max_send_wr = caps.max_send_wr;
		c.max_recv_wr = srq_ ? 0 : caps.max_recv_wr;
		c.max_send_sge = caps.max_send_sge;
		c.max_recv_sge = srq_ ? 0 : caps.max_recv_sge;
		c.max_inline_data = caps.max_inline_data;
		c.qp_type = IBV_QPT_RC;
		int err = uverbs_cmd(ctx, IB_USER_VERBS_CMD_CREATE_QP, c,
				     sizeof(resp.bytes));

		if (err)
			throw_error("CREATE_QP", err);
		handle_ = resp.core().qp_handle;
		qpn_ = resp.core().qpn;
		max_send_sge_ = resp.core().max_send_sge;
		max_recv_sge_ = resp.core().max_recv_sge;
		ibv_qp &q = ev_.obj;
		q.context = ctx;
		q.handle = handle_;
		q.qp_num = qpn_;
		q.pd = pd_->get();
		q.send_cq = scq_->get();
		q.recv_cq = rcq_->get();
		q.qp_type = IBV_QPT_RC;
		q.state = IBV_QPS_RESET;
		qp_ = verbs::Owner<ibv_qp>(&q, destroy);
		sq_ = std::make_unique<MappedQueue>(ctx, resp.drv().sq_mi, "SQ");
		if (!srq_)
			rq_ = std::make_unique<MappedQueue>(ctx, resp.drv().rq_mi,
							    "RQ");
	}

	ibv_context *ctx() const { return pd_->context()->get(); }
	uint32_t handle() const { return handle_; }
	uint32_t num() const { return qpn_; }
	uint32_t max_send_sge() const { return max_send_sge_; }
	uint32_t max_recv_sge() const { return max_recv_sge_; }
	MappedQueue &sq() const { return *sq_; }
	MappedQueue &rq() const { return *rq_; }
	const std::shared_ptr<verbs::Cq> &send_cq() const { return scq_; }
	const std::shared_ptr<verbs::Cq> &recv_cq() const { return rcq_; }

	void modify(const ibv_qp_attr &a, int mask) const
	{
		int err = raw_modify_qp(ctx(), handle_, a, mask);

		if (err)
			throw_error("MODIFY_QP", err,
				    std::string("to ") +
					    verbs::qp_state_str(a.qp_state));
	}

	/* QUERY_QP; throws on failure. */
	ibv_qp_state state() const
	{
		ib_uverbs_query_qp c{};
		ib_uverbs_query_qp_resp resp{};

		c.response = ptr(&resp);
		c.qp_handle = handle_;
		c.attr_mask = IBV_QP_STATE;
		int err = uverbs_cmd(ctx(), IB_USER_VERBS_CMD_QUERY_QP, c,
				     sizeof(resp));

		if (err)
			throw_error("QUERY_QP", err);
		return static_cast<ibv_qp_state>(resp.qp_state);
	}

	ibv_qp_state wait_state(ibv_qp_state want, milliseconds timeout) const
	{
		const auto deadline = Clock::now() + timeout;

		for (;;) {
			ibv_qp_state s = state();

			if (s == want || Clock::now() >= deadline)
				return s;
			std::this_thread::sleep_for(1ms);
		}
	}

	int doorbell() const { return raw_doorbell(ctx(), handle_); }

	/* The next send slot, zeroed; publish_send() posts it. */
	SendWqe *send_slot() { return sq_->fresh_slot<SendWqe>(sq_->producer()); }
	void publish_send() { sq_->set_producer((sq_->producer() + 1) & sq_->mask()); }
	RecvWqe *recv_slot() { return rq_->fresh_slot<RecvWqe>(rq_->producer()); }
	void publish_recv() { rq_->set_producer((rq_->producer() + 1) & rq_->mask()); }

private:
	static void destroy(ibv_qp *qp)
	{
		ib_uverbs_destroy_qp c{};
		ib_uverbs_destroy_qp_resp resp{};

		c.response = ptr(&resp);
		c.qp_handle = qp->handle;
		uverbs_cmd(qp->context, IB_USER_VERBS_CMD_DESTROY_QP, c,
			   sizeof(resp));
	}

	std::shared_ptr<verbs::Pd> pd_;
	std::shared_ptr<verbs::Cq> scq_;
	std::shared_ptr<verbs::Cq> rcq_;
	std::shared_ptr<RawSrq> srq_;
	EventTarget<ibv_qp> ev_;
	uint32_t handle_ = 0;
	uint32_t qpn_ = 0;
	uint32_t max_send_sge_ = 0;
	uint32_t max_recv_sge_ = 0;
	verbs::Owner<ibv_qp> qp_;		/* &ev_.obj, until DESTROY_QP */
	std::unique_ptr<MappedQueue> sq_;	/* both unmapped before that */
	std::unique_ptr<MappedQueue> rq_;
};

/* A valid send WQE of one SGE, as librxe writes it. */
void fill_send(SendWqe *w, uint64_t wr_id, ibv_wr_opcode op, const Mr &src,
	       uint32_t len, uint64_t remote_addr = 0, uint32_t rkey = 0)
{
	w->wr.wr_id = wr_id;
	w->wr.opcode = op;
	w->wr.send_flags = IBV_SEND_SIGNALED;
	w->wr.wr.rdma.remote_addr = remote_addr;
	w->wr.wr.rdma.rkey = rkey;
	w->iova = remote_addr;		/* librxe's init_send_wqe() sets it */
	w->dma.length = len;
	w->dma.resid = len;
	w->dma.num_sge = 1;
	w->sge()[0].addr = src.addr();
	w->sge()[0].length = len;
	w->sge()[0].lkey = src.lkey();
}

void fill_recv(RecvWqe *w, uint64_t wr_id, const Mr &dst, size_t off,
	       uint32_t len)
{
	w->wr_id = wr_id;
	w->dma.length = len;
	w->dma.resid = len;
	w->dma.num_sge = 1;
	w->sge()[0].addr = dst.addr() + off;
	w->sge()[0].length = len;
	w->sge()[0].lkey = dst.lkey();
}

class HostileTest : public VerbsTest {
protected:
	void SetUp() override
	{
		VerbsTest::SetUp();
		/* Made before any hostile act; must carry traffic after it. */
		bystander_ = make_pair();
	}

	std::unique_ptr<RawQp> make_raw_qp(const verbs::QpCaps &caps = {},
					   std::shared_ptr<RawSrq> srq = {})
	{
		return std::make_unique<RawQp>(pd_, make_cq(), make_cq(), caps,
					       std::move(srq));
	}

	/*
	 * Connect the raw QP (device under test) and b (remote side) as
	 * VerbsTest::connect() connects a and b; b_rnr_retry is b's RNR
	 * retry count.
	 */
	void connect_raw(const RawQp &raw, const Endpoint &b,
			 uint8_t b_rnr_retry = kRnrRetry)
	{
		ibv_qp_attr a{};

		a.qp_state = IBV_QPS_INIT;
		a.pkey_index = 0;
		a.port_num = cfg().port;
		a.qp_access_flags = kAllAccess;
		raw.modify(a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				      IBV_QP_ACCESS_FLAGS);
		modify_to_init(*b.qp, kAllAccess, Side::remote);

		a = {};
		a.qp_state = IBV_QPS_RTR;
		a.ah_attr = ah_attr(Side::local, Side::remote);
		a.path_mtu = path_mtu();
		a.dest_qp_num = b.qp->num();
		a.rq_psn = kPsnB;
		a.max_dest_rd_atomic = rd_atomic();
		a.min_rnr_timer = kMinRnrTimer;
		raw.modify(a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
				      IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
				      IBV_QP_MAX_DEST_RD_ATOMIC |
				      IBV_QP_MIN_RNR_TIMER);
		modify_to_rtr(*b.qp, raw.num(), kPsnA,
			      ah_attr(Side::remote, Side::local));

		a = {};
		a.qp_state = IBV_QPS_RTS;
		a.sq_psn = kPsnA;
		a.timeout = kTimeout;
		a.retry_cnt = kRetryCnt;
		a.rnr_retry = kRnrRetry;
		a.max_rd_atomic = rd_atomic();
		raw.modify(a, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
				      IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
				      IBV_QP_MAX_QP_RD_ATOMIC);
		modify_to_rts(*b.qp, kPsnB, b_rnr_retry);
	}

	/*
	 * Completions of one CQ until it stays quiet: every one must belong
	 * to @qpn (nothing leaks to other QPs). At most @max are taken.
	 */
	std::vector<ibv_wc> drain(const verbs::Cq &cq, uint32_t qpn,
				  const char *what, size_t max = 4096)
	{
		std::vector<ibv_wc> out;

		while (out.size() < max) {
			auto wc = try_poll(cq, cfg().quiet);

			if (!wc)
				break;
			EXPECT_EQ(wc->qp_num, qpn)
				<< what << ": a completion of another QP: "
				<< describe(*wc);
			out.push_back(*wc);
		}
		return out;
	}

	/* Every hostile test ends here. */
	void expect_device_works()
	{
		expect_traffic(bystander_, 0xb0, "a QP pair made before");
		QpPair fresh = make_pair();
		expect_traffic(fresh, 0xf0, "a fresh QP pair");
	}

	/* The raw QP is in RTS (it ignored the act) or in ERR. */
	void expect_contained(const RawQp &raw, const char *what)
	{
		ibv_qp_state s = raw.state();

		EXPECT_TRUE(s == IBV_QPS_RTS || s == IBV_QPS_ERR)
			<< what << ": the QP is " << verbs::qp_state_str(s)
			<< ", expected RTS (ignored) or ERR";
	}

	QpPair bystander_;
};

/* ---- the send queue ---- */

/* A corrupted SQ producer index, then the doorbell. */
struct ProducerCase {
	const char *name;
	/* The corrupted producer, from the consumer and the slot count. */
	uint32_t (*value)(uint32_t consumer, uint32_t slots);
};

const ProducerCase kProducerCases[] = {
	{"TenTimesSize", [](uint32_t c, uint32_t s) { return c + 10 * s; }},
	{"TenTimesSizePlus3",
	 [](uint32_t c, uint32_t s) { return c + 10 * s + 3; }},
	{"HighBits", [](uint32_t c, uint32_t) { return 0xfff00000u | (c + 2); }},
	{"AllOnes", [](uint32_t, uint32_t) { return 0xffffffffu; }},
	{"OneBehindConsumer", [](uint32_t c, uint32_t) { return c - 1; }},
};

class SqProducerTest : public HostileTest,
		       public ::testing::WithParamInterface<ProducerCase> {};

TEST_P(SqProducerTest, Contained)
{
	auto raw = make_raw_qp();
	Endpoint b = make_remote_endpoint(IBV_QPT_RC);
	auto src = make_mr(256, IBV_ACCESS_LOCAL_WRITE);
	auto dst = make_remote_mr(4096);

	connect_raw(*raw, b);
	fill_pattern(src->data(), 256, 0x51);
	fill_pattern(dst->data(), dst->length(), kGuardSeed);

	/* The raw QP works: a WRITE posted the librxe way completes. */
	fill_send(raw->send_slot(), 1, IBV_WR_RDMA_WRITE, *src, 256,
		  dst->addr(), dst->rkey());
	raw->publish_send();
	ASSERT_EQ(raw->doorbell(), 0);
	ASSERT_TRUE(wc_ok(poll_one(*raw->send_cq(), "a WRITE from the raw QP"),
			  IBV_WC_RDMA_WRITE, 1));
	ASSERT_TRUE(matches_pattern(dst->data(), 256, 0x51));
	fill_pattern(dst->data(), dst->length(), kGuardSeed);

	MappedQueue &sq = raw->sq();
	const uint32_t bad = GetParam().value(sq.consumer(), sq.slots());
	sq.set_producer(bad);
	/* Either refused or taken: the kernel must not crash or hang. */
	int err = raw->doorbell();
	SCOPED_TRACE("producer " + std::to_string(bad) + " of " +
		     std::to_string(sq.slots()) + " slots, doorbell " +
		     (err ? verbs::errno_name(err) : std::string("ok")));

	/*
	 * Whatever the stale or zeroed slots did, it stays on this QP.  The
	 * kernel takes the producer modulo the ring (up to slots - 1 WQEs,
	 * all_ones's 126): the completions are drained until its consumer
	 * index gets there, or the QP leaves RTS, or the deadline passes.  A
	 * pause longer than the quiet time (500 ms) in a debug kernel once
	 * ended a single drain with WQEs still to run, and the WRITE below
	 * found their completions.
	 */
	const uint32_t target = bad & sq.mask();
	const auto deadline = std::chrono::steady_clock::now() + cfg().timeout;
	std::vector<ibv_wc> wcs;
	do {
		auto more = drain(*raw->send_cq(), raw->num(), "raw QP send CQ");
		wcs.insert(wcs.end(), more.begin(), more.end());
	} while ((sq.consumer() & sq.mask()) != target &&
		 raw->state() == IBV_QPS_RTS &&
		 std::chrono::steady_clock::now() < deadline);
	expect_contained(*raw, "after the corrupted producer");
	EXPECT_LE(wcs.size(), size_t{sq.slots()})
		<< "more completions than the ring has slots";
	auto rwc = try_poll(*b.recv_cq, 0ms);
	EXPECT_FALSE(rwc) << "the peer received " << describe(*rwc);
	/*
	 * Zeroed slots are zero-length WRITEs to rkey 0; stale ones repeat
	 * the WRITE above: nothing else may land.
	 */
	EXPECT_TRUE(matches_pattern(dst->data() + 256, dst->length() - 256,
				    kGuardSeed, 256))
		<< "the peer's memory beyond the one valid WRITE changed";
	if (raw->state() == IBV_QPS_RTS) {
		/* Ignored: with the producer put right, the QP still works. */
		sq.set_producer(sq.consumer());
		fill_send(raw->send_slot(), 2, IBV_WR_RDMA_WRITE, *src, 256,
			  dst->addr(), dst->rkey());
		raw->publish_send();
		EXPECT_EQ(raw->doorbell(), 0);
		EXPECT_TRUE(wc_ok(poll_one(*raw->send_cq(),
					   "a WRITE after the producer was put right"),
				  IBV_WC_RDMA_WRITE, 2));
	}
	expect_device_works();
}

INSTANTIATE_TEST_SUITE_P(
	Hostile, SqProducerTest, ::testing::ValuesIn(kProducerCases),
	[](const ::testing::TestParamInfo<ProducerCase> &info) {
		return std::string(info.param.name);
	});

/* A garbage send WQE, written into the mapped SQ, then the doorbell. */
struct SendGarbage {
	const char *name;
	/* Turns a valid one-SGE WRITE (src -> remote) into garbage. */
	void (*spoil)(SendWqe *w, const Mr &src);
};

const SendGarbage kSendGarbage[] = {
	{"BadOpcode", [](SendWqe *w, const Mr &) { w->wr.opcode = 0x7e; }},
	{"OpcodeAllOnes",
	 [](SendWqe *w, const Mr &) { w->wr.opcode = 0xffffffffu; }},
	{"HugeNumSge",
	 [](SendWqe *w, const Mr &) { w->dma.num_sge = 0xffffffffu; }},
	{"NumSgePastSlot",
	 [](SendWqe *w, const Mr &) { w->dma.num_sge = 1000; }},
	{"SgeOutsideMr",
	 [](SendWqe *w, const Mr &src) {
		 w->sge()[0].addr = src.addr() + src.length();
	 }},
	{"SgeStraddlesMrEnd",
	 [](SendWqe *w, const Mr &src) {
		 w->sge()[0].addr = src.addr() + src.length() - 16;
	 }},
	{"GarbageLkey",
	 [](SendWqe *w, const Mr &) { w->sge()[0].lkey = 0xdeadbe00u; }},
	{"LkeyWrongKeyByte",
	 [](SendWqe *w, const Mr &) { w->sge()[0].lkey ^= 0x5a; }},
	{"HugeSgeLength",
	 [](SendWqe *w, const Mr &) {
		 w->sge()[0].length = 0xffffffffu;
		 w->dma.length = w->dma.resid = 0xffffffffu;
	 }},
	{"HugeInline",
	 [](SendWqe *w, const Mr &) {
		 w->wr.send_flags |= IBV_SEND_INLINE;
		 w->dma.length = w->dma.resid = 0xffffffffu;
	 }},
	{"InlineBeyondSlot",
	 [](SendWqe *w, const Mr &) {
		 w->wr.send_flags |= IBV_SEND_INLINE;
		 w->dma.length = w->dma.resid = 1u << 20;
	 }},
	{"InlineRead",
	 [](SendWqe *w, const Mr &) {
		 w->wr.opcode = IBV_WR_RDMA_READ;
		 w->wr.send_flags |= IBV_SEND_INLINE;
	 }},
	{"AtomicWrongLength",
	 [](SendWqe *w, const Mr &) {
		 w->wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	 }},
	{"LocalInvalidate",
	 [](SendWqe *w, const Mr &src) {
		 w->wr.opcode = IBV_WR_LOCAL_INV;
		 w->wr.ex.invalidate_rkey = src.rkey();
	 }},
	{"BindMw",
	 [](SendWqe *w, const Mr &) { w->wr.opcode = IBV_WR_BIND_MW; }},
	/*
	 * IB_WR_REG_MR (0x20) is kernel only: its WQE carries a struct
	 * ib_mr pointer (where rdma.remote_addr lies). A kernel that takes
	 * it from a user ring dereferences what the process wrote.
	 */
	{"KernelOnlyRegMr",
	 [](SendWqe *w, const Mr &) {
		 w->wr.opcode = 0x20;
		 w->wr.wr.rdma.remote_addr = 0xdead000000000000ull;
	 }},
};

class SendGarbageTest : public HostileTest,
			public ::testing::WithParamInterface<SendGarbage> {};

TEST_P(SendGarbageTest, ErrorCompletionOnThatQpOnly)
{
	constexpr uint32_t n = 256;
	auto raw = make_raw_qp();
	Endpoint b = make_remote_endpoint(IBV_QPT_RC);
	auto src = make_mr(n, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
				      IBV_ACCESS_REMOTE_WRITE);
	auto dst = make_remote_mr(kGuard + n + kGuard);

	connect_raw(*raw, b);
	fill_pattern(src->data(), n, 0x52);
	fill_pattern(dst->data(), dst->length(), kGuardSeed);

	SendWqe *w = raw->send_slot();
	fill_send(w, 7, IBV_WR_RDMA_WRITE, *src, n, dst->addr() + kGuard,
		  dst->rkey());
	GetParam().spoil(w, *src);
	raw->publish_send();
	int err = raw->doorbell();
	EXPECT_EQ(err, 0) << "the doorbell itself is a valid command: "
			  << verbs::errno_name(err);

	ibv_wc wc = poll_one(*raw->send_cq(), "the garbage WQE's completion");
	EXPECT_EQ(wc.wr_id, 7u) << describe(wc);
	EXPECT_NE(wc.status, IBV_WC_SUCCESS) << describe(wc);
	EXPECT_NE(wc.status, IBV_WC_WR_FLUSH_ERR)
		<< "the WQE itself must fail, not be flushed: " << describe(wc);
	EXPECT_EQ(wc.qp_num, raw->num()) << describe(wc);
	std::cout << "  " << GetParam().name << ": " << describe(wc) << "\n";
	ibv_qp_state s = raw->wait_state(IBV_QPS_ERR, cfg().timeout);
	EXPECT_EQ(s, IBV_QPS_ERR) << "the QP is " << verbs::qp_state_str(s);
	drain(*raw->send_cq(), raw->num(), "raw QP send CQ");

	EXPECT_TRUE(matches_pattern(dst->data(), dst->length(), kGuardSeed))
		<< "the peer's memory changed";
	EXPECT_TRUE(matches_pattern(src->data(), n, 0x52))
		<< "the local buffer changed";
	auto rwc = try_poll(*b.recv_cq, 0ms);
	EXPECT_FALSE(rwc) << "the peer received " << describe(*rwc);
	expect_device_works();
}

INSTANTIATE_TEST_SUITE_P(
	Hostile, SendGarbageTest, ::testing::ValuesIn(kSendGarbage),
	[](const ::testing::TestParamInfo<SendGarbage> &info) {
		return std::string(info.param.name);
	});

/*
 * A flush completes what the SQ held when it began, no more.  The producer
 * index is the user's to move: a flush that ran until the ring was empty
 * followed a process that kept it full behind the flush and drained the
 * CQ, in the kernel with IRQs off, for as long as the process liked.  The
 * ring is filled without a doorbell and the QP moved to ERR, which runs
 * one flush; for 2 s the test keeps the ring full and polls: with no
 * doorbell rung, that one flush (slots - 1 WQEs) is all that may complete.
 */
TEST_F(HostileTest, FlushTakesWhatWasQueued)
{
	auto raw = make_raw_qp();
	Endpoint b = make_remote_endpoint(IBV_QPT_RC);

	connect_raw(*raw, b);
	MappedQueue &sq = raw->sq();
	const uint32_t slots = sq.slots();
	sq.set_producer(sq.consumer() + slots - 1);

	ibv_qp_attr a{};
	a.qp_state = IBV_QPS_ERR;
	raw->modify(a, IBV_QP_STATE);

	size_t flushed = 0;
	ibv_wc wc[32];
	const auto end = std::chrono::steady_clock::now() + 2s;
	while (std::chrono::steady_clock::now() < end) {
		sq.set_producer(sq.consumer() + slots - 1);
		int n = ibv_poll_cq(raw->send_cq()->get(), 32, wc);

		ASSERT_GE(n, 0) << "ibv_poll_cq";
		for (int i = 0; i < n; i++)
			EXPECT_EQ(wc[i].status, IBV_WC_WR_FLUSH_ERR) << describe(wc[i]);
		flushed += static_cast<size_t>(n);
	}
	flushed += drain(*raw->send_cq(), raw->num(), "raw QP send CQ").size();
	EXPECT_EQ(flushed, size_t{slots - 1})
		<< "one flush of a ring of " << slots << " slots, kept full by the "
		   "process for 2 s without a doorbell";
	expect_device_works();
}

/* ---- receive queues ---- */

/* A corrupted producer or a garbage WQE in an RQ or SRQ. */
struct RecvGarbage {
	const char *name;
	/* The producer index after one valid WQE was written at @p. */
	uint32_t (*producer)(uint32_t p, uint32_t slots);
	/* Spoils the valid WQE (may be null). */
	void (*spoil)(RecvWqe *w);
};

const RecvGarbage kRecvGarbage[] = {
	{"ProducerTenTimesSize",
	 [](uint32_t p, uint32_t s) { return p + 10 * s; }, nullptr},
	{"ProducerHighBits",
	 [](uint32_t p, uint32_t) { return 0xfff00000u | (p + 3); }, nullptr},
	{"ProducerAllOnes", [](uint32_t, uint32_t) { return 0xffffffffu; },
	 nullptr},
	{"HugeNumSge", nullptr,
	 [](RecvWqe *w) { w->dma.num_sge = 0xffffffffu; }},
	{"NumSgePastSlot", nullptr, [](RecvWqe *w) { w->dma.num_sge = 1000; }},
	{"GarbageLkey", nullptr,
	 [](RecvWqe *w) { w->sge()[0].lkey = 0xdeadbe00u; }},
	{"SgeOutsideMr", nullptr,
	 [](RecvWqe *w) { w->sge()[0].addr += 1u << 20; }},
	{"HugeSgeLength", nullptr,
	 [](RecvWqe *w) {
		 w->sge()[0].length = 0xffffffffu;
		 w->dma.length = w->dma.resid = 0xffffffffu;
	 }},
	{"ResumeStateGarbage", nullptr,
	 [](RecvWqe *w) {
		 w->dma.cur_sge = 0xfffffff0u;
		 w->dma.sge_offset = 0xfffff000u;
		 w->dma.resid = 0xffffffffu;
	 }},
};

std::string recv_garbage_name(const ::testing::TestParamInfo<RecvGarbage> &i)
{
	return i.param.name;
}

class RecvGarbageTest : public HostileTest,
			public ::testing::WithParamInterface<RecvGarbage> {
protected:
	/*
	 * Write one receive WQE for [kGuard, kGuard + n) of dst into ring q
	 * at its producer, spoil or publish it as the case says.
	 */
	void post_hostile(MappedQueue &q, const Mr &dst, uint32_t n)
	{
		const RecvGarbage &g = GetParam();
		const uint32_t p = q.producer();
		RecvWqe *w = q.fresh_slot<RecvWqe>(p);

		fill_recv(w, 9, dst, kGuard, n);
		if (g.spoil)
			g.spoil(w);
		q.set_producer(g.producer ? g.producer(p, q.slots()) :
					    (p + 1) & q.mask());
	}

	/*
	 * b SENDs n bytes to the raw QP, whose receive ring holds the
	 * hostile WQE; b's RNR retry count is 1, so an empty-looking ring
	 * ends in an RNR retry error rather than a wait without end.
	 */
	void send_and_check(const RawQp &raw, const Endpoint &b, const Mr &dst,
			    uint32_t n)
	{
		auto src = make_mr(n, IBV_ACCESS_LOCAL_WRITE, Side::remote);

		fill_pattern(src->data(), n, 0x53);
		ibv_sge s = verbs::sge(*src, 0, n);
		ibv_send_wr wr{};
		wr.wr_id = 3;
		wr.sg_list = &s;
		wr.num_sge = 1;
		wr.opcode = IBV_WR_SEND;
		wr.send_flags = IBV_SEND_SIGNALED;
		verbs::post_send(*b.qp, wr);

		/* Any status: it must complete, and on its own QP. */
		ibv_wc wc = poll_one(*b.send_cq, "the peer's SEND");
		EXPECT_EQ(wc.wr_id, 3u) << describe(wc);
		std::cout << "  " << GetParam().name << ": peer " << describe(wc)
			  << "\n";
		auto rwcs = drain(*raw.recv_cq(), raw.num(), "raw QP recv CQ");
		for (const ibv_wc &r : rwcs)
			std::cout << "  " << GetParam().name << ": raw "
				  << describe(r) << "\n";
		expect_contained(raw, "after the hostile receive WQE");
		/* Only the receive buffer may change, and only if it was
		 * a valid receive that completed successfully. */
		EXPECT_TRUE(matches_pattern(dst.data(), kGuard, kGuardSeed))
			<< "bytes before the receive buffer changed";
		EXPECT_TRUE(matches_pattern(dst.data() + kGuard + n,
					    dst.length() - kGuard - n,
					    kGuardSeed, kGuard + n))
			<< "bytes after the receive buffer changed";
		bool delivered = false;
		for (const ibv_wc &r : rwcs)
			delivered |= r.status == IBV_WC_SUCCESS;
		if (delivered) {
			EXPECT_TRUE(matches_pattern(dst.data() + kGuard, n, 0x53))
				<< "a successful receive with wrong data";
		} else {
			EXPECT_TRUE(matches_pattern(dst.data() + kGuard, n,
						    kGuardSeed, kGuard))
				<< "the receive buffer changed, but no receive "
				   "completed successfully";
		}
	}
};

using RqGarbageTest = RecvGarbageTest;
using SrqGarbageTest = RecvGarbageTest;

TEST_P(RqGarbageTest, Contained)
{
	constexpr uint32_t n = 200;
	auto raw = make_raw_qp();
	Endpoint b = make_remote_endpoint(IBV_QPT_RC);
	auto dst = make_mr(kGuard + n + kGuard + 4096);

	connect_raw(*raw, b, 1);
	fill_pattern(dst->data(), dst->length(), kGuardSeed);
	post_hostile(raw->rq(), *dst, n);
	send_and_check(*raw, b, *dst, n);
	expect_device_works();
}

INSTANTIATE_TEST_SUITE_P(Hostile, RqGarbageTest, ::testing::ValuesIn(kRecvGarbage),
			 recv_garbage_name);

TEST_P(SrqGarbageTest, Contained)
{
	constexpr uint32_t n = 200;
	auto srq = std::make_shared<RawSrq>(pd_, 16, 2);
	auto raw = make_raw_qp({}, srq);
	Endpoint b = make_remote_endpoint(IBV_QPT_RC);
	auto dst = make_mr(kGuard + n + kGuard + 4096);

	connect_raw(*raw, b, 1);
	fill_pattern(dst->data(), dst->length(), kGuardSeed);
	post_hostile(srq->queue(), *dst, n);
	send_and_check(*raw, b, *dst, n);
	expect_device_works();
}

INSTANTIATE_TEST_SUITE_P(Hostile, SrqGarbageTest,
			 ::testing::ValuesIn(kRecvGarbage), recv_garbage_name);

/* ---- malformed commands ---- */

class MalformedCommandTest;

struct Malformed {
	const char *name;
	/* Issues the command; returns 0 or the errno. */
	int (*issue)(MalformedCommandTest &t);
};

class MalformedCommandTest : public HostileTest,
			     public ::testing::WithParamInterface<Malformed> {
public:
	ibv_context *ctx() const { return ctx_->get(); }
	uint32_t pd_handle() const { return pd_->get()->handle; }

	/* A CREATE_QP command that would succeed, to be spoiled. */
	ib_uverbs_create_qp create_qp_cmd(void *resp)
	{
		if (!cq_)
			cq_ = make_cq();
		ib_uverbs_create_qp c{};

		c.response = ptr(resp);
		c.user_handle = 0;
		c.pd_handle = pd_handle();
		c.send_cq_handle = cq_->get()->handle;
		c.recv_cq_handle = cq_->get()->handle;
		c.max_send_wr = 16;
		c.max_recv_wr = 16;
		c.max_send_sge = 1;
		c.max_recv_sge = 1;
		c.qp_type = IBV_QPT_RC;
		return c;
	}

	int create_qp(const ib_uverbs_create_qp &c, size_t out)
	{
		return uverbs_cmd(ctx(), IB_USER_VERBS_CMD_CREATE_QP, c, out);
	}

	Resp<ib_uverbs_create_qp_resp, rxe_create_qp_resp> qp_resp;

	/* A librxe RC QP, in RESET, then moved on as asked. */
	const verbs::Qp &qp_in(ibv_qp_state s)
	{
		ep_ = make_endpoint(IBV_QPT_RC);
		if (s == IBV_QPS_RESET)
			return *ep_.qp;
		modify_to_init(*ep_.qp);
		if (s == IBV_QPS_INIT)
			return *ep_.qp;
		modify_to_rtr(*ep_.qp, ep_.qp->num(), kPsnA);
		if (s == IBV_QPS_RTR)
			return *ep_.qp;
		modify_to_rts(*ep_.qp, kPsnA);
		return *ep_.qp;
	}

	/* The attributes RESET->INIT, INIT->RTR, RTR->RTS would take. */
	ibv_qp_attr init_attr(int &mask) const
	{
		ibv_qp_attr a{};

		a.qp_state = IBV_QPS_INIT;
		a.port_num = cfg().port;
		a.qp_access_flags = kAllAccess;
		mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
		       IBV_QP_ACCESS_FLAGS;
		return a;
	}
	ibv_qp_attr rtr_attr(int &mask, uint32_t dest) const
	{
		ibv_qp_attr a{};

		a.qp_state = IBV_QPS_RTR;
		a.ah_attr = own_ah_attr();
		a.path_mtu = path_mtu();
		a.dest_qp_num = dest;
		a.rq_psn = kPsnA;
		a.max_dest_rd_atomic = 1;
		a.min_rnr_timer = kMinRnrTimer;
		mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
		       IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
		       IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
		return a;
	}
	ibv_qp_attr rts_attr(int &mask) const
	{
		ibv_qp_attr a{};

		a.qp_state = IBV_QPS_RTS;
		a.sq_psn = kPsnA;
		a.timeout = kTimeout;
		a.retry_cnt = kRetryCnt;
		a.rnr_retry = kRnrRetry;
		a.max_rd_atomic = 1;
		mask = IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
		       IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
		       IBV_QP_MAX_QP_RD_ATOMIC;
		return a;
	}

	int modify(const verbs::Qp &qp, const ibv_qp_attr &a, int mask)
	{
		return raw_modify_qp(ctx(), qp.get()->handle, a, mask);
	}

	/* INIT->RTR with one attribute spoiled. */
	int bad_rtr(void (*spoil)(ibv_qp_attr &a, int &mask))
	{
		const verbs::Qp &qp = qp_in(IBV_QPS_INIT);
		int mask;
		ibv_qp_attr a = rtr_attr(mask, qp.num());

		spoil(a, mask);
		return modify(qp, a, mask);
	}
	/* RTR->RTS with one attribute spoiled. */
	int bad_rts(void (*spoil)(ibv_qp_attr &a, int &mask))
	{
		const verbs::Qp &qp = qp_in(IBV_QPS_RTR);
		int mask;
		ibv_qp_attr a = rts_attr(mask);

		spoil(a, mask);
		return modify(qp, a, mask);
	}
	/* RESET->INIT with one attribute spoiled. */
	int bad_init(void (*spoil)(ibv_qp_attr &a, int &mask))
	{
		const verbs::Qp &qp = qp_in(IBV_QPS_RESET);
		int mask;
		ibv_qp_attr a = init_attr(mask);

		spoil(a, mask);
		return modify(qp, a, mask);
	}

	int post_send(uint32_t wr_count, uint32_t sge_count, uint32_t wqe_size,
		      const std::vector<uint8_t> &payload = {})
	{
		const verbs::Qp &qp = qp_in(IBV_QPS_RTS);
		ib_uverbs_post_send_resp resp{};
		ib_uverbs_post_send c{};
		std::vector<uint8_t> buf(sizeof(c) + payload.size());

		c.response = ptr(&resp);
		c.qp_handle = qp.get()->handle;
		c.wr_count = wr_count;
		c.sge_count = sge_count;
		c.wqe_size = wqe_size;
		std::memcpy(buf.data(), &c, sizeof(c));
		if (!payload.empty())
			std::memcpy(buf.data() + sizeof(c), payload.data(),
				    payload.size());
		return uverbs_write(ctx(), IB_USER_VERBS_CMD_POST_SEND,
				    buf.data(), buf.size(), sizeof(resp));
	}

	int create_cq(uint32_t cqe, uint32_t vector)
	{
		Resp<ib_uverbs_create_cq_resp, rxe_create_cq_resp> resp;
		ib_uverbs_create_cq c{};

		c.response = ptr(resp.bytes);
		c.cqe = cqe;
		c.comp_vector = vector;
		c.comp_channel = -1;
		return uverbs_cmd(ctx(), IB_USER_VERBS_CMD_CREATE_CQ, c,
				  sizeof(resp.bytes));
	}

	int reg_mr(uint64_t start, uint64_t length, uint64_t iova, uint32_t access)
	{
		ib_uverbs_reg_mr_resp resp{};
		ib_uverbs_reg_mr c{};

		c.response = ptr(&resp);
		c.start = start;
		c.length = length;
		c.hca_va = iova;
		c.pd_handle = pd_handle();
		c.access_flags = access;
		return uverbs_cmd(ctx(), IB_USER_VERBS_CMD_REG_MR, c,
				  sizeof(resp));
	}

	/* A page of this process's memory for reg_mr. */
	uint64_t page()
	{
		if (!buf_)
			buf_ = std::make_shared<verbs::Buffer>(2 * 4096);
		return buf_->addr();
	}

	int create_ah(void (*spoil)(ib_uverbs_ah_attr &a))
	{
		Resp<ib_uverbs_create_ah_resp, rxe_create_ah_resp> resp;
		ib_uverbs_create_ah c{};
		ibv_ah_attr av = own_ah_attr();

		c.response = ptr(resp.bytes);
		c.pd_handle = pd_handle();
		std::memcpy(c.attr.grh.dgid, av.grh.dgid.raw, 16);
		c.attr.grh.sgid_index = av.grh.sgid_index;
		c.attr.grh.hop_limit = av.grh.hop_limit;
		c.attr.is_global = 1;
		c.attr.port_num = av.port_num;
		spoil(c.attr);
		return uverbs_cmd(ctx(), IB_USER_VERBS_CMD_CREATE_AH, c,
				  sizeof(resp.bytes));
	}

	int create_srq(uint32_t max_wr, uint32_t max_sge)
	{
		Resp<ib_uverbs_create_srq_resp, rxe_create_srq_resp> resp;
		ib_uverbs_create_srq c{};

		c.response = ptr(resp.bytes);
		c.pd_handle = pd_handle();
		c.max_wr = max_wr;
		c.max_sge = max_sge;
		return uverbs_cmd(ctx(), IB_USER_VERBS_CMD_CREATE_SRQ, c,
				  sizeof(resp.bytes));
	}

private:
	std::shared_ptr<verbs::Cq> cq_;
	std::shared_ptr<verbs::Buffer> buf_;
	Endpoint ep_;
};

using T = MalformedCommandTest;
using A = ibv_qp_attr;

const Malformed kMalformed[] = {
	/* The header. */
	{"UnknownCommand",
	 [](T &t) {
		 uint64_t zero[4] = {};
		 return uverbs_write(t.ctx(), 200, zero, sizeof(zero), 0);
	 }},
	{"HeaderLengthMismatch",
	 [](T &t) {
		 auto c = t.create_qp_cmd(t.qp_resp.bytes);
		 return uverbs_write(t.ctx(), IB_USER_VERBS_CMD_CREATE_QP, &c,
				     sizeof(c), sizeof(t.qp_resp), 4);
	 }},
	/* CREATE_QP */
	{"CreateQpHugeSendWr",
	 [](T &t) {
		 auto c = t.create_qp_cmd(t.qp_resp.bytes);
		 c.max_send_wr = 0xffffffffu;
		 return t.create_qp(c, sizeof(t.qp_resp));
	 }},
	{"CreateQpHugeRecvWr",
	 [](T &t) {
		 auto c = t.create_qp_cmd(t.qp_resp.bytes);
		 c.max_recv_wr = 1u << 31;
		 return t.create_qp(c, sizeof(t.qp_resp));
	 }},
	{"CreateQpHugeSendSge",
	 [](T &t) {
		 auto c = t.create_qp_cmd(t.qp_resp.bytes);
		 c.max_send_sge = 0xffffffffu;
		 return t.create_qp(c, sizeof(t.qp_resp));
	 }},
	{"CreateQpHugeRecvSge",
	 [](T &t) {
		 auto c = t.create_qp_cmd(t.qp_resp.bytes);
		 c.max_recv_sge = 0x10000;
		 return t.create_qp(c, sizeof(t.qp_resp));
	 }},
	{"CreateQpHugeInline",
	 [](T &t) {
		 auto c = t.create_qp_cmd(t.qp_resp.bytes);
		 c.max_inline_data = 0xffffffffu;
		 return t.create_qp(c, sizeof(t.qp_resp));
	 }},
	{"CreateQpBadType",
	 [](T &t) {
		 auto c = t.create_qp_cmd(t.qp_resp.bytes);
		 c.qp_type = 0x7f;
		 return t.create_qp(c, sizeof(t.qp_resp));
	 }},
	{"CreateQpBadPdHandle",
	 [](T &t) {
		 auto c = t.create_qp_cmd(t.qp_resp.bytes);
		 c.pd_handle = 0x7fffffff;
		 return t.create_qp(c, sizeof(t.qp_resp));
	 }},
	{"CreateQpNoRoomForQueueOffsets",
	 [](T &t) {
		 auto c = t.create_qp_cmd(t.qp_resp.bytes);
		 return t.create_qp(c, sizeof(ib_uverbs_create_qp_resp));
	 }},
	/* MODIFY_QP */
	{"ModifyQpBadHandle",
	 [](T &t) {
		 int mask;
		 A a = t.init_attr(mask);
		 return raw_modify_qp(t.ctx(), 0x7fffffff, a, mask);
	 }},
	{"ModifyQpUnknownMaskBit",
	 [](T &t) {
		 return t.bad_init([](A &, int &m) { m |= 1 << 30; });
	 }},
	{"ModifyQpStateOutOfRange",
	 [](T &t) {
		 return t.bad_init([](A &a, int &) {
			 a.qp_state = static_cast<ibv_qp_state>(9);
		 });
	 }},
	{"ModifyQpResetToRts",
	 [](T &t) {
		 const verbs::Qp &qp = t.qp_in(IBV_QPS_RESET);
		 int mask;
		 A a = t.rts_attr(mask);
		 return t.modify(qp, a, mask);
	 }},
	{"ModifyQpWrongCurrentState",
	 [](T &t) {
		 return t.bad_init([](A &a, int &m) {
			 a.cur_qp_state = IBV_QPS_RTS;
			 m |= IBV_QP_CUR_STATE;
		 });
	 }},
	{"ModifyQpPort0",
	 [](T &t) { return t.bad_init([](A &a, int &) { a.port_num = 0; }); }},
	{"ModifyQpPort2",
	 [](T &t) { return t.bad_init([](A &a, int &) { a.port_num = 2; }); }},
	{"ModifyQpPkeyIndex",
	 [](T &t) {
		 return t.bad_init([](A &a, int &) { a.pkey_index = 4000; });
	 }},
	{"ModifyQpRtrMissingAv",
	 [](T &t) { return t.bad_rtr([](A &, int &m) { m &= ~IBV_QP_AV; }); }},
	{"ModifyQpPathMtu0",
	 [](T &t) {
		 return t.bad_rtr([](A &a, int &) {
			 a.path_mtu = static_cast<ibv_mtu>(0);
		 });
	 }},
	{"ModifyQpPathMtu7",
	 [](T &t) {
		 return t.bad_rtr([](A &a, int &) {
			 a.path_mtu = static_cast<ibv_mtu>(7);
		 });
	 }},
	{"ModifyQpBadSgidIndex",
	 [](T &t) {
		 return t.bad_rtr([](A &a, int &) { a.ah_attr.grh.sgid_index = 250; });
	 }},
	{"ModifyQpMinRnrTimer32",
	 [](T &t) {
		 return t.bad_rtr([](A &a, int &) { a.min_rnr_timer = 32; });
	 }},
	{"ModifyQpHugeMaxDestRdAtomic",
	 [](T &t) {
		 return t.bad_rtr([](A &a, int &) { a.max_dest_rd_atomic = 255; });
	 }},
	{"ModifyQpTimeout32",
	 [](T &t) { return t.bad_rts([](A &a, int &) { a.timeout = 32; }); }},
	{"ModifyQpRetryCnt8",
	 [](T &t) { return t.bad_rts([](A &a, int &) { a.retry_cnt = 8; }); }},
	{"ModifyQpRnrRetry8",
	 [](T &t) { return t.bad_rts([](A &a, int &) { a.rnr_retry = 8; }); }},
	{"ModifyQpHugeMaxRdAtomic",
	 [](T &t) {
		 return t.bad_rts([](A &a, int &) { a.max_rd_atomic = 255; });
	 }},
	{"ModifyQpAltPath",
	 [](T &t) {
		 return t.bad_rts([](A &a, int &m) {
			 a.alt_port_num = 1;
			 a.alt_timeout = 14;
			 m |= IBV_QP_ALT_PATH;
		 });
	 }},
	/* POST_SEND */
	{"PostSendHugeWrCount",
	 [](T &t) {
		 return t.post_send(0xffffffffu, 0, sizeof(ib_uverbs_send_wr));
	 }},
	{"PostSendHugeSgeCount",
	 [](T &t) {
		 return t.post_send(0, 0xffffffffu, sizeof(ib_uverbs_send_wr));
	 }},
	{"PostSendTinyWqeSize", [](T &t) { return t.post_send(0, 0, 4); }},
	{"PostSendHugeWqeSize",
	 [](T &t) { return t.post_send(1, 0, 0x7fffffffu); }},
	{"PostSendSgeCountBeyondData",
	 [](T &t) {
		 std::vector<uint8_t> wr(sizeof(ib_uverbs_send_wr));
		 ib_uverbs_send_wr w{};
		 w.num_sge = 4;
		 w.opcode = IB_UVERBS_WR_SEND;
		 std::memcpy(wr.data(), &w, sizeof(w));
		 return t.post_send(1, 1, sizeof(w), wr);
	 }},
	/*
	 * A well-formed WR through the kernel path on a user QP: under the
	 * rxe ABI a user QP's WQEs go through the mapped ring only.
	 */
	{"PostSendWrToUserQp",
	 [](T &t) {
		 std::vector<uint8_t> wr(sizeof(ib_uverbs_send_wr));
		 ib_uverbs_send_wr w{};
		 w.wr_id = 1;
		 w.opcode = IB_UVERBS_WR_SEND;
		 std::memcpy(wr.data(), &w, sizeof(w));
		 return t.post_send(1, 0, sizeof(w), wr);
	 }},
	/* CREATE_CQ */
	{"CreateCq2Pow31", [](T &t) { return t.create_cq(1u << 31, 0); }},
	{"CreateCqZero", [](T &t) { return t.create_cq(0, 0); }},
	{"CreateCqBadVector", [](T &t) { return t.create_cq(16, 0xffff); }},
	/* REG_MR */
	{"RegMrZeroLength",
	 [](T &t) {
		 return t.reg_mr(t.page(), 0, t.page(), IBV_ACCESS_LOCAL_WRITE);
	 }},
	{"RegMrHugeLength",
	 [](T &t) {
		 return t.reg_mr(t.page(), 1ull << 62, t.page(),
				 IBV_ACCESS_LOCAL_WRITE);
	 }},
	{"RegMrWrapsAddressSpace",
	 [](T &t) {
		 return t.reg_mr(0xfffffffffffff001ull, 0x2000,
				 0xfffffffffffff001ull, IBV_ACCESS_LOCAL_WRITE);
	 }},
	{"RegMrUnmappedMemory",
	 [](T &t) {
		 void *p = mmap(nullptr, 2 * 4096, PROT_NONE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		 if (p == MAP_FAILED)
			 throw_error("mmap", errno, "a range to unmap");
		 uint64_t a = ptr(p);
		 munmap(p, 2 * 4096);
		 return t.reg_mr(a, 4096, a, IBV_ACCESS_LOCAL_WRITE);
	 }},
	{"RegMrUnalignedIovaOffset",
	 [](T &t) {
		 return t.reg_mr(t.page() + 1, 100, t.page() + 2,
				 IBV_ACCESS_LOCAL_WRITE);
	 }},
	{"RegMrUnknownAccessBit",
	 [](T &t) {
		 return t.reg_mr(t.page(), 4096, t.page(), 0x40000000u);
	 }},
	{"RegMrRemoteWriteWithoutLocalWrite",
	 [](T &t) {
		 return t.reg_mr(t.page(), 4096, t.page(),
				 IBV_ACCESS_REMOTE_WRITE);
	 }},
	/* CREATE_AH */
	{"CreateAhBadGidIndex",
	 [](T &t) {
		 return t.create_ah([](ib_uverbs_ah_attr &a) {
			 a.grh.sgid_index = 250;
		 });
	 }},
	{"CreateAhNoGrh",
	 [](T &t) {
		 return t.create_ah([](ib_uverbs_ah_attr &a) { a.is_global = 0; });
	 }},
	{"CreateAhBadPort",
	 [](T &t) {
		 return t.create_ah([](ib_uverbs_ah_attr &a) { a.port_num = 9; });
	 }},
	/* CREATE_SRQ */
	{"CreateSrqHugeWr", [](T &t) { return t.create_srq(0xffffffffu, 1); }},
	{"CreateSrqHugeSge", [](T &t) { return t.create_srq(16, 0x10000); }},
};

TEST_P(MalformedCommandTest, RejectedAndDeviceKeepsWorking)
{
	int err = GetParam().issue(*this);

	EXPECT_NE(err, 0) << GetParam().name << " was accepted";
	std::cout << "  " << GetParam().name << ": "
		  << (err ? verbs::errno_name(err) : std::string("accepted"))
		  << "\n";
	expect_device_works();
}

INSTANTIATE_TEST_SUITE_P(
	Hostile, MalformedCommandTest, ::testing::ValuesIn(kMalformed),
	[](const ::testing::TestParamInfo<Malformed> &info) {
		return std::string(info.param.name);
	});

/* ---- FLUSH (IBTA 1.5), written into the send queue as librxe 45 does ---- */

/*
 * rdma-core 44 has no FLUSH: its values from the uverbs ABI (Linux 6.2,
 * rdma-core 45's verbs.h).
 */
constexpr uint64_t kDeviceFlushGlobal = 1ULL << 38;	/* IBV_DEVICE_FLUSH_GLOBAL */
constexpr int kAccessFlushGlobal = 1 << 8;		/* IBV_ACCESS_FLUSH_GLOBAL */
constexpr int kAccessFlushPersistent = 1 << 9;		/* ..._FLUSH_PERSISTENT */
constexpr uint32_t kWrFlush = 14;			/* IBV_WR_FLUSH */
constexpr int kWcFlush = 8;				/* IBV_WC_FLUSH */
constexpr uint8_t kFlushGlobal = 1, kFlushPersistent = 2;
constexpr uint8_t kFlushRange = 0, kFlushMr = 1;

/*
 * A FLUSH WQE as librxe's wr_flush() writes it: rxe_send_wr.wr.flush
 * (remote_addr, length, rkey, type, level; 6.1's header has no such
 * member) and the length in dma.length and dma.resid, no SGE.
 */
void fill_flush(SendWqe *w, uint64_t wr_id, uint64_t addr, uint32_t len,
		uint32_t rkey, uint8_t type, uint8_t level)
{
	auto *f = reinterpret_cast<uint8_t *>(&w->wr.wr);

	w->wr.wr_id = wr_id;
	w->wr.opcode = kWrFlush;
	w->wr.send_flags = IBV_SEND_SIGNALED;
	std::memcpy(f, &addr, sizeof(addr));
	std::memcpy(f + 12, &rkey, sizeof(rkey));
	f[16] = type;
	f[17] = level;
	w->iova = addr;
	w->dma.length = len;
	w->dma.resid = len;
}

/*
 * The raw QP (the device under test) is the requester, b the responder.
 * A responder that offers FLUSH (IBV_DEVICE_FLUSH_GLOBAL: vrnic and rxe
 * on Linux 6.2 and later) registers MRs for it; Linux 6.1 refuses the
 * access bit at registration, so there a FLUSH can only be refused.
 */
class FlushTest : public HostileTest {
protected:
	bool offered(Side side)
	{
		ibv_device_attr_ex ex{};

		return ibv_query_device_ex(context(side)->get(), nullptr,
					   &ex) == 0 &&
		       (ex.device_cap_flags_ex & kDeviceFlushGlobal);
	}

	/* b's QP takes what kAllAccess allows and @extra. */
	static void grant(const Endpoint &b, int extra)
	{
		ibv_qp_attr a{};

		a.qp_access_flags = kAllAccess | extra;
		ASSERT_EQ(ibv_modify_qp(b.qp->get(), &a, IBV_QP_ACCESS_FLAGS), 0)
			<< "b's QP access flags";
	}

	static ibv_wc flush(RawQp &raw, uint64_t wr_id, uint64_t addr,
			    uint32_t len, uint32_t rkey, uint8_t type,
			    uint8_t level)
	{
		fill_flush(raw.send_slot(), wr_id, addr, len, rkey, type, level);
		raw.publish_send();
		EXPECT_EQ(raw.doorbell(), 0);
		return poll_one(*raw.send_cq(), "FLUSH");
	}
};

/*
 * A FLUSH after WRITEs completes, after them, as a FLUSH, with the data
 * in place: over a range, and at the MR level (no range).
 */
TEST_F(FlushTest, GlobalAfterWritesCompletes)
{
	constexpr uint32_t n = 3000;
	auto raw = make_raw_qp();
	Endpoint b = make_remote_endpoint(IBV_QPT_RC);

	if (!offered(Side::remote)) {
		std::vector<uint8_t> buf(4096);
		ibv_mr *mr = ibv_reg_mr(pd(Side::remote)->get(), buf.data(),
					buf.size(),
					kMrAccess | kAccessFlushGlobal);

		EXPECT_EQ(mr, nullptr) << "an MR registered for FLUSH on a "
				       << "device that does not offer it";
		if (mr)
			ibv_dereg_mr(mr);
		GTEST_SKIP() << dev(Side::remote).device
			     << " does not offer FLUSH (Linux before 6.2 "
				"registers no MR for it)";
	}
	connect_raw(*raw, b);
	grant(b, kAccessFlushGlobal);
	auto src = make_mr(n, IBV_ACCESS_LOCAL_WRITE);
	auto dst = make_remote_mr(kGuard + n + kGuard,
				  kMrAccess | kAccessFlushGlobal);

	fill_pattern(src->data(), n, 0x61);
	fill_pattern(dst->data(), dst->length(), kGuardSeed);
	fill_send(raw->send_slot(), 1, IBV_WR_RDMA_WRITE, *src, n,
		  dst->addr() + kGuard, dst->rkey());
	raw->publish_send();
	ibv_wc fwc = flush(*raw, 2, dst->addr() + kGuard, n, dst->rkey(),
			   kFlushGlobal, kFlushRange);
	ibv_wc wwc = fwc;

	if (fwc.wr_id == 1)	/* the WRITE's, first: the FLUSH's is next */
		fwc = poll_one(*raw->send_cq(), "FLUSH after the WRITE");
	EXPECT_TRUE(wc_ok(wwc, IBV_WC_RDMA_WRITE, 1)) << describe(wwc);
	EXPECT_EQ(fwc.status, IBV_WC_SUCCESS) << describe(fwc);
	EXPECT_EQ(static_cast<int>(fwc.opcode), kWcFlush) << describe(fwc);
	EXPECT_EQ(fwc.wr_id, 2u) << describe(fwc);
	EXPECT_TRUE(matches_pattern(dst->data() + kGuard, n, 0x61))
		<< "the WRITE's bytes";
	EXPECT_TRUE(matches_pattern(dst->data(), kGuard, kGuardSeed))
		<< "bytes before the target";
	EXPECT_TRUE(matches_pattern(dst->data() + kGuard + n, kGuard,
				    kGuardSeed, kGuard + n))
		<< "bytes after the target";

	/* Level MR: the whole MR, whatever the address and length say. */
	fwc = flush(*raw, 3, 0, 0, dst->rkey(), kFlushGlobal, kFlushMr);
	EXPECT_EQ(fwc.status, IBV_WC_SUCCESS) << describe(fwc);
	EXPECT_EQ(static_cast<int>(fwc.opcode), kWcFlush) << describe(fwc);
	EXPECT_EQ(raw->state(), IBV_QPS_RTS);
	EXPECT_FALSE(try_poll(*b.recv_cq, cfg().quiet))
		<< "a FLUSH consumed a receive";
	expect_device_works();
}

/*
 * A FLUSH the responder may not take fails with the IBTA status and takes
 * the requester's QP to ERR: a QP without the placement type's access
 * flag (invalid request), an MR without it, a range outside the MR, or a
 * placement type the MR cannot have (remote access error).
 */
TEST_F(FlushTest, RefusedWithoutTheRight)
{
	constexpr uint32_t n = 4096;
	const bool has = offered(Side::remote);
	auto plain = make_remote_mr(n);
	std::shared_ptr<Mr> granted =
		has ? make_remote_mr(n, kMrAccess | kAccessFlushGlobal) : plain;
	struct Case {
		const char *what;
		int qp_extra;
		const Mr *mr;
		uint64_t off;
		uint32_t len;
		uint8_t type;
		ibv_wc_status want;
		bool needs_offer;
	} cases[] = {
		{"QP lacks FLUSH_GLOBAL", 0, granted.get(), 0, n, kFlushGlobal,
		 IBV_WC_REM_INV_REQ_ERR, false},
		{"MR lacks FLUSH_GLOBAL", kAccessFlushGlobal, plain.get(), 0, n,
		 kFlushGlobal, IBV_WC_REM_ACCESS_ERR, false},
		{"range past the MR's end", kAccessFlushGlobal, granted.get(),
		 n / 2, n, kFlushGlobal, IBV_WC_REM_ACCESS_ERR, true},
		{"persistent, which no MR has",
		 kAccessFlushGlobal | kAccessFlushPersistent, granted.get(), 0, n,
		 kFlushPersistent, IBV_WC_REM_ACCESS_ERR, true},
	};

	fill_pattern(plain->data(), n, 0x62);
	for (const Case &c : cases) {
		SCOPED_TRACE(c.what);
		if (c.needs_offer && !has)
			continue;
		auto raw = make_raw_qp();
		Endpoint b = make_remote_endpoint(IBV_QPT_RC);

		connect_raw(*raw, b);
		grant(b, c.qp_extra);
		ibv_wc wc = flush(*raw, 7, c.mr->addr() + c.off, c.len,
				  c.mr->rkey(), c.type, kFlushRange);
		EXPECT_EQ(wc.status, c.want) << describe(wc);
		EXPECT_EQ(wc.wr_id, 7u) << describe(wc);
		EXPECT_EQ(raw->wait_state(IBV_QPS_ERR, cfg().timeout),
			  IBV_QPS_ERR);
	}
	EXPECT_TRUE(matches_pattern(plain->data(), n, 0x62))
		<< "a refused FLUSH changed the MR";
	expect_device_works();
}

} // namespace
} // namespace vrnic::test
