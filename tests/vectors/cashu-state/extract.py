#!/usr/bin/env python3
"""Extracts the published vectors of both revisions from the copied XX-tests.md (and the
worked examples of XX.md) into revision-a.json and revision-b.json, which the Rust tests read.

Standard library only. It copies values; it computes nothing. Run it from anywhere:
    python3 tests/vectors/cashu-state/extract.py
and check that `git diff` is empty.
"""
import json
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
A_TESTS = os.path.join(HERE, "revision-a-gcs-epochs", "XX-tests.md")
A_SPEC = os.path.join(HERE, "revision-a-gcs-epochs", "XX.md")
B_TESTS = os.path.join(HERE, "revision-b-bloom-blocks", "XX-tests.md")
B_SPEC = os.path.join(HERE, "revision-b-bloom-blocks", "XX.md")
QUOTE_ID = "019e6d5a-2347-7000-8afa-051ae571f334"
UNITS = {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20}


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def section(text, heading):
    """The text under `heading` up to the next heading of the same or a higher level."""
    start = text.index(heading + "\n")
    level = len(heading) - len(heading.lstrip("#"))
    out, fenced = [], False
    for line in text[start + len(heading) + 1:].split("\n"):
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and re.match(r"#{1,%d} " % level, line):
            break
        out.append(line)
    return "\n".join(out)


def fences(sec):
    """The bodies of the fenced code blocks of a section, in order."""
    return re.findall(r"^```[a-z]*\n(.*?)^```", sec, re.M | re.S)


def field(block, name):
    """The value after `name:` on its line, without a trailing `# comment`."""
    m = re.search(r"^%s:[ \t]*(.*?)[ \t]*(?:#.*)?$" % re.escape(name), block, re.M)
    if m is None:
        raise KeyError(name)
    return m.group(1)


def continued(block, name):
    """A field whose value continues on indented lines (words, elements, base64)."""
    lines = block.split("\n")
    for i, line in enumerate(lines):
        if line.startswith(name + ":"):
            out = [line[len(name) + 1:]]
            for nxt in lines[i + 1:]:
                if nxt.startswith(" ") and nxt.strip():
                    out.append(nxt)
                else:
                    break
            return [re.sub(r"#.*", "", v).split() for v in out]
    raise KeyError(name)


def ints(text):
    return [int(x) for x in re.findall(r"\d+", text.replace(",", ""))]


def size(n, unit):
    return int(n) * UNITS[unit]


def element_tests(sec):
    """`# Test k (...)` blocks with `Y:` and `E: ... # state S` lines (tests 1-5)."""
    out = []
    for title, y, e, state in re.findall(
        r"^# (Test \d+ \(.*?\))\nY:\s+([0-9a-f]+)\nE:\s+([0-9a-f]+) # state (\w+)", sec, re.M
    ):
        out.append({"name": title, "kind": "proof_state", "id_hex": y, "state": state, "e": e})
    return out


def state_separation(sec):
    body = fences(sec)[0]
    y = re.search(r"Y = ([0-9a-f]+)", body).group(1)
    return [
        {"name": "state separation " + s, "kind": "proof_state", "id_hex": y, "state": s, "e": e}
        for s, e in re.findall(r"^(UNSPENT|PENDING|SPENT):\s+([0-9a-f]+)", body, re.M)
    ]


def quote_elements(sec):
    qid = QUOTE_ID.encode().hex()
    out = []
    b = fences(sec)[0]
    t1, t2, t3 = re.split(r"^# Test \d.*$", b, flags=re.M)[1:]
    assert field(t1, "Kind") == "mint_quote" and field(t1, "State") == '""'
    out.append({"name": "quote test 1", "kind": "mint_quote", "id_hex": qid, "state": "", "e": field(t1, "E")})
    assert field(t2, "Kind") == "melt_quote"
    for e, state in re.findall(r"^E:\s+([0-9a-f]+) # state (\w+)", t2, re.M):
        out.append({"name": "quote test 2 " + state, "kind": "melt_quote", "id_hex": qid, "state": state, "e": e})
    upper = field(t3, "Quote")
    assert upper == QUOTE_ID.upper()
    out.append({"name": "quote test 3 (uppercase id)", "kind": field(t3, "Kind"),
                "id_hex": upper.encode().hex(), "state": "", "e": field(t3, "E")})
    return out


def revision_a():
    text = read(A_TESTS)
    out = {"source": "revision-a-gcs-epochs/XX-tests.md and XX.md"}
    elements = element_tests(section(text, "### Element derivation"))
    elements += state_separation(section(text, "### State separation"))
    elements += quote_elements(section(text, "### Quote elements"))
    out["elements"] = elements

    pre = fences(section(text, "### Preimages"))[0]
    p1, p2 = re.split(r"^# Test 2.*$", pre, flags=re.M)
    out["preimages"] = [
        {"kind": "proof_state", "id_hex": elements[0]["id_hex"], "state": "SPENT",
         "preimage": field(p1, "Preimage"), "e": field(p1, "E")},
        {"kind": "mint_quote", "id_hex": QUOTE_ID.encode().hex(), "state": "",
         "preimage": field(p2, "Preimage"), "e": field(p2, "E")},
    ]

    sec = section(text, "### Filter encoding")
    b1, b2, b3 = fences(sec)
    spent = [e["e"] for e in elements[:5]]
    listed = re.findall(r"^E: ([0-9a-f]+)\.\.\.\s+pos: (\d+)", b1, re.M)
    assert [p for p, _ in listed] == [e[:8] for e in spent]
    assert "P = 28" in sec and "N = 5" in sec
    out["filter"] = {
        "p": 28,
        "elements": spent,
        "positions": [int(v) for _, v in listed],
        "sorted": ints(field(b1, "Sorted")),
        "data": field(b1, "data"),
        "n": int(field(b1, "N decoded")),
    }
    m = re.search(r"The delta is `(\d+)`, whose quotient is `(\d+)`.*?the 28 bits `([01]+)`", sec, re.S)
    out["single"] = {
        "p": 28,
        "kind": "proof_state",
        "id_hex": field(b2, "Y"),
        "state": field(b2, "State"),
        "pos": int(field(b2, "pos")),
        "delta": int(m.group(1)),
        "quotient": int(m.group(2)),
        "remainder_bits": m.group(3),
        "data": field(b2, "data"),
        "n": int(field(b2, "N decoded")),
    }
    out["empty"] = {"p": 28, "data": field(b3, "data").strip('"'), "n": int(field(b3, "N decoded"))}

    b = fences(section(text, "### Matching"))[0]
    out["matching"] = {
        "p": 28,
        "kind": "proof_state",
        "id_hex": field(b, "Y"),
        "state": field(b, "State"),
        "e": field(b, "E"),
        "pos": int(field(b, "pos")),
        "n": int(re.search(r"with N = (\d+)", b).group(1)),
        "match": field(b, "Result") != "no match",
    }

    b = fences(section(text, "### Paging"))[0]
    kv = dict(re.findall(r"(\w+) = (\d+)", b))
    p0 = re.search(r"^page 0\s+->\s+(\d+) filters, (\d+) \.\. (\d+)", b, re.M)
    p174 = re.search(r"^page 174\s+->\s+(\d+) filters, ends (\d+)", b, re.M)
    p175 = re.search(r"^page 175\s+->\s+(\d+) filters so far", b, re.M)
    p176 = re.search(r"^page 176\s+->\s+error (\d+)", b, re.M)
    out["paging"] = {
        "filters": int(re.search(r"([\d,]+) filters", section(text, "### Paging")).group(1).replace(",", "")),
        "epoch": int(kv["epoch"]),
        "page_size": int(kv["page_size"]),
        "first_page": int(kv["first_page"]),
        "current_page": int(kv["current_page"]),
        "current_page_count": int(kv["current_page_count"]),
        "earliest_start": int(kv["earliest_start"]),
        "latest_end": int(kv["latest_end"]),
        "page_0": {"filters": int(p0.group(1)), "start": int(p0.group(2)), "end": int(p0.group(3))},
        "page_174": {"filters": int(p174.group(1)), "end": int(p174.group(2))},
        "page_175": {"filters": int(p175.group(1))},
        "page_176": {"error": int(p176.group(1))},
    }

    spec = read(A_SPEC)
    ex = section(spec, "## Example")
    out["spec_example"] = json.loads(fences(ex)[1])
    return out


def case_single(sec):
    b = fences(sec)[0]
    state = field(b, "state")
    return {
        "kind": field(b, "kind"),
        "id_hex": field(b, "id"),
        "state_hex": state,
        "preimage": field(b, "preimage"),
        "e": field(b, "E"),
        "d0": field(b, "d0"),
        "d1": field(b, "d1"),
        "words": [w for line in continued(b, "words") for w in line],
        "b": int(field(b, "b")),
        "positions": ints(field(b, "positions")),
        "distinct": ints(field(b, "distinct"))[0],
        "popcount": ints(field(b, "popcount"))[0],
        "bits": ints(field(b, "popcount"))[1],
        "hex": field(b, "hex"),
        "base64": [line[0] for line in continued(b, "base64")],
    }


def revision_b():
    text = read(B_TESTS)
    out = {"source": "revision-b-bloom-blocks/XX-tests.md and XX.md"}
    elements = element_tests(section(text, "### Element derivation"))
    elements += state_separation(section(text, "### State separation"))
    elements += quote_elements(section(text, "### Quote elements"))
    b = fences(section(text, "### Blind signature elements"))[0]
    for title, bm, e in re.findall(r"^# (Test \d+ \(.*?\))\nB_:\s+([0-9a-f]+)\nE:\s+([0-9a-f]+)", b, re.M):
        elements.append({"name": "blind signature " + title, "kind": "blind_signature", "id_hex": bm,
                         "state": "", "e": e})
    sec = section(text, "### Kind separation")
    shared = re.search(r"the bytes `([0-9a-f]+)`", sec).group(1)
    for kind, state, e in re.findall(r"^Kind:\s+(\w+)\nState:\s+(.*?)\nE:\s+([0-9a-f]+)", fences(sec)[0], re.M):
        elements.append({"name": "kind separation " + kind, "kind": kind, "id_hex": shared,
                         "state": "" if state == '""' else state, "e": e})
    out["elements"] = elements

    cases = {}
    for i, title in enumerate(["### Case 1: a `proof_state` element",
                               "### Case 2: a `mint_quote` element with an empty state",
                               "### Case 3: a `blind_signature` element"], 1):
        cases[str(i)] = case_single(section(text, title))

    sec = section(text, "### Case 4: several elements in one bitmap")
    b4, nm = fences(sec)
    pm = re.search(r"^p_0:\s+(\d+)\s+# byte (\d+), mask 0x([0-9a-f]{2})", nm, re.M)
    cases["4"] = {
        "kind": field(b4, "kind"),
        "b": int(field(b4, "b")),
        "count": int(field(b4, "count")),
        "elements": [line[0] for line in continued(b4, "elements")],
        "popcount": ints(field(b4, "popcount"))[0],
        "bits": ints(field(b4, "popcount"))[1],
        "hex": field(b4, "hex"),
        "base64": [line[0] for line in continued(b4, "base64")],
        "capacity_b10": int(re.search(r"holds only (\d+) insertions", sec).group(1)),
        "non_member": {
            "y": re.search(r"Y = ([0-9a-f]+)\.\.\.([0-9a-f]+)", nm).groups(),
            "state": "PENDING",
            "e": field(nm, "E"),
            "positions": ints(field(nm, "positions")),
            "p_0": int(pm.group(1)),
            "byte": int(pm.group(2)),
            "mask": int(pm.group(3), 16),
            "bit": int(field(nm, "bit")),
        },
    }

    sec = section(text, "### Case 5: two positions of one element colliding")
    b5 = fences(sec)[0]
    head = b5.split("\n\n# The same element")[0]
    cases["5"] = {
        "e": field(b5, "E"),
        "b": int(field(head, "b")),
        "positions": ints(field(head, "positions")),
        "distinct": ints(field(head, "distinct"))[0],
        "colliding_words": [[int(i), int(j), int(v)] for i, j, v in
                            re.findall(r"w_(\d+) and w_(\d+)(?: both)? give (\d+)", b5)],
        "count": int(field(head, "count")),
        "popcount": ints(field(head, "popcount"))[0],
        "bits": ints(field(head, "popcount"))[1],
        "hex": field(head, "hex"),
        "base64": [line[0] for line in continued(head, "base64")],
        "distinct_at": {w: int(d) for w, d in re.findall(r"^b:\s+(\d+)\s+distinct: (\d+) of 16", b5, re.M)},
    }

    sec = section(text, "### Case 6: nesting")
    b6 = fences(sec)[0]
    groups = [ints(g) for g in re.split(r"^# .*$", b6, flags=re.M)[1:]]
    cases["6"] = {
        "e": field(b6, "E"),
        "positions_22": groups[0],
        "positions_10": groups[1],
        "shifted_22_to_10": groups[2],
        "words": {i: v for i, v in re.findall(r"`w_(\d) = 0x([0-9a-f]{8})`", sec)},
        "p_0_at_22": ints(re.search(r"`p_0 = 0x[0-9a-f]{8} >> \d+ = (\d+)`", sec).group(1))[0],
    }

    sec = section(text, "### Case 7: folding a bitmap to a smaller width")
    b7, props = fences(sec)
    cases["7"] = {
        "from_b": int(field(b7, "from b")),
        "to_b": int(field(b7, "to b'")),
        "popcount": ints(field(b7, "popcount"))[0],
        "bits": ints(field(b7, "popcount"))[1],
        "hex": field(b7, "hex"),
        "base64": [line[0] for line in continued(b7, "base64")],
        "fold_equals_direct": "fold(insert_all(b=10), 6) == insert_all(b=6)     # true" in props,
        "all_match": "all five match at b = 6                          # true" in props,
    }
    out["cases"] = cases

    sec = section(text, "### Capacity and right-sizing")
    t1, t2 = fences(sec)[0].split("\n\n")
    out["capacity"] = [{"b": int(b), "capacity": int(c), "bytes": size(n, u)}
                       for b, c, n, u in (line.split() for line in t1.strip().split("\n")[1:])]
    rows = [line for line in t2.strip().split("\n") if not line.startswith("#")][1:]
    out["right_size"] = [{"count": int(c), "b": int(b), "bytes": size(n, u)}
                         for c, b, n, u in (line.split() for line in rows)]
    out["bytes_per_insertion"] = {"from_b": 12, "value": 2.89, "at_b5": 4.0, "at_b8": 2.91}
    assert "2.89 bytes an insertion on every row from `b = 12` up" in sec
    assert "4 bytes at `b = 5` and 2.91 at `b = 8`" in sec

    b = fences(section(text, "### Sizing each kind"))[0]
    out["sizing"] = []
    for line in b.strip().split("\n")[1:]:
        kind, rate, bw, n, u, _every, days, _d = line.split()
        out["sizing"].append({"kind": kind, "per_day": int(rate.replace(",", "")), "b": int(bw),
                              "bytes": size(n, u), "rotation_days": float(days)})

    sat, ored = fences(section(text, "### Saturation"))
    out["saturation"] = {"b": 20, "rows": []}
    for line in sat.strip().split("\n")[1:]:
        parts = line.split()
        out["saturation"]["rows"].append({"count": int(parts[0]), "fill": float(parts[1]), "one_in": float(parts[4])})
    out["or_blocks"] = []
    for line in ored.strip().split("\n")[1:]:
        parts = line.split()
        out["or_blocks"].append({"blocks": int(parts[0]), "fill": float(parts[1]), "one_in": int(parts[4])})

    b = fences(section(text, "### Scanning"))[0]
    issuance, live = b.split("# Each costs")
    out["scanning"] = {
        "blocks": 365,
        "fpr": "2^-16",
        "issuance": [{"candidates": int(c.replace(",", "")), "expected": float(x)}
                     for c, x in re.findall(r"^([\d,]+)\s+([\d.]+)$", issuance, re.M)],
        "live_spent": [{"proofs": int(c.replace(",", "")), "expected": float(x)}
                       for c, x in re.findall(r"^([\d,]+)\s+([\d.]+)$", live, re.M)],
    }

    sec = section(text, "### The sequence summary")
    f = fences(sec)
    out["sequence_summary"] = {
        "proof_state": json.loads(f[0]),
        "melt_quote": json.loads(f[1]),
        "restore": {"seed_time": int(re.search(r"created at (\d+)", f[2]).group(1)),
                    "height": int(re.search(r"starts at height (\d+)", f[2]).group(1))},
    }

    b = fences(section(text, "### Heights and the seal boundary"))[0]
    out["heights"] = []
    for path, code, rest in re.findall(r"^GET (\S+)\s+-> (\d+), (.*)$", b, re.M):
        m = re.match(r"(\d+) bytes", rest)
        out["heights"].append({"path": path, "code": int(code),
                               "bytes": int(m.group(1)) if m else None,
                               "reject": "# reject" in rest})

    spec = read(B_SPEC)
    ex = section(spec, "## Example")
    f = fences(ex)
    out["spec_example"] = {
        "info": json.loads(f[1]),
        "block_hex": "".join(f[3].split()),
        "popcount": int(re.search(r"(\d+) of its 1024 bits set", ex).group(1)),
    }
    return out


def main():
    for name, data in (("revision-a.json", revision_a()), ("revision-b.json", revision_b())):
        with open(os.path.join(HERE, name), "w", encoding="utf-8") as f:
            json.dump(data, f, indent=1)
            f.write("\n")
        print("wrote", name)


if __name__ == "__main__":
    main()
