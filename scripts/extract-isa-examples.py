#!/usr/bin/env python3
"""Extracts the example blocks of the PTX ISA text into engine/tests/data/isa_examples/*.ptx.

Every fenced code block that the ISA labels "Example", "Examples", "Example 1:", "Examples of ..."
is written to one file, named after its section, with a header comment saying where it came from.
A block split over a page break ("(continues on next page)" / "(continued from previous page)")
is joined back together. The output is deterministic: rerunning the script on the same seed
rewrites identical files (and removes stale ones).

    scripts/extract-isa-examples.py [SEED] [OUTDIR]
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SEED = "/work/shared/seeds/000_15d81b61ac79e408.txt"
OUT = os.path.join(ROOT, "engine", "tests", "data", "isa_examples")

HEADING = re.compile(r"^(\d{1,2}(?:\.\d+)+)\.? +(\S.*)$")
EXAMPLE_LABEL = re.compile(r"^Examples?\b")
CONTINUED = "(continued from previous page)"


def slug(title):
    s = re.sub(r"[`*]", "", title)
    parts = [p for p in s.split(":") if p.strip()]
    s = parts[-1] if parts else s
    s = re.sub(r"[^A-Za-z0-9]+", "_", s).strip("_").lower()
    return s[:40] or "untitled"


def blocks(lines):
    """Yields (start_line, label, section_number, section_title, code_lines) per fenced block."""
    section = ("0", "front matter")
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("```"):
            j = i + 1
            while j < len(lines) and not lines[j].startswith("```"):
                j += 1
            k = i - 1
            while k >= 0 and not lines[k].strip():
                k -= 1
            label = lines[k].strip() if k >= 0 else ""
            yield i + 1, label, section, lines[i + 1 : j]
            i = j + 1
            continue
        m = HEADING.match(line)
        if m and int(m.group(1).split(".")[0]) <= 14:
            section = (m.group(1), m.group(2).strip())
        i += 1


def main():
    seed = sys.argv[1] if len(sys.argv) > 1 else SEED
    out = sys.argv[2] if len(sys.argv) > 2 else OUT
    with open(seed, encoding="utf-8") as f:
        lines = f.read().split("\n")
    examples = []  # [start_line, section, code_lines]
    prev_is_example = False
    for start, label, section, code in blocks(lines):
        if label in (CONTINUED, "```"):
            # The rest of the previous block after a page break.
            if prev_is_example:
                examples[-1][2].extend(code)
            continue
        prev_is_example = bool(EXAMPLE_LABEL.match(label))
        if prev_is_example:
            examples.append([start, section, list(code)])
    os.makedirs(out, exist_ok=True)
    written = set()
    per_section = {}
    for start, (num, title), code in examples:
        n = per_section.get(num, 0) + 1
        per_section[num] = n
        name = "%s_%s_%d.ptx" % ("-".join("%02d" % int(p) for p in num.split(".")), slug(title), n)
        body = "\n".join(l.rstrip() for l in code).strip("\n")
        # The typeset text wraps long lines with a "↪" continuation mark: join them back.
        # (a word broken at "_" joins without a space).
        body = re.sub(
            r"(.)\n[ \t]*[↪↳↔][ \t]*",
            lambda m: m.group(1) + ("" if m.group(1) == "_" else " "),
            body,
        )
        text = "// PTX ISA 9.0, section %s %s (example %d, seed line %d)\n%s\n" % (
            num,
            re.sub(r"[`*]", "", title),
            n,
            start,
            body,
        )
        path = os.path.join(out, name)
        written.add(name)
        old = None
        if os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                old = f.read()
        if old != text:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
    for name in sorted(os.listdir(out)):
        if name.endswith(".ptx") and name not in written:
            os.remove(os.path.join(out, name))
    print("%d example blocks written to %s" % (len(written), out))


if __name__ == "__main__":
    main()
