//! Ids: the `id` pattern, and stable ids derived from content (never random).

use sha2::{Digest, Sha256};

/// Longest id the pattern allows.
pub const MAX_ID_LEN: usize = 256;

/// True when `s` matches `^[A-Za-z0-9][A-Za-z0-9_.:-]{0,255}$`.
pub fn is_valid_id(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b.len() <= MAX_ID_LEN
        && b[0].is_ascii_alphanumeric()
        && b[1..].iter().all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b':' | b'-'))
}

/// Lowercase hex SHA-256 of the parts, each length-prefixed so that `["ab", "c"]` and
/// `["a", "bc"]` differ.
pub fn digest(parts: &[&str]) -> String {
    let mut h = Sha256::new();
    for p in parts {
        h.update((p.len() as u64).to_le_bytes());
        h.update(p.as_bytes());
    }
    hex(&h.finalize())
}

/// `sha256:<hex>` of some bytes, as export manifests record file hashes.
pub fn sha256_ref(bytes: &[u8]) -> String {
    format!("sha256:{}", hex(&Sha256::digest(bytes)))
}

use warrant_text::hash::hex;

/// A stable id `<prefix>-<16 hex digits of the parts' digest>`. `prefix` must be a valid id.
pub fn stable_id(prefix: &str, parts: &[&str]) -> String {
    format!("{prefix}-{}", &digest(parts)[..16])
}

/// `<prefix>:<id>` when that is a valid id; otherwise a stable id derived from both, so any
/// string (even one that is not a valid id) gives a valid, stable, distinct id.
pub fn scoped_id(prefix: &str, id: &str) -> String {
    let joined = format!("{prefix}:{id}");
    if is_valid_id(&joined) { joined } else { stable_id(prefix, &[id]) }
}

/// `raw` itself when it is a valid id; otherwise a valid id derived from it: the invalid
/// characters replaced by `_`, cut to 200 bytes, and a digest of `raw` appended, so distinct
/// strings stay distinct (`docs/a.md#3` → `docs_a.md_3-…`).
pub fn to_valid_id(raw: &str) -> std::borrow::Cow<'_, str> {
    if is_valid_id(raw) {
        return std::borrow::Cow::Borrowed(raw);
    }
    let mut s: String =
        raw.chars().map(|c| if c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | ':' | '-') { c } else { '_' }).collect();
    if !s.starts_with(|c: char| c.is_ascii_alphanumeric()) {
        s.insert(0, 'x');
    }
    s.truncate(200);
    std::borrow::Cow::Owned(format!("{s}-{}", &digest(&[raw])[..12]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pattern() {
        assert!(is_valid_id("a"));
        assert!(is_valid_id("evp_123:x.y-z"));
        assert!(is_valid_id(&"a".repeat(256)));
        assert!(!is_valid_id(&"a".repeat(257)));
        for bad in ["", "_a", "-a", "a b", "a/b", "é", "a\n", "a\u{0}"] {
            assert!(!is_valid_id(bad), "{bad:?}");
        }
    }

    #[test]
    fn stable_and_scoped() {
        assert_eq!(stable_id("evp", &["a", "b"]), stable_id("evp", &["a", "b"]));
        assert_ne!(stable_id("evp", &["ab", "c"]), stable_id("evp", &["a", "bc"]));
        assert_eq!(scoped_id("source", "s1"), "source:s1");
        let long = scoped_id("source", &"x".repeat(256));
        assert!(is_valid_id(&long) && long.starts_with("source-"));
        assert!(is_valid_id(&scoped_id("claim", "has space")));
        assert_eq!(to_valid_id("c1"), "c1");
        let mapped = to_valid_id("docs/a.md#3");
        assert!(mapped.starts_with("docs_a.md_3-") && is_valid_id(&mapped), "{mapped}");
        assert_ne!(to_valid_id("a/b"), to_valid_id("a#b"));
        for raw in ["", "_", "é", &"/".repeat(300)] {
            assert!(is_valid_id(&to_valid_id(raw)), "{raw:?}");
        }
        assert_eq!(sha256_ref(b""), "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    }
}
