// SPDX-License-Identifier: GPL-2.0-only
/*
 * libvrnic: RAII owners for libibverbs objects (see vrnic/verbs.hpp).
 */
#include "vrnic/verbs.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace vrnic::verbs {

std::string errno_name(int err)
{
	const char *name = strerrorname_np(err);
	std::string s = name ? name : ("errno " + std::to_string(err));

	return s + " (" + std::strerror(err) + ")";
}

void throw_error(std::string_view call, int err, std::string_view detail,
		 std::string hint)
{
	std::string msg(call);

	msg += " failed: ";
	msg += errno_name(err);
	if (!detail.empty()) {
		msg += ": ";
		msg += detail;
	}
	throw VerbsError(msg, err, std::move(hint));
}

int verbs_errno(int rc)
{
	if (rc == 0)
		return 0;
	if (rc < 0)
		return errno ? errno : EIO;
	return rc;
}

namespace {

/* Errno after a verb that returned NULL; never report "success". */
int null_errno()
{
	return errno ? errno : EIO;
}

} // namespace

DeviceList::DeviceList()
{
	errno = 0;
	list_.reset(ibv_get_device_list(&count_));
	if (!list_)
		throw_error("ibv_get_device_list", null_errno(),
			    "is ib_uverbs loaded?", "modprobe ib_uverbs");
}

std::span<ibv_device *const> DeviceList::devices() const
{
	return {list_.get(), static_cast<size_t>(count_)};
}

ibv_device *DeviceList::find(std::string_view name) const
{
	for (ibv_device *dev : devices())
		if (name == ibv_get_device_name(dev))
			return dev;
	return nullptr;
}

std::vector<std::string> DeviceList::names() const
{
	std::vector<std::string> out;

	for (ibv_device *dev : devices())
		out.emplace_back(ibv_get_device_name(dev));
	return out;
}

Context::Context(const std::string &device_name)
{
	DeviceList list;
	ibv_device *dev = list.find(device_name);

	if (!dev)
		throw_error("ibv_open_device", ENODEV,
			    "no RDMA device named '" + device_name + "'",
			    "rdma link show lists the RDMA devices");
	errno = 0;
	owned_.reset(ibv_open_device(dev));
	if (!owned_)
		throw_error("ibv_open_device", null_errno(), device_name);
	ctx_ = owned_.get();
}

Context::Context(ibv_context *borrowed, std::shared_ptr<const void> anchor)
	: anchor_(std::move(anchor)), ctx_(borrowed)
{
	if (!ctx_)
		throw_error("Context(borrowed)", EINVAL, "null ibv_context");
}

std::string Context::device_name() const
{
	return ibv_get_device_name(ctx_->device);
}

ibv_device_attr Context::query_device() const
{
	ibv_device_attr attr{};
	int err = verbs_errno(ibv_query_device(ctx_, &attr));

	if (err)
		throw_error("ibv_query_device", err);
	return attr;
}

ibv_port_attr Context::query_port(uint8_t port) const
{
	ibv_port_attr attr{};
	int err = verbs_errno(ibv_query_port(ctx_, port, &attr));

	if (err)
		throw_error("ibv_query_port", err,
			    "port " + std::to_string(port));
	return attr;
}

ibv_gid Context::query_gid(uint8_t port, int index) const
{
	ibv_gid gid{};
	int err = verbs_errno(ibv_query_gid(ctx_, port, index, &gid));

	if (err)
		throw_error("ibv_query_gid", err,
			    "port " + std::to_string(port) + " index " +
				    std::to_string(index));
	return gid;
}

Pd::Pd(std::shared_ptr<Context> ctx) : ctx_(std::move(ctx))
{
	errno = 0;
	pd_.reset(ibv_alloc_pd(ctx_->get()));
	if (!pd_)
		throw_error("ibv_alloc_pd", null_errno());
}

CompChannel::CompChannel(std::shared_ptr<Context> ctx) : ctx_(std::move(ctx))
{
	errno = 0;
	ch_.reset(ibv_create_comp_channel(ctx_->get()));
	if (!ch_)
		throw_error("ibv_create_comp_channel", null_errno());
}

Cq::Cq(std::shared_ptr<Context> ctx, int cqe,
       std::shared_ptr<CompChannel> channel, void *cq_context)
	: ctx_(std::move(ctx)), channel_(std::move(channel))
{
	errno = 0;
	cq_.reset(ibv_create_cq(ctx_->get(), cqe, cq_context,
				channel_ ? channel_->get() : nullptr, 0));
	if (!cq_)
		throw_error("ibv_create_cq", null_errno(),
			    "cqe " + std::to_string(cqe));
}

Cq::Cq(std::shared_ptr<Context> ctx, ibv_cq_init_attr_ex attr,
       std::shared_ptr<CompChannel> channel)
	: ctx_(std::move(ctx)), channel_(std::move(channel))
{
	attr.channel = channel_ ? channel_->get() : nullptr;
	errno = 0;
	cqx_ = ibv_create_cq_ex(ctx_->get(), &attr);
	if (!cqx_) {
		char detail[64];

		std::snprintf(detail, sizeof(detail), "cqe %u wc_flags 0x%llx",
			      attr.cqe,
			      static_cast<unsigned long long>(attr.wc_flags));
		throw_error("ibv_create_cq_ex", null_errno(), detail);
	}
	cq_.reset(ibv_cq_ex_to_cq(cqx_));
}

ibv_cq_ex *Cq::ex() const
{
	if (!cqx_)
		throw_error("Cq::ex", EINVAL,
			    "the CQ was created with ibv_create_cq()");
	return cqx_;
}

void Cq::resize(int cqe)
{
	int err = verbs_errno(ibv_resize_cq(cq_.get(), cqe));

	if (err)
		throw_error("ibv_resize_cq", err, "cqe " + std::to_string(cqe));
}

void Buffer::Free::operator()(void *p) const noexcept
{
	std::free(p);
}

Buffer::Buffer(size_t size) : size_(size)
{
	constexpr size_t page = 4096;
	size_t alloc = (size + page - 1) / page * page;

	if (alloc == 0)
		alloc = page;
	mem_.reset(std::aligned_alloc(page, alloc));
	if (!mem_)
		throw_error("aligned_alloc", ENOMEM,
			    std::to_string(alloc) + " bytes");
	std::memset(mem_.get(), 0, alloc);
}

Mr::Mr(std::shared_ptr<Pd> pd, std::shared_ptr<Buffer> buf, int access)
	: Mr(std::move(pd), buf, 0, buf->size(), access)
{
}

Mr::Mr(std::shared_ptr<Pd> pd, std::shared_ptr<Buffer> buf, size_t offset,
       size_t length, int access)
	: pd_(std::move(pd)), buf_(std::move(buf)), start_(buf_->data()),
	  length_(length), access_(access)
{
	if (offset > buf_->size() || length_ > buf_->size() - offset)
		throw_error("ibv_reg_mr", EINVAL, "range outside the buffer");
	start_ += offset;
	reg();
}

Mr::Mr(std::shared_ptr<Pd> pd, void *addr, size_t length, int access)
	: pd_(std::move(pd)), start_(static_cast<uint8_t *>(addr)),
	  length_(length), access_(access)
{
	reg();
}

void Mr::reg()
{
	errno = 0;
	mr_.reset(ibv_reg_mr(pd_->get(), start_, length_, access_));
	if (!mr_) {
		int err = null_errno();
		char detail[64];

		std::snprintf(detail, sizeof(detail),
			      "length %zu access 0x%x", length_,
			      static_cast<unsigned>(access_));
		throw_error("ibv_reg_mr", err, detail,
			    err == ENOMEM ? "the locked-memory limit may be too "
					    "low: see ulimit -l" : "");
	}
}

Srq::Srq(std::shared_ptr<Pd> pd, uint32_t max_wr, uint32_t max_sge,
	 uint32_t limit)
	: pd_(std::move(pd))
{
	ibv_srq_init_attr init{};

	init.attr.max_wr = max_wr;
	init.attr.max_sge = max_sge;
	init.attr.srq_limit = limit;
	errno = 0;
	srq_.reset(ibv_create_srq(pd_->get(), &init));
	if (!srq_)
		throw_error("ibv_create_srq", null_errno(),
			    "max_wr " + std::to_string(max_wr));
}

ibv_srq_attr Srq::query() const
{
	ibv_srq_attr attr{};
	int err = verbs_errno(ibv_query_srq(srq_.get(), &attr));

	if (err)
		throw_error("ibv_query_srq", err);
	return attr;
}

void Srq::modify(ibv_srq_attr &attr, int mask) const
{
	int err = verbs_errno(ibv_modify_srq(srq_.get(), &attr, mask));

	if (err)
		throw_error("ibv_modify_srq", err);
}

ibv_qp_init_attr qp_init_attr(ibv_qp_type type, const Cq &send_cq,
			      const Cq &recv_cq, const QpCaps &caps,
			      const Srq *srq, bool sq_sig_all)
{
	ibv_qp_init_attr init{};

	init.send_cq = send_cq.get();
	init.recv_cq = recv_cq.get();
	init.srq = srq ? srq->get() : nullptr;
	init.cap.max_send_wr = caps.max_send_wr;
	init.cap.max_recv_wr = srq ? 0 : caps.max_recv_wr;
	init.cap.max_send_sge = caps.max_send_sge;
	init.cap.max_recv_sge = srq ? 0 : caps.max_recv_sge;
	init.cap.max_inline_data = caps.max_inline_data;
	init.qp_type = type;
	init.sq_sig_all = sq_sig_all ? 1 : 0;
	return init;
}

namespace {

/* ibv_create_qp_ex() with the extended API's send_ops_flags. */
ibv_qp *create_qp_ex(ibv_pd *pd, const ibv_qp_init_attr &base,
		     uint64_t send_ops_flags)
{
	ibv_qp_init_attr_ex init{};

	init.send_cq = base.send_cq;
	init.recv_cq = base.recv_cq;
	init.srq = base.srq;
	init.cap = base.cap;
	init.qp_type = base.qp_type;
	init.sq_sig_all = base.sq_sig_all;
	init.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	init.pd = pd;
	init.send_ops_flags = send_ops_flags;
	errno = 0;
	ibv_qp *qp = ibv_create_qp_ex(pd->context, &init);
	if (!qp) {
		int err = null_errno();
		char detail[64];

		std::snprintf(detail, sizeof(detail),
			      "type %d send_ops_flags 0x%llx", base.qp_type,
			      static_cast<unsigned long long>(send_ops_flags));
		throw_error("ibv_create_qp_ex", err, detail);
	}
	return qp;
}

} // namespace

Qp::Qp(std::shared_ptr<Pd> pd, ibv_qp_type type, std::shared_ptr<Cq> send_cq,
       std::shared_ptr<Cq> recv_cq, const QpCaps &caps,
       std::shared_ptr<Srq> srq, bool sq_sig_all)
	: pd_(std::move(pd)), send_cq_(std::move(send_cq)),
	  recv_cq_(std::move(recv_cq)), srq_(std::move(srq)), caps_(caps),
	  qp_(nullptr, Deleter<ibv_destroy_qp>())
{
	ibv_qp_init_attr init = qp_init_attr(type, *send_cq_, *recv_cq_, caps,
					     srq_.get(), sq_sig_all);

	if (caps.send_ops_flags) {
		qp_.reset(create_qp_ex(pd_->get(), init, caps.send_ops_flags));
		return;
	}
	errno = 0;
	qp_.reset(ibv_create_qp(pd_->get(), &init));
	if (!qp_)
		throw_error("ibv_create_qp", null_errno(),
			    "type " + std::to_string(type));
}

Qp::Qp(std::shared_ptr<Pd> pd, Owner<ibv_qp> qp, std::shared_ptr<Cq> send_cq,
       std::shared_ptr<Cq> recv_cq, const QpCaps &caps)
	: pd_(std::move(pd)), send_cq_(std::move(send_cq)),
	  recv_cq_(std::move(recv_cq)), caps_(caps), qp_(std::move(qp))
{
	if (!qp_)
		throw_error("Qp(adopt)", EINVAL, "null ibv_qp");
}

ibv_qp_ex *Qp::ex() const
{
	ibv_qp_ex *qpx = caps_.send_ops_flags ? ibv_qp_to_qp_ex(qp_.get()) : nullptr;

	if (!qpx) {
		char detail[80];

		std::snprintf(detail, sizeof(detail),
			      "qp 0x%x was created without send_ops_flags",
			      qp_->qp_num);
		throw_error("ibv_qp_to_qp_ex", EINVAL, detail);
	}
	return qpx;
}

void Qp::modify(ibv_qp_attr &attr, int mask) const
{
	int err = verbs_errno(ibv_modify_qp(qp_.get(), &attr, mask));

	if (err) {
		char detail[96];

		std::snprintf(detail, sizeof(detail),
			      "qp 0x%x mask 0x%x%s%s", qp_->qp_num,
			      static_cast<unsigned>(mask),
			      (mask & IBV_QP_STATE) ? " to " : "",
			      (mask & IBV_QP_STATE) ?
				      qp_state_str(attr.qp_state) : "");
		throw_error("ibv_modify_qp", err, detail);
	}
}

ibv_qp_attr Qp::query(int mask, ibv_qp_init_attr *init) const
{
	ibv_qp_attr attr{};
	ibv_qp_init_attr scratch{};
	int err = verbs_errno(
		ibv_query_qp(qp_.get(), &attr, mask, init ? init : &scratch));

	if (err)
		throw_error("ibv_query_qp", err);
	return attr;
}

ibv_qp_state Qp::state() const
{
	return query(IBV_QP_STATE).qp_state;
}

Ah::Ah(std::shared_ptr<Pd> pd, const ibv_ah_attr &attr) : pd_(std::move(pd))
{
	ibv_ah_attr copy = attr;

	errno = 0;
	ah_.reset(ibv_create_ah(pd_->get(), &copy));
	if (!ah_)
		throw_error("ibv_create_ah", null_errno());
}

namespace {

/* Post @wr (or a chain) through @post; throws with errno and the failing wr_id. */
template <typename Wr, typename Post>
void post_wr(std::string_view call, Wr &wr, Post post)
{
	Wr *bad = nullptr;
	int err = verbs_errno(post(&wr, &bad));

	if (err)
		throw_error(call, err,
			    "bad wr_id " +
				    std::to_string(bad ? bad->wr_id : wr.wr_id));
}

} // namespace

void post_send(ibv_qp *qp, ibv_send_wr &wr)
{
	post_wr("ibv_post_send", wr, [qp](ibv_send_wr *w, ibv_send_wr **bad) {
		return ibv_post_send(qp, w, bad);
	});
}

void post_recv(ibv_qp *qp, ibv_recv_wr &wr)
{
	post_wr("ibv_post_recv", wr, [qp](ibv_recv_wr *w, ibv_recv_wr **bad) {
		return ibv_post_recv(qp, w, bad);
	});
}

void post_srq_recv(const Srq &srq, ibv_recv_wr &wr)
{
	post_wr("ibv_post_srq_recv", wr, [&srq](ibv_recv_wr *w, ibv_recv_wr **bad) {
		return ibv_post_srq_recv(srq.get(), w, bad);
	});
}

ibv_sge sge(const Mr &mr, size_t offset, uint32_t length)
{
	ibv_sge s{};

	s.addr = mr.addr() + offset;
	s.length = length;
	s.lkey = mr.lkey();
	return s;
}

const char *qp_state_str(ibv_qp_state state)
{
	switch (state) {
	case IBV_QPS_RESET: return "RESET";
	case IBV_QPS_INIT: return "INIT";
	case IBV_QPS_RTR: return "RTR";
	case IBV_QPS_RTS: return "RTS";
	case IBV_QPS_SQD: return "SQD";
	case IBV_QPS_SQE: return "SQE";
	case IBV_QPS_ERR: return "ERR";
	case IBV_QPS_UNKNOWN: return "UNKNOWN";
	}
	return "?";
}

const char *wc_opcode_str(ibv_wc_opcode opcode)
{
	switch (opcode) {
	case IBV_WC_SEND: return "SEND";
	case IBV_WC_RDMA_WRITE: return "RDMA_WRITE";
	case IBV_WC_RDMA_READ: return "RDMA_READ";
	case IBV_WC_COMP_SWAP: return "COMP_SWAP";
	case IBV_WC_FETCH_ADD: return "FETCH_ADD";
	case IBV_WC_BIND_MW: return "BIND_MW";
	case IBV_WC_LOCAL_INV: return "LOCAL_INV";
	case IBV_WC_TSO: return "TSO";
	case IBV_WC_ATOMIC_WRITE: return "ATOMIC_WRITE";
	case IBV_WC_RECV: return "RECV";
	case IBV_WC_RECV_RDMA_WITH_IMM: return "RECV_RDMA_WITH_IMM";
	default: break;
	}
	return "?";
}

} // namespace vrnic::verbs
