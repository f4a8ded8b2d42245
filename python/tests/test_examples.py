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
