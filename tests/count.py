#!/usr/bin/env python3
"""Count the tests and assertions of the repository, so a refactor of the tests can show
that it moved them without losing any (every assertion kept).

    python3 tests/count.py            # totals
    python3 tests/count.py --files    # one line per file
    python3 tests/count.py --per-test # assertions of each #[test] function, by name
    python3 tests/count.py --compare OTHER_CHECKOUT  # tests whose count went down

Counted over test code only: every `.rs` file under tests/, every src/ file of a module
declared `#[cfg(test)] mod NAME;` (and the files of its submodules), and every
`#[cfg(test)] mod NAME { ... }` block inside the other src/ files.
- tests: `#[test]` attributes (proptest cases carry one each inside `proptest! { }`)
- assertions: the macros assert!, assert_eq!, assert_ne!, prop_assert!, prop_assert_eq!,
  prop_assert_ne!, plus assert_cmd's checks `.success()`, `.failure()`, `.code(` in a
  chain that starts with `.assert()`
Assertions are split by where they sit: inside a `#[test]` function (a closure or inner
function of one included) or in a helper function (called by many tests; removing a
duplicated copy of a helper lowers this number without weakening any test).
Comments and string literals are blanked first, so text in fixtures is never counted.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MACROS = re.compile(r"\b(assert|assert_eq|assert_ne|prop_assert|prop_assert_eq|prop_assert_ne)!\s*[\(\[\{]")
CMD_CHECK = re.compile(r"\.\s*(success\s*\(\s*\)|failure\s*\(\s*\)|code\s*\()")


def blank(src):
    """`src` with comments and the insides of string/char literals replaced by spaces
    (newlines kept), so positions and braces of the code stay where they are."""
    out = list(src)
    i, n = 0, len(src)

    def wipe(a, b):
        for k in range(a, b):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        c = src[i]
        if src.startswith("//", i):
            j = src.find("\n", i)
            j = n if j < 0 else j
            wipe(i, j)
            i = j
        elif src.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if src.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif src.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            wipe(i, j)
            i = j
        elif re.match(r"b?r#*\"", src[i:i + 300]) and (i == 0 or not (src[i - 1].isalnum() or src[i - 1] == "_")):
            m = re.match(r"b?r(#*)\"", src[i:])
            end = src.find('"' + m.group(1), i + m.end())
            end = n if end < 0 else end + 1 + len(m.group(1))
            wipe(i + m.end(), end - 1 - len(m.group(1)))
            i = end
        elif c == '"':
            j = i + 1
            while j < n and src[j] != '"':
                j += 2 if src[j] == "\\" else 1
            wipe(i + 1, j)
            i = j + 1
        elif c == "'":
            m = re.match(r"'(\\(x[0-9a-fA-F]{2}|u\{[0-9a-fA-F]+\}|.)|[^\\'])'", src[i:i + 12])
            if m:
                wipe(i + 1, i + m.end() - 1)
                i += m.end()
            else:
                i += 1  # a lifetime
        else:
            i += 1
    return "".join(out)


def close_of(code, open_at):
    """Index of the brace matching the `{` at `open_at`."""
    depth = 0
    for k in range(open_at, len(code)):
        if code[k] == "{":
            depth += 1
        elif code[k] == "}":
            depth -= 1
            if depth == 0:
                return k
    return len(code)


def test_regions(code, whole):
    """Spans of test code: the whole file, or each `#[cfg(test)] mod NAME {}` block."""
    if whole:
        return [(0, len(code))]
    spans = []
    for m in re.finditer(r"#\[cfg\(test\)\]\s*(pub(\([^)]*\))?\s+)?mod\s+\w+\s*\{", code):
        spans.append((m.end() - 1, close_of(code, m.end() - 1)))
    return spans


def fn_spans(code):
    """(start, end, is_test) of every function body with a body."""
    spans = []
    for m in re.finditer(r"\bfn\s+\w+", code):
        depth, k = 0, m.end()
        while k < len(code):
            ch = code[k]
            if ch in "([<":
                depth += 1
            elif ch in ")]>" and code[k - 1] != "-":
                depth -= 1
            elif ch == ";" and depth <= 0:
                k = -1
                break
            elif ch == "{" and depth <= 0:
                break
            k += 1
        if k < 0 or k >= len(code):
            continue
        before = code[max(0, m.start() - 400):m.start()]
        attrs = re.search(r"((#\[[^\]]*\]|\bpub\b|\basync\b|\bunsafe\b|\bconst\b|\s)*)$", before).group(1)
        is_test = re.search(r"#\[\s*test\s*\]", attrs) is not None
        spans.append((k, close_of(code, k), is_test))
    return spans


def assertion_hits(code):
    """Positions of the assertion macros and assert_cmd checks in blanked `code`."""
    hits = [m.start() for m in MACROS.finditer(code)]
    for m in re.finditer(r"\.\s*assert\s*\(\s*\)", code):
        end = m.end()
        depth = 0
        while end < len(code):
            ch = code[end]
            if ch in "([{":
                depth += 1
            elif ch in ")]}":
                depth -= 1
                if depth < 0:
                    break
            elif ch == ";" and depth == 0:
                break
            end += 1
        chain = code[m.end():end]
        d = 0
        for k, ch in enumerate(chain):  # only checks at the chain's own level
            if ch in "([{":
                d += 1
            elif ch in ")]}":
                d -= 1
            elif ch == "." and d == 0 and CMD_CHECK.match(chain, k):
                hits.append(m.end() + k)
    return hits


def count_file(path, whole):
    """(tests, assertions inside tests, assertions in helpers) of one file."""
    code = blank(open(path, encoding="utf-8").read())
    regions = test_regions(code, whole)
    inside = lambda p: any(a <= p <= b for a, b in regions)
    fns = fn_spans(code)
    in_test = lambda p: any(a <= p <= b and t for a, b, t in fns)
    tests = sum(1 for m in re.finditer(r"#\[\s*test\s*\]", code) if inside(m.start()))
    hits = [h for h in assertion_hits(code) if inside(h)]
    in_tests = sum(1 for h in hits if in_test(h))
    return tests, in_tests, len(hits) - in_tests


def test_fns(path, whole):
    """(name, assertions) of every `#[test]` function of a file."""
    code = blank(open(path, encoding="utf-8").read())
    regions = test_regions(code, whole)
    hits = assertion_hits(code)
    spans = [(a, b) for a, b, t in fn_spans(code) if t]
    out = []
    for m in re.finditer(r"#\[\s*test\s*\]\s*(?:#\[[^\]]*\]\s*)*fn\s+(\w+)", code):
        if not any(a <= m.start() <= b for a, b in regions):
            continue
        body = [(a, b) for a, b in spans if a > m.end()]
        if body:
            a, b = min(body)
            out.append((m.group(1), sum(1 for h in hits if a <= h <= b)))
    return out


def test_module_files(src):
    """The files under `src` that hold test-only modules: `#[cfg(test)] mod NAME;`
    declarations resolved to NAME.rs or NAME/mod.rs, with every file below NAME/."""
    out = set()
    for d, _, names in os.walk(src):
        for name in names:
            if not name.endswith(".rs"):
                continue
            path = os.path.join(d, name)
            code = blank(open(path, encoding="utf-8").read())
            here = d if name in ("mod.rs", "lib.rs", "main.rs") else os.path.join(d, name[:-3])
            for m in re.finditer(r"#\[cfg\(test\)\]\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;", code):
                sub = os.path.join(here, m.group(1))
                for f in (sub + ".rs", os.path.join(sub, "mod.rs")):
                    if os.path.isfile(f):
                        out.add(os.path.normpath(f))
                for dd, _, nn in os.walk(sub):
                    out.update(os.path.normpath(os.path.join(dd, n)) for n in nn if n.endswith(".rs"))
    return out


def files(root=ROOT):
    tested = test_module_files(os.path.join(root, "src"))
    for base in ("tests", "src"):
        for d, _, names in sorted(os.walk(os.path.join(root, base))):
            for name in sorted(names):
                if name.endswith(".rs"):
                    p = os.path.join(d, name)
                    yield p, base == "tests" or os.path.normpath(p) in tested


def per_test(root):
    """Test name → assertions, summed over the test functions of that name."""
    counts = {}
    for path, whole in files(root):
        for name, n in test_fns(path, whole):
            counts[name] = counts.get(name, 0) + n
    return counts


def main():
    if "--per-test" in sys.argv:
        for name, n in sorted(per_test(ROOT).items()):
            print(f"{n:4} {name}")
        return
    if "--compare" in sys.argv:
        old = per_test(sys.argv[sys.argv.index("--compare") + 1])
        new = per_test(ROOT)
        down = [(k, v, new.get(k)) for k, v in sorted(old.items()) if new.get(k, -1) < v]
        for k, v, n in down:
            print(f"{k}: {v} -> {n}")
        print(f"{len(old)} test names before, {len(new)} now; {len(down)} with fewer assertions")
        return
    per_file = "--files" in sys.argv
    tot = {"tests": [0, 0, 0], "src": [0, 0, 0]}
    for path, whole in files():
        t, a, h = count_file(path, whole)
        rel = os.path.relpath(path, ROOT)
        side = tot[rel.split(os.sep)[0]]
        side[0], side[1], side[2] = side[0] + t, side[1] + a, side[2] + h
        if per_file and (t or a or h):
            print(f"{rel:60} tests {t:4}  assertions in tests {a:5}  in helpers {h:4}")
    for side in ("tests", "src"):
        t, a, h = tot[side]
        print(f"{side + '/':7} tests {t:4}  assertions in tests {a:5}  in helpers {h:4}")
    t = tot["tests"][0] + tot["src"][0]
    a = tot["tests"][1] + tot["src"][1]
    h = tot["tests"][2] + tot["src"][2]
    print(f"total   tests {t:4}  assertions in tests {a:5}  in helpers {h:4}  (all {a + h})")


if __name__ == "__main__":
    main()
