"""Warrant: check what AI models say, in process.

    >>> import warrant
    >>> report = warrant.check("The Team plan costs $15 per user per month.",
    ...                        sources=[("plans", "The Team plan costs $12 per user per month.")])
    >>> report.gate
    'block'

Every claim of the answer is held against the sources and gets a status with the exact quote
behind it; policies run over the result; the gate is ``allow``, ``review`` or ``block``. The
same input gives the same report, byte for byte, as ``warrant check --format json`` and
``POST /v1/check``: this package is a shell over the same library.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence, Union

from . import _native

__all__ = [
    "check",
    "check_batch",
    "extract",
    "validate",
    "policy_eval",
    "compile",
    "Store",
    "Report",
    "Claim",
    "Edge",
    "Summary",
    "ItemError",
    "WarrantError",
    "InputError",
    "StoreError",
    "ModelError",
    "DEFAULT_MAX_SOURCE_BYTES",
]

#: Largest total size of source files read for one check (as ``--max-source-bytes``).
DEFAULT_MAX_SOURCE_BYTES = 256 * 1024 * 1024

_GATES = ("allow", "review", "block")


class WarrantError(Exception):
    """A check could not be made. ``kind`` says why: ``input``, ``usage``, ``store``,
    ``store_busy``, ``model`` or ``internal``."""

    def __init__(self, message: str, *, kind: str = "internal", path: str | None = None,
                 line: int | None = None, pointer: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.kind = kind
        self.path = path
        self.line = line
        self.pointer = pointer
        #: Every problem when there are several (``{"pointer", "message"}``; the message names the first).
        self.problems: list[dict[str, str]] = []


class InputError(WarrantError, ValueError):
    """Bad input: ``path`` (a file), ``line`` and ``pointer`` (a JSON pointer) say where."""


class StoreError(WarrantError):
    """The knowledge store cannot be opened or read (``kind == "store_busy"``: retry)."""


class ModelError(WarrantError):
    """A model was asked for and cannot be used."""


def _raise(e: _native.NativeError) -> WarrantError:
    kind, message, path, line, pointer = e.args[:5]
    cls = {"input": InputError, "usage": InputError, "store": StoreError,
           "store_busy": StoreError, "model": ModelError}.get(kind, WarrantError)
    err = cls(message, kind=kind, path=path, line=line, pointer=pointer)
    err.problems = [dict(p) for p in json.loads(e.args[5])] if len(e.args) > 5 else []
    return err


@dataclass(frozen=True)
class Edge:
    """Where a source states (or contradicts) a claim: the exact quote and its char offsets."""

    source_id: str
    quote: str
    start: int
    end: int
    relationship: str
    confidence: float


@dataclass(frozen=True)
class Claim:
    """One claim of the answer with its status and the evidence behind it."""

    id: str
    text: str
    span: tuple[int, int]
    status: str
    confidence: float
    reason: str
    edges: tuple[Edge, ...]
    raw: Mapping[str, Any] = field(repr=False, compare=False)


@dataclass(frozen=True)
class Summary:
    """How many claims got each status, and supported ÷ checked claims (``None`` when no claim
    could be checked)."""

    claims: int
    supported: int
    partially_supported: int
    unsupported: int
    contradicted: int
    unverified: int
    not_applicable: int
    support_score: float | None


class Report:
    """A check's outcome: the gate, every claim with its evidence, the policies' results."""

    __slots__ = ("_native", "_data", "_fail_on")

    def __init__(self, native: _native.Report, fail_on: str = "block") -> None:
        self._native = native
        self._data: dict[str, Any] | None = None
        self._fail_on = fail_on

    def _dict(self) -> dict[str, Any]:
        if self._data is None:
            self._data = json.loads(self._native.json())
        return self._data

    @property
    def gate(self) -> str:
        """``allow``, ``review`` or ``block``."""
        return str(self._native.gate)

    @property
    def ok(self) -> bool:
        """True unless the gate is at or past ``fail_on`` (``block`` by default)."""
        return _GATES.index(self.gate) < _GATES.index(self._fail_on)

    @property
    def output_id(self) -> str:
        return str(self._dict()["output_id"])

    @property
    def gate_reasons(self) -> list[str]:
        return list(self._dict()["gate_reasons"])

    @property
    def summary(self) -> Summary:
        return Summary(**self._dict()["summary"])

    @property
    def claims(self) -> list[Claim]:
        out = []
        for c in self._dict()["claims"]:
            edges = tuple(
                Edge(source_id=e["source_id"], quote=e["selector"]["exact"], start=e["selector"]["start"],
                     end=e["selector"]["end"], relationship=e["relationship"], confidence=e["confidence"])
                for e in c.get("support_edges", []))
            out.append(Claim(id=c["claim_id"], text=c["text"], span=(c["span"]["start"], c["span"]["end"]),
                             status=c["status"], confidence=c["confidence"], reason=c.get("reason", ""),
                             edges=edges, raw=c))
        return out

    @property
    def policies(self) -> dict[str, Any]:
        return dict(self._dict()["policies"])

    def to_dict(self) -> dict[str, Any]:
        """The JSON report as Python values."""
        data: dict[str, Any] = json.loads(self._native.json())
        return data

    def to_json(self) -> str:
        """The report exactly as ``warrant check --format json`` prints it."""
        return str(self._native.pretty())

    def text(self) -> str:
        """The text report (``--format text``)."""
        return str(self._native.text())

    def html(self) -> str:
        """A self-contained HTML page (``--format html``)."""
        return str(self._native.html())

    def evidence_pack(self, created_at: str) -> dict[str, Any]:
        """The Agent Evidence pack; ``created_at`` (ISO-8601) keeps it reproducible."""
        try:
            pack: dict[str, Any] = json.loads(self._native.evidence_pack(created_at))
            return pack
        except _native.NativeError as e:
            raise _raise(e) from None

    def __repr__(self) -> str:
        s = self.summary
        return (f"<warrant.Report {self.gate}: {s.claims} claims, {s.supported} supported, "
                f"{s.contradicted} contradicted, {s.unsupported} unsupported, {s.unverified} unverified>")


@dataclass(frozen=True)
class ItemError:
    """A batch item with no report: its id (``None`` when unreadable), position and why."""

    id: Any
    index: int
    message: str


SourceLike = Union[str, "os.PathLike[str]", tuple[str, str], Mapping[str, Any]]


def _answer_value(answer: Any) -> Any:
    """Text, a message or completion dict, or an SDK object with ``model_dump()``."""
    if isinstance(answer, str):
        return answer
    if isinstance(answer, Mapping):
        return dict(answer)
    dump = getattr(answer, "model_dump", None)
    if callable(dump):
        return dump()
    raise InputError(f"answer: expected text, a message dict or an object with model_dump(), not {type(answer).__name__}",
                     kind="input", pointer="/answer")


def _sources(sources: Sequence[SourceLike] | None) -> tuple[list[dict[str, Any]] | None, list[str]]:
    """Inline documents and file paths. A plain string is a source's text (id ``source-N``)."""
    if sources is None:
        return None, []
    if isinstance(sources, (str, bytes)) or not isinstance(sources, Iterable):
        raise InputError("sources: expected a list of texts, (id, text) pairs, {id, text} dicts or paths",
                         kind="input", pointer="/sources")
    docs: list[dict[str, Any]] = []
    paths: list[str] = []
    for i, s in enumerate(sources):
        if isinstance(s, os.PathLike):
            paths.append(os.fspath(s))
        elif isinstance(s, str):
            docs.append({"id": f"source-{i + 1}", "text": s})
        elif isinstance(s, tuple) and len(s) == 2 and all(isinstance(x, str) for x in s):
            docs.append({"id": s[0], "text": s[1]})
        elif isinstance(s, Mapping) and isinstance(s.get("id"), str) and isinstance(s.get("text"), str):
            docs.append({k: s[k] for k in ("id", "text", "version", "title") if k in s})
        else:
            raise InputError(f"sources[{i}]: expected text, an (id, text) pair, an {{id, text}} dict or a path",
                             kind="input", pointer=f"/sources/{i}")
    if docs and paths:
        raise InputError("sources: give texts or paths, not both", kind="input", pointer="/sources")
    return (docs if docs else None), paths


def _packs(packs: Sequence[Any] | None) -> list[Any] | None:
    if packs is None:
        return None
    out: list[Any] = []
    for i, p in enumerate(packs):
        if isinstance(p, os.PathLike):
            with open(p, encoding="utf-8") as f:
                out.append(json.load(f))
        elif isinstance(p, (str, Mapping)):
            out.append(p if isinstance(p, str) else dict(p))
        else:
            raise InputError(f"packs[{i}]: expected a built-in pack id, a pack dict or a path", kind="input",
                             pointer=f"/packs/{i}")
    return out


def _request(*, sources: Sequence[SourceLike] | None, question: str | None, packs: Sequence[Any] | None,
             tools: Any, strict: bool, min_support: float | None, explain: bool) -> tuple[dict[str, Any], list[str]]:
    docs, paths = _sources(sources)
    req = _with({"strict": strict, "explain": explain}, sources=docs, question=question, packs=_packs(packs),
                tools=tools, min_support=min_support)
    return req, paths


def _with(req: dict[str, Any], **optional: Any) -> dict[str, Any]:
    """``req`` with those of the ``optional`` fields that are given (not ``None``)."""
    req.update({k: v for k, v in optional.items() if v is not None})
    return req


def _fail_on(fail_on: str) -> str:
    if fail_on not in ("review", "block"):
        raise InputError(f"fail_on: expected 'review' or 'block', not {fail_on!r}", kind="input")
    return fail_on


def check(answer: Any, *, sources: Sequence[SourceLike] | None = None, store: str | os.PathLike[str] | None = None,
          question: str | None = None, packs: Sequence[Any] | None = None, tools: Any = None,
          fail_on: str = "block", strict: bool = False, min_support: float | None = None, explain: bool = False,
          output_id: str | None = None, max_source_bytes: int = DEFAULT_MAX_SOURCE_BYTES) -> Report:
    """Checks one answer against ``sources`` (texts, ``(id, text)`` pairs, ``{"id", "text"}``
    dicts, or paths of files and folders), or the store at ``store`` (a folder or a
    ``postgres://`` URL). Without either, the store
    ``$WARRANT_STORE`` or ``./.warrant`` names, as the CLI does; with none, every claim is
    ``unverified``. Raises :class:`InputError`, :class:`StoreError` or :class:`ModelError`."""
    fail_on = _fail_on(fail_on)
    req, paths = _request(sources=sources, question=question, packs=packs, tools=tools, strict=strict,
                          min_support=min_support, explain=explain)
    _with(req, answer=_answer_value(answer), output_id=output_id)
    try:
        native = _native.check(json.dumps(req), paths, max_source_bytes, os.fspath(store) if store else None)
    except _native.NativeError as e:
        raise _raise(e) from None
    return Report(native, fail_on)


def _item(i: int, item: Any) -> str:
    if isinstance(item, Mapping):
        v = dict(item)
        if "answer" in v:
            v["answer"] = _answer_value(v["answer"])
    else:
        v = {"id": str(i), "answer": _answer_value(item)}
    return json.dumps(v)


def check_batch(items: Iterable[Any], *, sources: Sequence[SourceLike] | None = None,
                store: str | os.PathLike[str] | None = None, packs: Sequence[Any] | None = None, tools: Any = None,
                fail_on: str = "block", strict: bool = False, min_support: float | None = None, explain: bool = False,
                workers: int | None = None,
                max_source_bytes: int = DEFAULT_MAX_SOURCE_BYTES) -> list[Report | ItemError]:
    """Checks many answers on every core (or ``workers`` threads), the GIL released: one
    result per item, in order. An item is ``{"id", "answer", "question"?, "sources"?,
    "tools"?}`` (a line of ``warrant check --batch``), or a bare answer (its id its position).
    A bad item is an :class:`ItemError` in its place; the others are checked."""
    fail_on = _fail_on(fail_on)
    req, paths = _request(sources=sources, question=None, packs=packs, tools=tools, strict=strict,
                          min_support=min_support, explain=explain)
    encoded: list[str] = []
    early: dict[int, ItemError] = {}
    for i, item in enumerate(items):
        try:
            encoded.append(_item(i, item))
        except (InputError, TypeError, ValueError) as e:
            early[i] = ItemError(id=item.get("id") if isinstance(item, Mapping) else None, index=i, message=str(e))
            encoded.append("null")
    if workers is not None and workers < 1:
        raise InputError("workers: expected at least 1", kind="input")
    try:
        results = _native.check_batch(json.dumps(req), encoded, paths, max_source_bytes,
                                      os.fspath(store) if store else None, workers)
    except _native.NativeError as e:
        raise _raise(e) from None
    out: list[Report | ItemError] = []
    for i, r in enumerate(results):
        if i in early:
            out.append(early[i])
        elif isinstance(r, _native.ItemError):
            out.append(ItemError(id=json.loads(r.id), index=i, message=r.message))
        else:
            out.append(Report(r, fail_on))
    return out


def extract(answer: Any, *, context: Mapping[str, Any] | None = None, tools: Any = None,
            output_id: str | None = None, max_bytes: int = 16 * 1024 * 1024) -> dict[str, Any]:
    """The answer's PredicateGraph (claims, entities, arithmetic, tool calls, citations, code,
    discourse acts, with spans), as ``warrant extract`` prints it."""
    req = _with({"answer": _answer_value(answer)}, context=dict(context) if context is not None else None, tools=tools,
                output_id=output_id)
    try:
        graph, _diagnostics = _native.extract(json.dumps(req), max_bytes)
    except _native.NativeError as e:
        raise _raise(e) from None
    data: dict[str, Any] = json.loads(graph)
    return data


def _native_json(fn: Any, *args: Any) -> Any:
    try:
        return json.loads(fn(*args))
    except _native.NativeError as e:
        raise _raise(e) from None


def validate(document: Any, *, kind: str | None = None, name: str | None = None, strict: bool = False,
             previous: Any = None, related: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Validates an artefact (a PredicateGraph, CPL policy, pack, rubric, evidence document or
    knowledge package; ``kind`` is detected when omitted): ``{file, kind, valid, errors,
    warnings}``, as ``warrant validate --format json`` reports it. ``related`` maps other
    documents of the same evidence by name, for cross-references."""
    req = _with({"document": document, "strict": strict}, kind=kind, name=name, previous=previous)
    if related:
        req["related"] = [{"name": k, "document": v} for k, v in related.items()]
    report: dict[str, Any] = _native_json(_native.validate, json.dumps(req))
    return report


def policy_eval(input: Any, *, packs: Sequence[Any] | None = None, tools: Any = None, rubrics: Sequence[Any] = (),
                strict: bool = False, context: Mapping[str, Any] | None = None,
                max_bytes: int = 16 * 1024 * 1024) -> dict[str, Any]:
    """Evaluates policy packs (built-in ids, pack dicts or paths) over a PredicateGraph, or over
    a model output extracted into one: the run result ``{output_id, passed, strict, packs,
    diagnostics}``. Without packs, input that calls tools gets ``core.tool-use.v1`` and
    ``warrant.tool-schema.v1``."""
    value = input if isinstance(input, (str, Mapping)) else _answer_value(input)
    req: dict[str, Any] = {"input": dict(value) if isinstance(value, Mapping) else value, "strict": strict,
                           "packs": _packs(packs) or [], "rubrics": list(rubrics)}
    _with(req, tools=tools, context=dict(context) if context is not None else None)
    result: dict[str, Any] = _native_json(_native.policy_eval, json.dumps(req), max_bytes)
    return result


def compile(sources: Sequence[Any], *, title: str | None = None, version: str | None = None,
            coverage: str | None = None, compression_level: str = "standard", promotion: bool = True,
            max_bytes: int = 64 * 1024 * 1024) -> dict[str, Any]:
    """Compiles sources (``(name, text)`` pairs or paths; the name's extension picks the
    reader) into a CKF knowledge package, validated before it is returned."""
    items = []
    for i, src in enumerate(sources):
        if isinstance(src, os.PathLike):
            with open(src, encoding="utf-8") as f:
                items.append({"name": os.fspath(src), "text": f.read()})
        elif isinstance(src, tuple) and len(src) == 2 and all(isinstance(x, str) for x in src):
            items.append({"name": src[0], "text": src[1]})
        else:
            raise InputError(f"sources[{i}]: expected a (name, text) pair or a path", kind="input",
                             pointer=f"/sources/{i}")
    req = _with({"sources": items, "compression_level": compression_level, "no_promotion": not promotion},
                title=title, version=version, coverage=coverage)
    package: dict[str, Any] = _native_json(_native.compile, json.dumps(req), max_bytes)
    return package


def _record(i: int, doc: Any) -> dict[str, Any]:
    if isinstance(doc, str):
        return {"id": f"doc-{i + 1}", "text": doc}
    if isinstance(doc, tuple) and len(doc) == 2 and all(isinstance(x, str) for x in doc):
        return {"id": doc[0], "text": doc[1]}
    if isinstance(doc, Mapping):
        return dict(doc)
    raise InputError(f"documents[{i}]: expected text, an (id, text) pair or a record dict", kind="input",
                     pointer=f"/documents/{i}")


class Store:
    """A knowledge store — the folder ``warrant ingest`` writes, or a PostgreSQL database
    (``postgres://user@host/db``, migrated by ``warrant store migrate``): ingest records,
    search them, answer questions from their facts, and check answers against them."""

    def __init__(self, path: str | os.PathLike[str], *, create: bool = True) -> None:
        self.path = os.fspath(path)
        try:
            self._native = _native.Store(self.path, create)
        except _native.NativeError as e:
            raise _raise(e) from None

    def _call(self, method: str, req: dict[str, Any]) -> Any:
        try:
            return json.loads(getattr(self._native, method)(json.dumps(req)))
        except _native.NativeError as e:
            raise _raise(e) from None

    def ingest(self, documents: Iterable[Any], *, facts: Sequence[Mapping[str, Any]] | None = None,
               version: str | None = None, extract: bool = True) -> dict[str, Any]:
        """Ingests records (texts, ``(id, text)`` pairs, or ``{"id", "text", "version"?,
        "title"?, "metadata"?}`` dicts), or files and folders (paths: text, Markdown, HTML,
        JSON Lines, JSON records, read as ``warrant ingest`` reads them), in one transaction:
        all of them or, if any is bad, none (:class:`InputError`, every problem in
        ``.problems``). Returns the summary."""
        docs = list(documents)
        paths = [d for d in docs if isinstance(d, os.PathLike)]
        if paths:
            if len(paths) != len(docs) or facts is not None:
                raise InputError("documents: give records or paths, not both (and facts only with records)",
                                 kind="input", pointer="/documents")
            try:
                summary_files: dict[str, Any] = json.loads(
                    self._native.ingest_files([os.fspath(p) for p in paths], version, not extract))
            except _native.NativeError as e:
                raise _raise(e) from None
            return summary_files
        req: dict[str, Any] = {"documents": [_record(i, d) for i, d in enumerate(docs)], "no_extract": not extract}
        _with(req, facts=[dict(f) for f in facts] if facts is not None else None, version=version)
        summary: dict[str, Any] = self._call("ingest", req)
        return summary

    def search(self, query: str, *, limit: int = 10) -> list[dict[str, Any]]:
        """The top chunks for ``query`` by BM25: ``{chunkId, docId, score, index, start, end, text}``."""
        hits: list[dict[str, Any]] = self._call("search", {"query": query, "limit": limit})
        return hits

    def facts(self, *, subject: str | None = None, predicate: str | None = None,
              version: str | None = None) -> list[dict[str, Any]]:
        """The stored facts, in source order, as ``warrant facts`` lists them: every field
        narrows the list (``subject`` as stored, else its canonical form)."""
        req = _with({}, subject=subject, predicate=predicate, version=version)
        facts: list[dict[str, Any]] = self._call("facts", req)
        return facts

    def ask(self, question: str, *, version: str | None = None) -> dict[str, Any]:
        """Answers ``question`` from the store's facts: the answer contract (``text``,
        ``verdict`` supported | conflicting | unsupported, ``factChain``, ``conflicts``, …)."""
        answer: dict[str, Any] = self._call("ask", _with({"question": question}, version=version))
        return answer

    def research(self, topic: str, *, hints: Mapping[str, str] | None = None, budget_tokens: int = 0,
                 max_iterations: int = 0, now: str | None = None) -> dict[str, Any]:
        """Researches ``topic`` over the store's knowledge graph: ``{synthesis, evidence,
        decomp_trace, tokens_used, iterations, run_id, sufficient?}``; the run is recorded
        beside the store. ``now`` (RFC 3339) makes the run reproducible."""
        req = _with({"topic": topic, "hints": dict(hints or {}), "budget_tokens": budget_tokens,
                     "max_iterations": max_iterations}, now=now)
        result: dict[str, Any] = self._call("research", req)
        return result

    def check(self, answer: Any, **options: Any) -> Report:
        """:func:`check` against this store."""
        return check(answer, store=self.path, **options)

    @property
    def location(self) -> str:
        """Where the store is, as it may be shown (a URL's password redacted)."""
        return self._native.location

    def __repr__(self) -> str:
        return f"<warrant.Store {self.location!r}>"
