//! PostgreSQL over TLS: `sslmode` and `sslrootcert` as libpq reads them. A throwaway cluster
//! with TLS on and required (`scripts/pg_cluster.sh start --ssl`, with the test CA and server
//! certificate of tests/data/tls: IP address 127.0.0.1 only), and the plain cluster of
//! `WARRANT_TEST_POSTGRES` for `require`'s refusal. `WARRANT_TEST_POSTGRES` is also the sign
//! that PostgreSQL is installed: unset, this fails under CI and is skipped elsewhere.

#![allow(clippy::unwrap_used)] // tests fail loudly by design

mod backends;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use warrant_store::{DocumentInput, IngestOptions, PostgresStore, Store, ingest};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/tls").join(name)
}

/// A cluster started with `pg_cluster.sh start --ssl`, stopped on drop.
struct SslCluster {
    dir: String,
    /// `postgresql://postgres@127.0.0.1:PORT/postgres`
    url: String,
}

impl SslCluster {
    fn start() -> Self {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/pg_cluster.sh");
        let out =
            Command::new("bash").arg(&script).args(["start", "--ssl"]).arg(data("")).stderr(Stdio::inherit()).output().unwrap();
        assert!(out.status.success(), "pg_cluster.sh start --ssl failed");
        let stdout = String::from_utf8(out.stdout).unwrap();
        let var = |name: &str| {
            stdout
                .lines()
                .find_map(|l| l.strip_prefix(&format!("export {name}=")))
                .unwrap_or_else(|| panic!("no {name} in {stdout}"))
                .to_string()
        };
        Self { dir: var("PG_CLUSTER_DIR"), url: var("WARRANT_TEST_POSTGRES") }
    }

    fn with(&self, query: &str) -> String {
        format!("{}?{query}", self.url)
    }
}

impl Drop for SslCluster {
    fn drop(&mut self) {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/pg_cluster.sh");
        let _ = Command::new("bash").arg(script).arg("stop").arg(&self.dir).stdout(Stdio::null()).status();
    }
}

/// `url` with `password` in its user info (replacing any).
fn with_password(url: &str, password: &str) -> String {
    let rest = url.find("://").unwrap() + 3;
    let auth_end = url[rest..].find(['/', '?']).map_or(url.len(), |i| rest + i);
    let at = url[rest..auth_end].rfind('@').map(|i| rest + i).expect("WARRANT_TEST_POSTGRES names a user");
    let user_end = url[rest..at].find(':').map_or(at, |i| rest + i);
    format!("{}:{password}{}", &url[..user_end], &url[at..])
}

fn open_err(url: &str) -> String {
    let err = PostgresStore::open(url).unwrap_err().to_string();
    assert!(!err.contains("panicked"), "{err}");
    err
}

#[test]
fn connections_honour_sslmode_and_a_private_ca() {
    let Some(plain) = backends::postgres_url() else { return };
    let tls = SslCluster::start();
    let ca = data("ca.pem").display().to_string();

    // verify-full with the private CA: the whole path works (migrate, write, read). The server
    // accepts TLS connections only, so every connection here was encrypted.
    let full = tls.with(&format!("sslmode=verify-full&sslrootcert={ca}"));
    assert_eq!(PostgresStore::migrate(&full).unwrap().1, warrant_store::current_postgres_version());
    let store = PostgresStore::open(&full).unwrap();
    let doc = DocumentInput {
        id: "auth".into(),
        text: "Session tokens expire after 15 minutes.".into(),
        version: None,
        title: None,
        metadata: None,
        origin: "auth".into(),
    };
    let summary = ingest(&store, vec![doc], Vec::new(), &IngestOptions::default(), &mut |_| {}).unwrap();
    assert_eq!(summary.documents, 1);
    assert_eq!(store.search("session tokens", 5).unwrap().len(), 1);
    assert!(store.location().contains("sslmode=verify-full"), "{}", store.location());

    // Encrypted without checking the certificate (libpq's require and prefer, the default).
    for query in ["sslmode=require", "sslmode=prefer", "connect_timeout=10"] {
        PostgresStore::open(&tls.with(query)).unwrap_or_else(|e| panic!("{query}: {e}"));
    }
    // verify-ca checks the chain, not the name: the certificate is for 127.0.0.1, not localhost.
    let by_name = |query: &str| tls.with(query).replacen("127.0.0.1", "localhost", 1);
    PostgresStore::open(&by_name(&format!("sslmode=verify-ca&sslrootcert={ca}"))).unwrap();
    let err = open_err(&by_name(&format!("sslmode=verify-full&sslrootcert={ca}")));
    assert!(err.contains("cannot connect") && err.contains("certificate"), "{err}");
    // A certificate from another CA, or checked against the compiled-in public roots.
    let other = data("other-ca.pem").display().to_string();
    for query in [
        format!("sslmode=verify-full&sslrootcert={other}"),
        format!("sslmode=require&sslrootcert={other}"),
        "sslmode=verify-full".into(),
    ] {
        let err = open_err(&tls.with(&query));
        assert!(err.contains("certificate") && err.contains("UnknownIssuer"), "{query}: {err}");
    }
    // Plaintext is refused by this server.
    let err = open_err(&tls.with("sslmode=disable"));
    assert!(err.contains("no encryption"), "{err}");
    // A root file that is not there, or not a certificate, is named.
    let err = open_err(&tls.with("sslmode=verify-full&sslrootcert=/nonexistent/ca.pem"));
    assert!(err.contains("sslrootcert /nonexistent/ca.pem"), "{err}");
    let err = open_err(&tls.with(&format!("sslmode=verify-full&sslrootcert={}", data("README.md").display())));
    assert!(err.contains("no PEM certificate"), "{err}");
    let err = open_err(&tls.with("sslmode=verify"));
    assert!(err.contains("sslmode \"verify\" is not one of"), "{err}");

    // require against a server without TLS fails, saying so, and shows no password.
    let with_password = with_password(&plain, "s3cret-pw");
    let sep = if with_password.contains('?') { '&' } else { '?' };
    let err = open_err(&format!("{with_password}{sep}sslmode=require"));
    assert!(err.contains("cannot connect") && err.contains("server does not support TLS"), "{err}");
    assert!(!err.contains("s3cret-pw") && err.contains(":***@"), "{err}");
}
