-- ndncc.lua: a Wireshark dissector for the NDN frames of ndncc's packet traces.
--
--   tshark -X lua_script:ndncc.lua -r trace.pcapng
--   wireshark -X lua_script:ndncc.lua trace.pcapng      (or copy it to Wireshark's plugin folder)
--
-- It decodes Ethernet frames of EtherType 0x8624 as ndncc writes them (docs/traces.md):
--
--   LpPacket(100) [ HopCountTag(84) | Nack(800){NackReason(801)} | CongestionMark(832)
--                 | Ack(836) | TxSequence(840) | RateStamp(924)* | RouteLabel(928)*
--                 | Fragment(80){ Interest(5) | Data(6) } ]
--   Interest(5) { Name(7){ GenericNameComponent(8)... SegmentNameComponent(50) }
--                 Nonce(10) InterestLifetime(12) }
--   Data(6)     { Name MetaInfo(20){ FreshnessPeriod(25) } Content(21)
--                 SignatureInfo(22){ SignatureType(27) } SignatureValue(23) }
--
-- (* ndncc's own fields.) A bare Interest or Data (no LpPacket) decodes too. Other TLV types
-- show as unknown elements with their type and length. Names are written as NDN URIs, the
-- segment number as "seg=N". Frames cut by a snap length decode as far as they were captured.
--
-- Display filters: ndncc.kind == "Nack", ndncc.prefix == "/prefix/A", ndncc.segment == 7,
-- ndncc.nack_reason == 1000, ndncc.congestion_mark, ndncc.tx_sequence, ndncc.rate_stamp, ...

local ndncc = Proto("ndncc", "NDN packet (ndncc trace)")

local TYPE_NAMES = {
    [5] = "Interest", [6] = "Data", [7] = "Name", [8] = "GenericNameComponent",
    [10] = "Nonce", [12] = "InterestLifetime", [20] = "MetaInfo", [21] = "Content",
    [22] = "SignatureInfo", [23] = "SignatureValue", [25] = "FreshnessPeriod",
    [27] = "SignatureType", [50] = "SegmentNameComponent", [80] = "Fragment",
    [84] = "HopCountTag", [100] = "LpPacket", [800] = "Nack", [801] = "NackReason",
    [832] = "CongestionMark", [836] = "Ack", [840] = "TxSequence",
    [924] = "RateStamp (ndncc)", [928] = "RouteLabel (ndncc)",
}

local NACK_REASONS = {
    [0] = "None", [50] = "Congestion", [100] = "Duplicate", [150] = "NoRoute",
    [1000] = "LinkLoss",
}

local SIGNATURE_TYPES = { [0] = "DigestSha256", [1] = "SignatureSha256WithRsa",
    [3] = "SignatureSha256WithEcdsa", [4] = "SignatureHmacWithSha256" }

local f = ndncc.fields
f.kind = ProtoField.string("ndncc.kind", "Packet", base.ASCII)
f.tlv_type = ProtoField.uint32("ndncc.tlv.type", "TLV-TYPE", base.DEC, TYPE_NAMES)
f.tlv_length = ProtoField.uint32("ndncc.tlv.length", "TLV-LENGTH", base.DEC)
f.name = ProtoField.string("ndncc.name", "Name", base.UNICODE)
f.prefix = ProtoField.string("ndncc.prefix", "Name prefix (without the segment)", base.UNICODE)
f.component = ProtoField.string("ndncc.component", "Name component", base.UNICODE)
f.segment = ProtoField.uint64("ndncc.segment", "Segment number", base.DEC)
f.nonce = ProtoField.uint32("ndncc.nonce", "Nonce", base.HEX)
f.lifetime = ProtoField.uint64("ndncc.lifetime", "InterestLifetime [ms]", base.DEC)
f.freshness = ProtoField.uint64("ndncc.freshness", "FreshnessPeriod [ms]", base.DEC)
f.content_length = ProtoField.uint32("ndncc.content_length", "Content length [bytes]", base.DEC)
f.signature_type = ProtoField.uint32("ndncc.signature_type", "SignatureType", base.DEC, SIGNATURE_TYPES)
f.signature_value = ProtoField.bytes("ndncc.signature_value", "SignatureValue")
f.hop_count = ProtoField.uint64("ndncc.hop_count", "HopCountTag [hops]", base.DEC)
f.nack_reason = ProtoField.uint32("ndncc.nack_reason", "NackReason", base.DEC, NACK_REASONS)
f.congestion_mark = ProtoField.uint64("ndncc.congestion_mark", "CongestionMark", base.DEC)
f.ack = ProtoField.uint64("ndncc.ack", "Ack (TxSequence acknowledged)", base.DEC)
f.tx_sequence = ProtoField.uint64("ndncc.tx_sequence", "TxSequence", base.DEC)
f.rate_stamp = ProtoField.double("ndncc.rate_stamp", "RateStamp (ndncc, MIRCC) [Interests/s]")
f.route_label = ProtoField.uint64("ndncc.route_label", "RouteLabel (ndncc)", base.DEC)
f.value = ProtoField.bytes("ndncc.value", "Value")

local e_truncated = ProtoExpert.new("ndncc.truncated", "Frame ends inside this element",
    expert.group.MALFORMED, expert.severity.NOTE)
local e_malformed = ProtoExpert.new("ndncc.malformed", "Malformed TLV",
    expert.group.MALFORMED, expert.severity.ERROR)
ndncc.experts = { e_truncated, e_malformed }

-- A VAR-NUMBER at `off`: its value and its size in bytes, or nil if the captured bytes end.
local function var_number(tvb, off)
    local have = tvb:len()
    if off >= have then return nil end
    local first = tvb(off, 1):uint()
    if first < 253 then return first, 1 end
    local size = (first == 253 and 2) or (first == 254 and 4) or 8
    if off + 1 + size > have then return nil end
    if size == 8 then return tvb(off + 1, 8):uint64():tonumber(), 9 end
    return tvb(off + 1, size):uint(), 1 + size
end

-- The TLV at `off`: type, offset of its value, declared value length and header size.
local function read_tlv(tvb, off)
    local typ, a = var_number(tvb, off)
    if typ == nil then return nil end
    local len, b = var_number(tvb, off + a)
    if len == nil then return nil end
    return typ, off + a + b, len, a + b
end

-- The part of [off, off + len) that was captured, as a range (nil when none of it was).
local function captured(tvb, off, len)
    local have = tvb:len()
    if off >= have then return nil, true end
    local n = math.min(len, have - off)
    return tvb(off, n), n < len
end

-- A NonNegativeInteger value as a UInt64 (and as a Lua number).
local function nonneg(range)
    local v = range:uint64()
    return v, v:tonumber()
end

-- One name component as an NDN URI part.
local function component_uri(typ, range)
    if typ == 50 then
        local _, n = nonneg(range)
        return string.format("seg=%d", n)
    end
    local bytes, all_periods = {}, true
    for i = 0, range:len() - 1 do
        local c = range(i, 1):uint()
        if c ~= 46 then all_periods = false end
        local ch = string.char(c)
        if ch:match("[%w%-%._~]") then bytes[#bytes + 1] = ch
        else bytes[#bytes + 1] = string.format("%%%02X", c) end
    end
    local text = table.concat(bytes)
    if all_periods then text = "..." .. text end
    if typ ~= 8 then text = string.format("%d=%s", typ, text) end
    return text
end

local walk -- forward declaration: elements nest

local function add_element(tvb, tree, typ, off, vlen, hlen, state)
    local whole, cut = captured(tvb, off - hlen, hlen + vlen)
    local label = TYPE_NAMES[typ] or string.format("Unknown TLV-TYPE %d", typ)
    local item = tree:add(whole, label)
    item:add(f.tlv_type, whole(0, 0), typ):set_generated()
    item:add(f.tlv_length, whole(0, 0), vlen):set_generated()
    if cut then
        item:add_proto_expert_info(e_truncated)
        state.truncated = true
    end
    local value = captured(tvb, off, vlen)
    local stop = off + vlen

    if typ == 100 or typ == 80 or typ == 800 or typ == 20 or typ == 22 then
        -- LpPacket, Fragment, Nack, MetaInfo, SignatureInfo: a sequence of elements.
        if typ == 800 then state.nack = state.nack or 0 end
        if typ == 80 then state.fragment = true end
        walk(tvb, off, stop, item, state)
    elseif typ == 5 or typ == 6 then
        state.kind = (typ == 5) and "Interest" or "Data"
        walk(tvb, off, stop, item, state)
    elseif typ == 7 then
        local parts, prefix = {}, {}
        local inner = { components = parts, segment_of = state }
        walk(tvb, off, stop, item, inner)
        for i, p in ipairs(parts) do
            if not (i == #parts and p:match("^seg=")) then prefix[#prefix + 1] = p end
        end
        state.name = "/" .. table.concat(parts, "/")
        if cut or inner.truncated then state.name = state.name .. "..." end
        state.prefix = "/" .. table.concat(prefix, "/")
        item:append_text(": " .. state.name)
        tree:add(f.name, whole, state.name):set_generated()
        tree:add(f.prefix, whole, state.prefix):set_generated()
    elseif state.components ~= nil then
        -- A name component (inside a Name); one cut short is left out of the name.
        if value ~= nil and not cut then
            local text = component_uri(typ, value)
            state.components[#state.components + 1] = text
            item:add(f.component, value, text)
            if typ == 50 then
                local v = nonneg(value)
                item:add(f.segment, value, v)
                state.segment_of.segment = v:tonumber()
            end
        end
    elseif value == nil then
        return
    elseif typ == 10 then
        item:add(f.nonce, value)
    elseif typ == 12 then
        item:add(f.lifetime, value, (nonneg(value)))
    elseif typ == 25 then
        item:add(f.freshness, value, (nonneg(value)))
    elseif typ == 21 then
        item:add(f.content_length, value, vlen)
    elseif typ == 27 then
        item:add(f.signature_type, value, value:uint())
    elseif typ == 23 then
        item:add(f.signature_value, value)
    elseif typ == 84 then
        item:add(f.hop_count, value, (nonneg(value)))
    elseif typ == 801 then
        local reason = value:uint()
        state.nack = reason
        item:add(f.nack_reason, value, reason)
        item:append_text(": " .. (NACK_REASONS[reason] or tostring(reason)))
    elseif typ == 832 then
        local v, n = nonneg(value)
        state.mark = n
        item:add(f.congestion_mark, value, v)
    elseif typ == 836 then
        local v = nonneg(value)
        state.ack = true
        item:add(f.ack, value, v)
    elseif typ == 840 then
        item:add(f.tx_sequence, value, (nonneg(value)))
    elseif typ == 924 and vlen == 8 and value:len() == 8 then
        item:add(f.rate_stamp, value, value:float())
    elseif typ == 928 then
        item:add(f.route_label, value, (nonneg(value)))
    else
        item:add(f.value, value)
    end
end

-- Every element in [off, stop), each added under `tree`.
walk = function(tvb, off, stop, tree, state)
    while off < stop and off < tvb:len() do
        local typ, voff, vlen, hlen = read_tlv(tvb, off)
        if typ == nil then
            tree:add_proto_expert_info(e_truncated)
            state.truncated = true
            return
        end
        if voff + vlen > stop then
            tree:add_tvb_expert_info(e_malformed, tvb(off, math.min(tvb:len(), stop) - off),
                "element runs past its parent")
            return
        end
        add_element(tvb, tree, typ, voff, vlen, hlen, state)
        off = voff + vlen
    end
end

local function summary(state)
    local words
    if state.nack ~= nil then
        words = string.format("Nack (%s)", NACK_REASONS[state.nack] or tostring(state.nack))
    elseif state.kind ~= nil then
        words = state.kind
    elseif state.kind == "Ack" then
        words = "Ack"
    else
        words = "LpPacket"
    end
    if state.name ~= nil then words = words .. " " .. state.name end
    if state.mark ~= nil and state.mark > 0 then
        words = words .. string.format(" [CongestionMark=%d]", state.mark)
    end
    if state.truncated then words = words .. " [cut by the snap length]" end
    return words
end

function ndncc.dissector(tvb, pinfo, root)
    if tvb:len() == 0 then return 0 end
    pinfo.cols.protocol = "NDN"
    local typ, voff, vlen, hlen = read_tlv(tvb, 0)
    if typ == nil then return 0 end
    local tree = root:add(ndncc, tvb(0, math.min(tvb:len(), hlen + vlen)))
    local state = {}
    add_element(tvb, tree, typ, voff, vlen, hlen, state)
    if state.nack ~= nil then state.kind = "Nack" end
    -- A standalone acknowledgement is an LpPacket with an Ack and no Fragment, whole.
    if state.kind == nil and state.ack and not state.fragment and not state.truncated then
        state.kind = "Ack"
    end
    tree:add(f.kind, tvb(0, 0), state.kind or "LpPacket"):set_generated()
    local text = summary(state)
    tree:append_text(": " .. text)
    pinfo.cols.info = text
    return tvb:len()
end

DissectorTable.get("ethertype"):add(0x8624, ndncc)
