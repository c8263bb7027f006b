-- SPDX-License-Identifier: GPL-2.0
--
-- Wireshark / tshark dissector for mrc packets (docs/wire.md, the mirror of
-- include/mrc/wire.h): UDP port 4791, an InfiniBand BTH, then RETH, ImmDt
-- and DEXT (data), AETH and AEXT (ACK, NACK), PEXT (EV probe 0xc0 and its
-- answer 0xc1), CEXT (mrcd's control messages 0xc2: port status updates,
-- QP hellos). mrc carries no ICRC: the UDP checksum is its integrity
-- check, so every byte after the headers is payload. This dissector claims
-- the mrc opcodes on port 4791, where the RoCE dissector would read the
-- last 4 payload bytes as an ICRC and the MRC headers as payload; any other
-- opcode goes to that RoCE dissector unchanged.
--
-- make install puts it in Wireshark's global Lua plugin folder; or load it
-- by hand: tshark -X lua_script:deploy/mrc.lua -r capture.pcap

-- Installed and also named with -X lua_script: the first one loaded wins.
do
	local ok, loaded = pcall(Dissector.get, "mrc")
	if ok and loaded then
		return
	end
end

local mrc = Proto("mrc", "Multipath Reliable Connection")

local PORT = 4791
local VERSION = 1
local BTH_LEN, RETH_LEN, IMMDT_LEN, DEXT_LEN = 12, 16, 4, 16
local AETH_LEN, AEXT_LEN, PEXT_LEN, CEXT_LEN = 4, 52, 24, 20
local SVC_UNIT_NS = 64

local OP_WRITE, OP_WRITE_IMM, OP_ACK = 0x0a, 0x0b, 0x11
local OP_PROBE, OP_PROBE_ANSWER = 0xc0, 0xc1
local OP_CTL = 0xc2
-- MRC_CTL_* (include/mrc/wire.h)
local ctl_types = {
	[1] = "PSU",
	[2] = "PSU_ANSWER",
	[3] = "HELLO",
	[4] = "HELLO_ANSWER",
	[5] = "MPR",
}

local opcodes = {
	[OP_WRITE] = "RDMA WRITE Only",
	[OP_WRITE_IMM] = "RDMA WRITE Only with Immediate",
	[OP_ACK] = "Acknowledge",
	[OP_PROBE] = "MRC EV probe",
	[OP_PROBE_ANSWER] = "MRC EV probe answer",
	[OP_CTL] = "MRC control message",
}
local short_op = {
	[OP_WRITE] = "WRITE",
	[OP_WRITE_IMM] = "WRITE_IMM",
	[OP_ACK] = "ACK",
	[OP_PROBE] = "PROBE",
	[OP_PROBE_ANSWER] = "PROBE_ANSWER",
	[OP_CTL] = "CTL",
}
-- enum mrc_nack
local nack_reasons = {
	[0] = "none",
	[1] = "psn_window",
	[2] = "rkey",
	[3] = "bounds",
	[4] = "trimmed",
	[5] = "checksum",
	[6] = "qp_state",
}
local syndromes = { [0x00] = "ACK" }
for code, name in pairs(nack_reasons) do
	if code ~= 0 then
		syndromes[0x60 + code] = "NAK " .. name
	end
end

local f = {
	-- the headers, each a subtree: -Y mrc.dext selects data packets
	bth = ProtoField.none("mrc.bth", "Base Transport Header"),
	reth = ProtoField.none("mrc.reth", "RDMA Extended Transport Header"),
	dext = ProtoField.none("mrc.dext", "MRC Data Extension"),
	aeth = ProtoField.none("mrc.aeth", "ACK Extended Transport Header"),
	aext = ProtoField.none("mrc.aext", "MRC Acknowledgement Extension"),
	sack_bitmap = ProtoField.none("mrc.aext.sack_bitmap", "SACK"),
	pext = ProtoField.none("mrc.pext", "MRC Probe Extension"),
	cext = ProtoField.none("mrc.cext", "MRC Control Extension"),
	-- BTH
	opcode = ProtoField.uint8("mrc.bth.opcode", "Opcode", base.HEX, opcodes),
	se = ProtoField.bool("mrc.bth.se", "Solicited event", 8, nil, 0x80),
	migreq = ProtoField.bool("mrc.bth.migreq", "MigReq", 8, nil, 0x40),
	padcnt = ProtoField.uint8("mrc.bth.padcnt", "Pad count", base.DEC, nil, 0x30),
	tver = ProtoField.uint8("mrc.bth.tver", "Transport version", base.DEC, nil, 0x0f),
	pkey = ProtoField.uint16("mrc.bth.pkey", "Partition key", base.HEX),
	bth_rsvd = ProtoField.uint8("mrc.bth.reserved", "Reserved", base.HEX),
	dqpn = ProtoField.uint32("mrc.bth.dest_qp", "Destination QP", base.DEC, nil, 0x00ffffff),
	ackreq = ProtoField.bool("mrc.bth.ackreq", "Ack request", 32, nil, 0x80000000),
	psn = ProtoField.uint32("mrc.bth.psn", "PSN", base.DEC, nil, 0x00ffffff),
	-- RETH
	va = ProtoField.uint64("mrc.reth.va", "Remote virtual address", base.HEX),
	rkey = ProtoField.uint32("mrc.reth.rkey", "Remote key", base.HEX),
	reth_len = ProtoField.uint32("mrc.reth.len_bytes", "Payload length (bytes)", base.DEC),
	-- ImmDt
	imm = ProtoField.uint32("mrc.immdt", "Immediate data", base.HEX),
	-- DEXT
	d_ver = ProtoField.uint8("mrc.dext.version", "Version", base.DEC),
	d_flags = ProtoField.uint8("mrc.dext.flags", "Flags", base.HEX),
	d_last = ProtoField.bool("mrc.dext.flags.last", "LAST (highest PSN of its message)", 8, nil, 0x01),
	d_retx = ProtoField.bool("mrc.dext.flags.retx", "RETX (a retransmission)", 8, nil, 0x02),
	d_ev = ProtoField.uint16("mrc.dext.ev", "Entropy value", base.DEC),
	d_msg_id = ProtoField.uint32("mrc.dext.msg_id", "Message number", base.DEC),
	d_msg_len = ProtoField.uint32("mrc.dext.msg_len_bytes", "Message length (bytes)", base.DEC),
	d_echo = ProtoField.uint32("mrc.dext.echo", "Echo", base.HEX),
	payload = ProtoField.bytes("mrc.payload", "Payload"),
	payload_len = ProtoField.uint32("mrc.payload_len_bytes", "Payload length on the wire (bytes)", base.DEC),
	-- AETH
	syndrome = ProtoField.uint8("mrc.aeth.syndrome", "Syndrome", base.HEX, syndromes),
	msn = ProtoField.uint32("mrc.aeth.msn", "MSN", base.DEC, nil, 0x00ffffff),
	-- AEXT
	a_ver = ProtoField.uint8("mrc.aext.version", "Version", base.DEC),
	a_flags = ProtoField.uint8("mrc.aext.flags", "Flags", base.HEX),
	a_nack = ProtoField.bool("mrc.aext.flags.nack", "NACK", 8, nil, 0x01),
	a_ce = ProtoField.bool("mrc.aext.flags.ecn_ce", "Acknowledged packet arrived CE-marked", 8, nil, 0x02),
	a_ev = ProtoField.uint16("mrc.aext.ev", "Entropy value acknowledged", base.DEC),
	a_reason = ProtoField.uint8("mrc.aext.nack_reason", "NACK reason", base.DEC, nack_reasons),
	a_pad = ProtoField.uint8("mrc.aext.pad", "Padding", base.HEX),
	a_svc = ProtoField.uint16("mrc.aext.svc_64ns", "Service time (64 ns units)", base.DEC),
	a_svc_ns = ProtoField.uint32("mrc.aext.svc_ns", "Service time (ns)", base.DEC),
	a_cum = ProtoField.uint32("mrc.aext.cum_psn", "Cumulative PSN (first not received)", base.DEC),
	a_ack_psn = ProtoField.uint32("mrc.aext.ack_psn", "PSN acknowledged", base.DEC),
	a_echo = ProtoField.uint32("mrc.aext.echo", "Echo", base.HEX),
	a_sack = ProtoField.uint32("mrc.aext.sack", "SACK word", base.HEX),
	a_sacked = ProtoField.uint32("mrc.aext.sacked_psn", "PSN selectively acknowledged", base.DEC),
	-- PEXT
	p_ver = ProtoField.uint8("mrc.pext.version", "Version", base.DEC),
	p_flags = ProtoField.uint8("mrc.pext.flags", "Flags", base.HEX),
	p_ev = ProtoField.uint16("mrc.pext.ev", "Entropy value probed", base.DEC),
	p_ev_idx = ProtoField.uint8("mrc.pext.ev_idx", "Prober's EV index", base.DEC),
	p_pad = ProtoField.bytes("mrc.pext.pad", "Padding"),
	p_seq = ProtoField.uint32("mrc.pext.seq", "Probe sequence number", base.DEC),
	p_ts = ProtoField.uint64("mrc.pext.tx_ts_ns", "Prober's clock (ns)", base.DEC),
	p_svc = ProtoField.uint32("mrc.pext.svc_ns", "Responder's service time (ns)", base.DEC),
	-- CEXT
	c_ver = ProtoField.uint8("mrc.cext.version", "Version", base.DEC),
	c_type = ProtoField.uint8("mrc.cext.type", "Type", base.DEC, ctl_types),
	c_flags = ProtoField.uint8("mrc.cext.flags", "Flags", base.HEX),
	c_dyn = ProtoField.bool("mrc.cext.flags.dyn_mpr", "Dynamic MPR", 8, nil, 0x01),
	c_pad = ProtoField.uint8("mrc.cext.pad", "Padding", base.HEX),
	c_sqpn = ProtoField.uint32("mrc.cext.sqpn", "Sender's QP", base.DEC),
	c_seq = ProtoField.uint32("mrc.cext.seq", "Request number", base.DEC),
	c_token = ProtoField.uint32("mrc.cext.token", "Token", base.HEX),
	c_status = ProtoField.uint32("mrc.cext.port_status", "Port status (bit p-1: port p up)", base.HEX),
	c_window = ProtoField.uint32("mrc.cext.window_psns", "Receive window (PSNs)", base.DEC),
}
local field_list = {}
for _, v in pairs(f) do
	field_list[#field_list + 1] = v
end
mrc.fields = field_list

local ex = {
	truncated = ProtoExpert.new("mrc.truncated", "Truncated MRC header",
		expert.group.MALFORMED, expert.severity.ERROR),
	version = ProtoExpert.new("mrc.bad_version", "Unknown MRC wire version (the receiver drops it: bad_version)",
		expert.group.MALFORMED, expert.severity.ERROR),
	long_payload = ProtoExpert.new("mrc.long_payload", "Payload longer than the RETH says (dropped: long_payload)",
		expert.group.MALFORMED, expert.severity.ERROR),
	trimmed = ProtoExpert.new("mrc.trimmed", "Payload shorter than the RETH says: trimmed by the fabric",
		expert.group.SEQUENCE, expert.severity.NOTE),
	trailing = ProtoExpert.new("mrc.trailing", "Bytes after the MRC headers (dropped: truncated_header)",
		expert.group.MALFORMED, expert.severity.ERROR),
	no_csum = ProtoExpert.new("mrc.no_checksum", "No UDP checksum: mandatory for mrc (dropped: no_csum)",
		expert.group.CHECKSUM, expert.severity.ERROR),
	ev = ProtoExpert.new("mrc.ev_mismatch", "Entropy value differs from the UDP source port",
		expert.group.PROTOCOL, expert.severity.WARN),
	syndrome = ProtoExpert.new("mrc.syndrome_mismatch", "AETH syndrome and AEXT NACK reason disagree",
		expert.group.PROTOCOL, expert.severity.WARN),
	nack = ProtoExpert.new("mrc.nack", "NACK",
		expert.group.SEQUENCE, expert.severity.NOTE),
	snapped = ProtoExpert.new("mrc.snapped", "MRC header cut by the capture's snap length",
		expert.group.UNDECODED, expert.severity.NOTE),
}
mrc.experts = { ex.truncated, ex.version, ex.long_payload, ex.trimmed,
	ex.trailing, ex.no_csum, ex.ev, ex.syndrome, ex.nack, ex.snapped }

local udp_srcport = Field.new("udp.srcport")
local udp_checksum = Field.new("udp.checksum")

local udp_table = DissectorTable.get("udp.port")
-- What had port 4791 before us (the RoCE dissector): non-mrc opcodes.
local roce = udp_table:get_dissector(PORT)

-- True when tvb holds len bytes at off; else an expert error on tree.
-- A capture's snap length may cut a frame (captured < reported length):
-- lengths are judged on what was on the wire, fields read from what was
-- captured.
local function need(tvb, tree, off, len, what)
	local left = tvb:len() - off
	if left >= len then
		return true
	end
	if tvb:reported_len() - off >= len then
		tree:add_proto_expert_info(ex.snapped, string.format(
			"%s cut by the capture's snap length", what))
		return false
	end
	tree:add_proto_expert_info(ex.truncated, string.format(
		"Truncated MRC header: %s needs %d bytes, %d left", what, len,
		left > 0 and left or 0))
	return false
end

-- Bytes on the wire after off that no header claims: an error.
local function no_trailer(tvb, tree, off)
	if tvb:reported_len() <= off then
		return
	end
	if tvb:len() > off then
		tree:add_tvb_expert_info(ex.trailing, tvb(off))
	else
		tree:add_proto_expert_info(ex.trailing)
	end
end

local function check_version(tvb, item, off)
	if tvb(off, 1):uint() ~= VERSION then
		item:add_tvb_expert_info(ex.version, tvb(off, 1))
	end
end

local function check_ev(tvb, item, off)
	local sport = udp_srcport()
	if sport and sport.value ~= tvb(off, 2):uint() then
		item:add_tvb_expert_info(ex.ev, tvb(off, 2), string.format(
			"Entropy value %d differs from the UDP source port %d",
			tvb(off, 2):uint(), sport.value))
	end
end

local function dissect_bth(tvb, tree)
	local t = tree:add(f.bth, tvb(0, BTH_LEN))
	t:add(f.opcode, tvb(0, 1))
	t:add(f.se, tvb(1, 1))
	t:add(f.migreq, tvb(1, 1))
	t:add(f.padcnt, tvb(1, 1))
	t:add(f.tver, tvb(1, 1))
	t:add(f.pkey, tvb(2, 2))
	t:add(f.bth_rsvd, tvb(4, 1))
	t:add(f.dqpn, tvb(4, 4))
	t:add(f.ackreq, tvb(8, 4))
	t:add(f.psn, tvb(8, 4))
end

local function dissect_data(tvb, pinfo, tree, op)
	local off = BTH_LEN
	local info = {}

	if not need(tvb, tree, off, RETH_LEN, "RETH") then
		return
	end
	local t = tree:add(f.reth, tvb(off, RETH_LEN))
	t:add(f.va, tvb(off, 8))
	t:add(f.rkey, tvb(off + 8, 4))
	t:add(f.reth_len, tvb(off + 12, 4))
	local reth_len = tvb(off + 12, 4):uint()
	off = off + RETH_LEN
	if op == OP_WRITE_IMM then
		if not need(tvb, tree, off, IMMDT_LEN, "ImmDt") then
			return
		end
		tree:add(f.imm, tvb(off, IMMDT_LEN))
		info[#info + 1] = string.format("imm=0x%08x", tvb(off, 4):uint())
		off = off + IMMDT_LEN
	end
	if not need(tvb, tree, off, DEXT_LEN, "DEXT") then
		return
	end
	t = tree:add(f.dext, tvb(off, DEXT_LEN))
	t:add(f.d_ver, tvb(off, 1))
	check_version(tvb, t, off)
	local ft = t:add(f.d_flags, tvb(off + 1, 1))
	ft:add(f.d_last, tvb(off + 1, 1))
	ft:add(f.d_retx, tvb(off + 1, 1))
	local flags = tvb(off + 1, 1):uint()
	t:add(f.d_ev, tvb(off + 2, 2))
	check_ev(tvb, t, off + 2)
	t:add(f.d_msg_id, tvb(off + 4, 4))
	t:add(f.d_msg_len, tvb(off + 8, 4))
	t:add(f.d_echo, tvb(off + 12, 4))
	info[#info + 1] = string.format("msg=%d", tvb(off + 4, 4):uint())
	if bit.band(flags, 0x01) ~= 0 then
		info[#info + 1] = "LAST"
	end
	if bit.band(flags, 0x02) ~= 0 then
		info[#info + 1] = "RETX"
	end
	off = off + DEXT_LEN

	local left = tvb:reported_len() - off
	local have = tvb:len() - off
	local pl
	if have > 0 then
		pl = tree:add(f.payload, tvb(off, have))
		tree:add(f.payload_len, tvb(off, have), left):set_generated()
	else
		pl = tree:add(f.payload_len, left):set_generated()
	end
	info[#info + 1] = string.format("len=%d", reth_len)
	if left > reth_len then
		pl:add_proto_expert_info(ex.long_payload, string.format(
			"Payload %d bytes, longer than the RETH's %d (dropped: long_payload)",
			left, reth_len))
	elseif left < reth_len then
		pl:add_proto_expert_info(ex.trimmed, string.format(
			"Payload %d bytes of the RETH's %d: trimmed by the fabric",
			left, reth_len))
		info[#info + 1] = "TRIMMED"
	end
	return table.concat(info, " ")
end

local function dissect_ack(tvb, pinfo, tree)
	local off = BTH_LEN

	if not need(tvb, tree, off, AETH_LEN, "AETH") then
		return
	end
	local t = tree:add(f.aeth, tvb(off, AETH_LEN))
	t:add(f.syndrome, tvb(off, 1))
	t:add(f.msn, tvb(off, 4))
	local syn = tvb(off, 1):uint()
	off = off + AETH_LEN
	if not need(tvb, tree, off, AEXT_LEN, "AEXT") then
		return
	end
	t = tree:add(f.aext, tvb(off, AEXT_LEN))
	t:add(f.a_ver, tvb(off, 1))
	check_version(tvb, t, off)
	local ft = t:add(f.a_flags, tvb(off + 1, 1))
	ft:add(f.a_nack, tvb(off + 1, 1))
	ft:add(f.a_ce, tvb(off + 1, 1))
	local flags = tvb(off + 1, 1):uint()
	t:add(f.a_ev, tvb(off + 2, 2))
	check_ev(tvb, t, off + 2)
	local ri = t:add(f.a_reason, tvb(off + 4, 1))
	local reason = tvb(off + 4, 1):uint()
	t:add(f.a_pad, tvb(off + 5, 1))
	t:add(f.a_svc, tvb(off + 6, 2))
	t:add(f.a_svc_ns, tvb(off + 6, 2), tvb(off + 6, 2):uint() * SVC_UNIT_NS):set_generated()
	t:add(f.a_cum, tvb(off + 8, 4))
	t:add(f.a_ack_psn, tvb(off + 12, 4))
	t:add(f.a_echo, tvb(off + 16, 4))
	local cum = tvb(off + 8, 4):uint()
	local st = t:add(f.sack_bitmap, tvb(off + 20, 32))
	local sacked = {}
	for w = 0, 7 do
		local r = tvb(off + 20 + 4 * w, 4)
		st:add(f.a_sack, r)
		local word = r:uint()
		for b = 0, 31 do
			if bit.band(word, bit.lshift(1, 31 - b)) ~= 0 then
				local psn = bit.band(cum + 1 + 32 * w + b, 0xffffff)
				st:add(f.a_sacked, r, psn):set_generated()
				sacked[#sacked + 1] = psn
			end
		end
	end
	st:append_text(string.format(": %d PSNs", #sacked))

	local is_nack = bit.band(flags, 0x01) ~= 0
	local want_syn = is_nack and (0x60 + reason) or 0
	if syn ~= want_syn then
		ri:add_proto_expert_info(ex.syndrome, string.format(
			"AETH syndrome 0x%02x, AEXT says 0x%02x", syn, want_syn))
	end
	if is_nack then
		ri:add_proto_expert_info(ex.nack, "NACK " .. (nack_reasons[reason] or tostring(reason)))
	end
	no_trailer(tvb, tree, off + AEXT_LEN)
	local info = is_nack and ("NACK " .. (nack_reasons[reason] or tostring(reason))) or "ACK"
	info = string.format("%s acked=%d cum=%d", info, tvb(BTH_LEN + AETH_LEN + 12, 4):uint(), cum)
	if #sacked > 0 then
		info = info .. string.format(" sack=%d", #sacked)
	end
	if bit.band(flags, 0x02) ~= 0 then
		info = info .. " CE"
	end
	return info
end

local function dissect_probe(tvb, pinfo, tree)
	local off = BTH_LEN

	if not need(tvb, tree, off, PEXT_LEN, "PEXT") then
		return
	end
	local t = tree:add(f.pext, tvb(off, PEXT_LEN))
	t:add(f.p_ver, tvb(off, 1))
	check_version(tvb, t, off)
	t:add(f.p_flags, tvb(off + 1, 1))
	t:add(f.p_ev, tvb(off + 2, 2))
	check_ev(tvb, t, off + 2)
	t:add(f.p_ev_idx, tvb(off + 4, 1))
	t:add(f.p_pad, tvb(off + 5, 3))
	t:add(f.p_seq, tvb(off + 8, 4))
	t:add(f.p_ts, tvb(off + 12, 8))
	t:add(f.p_svc, tvb(off + 20, 4))
	no_trailer(tvb, tree, off + PEXT_LEN)
	return string.format("ev=%d seq=%d", tvb(BTH_LEN + 2, 2):uint(), tvb(BTH_LEN + 8, 4):uint())
end

local function dissect_ctl(tvb, pinfo, tree)
	local off = BTH_LEN

	if not need(tvb, tree, off, CEXT_LEN, "CEXT") then
		return
	end
	local t = tree:add(f.cext, tvb(off, CEXT_LEN))
	local typ = tvb(off + 1, 1):uint()
	t:add(f.c_ver, tvb(off, 1))
	check_version(tvb, t, off)
	t:add(f.c_type, tvb(off + 1, 1))
	local ft = t:add(f.c_flags, tvb(off + 2, 1))
	ft:add(f.c_dyn, tvb(off + 2, 1))
	t:add(f.c_pad, tvb(off + 3, 1))
	t:add(f.c_sqpn, tvb(off + 4, 4))
	t:add(f.c_seq, tvb(off + 8, 4))
	t:add(f.c_token, tvb(off + 12, 4))
	if typ <= 2 then
		t:add(f.c_status, tvb(off + 16, 4))
	else
		t:add(f.c_window, tvb(off + 16, 4))
	end
	no_trailer(tvb, tree, off + CEXT_LEN)
	return string.format("%s sqpn=%d seq=%d", ctl_types[typ] or "?",
		tvb(off + 4, 4):uint(), tvb(off + 8, 4):uint())
end

function mrc.dissector(tvb, pinfo, tree)
	if tvb:len() < 1 then
		return 0
	end
	local op = tvb(0, 1):uint()
	if not short_op[op] then
		if roce then
			return roce:call(tvb, pinfo, tree)
		end
		return 0
	end
	pinfo.cols.protocol = "MRC"
	local root = tree:add(mrc, tvb(), "Multipath Reliable Connection")
	local csum = udp_checksum()
	if csum and csum.value == 0 then
		root:add_proto_expert_info(ex.no_csum)
	end
	if not need(tvb, root, 0, BTH_LEN, "BTH") then
		pinfo.cols.info = short_op[op] .. " [truncated]"
		return tvb:len()
	end
	dissect_bth(tvb, root)
	local rest
	if op == OP_ACK then
		rest = dissect_ack(tvb, pinfo, root)
	elseif op == OP_PROBE or op == OP_PROBE_ANSWER then
		rest = dissect_probe(tvb, pinfo, root)
	elseif op == OP_CTL then
		rest = dissect_ctl(tvb, pinfo, root)
	else
		rest = dissect_data(tvb, pinfo, root, op)
	end
	pinfo.cols.info = string.format("%s QP=%d PSN=%d %s", short_op[op],
		bit.band(tvb(4, 4):uint(), 0xffffff), bit.band(tvb(8, 4):uint(), 0xffffff),
		rest or "[truncated]")
	return tvb:len()
end

udp_table:add(PORT, mrc)
