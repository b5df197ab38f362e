#!/usr/bin/env python3
"""Generates engine/src/isa/table.rs from the syntax blocks of chapter 9.7 of the PTX ISA text.

    python3 scripts/gen-isa-table.py /work/shared/seeds/000_15d81b61ac79e408.txt \
        > engine/src/isa/table.rs
    python3 scripts/gen-isa-table.py SEED --loose   # the opcodes still accepting any word

Every `Syntax` block of 9.7 gives instruction forms (`opcode{.opt}.word.group d, a{, b};`) and
modifier groups (`.group = { .w1, .w2{::sub} }`). Each form becomes a list of modifier groups
(required or optional, with their words) and an operand count range; each opcode (the first
dotted word, as the parser splits instructions) also gets the union of its words and operand
counts, and the PTX version that introduced it (the first "Introduced in PTX ISA version" after
its syntax block). EXTRA lists what ptxas accepts and nvcc emits but no syntax block spells out.

Every code block of a section's Syntax part is read (wmma gives its .bf16, .tf32, .f64 and
sub-byte forms in separate blocks between prose lines), each list of forms with the group
definitions that follow it (or the block right after it), and FIXES corrects the misprints found
in the blocks; with that, no opcode accepts any word: `--loose` lists the groups still left
undefined (`*` in a form), none for PTX ISA 9.0.
"""
import re
import sys

# Placeholder names that name a group; when a block does not define one, the form accepts any
# word there (the ISA defines it in prose or in another block).
PLACEHOLDER = re.compile(
    r"^(type|[a-z]type|[a-z]*type\d*|vec|op|op\d|sem|scope|space|ss|cop|shape|layout|"
    r"[a-z]layout|rnd|[a-z]rnd\d?|mode|level::.*|geom|cmp|cmpop|boolop|bop|dim|load_mode|"
    r"cta_group|kind|redop|redOp|dst|src|completion_mechanism|cache_hint|num|repeat|pack|"
    r"collector_usage|"
    r"mask|prefetch_size|eviction_priority|multicast|ctype|qualifier|abs|flavor|.*_type|"
    r"rel|f[a-z0-9]*type|[a-z]+::[a-z_]+|CmpOp|BoolOp|[A-Z].*)$"
)

# Words that look like placeholders (capitalised, `abs`, `a::b`) but are written literally in
# the forms (`{.NaN}`, `{.abs}`, `.L1`, `cvt.pack`, `pmevent.mask`, `fence.proxy.async::generic`,
# `tcgen05.fence::before_thread_sync`).
LITERAL = {
    "NaN", "abs", "L1", "L2", "pack", "mask", "async::generic", "fence::after_thread_sync",
    "fence::before_thread_sync", "sp::ordered_metadata",
}

# Forms ptxas accepts (checked with `ptxas -arch=sm_100a`) that the syntax blocks do not spell
# out: legacy spellings nvcc still emits, and words the ISA gives in prose.
EXTRA = [
    # `.shared::cta` / `.param::entry` are written in prose for several instructions.
    ("ld", ["nc", "param::entry", "param::func", "shared::cta", "shared::cluster"]),
    ("st", ["param::func", "shared::cta", "shared::cluster"]),
    ("mov", ["pred", "b128"]),
    # `mov.v4.u32 %r, %clusterid` (ISA 10.12-10.15): a special register read whole.
    ("mov", ["v2", "v4"]),
    # `.ecl` is printed `.ec1` in the ISA's PDF.
    ("prmt", ["ec1", "ecl"]),
    ("set", ["ftz"]),
    ("cvt", ["rzi", "rni", "rmi", "rpi", "ftz", "sat"]),
    # Half-precision forms (9.7.4.x) whose type groups the extraction misses.
    ("ex2", ["approx", "ftz", "f16", "f16x2", "bf16", "bf16x2"]),
    ("set", ["f16", "f16x2", "bf16", "bf16x2"]),
    ("pmevent", ["mask"]),
    ("mbarrier", ["acquire", "relaxed", "release", "cta", "cluster", "shared::cta"]),
    # `cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes.ignore_oob`: nvcc 13.5
    # emits it for compute_120a (cuda::memcpy_async in thrust); the ISA 9.0 text has no
    # `.ignore_oob`.
    ("cp", ["ignore_oob"]),
]

# Misprints of opcodes in the ISA text (`1` for `l`, a dropped `p`).
TYPOS = {"se1p": "selp", "shf1": "shfl", "griddecontrol": "griddepcontrol"}
# Syntax lines that are prose, not forms.
BOGUS = {"instruction"}
# Misprints inside syntax blocks: (text, correction).
# A group definition listing a bare `none` among its words (`.vec = { none, .v2, .v4 }`).
NONE_GROUP = re.compile(r"(?m)^\s*\.([A-Za-z][A-Za-z0-9_]*)\s*=\s*\{\s*none\s*,")

FIXES = [
    # 9.7.16.10.9.2 tcgen05.mma.sp: `:::` for `::`, and the block-scaling kinds misspelt
    # (`.kind::mx8f6f4` for `.kind::mxf8f6f4`, as 9.7.16.10.9.1 and the description spell them).
    (":::", "::"),
    (
        ".kind::mx8f6f4, .kind::mx4, .kind::mx4nfv4",
        ".kind::mxf8f6f4, .kind::mxf4, .kind::mxf4nvf4",
    ),
    # 9.7.9.26 tensormap.replace: `.swizzle_atomicsity` is spelt `.swizzle_atomicity` by ptxas
    # 13.5, which rejects the other ("Unknown modifier '.swizzle_atomicsity'").
    ("swizzle_atomicsity", "swizzle_atomicity"),
    # 9.7.11.3 sured: a space for the dot before the ctype group.
    (".geom ctype.clamp", ".geom.ctype.clamp"),
    # 9.7.13.4 fence: `.proxykind` lists dotted sequences, which the parser splits into words.
    (
        ".async.global, .async.shared::{cta, cluster} }",
        ".global, .shared::cta, .shared::cluster }",
    ),
    # 9.7.13.15.13-14 mbarrier.complete_tx/arrive: `.shared{:cta}` and `.shared{:cluster}`
    # with one colon (ptxas 13.5 knows only `.shared::cta` and `.shared::cluster`).
    ("{:cta}", "{::cta}"),
    ("{:cluster}", "{::cluster}"),
    # 9.7.1.23 dp4a: the form names `.dtype.bdtype`, the definition `.atype = .btype`.
    ("dp4a.dtype.bdtype", "dp4a.atype.btype"),
    # 9.7.4.4 fma: `.{relu}` for `{.relu}`, and `.type` left undefined (the description and
    # examples give .oob with .f16, .f16x2, .bf16 and .bf16x2).
    (
        "fma.rnd.oob.{relu}.type    d, a, b, c;",
        "fma.rnd.oob{.relu}.type    d, a, b, c;\n.type = { .f16, .f16x2, .bf16, .bf16x2 };",
    ),
    # 9.7.4.10 ex2: the form names `.atype`, the definition `.type`.
    ("ex2.approx.atype    d, a;", "ex2.approx.type    d, a;"),
    # 9.7.13.12 redux: a stray dot in `{.abs.}`.
    ("{.abs.}", "{.abs}"),
    # 9.7.9.25.5.3 cp.reduce.async.bulk.tensor: `.level::cache_hint` is left undefined (the
    # other bulk copies define it as `{ .L2::cache_hint }`).
    (
        ".redOp =        { .add, .min, .max, .inc, .dec, .and, .or, .xor }",
        ".redOp =        { .add, .min, .max, .inc, .dec, .and, .or, .xor }\n"
        ".level::cache_hint = { .L2::cache_hint }",
    ),
    # 9.7.11.2 sust: the dimension groups are written as bare lists (`.{1d,2d,3d}`).
    ("sust.b.{1d,2d,3d}{.cop}.vec.", "sust.b.sdim{.cop}.vec."),
    ("sust.p.{1d,2d,3d}.vec.", "sust.p.sdim.vec."),
    ("sust.b.{a1d,a2d}{.cop}.vec.", "sust.b.adim{.cop}.vec."),
    (
        ".cop  = { .wb, .cg, .cs, .wt }; // cache operation",
        ".cop  = { .wb, .cg, .cs, .wt };\n.sdim = { .1d, .2d, .3d };\n.adim = { .a1d, .a2d };",
    ),
    # 9.7.14.5.14 mma: `.m8n84` for `.m8n8k4`, `.kind::mxf4nfvf4` for `.kind::mxf4nvf4` (as
    # the description and 9.7.14.6.3 spell it).
    (".shape = {.m8n84,", ".shape = {.m8n8k4,"),
    # The double-precision forms take a rounding modifier (the ISA's own example writes
    # `mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64.rn`; ptxas 13.5 accepts .rn, .rz, .rm
    # and .rp there, and rejects one on the .f16 forms: "Illegal rounding modifier").
    (
        "mma.sync.aligned.shape.row.col.f64.f64.f64.f64 d, a, b, c;",
        "mma.sync.aligned.shape.row.col.f64.f64.f64.f64{.rnd} d, a, b, c;\n"
        ".rnd = { .rn, .rz, .rm, .rp };",
    ),
    (".kind::mxf4nfvf4", ".kind::mxf4nvf4"),
    # 9.7.14.5.15 ldmatrix: one colon in `.shared{::cta}`.
    (".shared{:cta}", ".shared{::cta}"),
    # 9.7.9.8 ld and 9.7.9.11 st: the typesetting lost the head of `.ss` (the line break
    # marker joins what is left); the state spaces of 9.7.9.8 and 9.7.9.11.
    (
        ".ss =shared{::cta, ::cluster} };",
        ".ss = { .const, .global, .local, .param{::entry, ::func}, .shared{::cta, ::cluster} };",
    ),
    (
        ".ss =::cluster } };",
        ".ss = { .global, .local, .param{::func}, .shared{::cta, ::cluster} };",
    ),
]


def expand(word_list, defs, depth=0):
    """`.a, .b{::c, ::d}, .e` -> ['a', 'b', 'b::c', 'b::d', 'e'] (names of other groups are
    expanded to their words)."""
    out = []
    items, cur, d = [], "", 0
    for ch in word_list:
        if ch == "{":
            d += 1
        elif ch == "}":
            d -= 1
        if ch == "," and d == 0:
            items.append(cur)
            cur = ""
        else:
            cur += ch
    items.append(cur)
    for it in items:
        # `::discard*`: a footnote mark (tcgen05.mma's default collector operation).
        it = it.strip().rstrip(";").strip().rstrip("*")
        # A bare `none` (suld's and sust's `.vec = { none, .v2, .v4 }`, 9.7.11.1-2) is no
        # word: it makes the group optional (see NONE_GROUP in parse_block).
        if not it or it == "none":
            continue
        # `.collector::buffer::op` with `::buffer = { ::a }`, `::op = { ::fill, ... }`: every
        # combination of the sub-word groups (tcgen05.mma, 9.7.16.10.9).
        segs = it.lstrip(".").split("::")
        if len(segs) > 1 and "{" not in it and any(
            x in defs and defs[x] and all(w.startswith("::") for w in defs[x]) for x in segs[1:]
        ):
            words = [segs[0]]
            for x in segs[1:]:
                subs = defs.get(x) if x in defs and all(w.startswith("::") for w in defs[x]) else None
                words = [w + sub for w in words for sub in (subs or ["::" + x])]
            out.extend(words)
            continue
        m = re.match(r"^\.?([A-Za-z0-9_:]+)\s*(\{(.*)\})?$", it)
        if not m:
            continue
        base = m.group(1)
        if m.group(3) is not None:
            out.append(base)
            for sub in m.group(3).split(","):
                sub = sub.strip()
                if sub.lstrip(":") in defs:
                    # `.get_first_ctaid{::dimension}` with `::dimension = { ::x, ::y, ::z }`.
                    out.extend(base + w for w in defs[sub.lstrip(":")])
                elif sub:
                    out.append(base + sub)
        elif base in defs and depth < 4 and base not in ("b32", "b64"):
            out.extend(defs[base])
        else:
            out.append(base)
    return out


def split_mods(s):
    """A form's modifier text (`{.weak}{.ss}.type`) -> [(text, optional)]."""
    out, k = [], 0
    while k < len(s):
        if s[k] == "{":
            d, j = 0, k
            while j < len(s):
                d += {"{": 1, "}": -1}.get(s[j], 0)
                if d == 0:
                    break
                j += 1
            out.append((s[k + 1 : j], True))
            k = j + 1
        elif s[k] == ".":
            j = k + 1
            while j < len(s) and s[j] not in ".{":
                j += 1
            out.append((s[k:j], False))
            k = j
        else:
            k += 1
    return out


def group_words(text, defs):
    """Words of one modifier token: `.type`, `.shared{::cta}`, `.ftz`, `.L2::cache_hint`."""
    text = text.strip()
    if re.match(r"^\.[A-Za-z0-9_:]+(\s*,\s*\.[A-Za-z0-9_:]+)+$", text):
        # `mad{.hi,.lo}`: alternatives listed in the braces.
        words = [w.strip().lstrip(".") for w in text.split(",")]
        return (words[0], words)
    # `{.relu}{.satfinite}` inside an optional group, or `.a.b` sequences: several groups.
    parts = split_mods(text)
    if len(parts) > 1 and not re.match(r"^\.[A-Za-z0-9_:]+\{::", text):
        return None
    m = re.match(r"^\.?([A-Za-z0-9_:]+)(\{(.*)\})?$", text)
    if not m:
        return ("*", ["*"])
    name = m.group(1)
    if m.group(3) is not None:
        return (name, expand(text, defs))
    if name in defs:
        return (name, defs[name])
    if name in LITERAL:
        return (name, [name])
    if PLACEHOLDER.match(name) and not re.match(r"^(sync|aligned|approx|full|wide|hi|lo|rn|rz|rm|rp|ftz|sat|relu|b16|b32|b64|u32|s32|f32|f64|f16|pred|x2|x4|shared::cta|shared::cluster|global|L2::cache_hint)$", name):
        return (name, ["*"])
    return (name, [name])


def count_ops(s):
    """Operand text `d, [a]{, b}` -> (min, max) top-level operands."""
    s = s.strip()
    if not s:
        return (0, 0)
    mn, mx, d, k = 1, 1, 0, 0
    opt_depth = []
    while k < len(s):
        ch = s[k]
        if ch in "[(":
            d += 1
        elif ch in "])":
            d -= 1
        elif ch == "{":
            if d == 0 and re.match(r"\{\s*,", s[k:]):
                opt_depth.append(True)
            else:
                opt_depth.append(False)
                d += 1
        elif ch == "}":
            if opt_depth and opt_depth.pop() is False:
                d -= 1
        elif ch == "," and d == 0:
            mx += 1
            if not any(opt_depth):
                mn += 1
        k += 1
    if s.startswith("{,") or s.startswith("{ ,"):
        mn -= 1
    return (max(mn, 0), mx)


def inline_sequences(text):
    """A group defined as one sequence of words (`.cp_qualifiers = { .global.shared::cta }`,
    `.fence_qualifiers = { .to_proxy::from_proxy.release.scope }`, tensormap.cp_fenceproxy) is
    written into the forms in its place, so that each of its words becomes a group of its own
    (the sequence's groups are defined in the block as usual)."""
    seqs = dict(
        re.findall(
            r"(?m)^\s*\.([A-Za-z][A-Za-z0-9_:]*)\s*=\s*\{\s*((?:\.[A-Za-z][A-Za-z0-9_:]*){2,})\s*\}",
            text,
        )
    )
    if not seqs:
        return text
    out = []
    for line in text.split("\n"):
        if not re.match(r"^\s*(?:(?:\.|::)?[A-Za-z][A-Za-z0-9_:]*\s*=\s*)+\{", line):
            for _ in range(4):
                for name, seq in seqs.items():
                    line = re.sub(r"\." + re.escape(name) + r"(?![A-Za-z0-9_:])", seq, line)
        out.append(line)
    return "\n".join(out)


def parse_block(text, defs_global, section="", nested=False):
    # `↪` / `↳` / `↔` mark a line the typesetting broke (`.fill_\n↔mode`).
    # A break inside a word (`cache-\n↪policy`, `{.\n↪level`) joins; one before an operand
    # (`half_word_type\n↪[a], b`) leaves a space.
    # A break after a dot joins whatever spaces follow the mark (mma.sp's `.f8f6f4type.\n↪
    # f8f6f4type`).
    text = re.sub(r"\.\n?[↪↳↔]\s*", ".", text)
    text = re.sub(r"\n?[↪↳↔](?=[A-Za-z0-9_.:])", "", text)
    text = re.sub(r"\n?[↪↳↔]", " ", text)
    for bad, good in FIXES:
        text = text.replace(bad, good)
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = inline_sequences(text)
    # Some blocks end their forms without `;` (wmma's .bf16/.tf32/.f64 loads): a form with its
    # operands on one line, followed by another form or a group definition, ends there.
    lines = text.split("\n")
    for n, line in enumerate(lines):
        nxt = next((x for x in lines[n + 1 :] if x.strip()), "")
        if (
            re.match(r"^\s*[a-z][a-z0-9_]*\.\S+\s+\S.*[A-Za-z0-9_\]}]\s*$", line)
            and "=" not in line
            and re.match(r"^\s*([a-z][a-z0-9_]*\.\S+\s|\.?[A-Za-z][A-Za-z0-9_:]*\s*=)", nxt or "x.y ")
        ):
            lines[n] = line.rstrip() + ";"
    text = "\n".join(lines)
    # A block may hold several lists of forms, each followed by its own group definitions
    # (multimem: integer forms and `.op`, then floating-point forms and another `.op`): each
    # list is parsed with its own definitions, inheriting those of the lists before it.
    if not nested:
        segs, cur, seen_def = [], [], False
        for line in text.split("\n"):
            is_def = re.match(r"^\s*(?:(?:\.|::)?[A-Za-z][A-Za-z0-9_:]*\s*=\s*)+\{", line)
            is_form = re.match(r"^\s*(@\S+\s+)?[a-z][a-z0-9_]*[.{]", line)
            if is_form and seen_def:
                segs.append("\n".join(cur))
                cur, seen_def = [], False
            seen_def = seen_def or bool(is_def)
            cur.append(line)
        segs.append("\n".join(cur))
        if len(segs) > 1:
            all_defs, all_forms, inherited = {}, [], dict(defs_global)
            for seg in segs:
                d, f = parse_block(seg, inherited, section, nested=True)
                inherited.update(d)
                all_defs.update(d)
                all_forms += f
            return all_defs, all_forms
    defs = {}
    forms = []
    # Groups whose definition lists a bare `none` may be left out: `suld.b.1d.b32.trap` takes
    # no `.vec` word (ptxas 13.5 accepts it and rejects `.none`).
    optional_groups = set(re.findall(NONE_GROUP, text))
    # Group definitions first (they may follow the forms). Sub-word groups (`::op = { ::fill,
    # ... }`) are read first: a definition may use one defined after it
    # (`.collector_usage = { .collector::buffer::op }` before `::buffer`, tcgen05.mma.ws).
    def read_defs(lookup):
        defs = {}
        for m in re.finditer(r"(?m)^\s*((?:(?:\.|::)?[A-Za-z][A-Za-z0-9_:]*\s*=\s*)+)\{", text):
            k = m.end() - 1
            d, j = 0, k
            while j < len(text):
                d += {"{": 1, "}": -1}.get(text[j], 0)
                if d == 0:
                    break
                j += 1
            words = expand(text[k + 1 : j], {**lookup, **defs})
            # `.dtype = .atype = .btype = { ... }` defines several groups at once. A group
            # defined twice for different forms of one list (sured's `.ctype`, "for sured.b"
            # and "for sured.p") takes the words of both.
            for name in re.findall(r"(?:\.|::)?([A-Za-z][A-Za-z0-9_:]*)\s*=", m.group(1)):
                defs[name] = list(dict.fromkeys(defs.get(name, []) + words))
        return defs

    subwords = {
        n: ws for n, ws in read_defs(defs_global).items() if ws and all(w.startswith("::") for w in ws)
    }
    defs = read_defs({**defs_global, **subwords})
    body = re.sub(r"(?m)^\s*(?:(?:\.|::)?[A-Za-z][A-Za-z0-9_:]*\s*=\s*)+\{[^}]*(\{[^}]*\}[^}]*)*\}\s*;?", "", text)
    for stmt in body.split(";"):
        stmt = " ".join(stmt.split())
        m = re.match(r"^(@\S+\s+)?([a-z][a-z0-9_]*)((?:\.|\{)\S*)?\s*(.*)$", stmt)
        if not m or m.group(2) in ("reg", "shared", "global", "param", "local", "const"):
            continue
        opcode, mods, ops = m.group(2), m.group(3) or "", m.group(4)
        if "=" in ops or len(opcode) < 2:
            continue
        # `{.unified}` and `.unified` after an operand are modifiers too.
        tail_mods = re.findall(r"\{\s*(\.[A-Za-z][A-Za-z0-9_:]*)\s*\}|\]\s*(\.[A-Za-z][A-Za-z0-9_:]*)", ops)
        ops = re.sub(r"\{\s*\.[A-Za-z][A-Za-z0-9_:]*\s*\}", "", ops)
        ops = re.sub(r"\]\s*\.[A-Za-z][A-Za-z0-9_:]*", "]", ops)
        groups = []
        ok = True
        for t, opt in split_mods(mods):
            if t.startswith("::") and groups:
                # `.get_first_ctaid{::dimension}`: sub-words of the previous word.
                subs = {**defs_global, **defs}.get(t.lstrip(":"), [t])
                name, o, ws = groups[-1]
                groups[-1] = (name, o, ws + [w + x for w in ws for x in subs])
                continue
            gw = group_words(t, {**defs_global, **defs})
            if gw is None:
                for t2, _ in split_mods(t):
                    gw2 = group_words(t2, {**defs_global, **defs})
                    if gw2 is None:
                        ok = False
                        break
                    groups.append((gw2[0], True, gw2[1]))
            else:
                groups.append((gw[0], opt or gw[0] in optional_groups, gw[1]))
        for a, b in tail_mods:
            w = (a or b).lstrip(".")
            groups.append((w, True, [w]))
        if not ok:
            continue
        mn, mx = count_ops(ops)
        opcode = TYPOS.get(opcode, opcode)
        # Chapter 9.7.15 (warpgroup MMA) misprints `wgmma` as `wmma` in some blocks.
        if opcode == "wmma" and section.startswith("9.7.15."):
            opcode = "wgmma"
        if opcode in BOGUS:
            continue
        # `vop.dtype...` with `vop = { vadd, vsub, ... }`: one form per opcode of the group.
        for op in defs.get(opcode, [opcode]) if opcode.startswith("vop") else [opcode]:
            forms.append((op, groups, mn, mx))
    return defs, forms


def main():
    lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
    start = next(i for i, l in enumerate(lines) if l.startswith("9.7. Instructions"))
    end = next(i for i, l in enumerate(lines) if l.startswith("10.1. Special Registers"))
    section = ""
    ops = {}  # opcode -> dict
    defs_global = {}
    i = start
    pending = []
    while i < end:
        l = lines[i]
        m = re.match(r"^(9\.7\.[0-9.]+)\.? ", l)
        if m:
            if section != m.group(1):
                # Group names (`.type`, `.ss`) mean something else in each section.
                defs_global = {}
            section = m.group(1)
        if l.strip() == "Syntax":
            j = i + 1
            while j < end and not lines[j].startswith("```"):
                j += 1
            k = j + 1
            while k < end and not lines[k].startswith("```"):
                k += 1
            text = "\n".join(lines[j + 1 : k])
            # A block the page break split: "(continues on next page)" then another block.
            while True:
                n = k + 1
                while n < end and not lines[n].strip():
                    n += 1
                if n < end and lines[n].strip() == "(continues on next page)":
                    a = n + 1
                    while a < end and not lines[a].startswith("```"):
                        a += 1
                    b = a + 1
                    while b < end and not lines[b].startswith("```"):
                        b += 1
                    text += "\n" + "\n".join(lines[a + 1 : b])
                    k = b
                else:
                    break
            texts = [text]
            # More code blocks may follow in the Syntax part, between prose lines ("Alternate
            # floating point format .bf16 loads:"), up to the Description.
            n = k + 1
            while n < end and lines[n].strip() not in ("Description", "Semantics", "Notes"):
                if re.match(r"^9\.7\.[0-9.]+\.? ", lines[n]):
                    break
                if lines[n].startswith("```"):
                    b = n + 1
                    while b < end and not lines[b].startswith("```"):
                        b += 1
                    more = "\n".join(lines[n + 1 : b])
                    # A page break inside this block too (red's vector forms).
                    while True:
                        c = b + 1
                        while c < end and not lines[c].strip():
                            c += 1
                        if c < end and lines[c].strip() == "(continues on next page)":
                            a = c + 1
                            while a < end and not lines[a].startswith("```"):
                                a += 1
                            b = a + 1
                            while b < end and not lines[b].startswith("```"):
                                b += 1
                            more += "\n" + "\n".join(lines[a + 1 : b])
                        else:
                            break
                    texts.append(more)
                    k = n = b
                n += 1
            forms = []
            pending = []
            # A block of forms without definitions takes those of the block right after it
            # when that one only defines groups (mma's integer and block-scaling forms: each
            # list of forms is followed by its own `.shape`, `.kind`, ... blocks), before those
            # inherited from earlier blocks.
            own = [parse_block(t, {}, section) for t in texts]
            for n, t in enumerate(texts):
                inherited = dict(defs_global)
                if not own[n][0] and n + 1 < len(texts) and own[n + 1][0] and not own[n + 1][1]:
                    inherited.update(own[n + 1][0])
                defs, fs = parse_block(t, inherited, section)
                defs_global.update(defs)
                forms += fs
            # A placeholder left open in one list of forms may be defined by another list of
            # the section (ld's `.ss`): resolve it against all of the section's definitions.
            forms = [
                (
                    op,
                    [
                        (n, o, defs_global[n] if ws == ["*"] and n in defs_global else ws)
                        for n, o, ws in groups
                    ],
                    mn,
                    mx,
                )
                for op, groups, mn, mx in forms
            ]
            for opcode, groups, mn, mx in forms:
                o = ops.setdefault(opcode, {"sections": [], "since": None, "forms": []})
                if section not in o["sections"]:
                    o["sections"].append(section)
                o["forms"].append((groups, mn, mx))
                pending.append(o)
            i = k
        vm = re.search(r"Introduced in PTX ISA version (\d+)\.(\d+)", l)
        if vm and pending:
            v = (int(vm.group(1)), int(vm.group(2)))
            for o in pending:
                if o["since"] is None or v < o["since"]:
                    o["since"] = v
            pending = []
        i += 1
    for opcode, words in EXTRA:
        o = ops.setdefault(opcode, {"sections": [], "since": (1, 0), "forms": []})
        o["forms"].append(([(w, True, [w]) for w in words], 0, 0))
        o["extra"] = words
    if "--loose" in sys.argv:
        # The opcodes that still accept any word somewhere, with the groups that do.
        for opcode in sorted(ops):
            loose = sorted({n for f in ops[opcode]["forms"] for n, _, ws in f[0] if "*" in ws})
            if loose:
                print(opcode, " ".join(loose))
        return
    out = []
    out.append("// @generated by scripts/gen-isa-table.py from the syntax blocks of PTX ISA 9.0")
    out.append("// chapter 9.7; do not edit (change the script and regenerate).")
    out.append("use super::{Form, Group, Opcode};")
    out.append("")
    out.append("pub static OPCODES: &[Opcode] = &[")
    for opcode in sorted(ops):
        o = ops[opcode]
        words = set()
        fs = []
        for groups, mn, mx in o["forms"]:
            gs = []
            for name, opt, ws in groups:
                words.update(ws)
                gs.append(
                    "Group { name: %s, optional: %s, words: &[%s] }"
                    % (rs(name), "true" if opt else "false", ", ".join(rs(w) for w in dict.fromkeys(ws)))
                )
            if mn or mx or gs:
                fs.append("Form { groups: &[%s], min_ops: %d, max_ops: %d }" % (", ".join(gs), mn, mx))
        real = [f for f in o["forms"] if f[1] or f[2] or f[0]]
        mns = [
            f[1]
            for f in o["forms"]
            if not (
                f[1] == 0
                and f[2] == 0
                and f[0]
                and (f[0][0][0] == "*" or ("extra" in o and f[0][0][0] in o["extra"]))
            )
        ]
        mn = min(mns) if mns else 0
        mx = max(f[2] for f in o["forms"])
        since = o["since"] or (1, 0)
        out.append(
            "    Opcode { name: %s, sections: &[%s], since: (%d, %d), min_ops: %d, max_ops: %d, "
            "words: &[%s], forms: &[%s] },"
            % (
                rs(opcode),
                ", ".join(rs(s) for s in o["sections"]),
                since[0],
                since[1],
                mn,
                mx,
                ", ".join(rs(w) for w in sorted(words)),
                ", ".join(fs),
            )
        )
        del real
    out.append("];")
    print("\n".join(out))


def rs(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


if __name__ == "__main__":
    main()
