//! Citation markers: URLs, Markdown links, bracketed references resolved against the
//! answer's reference list, "(Author, 2020)" and "according to X".

use std::collections::BTreeMap;
use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;
use warrant_graph::SourceType;

use crate::markdown::{Reference, URL};
use warrant_text::pattern::compile as re;

/// A citation marker found in prose.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoundCitation {
    /// The marker.
    pub range: Range<usize>,
    /// Kind of source.
    pub kind: SourceType,
    /// URL, reference text or document name.
    pub value: String,
}

static BRACKET: LazyLock<Regex> = LazyLock::new(|| re(r"\[(\d{1,3}(?:\s*[,–-]\s*\d{1,3})*)\]"));
static MD_LINK: LazyLock<Regex> = LazyLock::new(|| re(r"\[([^\]\n]{1,200})\]\((https?://[^)\s]+)\)"));
static AUTHOR_YEAR: LazyLock<Regex> = LazyLock::new(|| {
    re(r"\((\p{Lu}[\p{L}'’-]+(?:\s+(?:et\s+al\.?|and|&)(?:\s+\p{Lu}[\p{L}'’-]+)?)?,?\s+(?:19|20)\d{2}[a-z]?)\)")
});
static ACCORDING: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?-u:\b)[Aa]ccording\s+to\s+((?:the\s+)?\p{Lu}[\w&.'’-]*(?:\s+(?:of\s+)?\p{Lu}[\w&.'’-]*)*|the\s+[a-z]+(?:\s+[a-z]+)?)")
});

/// Expands `1, 3–5` into labels.
fn labels(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    for part in s.split(',') {
        let part = part.trim();
        if let Some((a, b)) = part.split_once(['-', '–']) {
            if let (Ok(a), Ok(b)) = (a.trim().parse::<u32>(), b.trim().parse::<u32>())
                && a <= b
                && b - a < 50
            {
                out.extend((a..=b).map(|n| n.to_string()));
            }
        } else if !part.is_empty() {
            out.push(part.to_string());
        }
    }
    out
}

/// Finds citation markers in one prose range.
pub fn find(text: &str, range: Range<usize>, refs: &BTreeMap<String, Reference>) -> Vec<FoundCitation> {
    let hay = &text[range.clone()];
    let at = |m: Range<usize>| range.start + m.start..range.start + m.end;
    let mut out: Vec<FoundCitation> = Vec::new();
    let mut link_ranges: Vec<Range<usize>> = Vec::new();
    for c in hay.contains("](").then(|| MD_LINK.captures_iter(hay)).into_iter().flatten() {
        let (Some(all), Some(url)) = (c.get(0), c.get(2)) else { continue };
        link_ranges.push(all.range());
        out.push(FoundCitation { range: at(all.range()), kind: SourceType::Url, value: url.as_str().to_string() });
    }
    for m in hay.contains("http").then(|| URL.find_iter(hay)).into_iter().flatten() {
        if link_ranges.iter().any(|r| r.start <= m.start() && m.end() <= r.end) {
            continue;
        }
        out.push(FoundCitation { range: at(m.range()), kind: SourceType::Url, value: m.as_str().to_string() });
    }
    for c in hay.contains('[').then(|| BRACKET.captures_iter(hay)).into_iter().flatten() {
        let Some(inner) = c.get(1) else { continue };
        let marker = inner.start() - 1..inner.end() + 1;
        // `[1](http://…)` is a Markdown link, handled above.
        if hay[marker.end..].starts_with('(') {
            continue;
        }
        for label in labels(inner.as_str()) {
            let (kind, value) = match refs.get(&label) {
                Some(Reference { url: Some(u), .. }) => (SourceType::Url, u.clone()),
                Some(r) => (SourceType::Reference, text[r.body.clone()].to_string()),
                None => (SourceType::Reference, format!("[{label}]")),
            };
            out.push(FoundCitation { range: at(marker.clone()), kind, value });
        }
    }
    for c in hay.contains(')').then(|| AUTHOR_YEAR.captures_iter(hay)).into_iter().flatten() {
        let (Some(all), Some(inner)) = (c.get(0), c.get(1)) else { continue };
        out.push(FoundCitation { range: at(all.range()), kind: SourceType::Reference, value: inner.as_str().to_string() });
    }
    for c in hay.contains("ccording").then(|| ACCORDING.captures_iter(hay)).into_iter().flatten() {
        let (Some(all), Some(who)) = (c.get(0), c.get(1)) else { continue };
        out.push(FoundCitation { range: at(all.range()), kind: SourceType::Document, value: who.as_str().trim().to_string() });
    }
    out.sort_by(|a, b| a.range.start.cmp(&b.range.start).then(a.range.end.cmp(&b.range.end)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::markdown::scan;

    #[test]
    fn markers_resolve_against_the_reference_list() {
        let t = "Python is popular [1][3]. See [docs](https://docs.python.org) or https://python.org. Birds fly (Smith et al., 2020). According to the WHO, it is safe.\n\n[1] https://tiobe.com\n[3] Guido, FAQ\n";
        let b = scan(t);
        let prose = 0..t.find("\n\n[1]").unwrap();
        let got: Vec<(SourceType, String)> = find(t, prose, &b.references).into_iter().map(|c| (c.kind, c.value)).collect();
        assert_eq!(
            got,
            vec![
                (SourceType::Url, "https://tiobe.com".into()),
                (SourceType::Reference, "Guido, FAQ".into()),
                (SourceType::Url, "https://docs.python.org".into()),
                (SourceType::Url, "https://python.org".into()),
                (SourceType::Reference, "Smith et al., 2020".into()),
                (SourceType::Document, "the WHO".into()),
            ]
        );
    }

    #[test]
    fn unresolved_and_ranges() {
        let t = "As shown [2, 4-5].";
        let got: Vec<String> = find(t, 0..t.len(), &BTreeMap::new()).into_iter().map(|c| c.value).collect();
        assert_eq!(got, vec!["[2]", "[4]", "[5]"]);
    }
}
