#!/usr/bin/env python3
"""perf_data_synth.py - write a perf.data file as `perf mem record` would
on a machine with PEBS, for a run of testcases/false_sharing_counters that
nobody ran: these machines have no PMU, so the file is made, not recorded.

usage: perf_data_synth.py BINARY OUT [--samples N] [--threads T] [--weight-struct]
                         [--style pebs|spe]

Two events (cpu/mem-loads/P and cpu/mem-stores/P), each sample led by its
id (PERF_SAMPLE_IDENTIFIER) and carrying IP, TID, TIME, ADDR, ID, CPU,
PERIOD, WEIGHT and DATA_SRC; a COMM and an exec MMAP2 of BINARY in the
data section; the build-id, cmdline and event-description features.
Thread t (0..T-1) loads and stores counters[t] with the `increment`
function's own load and store instructions (found with objdump), the
threads' samples interleaved in time, so the report must say: false
sharing on counters, members counters[0..T-1], in increment.  The loads
are HITM snoops of 200 cycles, as the contended line's would be.

--style spe writes what `perf record -e arm_spe//` would instead: one
event, no samples in the data section, ITRACE_START and TIME_CONV records,
and the same accesses as Arm SPE packets (PC, data address, latency,
CONTEXTIDR, operation type, events, Neoverse data source, timestamp) in
AUXTRACE records; the loads come from a peer core (SPE has no HITM).

--weight-struct lays the latency out as newer Intel cores' perf mem does
(PERF_SAMPLE_WEIGHT_STRUCT: the low 32 bits of the same word).

The layout follows tools/perf/Documentation/perf.data-file-format.txt.
"""
import argparse
import re
import struct
import subprocess

PID = 4242
BASE = 0x555555554000

# perf_event.h
S_IP, S_TID, S_TIME, S_ADDR, S_ID, S_CPU, S_PERIOD = 1, 2, 4, 8, 0x40, 0x80, 0x100
S_WEIGHT, S_DATA_SRC, S_IDENTIFIER = 0x4000, 0x8000, 0x10000
S_WEIGHT_STRUCT = 1 << 24
SAMPLE_TYPE = (S_IDENTIFIER | S_IP | S_TID | S_TIME | S_ADDR | S_ID | S_CPU | S_PERIOD |
               S_DATA_SRC)
REC_MMAP2, REC_COMM, REC_SAMPLE = 10, 3, 9
REC_BUILD_ID, REC_FINISHED_ROUND = 67, 68
MISC_USER, MISC_COMM_EXEC, MISC_BUILD_ID_SIZE = 2, 1 << 13, 1 << 15
OP_LOAD, OP_STORE = 2, 4
LVL_HIT, LVL_L1, LVL_L3 = 2, 8, 0x40
SNOOP_HITM = 16
DS_LOAD_HITM = OP_LOAD | ((LVL_HIT | LVL_L3) << 5) | (SNOOP_HITM << 19)
DS_STORE_L1 = OP_STORE | ((LVL_HIT | LVL_L1) << 5)
FEAT_BUILD_ID, FEAT_CPUID, FEAT_CMDLINE, FEAT_EVENT_DESC, FEAT_NUMA_TOPOLOGY = 2, 9, 11, 12, 14
ATTR_SIZE = 128

EVENTS = [  # name, config (Intel's mem-loads, mem-stores), its sample ids
    ("cpu/mem-loads,ldlat=30/P", 0x1cd, [1001, 1002]),
    ("cpu/mem-stores/P", 0x82d0, [2001, 2002]),
]
SPE_EVENTS = [("arm_spe_0/ts_enable=1,load_filter=1,store_filter=1/", 0, [3001])]
REC_ITRACE_START, REC_AUXTRACE, REC_TIME_CONV = 12, 71, 79
SPE_SAMPLE_TYPE = S_IDENTIFIER | S_IP | S_TID | S_TIME | S_CPU
SPE_EV = (1 << 1) | (1 << 2) | (1 << 4)       # retired, L1D access, TLB access
SPE_EV_L1D_REFILL = 1 << 3
SPE_NV_PEER_CORE = 0x9


def spe_record(ip, addr, tid, store, latency, ticks):
    """One SPE record, as an Arm core writes it into the AUX area."""
    b = b"\xb0" + struct.pack("<Q", ip | 1 << 63)        # PC, EL0, non-secure
    b += b"\xb2" + struct.pack("<Q", addr | 0x2a << 56)   # data VA, with a tag
    b += b"\x98" + struct.pack("<H", latency)            # total latency
    b += b"\x99" + struct.pack("<H", 4)                  # issue latency
    b += b"\x64" + struct.pack("<I", tid)                # CONTEXTIDR_EL1
    b += b"\x49" + bytes([1 if store else 0])            # LDST: store or load
    b += b"\x52" + struct.pack("<H", SPE_EV | (0 if store else SPE_EV_L1D_REFILL))
    if not store:
        b += b"\x53" + struct.pack("<H", SPE_NV_PEER_CORE)   # Neoverse data source
    return b + b"\x71" + struct.pack("<Q", ticks)      # timestamp ends the record


def symbol(binary, name):
    out = subprocess.run(["nm", binary], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        f = line.split()
        if len(f) == 3 and f[2] == name:
            return int(f[0], 16)
    raise SystemExit("%s: no symbol %s" % (binary, name))


def increment_access(binary):
    """The load and the store of `*counter += 1` in increment()."""
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", binary],
                         capture_output=True, text=True, check=True).stdout
    body = out.split("<increment>:")[1].split("\n\n")[0]
    load = store = None
    for line in body.splitlines():
        m = re.match(r"\s*([0-9a-f]+):\s+mov\s+(\S+)", line)
        if not m:
            continue
        addr, ops = int(m.group(1), 16), m.group(2)
        if re.fullmatch(r"\(%\w+\),%\w+", ops):
            load = addr
        elif re.fullmatch(r"%\w+,\(%\w+\)", ops) and load is not None:
            store = addr
    if load is None or store is None:
        raise SystemExit("%s: no load and store in increment" % binary)
    return load, store


def build_id(binary):
    out = subprocess.run(["readelf", "-n", binary], capture_output=True, text=True,
                         check=True).stdout
    m = re.search(r"Build ID: ([0-9a-f]+)", out)
    return bytes.fromhex(m.group(1)) if m else b""


def exec_segment(binary):
    """(vaddr, offset, filesz) of the executable PT_LOAD."""
    out = subprocess.run(["readelf", "-lW", binary], capture_output=True, text=True,
                         check=True).stdout
    for line in out.splitlines():
        f = line.split()
        if f and f[0] == "LOAD" and "E" in f[6:-1]:
            return int(f[2], 16), int(f[1], 16), int(f[4], 16)
    raise SystemExit("%s: no executable segment" % binary)


def attr(config, name_ids, sample_type, pmu=4):
    flags = (1 << 1) | (2 << 15) | (1 << 18)   # inherit, precise_ip 2, sample_id_all
    a = struct.pack("<IIQQQQQII", pmu, ATTR_SIZE, config, 10007, sample_type, 0, flags, 0, 0)
    return a.ljust(ATTR_SIZE, b"\0")


STYLE = "pebs"


def trailer(tid, time, ident):
    # sample_id_all: tid, time, (id), cpu, identifier
    if STYLE == "spe":
        return struct.pack("<IIQIIQ", PID, tid, time, 0, 0, ident)
    return struct.pack("<IIQQIIQ", PID, tid, time, ident, 0, 0, ident)


def record(rtype, misc, body):
    return struct.pack("<IHH", rtype, misc, 8 + len(body)) + body


def pad8(b):
    return b + b"\0" * (-len(b) % 8)


def header_string(s):
    b = pad8(s.encode() + b"\0")
    return struct.pack("<I", len(b)) + b


def spe_data(args, t, load_ip, store_ip, counters):
    """ITRACE_START, TIME_CONV (ticks are perf time), then the accesses as
    SPE records in AUXTRACE chunks of 64 records, on CPU 0."""
    data = bytearray()
    data += record(REC_ITRACE_START, 0, struct.pack("<II", PID, PID + 1) +
                   trailer(PID + 1, t, 3001))
    # time_shift, time_mult, time_zero, time_cycles, time_mask, cap_user_time_zero, short
    data += record(REC_TIME_CONV, 0, struct.pack("<QQQQQBB6x", 0, 1, 0, 0, 0, 1, 0))
    chunk, offset = bytearray(), 0
    for i in range(args.samples):
        t += 50_000
        th = i % args.threads
        store = (i // args.threads) % 4 == 3
        chunk += spe_record(store_ip if store else load_ip, counters + 8 * th, PID + 1 + th,
                            store, 0 if store else 200, t)
        if i % 64 == 63 or i == args.samples - 1:
            chunk += b"\0" * (-len(chunk) % 8)     # PAD packets to perf's alignment
            data += record(REC_AUXTRACE, 0, struct.pack("<QQQIIII", len(chunk), offset, 0, 0,
                                                        0xffffffff, 0, 0)) + chunk
            offset += len(chunk)
            chunk = bytearray()
    return bytes(data)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("out")
    ap.add_argument("--samples", type=int, default=4000)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--weight-struct", action="store_true")
    ap.add_argument("--style", choices=["pebs", "spe"], default="pebs")
    args = ap.parse_args()
    global STYLE
    STYLE = args.style
    weight = S_WEIGHT_STRUCT if args.weight_struct else S_WEIGHT
    events = SPE_EVENTS if STYLE == "spe" else EVENTS
    sample_type = SPE_SAMPLE_TYPE if STYLE == "spe" else SAMPLE_TYPE | weight
    pmu = 8 if STYLE == "spe" else 4      # arm_spe's is a dynamic type
    first_id = events[0][2][0]

    counters = BASE + symbol(args.binary, "counters")
    load_ip, store_ip = (BASE + a for a in increment_access(args.binary))
    vaddr, offset, filesz = exec_segment(args.binary)
    page = 0x1000
    seg_start, seg_off = vaddr & ~(page - 1), offset & ~(page - 1)
    seg_len = (vaddr + filesz - seg_start + page - 1) & ~(page - 1)
    path = args.binary.encode()

    data = bytearray()
    t = 1_000_000_000
    data += record(REC_COMM, MISC_USER | MISC_COMM_EXEC,
                   struct.pack("<II", PID, PID) + pad8(b"false_sharing_c\0") +
                   trailer(PID, t, first_id))
    mmap2 = struct.pack("<IIQQQIIQQII", PID, PID, BASE + seg_start, seg_len, seg_off,
                        0xfe, 0, 12345, 0, 5, 2)   # prot r-x, MAP_PRIVATE
    data += record(REC_MMAP2, MISC_USER, mmap2 + pad8(path + b"\0") + trailer(PID, t, first_id))
    if STYLE == "spe":
        data += spe_data(args, t, load_ip, store_ip, counters)
    for i in range(args.samples if STYLE == "pebs" else 0):
        t += 50_000
        th = i % args.threads
        tid = PID + 1 + th
        store = (i // args.threads) % 4 == 3
        ev = EVENTS[1 if store else 0]
        ident = ev[2][th % 2]
        body = struct.pack("<QQIIQQQIIQQQ", ident, store_ip if store else load_ip, PID, tid, t,
                           counters + 8 * th, ident, th, 0, 10007,
                           0 if store else (7 << 32 if args.weight_struct else 0) | 200,
                           DS_STORE_L1 if store else DS_LOAD_HITM)
        data += record(REC_SAMPLE, MISC_USER, body)
        if i % 500 == 499:
            data += record(REC_FINISHED_ROUND, 0, b"")

    ids = b"".join(struct.pack("<Q", i) for _, _, l in events for i in l)
    off = 104
    ids_off = off
    off += len(ids)
    attrs = b""
    id_pos = ids_off
    for name, config, l in events:
        attrs += attr(config, l, sample_type, pmu) + struct.pack("<QQ", id_pos, 8 * len(l))
        id_pos += 8 * len(l)
    attrs_off = off
    off += len(attrs)
    data_off = off
    off += len(data)

    bid = build_id(args.binary)
    feat_build_id = record(REC_BUILD_ID, MISC_USER | MISC_BUILD_ID_SIZE,
                           struct.pack("<i", PID) + bid.ljust(20, b"\0") +
                           bytes([len(bid)]) + b"\0\0\0" + pad8(path + b"\0"))
    words = (["perf", "record", "-e", events[0][0]] if STYLE == "spe" else
             ["perf", "mem", "record"]) + ["--", args.binary, "-t", str(args.threads)]
    feat_cmdline = struct.pack("<I", len(words)) + b"".join(header_string(w) for w in words)
    feat_desc = struct.pack("<II", len(events), ATTR_SIZE)
    for name, config, l in events:
        feat_desc += attr(config, l, sample_type, pmu) + struct.pack("<I", len(l)) + header_string(name)
        feat_desc += b"".join(struct.pack("<Q", i) for i in l)
    # two nodes, a CPU each: thread t samples on CPU t (pebs) or 0 (spe)
    feat_numa = struct.pack("<I", 2) + b"".join(
        struct.pack("<IQQ", n, 1 << 30, 1 << 29) + header_string(str(n)) for n in range(2))
    # the CPU: an Intel Icelake, or for SPE a Neoverse N1's MIDR (its data
    # source encoding)
    feat_cpuid = header_string("0x00000000410fd0c0" if STYLE == "spe" else "GenuineIntel,6,106,6")
    feats = [(FEAT_BUILD_ID, feat_build_id), (FEAT_CPUID, feat_cpuid), (FEAT_CMDLINE, feat_cmdline),
             (FEAT_EVENT_DESC, feat_desc), (FEAT_NUMA_TOPOLOGY, feat_numa)]
    table_off = off
    off += 16 * len(feats)
    table, bodies = b"", b""
    for _, body in feats:
        table += struct.pack("<QQ", off, len(body))
        off += len(body)
        bodies += body
    bits = sum(1 << b for b, _ in feats)

    hdr = struct.pack("<8sQQQQQQQQQQQQ", b"PERFILE2", 104, ATTR_SIZE + 16,
                      attrs_off, len(attrs), data_off, len(data), 0, 0, bits, 0, 0, 0)
    assert table_off == data_off + len(data)
    with open(args.out, "wb") as f:
        f.write(hdr + ids + attrs + bytes(data) + table + bodies)


if __name__ == "__main__":
    main()
