"""The examples under examples/python run and say what they should."""

from __future__ import annotations

import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples/python"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True)


def test_quickstart_prints_the_demo_verdict() -> None:
    out = run(str(EXAMPLES / "quickstart.py"))
    assert out.returncode == 1, out.stderr
    assert "c3 contradicted" in out.stdout and out.stdout.rstrip().endswith("gate: block")


def test_batch_audit_reports_each_line_and_the_bad_one(tmp_path: pathlib.Path) -> None:
    jsonl = tmp_path / "answers.jsonl"
    jsonl.write_text('{"id": "a", "answer": "The Team plan costs $12 per user per month."}\n{broken\n'
                     '{"id": "c", "answer": "Session tokens expire after 60 minutes of inactivity."}\n')
    out = run(str(EXAMPLES / "batch_audit.py"), str(jsonl), "--sources", "examples/check/sources")
    assert out.returncode == 1, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith("line 2\terror\tinvalid JSON")
    assert lines[1].startswith("a\tblock\t0/1 supported, 1 contradicted")
    assert lines[2].startswith("c\tallow\t1/1 supported")


def test_the_pytest_example_passes() -> None:
    out = run("-m", "pytest", "-q", str(EXAMPLES / "test_rag_answers.py"))
    assert out.returncode == 0, out.stdout + out.stderr
    assert "4 passed" in out.stdout


def test_the_openai_guard_holds_back_a_contradicted_reply() -> None:
    out = run(str(EXAMPLES / "openai_guard.py"))
    assert out.returncode == 0, out.stderr
    allowed, blocked = out.stdout.splitlines()
    assert allowed == " allow: The Team plan costs $15 per user per month, billed annually."
    assert blocked.startswith(" block: I can't confirm that answer") and "the source states $15, not $12" in blocked


def test_the_ray_audit_gives_what_check_batch_gives_in_process(tmp_path: pathlib.Path) -> None:
    import json

    import warrant

    lines = [
        {"id": "a", "answer": "The Team plan costs $12 per user per month."},
        {"id": "b", "answer": "The Team plan costs $15 per user per month."},
        {"id": "c", "answer": "Session tokens expire after 60 minutes of inactivity."},
        {"id": "d"},
    ]
    jsonl = tmp_path / "answers.jsonl"
    jsonl.write_text("".join(json.dumps(x) + "\n" for x in lines) + "{broken\n")
    # Ray's local mode: a cluster started for the run on this machine.
    out = run(str(EXAMPLES / "ray_audit.py"), str(jsonl), "--sources", "examples/check/sources")
    assert out.returncode == 1, out.stderr[-2000:]
    rows = [line.split("\t") for line in out.stdout.splitlines()]
    local = warrant.check_batch(lines, sources=[ROOT / "examples/check/sources"])
    expected = [r.gate if isinstance(r, warrant.Report) else "error" for r in local] + ["error"]
    assert [r[1] for r in rows] == expected
    assert [r[0] for r in rows] == ["a", "b", "c", "d", "None"]
    assert rows[4][3].startswith("invalid JSON")
