//! Secrets out of upstream text. An endpoint or proxy may echo the request's headers into an
//! error body or even a reply (`authorization: Bearer sk-…`); every text that comes back from
//! the endpoint passes through [`redact`] before Warrant prints, logs, stores, caches or
//! returns it, so the API key never leaks by reflection.
//!
//! Removed: the configured key wherever it appears, the token after `Bearer` (any case; a
//! token has 8 or more characters, one of them a digit or token punctuation, so that "the
//! bearer of this letter" stays), and anything shaped like an API key (`sk-` followed by at least 16 key
//! characters).

use std::borrow::Cow;

/// What a secret is replaced with.
pub const REDACTED: &str = "[redacted]";

/// Shortest configured key replaced verbatim (a shorter one would match ordinary words).
const MIN_KEY: usize = 8;
/// Characters after `sk-` that make a key shape.
const MIN_SK_TAIL: usize = 16;
/// Shortest token after `Bearer` that is redacted.
const MIN_TOKEN: usize = 8;

fn key_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'-' || c == b'_'
}

/// Characters of a bearer token (RFC 6750's b64token, plus what keys use).
fn token_char(c: u8) -> bool {
    key_char(c) || matches!(c, b'.' | b'~' | b'+' | b'/' | b'=')
}

/// A bearer token rather than a word ("the bearer of this letter", "a bearer instrument."):
/// long enough, with a digit or a token punctuation mark.
fn looks_like_token(t: &[u8]) -> bool {
    t.len() >= MIN_TOKEN && t.iter().any(|c| c.is_ascii_digit() || matches!(c, b'-' | b'_' | b'~' | b'+' | b'/' | b'='))
}

/// `text` without `key`, bearer tokens or `sk-…` key shapes.
pub fn redact<'a>(text: &'a str, key: Option<&str>) -> Cow<'a, str> {
    let mut out = Cow::Borrowed(text);
    if let Some(k) = key.map(str::trim).filter(|k| k.len() >= MIN_KEY)
        && out.contains(k)
    {
        out = Cow::Owned(out.replace(k, REDACTED));
    }
    if let Some(s) = redact_shapes(&out) {
        out = Cow::Owned(s);
    }
    out
}

/// Bearer tokens and `sk-` key shapes replaced; `None` when there are none.
fn redact_shapes(text: &str) -> Option<String> {
    let b = text.as_bytes();
    let mut out: Option<String> = None;
    let mut copied = 0;
    let mut i = 0;
    while i < b.len() {
        // `Bearer <token>`: the token goes, the word stays.
        if b.len() - i >= 7 && b[i..i + 6].eq_ignore_ascii_case(b"bearer") && (i == 0 || !key_char(b[i - 1])) {
            let mut j = i + 6;
            while j < b.len() && (b[j] == b' ' || b[j] == b'\t') {
                j += 1;
            }
            let start = j;
            while j < b.len() && token_char(b[j]) {
                j += 1;
            }
            // A full stop after the token ends the sentence.
            while j > start && b[j - 1] == b'.' {
                j -= 1;
            }
            if start > i + 6 && looks_like_token(&b[start..j]) {
                let o = out.get_or_insert_with(String::new);
                o.push_str(&text[copied..start]);
                o.push_str(REDACTED);
                copied = j;
                i = j;
                continue;
            }
        }
        // `sk-` and enough key characters, not inside a longer word.
        if b[i..].starts_with(b"sk-") && (i == 0 || !key_char(b[i - 1])) {
            let mut j = i + 3;
            while j < b.len() && key_char(b[j]) {
                j += 1;
            }
            if j - (i + 3) >= MIN_SK_TAIL {
                let o = out.get_or_insert_with(String::new);
                o.push_str(&text[copied..i]);
                o.push_str(REDACTED);
                copied = j;
                i = j;
                continue;
            }
        }
        i += 1;
    }
    out.map(|mut o| {
        o.push_str(&text[copied..]);
        o
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_bearer_tokens_and_key_shapes_are_removed() {
        let echoed = "bad request; you sent:\nauthorization: Bearer sk-test-0123456789abcdef\nhost: x";
        assert_eq!(redact(echoed, None), "bad request; you sent:\nauthorization: Bearer [redacted]\nhost: x");
        assert_eq!(redact("token=my-custom-key-42 end", Some("my-custom-key-42")), "token=[redacted] end");
        assert_eq!(redact("AUTHORIZATION: bearer abc.def~ghi/jk+l=", None), "AUTHORIZATION: bearer [redacted]");
        assert_eq!(redact("Bearer\tf00dcafe1234", None), "Bearer\t[redacted]");
        assert_eq!(redact("key sk-proj-AbCdEfGhIjKlMnOpQrSt, done", None), "key [redacted], done");
        assert_eq!(redact("{\"k\":\"sk-0123456789abcdefXYZ\"}", None), "{\"k\":\"[redacted]\"}");
    }

    #[test]
    fn ordinary_text_is_left_alone() {
        for t in [
            "Use sk-learn for this.",
            "The bearer of this letter.",
            "A bearer instrument.",
            "Bearer",
            "mask-0123456789abcdefghij is a word",
            "Refunds are approved within 5 days — café 😀.",
        ] {
            assert!(matches!(redact(t, None), Cow::Borrowed(_)), "{t}");
        }
        // A short key is not replaced verbatim (it would eat ordinary words).
        assert_eq!(redact("the cat sat", Some("cat")), "the cat sat");
        assert_eq!(redact("Bearer [redacted]", None), "Bearer [redacted]");
    }
}
