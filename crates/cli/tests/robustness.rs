//! What a hostile or unlucky environment finds (issue 17): closed pipes and full disks on
//! stdout, streams that never end, a gigabyte on stdin, empty and corrupt stores, device
//! targets, broken model settings. Never a panic; a closed pipe ends quietly; anything else is
//! one `error:` line and exit 2.

#![allow(clippy::unwrap_used)] // tests fail loudly by design

use std::io::Write;
use std::path::Path;
use std::process::{Command as StdCommand, Stdio};

use serde_json::Value;
use warrant_testkit::write_file as write;
use warrant_testkit::{clean_env, warrant, warrant_bin, warrant_std};

/// The one-line error contract: exit 2, one line starting `error: `, each needle present.
fn assert_one_error(out: &std::process::Output, needles: &[&str]) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.starts_with("error: "), "{stderr}");
    for n in needles {
        assert!(stderr.contains(n), "expected {n:?} in {stderr}");
    }
    stderr
}

/// A folder with sources, an answer, a batch, a graph and a store made from the sources.
struct Fixture {
    dir: tempfile::TempDir,
}

impl Fixture {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let mut doc = String::from("Session tokens expire after 30 minutes of inactivity.\n\n");
        for i in 0..400 {
            doc.push_str(&format!("Refunds of order {i} are approved within {} days. ", i % 9 + 1));
        }
        write(dir.path(), "docs.md", &doc);
        write(dir.path(), "answer.md", "Refunds are approved within 5 days. Session tokens expire after 30 minutes.");
        let line = serde_json::json!({"id": "a", "answer": "Refunds are approved within 5 days."}).to_string();
        write(dir.path(), "batch.jsonl", format!("{line}\n").repeat(50));
        let store = dir.path().join("kb");
        warrant().args(["ingest", "--store"]).arg(&store).arg(dir.path().join("docs.md")).assert().code(0);
        Self { dir }
    }

    fn path(&self, name: &str) -> String {
        self.dir.path().join(name).display().to_string()
    }

    /// Every subcommand that prints, with arguments that print something.
    fn printing_commands(&self) -> Vec<(&'static str, Vec<String>)> {
        let s = |v: &[&str]| v.iter().map(ToString::to_string).collect::<Vec<_>>();
        let (answer, docs, batch, kb) = (self.path("answer.md"), self.path("docs.md"), self.path("batch.jsonl"), self.path("kb"));
        vec![
            ("extract", s(&["extract", &answer])),
            ("extract --batch", s(&["extract", "--batch", &batch])),
            ("search", s(&["search", "--store", &kb, "refunds", "approved"])),
            ("validate", s(&["validate", &self.path("graph.json")])),
            ("ask", s(&["ask", "--store", &kb, "--format", "text", "How fast are refunds approved?"])),
            ("research", s(&["research", "--store", &kb, "--now", "2026-01-01T00:00:00Z", "refunds"])),
            ("policy eval", s(&["policy", "eval", "--pack", "warrant.grounding.v1", &answer])),
            ("policy packs", s(&["policy", "packs"])),
            ("llm prompts", s(&["llm", "prompts"])),
            ("check", s(&["check", "--sources", &docs, "--format", "json", &answer])),
            ("check --batch", s(&["check", "--sources", &docs, "--batch", &batch])),
            ("facts", s(&["facts", "--store", &kb])),
            ("compile", s(&["compile", &docs])),
            ("ingest", s(&["ingest", "--store", &self.path("kb2"), &docs])),
        ]
    }
}

fn graph_for(fx: &Fixture) {
    let out = warrant().args(["extract", &fx.path("answer.md")]).assert().code(0).get_output().stdout.clone();
    std::fs::write(fx.dir.path().join("graph.json"), out).unwrap();
}

#[test]
fn a_closed_pipe_ends_every_printing_command_quietly() {
    let fx = Fixture::new();
    graph_for(&fx);
    for (name, args) in fx.printing_commands() {
        let mut child =
            warrant_std().args(&args).stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
        // The reader goes away before the command has printed anything (`| head -c0`).
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("panicked") && !stderr.contains("error"), "{name}: {stderr}");
        // `check` keeps its gate as the exit code when its report did get out; a closed
        // pipe itself is exit 0, never 101 or 2.
        assert!(matches!(out.status.code(), Some(0 | 1)), "{name}: exit {:?}: {stderr}", out.status.code());
    }
}

#[cfg(target_os = "linux")]
#[test]
fn a_full_disk_is_one_error_line_and_exit_2_for_every_printing_command() {
    let fx = Fixture::new();
    graph_for(&fx);
    for (name, args) in fx.printing_commands() {
        let full = std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
        let out = warrant_std().args(&args).stdin(Stdio::null()).stdout(full).stderr(Stdio::piped()).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("panicked"), "{name}: {stderr}");
        assert_eq!(out.status.code(), Some(2), "{name}: {stderr}");
        let errors: Vec<&str> = stderr.lines().filter(|l| l.starts_with("error: ")).collect();
        assert_eq!(errors, ["error: cannot write output: No space left on device (os error 28)"], "{name}: {stderr}");
    }
}

/// Writes up to 1 GB of `byte` into `child`'s stdin until it stops reading; the bytes taken.
fn feed_a_gigabyte(child: &mut std::process::Child, byte: u8) -> std::thread::JoinHandle<u64> {
    let mut stdin = child.stdin.take().unwrap();
    std::thread::spawn(move || {
        let block = vec![byte; 1 << 20];
        let mut sent = 0u64;
        while sent < 1 << 30 {
            if stdin.write_all(&block).is_err() {
                break;
            }
            sent += block.len() as u64;
        }
        sent
    })
}

/// `warrant ARGS` under a 400 MB address-space limit (the unbounded reader reached 1.5 GB on
/// this stream), fed a gigabyte on stdin.
#[cfg(target_os = "linux")]
fn under_memory_limit(args: &[&str], byte: u8) -> (std::process::Output, u64) {
    let mut child = clean_env(&mut StdCommand::new("bash"))
        .arg("-c")
        .arg("ulimit -v 400000 && exec \"$@\"")
        .arg("warrant")
        .arg(warrant_bin())
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let feeder = feed_a_gigabyte(&mut child, byte);
    let out = child.wait_with_output().unwrap();
    (out, feeder.join().unwrap())
}

#[cfg(target_os = "linux")]
#[test]
fn a_gigabyte_on_stdin_is_refused_at_the_limit_in_bounded_memory() {
    let (out, sent) = under_memory_limit(&["check", "-"], b'a');
    assert_one_error(
        &out,
        &["<stdin>: input is more than 16777216 bytes; the limit is 16777216 bytes (raise it with --max-bytes)"],
    );
    assert!(sent < 1 << 30, "the whole gigabyte was read");
    let (out, sent) = under_memory_limit(&["extract", "--max-bytes", "1000", "-"], b'a');
    assert_one_error(&out, &["<stdin>: input is more than 1000 bytes; the limit is 1000 bytes (raise it with --max-bytes)"]);
    assert!(sent < 64 << 20, "{sent} bytes were taken for a 1000-byte limit");
    // A batch on stdin whose one line never ends: that line is refused, in bounded memory.
    let (out, _) = under_memory_limit(&["check", "--batch", "-", "--max-bytes", "1000", "--max-source-bytes", "1000"], b'x');
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(v["line"], 1);
    assert!(v["error"].as_str().unwrap().contains("the line is more than 2000 bytes; the limit is 2000 bytes"), "{v}");
}

#[test]
fn files_that_never_end_are_refused() {
    if !Path::new("/dev/zero").exists() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let answer = write(dir.path(), "a.md", "Refunds are approved within 5 days.");
    for args in [
        vec!["extract", "/dev/zero"],
        vec!["check", "/dev/zero"],
        vec!["compile", "/dev/zero"],
        vec!["validate", "/dev/zero"],
        vec!["extract", "--batch", "/dev/zero"],
        vec!["check", "--batch", "/dev/zero"],
    ] {
        let out = warrant().args(&args).output().unwrap();
        assert_one_error(&out, &["/dev/zero: a character device, not a regular file"]);
    }
    let out = warrant().args(["check", "--sources", "/dev/zero"]).arg(&answer).output().unwrap();
    assert_one_error(&out, &["/dev/zero", "a character device, not a regular file"]);
    let out = warrant().arg("ingest").arg("--store").arg(dir.path().join("kb")).arg("/dev/zero").output().unwrap();
    assert_one_error(&out, &["/dev/zero", "a character device, not a regular file"]);
    assert!(!dir.path().join("kb").exists(), "nothing is written when an input is refused");
}

#[test]
fn an_overlong_batch_line_is_its_own_error_and_the_next_line_is_checked() {
    let dir = tempfile::tempdir().unwrap();
    let long = serde_json::json!({"id": "long", "answer": "x".repeat(5000)}).to_string();
    let short = serde_json::json!({"id": "short", "answer": "Refunds are approved within 5 days."}).to_string();
    let batch = write(dir.path(), "b.jsonl", format!("{long}\n\n{short}\n"));
    let out =
        warrant().args(["check", "--max-bytes", "1000", "--max-source-bytes", "1000", "--batch"]).arg(&batch).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let lines: Vec<Value> = String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["line"], 1);
    assert_eq!(
        lines[0]["error"],
        "the line is more than 2000 bytes; the limit is 2000 bytes (raise it with --max-bytes and --max-source-bytes)"
    );
    assert_eq!(lines[1]["output_id"], "short");
    // extract --batch refuses the run, naming the line.
    let out = warrant().args(["extract", "--max-bytes", "1000", "--batch"]).arg(&batch).output().unwrap();
    assert_one_error(&out, &["b.jsonl:1: the line is more than 1000 bytes; the limit is 1000 bytes (raise it with --max-bytes)"]);
    assert!(out.stdout.is_empty());
}

#[test]
fn a_regular_file_over_the_limit_is_refused_with_its_size_before_it_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let big = write(dir.path(), "big.md", "word ".repeat(1000));
    let out = warrant().args(["extract", "--max-bytes", "100"]).arg(&big).output().unwrap();
    assert_one_error(&out, &["big.md: input is 5000 bytes; the limit is 100 bytes (raise it with --max-bytes)"]);
}

#[test]
fn reading_commands_never_write_into_an_empty_store_file() {
    let dir = tempfile::tempdir().unwrap();
    let kb = dir.path().join("kb");
    std::fs::create_dir_all(&kb).unwrap();
    let file = kb.join("store.sqlite");
    std::fs::write(&file, b"").unwrap();
    for args in [vec!["facts"], vec!["search", "refunds"], vec!["ask", "How fast are refunds?"]] {
        let out = warrant().args(&args).arg("--store").arg(&kb).output().unwrap();
        assert_one_error(&out, &["no store at", "create one with `warrant ingest`"]);
        assert_eq!(std::fs::metadata(&file).unwrap().len(), 0, "{args:?} wrote into the empty store file");
    }
    let answer = write(dir.path(), "ans.md", "Refunds are approved within 5 days.");
    let out = warrant().arg("check").arg("--store").arg(&kb).arg(&answer).output().unwrap();
    assert_one_error(&out, &["no store at"]);
    assert_eq!(std::fs::metadata(&file).unwrap().len(), 0);
}

#[test]
fn an_error_on_a_corrupt_store_names_the_store_not_the_answer() {
    let dir = tempfile::tempdir().unwrap();
    let kb = dir.path().join("kb");
    let doc = write(dir.path(), "doc.md", "Refunds are approved within 5 days. ".repeat(2000));
    warrant().arg("ingest").arg("--store").arg(&kb).arg(&doc).assert().code(0);
    // Damage every page after the header and the schema: the store opens, reading fails.
    let file = kb.join("store.sqlite");
    let mut bytes = std::fs::read(&file).unwrap();
    let page = 16384;
    for b in bytes.iter_mut().skip(4 * page) {
        *b = 0x5a;
    }
    std::fs::write(&file, bytes).unwrap();
    let answer = write(dir.path(), "ans.md", "Refunds are approved within 5 days.");
    let out = warrant().arg("check").arg("--store").arg(&kb).arg(&answer).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(!stderr.contains("ans.md"), "{stderr}");
    assert!(stderr.contains(&format!("--store {}", kb.display())), "{stderr}");
}

#[cfg(unix)]
#[test]
fn compile_never_replaces_a_file_that_is_not_regular() {
    let dir = tempfile::tempdir().unwrap();
    let src = write(dir.path(), "runbook.md", "# Runbook\n\nRestart the service when it fails. Always page the on-call first.\n");
    // A socket stands for a device node: not a regular file.
    let sock = dir.path().join("out.sock");
    let _listener = std::os::unix::net::UnixListener::bind(&sock).unwrap();
    for flag in ["-o", "--report"] {
        let mut c = warrant();
        c.arg("compile").arg(&src);
        if flag == "--report" {
            c.arg("-o").arg(dir.path().join("pkg.json"));
        }
        let out = c.arg(flag).arg(&sock).output().unwrap();
        assert_one_error(&out, &["out.sock: not a regular file; refusing to replace it"]);
        use std::os::unix::fs::FileTypeExt;
        assert!(std::fs::metadata(&sock).unwrap().file_type().is_socket(), "{flag} replaced the socket");
    }
    if Path::new("/dev/full").exists() {
        let out = warrant().arg("compile").arg(&src).args(["-o", "/dev/full"]).output().unwrap();
        assert_one_error(&out, &["/dev/full: not a regular file"]);
    }
    // A regular target is still written (atomically).
    let pkg = dir.path().join("pkg.json");
    warrant().arg("compile").arg(&src).arg("-o").arg(&pkg).assert().code(0);
    assert!(std::fs::read_to_string(&pkg).unwrap().contains("\"metadata\""));
}

#[test]
fn a_given_llm_config_must_load_even_without_a_model_stage() {
    let dir = tempfile::tempdir().unwrap();
    let answer = write(dir.path(), "ans.md", "Refunds are approved within 5 days.");
    let garbage = write(dir.path(), "warrant.toml", "[llm\nendpoint = ");
    let missing = dir.path().join("missing.toml");
    let out = warrant().arg("check").arg("--llm-config").arg(&missing).arg(&answer).output().unwrap();
    assert_one_error(&out, &["missing.toml: cannot read: no such file"]);
    let out = warrant().arg("check").arg("--llm-config").arg(&garbage).arg(&answer).output().unwrap();
    assert_one_error(&out, &["warrant.toml:1"]);
    let out = warrant().arg("extract").arg("--llm-config").arg(&missing).arg(&answer).output().unwrap();
    assert_one_error(&out, &["missing.toml: cannot read: no such file"]);
    // Without --llm-config nothing changes: no model, no error.
    warrant().arg("check").arg(&answer).assert().code(0);
}

#[test]
fn a_source_without_sentence_ends_is_quoted_in_bounded_windows() {
    // 1.5 MB of words, no period, no line break: it was quoted whole in every edge.
    let dir = tempfile::tempdir().unwrap();
    let words = ["service", "requests", "gateway", "answers", "within", "the", "replica", "timeout", "120", "ms"];
    let text: String = (0..250_000usize).map(|i| words[(i * 7 + i / 13) % words.len()]).collect::<Vec<_>>().join(" ");
    assert!(text.len() > 1_500_000 && !text.contains('.'));
    let src = write(dir.path(), "big.txt", &text);
    let answer = write(dir.path(), "answer.md", "The gateway answers requests within 120 ms.");
    let out = warrant().args(["check", "--format", "json", "--sources"]).arg(&src).arg(&answer).output().unwrap();
    assert!(out.status.code().is_some_and(|c| c <= 1), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.stdout.len() < 16 * 1024, "the report is {} bytes", out.stdout.len());
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut edges = 0;
    for claim in report["claims"].as_array().unwrap() {
        for e in claim["support_edges"].as_array().unwrap() {
            let s = &e["selector"];
            let (start, end) = (s["start"].as_u64().unwrap() as usize, s["end"].as_u64().unwrap() as usize);
            let exact = s["exact"].as_str().unwrap();
            assert!(exact.len() <= 400, "a quote of {} bytes", exact.len());
            assert_eq!(&text[start..end], exact);
            edges += 1;
        }
    }
    assert!(edges > 0, "{report}");
}
