// SPDX-License-Identifier: GPL-2.0-only
/*
 * RoCEv2 wire formats for the packet fuzzer: the BTH opcode table, header
 * layout, and the invariant CRC exactly as the driver computes it.
 *
 * This mirrors kernel/wire/vrnic_hdr.h, kernel/wire/vrnic_opcode.c and
 * kernel/wire/vrnic_icrc.c (IBTA Vol 1, 9.2-9.3 and Annex A17).  It is a
 * second, independent implementation on purpose: the fuzzer's "valid ICRC"
 * packets are only valid if both agree, and the guest test checks that they do
 * (a packet with a valid ICRC never lands in rx_drop_icrc).
 */
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace vrnic::fuzz {

inline constexpr uint16_t kRoceV2Port = 4791;
inline constexpr unsigned kBthBytes = 12;
inline constexpr unsigned kDethBytes = 8;
inline constexpr unsigned kFethBytes = 4;
inline constexpr unsigned kRethBytes = 16;
inline constexpr unsigned kAtmethBytes = 28;
inline constexpr unsigned kAethBytes = 4;
inline constexpr unsigned kAtmackBytes = 8;
inline constexpr unsigned kImmdtBytes = 4;
inline constexpr unsigned kIethBytes = 4;
inline constexpr unsigned kIcrcBytes = 4;
inline constexpr uint32_t kPsnMask = 0xffffff;
inline constexpr uint32_t kGsiQkey = 0x80010000;
inline constexpr uint16_t kDefaultPkey = 0xffff;

/* Extension headers an opcode carries, in wire order (vrnic_hdr_type). */
enum Hdr : uint16_t {
	kHdrDeth = 1 << 0,
	kHdrFeth = 1 << 1,
	kHdrReth = 1 << 2,
	kHdrAtmeth = 1 << 3,
	kHdrAeth = 1 << 4,
	kHdrAtmack = 1 << 5,
	kHdrImmdt = 1 << 6,
	kHdrIeth = 1 << 7,
};

/* What a packet of an opcode is (the VRNIC_OPF_* flags the fuzzer needs). */
enum OpFlag : uint32_t {
	kOpReq = 1 << 0,
	kOpResp = 1 << 1,
	kOpFirst = 1 << 2,
	kOpMiddle = 1 << 3,
	kOpLast = 1 << 4,
	kOpPayload = 1 << 5,
	kOpAtomicWrite = 1 << 6,
};

struct OpcodeInfo {
	const char *name = nullptr;	/* nullptr: the driver does not know it */
	uint32_t flags = 0;
	uint16_t hdrs = 0;
};

/* The driver's table: 256 entries, unknown opcodes have no name. */
const std::array<OpcodeInfo, 256> &opcode_table();
inline const OpcodeInfo &opcode_info(uint8_t op) { return opcode_table()[op]; }
inline bool opcode_known(uint8_t op) { return opcode_info(op).name != nullptr; }

/* Transport of an opcode: its top three bits (0x00 RC, 0x20 UC, 0x60 UD). */
inline constexpr uint8_t transport_of(uint8_t op) { return op & 0xe0; }

/* Bytes of BTH plus the extension headers in @hdrs. */
unsigned headers_length(uint16_t hdrs);
/* Offset of header @h from the start of the BTH (h must be in @hdrs). */
unsigned header_offset(uint16_t hdrs, Hdr h);

/* Big-endian stores, for building headers. */
void put_be16(uint8_t *p, uint16_t v);
void put_be32(uint8_t *p, uint32_t v);
void put_be64(uint8_t *p, uint64_t v);
uint32_t get_be32(const uint8_t *p);

/*
 * The BTH fields (9.2).  resv8a is byte 4 (the ICRC masks it), resv7 the
 * seven bits after AckReq.
 */
struct Bth {
	uint8_t opcode = 0;
	bool se = false;
	bool migreq = false;
	uint8_t pad = 0;	/* 0..3 */
	uint8_t tver = 0;	/* 0..15; only 0 is defined */
	uint16_t pkey = kDefaultPkey;
	uint8_t resv8a = 0;
	uint32_t qpn = 0;
	bool ackreq = false;
	uint8_t resv7 = 0;
	uint32_t psn = 0;
};
void write_bth(uint8_t *p, const Bth &b);

/* crc32_le() as the kernel's lib/crc32.c: reflected 0xedb88320, no inversion. */
uint32_t crc32_le(uint32_t crc, std::span<const uint8_t> data);

/* crc32_le(~0, 8 bytes of 0xff): the register after the LRH placeholder. */
inline constexpr uint32_t kIcrcSeed = 0xdebb20e3;

/*
 * The two ends of a datagram as the receiver sees its IP and UDP headers.
 * The ICRC covers the IP header's invariant fields, so a sender from an
 * ordinary socket must know them: IPv4 from an unconnected socket with
 * IP_PMTUDISC_DO goes out with DF set and ID 0 (include/net/ip.h,
 * ip_select_ident_segs()); IPv6 has no such field.
 */
struct Endpoints {
	int family = 4;				/* 4 or 6 */
	std::array<uint8_t, 16> src{};		/* IPv4 in the first 4 bytes */
	std::array<uint8_t, 16> dst{};
	uint16_t sport = 0;
	uint16_t dport = kRoceV2Port;
	uint16_t ip_id = 0;			/* IPv4 only */
	bool df = true;				/* IPv4 only */
};

/* Parse a dotted-quad or IPv6 address; nullopt when it is neither. */
std::optional<Endpoints> endpoints_for(const std::string &src,
				       const std::string &dst);

/*
 * The ICRC of the RoCEv2 UDP payload @pkt (BTH through ICRC; its last 4
 * bytes are not covered) sent between @ep, as vrnic_icrc_compute() returns
 * it: a CPU-order value that goes on the wire little-endian.  @pkt must be
 * at least BTH + ICRC long.
 */
uint32_t icrc(const Endpoints &ep, std::span<const uint8_t> pkt);

/* Store @icrc into the last 4 bytes of @pkt, little-endian. */
void put_icrc(std::span<uint8_t> pkt, uint32_t icrc);

} // namespace vrnic::fuzz
