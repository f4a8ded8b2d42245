"""`import warrant`: checks in process, with real assertions on the reports."""

from __future__ import annotations

import glob
import json
import os
import pathlib
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator

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


NETWORK_MODULES = {"socket", "ssl", "http", "http.client", "urllib.request", "requests"}

# Imports the package, checks against inline sources and uses a store on disk, then prints the
# modules loaded and the process's open sockets (Linux: /proc/self/fd).
OFFLINE_USE = """
import json, os, sys, warrant
text = "The Team plan costs $12 per user per month."
assert warrant.check(text, sources=[("plans", text)]).gate == "allow"
store = warrant.Store(sys.argv[1])
store.ingest([("plans", text)])
assert store.check(text).gate == "allow"
sockets = []
if os.path.isdir("/proc/self/fd"):
    for fd in os.listdir("/proc/self/fd"):
        try:
            if os.readlink(f"/proc/self/fd/{fd}").startswith("socket:"):
                sockets.append(fd)
        except OSError:
            pass  # the listing's own descriptor, closed by now
print(json.dumps({"modules": sorted(sys.modules), "sockets": sockets}))
"""


def test_the_extension_links_no_http_client_and_connects_only_for_a_postgres_store(tmp_path: pathlib.Path) -> None:
    # No HTTP or model client is linked in: the CLI's optional model client (ureq) and the
    # server's HTTP stack (hyper) are not part of the package. The PostgreSQL driver and its
    # TLS are, for postgres:// stores, and are reached only when such a store is opened:
    # importing, checking against sources and using a store on disk load no network module and
    # open no socket. (Import time, <= 100 ms, is measured by bench/python/run.py.)
    # Markers are a crate's paths (its panic locations name its source folder) and item paths,
    # not a bare name: a code-generation unit's hash can spell "ureq" by chance.
    native = pathlib.Path(warrant._native.__file__).read_bytes()
    for marker in (b"/ureq-", b"ureq::", b"/hyper-", b"hyper::", b"/reqwest-", b"reqwest::"):
        assert marker not in native, marker
    assert b"tokio_postgres" in native, "the PostgreSQL driver is linked in, for postgres:// stores"
    out = subprocess.run([sys.executable, "-c", OFFLINE_USE, str(tmp_path / "kb")],
                         capture_output=True, text=True, check=True)
    seen = json.loads(out.stdout)
    loaded = set(seen["modules"])
    assert not loaded & NETWORK_MODULES, loaded & NETWORK_MODULES
    assert seen["sockets"] == [], "no connection is opened without a postgres:// store"


def postgres_admin_url() -> str:
    """The PostgreSQL server the tests use (as the Rust suites): fails under CI when unset."""
    url = os.environ.get("WARRANT_TEST_POSTGRES", "")
    if url:
        return url
    if os.environ.get("CI") in ("true", "1"):
        pytest.fail("WARRANT_TEST_POSTGRES is unset, and CI runs the Python tests on PostgreSQL too: start a "
                    "throwaway cluster with `eval \"$(scripts/pg_cluster.sh start)\"`, as .ci/run does")
    pytest.skip("WARRANT_TEST_POSTGRES unset (start a cluster with `eval \"$(scripts/pg_cluster.sh start)\"`)")


def with_database(url: str, db: str) -> str:
    """``url`` naming database ``db`` instead of its own."""
    rest = url.index("://") + 3
    path = next((i for i in range(rest, len(url)) if url[i] in "/?"), len(url))
    query = url.find("?", path)
    return url[:path] + "/" + db + (url[query:] if query >= 0 else "")


def with_password(url: str, password: str) -> str:
    """``url`` with ``password`` in its user info."""
    rest = url.index("://") + 3
    end = next((i for i in range(rest, len(url)) if url[i] in "/?"), len(url))
    at = url.rindex("@", rest, end)
    user_end = url.find(":", rest, at)
    return url[:user_end if user_end >= 0 else at] + ":" + password + url[at:]


def psql() -> str:
    found = shutil.which("psql") or next(iter(sorted(glob.glob("/usr/lib/postgresql/*/bin/psql"))), None)
    if found is None:
        pytest.fail("psql not found (it comes with PostgreSQL)")
    return found


@pytest.fixture
def postgres_store() -> Iterator[str]:
    """A fresh database on the test server, migrated by the CLI; dropped afterwards."""
    admin = postgres_admin_url()
    name = f"warrant_py_{os.getpid()}_{time.monotonic_ns()}"
    made = subprocess.run([psql(), "-X", "-q", admin, "-c", f'CREATE DATABASE "{name}"'], capture_output=True, text=True)
    assert made.returncode == 0, made.stderr
    url = with_database(admin, name)
    try:
        migrated = subprocess.run([warrant_bin(), "store", "migrate", "--store", url], capture_output=True, text=True)
        assert migrated.returncode == 0, migrated.stderr
        yield url
    finally:
        subprocess.run([psql(), "-X", "-q", admin, "-c", f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'],
                       capture_output=True)


def test_a_postgres_store_ingests_searches_and_checks(postgres_store: str, tmp_path: pathlib.Path) -> None:
    # The server trusts loopback, so the password is ignored there; it must never be shown.
    url = with_password(postgres_store, "py-s3cret")
    store = warrant.Store(url)
    assert "py-s3cret" not in repr(store) and ":***@" in store.location, repr(store)
    records = [("plans", PLANS[1]), ("auth", "Session tokens expire after 15 minutes of inactivity.")]
    summary = store.ingest(records)
    assert (summary["documents"], summary["unchanged_documents"]) == (2, 0)
    assert store.ingest(records)["unchanged_documents"] == 2
    [hit, *_] = store.search("team plan per month")
    assert (hit["docId"], hit["text"]) == ("plans", PLANS[1])

    answer = "The Team plan costs $15 per user per month. Session tokens expire after 15 minutes of inactivity."
    report = warrant.check(answer, store=url)
    assert report.gate == "block"
    assert [c.status for c in report.claims] == ["contradicted", "supported"]
    assert [e.source_id for e in report.claims[0].edges] == ["plans"]
    assert "py-s3cret" not in report.to_json()
    # What an SQLite store of the same records says.
    lite = warrant.Store(tmp_path / "kb")
    lite.ingest(records)
    assert report.to_dict()["claims"] == lite.check(answer).to_dict()["claims"]
    assert store.check(answer).to_dict()["claims"] == report.to_dict()["claims"]
    assert store.facts() == lite.facts()

    # A database that is not there: a StoreError naming it, without the password.
    with pytest.raises(warrant.StoreError) as e:
        warrant.Store(with_database(url, "warrant_py_no_such_database"))
    assert "warrant_py_no_such_database" in str(e.value) and "py-s3cret" not in str(e.value), e.value
