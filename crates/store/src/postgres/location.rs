//! Where a PostgreSQL store is: its URL, the password (from the URL, `PGPASSWORD` or the
//! password file, as libpq looks for it), and the URL as it may be shown (password redacted).

#[cfg(feature = "postgres")]
use std::path::PathBuf;

#[cfg(feature = "postgres")]
use crate::error::{Result, StoreError};

/// Whether `location` names a PostgreSQL store (`postgres://…` or `postgresql://…`).
pub fn is_postgres_url(location: &str) -> bool {
    let lower = location.get(..13).unwrap_or(location).to_ascii_lowercase();
    lower.starts_with("postgres://") || lower.starts_with("postgresql://")
}

/// `location` with any password replaced by `***` (in the user-info part and in a
/// `password=` query parameter), so it can appear in messages and logs.
pub fn redact(location: &str) -> String {
    let mut out = location.to_string();
    if let Some(scheme_end) = out.find("://") {
        let rest = scheme_end + 3;
        // The authority ends at the first '/', '?' or '#'; its user info at the last '@'.
        let auth_end = out[rest..].find(['/', '?', '#']).map_or(out.len(), |i| rest + i);
        if let Some(at) = out[rest..auth_end].rfind('@').map(|i| rest + i)
            && let Some(colon) = out[rest..at].find(':').map(|i| rest + i)
        {
            out.replace_range(colon + 1..at, "***");
        }
    }
    // `?password=…` and `&password=…`, up to the next '&' or '#'.
    let mut from = 0;
    while let Some(i) = out[from..].to_ascii_lowercase().find("password=").map(|i| from + i) {
        let at_param = i > 0 && matches!(out.as_bytes()[i - 1], b'?' | b'&');
        let value = i + "password=".len();
        if at_param {
            let end = out[value..].find(['&', '#']).map_or(out.len(), |j| value + j);
            out.replace_range(value..end, "***");
            from = value + 3;
        } else {
            from = value;
        }
    }
    out
}

#[cfg(feature = "postgres")]
/// The connection settings of `location`, with the user and password filled in the way
/// libpq would: `PGUSER`/`USER` when the URL has no user; `PGPASSWORD`, else the password file
/// (`PGPASSFILE`, else `~/.pgpass`) when it has no password.
pub fn config(location: &str) -> Result<postgres::Config> {
    let shown = redact(location);
    let mut config: postgres::Config =
        location.parse().map_err(|e| StoreError::Invalid(format!("{shown} is not a valid PostgreSQL URL: {e}")))?;
    if config.get_user().is_none() {
        let user = std::env::var("PGUSER")
            .or_else(|_| std::env::var("USER"))
            .map_err(|_| StoreError::Invalid(format!("{shown} names no user (add one to the URL, or set PGUSER)")))?;
        config.user(&user);
    }
    if config.get_password().is_none() {
        if let Some(p) = std::env::var_os("PGPASSWORD").filter(|p| !p.is_empty()) {
            config.password(p.into_encoded_bytes());
        } else if let Some(p) = pgpass_password(&config) {
            config.password(p);
        }
    }
    if config.get_application_name().is_none() {
        config.application_name("warrant");
    }
    Ok(config)
}

#[cfg(feature = "postgres")]
/// The password file libpq reads: `$PGPASSFILE`, else `~/.pgpass`.
fn pgpass_file() -> Option<PathBuf> {
    std::env::var_os("PGPASSFILE")
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".pgpass")))
}

#[cfg(feature = "postgres")]
/// The first matching line's password in the password file (`host:port:db:user:password`,
/// `*` matching anything, `\:` and `\\` escaped), for the first host and port of `config`.
fn pgpass_password(config: &postgres::Config) -> Option<String> {
    let text = std::fs::read_to_string(pgpass_file()?).ok()?;
    let host = match config.get_hosts().first() {
        Some(postgres::config::Host::Tcp(h)) => h.clone(),
        // libpq matches a socket directory (or no host) as "localhost".
        _ => "localhost".to_string(),
    };
    let port = config.get_ports().first().copied().unwrap_or(5432).to_string();
    let user = config.get_user().unwrap_or_default();
    let db = config.get_dbname().unwrap_or(user);
    pgpass_lookup(&text, [host.as_str(), port.as_str(), db, user])
}

#[cfg(feature = "postgres")]
fn pgpass_lookup(text: &str, want: [&str; 4]) -> Option<String> {
    text.lines().filter(|l| !l.trim_start().starts_with('#') && !l.trim().is_empty()).find_map(|line| {
        let fields = pgpass_fields(line);
        if fields.len() != 5 {
            return None;
        }
        let matches = fields[..4].iter().zip(want).all(|(f, w)| f == "*" || f == w);
        matches.then(|| fields[4].clone())
    })
}

#[cfg(feature = "postgres")]
/// Splits a password-file line on unescaped colons, unescaping `\:` and `\\`.
fn pgpass_fields(line: &str) -> Vec<String> {
    let mut fields = vec![String::new()];
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                if let (Some(n), Some(f)) = (chars.next(), fields.last_mut()) {
                    f.push(n);
                }
            }
            ':' if fields.len() < 5 => fields.push(String::new()),
            c => {
                if let Some(f) = fields.last_mut() {
                    f.push(c);
                }
            }
        }
    }
    fields
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_recognised_and_passwords_redacted() {
        assert!(is_postgres_url("postgres://u@h/db") && is_postgres_url("POSTGRESQL://h"));
        assert!(!is_postgres_url("./postgres") && !is_postgres_url("pg://x") && !is_postgres_url(""));
        assert_eq!(
            redact("postgresql://alice:s3cr:et@db.local:5432/w?sslmode=disable"),
            "postgresql://alice:***@db.local:5432/w?sslmode=disable"
        );
        assert_eq!(redact("postgres://alice@db/w"), "postgres://alice@db/w");
        assert_eq!(redact("postgres://db/w?user=a&password=hunter2&x=1"), "postgres://db/w?user=a&password=***&x=1");
        assert_eq!(redact("postgres://db/w?password=hunter2"), "postgres://db/w?password=***");
        assert_eq!(redact("/var/stores/a"), "/var/stores/a");
    }

    #[cfg(feature = "postgres")]
    #[test]
    fn password_file_lines_match_with_wildcards_and_escapes() {
        let text = "# comment\nother:5432:*:bob:nope\nlocalhost:*:warrant:alice:pa\\:ss\\\\x\n*:*:*:*:fallback\n";
        assert_eq!(pgpass_lookup(text, ["localhost", "5433", "warrant", "alice"]).as_deref(), Some("pa:ss\\x"));
        assert_eq!(pgpass_lookup(text, ["h", "1", "d", "u"]).as_deref(), Some("fallback"));
        assert_eq!(pgpass_lookup("a:b:c:d\n", ["a", "b", "c", "d"]), None, "short lines are ignored");
    }

    #[cfg(feature = "postgres")]
    #[test]
    fn bad_urls_are_refused_without_showing_the_password() {
        let err = config("postgres://u:topsecret@host:notaport/db").unwrap_err().to_string();
        assert!(!err.contains("topsecret") && err.contains("u:***@"), "{err}");
    }
}
