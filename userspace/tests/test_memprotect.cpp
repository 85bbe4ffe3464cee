// SPDX-License-Identifier: GPL-2.0-only
/*
 * Memory protection at the responder: every remote access that its rkey
 * does not allow is refused before it touches memory (IBA 9.7.5.1, 10.6.3;
 * C9-88 for zero-length requests).
 *
 * Each case of MemProtectTest sends one bad RDMA WRITE, RDMA READ,
 * compare-and-swap, fetch-and-add or ATOMIC WRITE with two valid ones of
 * the same kind behind it, and checks that:
 *  - the bad one completes with IBV_WC_REM_ACCESS_ERR (a class C responder
 *    error, IBA 9.9.3.1.2), and the two behind it are flushed;
 *  - the requester QP and the responder QP are both in ERR (ibv_query_qp);
 *  - the responder's memory is byte-for-byte unchanged: the MR covers a
 *    window in the middle of a three-page allocation that starts and ends
 *    off any page or 8-byte boundary, and the whole allocation (window,
 *    the bytes of the same pages outside it, the pages around) holds guard
 *    pattern before and after; so do the other buffers a case aims at
 *    (another PD's MR, a deregistered MR's memory);
 *  - for READ and the atomics, the requester's local buffer is unchanged.
 * ZeroLengthTest checks that zero-length READs and WRITEs succeed wherever
 * they point, because their R_Key and address are not validated (C9-88).
 */

#include "fixture.hpp"

#include <cstring>

namespace vrnic::test {
namespace {

using verbs::Buffer;
using verbs::Mr;

/* What a request does. */
enum class Op { write, read, cmp_swap, fetch_add, atomic_write };

/* Why the responder must refuse it. */
enum class Fault {
	before_start,	/* starts before the MR, ends inside it */
	straddles_end,	/* starts inside the MR, ends past it */
	past_end,	/* starts at or after the end of the MR */
	other_pd,	/* rkey of an MR in another PD than the responder QP's */
	mr_lacks_right,	/* MR registered without the needed remote right */
	qp_lacks_right,	/* responder QP's access flags lack the right */
	deregistered,	/* rkey of an MR deregistered before the request */
	wrong_key_byte,	/* the MR's index, a different key byte */
};

struct Case {
	Op op;
	Fault fault;
};

const char *op_name(Op op);
const char *fault_name(Fault f);

void PrintTo(const Case &c, std::ostream *os)
{
	*os << op_name(c.op) << "/" << fault_name(c.fault);
}

const char *op_name(Op op)
{
	switch (op) {
	case Op::write: return "Write";
	case Op::read: return "Read";
	case Op::cmp_swap: return "CmpSwap";
	case Op::fetch_add: return "FetchAdd";
	case Op::atomic_write: return "AtomicWrite";
	}
	return "?";
}

const char *fault_name(Fault f)
{
	switch (f) {
	case Fault::before_start: return "BeforeStart";
	case Fault::straddles_end: return "StraddlesEnd";
	case Fault::past_end: return "PastEnd";
	case Fault::other_pd: return "OtherPd";
	case Fault::mr_lacks_right: return "MrLacksRight";
	case Fault::qp_lacks_right: return "QpLacksRight";
	case Fault::deregistered: return "Deregistered";
	case Fault::wrong_key_byte: return "WrongKeyByte";
	}
	return "?";
}

bool is_atomic(Op op)
{
	return op == Op::cmp_swap || op == Op::fetch_add ||
	       op == Op::atomic_write;
}

/* The remote right an operation needs (ATOMIC WRITE is a write). */
int right_of(Op op)
{
	switch (op) {
	case Op::read: return IBV_ACCESS_REMOTE_READ;
	case Op::cmp_swap:
	case Op::fetch_add: return IBV_ACCESS_REMOTE_ATOMIC;
	case Op::write:
	case Op::atomic_write: return IBV_ACCESS_REMOTE_WRITE;
	}
	return 0;
}

constexpr int kRemoteAll = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			   IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;

/*
 * The responder's allocation: three pages; the MR window starts 64 bytes
 * into the middle page and ends 4 bytes off an 8-byte boundary, so that
 * an aligned atomic can straddle its end and bytes of the MR's own pages
 * lie outside it.
 */
constexpr size_t kAlloc = 3 * 4096;
constexpr size_t kWinOff = 4096 + 64;
constexpr size_t kWinLen = 4096 - 128 - 4;
constexpr size_t kWinEnd = kWinOff + kWinLen;
static_assert(kWinEnd % 8 == 4, "the window must end off an 8-byte boundary");
/* Bytes one READ or WRITE moves. */
constexpr uint32_t kLen = 128;
/* Seeds: the requester's payload and the valid WRs behind the bad one. */
constexpr uint32_t kPayloadSeed = 0x5eed0001;
constexpr uint64_t kCompare = 0x0123456789abcdefull;
constexpr uint64_t kSwapAdd = 0x1111111111111111ull;

/* Responder memory: an allocation full of guard pattern. */
struct Target {
	std::shared_ptr<Buffer> buf;

	Target() : buf(std::make_shared<Buffer>(kAlloc))
	{
		fill_pattern(buf->data(), buf->size(), kGuardSeed);
	}

	::testing::AssertionResult unchanged() const
	{
		return matches_pattern(buf->data(), buf->size(), kGuardSeed);
	}
};

/* Requester memory: guard pattern around [kGuard, kGuard + len). */
struct Local {
	std::shared_ptr<Mr> mr;
	uint32_t len;

	ibv_sge sge() const { return verbs::sge(*mr, kGuard, len); }
	::testing::AssertionResult unchanged(uint32_t seed) const
	{
		return matches_pattern(mr->data(), mr->length(), seed);
	}
};

class MemProtectBase : public VerbsTest {
protected:
	/*
	 * Skip ops the two devices cannot do (see AtomicTest and
	 * AtomicWriteTest in test_rdma.cpp).
	 */
	void skip_unsupported(Op op)
	{
		if ((op == Op::cmp_swap || op == Op::fetch_add) &&
		    dev_attr_.atomic_cap == IBV_ATOMIC_NONE)
			VRNIC_SKIP_OR_FAIL(cfg(), cfg().device
				<< " reports atomic_cap IBV_ATOMIC_NONE");
		if ((op == Op::cmp_swap || op == Op::fetch_add) &&
		    peer_dev_attr_.atomic_cap == IBV_ATOMIC_NONE)
			VRNIC_SKIP_OR_FAIL(cfg().remote(), cfg().remote().device
				<< " reports atomic_cap IBV_ATOMIC_NONE");
		if (op == Op::atomic_write && has_peer()) {
			for (const std::string &name :
			     {cfg().device, cfg().peer->device})
				if (name.starts_with("rxe"))
					GTEST_SKIP() << name << " is rxe: no "
						"ATOMIC_WRITE before Linux 6.2";
		}
	}

	/*
	 * a on the device under test, b on the remote side, connected like
	 * VerbsTest::connect() but with b's QP access flags b_access.
	 */
	void connect_with(const Endpoint &a, const Endpoint &b, int b_access)
	{
		modify_to_init(*a.qp, kAllAccess, Side::local);
		modify_to_init(*b.qp, b_access, Side::remote);
		modify_to_rtr(*a.qp, b.qp->num(), kPsnB,
			      ah_attr(Side::local, Side::remote));
		modify_to_rtr(*b.qp, a.qp->num(), kPsnA,
			      ah_attr(Side::remote, Side::local));
		modify_to_rts(*a.qp, kPsnA);
		modify_to_rts(*b.qp, kPsnB);
	}

	Endpoint requester(Op op)
	{
		verbs::QpCaps caps;

		if (op == Op::atomic_write)
			caps.send_ops_flags = IBV_QP_EX_WITH_ATOMIC_WRITE;
		return make_endpoint(IBV_QPT_RC, caps);
	}

	Local local(uint32_t len, uint32_t seed)
	{
		Local l{make_mr(kGuard + len + kGuard, IBV_ACCESS_LOCAL_WRITE),
			len};

		fill_pattern(l.mr->data(), l.mr->length(), seed);
		return l;
	}

	/*
	 * Post n WRs of op, all signaled, wr_id 1..n: the first at
	 * (addr[0], rkey[0]), the others at (addr[i], rkey[i]).
	 */
	void post(const Endpoint &a, Op op, const std::vector<uint64_t> &addr,
		  const std::vector<uint32_t> &rkey, const Local *loc)
	{
		const size_t n = addr.size();

		if (op == Op::atomic_write) {
			uint8_t value[8];
			ibv_qp_ex *qpx = a.qp->ex();

			fill_pattern(value, 8, kPayloadSeed);
			ibv_wr_start(qpx);
			for (size_t i = 0; i < n; i++) {
				qpx->wr_id = i + 1;
				qpx->wr_flags = IBV_SEND_SIGNALED;
				ibv_wr_atomic_write(qpx, rkey[i], addr[i], value);
			}
			int err = verbs::verbs_errno(ibv_wr_complete(qpx));

			if (err)
				verbs::throw_error("ibv_wr_complete", err,
						   "ATOMIC_WRITE batch");
			return;
		}

		std::vector<ibv_sge> sges(n);
		std::vector<ibv_send_wr> wrs(n);

		for (size_t i = 0; i < n; i++) {
			ibv_send_wr &wr = wrs[i];

			sges[i] = loc->sge();
			wr = {};
			wr.wr_id = i + 1;
			wr.sg_list = &sges[i];
			wr.num_sge = 1;
			wr.send_flags = IBV_SEND_SIGNALED;
			wr.next = i + 1 < n ? &wrs[i + 1] : nullptr;
			switch (op) {
			case Op::write:
			case Op::read:
				wr.opcode = op == Op::write ? IBV_WR_RDMA_WRITE :
							      IBV_WR_RDMA_READ;
				wr.wr.rdma.remote_addr = addr[i];
				wr.wr.rdma.rkey = rkey[i];
				break;
			case Op::cmp_swap:
			case Op::fetch_add:
				wr.opcode = op == Op::cmp_swap ?
					IBV_WR_ATOMIC_CMP_AND_SWP :
					IBV_WR_ATOMIC_FETCH_AND_ADD;
				wr.wr.atomic.remote_addr = addr[i];
				wr.wr.atomic.rkey = rkey[i];
				wr.wr.atomic.compare_add =
					op == Op::cmp_swap ? kCompare : kSwapAdd;
				wr.wr.atomic.swap = kSwapAdd;
				break;
			case Op::atomic_write:
				break;
			}
		}
		verbs::post_send(*a.qp, wrs[0]);
	}

	void expect_state(const verbs::Qp &qp, ibv_qp_state want,
			  const char *who)
	{
		ibv_qp_state s = want == IBV_QPS_ERR ?
			wait_qp_state(qp, want, cfg().timeout) : qp.state();

		EXPECT_EQ(s, want) << who << " QP is " << verbs::qp_state_str(s)
				   << ", expected " << verbs::qp_state_str(want);
	}
};

class MemProtectTest : public MemProtectBase,
		       public ::testing::WithParamInterface<Case> {};

TEST_P(MemProtectTest, RefusedWithoutTouchingMemory)
{
	const Op op = GetParam().op;
	const Fault fault = GetParam().fault;
	const uint32_t len = is_atomic(op) ? 8 : kLen;

	skip_unsupported(op);
	if (IsSkipped())
		return;

	/* The responder: its QP's rights, and its MR over the window. */
	int qp_access = kAllAccess;
	int mr_access = kRemoteAll;

	if (fault == Fault::qp_lacks_right)
		qp_access &= ~right_of(op);
	if (fault == Fault::mr_lacks_right)
		mr_access &= ~right_of(op);

	Endpoint a = requester(op);
	Endpoint b = make_remote_endpoint(IBV_QPT_RC);
	connect_with(a, b, qp_access);

	Target target;
	auto win = std::make_shared<Mr>(pd(Side::remote), target.buf, kWinOff,
					kWinLen, mr_access);

	/* Where the bad request points, and through which rkey. */
	uint64_t bad_addr = win->addr() + 64;
	uint32_t bad_rkey = win->rkey();
	std::optional<Target> other;		/* other_pd, deregistered */
	std::shared_ptr<verbs::Pd> other_pd;
	std::shared_ptr<Mr> other_mr;

	switch (fault) {
	case Fault::before_start:
		bad_addr = win->addr() - (is_atomic(op) ? 8 : 64);
		break;
	case Fault::straddles_end:
		bad_addr = win->addr() + kWinLen - (is_atomic(op) ? 4 : 64);
		break;
	case Fault::past_end:
		bad_addr = win->addr() + kWinLen + (is_atomic(op) ? 4 : 0);
		break;
	case Fault::other_pd:
		other.emplace();
		other_pd = std::make_shared<verbs::Pd>(context(Side::remote));
		other_mr = std::make_shared<Mr>(other_pd, other->buf, kWinOff,
						kWinLen, kRemoteAll);
		bad_addr = other_mr->addr() + 64;
		bad_rkey = other_mr->rkey();
		break;
	case Fault::deregistered:
		other.emplace();
		other_mr = std::make_shared<Mr>(pd(Side::remote), other->buf,
						kWinOff, kWinLen, kRemoteAll);
		bad_addr = other_mr->addr() + 64;
		bad_rkey = other_mr->rkey();
		other_mr.reset();	/* ibv_dereg_mr(); the memory stays */
		break;
	case Fault::wrong_key_byte:
		/* The key byte is the low 8 bits of an rxe-ABI key. */
		bad_rkey = (bad_rkey & ~0xffu) | ((bad_rkey + 0x5b) & 0xffu);
		break;
	case Fault::mr_lacks_right:
	case Fault::qp_lacks_right:
		break;
	}
	ASSERT_EQ(bad_addr % (is_atomic(op) ? 8 : 1), 0u)
		<< "test bug: a misaligned atomic is a different error";

	/* The requester's side: the payload, or where responses would land. */
	const uint32_t local_seed = op == Op::write ? kPayloadSeed :
						      kGuardSeed + 7;
	Local loc = local(len, local_seed);

	/* One bad request, then two valid ones into the window. */
	const uint64_t good_addr = win->addr() + 256;
	post(a, op, {bad_addr, good_addr, good_addr},
	     {bad_rkey, win->rkey(), win->rkey()}, &loc);

	auto wcs = poll_n(*a.send_cq, 3, "a refused request and two behind it");
	EXPECT_TRUE(wc_status(wcs[0], IBV_WC_REM_ACCESS_ERR, 1));
	EXPECT_EQ(wcs[0].qp_num, a.qp->num());
	/* The QP is in error: what follows is flushed, in order. */
	EXPECT_TRUE(wc_status(wcs[1], IBV_WC_WR_FLUSH_ERR, 2));
	EXPECT_TRUE(wc_status(wcs[2], IBV_WC_WR_FLUSH_ERR, 3));
	auto extra = try_poll(*a.send_cq, 0ms);
	EXPECT_FALSE(extra) << "more completions than WRs: " << describe(*extra);

	expect_state(*a.qp, IBV_QPS_ERR, "requester");
	/* A class C error takes the responder QP to ERR as well. */
	expect_state(*b.qp, IBV_QPS_ERR, "responder");

	EXPECT_TRUE(target.unchanged())
		<< "responder memory (the MR window, the rest of its pages, "
		   "the pages around) changed";
	if (other) {
		EXPECT_TRUE(other->unchanged())
			<< "the memory of the " << fault_name(fault)
			<< " MR changed";
	}
	EXPECT_TRUE(loc.unchanged(local_seed))
		<< "the requester's local buffer changed";
	auto rwc = try_poll(*b.recv_cq, 0ms);
	EXPECT_FALSE(rwc) << "responder completed " << describe(*rwc);
}

std::vector<Case> all_cases()
{
	std::vector<Case> v;

	for (Op op : {Op::write, Op::read, Op::cmp_swap, Op::fetch_add,
		      Op::atomic_write})
		for (Fault f : {Fault::before_start, Fault::straddles_end,
				Fault::past_end, Fault::other_pd,
				Fault::mr_lacks_right, Fault::qp_lacks_right,
				Fault::deregistered, Fault::wrong_key_byte})
			v.push_back({op, f});
	return v;
}

std::string case_name(const ::testing::TestParamInfo<Case> &info)
{
	return std::string(op_name(info.param.op)) + "_" +
	       fault_name(info.param.fault);
}

INSTANTIATE_TEST_SUITE_P(MemProt, MemProtectTest,
			 ::testing::ValuesIn(all_cases()), case_name);

/* ---- zero-length READ and WRITE ---- */

/*
 * C9-88: an RC responder does not validate the R_Key (nor, so, the
 * address) of a zero-length RDMA READ or WRITE. Such a request succeeds
 * wherever it points and moves no byte.
 */
enum class ZeroAt {
	end,		/* the first byte after the MR */
	far_past_end,	/* 1 MiB past it */
	before_start,	/* one page before it */
	bad_rkey,	/* inside, through an rkey that names no MR */
};

struct ZeroCase {
	Op op;
	ZeroAt at;
};

const char *zero_name(ZeroAt at);

void PrintTo(const ZeroCase &c, std::ostream *os)
{
	*os << op_name(c.op) << "/" << zero_name(c.at);
}

const char *zero_name(ZeroAt at)
{
	switch (at) {
	case ZeroAt::end: return "AtEnd";
	case ZeroAt::far_past_end: return "FarPastEnd";
	case ZeroAt::before_start: return "BeforeStart";
	case ZeroAt::bad_rkey: return "BadRkey";
	}
	return "?";
}

class ZeroLengthTest : public MemProtectBase,
		       public ::testing::WithParamInterface<ZeroCase> {};

TEST_P(ZeroLengthTest, SucceedsAndMovesNothing)
{
	const Op op = GetParam().op;
	const ZeroAt at = GetParam().at;
	Endpoint a = requester(op);
	Endpoint b = make_remote_endpoint(IBV_QPT_RC);

	connect_with(a, b, kAllAccess);

	Target target;
	auto win = std::make_shared<Mr>(pd(Side::remote), target.buf, kWinOff,
					kWinLen, kRemoteAll);
	uint64_t addr = win->addr();
	uint32_t rkey = win->rkey();

	switch (at) {
	case ZeroAt::end: addr += kWinLen; break;
	case ZeroAt::far_past_end: addr += kWinLen + (1u << 20); break;
	case ZeroAt::before_start: addr -= 4096; break;
	case ZeroAt::bad_rkey:
		rkey = (rkey & ~0xffu) | ((rkey + 0x5b) & 0xffu);
		break;
	}

	ibv_send_wr wr{};
	wr.wr_id = 1;
	wr.sg_list = nullptr;
	wr.num_sge = 0;
	wr.opcode = op == Op::write ? IBV_WR_RDMA_WRITE : IBV_WR_RDMA_READ;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = addr;
	wr.wr.rdma.rkey = rkey;
	verbs::post_send(*a.qp, wr);

	ibv_wc wc = poll_one(*a.send_cq, "zero-length request");
	ASSERT_TRUE(wc_ok(wc, op == Op::write ? IBV_WC_RDMA_WRITE :
						IBV_WC_RDMA_READ, 1));
	if (op == Op::read) {
		EXPECT_EQ(wc.byte_len, 0u) << describe(wc);
	}
	expect_state(*a.qp, IBV_QPS_RTS, "requester");
	expect_state(*b.qp, IBV_QPS_RTS, "responder");
	EXPECT_TRUE(target.unchanged()) << "a zero-length request moved bytes";

	/* The connection still carries a real request. */
	Local loc = local(kLen, kPayloadSeed);
	post(a, op, {win->addr()}, {win->rkey()}, &loc);
	EXPECT_TRUE(wc_ok(poll_one(*a.send_cq, "a request after it"),
			  op == Op::write ? IBV_WC_RDMA_WRITE : IBV_WC_RDMA_READ,
			  1));
}

std::vector<ZeroCase> zero_cases()
{
	std::vector<ZeroCase> v;

	for (Op op : {Op::write, Op::read})
		for (ZeroAt at : {ZeroAt::end, ZeroAt::far_past_end,
				  ZeroAt::before_start, ZeroAt::bad_rkey})
			v.push_back({op, at});
	return v;
}

INSTANTIATE_TEST_SUITE_P(
	MemProt, ZeroLengthTest, ::testing::ValuesIn(zero_cases()),
	[](const ::testing::TestParamInfo<ZeroCase> &info) {
		return std::string(op_name(info.param.op)) + "_" +
		       zero_name(info.param.at);
	});

} // namespace
} // namespace vrnic::test
