"""scripts/mutate's mutation engine: sites found in the syntax tree, mutants with stable ids.

Sites come from libclang's Python bindings (python3-clang-14) over each translation unit of a
compile_commands.json: the main file of every TU under stack/ and the stack/ headers they
include (a header's sites are found once, in the first TU that includes it). Not sites: the
defect zoo (stack/defects/, and any statement holding a `defects::active(...)` switch), the
tests and their support headers, macro expansions (CHECK and friends), template-dependent
code that cannot be typed, and `if constexpr`.

Operators (each one token or one statement; a mutant is one edit of the file's bytes):
  rel      relational operator to a neighbour:  <:<= >   <=:< >=   >:>= <   >=:> <=   ==:!=   !=:==
  arith    + <-> -, * <-> /, % -> / (also the compound assignments +=, -=, *=, /=, %=)
  lit      integer literal to literal+1, literal-1 (when positive) and 0
  negate   the condition of an if, while, do, for or ?: wrapped in !( )
  logic    && <-> ||
  delete   a statement deleted: a call, an assignment, ++/--, break, continue
  swap     two arguments of one call with the same type swapped
  ret      a returned value replaced by its type's default (false, 0, nullptr, {})

A mutant's id is `file:line:column:operator:replacement` (1-based line, byte column), stable
for a given commit. Python standard library plus clang.cindex.
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
import os
import random
import re
import shlex
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path

OPERATORS = ("rel", "arith", "lit", "negate", "logic", "delete", "swap", "ret")
REL = {"<": ["<=", ">"], "<=": ["<", ">="], ">": [">=", "<"], ">=": [">", "<="], "==": ["!="], "!=": ["=="]}
ARITH = {"+": "-", "-": "+", "*": "/", "/": "*", "%": "/", "+=": "-=", "-=": "+=", "*=": "/=", "/=": "*=",
         "%=": "/="}
TEST_SUPPORT = ("testing.h", "test_support.h", "test_fixture.h")
CACHE_VERSION = "5"  # 2: schema spans; 3: constexpr functions marked; 4: no sites in defaulted functions;
# 5: no sites in an inline capacity


class EngineError(Exception):
    """libclang missing, or a TU it cannot parse: one line for the user."""


def cindex():
    """clang.cindex, also when this Python is not the system's (apt puts the bindings in
    /usr/lib/python3/dist-packages, which a pyenv or venv interpreter does not search)."""
    try:
        import clang.cindex as ci
    except ImportError:
        sys.path.append("/usr/lib/python3/dist-packages")
        try:
            import clang.cindex as ci
        except ImportError:
            raise EngineError("libclang's Python bindings are missing: apt-get install python3-clang-14 "
                              "(scripts/bootstrap installs it)")
    if not ci.Config.loaded and not os.environ.get("STACKCHECK_LIBCLANG_DEFAULT"):
        for lib in ("/usr/lib/llvm-14/lib/libclang-14.so.1", "/usr/lib/llvm-14/lib/libclang.so.1"):
            if Path(lib).exists():
                ci.Config.set_library_file(lib)
                break
    return ci


@dataclass(frozen=True)
class Mutant:
    file: str         # relative to the tree's root
    line: int
    col: int
    op: str
    repl: str         # the replacement token (the id's last field)
    edits: tuple      # ((start, end, text), ...): byte offsets into the original file
    function: str = ""
    before: str = ""  # the mutated line(s), as one line, before and after
    after: str = ""
    span: tuple = ()  # ((start, end, form, constexpr), ...): what a schema wraps (schemata.py), edits inside

    @property
    def id(self) -> str:
        return f"{self.file}:{self.line}:{self.col}:{self.op}:{self.repl}"

    @property
    def folder(self) -> str:
        return str(Path(self.file).parent)

    def apply(self, original: bytes) -> bytes:
        out = original
        for s, e, t in sorted(self.edits, reverse=True):
            out = out[:s] + t.encode() + out[e:]
        return out

    def to_json(self) -> dict:
        d = asdict(self)
        d["edits"] = [list(x) for x in self.edits]
        d["span"] = [list(x) for x in self.span]
        return d

    @staticmethod
    def from_json(d: dict) -> "Mutant":
        return Mutant(**{**d, "edits": tuple(tuple(x) for x in d["edits"]),
                         "span": tuple(tuple(x) for x in d.get("span", ()))})


def is_site_file(rel: str) -> bool:
    """Whether a file's code may hold sites: stack/ minus the zoo, the tests and their support."""
    name = Path(rel).name
    return (rel.startswith("stack/") and not rel.startswith("stack/defects/") and not name.endswith(
        ("_test.cpp", "_test.h", "_test_util.h")) and name not in TEST_SUPPORT and name.endswith(
        (".cpp", ".h", ".hpp", ".cc")))


def compile_args(entry: dict) -> list[str]:
    """A compile_commands.json entry's arguments without the compiler, -c, -o X and the source."""
    argv = entry.get("arguments") or shlex.split(entry["command"])
    out, skip = [], False
    src = str(Path(entry["directory"], entry["file"]))
    for a in argv[1:]:
        if skip:
            skip = False
        elif a in ("-o", "-MF", "-MT", "-MQ"):
            skip = True
        elif a in ("-c", "-MD", "-MMD") or a == entry["file"] or a == src:
            pass
        else:
            out.append(a)
    return out


# ---------------------------------------------------------------------------------------------
# One file's text: offsets to lines and columns, small scans over the source bytes


class Source:
    def __init__(self, data: bytes):
        self.data = data
        self.starts = [0]
        for i, b in enumerate(data):
            if b == 10:
                self.starts.append(i + 1)

    def line_col(self, off: int) -> tuple[int, int]:
        import bisect
        i = bisect.bisect_right(self.starts, off) - 1
        return i + 1, off - self.starts[i] + 1

    def text(self, s: int, e: int) -> str:
        return self.data[s:e].decode(errors="replace")

    def skip_space(self, i: int) -> int:
        while i < len(self.data) and self.data[i] in b" \t\r\n":
            i += 1
        return i

    def match_paren(self, open_at: int) -> int:
        """The offset of the ')' closing the '(' at open_at (-1 when there is none)."""
        depth = 0
        for i in range(open_at, len(self.data)):
            c = self.data[i]
            if c == 40:
                depth += 1
            elif c == 41:
                depth -= 1
                if depth == 0:
                    return i
        return -1

    def one_line(self, s: int, e: int, edits=()) -> str:
        """The lines from s's to e's, as one whitespace-collapsed line, with `edits` applied."""
        ls = self.starts[self.line_col(s)[0] - 1]
        le = self.data.find(b"\n", e)
        le = len(self.data) if le < 0 else le
        chunk = self.data[ls:le]
        for a, b, t in sorted(edits, reverse=True):
            chunk = chunk[:a - ls] + t.encode() + chunk[b - ls:]
        return " ".join(chunk.decode(errors="replace").split())[:240]


CAPACITY_TEMPLATES = (b"small_vector", b"InlineArena")


def inline_capacity(data: bytes, s: int) -> bool:
    """The literal at byte s is a template argument of boost::container::small_vector or
    support::InlineArena: an inline capacity. Not a site: by their contracts (boost's small_vector
    is a vector for any N; InlineArena's monotonic_buffer_resource takes any initial buffer) the
    value only moves elements between the object and the heap, so each such mutant is an
    equivalent that trivial compiler equivalence cannot see and the schemata build cannot hold."""
    depth, i = 0, s - 1
    while i >= 0 and s - i < 240:
        ch = data[i:i + 1]
        if ch == b">":
            depth += 1
        elif ch == b"<":
            if depth == 0:
                name = re.search(rb"([A-Za-z_][A-Za-z_0-9]*)\s*$", data[max(0, i - 64):i])
                return name is not None and name.group(1) in CAPACITY_TEMPLATES
            depth -= 1
        elif ch in b";{}()":
            return False
        i -= 1
    return False


def literal_variants(text: str) -> list[str]:
    """An integer literal's mutants: +1, -1 (when positive) and 0, in its own base and suffix."""
    body = text.replace("'", "")
    suffix = ""
    while body and body[-1] in "uUlLzZ":
        suffix = body[-1] + suffix
        body = body[:-1]
    try:
        if body.lower().startswith("0x"):
            v, fmt = int(body, 16), (lambda n: hex(n))
        elif body.lower().startswith("0b"):
            v, fmt = int(body, 2), (lambda n: bin(n))
        elif len(body) > 1 and body.startswith("0"):
            v, fmt = int(body, 8), (lambda n: "0" + format(n, "o") if n else "0")
        else:
            v, fmt = int(body), str
    except ValueError:
        return []
    out = []
    for n in (v + 1, v - 1, 0):
        if n >= 0 and n != v:
            t = fmt(n) + suffix
            if t not in out:
                out.append(t)
    return out


def default_of(ci, t) -> str | None:
    """The default value of a (canonical) type as source text, None when it has none we write."""
    K = ci.TypeKind
    k = t.kind
    if k == K.BOOL:
        return "false"
    if k in (K.CHAR_U, K.UCHAR, K.CHAR16, K.CHAR32, K.USHORT, K.UINT, K.ULONG, K.ULONGLONG, K.UINT128, K.CHAR_S,
             K.SCHAR, K.WCHAR, K.SHORT, K.INT, K.LONG, K.LONGLONG, K.INT128, K.FLOAT, K.DOUBLE, K.LONGDOUBLE):
        return "0"
    if k in (K.POINTER, K.NULLPTR, K.MEMBERPOINTER):
        return "nullptr"
    if k in (K.RECORD, K.ENUM):
        return "{}"
    return None


# ---------------------------------------------------------------------------------------------
# The walk over one translation unit


@dataclass
class Ctx:
    function: str = ""
    returns_ref: bool = False
    template: bool = False
    stmt: tuple = ()  # (file, start, end) of the statement in a block that holds this node
    ce: bool = False  # in a constexpr or consteval function: its schema switch is off in constant evaluation


@dataclass
class TuResult:
    sites: list[Mutant] = field(default_factory=list)
    includes: list[str] = field(default_factory=list)  # stack/ files the TU read (for the cache)


class Walker:
    """Collects the sites of one parsed TU in the files `wanted` accepts."""

    STMT_PARENTS = ("COMPOUND_STMT", "IF_STMT", "WHILE_STMT", "FOR_STMT", "DO_STMT", "CASE_STMT", "DEFAULT_STMT",
                    "LABEL_STMT")
    FUNCS = ("FUNCTION_DECL", "CXX_METHOD", "CONSTRUCTOR", "DESTRUCTOR", "CONVERSION_FUNCTION", "FUNCTION_TEMPLATE")

    def __init__(self, ci, root: Path, wanted):
        self.ci = ci
        self.K = ci.CursorKind
        self.root = str(root).rstrip("/") + "/"
        self.wanted = wanted
        self.sources: dict[str, Source] = {}
        self.macros: dict[str, list[tuple[int, int]]] = {}
        self.switches: dict[str, list[tuple[int, int]]] = {}
        self.sites: list[Mutant] = []
        self.names: dict[str, str | None] = {}

    def rel(self, f) -> str | None:
        """The repo-relative path of a libclang file, when its sites are wanted."""
        if f is None:
            return None
        name = f.name
        if name not in self.names:
            p = os.path.normpath(name)
            r = p[len(self.root):] if p.startswith(self.root) else None
            self.names[name] = r if r is not None and self.wanted(r) else None
            if self.names[name] and self.names[name] not in self.sources:
                self.sources[self.names[name]] = Source(Path(p).read_bytes())
        return self.names[name]

    def run(self, tu) -> None:
        for c in tu.cursor.get_children():
            rel = self.rel(c.location.file)
            if rel is None:
                continue
            if c.kind == self.K.MACRO_INSTANTIATION:
                self.macros.setdefault(rel, []).append((c.extent.start.offset, c.extent.end.offset))
            elif c.kind.is_declaration() or c.kind == self.K.NAMESPACE:
                self.visit(c, rel, Ctx(), None)

    def qualified(self, c) -> str:
        parts = []
        p = c
        while p is not None and p.kind != self.K.TRANSLATION_UNIT:
            if p.spelling:
                parts.append(p.spelling)
            elif p.kind == self.K.NAMESPACE:
                parts.append("(anonymous)")
            p = p.semantic_parent
        parts = list(reversed(parts))
        if parts and parts[0] == "stackcheck":
            parts = parts[1:]
        return "::".join(parts)

    def visit(self, c, rel: str, ctx: Ctx, parent) -> None:
        K = self.K
        kind = c.kind
        if kind.name in self.FUNCS or kind == K.LAMBDA_EXPR:
            if kind != K.LAMBDA_EXPR and re.search(rb"=\s*default\s*;?\s*$", self.sources[rel].data[
                    c.extent.start.offset:c.extent.end.offset]):
                return  # a defaulted function: its body is the compiler's, not a site
            if kind != K.LAMBDA_EXPR:
                rt = c.result_type
                head = self.sources[rel].data[c.extent.start.offset:c.extent.end.offset].split(b"{", 1)[0]
                ctx = Ctx(self.qualified(c), rt.kind in (self.ci.TypeKind.LVALUEREFERENCE,
                                                         self.ci.TypeKind.RVALUEREFERENCE),
                          ctx.template or kind == K.FUNCTION_TEMPLATE, ctx.stmt,
                          re.search(rb"\bconst(?:expr|eval)\b", head) is not None)
            else:
                ctx = Ctx(ctx.function, False, ctx.template, ctx.stmt, ctx.ce)
        elif kind in (K.CLASS_TEMPLATE, K.CLASS_TEMPLATE_PARTIAL_SPECIALIZATION):
            ctx = Ctx(ctx.function, ctx.returns_ref, True, ctx.stmt, ctx.ce)
        if parent is not None and parent.kind == K.COMPOUND_STMT and (kind.is_statement() or kind.is_expression()):
            ctx = Ctx(ctx.function, ctx.returns_ref, ctx.template, (c.extent.start.offset, c.extent.end.offset), ctx.ce)
        if kind == K.IF_STMT and self.is_constexpr_if(c, rel):
            return
        if kind == K.STATIC_ASSERT:
            return
        if ctx.function:
            self.sites_of(c, rel, ctx, parent)
        for ch in c.get_children():
            if self.rel(ch.location.file) != rel:
                continue
            self.visit(ch, rel, ctx, c)

    def is_constexpr_if(self, c, rel: str) -> bool:
        src = self.sources[rel]
        i = src.skip_space(c.extent.start.offset + 2)
        return src.data[i:i + 9] == b"constexpr"

    def add(self, rel: str, op: str, repl: str, edits: list, ctx: Ctx, span: list) -> None:
        """One site; `span`: the (start, end, form) pieces a schema wraps, each holding edits."""
        src = self.sources[rel]
        at = min(e[0] for e in edits)
        end = max(e[1] for e in edits)
        line, col = src.line_col(at)
        # keep the line count: a deleted span keeps its newlines, so later lines keep their numbers
        fixed = tuple((s, e, t + "\n" * src.data[s:e].count(b"\n")) for s, e, t in edits)
        self.sites.append(Mutant(rel, line, col, op, repl, fixed, ctx.function, src.one_line(at, end),
                                 src.one_line(at, end, fixed), tuple((*x, ctx.ce) for x in span)))

    def typed(self, *cursors) -> bool:
        TK = self.ci.TypeKind
        return all(x.type.kind not in (TK.DEPENDENT, TK.INVALID) for x in cursors)

    def statement_like(self, c, rel: str, parent) -> bool:
        """An expression used as a statement: its parent holds statements and a ';' follows it."""
        if parent is None or parent.kind.name not in self.STMT_PARENTS:
            return False
        src = self.sources[rel]
        i = src.skip_space(c.extent.end.offset)
        return src.data[i:i + 1] == b";"

    def core(self, c):
        """Through the implicit wrappers (ExprWithCleanups and the like) to the expression."""
        while c.kind == self.K.UNEXPOSED_EXPR:
            ch = list(c.get_children())
            if len(ch) != 1:
                break
            c = ch[0]
        return c

    def sites_of(self, c, rel: str, ctx: Ctx, parent) -> None:
        K = self.K
        kind = c.kind
        src = self.sources[rel]
        s, e = c.extent.start.offset, c.extent.end.offset
        if c.extent.start.file is None or c.extent.end.file is None:
            return
        if kind == K.CALL_EXPR and c.spelling == "active":
            ref = c.referenced
            if ref is not None and ref.semantic_parent is not None and ref.semantic_parent.spelling == "defects":
                self.switches.setdefault(rel, []).append(ctx.stmt or (s, e))
                return
        if kind in (K.BINARY_OPERATOR, K.COMPOUND_ASSIGNMENT_OPERATOR):
            ch = list(c.get_children())
            if len(ch) != 2 or not self.typed(c, *ch):
                return
            gs, ge = ch[0].extent.end.offset, ch[1].extent.start.offset
            op = src.text(gs, ge).strip()
            if not op or gs >= ge:
                return
            os_ = gs + src.data[gs:ge].index(op.encode())
            oe = os_ + len(op)
            value, void = [(s, e, "value")], [(s, e, "void")]
            for r in REL.get(op, []):
                self.add(rel, "rel", r, [(os_, oe, r)], ctx, value)
            if op in ARITH:
                self.add(rel, "arith", ARITH[op], [(os_, oe, ARITH[op])], ctx, value)
            if op in ("&&", "||"):
                r = "||" if op == "&&" else "&&"
                self.add(rel, "logic", r, [(os_, oe, r)], ctx, value)
            if (op == "=" or kind == K.COMPOUND_ASSIGNMENT_OPERATOR) and self.statement_like(c, rel, parent):
                self.add(rel, "delete", "deleted", [(s, e, "")], ctx, void)
        elif kind == K.UNARY_OPERATOR:
            t = src.data[s:e]
            if (t[:2] in (b"++", b"--") or t[-2:] in (b"++", b"--")) and self.statement_like(c, rel, parent):
                self.add(rel, "delete", "deleted", [(s, e, "")], ctx, [(s, e, "void")])
        elif kind in (K.CALL_EXPR, K.UNEXPOSED_EXPR):
            core = self.core(c)
            if core.kind == K.CALL_EXPR and self.statement_like(c, rel, parent) and self.typed(core):
                self.add(rel, "delete", "deleted", [(s, e, "")], ctx, [(s, e, "void")])
            if kind == K.CALL_EXPR and not ctx.template:
                self.swaps(c, rel, ctx)
        elif kind in (K.BREAK_STMT, K.CONTINUE_STMT):
            self.add(rel, "delete", "deleted", [(s, e, "")], ctx, [(s, e, "stmt")])
        elif kind == K.INTEGER_LITERAL and not inline_capacity(src.data, s):
            t = src.text(s, e)
            for r in literal_variants(t):
                self.add(rel, "lit", r, [(s, e, r)], ctx, [(s, e, "value")])
        elif kind in (K.IF_STMT, K.WHILE_STMT, K.DO_STMT, K.FOR_STMT, K.CONDITIONAL_OPERATOR):
            cond = self.condition(c, rel)
            if cond is not None and self.typed(cond):
                cs, ce = cond.extent.start.offset, cond.extent.end.offset
                self.add(rel, "negate", "!", [(cs, ce, "!(" + src.text(cs, ce) + ")")], ctx, [(cs, ce, "bool")])
        elif kind == K.RETURN_STMT and not ctx.returns_ref:
            ch = list(c.get_children())
            if len(ch) != 1 or not ch[0].kind.is_expression() or not self.typed(ch[0]):
                return
            d = default_of(self.ci, ch[0].type.get_canonical())
            xs, xe = ch[0].extent.start.offset, ch[0].extent.end.offset
            if d is not None and xs < xe and src.text(xs, xe).strip() not in (d, "0u", "0U", "{}", "0.0"):
                if ctx.template and d == "{}":
                    return
                self.add(rel, "ret", d, [(xs, xe, d)], ctx, [(s, xe, "return")])

    def condition(self, c, rel: str):
        """The condition expression of an if/while/do/for/?:, None when it is a declaration or
        cannot be told apart from the init-statement."""
        K = self.K
        src = self.sources[rel]
        ch = list(c.get_children())
        if c.kind == K.CONDITIONAL_OPERATOR:
            return ch[0] if ch and ch[0].kind.is_expression() else None
        s = c.extent.start.offset
        if c.kind == K.DO_STMT:
            if not ch:
                return None
            body_end = ch[0].extent.end.offset
            w = src.data.find(b"(", body_end)
            close = src.match_paren(w) if w >= 0 else -1
            lo, hi = w, close
        else:
            w = src.data.find(b"(", s)
            close = src.match_paren(w) if w >= 0 else -1
            lo, hi = w, close
            if c.kind == K.FOR_STMT:  # between the first and the second ';' inside the parentheses
                depth, semis = 0, []
                for i in range(w, close):
                    b = src.data[i]
                    depth += b in b"([{"
                    depth -= b in b")]}"
                    if b == 59 and depth == 1:
                        semis.append(i)
                if len(semis) != 2:
                    return None
                lo, hi = semis
        if lo < 0 or hi < 0:
            return None
        inside = [x for x in ch if lo < x.extent.start.offset and x.extent.end.offset <= hi]
        if not inside or not inside[-1].kind.is_expression():
            return None
        cond = inside[-1]
        if src.skip_space(cond.extent.end.offset) != hi:
            return None
        return cond

    def swaps(self, c, rel: str, ctx: Ctx) -> None:
        if c.spelling.startswith("operator"):
            return
        src = self.sources[rel]
        args = list(c.get_arguments())
        if len(args) < 2:
            return
        spans = []
        for a in args:
            if a.extent.start.file is None or a.extent.end.offset <= a.extent.start.offset or not self.typed(a):
                return
            spans.append((a.extent.start.offset, a.extent.end.offset, a.type.get_canonical().spelling))
        for x, y in zip(spans, spans[1:]):
            if x[1] > y[0] or "," not in src.text(x[1], y[0]):
                return
        for i in range(len(spans)):
            for j in range(i + 1, len(spans)):
                (a0, a1, ta), (b0, b1, tb) = spans[i], spans[j]
                if ta == tb and src.data[a0:a1] != src.data[b0:b1]:
                    self.add(rel, "swap", f"{i}<>{j}", [(a0, a1, src.text(b0, b1)), (b0, b1, src.text(a0, a1))], ctx,
                             [(a0, a1, "value"), (b0, b1, "value")])

    def kept(self) -> list[Mutant]:
        """The sites outside macro expansions and defect switches, one per id."""
        out, seen = [], set()
        for m in self.sites:
            spans = [(s, e) for s, e, _ in m.edits]
            bad = self.macros.get(m.file, []) + self.switches.get(m.file, [])
            if any(s < be and bs < e for s, e in spans for bs, be in bad):
                continue
            if m.id not in seen:
                seen.add(m.id)
                out.append(m)
        return out


def parse_tu(args: tuple) -> tuple[str, list[dict], list[str], str]:
    """(main file, sites as JSON, the stack/ files it read, error) of one TU (a process-pool job)."""
    root, entry = Path(args[0]), args[1]
    try:
        ci = cindex()
    except EngineError as e:
        return entry["file"], [], [], str(e)
    idx = ci.Index.create()
    path = str(Path(entry["directory"], entry["file"]))
    try:
        tu = idx.parse(path, args=compile_args(entry), options=ci.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD)
    except ci.TranslationUnitLoadError as e:
        return path, [], [], f"libclang cannot parse {path}: {e}"
    errors = [d for d in tu.diagnostics if d.severity >= 3]
    if errors:
        return path, [], [], f"libclang: {errors[0]}"
    w = Walker(ci, root, is_site_file)
    w.run(tu)
    rootp = str(root).rstrip("/") + "/"
    incs = sorted({os.path.normpath(i.include.name)[len(rootp):] for i in tu.get_includes()
                   if os.path.normpath(i.include.name).startswith(rootp)})
    return path, [m.to_json() for m in w.kept()], incs, ""


# ---------------------------------------------------------------------------------------------
# All sites of a tree, cached per TU


def tu_entries(root: Path, compile_commands: Path) -> list[dict]:
    """The compile_commands.json entries of the TUs whose main file may hold sites, by path."""
    try:
        entries = json.loads(compile_commands.read_text())
    except (OSError, ValueError) as e:
        raise EngineError(f"cannot read {compile_commands}: {e}")
    out, seen = [], set()
    rootp = str(root).rstrip("/") + "/"
    for e in entries:
        p = os.path.normpath(str(Path(e["directory"], e["file"])))
        if p.startswith(rootp) and is_site_file(p[len(rootp):]) and p not in seen:
            seen.add(p)
            out.append(e)
    return sorted(out, key=lambda e: str(Path(e["directory"], e["file"])))


def file_digest(root: Path, rel: str) -> str:
    try:
        return hashlib.sha1((root / rel).read_bytes()).hexdigest()
    except OSError:
        return "missing"


def cache_key(root: Path, entry: dict) -> str:
    # the tree's own path out of the command: one key for every clone of the same sources
    cmd = " ".join(compile_args(entry)).replace(str(root).rstrip("/"), "<root>")
    return hashlib.sha1(f"{CACHE_VERSION}\n{cmd}".encode()).hexdigest()


def find_sites(root: Path, compile_commands: Path, cache_dir: Path, jobs: int = 1, progress=None) -> list[Mutant]:
    """Every site of the tree, header sites deduplicated across TUs, sorted by id."""
    entries = tu_entries(root, compile_commands)
    if not entries:
        raise EngineError(f"{compile_commands}: no translation unit under stack/")
    cache_dir.mkdir(parents=True, exist_ok=True)
    results: dict[str, tuple[list[dict], list[str]]] = {}
    todo = []
    for e in entries:
        path = str(Path(e["directory"], e["file"]))
        cf = cache_dir / (hashlib.sha1(path.replace(str(root), "").encode()).hexdigest() + ".json")
        try:
            c = json.loads(cf.read_text())
            if c["key"] == cache_key(root, e) and all(file_digest(root, r) == h for r, h in c["files"].items()):
                results[path] = (c["sites"], list(c["files"]))
                continue
        except (OSError, ValueError, KeyError):
            pass
        todo.append((e, cf))
    if todo:
        if progress:
            progress(f"finding sites: parsing {len(todo)} of {len(entries)} TUs with libclang "
                     f"({len(entries) - len(todo)} cached)")
        work = [(str(root), e) for e, _ in todo]
        if jobs > 1 and len(work) > 1:
            import multiprocessing
            # spawn, not fork: a forked worker inherits libclang's and the logger's locks mid-use and
            # can hang at exit (seen: a run stuck 20 min after every TU was parsed).
            with multiprocessing.get_context("spawn").Pool(min(jobs, len(work))) as pool:
                outs = list(pool.imap(parse_tu, work))
        else:
            outs = [parse_tu(w) for w in work]
        for (e, cf), (path, sites, incs, err) in zip(todo, outs):
            if err:
                raise EngineError(err)
            rel_main = os.path.relpath(path, root)
            files = {r: file_digest(root, r) for r in sorted(set(incs) | {rel_main})}
            tmp = cf.with_name(cf.name + f".tmp-{os.getpid()}")
            tmp.write_text(json.dumps({"key": cache_key(root, e), "files": files, "sites": sites}))
            os.replace(tmp, cf)
            results[path] = (sites, list(files))
    seen: dict[str, Mutant] = {}
    for path in sorted(results):  # the first TU that includes a header gives its sites
        for d in results[path][0]:
            m = Mutant.from_json(d)
            seen.setdefault(m.id, m)
    return sorted(seen.values(), key=sort_key)


def tu_reads(root: Path, cache_dir: Path, tus: list[str]) -> dict[str, set[str]]:
    """The stack/ files each TU (a path relative to root) read when its sites were found, from
    the site cache; a TU the cache does not hold is left out."""
    out = {}
    for rel in tus:
        cf = cache_dir / (hashlib.sha1(("/" + rel).encode()).hexdigest() + ".json")
        try:
            out[rel] = set(json.loads(cf.read_text())["files"])
        except (OSError, ValueError, KeyError):
            pass
    return out


def sort_key(m: Mutant):
    return (m.file, m.line, m.col, m.op, m.repl)


def select(sites: list[Mutant], files: list[str], operators: list[str]) -> list[Mutant]:
    """The sites in files matching any glob (all when none) with an operator in the list."""
    return [m for m in sites if (not files or any(fnmatch.fnmatch(m.file, g) for g in files))
            and (not operators or m.op in operators)]


def sample(sites: list[Mutant], n: int | None, seed: int) -> list[Mutant]:
    """A deterministic sample: the same sites, count and seed give the same mutants in the same
    order (drawn from the id-sorted list, so the order the sites were found in does not matter)."""
    ordered = sorted(sites, key=sort_key)
    rng = random.Random(seed)
    if n is None or n >= len(ordered):
        rng.shuffle(ordered)
        return ordered
    return rng.sample(ordered, n)
