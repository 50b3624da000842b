#!/usr/bin/env python3
"""Checks that every diagnostic of the dialects' IR is quoted by a test
(STYLE.md, habit 5: every user-facing error message has a test that quotes
it; docs/build.md, "Commands"). The lit test
test/Dialect/verifier-messages.test runs it.

Usage: scripts/check-verifier-messages.py [-v] [REPO]   (default: the repo
       this script is in)

Reads every emitOpError / emitError call in REPO/dialects/*/IR/*.{cpp,h}
(op verifiers, attribute verify functions, custom parsers), takes the string
literals of its statement (adjacent literals joined, escapes decoded) and
keeps the fragments that carry words: the message's fixed text, in order.
Literals that are the branches of a `?:` are left out (a test shows one of
them). A message of dialects/NAME is quoted when one line of a test under
REPO/test/Dialect/NAME (*.mlir: an `expected-error {{...}}`, or a FileCheck
line of an `error:`) holds all its fragments in order, each line quoting
one diagnostic (messages of the same text need a line each); for `emitOpError()` on the op being verified (no
receiver), the diagnostic must also be the op's: the line holds its
`'dialect.op' op` prefix, or the line an `expected-*` comment designates
(its own, or @+N / @-N) holds the op.

A check that no .mlir input can reach (the parser or an ODS constraint
rejects the input first) but that stays, for the C++ builders, says so in
the comment right above it or above the `if` that guards it:
`// Unreachable from .mlir: <why it stays>`. Such messages are listed as
exempt, not failed. A dead check that nothing needs is removed instead.

A call whose statement has no literal fails the check (the message is built
elsewhere and cannot be audited), except a diagnostic factory
(`[&] { return parser.emitError(loc); }`), whose text comes from the verify
function it is passed to.

Prints every unquoted message with its file and line; exit status 1 when
there is one (or an unauditable call), 0 otherwise. -v also lists the quoted
and the exempt ones, and the counts.
"""
import re
import sys
from pathlib import Path

CALL = re.compile(r"\b(?:(?P<recv>[\w\]\)]+\s*(?:\.|->)\s*))?"
                  r"(?P<fn>emitOpError|emitError)\s*\(")
# `XOp::verify...(` opens the member functions of op XOp.
MEMBER = re.compile(r"^(?:LogicalResult|ParseResult|void|bool|[\w:<>]+)\s+"
                    r"(\w+)::(\w+)\s*\(", re.M)
OP_DEF = re.compile(r"^def\s+(\w+?)_(\w+)\s*:\s*\w+<\s*\"([\w.]+)\"", re.M)
DIAG_LINE = re.compile(r"expected-(error|warning|remark|note)|error:")
EXEMPT = "Unreachable from .mlir:"
GUARD = re.compile(r"^\s*(\}\s*)?(if|else|for|while)\b")


def strip_comments(text):
    """Blanks // and /* */ comments outside string and char literals,
    keeping offsets and line numbers."""
    out = list(text)
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            i = j + 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            for k in range(i, j):
                out[k] = " "
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            for k in range(i, j):
                if out[k] != "\n":
                    out[k] = " "
            i = j
        else:
            i += 1
    return "".join(out)


def statement_end(text, start):
    """The offset of the `;` (or the `}` closing an enclosing lambda) that
    ends the statement starting at `start`."""
    depth, i, n = 0, start, len(text)
    while i < n:
        c = text[i]
        if c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            i = j + 1
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            if depth == 0:
                return i
            depth -= 1
        elif c == ";" and depth == 0:
            return i
        i += 1
    return n


ESCAPES = {"n": "\n", "t": "\t", "\\": "\\", "\"": "\"", "'": "'"}


def literals(stmt):
    """(text, optional) for each string literal of `stmt`, adjacent ones
    joined; `optional` when it is a branch of `?:`."""
    out = []
    for m in re.finditer(r'"((?:[^"\\]|\\.)*)"((?:\s*"(?:[^"\\]|\\.)*")*)',
                         stmt):
        raw = m.group(1) + "".join(
            re.findall(r'"((?:[^"\\]|\\.)*)"', m.group(2)))
        text = re.sub(r"\\(.)", lambda e: ESCAPES.get(e.group(1), e.group(1)),
                      raw)
        before = stmt[:m.start()].rstrip()
        after = stmt[m.end():].lstrip()
        optional = before.endswith(("?", ":")) and not before.endswith("::")
        optional |= after.startswith(":") and not after.startswith("::")
        out.append((text, optional))
    return out


def fragments(stmt):
    """The fixed text of a message: its literals with words, trimmed."""
    frags = []
    for text, optional in literals(stmt):
        text = text.strip()
        if not optional and re.search(r"[A-Za-z]{2}", text):
            frags.append(text)
    return frags


def is_factory(text, start, end):
    """Whether the call at [start, end) is the whole body of a lambda,
    `[&] { return parser.emitError(loc); }`: it makes the diagnostic that
    a verify function fills."""
    before = text[max(0, start - 80):start]
    after = text[end:end + 8]
    return (re.search(r"\]\s*(\([^)]*\))?\s*\{\s*return\s+$", before)
            is not None and re.match(r";\s*\}", after) is not None)


def exempt(raw_lines, line):
    """Whether the diagnostic on 1-based `line` carries the exemption: in
    the comment block right above it, or above the `if` guarding it."""
    i = line - 2
    if i >= 0 and GUARD.match(raw_lines[i]):
        i -= 1
    while i >= 0 and raw_lines[i].lstrip().startswith("//"):
        if EXEMPT in raw_lines[i]:
            return True
        i -= 1
    return False


def op_names(ir_dir):
    """C++ op class -> 'dialect.mnemonic', from the ODS of one dialect."""
    names = {}
    for td in sorted(ir_dir.glob("*Ops.td")):
        dialect = ir_dir.parent.name.lower()
        for m in OP_DEF.finditer(td.read_text()):
            names[m.group(2)] = f"{dialect}.{m.group(3)}"
    return names


def enclosing_op(text, offset, ops):
    """The op whose member function contains `offset`, if any."""
    best = None
    for m in MEMBER.finditer(text, 0, offset):
        best = m.group(1)
    return ops.get(best)


def messages(repo):
    """(file, line, fragments, op or None, exempt) of every diagnostic;
    `op` is the op a bare emitOpError() reports on. Unauditable calls have
    no fragments."""
    out = []
    sources = list(repo.glob("dialects/*/IR/*.cpp"))
    sources += repo.glob("dialects/*/IR/*.h")
    for cpp in sorted(sources):
        ops = op_names(cpp.parent)
        raw = cpp.read_text()
        raw_lines = raw.splitlines()
        text = strip_comments(raw)
        for m in CALL.finditer(text):
            end = statement_end(text, m.end() - 1)
            stmt = text[m.start():end]
            line = text.count("\n", 0, m.start()) + 1
            rel = cpp.relative_to(repo)
            frags = fragments(stmt)
            if not frags and is_factory(text, m.start(), end):
                continue
            op = None
            if m.group("fn") == "emitOpError" and not m.group("recv"):
                op = enclosing_op(text, m.start(), ops)
            out.append((rel, line, frags, op, exempt(raw_lines, line)))
    return out


def contains_in_order(line, frags):
    pos = 0
    for f in frags:
        k = line.find(f, pos)
        if k < 0:
            return False
        pos = k + len(f)
    return True


def test_lines(repo, dialect):
    """(path, lines) of every test file of `dialect`."""
    out = []
    for path in sorted((repo / "test" / "Dialect" / dialect).rglob("*.mlir")):
        out.append((path, path.read_text(errors="replace").splitlines()))
    return out


def names_op(lines, i, op):
    """Whether the diagnostic quoted on line i is reported on `op`: its
    `'dialect.op' op` prefix (FileCheck), or the op on the line an
    `expected-*` comment designates (its own line, or @+N / @-N)."""
    line = lines[i]
    if f"'{op}' op" in line:
        return True
    m = re.search(r"expected-\w+\s*(?:@([+-]\d+))?", line)
    if not m:
        return False
    target = i + int(m.group(1) or 0)
    word = re.compile(r"(?<![\w.])" + re.escape(op) + r"(?![\w.])")
    return 0 <= target < len(lines) and bool(word.search(lines[target]))


def candidates(msg, tests):
    """The test lines (path, index) that can quote `msg`."""
    _, _, frags, op, _ = msg
    out = []
    for path, lines in tests:
        for i, line in enumerate(lines):
            if not DIAG_LINE.search(line) or not contains_in_order(line,
                                                                    frags):
                continue
            if op is None or names_op(lines, i, op):
                out.append((path, i))
    return out


def assign(cands):
    """A maximum matching of messages to test lines (each line quotes one
    diagnostic): message index -> line, by augmenting paths."""
    owner = {}

    def place(m, seen):
        for line in cands[m]:
            if line in seen:
                continue
            seen.add(line)
            if line not in owner or place(owner[line], seen):
                owner[line] = m
                return True
        return False

    for m in range(len(cands)):
        place(m, set())
    return {m: line for line, m in owner.items()}


def main(argv):
    verbose = "-v" in argv
    args = [a for a in argv if a != "-v"]
    repo = Path(args[0]) if args else Path(__file__).resolve().parent.parent
    msgs = messages(repo)
    bad = exempted = 0
    for dialect in sorted({m[0].parts[1] for m in msgs}):
        tests = test_lines(repo, dialect)
        mine = [m for m in msgs if m[0].parts[1] == dialect and m[2]]
        quoted = assign([[] if m[4] else candidates(m, tests) for m in mine])
        for k, (rel, line, frags, op, free) in enumerate(mine):
            text = " ... ".join(frags)
            if free:
                exempted += 1
                if verbose:
                    print(f"{rel}:{line}: \"{text}\" exempt "
                          f"(unreachable from .mlir)")
            elif k not in quoted:
                on = f" (on {op})" if op else ""
                print(f"{rel}:{line}: no test under test/Dialect/{dialect} "
                      f"quotes \"{text}\"{on}")
                bad += 1
            elif verbose:
                path, i = quoted[k]
                print(f"{rel}:{line}: \"{text}\" quoted by "
                      f"{path.relative_to(repo)}:{i + 1}")
    for rel, line, frags, _, _ in msgs:
        if not frags:
            print(f"{rel}:{line}: the message has no literal text to audit")
            bad += 1
    if verbose or bad:
        quoted = len(msgs) - bad - exempted
        print(f"{len(msgs)} messages: {quoted} quoted, {exempted} exempt, "
              f"{bad} not quoted")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
