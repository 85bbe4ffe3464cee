// SPDX-License-Identifier: GPL-2.0-only
/*
 * libvrnic: RAII owners for the libibverbs objects the tools and tests use.
 *
 * One non-copyable class per verbs object, its handle in a std::unique_ptr
 * whose deleter is the object's destroy verb.  Each holds a shared_ptr to its
 * parent(s), so a parent always outlives its children and teardown follows
 * ownership (QP before its CQs/SRQ/PD, MR before its PD, PD before its
 * context).  Constructors throw VerbsError naming the failed call and errno;
 * destructors never throw and stay quiet.
 *
 * Objects are created with std::make_shared and passed around as
 * shared_ptr<T>; get() hands out the raw verbs handle for direct verbs calls
 * (the conformance suite calls verbs directly when the verb itself is what
 * it tests).
 */
#pragma once

#include <infiniband/verbs.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "vrnic/error.hpp"

namespace vrnic::verbs {

/*
 * A verb that failed.  what() is "<call> failed: <errno_name>[: detail]",
 * err() the errno, hint() what to do about it (may be empty).
 */
class VerbsError : public Error {
public:
	VerbsError(const std::string &what, int err, std::string hint = {})
		: Error(what, std::move(hint)), err_(err) {}
	int err() const noexcept { return err_; }

private:
	int err_;
};

/* "EBUSY (Device or resource busy)" */
std::string errno_name(int err);

/* Throws VerbsError("<call> failed: <errno_name(err)>[: detail]", err). */
[[noreturn]] void throw_error(std::string_view call, int err,
			      std::string_view detail = {},
			      std::string hint = {});

/*
 * libibverbs returns either a positive errno or -1 with errno set, depending
 * on the verb and provider; fold both into a positive errno (0 = success).
 */
int verbs_errno(int rc);

class NonCopyable {
public:
	NonCopyable(const NonCopyable &) = delete;
	NonCopyable &operator=(const NonCopyable &) = delete;

protected:
	NonCopyable() = default;
	~NonCopyable() = default;
};

/* A std::unique_ptr deleter calling destroy verb @Destroy. */
template <auto Destroy> struct Deleter {
	template <typename T> void operator()(T *p) const noexcept
	{
		(void)Destroy(p);
	}
};

/*
 * An object made outside this layer (rdma_create_qp(), a raw uverbs
 * command...) and the function that destroys it.
 */
template <typename T> using Owner = std::unique_ptr<T, std::function<void(T *)>>;

/* ibv_get_device_list() / ibv_free_device_list(). */
class DeviceList : NonCopyable {
public:
	DeviceList();

	std::span<ibv_device *const> devices() const;
	ibv_device *find(std::string_view name) const;
	std::vector<std::string> names() const;

private:
	std::unique_ptr<ibv_device *, Deleter<ibv_free_device_list>> list_;
	int count_ = 0;
};

/*
 * ibv_open_device() / ibv_close_device(), or a borrowed context (for example
 * rdma_cm_id::verbs, which librdmacm owns) that is never closed here; the
 * anchor keeps the borrowed context's owner alive as long as this object.
 */
class Context : NonCopyable {
public:
	explicit Context(const std::string &device_name);
	Context(ibv_context *borrowed, std::shared_ptr<const void> anchor);

	ibv_context *get() const { return ctx_; }
	std::string device_name() const;
	ibv_device_attr query_device() const;
	ibv_port_attr query_port(uint8_t port) const;
	ibv_gid query_gid(uint8_t port, int index) const;

private:
	std::shared_ptr<const void> anchor_;
	std::unique_ptr<ibv_context, Deleter<ibv_close_device>> owned_;
	ibv_context *ctx_ = nullptr;	/* owned_ or the borrowed context */
};

class Pd : NonCopyable {
public:
	explicit Pd(std::shared_ptr<Context> ctx);

	ibv_pd *get() const { return pd_.get(); }
	const std::shared_ptr<Context> &context() const { return ctx_; }

private:
	std::shared_ptr<Context> ctx_;
	std::unique_ptr<ibv_pd, Deleter<ibv_dealloc_pd>> pd_;
};

class CompChannel : NonCopyable {
public:
	explicit CompChannel(std::shared_ptr<Context> ctx);

	ibv_comp_channel *get() const { return ch_.get(); }
	int fd() const { return ch_->fd; }

private:
	std::shared_ptr<Context> ctx_;
	std::unique_ptr<ibv_comp_channel, Deleter<ibv_destroy_comp_channel>> ch_;
};

class Cq : NonCopyable {
public:
	Cq(std::shared_ptr<Context> ctx, int cqe,
	   std::shared_ptr<CompChannel> channel = {},
	   void *cq_context = nullptr);
	/*
	 * ibv_create_cq_ex() with @attr (cqe, wc_flags, ...), its channel
	 * @channel's, which the CQ keeps; ex() is its extended view.
	 */
	Cq(std::shared_ptr<Context> ctx, ibv_cq_init_attr_ex attr,
	   std::shared_ptr<CompChannel> channel = {});

	ibv_cq *get() const { return cq_.get(); }
	/*
	 * The extended view of a CQ made with ibv_create_cq_ex() (for
	 * ibv_start_poll() ...); throws for one made with ibv_create_cq().
	 */
	ibv_cq_ex *ex() const;
	int cqe() const { return cq_->cqe; }
	/* ibv_resize_cq(); throws on failure. */
	void resize(int cqe);

private:
	std::shared_ptr<Context> ctx_;
	std::shared_ptr<CompChannel> channel_;
	std::unique_ptr<ibv_cq, Deleter<ibv_destroy_cq>> cq_;
	ibv_cq_ex *cqx_ = nullptr;	/* cq_'s extended view, if any */
};

/* Page-aligned, zeroed host memory for MRs. */
class Buffer : NonCopyable {
public:
	explicit Buffer(size_t size);

	uint8_t *data() const { return static_cast<uint8_t *>(mem_.get()); }
	size_t size() const { return size_; }
	uint64_t addr() const { return reinterpret_cast<uintptr_t>(mem_.get()); }

private:
	struct Free {
		void operator()(void *p) const noexcept;
	};
	std::unique_ptr<void, Free> mem_;
	size_t size_;
};

/*
 * ibv_reg_mr() over [offset, offset + length) of a Buffer, which it keeps,
 * or over memory the caller owns and keeps mapped while the MR lives.
 */
class Mr : NonCopyable {
public:
	Mr(std::shared_ptr<Pd> pd, std::shared_ptr<Buffer> buf, int access);
	Mr(std::shared_ptr<Pd> pd, std::shared_ptr<Buffer> buf, size_t offset,
	   size_t length, int access);
	Mr(std::shared_ptr<Pd> pd, void *addr, size_t length, int access);

	ibv_mr *get() const { return mr_.get(); }
	uint32_t lkey() const { return mr_->lkey; }
	uint32_t rkey() const { return mr_->rkey; }
	/* Start of the registered range. */
	uint8_t *data() const { return start_; }
	uint64_t addr() const { return reinterpret_cast<uintptr_t>(start_); }
	size_t length() const { return length_; }
	int access() const { return access_; }
	/* The Buffer the MR keeps; empty for caller-owned memory. */
	const std::shared_ptr<Buffer> &buffer() const { return buf_; }

private:
	void reg();

	std::shared_ptr<Pd> pd_;
	std::shared_ptr<Buffer> buf_;
	uint8_t *start_;
	size_t length_;
	int access_;
	std::unique_ptr<ibv_mr, Deleter<ibv_dereg_mr>> mr_;
};

class Srq : NonCopyable {
public:
	Srq(std::shared_ptr<Pd> pd, uint32_t max_wr, uint32_t max_sge,
	    uint32_t limit = 0);

	ibv_srq *get() const { return srq_.get(); }
	ibv_srq_attr query() const;
	/* ibv_modify_srq(); throws on failure. */
	void modify(ibv_srq_attr &attr, int mask) const;

private:
	std::shared_ptr<Pd> pd_;
	std::unique_ptr<ibv_srq, Deleter<ibv_destroy_srq>> srq_;
};

struct QpCaps {
	uint32_t max_send_wr = 64;
	uint32_t max_recv_wr = 64;
	uint32_t max_send_sge = 4;
	uint32_t max_recv_sge = 4;
	uint32_t max_inline_data = 0;
	/*
	 * IBV_QP_EX_WITH_* flags: non-zero creates the QP with
	 * ibv_create_qp_ex() so work requests can be posted through the
	 * extended API (ibv_wr_start ... ibv_wr_complete, see Qp::ex()).
	 */
	uint64_t send_ops_flags = 0;
};

/*
 * The ibv_qp_init_attr of a QP of @type on these CQs (and SRQ, which
 * replaces the receive queue) with @caps, for the verbs that create QPs.
 */
ibv_qp_init_attr qp_init_attr(ibv_qp_type type, const Cq &send_cq,
			      const Cq &recv_cq, const QpCaps &caps,
			      const Srq *srq = nullptr, bool sq_sig_all = false);

class Qp : NonCopyable {
public:
	Qp(std::shared_ptr<Pd> pd, ibv_qp_type type,
	   std::shared_ptr<Cq> send_cq, std::shared_ptr<Cq> recv_cq,
	   const QpCaps &caps, std::shared_ptr<Srq> srq = {},
	   bool sq_sig_all = false);
	/*
	 * A QP made elsewhere (rdma_create_qp() ...) on these PD and CQs with
	 * @caps, destroyed by its owner's deleter.
	 */
	Qp(std::shared_ptr<Pd> pd, Owner<ibv_qp> qp,
	   std::shared_ptr<Cq> send_cq, std::shared_ptr<Cq> recv_cq,
	   const QpCaps &caps);

	ibv_qp *get() const { return qp_.get(); }
	/*
	 * The extended-API view of a QP created with send_ops_flags; throws
	 * for a QP created without them.
	 */
	ibv_qp_ex *ex() const;
	uint32_t num() const { return qp_->qp_num; }
	ibv_qp_type type() const { return qp_->qp_type; }
	const QpCaps &requested_caps() const { return caps_; }
	const std::shared_ptr<Pd> &pd() const { return pd_; }
	const std::shared_ptr<Cq> &send_cq() const { return send_cq_; }
	const std::shared_ptr<Cq> &recv_cq() const { return recv_cq_; }
	const std::shared_ptr<Srq> &srq() const { return srq_; }

	/* ibv_modify_qp(); throws naming the target state and mask. */
	void modify(ibv_qp_attr &attr, int mask) const;
	/* ibv_query_qp(); throws on failure. */
	ibv_qp_attr query(int mask, ibv_qp_init_attr *init = nullptr) const;
	ibv_qp_state state() const;

private:
	std::shared_ptr<Pd> pd_;
	std::shared_ptr<Cq> send_cq_;
	std::shared_ptr<Cq> recv_cq_;
	std::shared_ptr<Srq> srq_;
	QpCaps caps_;
	Owner<ibv_qp> qp_;
};

class Ah : NonCopyable {
public:
	Ah(std::shared_ptr<Pd> pd, const ibv_ah_attr &attr);

	ibv_ah *get() const { return ah_.get(); }

private:
	std::shared_ptr<Pd> pd_;
	std::unique_ptr<ibv_ah, Deleter<ibv_destroy_ah>> ah_;
};

/* Post one WR (or a chain); throws with errno and the failing wr_id. */
void post_send(ibv_qp *qp, ibv_send_wr &wr);
void post_recv(ibv_qp *qp, ibv_recv_wr &wr);
inline void post_send(const Qp &qp, ibv_send_wr &wr) { post_send(qp.get(), wr); }
inline void post_recv(const Qp &qp, ibv_recv_wr &wr) { post_recv(qp.get(), wr); }
void post_srq_recv(const Srq &srq, ibv_recv_wr &wr);

/* An SGE over [offset, offset + length) of an MR. */
ibv_sge sge(const Mr &mr, size_t offset, uint32_t length);

const char *qp_state_str(ibv_qp_state state);
const char *wc_opcode_str(ibv_wc_opcode opcode);

} // namespace vrnic::verbs
