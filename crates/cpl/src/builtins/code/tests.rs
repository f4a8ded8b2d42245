//! Detector tests: true, false, and the syntax-awareness cases the spec requires.

use super::*;

fn analysis(lang: &str, code: &str) -> Analysis {
    Analysis::new(code, lang)
}
fn eval_of(lang: &str, code: &str) -> Option<String> {
    analysis(lang, code).eval_finding().map(str::to_string)
}
fn inj_of(lang: &str, code: &str) -> Option<String> {
    analysis(lang, code).injection_finding().map(str::to_string)
}
fn secret_of(lang: &str, code: &str) -> Option<String> {
    analysis(lang, code).secret_finding(code, &CodeConfig::default()).map(str::to_string)
}
fn import_of(lang: &str, code: &str) -> Option<String> {
    analysis(lang, code).import_finding(&CodeConfig::default()).map(str::to_string)
}

const PYTHON_UNSAFE: &str = "user_input = input(\"Enter code: \")\nresult = eval(user_input)\nprint(f\"Result: {result}\")";

#[test]
fn upstream_python_unsafe_example() {
    assert_eq!(eval_of("python", PYTHON_UNSAFE).as_deref(), Some("eval( at line 2"));
    assert_eq!(inj_of("python", PYTHON_UNSAFE).as_deref(), Some("untrusted input() reaches eval( at line 2"));
    assert_eq!(secret_of("python", PYTHON_UNSAFE), None);
    assert_eq!(import_of("python", PYTHON_UNSAFE), None);
}

#[test]
fn eval_in_comments_and_strings_does_not_fire() {
    assert_eq!(eval_of("python", "# eval(x) is dangerous\nprint('eval(x)')\ns = \"\"\"exec(y)\"\"\""), None);
    assert_eq!(eval_of("javascript", "// eval(x)\n/* new Function('a') */\nconst s = 'eval(1)';"), None);
    assert_eq!(eval_of("python", "pattern = re.compile(r'\\d+')\nobj.eval(3)\ndef eval(x):\n    return x"), None);
    assert_eq!(eval_of("sh", "echo 'eval $1' # eval"), None);
    assert_eq!(eval_of("ruby", "# instance_eval \"x\"\nputs 'eval'"), None);
}

#[test]
fn eval_fires_per_language() {
    assert_eq!(eval_of("py", "x = 1\nexec(code)").as_deref(), Some("exec( at line 2"));
    assert_eq!(eval_of("python", "builtins.compile(src, 'f', 'exec')").as_deref(), Some("builtins.compile( at line 1"));
    assert_eq!(eval_of("js", "const f = new Function('a', 'return a');").as_deref(), Some("new Function( at line 1"));
    assert_eq!(eval_of("ts", "setTimeout(\"alert(1)\", 10);").as_deref(), Some("setTimeout( with a string at line 1"));
    assert_eq!(eval_of("ts", "setTimeout(() => go(), 10);"), None, "a function argument is not dynamic code");
    assert_eq!(eval_of("js", "setInterval(`tick()`, 5)").as_deref(), Some("setInterval( with a string at line 1"));
    assert_eq!(eval_of("ruby", "obj.instance_eval \"@secret\"").as_deref(), Some("instance_eval at line 1"));
    assert_eq!(eval_of("ruby", "obj.instance_eval do\n  x\nend"), None);
    assert_eq!(eval_of("php", "<?php eval($code);").as_deref(), Some("eval( at line 1"));
    assert_eq!(eval_of("php", "assert('1 == 1');").as_deref(), Some("assert( at line 1"));
    assert_eq!(eval_of("php", "assert($x > 0);"), None);
    assert_eq!(eval_of("bash", "if true; then eval \"$cmd\"; fi").as_deref(), Some("eval at line 1"));
    assert_eq!(eval_of("unknown-lang", "x = eval(y)").as_deref(), Some("eval( at line 1"));
}

#[test]
fn argument_lists_are_not_injection() {
    let safe = "import subprocess, sys\nname = sys.argv[1]\nsubprocess.run([\"ls\", \"-l\", name])\nsubprocess.run([\"echo\", name], check=True)";
    assert_eq!(inj_of("python", safe), None);
    let js_safe = "const { execFile, spawn } = require('child_process');\nconst f = process.argv[2];\nexecFile('ls', [f]);\nspawn('cat', [f]);";
    assert_eq!(inj_of("javascript", js_safe), None);
}

#[test]
fn shell_injection_through_formatting_fires() {
    let cases = [
        ("python", "import os\nname = input()\nos.system(\"ls \" + name)", "untrusted input() reaches os.system( at line 3"),
        (
            "python",
            "import os, sys\nf = sys.argv[1]\ncmd = f\"cat {f}\"\nos.popen(cmd)",
            "untrusted sys.argv reaches os.system( at line 4",
        ),
        (
            "python",
            "import subprocess\nq = request.args.get('q')\nsubprocess.run('grep %s log' % q, shell=True)",
            "untrusted request data reaches subprocess with shell=True at line 3",
        ),
        (
            "python",
            "d = input()\ncmd = 'rm {}'.format(d)\nx = cmd\nos.system(x)",
            "untrusted input() reaches os.system( at line 4",
        ),
        (
            "javascript",
            "const { exec } = require('child_process');\nconst dir = req.query.dir;\nexec(`ls ${dir}`);",
            "untrusted request data reaches child_process.exec( at line 3",
        ),
        ("bash", "read -r -p \"File: \" target\neval \"cat $target\"", "untrusted read input reaches eval at line 2"),
        ("sh", "x=$(\"$1\")", "untrusted positional parameter reaches command substitution at line 1"),
        ("sh", "sh -c \"$1\"", "untrusted positional parameter reaches sh -c at line 1"),
    ];
    for (lang, code, want) in cases {
        assert_eq!(inj_of(lang, code).as_deref(), Some(want), "{code}");
    }
}

#[test]
fn untainted_commands_do_not_fire() {
    for (lang, code) in [
        ("python", "import os\nos.system('ls -l')\nname = 'fixed'\nos.system('echo ' + name)"),
        ("python", "import subprocess\nsubprocess.run('ls', shell=True)"),
        ("python", "x = input()\nsubprocess.run(f'ls {x}')"),
        ("python", "# os.system(input())\nprint('os.system(input())')"),
        ("javascript", "const { exec } = require('child_process');\nexec('ls -la');"),
        ("bash", "echo \"$1\"\nls \"$HOME\""),
    ] {
        assert_eq!(inj_of(lang, code), None, "{code}");
    }
}

#[test]
fn secrets_by_name_format_and_entropy() {
    assert_eq!(secret_of("python", "API_KEY = \"abc123\"").as_deref(), Some("hard-coded credential in 'API_KEY' at line 1"));
    assert_eq!(
        secret_of("python", "client(password='hunter2')").as_deref(),
        Some("hard-coded credential in 'password' at line 1")
    );
    assert_eq!(
        secret_of("javascript", "const cfg = {\n  clientSecret: 'zzz'\n};").as_deref(),
        Some("hard-coded credential in 'clientSecret' at line 2")
    );
    assert_eq!(
        secret_of("json", "{\"db_password\": \"p@ss\"}").as_deref(),
        Some("hard-coded credential in 'db_password' at line 1")
    );
    assert_eq!(
        secret_of("python", "openai.api_base = x\nclient = OpenAI(\"sk-abcdefghijklmnop1234\")").as_deref(),
        Some("hard-coded credential in 'string literal' at line 2")
    );
    assert_eq!(
        secret_of("sh", "export AWS_ID=\"AKIAABCDEFGHIJKLMNOP\"").as_deref(),
        Some("hard-coded credential in 'AWS_ID' at line 1")
    );
    assert_eq!(
        secret_of("python", "signing_key = \"q8Zr2LmX9vT4pW7sK1nB5cY3hJ6dF0gA\"").as_deref(),
        Some("hard-coded credential in 'signing_key' at line 1")
    );
    let out = secret_of("python", "api_key = \"Zr2LmX9vT4pW7\"").unwrap();
    assert!(!out.contains("Zr2LmX9vT4pW7"), "never echo the value");
}

#[test]
fn environment_reads_and_placeholders_are_not_secrets() {
    for code in [
        "API_KEY = os.environ[\"API_KEY\"]",
        "token = os.getenv('TOKEN')",
        "password = \"\"",
        "api_key = \"xxxxxxxx\"",
        "api_key = \"<your key here>\"",
        "secret = \"${SECRET}\"",
        "token = \"{{ token }}\"",
        "pwd = \"%(pwd)s\"",
        "api_key = \"your_api_key\"",
        "API_KEY = \"YOUR_API_KEY\"",
        "token = \"REPLACE_ME\"",
        "secret = \"TODO\"",
        "# password = 'hunter2'",
        "print('password = \"x\"')",
        "token = f\"{t}\"",
    ] {
        assert_eq!(secret_of("python", code), None, "{code}");
    }
    assert_eq!(secret_of("javascript", "const key = process.env.API_KEY;"), None);
    assert_eq!(secret_of("sh", "export TOKEN=\"$GITHUB_TOKEN\""), None);
}

#[test]
fn entropy_rule_can_be_switched_off() {
    let code = "signing_key_material = \"q8Zr2LmX9vT4pW7sK1nB5cY3hJ6dF0gA\"";
    let cfg = CodeConfig { entropy_rule: false, ..CodeConfig::default() };
    let a = analysis("python", code);
    // Still caught by the name rule (`key` is not in it, but `signing_key_material`... no)
    assert_eq!(a.secret_finding(code, &cfg), None);
    assert!(secret_of("python", code).is_some());
}

#[test]
fn deny_listed_imports() {
    assert_eq!(import_of("python", "import os\nimport pickle").as_deref(), Some("deny-listed import 'pickle' at line 2"));
    assert_eq!(import_of("python", "import json, cPickle as p").as_deref(), Some("deny-listed import 'cPickle' at line 1"));
    assert_eq!(
        import_of("python", "from hashlib import sha256, md5").as_deref(),
        Some("deny-listed import 'hashlib.md5' at line 1")
    );
    assert_eq!(import_of("python", "from shelve import open").as_deref(), Some("deny-listed import 'shelve' at line 1"));
    assert_eq!(import_of("python", "from hashlib import sha256\nimport json\n# import pickle"), None);
    assert_eq!(import_of("python", "print('hello')"), None);
    assert_eq!(
        import_of("js", "const c = crypto.createCipher('aes', k);").as_deref(),
        Some("deny-listed import 'crypto.createCipher' at line 1")
    );
    assert_eq!(import_of("js", "const md5 = require('md5');").as_deref(), Some("deny-listed import 'md5' at line 1"));
    assert_eq!(import_of("js", "import md5 from 'md5';").as_deref(), Some("deny-listed import 'md5' at line 1"));
    assert_eq!(import_of("js", "const s = \"require('md5')\";"), None);
    assert_eq!(import_of("js", "import { createHash } from 'crypto';"), None);
}
