"""`import warrant`: checks in process, with real assertions on the reports."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

import pytest

import warrant
from warrant.testing import assert_grounded

ROOT = pathlib.Path(__file__).resolve().parents[2]
DEMO_ANSWER = ROOT / "examples/check/answer.md"
DEMO_SOURCES = ROOT / "examples/check/sources"
PLANS = ("plans", "The Team plan costs $12 per user per month.")


def warrant_bin() -> pathlib.Path:
    """The CLI built by `cargo build` / `cargo test` (or $WARRANT_BIN)."""
    path = pathlib.Path(os.environ.get("WARRANT_BIN", ROOT / "target/debug/warrant"))
    if not path.exists():
        pytest.fail(f"{path} not found: build the CLI first (cargo build) or set WARRANT_BIN")
    return path


def test_one_answer_gets_statuses_with_exact_quotes() -> None:
    r = warrant.check("The Team plan costs $15 per user per month.", sources=[PLANS])
    assert r.gate == "block" and not r.ok
    [claim] = r.claims
    assert claim.status == "contradicted"
    assert claim.span == (0, 42)
    [edge] = claim.edges
    assert (edge.source_id, edge.quote, edge.start, edge.end) == ("plans", PLANS[1], 0, 43)
    assert r.summary.contradicted == 1 and r.summary.support_score == 0.0
    assert "1 contradicted" in repr(r)


def test_the_json_is_byte_identical_to_the_cli() -> None:
    paths = sorted(DEMO_SOURCES.iterdir())
    rel = [str(p.relative_to(ROOT)) for p in paths]
    sources = [(r, p.read_text(encoding="utf-8")) for r, p in zip(rel, paths)]
    report = warrant.check(DEMO_ANSWER.read_text(encoding="utf-8"), sources=sources)
    cli = subprocess.run([warrant_bin(), "check", "--format", "json", "--sources", *rel, "examples/check/answer.md"],
                         cwd=ROOT, capture_output=True, env={**os.environ, "WARRANT_STORE": ""})
    assert cli.returncode == 1, cli.stderr
    assert report.to_json().encode() == cli.stdout
    assert report.to_dict() == json.loads(cli.stdout)
    # Paths are read as the CLI reads them: the same report.
    os.chdir(ROOT)
    from_files = warrant.check(DEMO_ANSWER.read_text(encoding="utf-8"), sources=[pathlib.Path(r) for r in rel])
    assert from_files.to_json() == report.to_json()


def test_sources_and_answers_in_every_accepted_shape() -> None:
    text = "The Team plan costs $12 per user per month."
    for sources in ([text], [PLANS], [{"id": "plans", "text": text}]):
        assert warrant.check(text, sources=sources).summary.supported == 1, sources
    assert warrant.check(text, sources=[text]).claims[0].edges[0].source_id == "source-1"
    message = {"role": "assistant", "content": text}
    assert warrant.check(message, sources=[PLANS]).gate == "allow"

    class SdkMessage:  # an SDK response object: anything with model_dump()
        def model_dump(self) -> dict[str, str]:
            return message

    assert warrant.check(SdkMessage(), sources=[PLANS]).gate == "allow"


def test_bad_input_raises_typed_errors_with_where() -> None:
    with pytest.raises(warrant.InputError) as e:
        warrant.check("   ", sources=[PLANS])
    assert e.value.pointer == "/answer" and "empty" in e.value.message
    with pytest.raises(warrant.InputError) as e:
        warrant.check("x", sources=[PLANS], packs=["no.such.pack"])
    assert e.value.pointer == "/packs/0" and "unknown pack 'no.such.pack'" in str(e.value)
    with pytest.raises(warrant.InputError) as e:
        warrant.check("x", sources=[42])  # type: ignore[list-item]
    assert e.value.pointer == "/sources/0"
    with pytest.raises(warrant.InputError):
        warrant.check(object())
    with pytest.raises(warrant.InputError):
        warrant.check("x", sources=[PLANS], fail_on="never")
    with pytest.raises(warrant.StoreError) as store_error:
        warrant.check("x", store="/nonexistent/store")
    assert "no store at" in store_error.value.message and store_error.value.kind == "store"
    with pytest.raises(warrant.InputError):
        warrant.check("x", sources=[pathlib.Path("/nonexistent/file.md")])
    assert issubclass(warrant.InputError, ValueError) and issubclass(warrant.StoreError, warrant.WarrantError)


def test_a_batch_keeps_order_and_a_poisoned_item_is_only_its_own_error() -> None:
    class Unserialisable:
        pass

    items = [
        {"id": "a", "answer": "The Team plan costs $12 per user per month."},
        {"id": "b"},
        {"id": "c", "answer": Unserialisable()},
        "The Team plan costs $15 per user per month.",
        {"id": "e", "answer": "Paris is in France.", "sources": [{"id": "atlas", "text": "Paris is in France."}]},
    ]
    out = warrant.check_batch(items, sources=[PLANS], workers=2)
    assert [type(r).__name__ for r in out] == ["Report", "ItemError", "ItemError", "Report", "Report"]
    a, b, c, d, e = out
    assert isinstance(a, warrant.Report) and a.output_id == "a" and a.gate == "allow"
    assert isinstance(b, warrant.ItemError) and b.id == "b" and b.index == 1 and b.message.startswith("/answer")
    assert isinstance(c, warrant.ItemError) and c.id == "c" and c.index == 2
    assert isinstance(d, warrant.Report) and d.output_id == "3" and d.gate == "block"
    assert isinstance(e, warrant.Report) and e.claims[0].edges[0].source_id == "atlas"
    # One thread or many: the same reports.
    one = warrant.check_batch(items, sources=[PLANS], workers=1)
    assert [r.to_json() for r in one if isinstance(r, warrant.Report)] == \
        [r.to_json() for r in out if isinstance(r, warrant.Report)]
    assert warrant.check_batch([], sources=[PLANS]) == []


def test_reports_render_as_text_html_and_evidence_packs() -> None:
    r = warrant.check(DEMO_ANSWER.read_text(encoding="utf-8"), sources=[DEMO_SOURCES], explain=True)
    assert r.text().rstrip().endswith("BLOCK") or "BLOCK" in r.text()
    html = r.html()
    assert html.startswith("<!DOCTYPE html>") and "contradicted" in html
    pack1 = r.evidence_pack("2026-01-01T00:00:00Z")
    pack2 = warrant.check(DEMO_ANSWER.read_text(encoding="utf-8"), sources=[DEMO_SOURCES]).evidence_pack(
        "2026-01-01T00:00:00Z")
    assert pack1["created_at"] == "2026-01-01T00:00:00Z"
    assert json.dumps(pack1, sort_keys=True) == json.dumps(pack2, sort_keys=True)
    assert "features" in r.to_dict()["claims"][0]
    with pytest.raises(warrant.InputError):
        r.evidence_pack("not a time")


def test_a_store_made_by_the_cli_is_checked_against() -> None:
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        store = pathlib.Path(tmp) / "store"
        ingest = subprocess.run([warrant_bin(), "ingest", "--store", str(store), str(DEMO_SOURCES)], capture_output=True)
        assert ingest.returncode == 0, ingest.stderr
        r = warrant.check(DEMO_ANSWER.read_text(encoding="utf-8"), store=store)
        assert r.gate == "block"
        assert r.summary.unverified == 0 and r.summary.supported >= 2


def test_assert_grounded_passes_grounded_answers_and_explains_failures() -> None:
    report = assert_grounded("The Team plan costs $12 per user per month.", [PLANS])
    assert report.gate == "allow"
    with pytest.raises(AssertionError) as e:
        assert_grounded("The Team plan costs $15 per user per month.", [PLANS])
    assert "gate block" in str(e.value) and "contradicted" in str(e.value).lower()
    with pytest.raises(AssertionError):
        assert_grounded("The Team plan includes priority support.", [PLANS], allow="allow")
    with pytest.raises(ValueError):
        assert_grounded("x", [PLANS], allow="maybe")


def test_repeated_checks_against_the_same_sources_give_the_same_bytes() -> None:
    # The first call reads the sources; the next ones reuse what was read (a cache keyed by
    # the request without its answer). Other settings are another entry, not a stale hit.
    first = warrant.check("The Team plan costs $15 per user per month.", sources=[PLANS]).to_json()
    for _ in range(3):
        warrant.check("The Team plan costs $12 per user per month.", sources=[PLANS])
        assert warrant.check("The Team plan costs $15 per user per month.", sources=[PLANS]).to_json() == first
    strict = warrant.check("The Team plan costs $15 per user per month.", sources=[PLANS], strict=True)
    assert '"strict": true' in strict.to_json() and '"strict": false' in first
    other = warrant.check("The Team plan costs $15 per user per month.", sources=[("plans", "The Team plan costs $15.")])
    assert other.claims[0].status != "contradicted"


def test_extract_gives_the_graph_the_cli_prints() -> None:
    graph = warrant.extract(DEMO_ANSWER.read_text(encoding="utf-8"))
    cli = subprocess.run([warrant_bin(), "extract", "examples/check/answer.md"], cwd=ROOT, capture_output=True)
    assert cli.returncode == 0, cli.stderr
    assert graph == json.loads(cli.stdout)
    assert [c["text"] for c in graph["claims"]][2] == "The Team plan costs $12 per user per month"
    with pytest.raises(warrant.InputError):
        warrant.extract("x", tools={"not": "tools"})


def test_a_store_ingests_searches_answers_and_checks(tmp_path: pathlib.Path) -> None:
    store = warrant.Store(tmp_path / "kb")
    summary = store.ingest([
        ("auth", "Session tokens expire after 15 minutes of inactivity."),
        {"id": "plans", "text": "The Team plan costs $12 per user per month.", "version": "2.0"},
    ])
    assert summary["documents"] == 2 and summary["chunks"] >= 2
    hits = store.search("session tokens")
    assert hits[0]["docId"] == "auth" and "15 minutes" in hits[0]["text"]
    facts = store.facts(subject="Session tokens")
    assert facts and all(f["subject"] == "session_token" for f in facts)
    assert store.facts(predicate="no_such_predicate") == []
    cli = subprocess.run([warrant_bin(), "facts", "--store", str(tmp_path / "kb"), "--subject", "Session tokens"],
                         capture_output=True, text=True)
    assert [json.loads(line) for line in cli.stdout.splitlines()] == facts
    answer = store.ask("When do session tokens expire?")
    assert answer["verdict"] == "supported" and "15 minutes" in answer["text"]
    report = store.check("Session tokens expire after 15 minutes of inactivity.")
    assert report.gate == "allow" and report.summary.supported == 1
    with pytest.raises(warrant.InputError) as e:
        store.ingest([{"id": "bad"}, {"text": "no id"}])
    assert len(e.value.problems) == 2 and e.value.problems[0]["pointer"].startswith("/documents/0")
    assert store.search("no id") == []  # nothing was written
    with pytest.raises(warrant.StoreError):
        warrant.Store(tmp_path / "missing", create=False)


def test_a_store_ingests_files_as_the_cli_does(tmp_path: pathlib.Path) -> None:
    store = warrant.Store(tmp_path / "kb")
    summary = store.ingest([DEMO_SOURCES])
    cli = subprocess.run([warrant_bin(), "ingest", "--format", "json", "--store", str(tmp_path / "cli"),
                          str(DEMO_SOURCES)], capture_output=True)
    assert cli.returncode == 0, cli.stderr
    assert summary == json.loads(cli.stdout)
    assert summary["documents"] == 3
    assert store.check(DEMO_ANSWER.read_text(encoding="utf-8")).gate == "block"
    with pytest.raises(warrant.InputError) as e:
        store.ingest([tmp_path / "missing.md", tmp_path / "also-missing.md"])
    assert len(e.value.problems) == 2
    with pytest.raises(warrant.InputError):
        store.ingest([DEMO_SOURCES, "some text"])


def test_validate_policy_eval_and_compile_match_the_cli(tmp_path: pathlib.Path) -> None:
    graph = warrant.extract("Paris is the capital of France.")
    report = warrant.validate(graph)
    assert report["valid"] is True and report["kind"] == "predicategraph"
    broken = dict(graph, claims="not a list")
    bad = warrant.validate(broken)
    assert bad["valid"] is False and bad["errors"]
    message = {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function", "function": {
        "name": "get_weather", "arguments": "{\"city\": \"Paris\", \"unit\": \"kelvin\"}"}}]}
    tools = [{"name": "get_weather", "parameters": {"type": "object", "required": ["city"], "properties": {
        "city": {"type": "string"}, "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}}}}]
    result = warrant.policy_eval(message, tools=tools)
    assert [p["pack_id"] for p in result["packs"]] == ["core.tool-use.v1", "warrant.tool-schema.v1"]
    assert result["passed"] is False
    with pytest.raises(warrant.InputError) as e:
        warrant.policy_eval("Hello.")
    assert e.value.pointer == "/packs"
    answer = DEMO_ANSWER.read_text(encoding="utf-8")
    cli = subprocess.run([warrant_bin(), "policy", "eval", "--pack", "warrant.arithmetic.v1", "--format", "json",
                          "examples/check/answer.md"], cwd=ROOT, capture_output=True)
    assert warrant.policy_eval(answer, packs=["warrant.arithmetic.v1"]) == json.loads(cli.stdout)
    src = tmp_path / "refunds.md"
    src.write_text("# Refunds\n\nRefunds must be approved within 5 days. Never refund cash.\n")
    package = warrant.compile([src])
    cli = subprocess.run([warrant_bin(), "compile", "--format", "json", str(src)], capture_output=True)
    assert cli.returncode == 0, cli.stderr
    assert package == json.loads(cli.stdout)
    with pytest.raises(warrant.InputError):
        warrant.compile([])


def test_a_store_researches_a_topic(tmp_path: pathlib.Path) -> None:
    store = warrant.Store(tmp_path / "kb")
    store.ingest([("auth", "Session tokens expire after 15 minutes of inactivity.")])
    result = store.research("session tokens expire", now="2026-06-02T18:30:45Z")
    assert str(result["run_id"]).startswith("rg_")
    assert "Session tokens expire after 15 minutes" in result["synthesis"]
    with pytest.raises(warrant.InputError):
        store.research("   ")


def test_the_extension_has_no_network_code_and_imports_nothing_that_has() -> None:
    # No HTTP client, TLS stack or socket code is linked in (the CLI's optional model client is
    # not part of the package); importing loads only the extension and the standard library.
    native = pathlib.Path(warrant._native.__file__).read_bytes()
    for marker in (b"ureq", b"rustls", b"hyper::", b"tokio::"):
        assert marker not in native, marker
    out = subprocess.run([sys.executable, "-c", "import sys, warrant; print(sorted(sys.modules))"],
                         capture_output=True, text=True, check=True)
    loaded = set(eval(out.stdout))  # a printed list of module names
    assert not loaded & {"socket", "ssl", "http", "urllib.request", "requests"}, loaded & {"socket", "ssl", "http"}
