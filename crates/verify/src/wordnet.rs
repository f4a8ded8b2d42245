//! WordNet 3.0 relations between stems: synonyms, narrower terms, derived forms and antonyms
//! of each word's frequent senses (`data/wordnet/table.tsv`, built by
//! `scripts/wordnet/build_table.py`; `data/wordnet/README.md` says how senses were chosen).
//!
//! Keys and values are stems as [`crate::lexicon::stem`] computes them (not folded through the
//! hand-written synonym groups). Every list is sorted, so a caller may binary-search it.
//!
//! The table is sorted by stem (bytewise), so loading only notes each line's stem and fields
//! (a fraction of a millisecond; a hash map of its 35,000 stems took ten) and a lookup is a
//! binary search over the stems. A stem's lists are split out of its line the first time it is looked up,
//! and kept.

use std::sync::{LazyLock, OnceLock};

const TEXT: &str = include_str!("../data/wordnet/table.tsv");

/// The relation columns, in the table's order (after the stem).
#[derive(Debug, Clone, Copy)]
enum Rel {
    Syn = 0,
    Hypo = 1,
    Deriv = 2,
    Ant = 3,
}

const RELS: usize = 4;

/// The table's lines (comments left out), in stem order, each split on first use.
struct Table {
    /// Each line's stem (its text up to the first tab), for the binary search.
    stems: Vec<&'static str>,
    /// Each line's fields (after the first tab).
    fields: Vec<&'static str>,
    lists: Vec<OnceLock<Lists>>,
    /// Each stem's [`stating_keys`], built on first use.
    keys: Vec<OnceLock<Box<[String]>>>,
}

/// A stem's relation lists end to end; list `r` ends at `ends[r]` and starts where `r - 1` ends.
struct Lists {
    stems: Box<[&'static str]>,
    ends: [u32; RELS],
}

static TABLE: LazyLock<Table> = LazyLock::new(|| index(TEXT));

fn index(text: &'static str) -> Table {
    let mut stems = Vec::with_capacity(text.len() / 40);
    let mut fields = Vec::with_capacity(text.len() / 40);
    let mut at = 0;
    while at < text.len() {
        let end = memchr::memchr(b'\n', &text.as_bytes()[at..]).map_or(text.len(), |n| at + n);
        let line = &text[at..end];
        if !line.starts_with('#') {
            let (stem, rest) = line.split_once('\t').unwrap_or((line, ""));
            stems.push(stem);
            fields.push(rest);
        }
        at = end + 1;
    }
    let lists = std::iter::repeat_with(OnceLock::new).take(stems.len()).collect();
    let keys = std::iter::repeat_with(OnceLock::new).take(stems.len()).collect();
    Table { stems, fields, lists, keys }
}

fn split(fields: &'static str) -> Lists {
    let mut stems = Vec::new();
    let mut ends = [0u32; RELS];
    for (end, field) in ends.iter_mut().zip(fields.split('\t')) {
        stems.extend(field.split(' ').filter(|s| !s.is_empty()));
        *end = stems.len() as u32;
    }
    // A short line (no trailing fields) leaves its last lists empty.
    for r in 1..RELS {
        ends[r] = ends[r].max(ends[r - 1]);
    }
    Lists { stems: stems.into_boxed_slice(), ends }
}

fn list(stem: &str, rel: Rel) -> &'static [&'static str] {
    let table: &'static Table = &TABLE;
    let Ok(i) = table.stems.binary_search(&stem) else { return &[] };
    let lists = table.lists[i].get_or_init(|| split(table.fields[i]));
    let r = rel as usize;
    let start = if r == 0 { 0 } else { lists.ends[r - 1] as usize };
    &lists.stems[start..lists.ends[r] as usize]
}

/// Stems sharing a synset with `stem` in a frequent sense of both ("film" → "movi").
pub(crate) fn synonyms(stem: &str) -> &'static [&'static str] {
    list(stem, Rel::Syn)
}

/// Narrower stems: found in a source, each states `stem` ("author" → "novelist", "car" →
/// "sedan"). Not the reverse: a source saying "author" does not state "novelist".
pub(crate) fn narrower(stem: &str) -> &'static [&'static str] {
    list(stem, Rel::Hypo)
}

/// Derivationally related stems and pertainyms ("product" → "produc", "franc" → "french").
pub(crate) fn derived(stem: &str) -> &'static [&'static str] {
    list(stem, Rel::Deriv)
}

/// The stems WordNet gives as direct antonyms of `stem`, sorted.
pub(crate) fn antonyms(stem: &str) -> &'static [&'static str] {
    list(stem, Rel::Ant)
}

/// True when WordNet gives the two stems as direct antonyms ("increas"/"decreas").
pub(crate) fn are_antonyms(a: &str, b: &str) -> bool {
    list(a, Rel::Ant).binary_search(&b).is_ok()
}

/// Stems of words that, found in a source, state the claim word with this stem: its synonyms,
/// narrower terms and derived forms.
pub(crate) fn stating(stem: &str) -> impl Iterator<Item = &'static str> {
    synonyms(stem).iter().chain(narrower(stem)).chain(derived(stem)).copied()
}

/// [`stating`] as the verifier's keys ([`crate::lexicon::fold`]ed), sorted and without repeats;
/// worked out once per stem, since a broad word ("person") states thousands.
pub(crate) fn stating_keys(stem: &str) -> &'static [String] {
    let table: &'static Table = &TABLE;
    let Ok(i) = table.stems.binary_search(&stem) else { return &[] };
    table.keys[i].get_or_init(|| {
        let mut keys: Vec<String> = stating(stem).map(|s| crate::lexicon::fold(s.to_string())).collect();
        keys.sort_unstable();
        keys.dedup();
        keys.into_boxed_slice()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lexicon::is_stopword;

    /// The verifier's key before folding: the stem of the lower-cased word.
    fn stem(word: &str) -> String {
        crate::lexicon::stem(&word.to_lowercase())
    }

    fn syn(a: &str, b: &str) -> bool {
        synonyms(&stem(a)).contains(&stem(b).as_str())
    }

    fn states(source: &str, claim: &str) -> bool {
        narrower(&stem(claim)).contains(&stem(source).as_str())
    }

    fn deriv(a: &str, b: &str) -> bool {
        derived(&stem(a)).contains(&stem(b).as_str())
    }

    fn ant(a: &str, b: &str) -> bool {
        are_antonyms(&stem(a), &stem(b))
    }

    /// The lemmas behind each stem (test data: `stem<TAB>words`).
    const WORDS: &str = include_str!("../data/wordnet/words.tsv");

    /// Rows of a table file, its `#` lines skipped: the stem, then each field's list.
    fn rows(text: &'static str, fields: usize) -> impl Iterator<Item = (&'static str, Vec<Vec<&'static str>>)> {
        text.lines().filter(|l| !l.starts_with('#')).map(move |l| {
            let f: Vec<&str> = l.split('\t').collect();
            assert_eq!(f.len(), 1 + fields, "{l}");
            (f[0], f[1..].iter().map(|x| x.split_whitespace().collect()).collect())
        })
    }

    #[test]
    fn synonyms_of_frequent_senses() {
        assert!(syn("film", "movie") && syn("movies", "films"));
        assert!(syn("car", "automobile") && syn("automobile", "car"));
        assert!(syn("begin", "commence") && syn("large", "big"));
        assert_eq!(synonyms(&stem("writer")), ["author"]);
        assert!(synonyms("zzzz").is_empty());
    }

    #[test]
    fn narrower_terms_state_the_broader_not_the_reverse() {
        assert!(states("novelist", "author") && states("novelist", "writer"));
        assert!(!states("author", "novelist") && !states("writer", "novelist"));
        // Climbing through "motor_vehicle" and other multi-word-only synsets.
        assert!(states("car", "vehicle") && states("sedan", "car") && !states("vehicle", "car"));
        assert!(states("murder", "kill") && states("documentary", "film"));
        assert!(states("poet", "writer") && states("singer", "musician"));
    }

    #[test]
    fn derived_forms_and_pertainyms() {
        // "producer" and "produce" share the stem already; "production" is derived from it.
        assert_eq!(stem("producer"), stem("produce"));
        assert!(deriv("production", "produce") && deriv("produce", "production"));
        assert!(deriv("France", "French") && deriv("french", "france"));
        assert!(deriv("Germany", "German") && deriv("japanese", "japan") && deriv("Spain", "Spanish"));
        assert!(deriv("die", "death") && deriv("solar", "sun"));
        // A pertainym to "Soviet_Union" reaches the synset's single words.
        assert!(deriv("Soviet", "Russia") && deriv("russia", "soviet"));
        assert!(!deriv("film", "movie"));
    }

    #[test]
    fn antonyms_both_ways() {
        assert!(ant("increase", "decrease") && ant("decreased", "increases"));
        assert!(ant("high", "low") && ant("low", "high"));
        assert!(ant("begin", "end") && ant("old", "new") && ant("first", "last"));
        assert!(!ant("high", "high") && !ant("high", "tall") && !ant("film", "movie"));
    }

    #[test]
    fn rare_senses_do_not_link() {
        // "picture" is a film in 1 of its 12 senses (3 of its 102 tagged uses).
        assert!(!syn("film", "picture") && !syn("movie", "picture"));
        // A computer "mouse" is untagged; the rodent carries every tagged use.
        assert!(!states("mouse", "device") && states("mouse", "rodent"));
        // "accumulator" (a person who collects) shares the stem of "accumulate", whose tagged
        // uses are all the verb's: "accumulated" in a source does not state "person".
        assert!(!states("accumulator", "person") && states("adult", "person"));
        // "host" the web server is a rare sense.
        assert!(!syn("host", "server"));
        // The financial and the river bank are both frequent, but not "bank" as a verb (trust).
        assert!(!syn("bank", "trust") && !syn("bank", "rely"));
    }

    #[test]
    fn every_stem_is_the_verifiers_stem() {
        let mut n = 0;
        let mut stems = Vec::new();
        for (key, lists) in rows(WORDS, 1) {
            assert!(!lists[0].is_empty(), "{key}");
            for w in &lists[0] {
                assert_eq!(crate::lexicon::stem(w), key, "{w}");
                assert!(!is_stopword(w), "{w}");
                n += 1;
            }
            stems.push(key);
        }
        assert!(n > 50_000, "{n} words");
        // Every stem of the table, listed or listing, is one of those.
        assert!(stems.windows(2).all(|w| w[0] < w[1]));
        for (key, lists) in rows(TEXT, RELS) {
            for s in std::iter::once(&key).chain(lists.iter().flatten()) {
                assert!(stems.binary_search(s).is_ok(), "{s}");
            }
        }
    }

    #[test]
    fn rows_are_sorted_and_symmetric() {
        let all: Vec<_> = rows(TEXT, RELS).collect();
        assert_eq!(all.len(), TABLE.stems.len());
        assert!(synonyms("#").is_empty() && synonyms("").is_empty(), "comments and blanks are no stems");
        assert!(all.windows(2).all(|w| w[0].0 < w[1].0), "rows sorted, no repeats");
        for (key, lists) in &all {
            assert!(key.len() >= 2 && lists.iter().any(|l| !l.is_empty()), "{key}");
            for (rel, values) in [Rel::Syn, Rel::Hypo, Rel::Deriv, Rel::Ant].into_iter().zip(lists) {
                assert_eq!(list(key, rel), values.as_slice());
                assert!(values.windows(2).all(|w| w[0] < w[1]), "{key}: sorted list");
                for v in values {
                    assert_ne!(v, key);
                    // syn, deriv and ant hold both ways; hypo does not.
                    if !matches!(rel, Rel::Hypo) {
                        assert!(list(v, rel).contains(key), "{v} → {key}");
                    }
                }
            }
        }
    }

    /// Nanoseconds this thread has run on a CPU (Linux), so that a busy machine's waits do not
    /// count; `None` elsewhere.
    fn thread_cpu_ns() -> Option<u64> {
        std::fs::read_to_string("/proc/thread-self/schedstat").ok()?.split_whitespace().next()?.parse().ok()
    }

    /// The process's resident set (Linux), in kB.
    fn rss_kb() -> Option<u64> {
        let status = std::fs::read_to_string("/proc/self/status").ok()?;
        status.lines().find_map(|l| l.strip_prefix("VmRSS:"))?.split_whitespace().next()?.parse().ok()
    }

    /// Load time and heap of the table; run with
    /// `cargo test --release -p warrant-verify wordnet::tests::load_cost -- --ignored --nocapture`.
    #[test]
    #[ignore = "a measurement, not a check"]
    fn load_cost() {
        // Memory first, in a process that has not built the table yet.
        let rss0 = rss_kb();
        let t = index(TEXT);
        let rss1 = rss_kb();
        let lists: Vec<Lists> = t.fields.iter().map(|f| split(f)).collect();
        let rss2 = rss_kb();
        let index_heap =
            (t.stems.capacity() + t.fields.capacity()) * size_of::<&str>() + t.lists.capacity() * size_of::<OnceLock<Lists>>();
        let lists_heap: usize = lists.iter().map(|l| l.stems.len() * size_of::<&str>()).sum();
        drop((t, lists));
        let runs = 20;
        let (mut wall, mut cpu) = (u128::MAX, u64::MAX);
        for _ in 0..runs {
            let (start, cpu_start) = (std::time::Instant::now(), thread_cpu_ns());
            let t = index(TEXT);
            wall = wall.min(start.elapsed().as_micros());
            if let (Some(a), Some(b)) = (cpu_start, thread_cpu_ns()) {
                cpu = cpu.min((b - a) / 1000);
            }
            drop(t);
        }
        let start = std::time::Instant::now();
        let t = index(TEXT);
        let n: usize = t.fields.iter().map(|f| split(f).stems.len()).sum();
        let split_all = start.elapsed().as_micros();
        println!(
            "wordnet table: {} bytes, {} stems, {n} listed; index: best of {runs} {wall} µs wall, {cpu} µs on CPU, \
             heap {:.1} MB; index and split every row: {split_all} µs, lists heap {:.1} MB; \
             resident kB: {rss0:?} before, {rss1:?} indexed, {rss2:?} every row split",
            TEXT.len(),
            t.stems.len(),
            index_heap as f64 / 1e6,
            lists_heap as f64 / 1e6,
        );
    }
}
