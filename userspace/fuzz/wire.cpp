// SPDX-License-Identifier: GPL-2.0-only
/*
 * RoCEv2 wire formats for the packet fuzzer; see wire.hpp.
 */
#include "wire.hpp"

#include <arpa/inet.h>

#include <cstring>

namespace vrnic::fuzz {

namespace {

constexpr uint32_t kReq = kOpReq;
constexpr uint32_t kSend = kOpPayload;
constexpr uint32_t kWrite = kOpPayload;
constexpr uint32_t kReadResp = kOpResp | kOpPayload;
constexpr uint32_t kOnly = kOpFirst | kOpLast;

/* kernel/wire/vrnic_opcode.c, vrnic_opcodes[]: the same names, flags, headers. */
std::array<OpcodeInfo, 256> make_table()
{
	std::array<OpcodeInfo, 256> t{};
	auto set = [&t](uint8_t op, const char *name, uint32_t flags,
			uint16_t hdrs) { t[op] = OpcodeInfo{name, flags, hdrs}; };

	set(0x00, "RC_SEND_FIRST", kReq | kSend | kOpFirst, 0);
	set(0x01, "RC_SEND_MIDDLE", kReq | kSend | kOpMiddle, 0);
	set(0x02, "RC_SEND_LAST", kReq | kSend | kOpLast, 0);
	set(0x03, "RC_SEND_LAST_WITH_IMMEDIATE", kReq | kSend | kOpLast, kHdrImmdt);
	set(0x04, "RC_SEND_ONLY", kReq | kSend | kOnly, 0);
	set(0x05, "RC_SEND_ONLY_WITH_IMMEDIATE", kReq | kSend | kOnly, kHdrImmdt);
	set(0x06, "RC_RDMA_WRITE_FIRST", kReq | kWrite | kOpFirst, kHdrReth);
	set(0x07, "RC_RDMA_WRITE_MIDDLE", kReq | kWrite | kOpMiddle, 0);
	set(0x08, "RC_RDMA_WRITE_LAST", kReq | kWrite | kOpLast, 0);
	set(0x09, "RC_RDMA_WRITE_LAST_WITH_IMMEDIATE", kReq | kWrite | kOpLast, kHdrImmdt);
	set(0x0a, "RC_RDMA_WRITE_ONLY", kReq | kWrite | kOnly, kHdrReth);
	set(0x0b, "RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE", kReq | kWrite | kOnly,
	    kHdrReth | kHdrImmdt);
	set(0x0c, "RC_RDMA_READ_REQUEST", kReq | kOnly, kHdrReth);
	set(0x0d, "RC_RDMA_READ_RESPONSE_FIRST", kReadResp | kOpFirst, kHdrAeth);
	set(0x0e, "RC_RDMA_READ_RESPONSE_MIDDLE", kReadResp | kOpMiddle, 0);
	set(0x0f, "RC_RDMA_READ_RESPONSE_LAST", kReadResp | kOpLast, kHdrAeth);
	set(0x10, "RC_RDMA_READ_RESPONSE_ONLY", kReadResp | kOnly, kHdrAeth);
	set(0x11, "RC_ACKNOWLEDGE", kOpResp | kOnly, kHdrAeth);
	set(0x12, "RC_ATOMIC_ACKNOWLEDGE", kOpResp | kOnly, kHdrAeth | kHdrAtmack);
	set(0x13, "RC_COMPARE_SWAP", kReq | kOnly, kHdrAtmeth);
	set(0x14, "RC_FETCH_ADD", kReq | kOnly, kHdrAtmeth);
	set(0x16, "RC_SEND_LAST_WITH_INVALIDATE", kReq | kSend | kOpLast, kHdrIeth);
	set(0x17, "RC_SEND_ONLY_WITH_INVALIDATE", kReq | kSend | kOnly, kHdrIeth);
	set(0x1c, "RC_FLUSH", kReq | kOnly, kHdrFeth | kHdrReth);
	set(0x1d, "RC_ATOMIC_WRITE", kReq | kOpAtomicWrite | kOpPayload | kOnly,
	    kHdrReth);

	set(0x20, "UC_SEND_FIRST", kReq | kSend | kOpFirst, 0);
	set(0x21, "UC_SEND_MIDDLE", kReq | kSend | kOpMiddle, 0);
	set(0x22, "UC_SEND_LAST", kReq | kSend | kOpLast, 0);
	set(0x23, "UC_SEND_LAST_WITH_IMMEDIATE", kReq | kSend | kOpLast, kHdrImmdt);
	set(0x24, "UC_SEND_ONLY", kReq | kSend | kOnly, 0);
	set(0x25, "UC_SEND_ONLY_WITH_IMMEDIATE", kReq | kSend | kOnly, kHdrImmdt);
	set(0x26, "UC_RDMA_WRITE_FIRST", kReq | kWrite | kOpFirst, kHdrReth);
	set(0x27, "UC_RDMA_WRITE_MIDDLE", kReq | kWrite | kOpMiddle, 0);
	set(0x28, "UC_RDMA_WRITE_LAST", kReq | kWrite | kOpLast, 0);
	set(0x29, "UC_RDMA_WRITE_LAST_WITH_IMMEDIATE", kReq | kWrite | kOpLast, kHdrImmdt);
	set(0x2a, "UC_RDMA_WRITE_ONLY", kReq | kWrite | kOnly, kHdrReth);
	set(0x2b, "UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE", kReq | kWrite | kOnly,
	    kHdrReth | kHdrImmdt);

	set(0x64, "UD_SEND_ONLY", kReq | kSend | kOnly, kHdrDeth);
	set(0x65, "UD_SEND_ONLY_WITH_IMMEDIATE", kReq | kSend | kOnly,
	    kHdrDeth | kHdrImmdt);
	return t;
}

/* Header sizes in wire order, the order of enum Hdr. */
constexpr std::array<unsigned, 8> kHdrBytes = {
	kDethBytes, kFethBytes, kRethBytes, kAtmethBytes,
	kAethBytes, kAtmackBytes, kImmdtBytes, kIethBytes,
};

} // namespace

const std::array<OpcodeInfo, 256> &opcode_table()
{
	static const std::array<OpcodeInfo, 256> table = make_table();
	return table;
}

unsigned headers_length(uint16_t hdrs)
{
	unsigned len = kBthBytes;

	for (unsigned i = 0; i < kHdrBytes.size(); i++)
		if (hdrs & (1u << i))
			len += kHdrBytes[i];
	return len;
}

unsigned header_offset(uint16_t hdrs, Hdr h)
{
	unsigned off = kBthBytes;

	for (unsigned i = 0; i < kHdrBytes.size() && (1u << i) != h; i++)
		if (hdrs & (1u << i))
			off += kHdrBytes[i];
	return off;
}

void put_be16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v;
}

void put_be32(uint8_t *p, uint32_t v)
{
	put_be16(p, v >> 16);
	put_be16(p + 2, v);
}

void put_be64(uint8_t *p, uint64_t v)
{
	put_be32(p, v >> 32);
	put_be32(p + 4, v);
}

uint32_t get_be32(const uint8_t *p)
{
	return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 |
	       uint32_t(p[2]) << 8 | p[3];
}

void write_bth(uint8_t *p, const Bth &b)
{
	p[0] = b.opcode;
	p[1] = (b.se ? 0x80 : 0) | (b.migreq ? 0x40 : 0) |
	       ((b.pad & 3) << 4) | (b.tver & 0x0f);
	put_be16(p + 2, b.pkey);
	put_be32(p + 4, uint32_t(b.resv8a) << 24 | (b.qpn & kPsnMask));
	put_be32(p + 8, (b.ackreq ? 0x80000000u : 0) |
			uint32_t(b.resv7 & 0x7f) << 24 | (b.psn & kPsnMask));
}

namespace {

/* Slicing-by-one table of the reflected IEEE 802.3 polynomial. */
const std::array<uint32_t, 256> &crc_table()
{
	static const std::array<uint32_t, 256> t = [] {
		std::array<uint32_t, 256> r{};
		for (uint32_t i = 0; i < 256; i++) {
			uint32_t c = i;
			for (int k = 0; k < 8; k++)
				c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
			r[i] = c;
		}
		return r;
	}();
	return t;
}

} // namespace

uint32_t crc32_le(uint32_t crc, std::span<const uint8_t> data)
{
	const auto &t = crc_table();

	for (uint8_t b : data)
		crc = t[(crc ^ b) & 0xff] ^ (crc >> 8);
	return crc;
}

std::optional<Endpoints> endpoints_for(const std::string &src,
				       const std::string &dst)
{
	Endpoints ep;

	if (inet_pton(AF_INET, src.c_str(), ep.src.data()) == 1 &&
	    inet_pton(AF_INET, dst.c_str(), ep.dst.data()) == 1) {
		ep.family = 4;
		return ep;
	}
	if (inet_pton(AF_INET6, src.c_str(), ep.src.data()) == 1 &&
	    inet_pton(AF_INET6, dst.c_str(), ep.dst.data()) == 1) {
		ep.family = 6;
		return ep;
	}
	return std::nullopt;
}

/*
 * vrnic_icrc_masked() and vrnic_icrc_compute(): the IP and UDP headers the
 * receiver sees, their variant fields set to all ones, the BTH with resv8a
 * set to all ones, then everything up to the ICRC.
 */
uint32_t icrc(const Endpoints &ep, std::span<const uint8_t> pkt)
{
	std::array<uint8_t, 40 + 8 + kBthBytes> buf{};
	const unsigned udplen = 8 + pkt.size();
	unsigned iplen;

	if (ep.family == 4) {
		iplen = 20;
		buf[0] = 0x45;
		buf[1] = 0xff;				/* TOS */
		put_be16(&buf[2], iplen + udplen);	/* total length */
		put_be16(&buf[4], ep.ip_id);
		put_be16(&buf[6], ep.df ? 0x4000 : 0);	/* flags, fragment */
		buf[8] = 0xff;				/* TTL */
		buf[9] = 17;				/* UDP */
		put_be16(&buf[10], 0xffff);		/* header checksum */
		std::memcpy(&buf[12], ep.src.data(), 4);
		std::memcpy(&buf[16], ep.dst.data(), 4);
	} else {
		iplen = 40;
		buf[0] = 0x6f;				/* version, TC high */
		buf[1] = buf[2] = buf[3] = 0xff;	/* TC low, flow label */
		put_be16(&buf[4], udplen);		/* payload length */
		buf[6] = 17;				/* next header: UDP */
		buf[7] = 0xff;				/* hop limit */
		std::memcpy(&buf[8], ep.src.data(), 16);
		std::memcpy(&buf[24], ep.dst.data(), 16);
	}
	uint8_t *udp = &buf[iplen];
	put_be16(udp, ep.sport);
	put_be16(udp + 2, ep.dport);
	put_be16(udp + 4, udplen);
	put_be16(udp + 6, 0xffff);			/* UDP checksum */
	uint8_t *bth = udp + 8;
	std::memcpy(bth, pkt.data(), kBthBytes);
	bth[4] = 0xff;					/* resv8a */

	uint32_t crc = crc32_le(kIcrcSeed,
				std::span<const uint8_t>(buf.data(), iplen + 8 + kBthBytes));
	crc = crc32_le(crc, pkt.subspan(kBthBytes, pkt.size() - kBthBytes - kIcrcBytes));
	return ~crc;
}

void put_icrc(std::span<uint8_t> pkt, uint32_t v)
{
	uint8_t *p = pkt.data() + pkt.size() - kIcrcBytes;

	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

} // namespace vrnic::fuzz
