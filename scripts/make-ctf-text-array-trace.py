#!/usr/bin/env python3
"""Writes fixtures/ctf-wild/thapi-text-array/: a small LTTng-like CTF trace whose
`lttng_ust_pytorch` op events carry `name` as a UTF-8 text *sequence* and
`overload_name` as a UTF-8 text *array* (what other THAPI/LTTng providers write), with
the process id only in the trace environment (`vpid`, as LTTng's per-process traces
have it) and `vtid` in the event context. Written byte by byte here (not by the crate's
writer) so that babeltrace2's reading of it is an independent check.

usage: scripts/make-ctf-text-array-trace.py OUTDIR
"""
import os
import struct
import sys

METADATA = """/* CTF 1.8 */
typealias integer { size = 8; align = 8; signed = false; } := uint8_t;
typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
typealias integer { size = 64; align = 8; signed = false; } := uint64_t;

trace {
	major = 1;
	minor = 8;
	byte_order = le;
	packet.header := struct {
		uint32_t magic;
		uint32_t stream_id;
	};
};

env {
	hostname = "wild";
	domain = "ust";
	tracer_name = "lttng-ust";
	vpid = 4242;
	procname = "textarr";
};

clock {
	name = "monotonic";
	freq = 1000000000;
	offset_s = 1700000000;
	offset = 0;
};

typealias integer { size = 64; align = 8; signed = false; map = clock.monotonic.value; } := uint64_clock_monotonic_t;

stream {
	id = 0;
	packet.context := struct {
		uint64_t content_size;
		uint64_t packet_size;
	};
	event.header := struct {
		uint32_t id;
		uint64_clock_monotonic_t timestamp;
	};
	event.context := struct {
		integer { size = 32; align = 8; signed = 1; encoding = none; base = 10; } _vtid;
	};
};
"""

EVENT = """
event {
	name = "lttng_ust_pytorch:%s";
	id = %d;
	stream_id = 0;
	loglevel = 13;
	fields := struct {
		uint32_t _name_length;
		integer { size = 8; align = 8; signed = 1; encoding = UTF8; base = 10; } _name[ _name_length ];
		integer { size = 8; align = 8; signed = 1; encoding = UTF8; base = 10; } _overload_name[8];
	};
};
"""

# (ns after the clock offset, 0 entry / 1 exit, vtid, name, overload)
EVENTS = [
    (1000, 0, 7, "aten::linear", ""),
    (1100, 0, 7, "aten::addmm", "out"),
    (1200, 0, 8, "aten::relu", ""),
    (1300, 1, 8, "aten::relu", ""),
    (1500, 1, 7, "aten::addmm", "out"),
    (2000, 1, 7, "aten::linear", ""),
    (2100, 0, 8, "aten::abs", "out"),
    (2400, 1, 8, "aten::abs", "out"),
]


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "metadata"), "w") as f:
        f.write(METADATA + EVENT % ("op_entry", 0) + EVENT % ("op_exit", 1))
    body = b""
    for ts, kind, tid, name, overload in EVENTS:
        n = name.encode()
        o = overload.encode().ljust(8, b"\0")
        body += struct.pack("<IQiI", kind, ts, tid, len(n)) + n + o
    header_len = 4 + 4 + 8 + 8
    content = header_len + len(body)
    packet = (content + 7) // 8 * 8 + 8
    data = struct.pack("<IIQQ", 0xC1FC1FC1, 0, content * 8, packet * 8) + body
    data += b"\0" * (packet - len(data))
    with open(os.path.join(out, "channel0_0"), "wb") as f:
        f.write(data)


main()
