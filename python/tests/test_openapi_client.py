"""The served OpenAPI document generates a working, typed client (openapi-python-client).

`warrant serve` runs on a free loopback port; its `/v1/openapi.json` is turned into a Python
package, which is imported and called: `/v1/check` answers with typed models (a `Report`
whose claims' statuses are an enum), not dicts. Under CI=true a missing generator fails.
"""

from __future__ import annotations

import importlib
import json
import os
import pathlib
import shutil
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
TOKEN = "client-test-token"
PACKAGE = "warrant_http_client"


def warrant_bin() -> pathlib.Path:
    """The CLI built by `cargo build` / `cargo test` (or $WARRANT_BIN)."""
    path = pathlib.Path(os.environ.get("WARRANT_BIN", ROOT / "target/debug/warrant"))
    if not path.exists():
        pytest.fail(f"{path} not found: build the CLI first (cargo build) or set WARRANT_BIN")
    return path


def generator() -> str:
    """The openapi-python-client script: beside this interpreter (the venv), else on PATH."""
    beside = pathlib.Path(sys.executable).parent / "openapi-python-client"
    found = str(beside) if beside.exists() else shutil.which("openapi-python-client")
    if found is None:
        message = "openapi-python-client is not installed (pip install openapi-python-client==0.29.1)"
        if os.environ.get("CI") in ("true", "1"):
            pytest.fail(message)
        pytest.skip(message)
    return found


@pytest.fixture()
def server(tmp_path: pathlib.Path) -> Iterator[str]:
    """`warrant serve` on a free loopback port (port 0; the address is printed on stdout)."""
    store = tmp_path / "store"
    proc = subprocess.Popen(
        [warrant_bin(), "serve", "--addr", "127.0.0.1:0", "--store", str(store), "--token", TOKEN],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert "listening on http://" in line, f"warrant serve did not start: {line!r}"
        yield line.rsplit(" ", 1)[-1].strip()
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def fetch_document(base: str) -> dict[str, Any]:
    req = urllib.request.Request(f"{base}/v1/openapi.json", headers={"Authorization": f"Bearer {TOKEN}"})
    with urllib.request.urlopen(req, timeout=30) as resp:
        doc: dict[str, Any] = json.load(resp)
    return doc


def generate(doc: dict[str, Any], out: pathlib.Path) -> Any:
    """Generates the client package from `doc` under `out` and imports it."""
    tool = generator()
    spec = out / "openapi.json"
    spec.write_text(json.dumps(doc), encoding="utf-8")
    config = out / "config.json"  # JSON is YAML
    # No post hooks: they format with ruff, which the test does not need.
    settings = {"package_name_override": PACKAGE, "project_name_override": "warrant-http-client", "post_hooks": []}
    config.write_text(json.dumps(settings))
    project = out / "project"
    done = subprocess.run(
        [tool, "generate", "--path", str(spec), "--config", str(config), "--output-path", str(project), "--fail-on-warning"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, f"openapi-python-client failed:\n{done.stdout}\n{done.stderr}"
    sys.path.insert(0, str(project))
    for name in [m for m in sys.modules if m == PACKAGE or m.startswith(PACKAGE + ".")]:
        del sys.modules[name]
    return importlib.import_module(PACKAGE)


def test_a_generated_client_checks_an_answer_with_typed_results(server: str, tmp_path: pathlib.Path) -> None:
    doc = fetch_document(server)
    package = generate(doc, tmp_path)
    try:
        models = importlib.import_module(f"{PACKAGE}.models")
        check_api = importlib.import_module(f"{PACKAGE}.api.check.check")
        client = package.AuthenticatedClient(base_url=server, token=TOKEN)
        body = models.CheckRequest.from_dict(
            {
                "answer": "The Team plan costs $15 per user per month. Paris is the capital of France.",
                "sources": [{"id": "plans", "text": "The Team plan costs $12 per user per month. Paris is the capital of France."}],
            }
        )
        report = check_api.sync(client=client, body=body)
        assert isinstance(report, models.Report), report
        assert isinstance(report.gate, models.Gate) and report.gate == models.Gate.BLOCK
        statuses = [c.status for c in report.claims]
        assert all(isinstance(s, models.ClaimStatus) for s in statuses), statuses
        assert statuses == [models.ClaimStatus.CONTRADICTED, models.ClaimStatus.SUPPORTED]
        edge = report.claims[0].support_edges[0]
        assert isinstance(edge.selector.exact, str) and edge.source_id == "plans"
        assert isinstance(report.summary, models.Summary) and report.summary.contradicted == 1
        assert isinstance(report.policies, models.RunResult) and report.policies.passed is False
        assert isinstance(report.graph, models.PredicateGraph) and report.graph.schema_version == "1.0.0"

        # A batch: its entries are typed too, a bad item as an error in its place.
        batch = check_api.sync(
            client=client,
            body=models.CheckRequest.from_dict(
                {"items": [{"id": "a", "answer": "Paris is the capital of France."}, {"id": "b", "answer": " "}], "sources": [{"id": "s", "text": "x"}]}
            ),
        )
        assert isinstance(batch, models.CheckBatchResponse), batch
        first, second = batch.items
        assert isinstance(first, models.Report) and first.output_id == "a"
        assert isinstance(second, models.CheckItemError) and second.index == 1 and second.id == "b"

        # Errors parse as the declared error body.
        bad = check_api.sync_detailed(client=client, body=models.CheckRequest.from_dict({"answer": " "}))
        assert bad.status_code == 422
        assert isinstance(bad.parsed, models.ErrorBody) and bad.parsed.error.code == "unprocessable"
        anonymous = package.Client(base_url=server)
        denied = check_api.sync_detailed(client=anonymous, body=body)
        assert denied.status_code == 401
        assert isinstance(denied.parsed, models.ErrorBody) and denied.parsed.error.code == "unauthorized"
    finally:
        sys.path.remove(str(tmp_path / "project"))
