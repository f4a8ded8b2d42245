//! Canonical entity strings (spec §3.2, D23) and version normalisation (D22).
//!
//! A canonical entity string is lower-case snake_case singular: "Session tokens" →
//! `session_token`, "the access policies" → `access_policy`. Subjects of extracted facts and
//! entity-typed objects are stored in this form, so every surface variant of a name meets.

use std::borrow::Cow;

/// Leading words dropped by step 3 of §3.2.
const ARTICLES: [&str; 6] = ["the", "a", "an", "all", "every", "each"];

/// The canonical entity string of a name (spec §3.2), applying in order:
///
/// 1. NFC; 2. lower-case; 3. drop one leading article (`the`, `a`, `an`, `all`, `every`,
///    `each`) when more words follow; 4. replace every run of characters other than `[a-z0-9]`
///    with `_` and trim `_` from both ends; 5. singularise the last `_`-separated token
///    ([`singularize`]).
///
/// ```
/// use warrant_facts::canonical_entity;
/// assert_eq!(canonical_entity("Session tokens"), "session_token");
/// assert_eq!(canonical_entity("API keys"), "api_key");
/// assert_eq!(canonical_entity("the access policies"), "access_policy");
/// ```
pub fn canonical_entity(name: &str) -> String {
    // ASCII is already NFC; most names are ASCII, and this runs for every fact and mention.
    let lower = if name.is_ascii() { name.to_ascii_lowercase() } else { warrant_text::normalize::nfc(name).to_lowercase() };
    let words = drop_article(lower.trim());
    let mut snake = snake_case(words);
    if let Some(pos) = snake.rfind('_') {
        let last = singularize(&snake[pos + 1..]).into_owned();
        snake.truncate(pos + 1);
        snake.push_str(&last);
        snake
    } else {
        singularize(&snake).into_owned()
    }
}

/// A looser key under which plural/singular variants of every word meet: the canonical string
/// with **every** token singularised, so "sessions tokens", "Session tokens" and
/// `session_token` share the key `session_token`. Used for entity lookup, never stored as a
/// fact's subject.
pub fn entity_match_key(name: &str) -> String {
    let canonical = canonical_entity(name);
    let mut out = String::with_capacity(canonical.len());
    for (i, tok) in canonical.split('_').enumerate() {
        if i > 0 {
            out.push('_');
        }
        out.push_str(&singularize(tok));
    }
    out
}

/// Singular form of one lower-case token (spec §3.2 step 5): `ies` → `y`; `sses` → `ss`;
/// `ches`/`shes`/`xes` drop `es`; otherwise a final `s` is dropped unless the token ends in
/// `ss`, `us` or `is`. A token that would become empty is left alone.
pub fn singularize(token: &str) -> Cow<'_, str> {
    if let Some(stem) = token.strip_suffix("ies") {
        return Cow::Owned(format!("{stem}y"));
    }
    if token.ends_with("sses") || token.ends_with("ches") || token.ends_with("shes") || token.ends_with("xes") {
        return Cow::Borrowed(&token[..token.len() - 2]);
    }
    if token.len() > 1 && token.ends_with('s') && !(token.ends_with("ss") || token.ends_with("us") || token.ends_with("is")) {
        return Cow::Borrowed(&token[..token.len() - 1]);
    }
    Cow::Borrowed(token)
}

fn drop_article(words: &str) -> &str {
    if let Some((first, rest)) = words.split_once(char::is_whitespace) {
        let rest = rest.trim_start();
        if ARTICLES.contains(&first) && !rest.is_empty() {
            return rest;
        }
    }
    words
}

/// Every run of characters other than `[a-z0-9]` becomes one `_`; `_` is trimmed from the ends.
fn snake_case(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if c.is_ascii_lowercase() || c.is_ascii_digit() {
            out.push(c);
        } else if !out.is_empty() && !out.ends_with('_') {
            out.push('_');
        }
    }
    while out.ends_with('_') {
        out.pop();
    }
    out
}

/// A version compared after D22 normalisation: one leading `v` or `V` dropped, so `"v2.0"`
/// and `"2.0"` are equal. Nothing else changes.
pub fn normalize_version(version: &str) -> &str {
    version.strip_prefix(['v', 'V']).unwrap_or(version)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn spec_examples() {
        assert_eq!(canonical_entity("Session tokens"), "session_token");
        assert_eq!(canonical_entity("session token"), "session_token");
        assert_eq!(canonical_entity("session_token"), "session_token");
        assert_eq!(canonical_entity("API keys"), "api_key");
        assert_eq!(canonical_entity("the access policies"), "access_policy");
        assert_eq!(canonical_entity("  Every  Refresh-Token!  "), "refresh_token");
        assert_eq!(canonical_entity("Maximum session duration"), "maximum_session_duration");
    }

    #[test]
    fn singular_rules() {
        for (plural, singular) in [
            ("policies", "policy"),
            ("classes", "class"),
            ("branches", "branch"),
            ("dishes", "dish"),
            ("boxes", "box"),
            ("tokens", "token"),
            ("class", "class"),
            ("status", "status"),
            ("analysis", "analysis"),
            ("s", "s"),
            ("ies", "y"),
            ("data", "data"),
        ] {
            assert_eq!(singularize(plural), singular, "{plural}");
        }
        // Only the last token is singularised.
        assert_eq!(canonical_entity("sessions tokens"), "sessions_token");
        assert_eq!(entity_match_key("sessions tokens"), "session_token");
    }

    #[test]
    fn articles_unicode_and_edges() {
        assert_eq!(canonical_entity("The"), "the", "a lone article is kept");
        assert_eq!(canonical_entity("an API"), "api");
        assert_eq!(canonical_entity("Éclair cakes"), "clair_cake");
        assert_eq!(canonical_entity("Cafe\u{301} menus"), canonical_entity("Caf\u{e9} menus"), "NFC first");
        assert_eq!(canonical_entity(""), "");
        assert_eq!(canonical_entity("!!!"), "");
    }

    #[test]
    fn versions() {
        assert_eq!(normalize_version("v2.0"), "2.0");
        assert_eq!(normalize_version("V2.0"), "2.0");
        assert_eq!(normalize_version("2.0"), "2.0");
        assert_eq!(normalize_version("vv1"), "v1", "only one leading v is dropped");
    }

    proptest! {
        #[test]
        fn canonical_is_idempotent_snake_case(s in "\\PC{0,40}") {
            let c = canonical_entity(&s);
            prop_assert!(c.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_'));
            prop_assert!(!c.starts_with('_') && !c.ends_with('_') && !c.contains("__"));
            prop_assert_eq!(canonical_entity(&c), c.clone());
            prop_assert_eq!(entity_match_key(&c), entity_match_key(&s));
        }

        #[test]
        fn surface_variants_meet(words in proptest::collection::vec("[a-z]{1,7}[bcdfghjklmnpqrtvwxyz]", 1..4), upper in any::<bool>()) {
            prop_assume!(!ARTICLES.contains(&words[0].as_str()));
            let phrase = words.join(" ");
            let shown = if upper { phrase.to_uppercase() } else { phrase.clone() };
            prop_assert_eq!(canonical_entity(&shown), canonical_entity(&words.join("_")));
            prop_assert_eq!(entity_match_key(&format!("{phrase}s")), entity_match_key(&phrase.replace(' ', "_")));
        }
    }
}
