#!/bin/sh
# tests/compare.sh: compare go-heap's output with runtime/pprof's (python3, stdlib only).
#
#   compare.sh text  EXPECTED.txt   ACTUAL.txt     heap/allocs debug=1 text
#   compare.sh pprof EXPECTED.pb.gz ACTUAL.pb.gz   decoded profile.proto, sample for sample
#   compare.sh dump  FILE.pb.gz                    print a decoded profile (debugging aid)
#
# Options (anywhere):
#   --ignore-zero-from F,..  drop all-zero records/samples whose stack contains one of these
#                            functions, on both sides (default main.writeProfiles,main.recheckProfiles:
#                            heapprog's own writer buckets, created after its in-process write;
#                            see tests/go/heapprog/main.go).  "" disables it.
#   --tolerance N            proto values may differ by N (default 1: libm exp vs Go's)
#   --any-order              proto samples may come in any order (default: same order)
#   --max-report N           differences to print (default 5)
#   --drop-from F,..         proto: drop every sample whose stack holds one of these functions,
#                            on both sides, whatever its values (data that changes by itself,
#                            such as the runtime's own lock contention in a mutex profile)
#   --drop-sample E,A        proto: drop the one sample whose stack holds function E from the
#                            expected side and the one holding A from the actual side (a
#                            goroutine profile's writer: busy writing in-process, parked
#                            after); each must match exactly one sample of count 1
#
# text: the header line must be equal; the MemStats trailer ("# runtime.MemStats" onward) is
# ignored on both sides; records are compared byte for byte, in order, except that records
# with the same sort key (InUseBytes) may be permuted (Go sorts them with an unstable sort).
# pprof: sample types, period type, period, default sample type, drop/keep frames, comments,
# mappings (start, limit, offset, file, build id, has_* flags, in order), and for every sample
# its values (+-tolerance), labels and stack: for every location its address, mapping and
# lines (function name, system name, file, start line, line).  Ignored: ids, time_nanos,
# duration_nanos, string table order, table order.
#
# Exit: 0 equal, 1 different (reasons on stdout), 2 usage or unreadable input.
exec python3 - "$@" <<'PY'
import gzip, re, sys, zlib
from collections import Counter

USAGE = "usage: compare.sh [--ignore-zero-from F,...] [--tolerance N] [--any-order] " \
        "[--max-report N] text|pprof EXPECTED ACTUAL | dump FILE"

opts = {"ignore": "main.writeProfiles,main.recheckProfiles", "tol": 1, "any_order": False, "max": 5,
        "drop": None, "drop_from": ""}
args, rest = [], sys.argv[1:]
try:
    while rest:
        a = rest.pop(0)
        if a == "--ignore-zero-from":
            opts["ignore"] = rest.pop(0)
        elif a == "--tolerance":
            opts["tol"] = int(rest.pop(0))
        elif a == "--any-order":
            opts["any_order"] = True
        elif a == "--max-report":
            opts["max"] = int(rest.pop(0))
        elif a == "--drop-from":
            opts["drop_from"] = rest.pop(0)
        elif a == "--drop-sample":
            opts["drop"] = rest.pop(0).split(",")
            if len(opts["drop"]) != 2:
                raise IndexError
        elif a.startswith("--"):
            raise IndexError
        else:
            args.append(a)
except (IndexError, ValueError):
    print(USAGE, file=sys.stderr)
    sys.exit(2)

class BadInput(Exception):
    pass

diffs = []
def diff(msg):
    diffs.append(msg)

def finish(what):
    if not diffs:
        print(f"{what}: equal")
        sys.exit(0)
    for d in diffs[:opts["max"]]:
        print(d)
    if len(diffs) > opts["max"]:
        print(f"... and {len(diffs) - opts['max']} more differences")
    sys.exit(1)

# ----------------------------------------------------------------- text

REC = re.compile(r"^(\d+): (\d+) \[(\d+): (\d+)\] @((?: 0x[0-9a-f]+)*)$")
HDR = re.compile(r"^heap profile: \d+: \d+ \[\d+: \d+\] @ heap/\d+$")

def parse_text(path):
    try:
        with open(path, "rb") as f:
            data = f.read().decode("utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise BadInput(f"{path}: {e}")
    lines = data.split("\n")
    if "# runtime.MemStats" in lines:
        lines = lines[:lines.index("# runtime.MemStats")]
    while lines and lines[-1] == "":
        lines.pop()
    if not lines or not HDR.match(lines[0]):
        raise BadInput(f"{path}: first line is not a heap profile header: {lines[0][:80] if lines else '(empty)'!r}")
    recs, cur = [], None
    for n, l in enumerate(lines[1:], 2):
        m = REC.match(l)
        if m:
            if cur is not None:
                raise BadInput(f"{path}:{n}: record without its terminating blank line")
            cur = [int(m.group(2)), int(m.group(1)) == int(m.group(2)) == int(m.group(3)) == int(m.group(4)) == 0, [l]]
        elif l.startswith("#\t"):
            if cur is None:
                raise BadInput(f"{path}:{n}: frame line outside a record")
            cur[2].append(l)
        elif l == "":
            if cur is None:
                raise BadInput(f"{path}:{n}: unexpected blank line")
            recs.append((cur[0], cur[1], "\n".join(cur[2])))
            cur = None
        else:
            raise BadInput(f"{path}:{n}: unexpected line {l[:80]!r}")
    if cur is not None:
        recs.append((cur[0], cur[1], "\n".join(cur[2])))
    return lines[0], recs

def text_filter(recs):
    if not opts["ignore"]:
        return recs, 0
    marks = ["\t" + f + "+" for f in opts["ignore"].split(",") if f]
    keep = [r for r in recs if not (r[1] and any(m in r[2] for m in marks))]
    return keep, len(recs) - len(keep)

def groups(recs):
    out = []
    for key, _, body in recs:
        if out and out[-1][0] == key:
            out[-1][1].append(body)
        else:
            out.append((key, [body]))
    return out

def short(body):
    ls = body.split("\n")
    return "\n      ".join(ls[:4] + (["..."] if len(ls) > 4 else []))

def cmp_text(exp_path, act_path):
    eh, er = parse_text(exp_path)
    ah, ar = parse_text(act_path)
    if eh != ah:
        diff(f"header differs:\n  expected: {eh}\n  actual:   {ah}")
    er, en = text_filter(er)
    ar, an = text_filter(ar)
    if en or an:
        print(f"note: ignored all-zero records from {opts['ignore']}: {en} expected, {an} actual")
    ec, ac = Counter(b for _, _, b in er), Counter(b for _, _, b in ar)
    for b, c in (ec - ac).items():
        diff(f"record missing in actual (x{c}):\n      {short(b)}")
    for b, c in (ac - ec).items():
        diff(f"record only in actual (x{c}):\n      {short(b)}")
    if not diffs:
        # Same multiset: now the order, up to permutation among equal keys.
        eg, ag = groups(er), groups(ar)
        for i, (x, y) in enumerate(zip(eg, ag)):
            if x[0] != y[0] or Counter(x[1]) != Counter(y[1]):
                diff(f"record order differs at sort-key group {i}: expected key {x[0]} "
                     f"({len(x[1])} records), actual key {y[0]} ({len(y[1])} records); "
                     f"first expected record:\n      {short(x[1][0])}")
                break
        else:
            if len(eg) != len(ag):
                diff(f"record order differs: {len(eg)} vs {len(ag)} sort-key groups")
    if not diffs:
        print(f"{len(er)} records, {len(groups(er))} sort-key groups")
    finish("text")

# ----------------------------------------------------------------- proto

def varint(b, i):
    r = s = 0
    while True:
        if i >= len(b):
            raise BadInput("truncated varint")
        c = b[i]; i += 1
        r |= (c & 0x7f) << s
        if c < 0x80:
            return r, i
        s += 7
        if s > 63:
            raise BadInput("varint too long")

def fields(b):
    """Yield (field number, wire type, value); value is int or bytes."""
    i = 0
    while i < len(b):
        k, i = varint(b, i)
        fn, wt = k >> 3, k & 7
        if wt == 0:
            v, i = varint(b, i)
        elif wt == 2:
            n, i = varint(b, i)
            if i + n > len(b):
                raise BadInput("truncated field")
            v = b[i:i + n]; i += n
        elif wt == 1:
            v = int.from_bytes(b[i:i + 8], "little"); i += 8
        elif wt == 5:
            v = int.from_bytes(b[i:i + 4], "little"); i += 4
        else:
            raise BadInput(f"bad wire type {wt}")
        yield fn, wt, v

def s64(v):
    return v - (1 << 64) if v >= 1 << 63 else v

def ints(wt, v, signed=False):
    """A repeated integer field entry, packed (wire type 2) or not."""
    if wt == 2:
        out, i = [], 0
        while i < len(v):
            x, i = varint(v, i)
            out.append(s64(x) if signed else x)
        return out
    return [s64(v) if signed else v]

def msg(b, spec):
    """Decode a message: spec maps field -> (name, kind); kind in int, sint, str, bytes, ints, sints, msgs."""
    out = {name: ([] if kind in ("ints", "sints", "msgs") else 0) for name, kind in spec.values()}
    for fn, wt, v in fields(b):
        if fn not in spec:
            continue
        name, kind = spec[fn]
        if kind == "int":
            out[name] = v
        elif kind == "sint":
            out[name] = s64(v)
        elif kind == "ints":
            out[name] += ints(wt, v)
        elif kind == "sints":
            out[name] += ints(wt, v, True)
        elif kind == "msgs":
            out[name].append(v)
        elif kind == "str":
            out[name] = v
    return out

PROFILE = {1: ("sample_type", "msgs"), 2: ("sample", "msgs"), 3: ("mapping", "msgs"),
           4: ("location", "msgs"), 5: ("function", "msgs"), 6: ("string_table", "msgs"),
           7: ("drop_frames", "sint"), 8: ("keep_frames", "sint"), 9: ("time_nanos", "sint"),
           10: ("duration_nanos", "sint"), 11: ("period_type", "msgs"), 12: ("period", "sint"),
           13: ("comment", "sints"), 14: ("default_sample_type", "sint")}
VALUETYPE = {1: ("type", "sint"), 2: ("unit", "sint")}
SAMPLE = {1: ("location_id", "ints"), 2: ("value", "sints"), 3: ("label", "msgs")}
LABEL = {1: ("key", "sint"), 2: ("str", "sint"), 3: ("num", "sint"), 4: ("num_unit", "sint")}
MAPPING = {1: ("id", "int"), 2: ("memory_start", "int"), 3: ("memory_limit", "int"),
           4: ("file_offset", "int"), 5: ("filename", "sint"), 6: ("build_id", "sint"),
           7: ("has_functions", "int"), 8: ("has_filenames", "int"),
           9: ("has_line_numbers", "int"), 10: ("has_inline_frames", "int")}
LOCATION = {1: ("id", "int"), 2: ("mapping_id", "int"), 3: ("address", "int"),
            4: ("line", "msgs"), 5: ("is_folded", "int")}
LINE = {1: ("function_id", "int"), 2: ("line", "sint"), 3: ("column", "sint")}
FUNCTION = {1: ("id", "int"), 2: ("name", "sint"), 3: ("system_name", "sint"),
            4: ("filename", "sint"), 5: ("start_line", "sint")}

def load_proto(path):
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as e:
        raise BadInput(f"{path}: {e}")
    if raw[:2] == b"\x1f\x8b":
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError, zlib.error) as e:
            raise BadInput(f"{path}: bad gzip: {e}")
    try:
        return canon(raw)
    except BadInput as e:
        raise BadInput(f"{path}: {e}")

def canon(raw):
    p = msg(raw, PROFILE)
    strs = [s.decode("utf-8", "replace") for s in p["string_table"]]
    if not strs or strs[0] != "":
        raise BadInput("string table must start with \"\"")
    def S(i):
        if not 0 <= i < len(strs):
            raise BadInput(f"string index {i} out of range")
        return strs[i]
    def vt(b):
        m = msg(b, VALUETYPE)
        return (S(m["type"]), S(m["unit"]))
    maps = [msg(b, MAPPING) for b in p["mapping"]]
    mapc = {}
    for m in maps:
        if m["id"] in mapc:
            raise BadInput(f"duplicate mapping id {m['id']}")
        mapc[m["id"]] = (m["memory_start"], m["memory_limit"], m["file_offset"], S(m["filename"]),
                         S(m["build_id"]), m["has_functions"], m["has_filenames"],
                         m["has_line_numbers"], m["has_inline_frames"])
    funcs = {}
    for b in p["function"]:
        f = msg(b, FUNCTION)
        if f["id"] in funcs:
            raise BadInput(f"duplicate function id {f['id']}")
        funcs[f["id"]] = (S(f["name"]), S(f["system_name"]), S(f["filename"]), f["start_line"])
    locs = {}
    for b in p["location"]:
        l = msg(b, LOCATION)
        if l["id"] in locs:
            raise BadInput(f"duplicate location id {l['id']}")
        if l["mapping_id"] and l["mapping_id"] not in mapc:
            raise BadInput(f"location {l['id']}: unknown mapping {l['mapping_id']}")
        lines = []
        for lb in l["line"]:
            ln = msg(lb, LINE)
            if ln["function_id"] not in funcs:
                raise BadInput(f"location {l['id']}: unknown function {ln['function_id']}")
            lines.append(funcs[ln["function_id"]] + (ln["line"], ln["column"]))
        m = mapc.get(l["mapping_id"])
        locs[l["id"]] = (l["address"], (m[0], m[3]) if m else None, l["is_folded"], tuple(lines))
    samples = []
    for b in p["sample"]:
        s = msg(b, SAMPLE)
        stack = []
        for i in s["location_id"]:
            if i not in locs:
                raise BadInput(f"sample refers to unknown location {i}")
            stack.append(locs[i])
        labels = tuple(sorted((S(l["key"]), S(l["str"]), l["num"], S(l["num_unit"]))
                              for l in (msg(x, LABEL) for x in s["label"])))
        samples.append((tuple(s["value"]), labels, tuple(stack)))
    pt = [vt(b) for b in p["period_type"]]
    return {
        "sample_type": [vt(b) for b in p["sample_type"]],
        "period_type": pt[-1] if pt else None,
        "period": p["period"],
        "default_sample_type": S(p["default_sample_type"]),
        "drop_frames": S(p["drop_frames"]),
        "keep_frames": S(p["keep_frames"]),
        "comment": [S(c) for c in p["comment"]],
        "mapping": [mapc[m["id"]] for m in maps],
        "sample": samples,
    }

def fmt_loc(l):
    fr = "; ".join(f"{x[0]} {x[2]}:{x[4]}" for x in l[3]) or "?"
    return f"{l[0]:#x} {fr}"

def fmt_sample(s):
    out = f"values={list(s[0])} labels={list(s[1])}"
    for l in s[2][:6]:
        out += "\n        " + fmt_loc(l)
    if len(s[2]) > 6:
        out += f"\n        ... {len(s[2]) - 6} more locations"
    return out

def proto_filter(samples):
    fs = set(f for f in opts["ignore"].split(",") if f)
    if not fs:
        return samples, 0
    keep = [s for s in samples
            if not (all(v == 0 for v in s[0]) and any(x[0] in fs for l in s[2] for x in l[3]))]
    return keep, len(samples) - len(keep)

def close(a, b):
    return len(a) == len(b) and all(abs(x - y) <= opts["tol"] for x, y in zip(a, b))

def cmp_pprof(exp_path, act_path):
    e, a = load_proto(exp_path), load_proto(act_path)
    for k in ("sample_type", "period_type", "period", "default_sample_type", "drop_frames",
              "keep_frames", "comment"):
        if e[k] != a[k]:
            diff(f"{k} differs: expected {e[k]!r}, actual {a[k]!r}")
    if e["mapping"] != a["mapping"]:
        em, am = set(e["mapping"]), set(a["mapping"])
        for m in e["mapping"]:
            if m not in am:
                diff(f"mapping missing in actual: {m}")
        for m in a["mapping"]:
            if m not in em:
                diff(f"mapping only in actual: {m}")
        if em == am:
            diff("mappings in a different order")
    if opts["drop"]:
        for side, fn in ((e, opts["drop"][0]), (a, opts["drop"][1])):
            hit = [i for i, x in enumerate(side["sample"])
                   if any(fr[0] == fn for l in x[2] for fr in l[3])]
            if len(hit) != 1 or list(side["sample"][hit[0]][0]) != [1]:
                diff(f"--drop-sample: {len(hit)} samples hold {fn}, want one of count 1")
            else:
                del side["sample"][hit[0]]
    dfs = set(f for f in opts["drop_from"].split(",") if f)
    if dfs:
        for side in (e, a):
            side["sample"] = [x for x in side["sample"]
                              if not any(fr[0] in dfs for l in x[2] for fr in l[3])]
    es, en = proto_filter(e["sample"])
    as_, an = proto_filter(a["sample"])
    if en or an:
        print(f"note: ignored all-zero samples from {opts['ignore']}: {en} expected, {an} actual")
    if len(es) != len(as_):
        diff(f"sample count differs: expected {len(es)}, actual {len(as_)}")
    # Match: in order, unless --any-order.  A sample matches when labels and stack are
    # equal and the values are within the tolerance.
    if not opts["any_order"] and len(es) == len(as_):
        for i, (x, y) in enumerate(zip(es, as_)):
            if x[1:] != y[1:] or not close(x[0], y[0]):
                diff(f"sample {i} differs:\n  expected {fmt_sample(x)}\n  actual   {fmt_sample(y)}")
    if opts["any_order"] or len(es) != len(as_) or diffs:
        # Multiset view, for a better report (or the comparison itself with --any-order).
        pool = {}
        for y in as_:
            pool.setdefault(y[1:], []).append(y[0])
        missing = []
        for x in es:
            cand = pool.get(x[1:], [])
            for j, v in enumerate(cand):
                if close(x[0], v):
                    del cand[j]
                    break
            else:
                missing.append(x)
        extra = [(v,) + k for k, vs in pool.items() for v in vs]
        if opts["any_order"] or missing or extra:
            for x in missing:
                diff(f"sample missing in actual: {fmt_sample(x)}")
            for y in extra:
                diff(f"sample only in actual: {fmt_sample(y)}")
        elif not opts["any_order"]:
            diff("the same samples, but in a different order")
    if not diffs:
        print(f"{len(es)} samples, {len(e['mapping'])} mappings, {len(e['sample_type'])} sample types")
    finish("pprof")

def dump(path):
    p = load_proto(path)
    for k in ("sample_type", "period_type", "period", "default_sample_type", "drop_frames",
              "keep_frames", "comment"):
        print(f"{k}: {p[k]!r}")
    print("mappings:")
    for m in p["mapping"]:
        print(f"  {m[0]:#x}-{m[1]:#x} off={m[2]:#x} {m[3]} buildid={m[4]!r} has={m[5:]} ")
    print(f"samples: {len(p['sample'])}")
    for s in p["sample"]:
        print(f"  {list(s[0])} {list(s[1])}")
        for l in s[2]:
            print(f"    {l[0]:#x} map={l[1][1] if l[1] else None}{' folded' if l[2] else ''}")
            for x in l[3]:
                print(f"      {x[0]} [{x[1]}] {x[2]}:{x[4]} start={x[3]}" + (f" col={x[5]}" if x[5] else ""))

try:
    if len(args) == 3 and args[0] == "text":
        cmp_text(args[1], args[2])
    elif len(args) == 3 and args[0] == "pprof":
        cmp_pprof(args[1], args[2])
    elif len(args) == 2 and args[0] == "dump":
        dump(args[1])
    else:
        print(USAGE, file=sys.stderr)
        sys.exit(2)
except BadInput as e:
    print(f"compare.sh: {e}")
    sys.exit(2)
except BrokenPipeError:
    sys.exit(1)
PY
