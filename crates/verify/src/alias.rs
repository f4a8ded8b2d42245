//! Names that denote the same thing written differently: initials and acronyms ("US", "U.S.",
//! "ACL" for "Association for Computational Linguistics"), postal and country codes ("CA",
//! "UK"), demonyms ("Dutch" for "the Netherlands") and common short forms. Two names are
//! aliases when they share an alias key; a name found under an alias is found, and a name that
//! is an alias of the claim's never stands in for it.

use std::sync::LazyLock;

use warrant_text::fasthash::FastMap;

/// Words that do not count towards initials ("Association for Computational Linguistics" is
/// ACL).
const SKIPPED: &[&str] = &["of", "the", "and", "for", "de", "la", "du", "van", "von", "&", "in", "on", "at"];

/// Form (lower-case words joined by one space) → the keys of the groups it belongs to.
static GROUPS: LazyLock<FastMap<String, Vec<String>>> = LazyLock::new(|| {
    let mut m: FastMap<String, Vec<String>> = FastMap::default();
    for line in include_str!("../data/aliases.txt").lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')) {
        let forms: Vec<String> = line.split('|').map(warrant_text::normalize::collapse_whitespace).collect();
        let Some(head) = forms.first().filter(|h| !h.is_empty()) else { continue };
        for f in forms.iter().filter(|f| !f.is_empty()) {
            let (form, key) = match f.strip_prefix('~') {
                Some(related) => (related.trim().to_string(), format!("~@{head}")),
                None => (f.clone(), format!("@{head}")),
            };
            let keys = m.entry(form).or_default();
            if !keys.contains(&key) {
                keys.push(key.clone());
            }
        }
    }
    m
});

/// The alias keys of a name given its lower-case words and whether it was written as one
/// all-capitals token ("NASA", "CA"): its groups, and its initials.
pub fn keys(words: &[String], all_caps: bool) -> Vec<String> {
    // "u s supreme court" (from "U.S. Supreme Court") reads as "us supreme court".
    let mut merged: Vec<String> = Vec::with_capacity(words.len());
    let mut letters = String::new();
    for w in words {
        if w.chars().count() == 1 && w.chars().all(char::is_alphabetic) {
            letters.push_str(w);
            continue;
        }
        if !letters.is_empty() {
            merged.push(std::mem::take(&mut letters));
        }
        merged.push(w.clone());
    }
    if !letters.is_empty() {
        merged.push(letters);
    }
    let mut out: Vec<String> = Vec::new();
    let mut push = |k: String| {
        if !out.contains(&k) {
            out.push(k);
        }
    };
    for form in [words.join(" "), merged.join(" ")] {
        if let Some(groups) = GROUPS.get(&form) {
            for g in groups {
                push(g.clone());
            }
        }
    }
    // Initials of a name of several words ("^us") meet an acronym ("!us"), never the initials
    // of another name ("Frank Darabont" is not "Francis Daramont").
    let content: Vec<&String> = merged.iter().filter(|w| !SKIPPED.contains(&w.as_str())).collect();
    if content.len() >= 2 {
        let initials: String = content.iter().filter_map(|w| w.chars().next()).collect();
        push(format!("^{initials}"));
    }
    // A lone short word written in capitals, or letters written with periods, is an acronym.
    if let [only] = merged.as_slice() {
        let n = only.chars().count();
        let dotted = words.len() > 1;
        if (2..=6).contains(&n) && (all_caps || dotted) {
            push(format!("!{only}"));
        }
    }
    out
}

/// True when two keys name the same thing: the same group, or initials and their acronym.
fn meet(a: &str, b: &str) -> bool {
    match (a.strip_prefix('^'), b.strip_prefix('!'), a.strip_prefix('!'), b.strip_prefix('^')) {
        (Some(x), Some(y), _, _) | (_, _, Some(x), Some(y)) => x == y,
        _ => a.starts_with('@') && a == b,
    }
}

/// True when two names are the same under an alias (initials, a code, a short form): one
/// states the other.
pub fn same(a: &[String], b: &[String]) -> bool {
    a.iter().any(|k| b.iter().any(|j| meet(k, j)))
}

/// True when two names are the same or related (a demonym and its country): neither stands
/// in for the other as a different value.
pub fn related(a: &[String], b: &[String]) -> bool {
    let bare = |k: &str| k.trim_start_matches('~').to_string();
    a.iter().any(|k| b.iter().any(|j| meet(k, j) || k.starts_with(['@', '~']) && bare(k) == bare(j)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn k(words: &str, caps: bool) -> Vec<String> {
        keys(&words.split_whitespace().map(String::from).collect::<Vec<_>>(), caps)
    }

    #[test]
    fn initials_codes_and_demonyms_meet() {
        assert!(same(&k("us", true), &k("united states", false)));
        assert!(same(&k("u s", false), &k("united states", false)));
        assert!(same(&k("acl", true), &k("association for computational linguistics", false)));
        assert!(same(&k("ca", true), &k("california", false)));
        assert!(same(&k("u s supreme court", false), &k("united states supreme court", false)));
        assert!(
            related(&k("new york", false), &k("new york city", false))
                && !same(&k("new york", false), &k("new york city", false))
        );
        // A demonym is related to its country, but does not state it.
        assert!(related(&k("dutch", false), &k("netherlands", false)));
        assert!(!same(&k("italian", false), &k("italy", false)));
        assert!(!related(&k("paris", false), &k("warsaw", false)));
        assert!(!related(&k("priya raman", false), &k("stockholm", false)));
        // A capitalised ordinary word is not an acronym of anything, and two names with the
        // same initials are not one name.
        assert!(k("apple", false).is_empty());
        assert!(!same(&k("frank darabont", false), &k("francis daramont", false)));
    }
}
