//! Paragraph and sentence segmentation over byte ranges.
//!
//! Deterministic rules, tuned for model output and documentation prose:
//! - paragraphs are separated by blank lines;
//! - a sentence ends at `.`, `!`, `?`, `…` (optionally followed by closing quotes or
//!   brackets) before whitespace, or at CJK `。！？` directly;
//! - a period does not end a sentence after a known abbreviation (`e.g.`, `Dr.`, `U.S.`), a
//!   single-letter initial, or inside a number (`3.14`), nor when the next word starts in
//!   lower case;
//! - a line break ends a sentence at list items, headings and table rows, and after a line
//!   ending in `:`.
//!
//! Every range is trimmed of surrounding whitespace and lies on char boundaries.

use std::ops::Range;

/// Abbreviations (lower-case, without the final period) after which `.` is not a boundary.
const ABBREVIATIONS: &[&str] = &[
    "mr", "mrs", "ms", "dr", "prof", "sr", "jr", "st", "vs", "etc", "e.g", "i.e", "eg", "ie", "cf", "inc", "ltd", "co", "corp",
    "no", "nos", "fig", "figs", "approx", "dept", "est", "u.s", "u.k", "a.m", "p.m", "jan", "feb", "mar", "apr", "jun", "jul",
    "aug", "sep", "sept", "oct", "nov", "dec", "mon", "tue", "wed", "thu", "fri", "sat", "sun", "al", "vol", "p", "pp", "ch",
    "sec", "art", "para", "min", "max", "ft", "lb", "lbs", "oz", "gen", "col", "lt", "capt", "rev", "hon", "op", "ed", "eds",
    "ref", "refs", "approx", "incl", "misc", "viz", "resp",
];

/// Trims a byte range of `text` to exclude surrounding whitespace.
pub fn trim_range(text: &str, r: Range<usize>) -> Range<usize> {
    let s = &text[r.clone()];
    let lead = s.len() - s.trim_start().len();
    let trail = s.len() - s.trim_end().len();
    if lead == s.len() {
        return r.start..r.start;
    }
    r.start + lead..r.end - trail
}

/// A Markdown ATX heading line: its level and text (`## Title ##` → `(2, "Title")`). At most
/// three spaces of indent; one to six `#`, then a space or tab; closing `#`s dropped; an empty
/// heading is none.
pub fn markdown_heading(line: &str) -> Option<(usize, &str)> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    if indent > 3 {
        return None;
    }
    let t = &line[indent..];
    let level = t.bytes().take_while(|b| *b == b'#').count();
    if !(1..=6).contains(&level) {
        return None;
    }
    let rest = &t[level..];
    if !rest.starts_with([' ', '\t']) {
        return None;
    }
    let rest = rest.trim().trim_end_matches('#').trim_end();
    (!rest.is_empty()).then_some((level, rest))
}

/// Paragraphs: maximal runs of non-blank lines, trimmed. Empty paragraphs are dropped.
pub fn paragraphs(text: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    let mut pos = 0;
    for line in text.split_inclusive('\n') {
        let blank = line.trim().is_empty();
        match (blank, start) {
            (true, Some(s)) => {
                push_trimmed(text, s..pos, &mut out);
                start = None;
            }
            (false, None) => start = Some(pos),
            _ => {}
        }
        pos += line.len();
    }
    if let Some(s) = start {
        push_trimmed(text, s..text.len(), &mut out);
    }
    out
}

/// True when the newline at byte `i` of `range` ends a sentence: before a blank line always;
/// a single newline at block lines (list items, headings, table rows) and after `:`.
fn newline_ends_sentence(text: &str, range: &Range<usize>, i: usize) -> bool {
    let line_start = text[..i].rfind('\n').map_or(range.start, |p| (p + 1).max(range.start));
    let this_line = &text[line_start..i];
    let next_line = text[i + 1..range.end].split('\n').next().unwrap_or("");
    next_line.trim().is_empty() || is_block_line(this_line) || is_block_line(next_line) || this_line.trim_end().ends_with(':')
}

fn push_trimmed(text: &str, r: Range<usize>, out: &mut Vec<Range<usize>>) {
    let t = trim_range(text, r);
    if !t.is_empty() {
        out.push(t);
    }
}

/// True when a line (without its newline) starts a list item, heading, quote or table row.
pub fn is_block_line(line: &str) -> bool {
    let t = line.trim_start();
    if t.starts_with('#') || t.starts_with('>') || t.starts_with('|') {
        return true;
    }
    if let Some(rest) = t.strip_prefix(['-', '*', '+', '•']) {
        return rest.starts_with(' ') || rest.starts_with('\t');
    }
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    if digits > 0 && digits <= 3 {
        let rest = &t[digits..];
        return (rest.starts_with(". ") || rest.starts_with(") ")) && rest.len() > 2;
    }
    false
}

fn is_closer(c: char) -> bool {
    matches!(c, '"' | '\'' | ')' | ']' | '}' | '”' | '’' | '»' | '*' | '_' | '`')
}

/// The word (letters, digits, periods) ending just before byte `i`, and where it starts.
fn word_before(text: &str, i: usize) -> (usize, &str) {
    let head = &text[..i];
    let start = head
        .rfind(|c: char| !(c.is_alphanumeric() || c == '.'))
        .map_or(0, |p| p + head[p..].chars().next().map_or(1, char::len_utf8));
    (start, &head[start..])
}

/// Sentences of the whole text (see module docs), as trimmed byte ranges.
pub fn sentences(text: &str) -> Vec<Range<usize>> {
    sentences_in(text, 0..text.len())
}

/// Sentences within `range` of `text`.
pub fn sentences_in(text: &str, range: Range<usize>) -> Vec<Range<usize>> {
    sentences_up_to(text, range, usize::MAX, false)
}

/// [`sentences_in`] for casual text, where sentences may start in lower case ("i love it. the
/// color green is …"): a period after a word of four or more letters that is not an
/// abbreviation ends a sentence before a lower-case word too, and so does a period followed
/// by two spaces. Formal text splits the same as with [`sentences_in`] except there.
pub fn sentences_in_casual(text: &str, range: Range<usize>) -> Vec<Range<usize>> {
    sentences_up_to(text, range, usize::MAX, true)
}

/// The first sentence within `range` of `text` (`sentences_in(..).first()`, without segmenting
/// the rest).
pub fn first_sentence_in(text: &str, range: Range<usize>) -> Option<Range<usize>> {
    sentences_up_to(text, range, 1, false).into_iter().next()
}

/// Sentences of `text` by the plainest rule: one ends at every `.`, `!` or `?` followed by
/// whitespace or the end of the text, whatever precedes it (no abbreviations, initials or
/// line rules). Facts extraction and store chunking are specified this way, so chunk
/// boundaries stay put when [`sentences`] learns new rules.
pub fn sentences_at_terminators(text: &str) -> Vec<Range<usize>> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        if matches!(b, b'.' | b'!' | b'?') {
            let end = i + 1;
            if end == bytes.len() || text[end..].starts_with(char::is_whitespace) {
                push_trimmed(text, start..end, &mut out);
                start = end;
            }
        }
    }
    push_trimmed(text, start..text.len(), &mut out);
    out
}

/// Rules of [`sentences_with`] beyond the default ones of [`sentences_in`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Rules {
    /// Casual text, as [`sentences_in_casual`] splits it.
    pub casual: bool,
    /// Text assembled from many documents (retrieved sources): no sentence ends after an
    /// initial ("H."), a dotted word ("a.k.a.") or a title abbreviation ("St.", "No."), and
    /// one does end at a period glued to a capitalised word ("…Philadelphia.First …"), where
    /// two documents were concatenated without a space.
    pub sources: bool,
}

/// A sentence found by [`sentences_with`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sentence {
    /// Its byte range, trimmed.
    pub range: Range<usize>,
    /// The previous sentence ran into it without a space ([`Rules::sources`] only): the mark
    /// of texts concatenated from different documents.
    pub glued: bool,
}

/// Sentences within `range` of `text` under `rules`.
pub fn sentences_with(text: &str, range: Range<usize>, rules: Rules) -> Vec<Sentence> {
    let ranges = sentences_up_to(text, range, usize::MAX, rules.casual);
    if !rules.sources {
        return ranges.into_iter().map(|range| Sentence { range, glued: false }).collect();
    }
    let mut out = Vec::new();
    for r in join_initials(text, ranges) {
        for (n, range) in split_glued(text, r).into_iter().enumerate() {
            out.push(Sentence { range, glued: n > 0 });
        }
    }
    out
}

/// The first `max` sentences within `range`: segmentation only moves forward, so stopping
/// once `max` are found leaves them as they are in the full list.
fn sentences_up_to(text: &str, range: Range<usize>, max: usize, casual: bool) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = range.start;
    let b = text.as_bytes();
    let char_at = |j: usize| text[j..].chars().next().unwrap_or('\0');
    // Bytes are skipped until one that can begin a terminator or a newline: ASCII `. ! ? \n`
    // or the lead byte of `。 ！ ？ …` (never a UTF-8 continuation byte, so every stop is a
    // char boundary). Decoding every char was most of this function's time.
    let mut i = range.start;
    while i < range.end {
        if !matches!(b[i], b'.' | b'!' | b'?' | b'\n' | 0xE2 | 0xE3 | 0xEF) {
            i += 1;
            continue;
        }
        if out.len() >= max {
            return out;
        }
        let c = char_at(i);
        let next_i = i + c.len_utf8();
        match c {
            '。' | '！' | '？' => {
                push_trimmed(text, start..next_i, &mut out);
                start = next_i;
                i = next_i;
            }
            '.' | '!' | '?' | '…' => {
                // Swallow runs of terminators and closing quotes/brackets.
                let mut end = next_i;
                while end < range.end {
                    let d = char_at(end);
                    if matches!(d, '.' | '!' | '?' | '…') || is_closer(d) {
                        end += d.len_utf8();
                    } else {
                        break;
                    }
                }
                let dot = i;
                i = end;
                if end < range.end && !text[end..].starts_with(char::is_whitespace) {
                    continue;
                }
                if c == '.' && !period_ends_sentence(text, dot, end, range.end) && !(casual && casual_end(text, dot, end)) {
                    continue;
                }
                push_trimmed(text, start..end, &mut out);
                start = end;
            }
            '\n' => {
                if newline_ends_sentence(text, &range, i) {
                    push_trimmed(text, start..i, &mut out);
                    start = next_i;
                }
                i = next_i;
            }
            _ => i = next_i,
        }
    }
    push_trimmed(text, start..range.end, &mut out);
    out.truncate(max);
    out
}

/// Decides whether the period at byte `dot` (terminator run ending at `end`) ends a sentence.
fn period_ends_sentence(text: &str, dot: usize, end: usize, limit: usize) -> bool {
    let (word_start, word) = word_before(text, dot);
    let original = word.trim_start_matches('.');
    // Abbreviations are short ASCII words: lower-case into a stack buffer, no allocation.
    let mut buf = [0u8; 8];
    let bare: &str = if original.len() <= buf.len() && original.is_ascii() {
        for (d, s) in buf.iter_mut().zip(original.bytes()) {
            *d = s.to_ascii_lowercase();
        }
        std::str::from_utf8(&buf[..original.len()]).unwrap_or("")
    } else {
        ""
    };
    // A list number at the start of a line: "1. Open the app".
    if !original.is_empty() && original.bytes().all(|b| b.is_ascii_digit()) && starts_line(&text[..word_start]) {
        return false;
    }
    if ABBREVIATIONS.contains(&bare) {
        // "No." abbreviates "number" only before one ("No. 5"); "No. Gift cards …" is an answer.
        if matches!(bare, "no" | "nos") {
            return !next_word(text, end, limit).is_some_and(|c| c.is_ascii_digit());
        }
        // "etc." and "Inc." often do end sentences; only when the next word starts upper-case.
        if matches!(bare, "etc" | "inc" | "ltd" | "co" | "corp" | "al") {
            return next_word_is_capitalised(text, end, limit);
        }
        return false;
    }
    // A single letter (an initial, "J. Smith") or dotted initials ("U.S.A.").
    let letters: Vec<char> = original.chars().filter(|c| *c != '.').collect();
    if letters.len() == 1 && letters[0].is_alphabetic() && letters[0].is_uppercase() {
        // A unit after a number ("8 °C.", "12 V.") is not an initial.
        let before = text[..word_start].trim_end();
        let unit = before.ends_with('°') || before.ends_with(|c: char| c.is_ascii_digit());
        return unit && next_word_is_capitalised(text, end, limit);
    }
    if bare.contains('.') && bare.split('.').all(|p| p.chars().count() <= 1) {
        return next_word_is_capitalised(text, end, limit);
    }
    // "approx. three", "vs. the": a lower-case continuation after a short word.
    !next_word_starts_lowercase(text, end, limit)
}

/// In casual text, a period ends a sentence after a plain word of four or more letters (not
/// an abbreviation), after a lower-case word of three ("made by hbo. emotional pain …",
/// "a type of bee. they are …": casual writers lower-case names too, while abbreviations of
/// three letters are listed or capitalised, "Ave.", "Ore."), or when two spaces follow it.
fn casual_end(text: &str, dot: usize, end: usize) -> bool {
    if text[end..].starts_with("  ") {
        return true;
    }
    let (_, word) = word_before(text, dot);
    let letters = word.chars().count();
    let lower = word.to_ascii_lowercase();
    let plain = word.chars().all(char::is_alphabetic) && !ABBREVIATIONS.contains(&lower.as_str());
    let lower_three = letters == 3 && word.chars().all(|c| c.is_ascii_lowercase()) && !CASUAL_ABBREVIATIONS.contains(&word);
    // "released in 2010. it was …": a number of two digits or more ends a sentence (one digit
    // may number an item, "1. open the lid"); so does a closing quote or bracket.
    let number = letters >= 2 && word.chars().all(|c| c.is_ascii_digit());
    let closed = text[..dot].ends_with(['"', '”', ')']);
    (plain && (letters >= 4 || lower_three)) || number || closed || SHORT_ENDINGS.contains(&lower.as_str())
}

/// Lower-case three-letter abbreviations that go on with a lower-case word ("ave. and",
/// "approx. 5 yrs. old"), beyond [`ABBREVIATIONS`].
const CASUAL_ABBREVIATIONS: &[&str] =
    &["ave", "apt", "hwy", "gov", "ext", "tel", "div", "yrs", "hrs", "mos", "wks", "pts", "dep", "cal", "esp", "abt"];

/// Short words that end casual sentences ("I do enjoy it. there are …") and are never
/// abbreviations, unlike "vs", "no", "ca" or "approx".
const SHORT_ENDINGS: &[&str] = &[
    "it", "me", "us", "him", "her", "them", "you", "too", "now", "yet", "do", "did", "was", "is", "are", "am", "one", "two",
    "six", "ten", "yes", "lot", "fun", "day", "way", "out", "up", "off", "own", "new", "old", "all", "see", "go", "got", "get",
    "has", "had", "lol", "ago", "say", "why", "how", "who", "try", "far", "bad", "big", "won", "so", "ok", "oh", "yea", "yep",
    "yup", "nah", "wow", "hmm",
];

fn next_word(text: &str, end: usize, limit: usize) -> Option<char> {
    text[end..limit].trim_start().chars().find(|c| !matches!(c, '"' | '\'' | '(' | '[' | '“' | '‘' | '*' | '_'))
}

fn next_word_is_capitalised(text: &str, end: usize, limit: usize) -> bool {
    next_word(text, end, limit).is_none_or(|c| c.is_uppercase() || c.is_numeric())
}

fn next_word_starts_lowercase(text: &str, end: usize, limit: usize) -> bool {
    // Only within a line: a lower-case word on the next line after a period is a new item.
    // (Only the blanks after the period are read, not the rest of the line: reading to the
    // line's end at every period made a long line quadratic.)
    if blank_to_line_end(&text[end..limit]) {
        return false;
    }
    next_word(text, end, limit).is_some_and(char::is_lowercase)
}

/// True when `rest` up to its first newline (or its end) is blank: `rest.split('\n').next()`
/// trimmed is empty, reading only the blanks at its start.
fn blank_to_line_end(rest: &str) -> bool {
    let t = rest.trim_start_matches(|c: char| c.is_whitespace() && c != '\n');
    t.is_empty() || t.starts_with('\n')
}

/// True when `head` ends at the start of a line, blanks aside: `head.rsplit('\n').next()`
/// trimmed is empty, reading only the blanks at its end.
fn starts_line(head: &str) -> bool {
    let t = head.trim_end_matches(|c: char| c.is_whitespace() && c != '\n');
    t.is_empty() || t.ends_with('\n')
}

/// Abbreviations after which [`Rules::sources`] rejoins a split sentence (as written, period
/// included).
const SOURCE_ABBREVIATIONS: &[&str] = &[
    "St.", "Dr.", "Mr.", "Mrs.", "Ms.", "Jr.", "Sr.", "Mt.", "Ft.", "Gen.", "Col.", "Lt.", "Sgt.", "Prof.", "Rev.", "Inc.",
    "Ltd.", "Co.", "vs.", "approx.", "No.",
];

/// Rejoins sentences split after an initial ("… H." + "Bruce Humberstone …").
fn join_initials(text: &str, ranges: Vec<Range<usize>>) -> Vec<Range<usize>> {
    let mut out: Vec<Range<usize>> = Vec::with_capacity(ranges.len());
    for r in ranges {
        if let Some(prev) = out.last_mut() {
            let b = text[prev.clone()].trim_end().as_bytes();
            let last_word = text[prev.clone()].trim_end().rsplit(char::is_whitespace).next().unwrap_or("");
            // "8 °C." ends a sentence: a unit after a number is not an initial.
            let unit = last_word.starts_with('°')
                || text[prev.clone()].trim_end().rsplit(char::is_whitespace).nth(1).is_some_and(|w| w.parse::<f64>().is_ok());
            let initial = !unit
                && b.len() >= 2
                && b[b.len() - 1] == b'.'
                && b[b.len() - 2].is_ascii_uppercase()
                && (b.len() == 2 || !b[b.len() - 3].is_ascii_alphabetic());
            // "a.k.a.", "e.g.", "St.": an abbreviation, not a sentence end.
            // (Sliced at a char boundary: the word may end in a curly quote, `now!”`.)
            let dotted = last_word.chars().count() > 2
                && last_word.char_indices().next_back().is_some_and(|(end, _)| last_word[..end].contains('.'));
            let initial = initial || dotted || SOURCE_ABBREVIATIONS.contains(&last_word);
            if initial {
                prev.end = r.end;
                continue;
            }
        }
        out.push(r);
    }
    out
}

/// Splits a sentence range where a period is directly followed by a capitalised word and
/// preceded by a lower-case word, a digit or a closing quote or bracket ("…Philadelphia.First
/// …", "…2013.Reggie …") — texts concatenated without a space. Initials ("U.S.") are left alone.
fn split_glued(text: &str, r: Range<usize>) -> Vec<Range<usize>> {
    let s = &text[r.clone()];
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut start = 0;
    for i in 2..b.len().saturating_sub(2) {
        let before = b[i - 1];
        // "…actor.H. Bruce": an initial after the glue point.
        let initial_after = b[i + 1].is_ascii_uppercase() && b[i + 2] == b'.';
        let word_before = before.is_ascii_lowercase() && b[i - 2].is_ascii_lowercase()
            || before.is_ascii_digit() && b[i - 2].is_ascii_digit()
            || matches!(before, b'"' | b')' | b'\'' | b']');
        if b[i] == b'.' && word_before && b[i + 1].is_ascii_uppercase() && (b[i + 2].is_ascii_alphabetic() || initial_after) {
            out.push(r.start + start..r.start + i + 1);
            start = i + 1;
        }
    }
    out.push(r.start + start..r.end);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn sents(t: &str) -> Vec<&str> {
        sentences(t).into_iter().map(|r| &t[r]).collect()
    }

    #[test]
    fn line_scans_match_the_splits_they_replace() {
        for t in ["", " ", "\n", " \n x", "  x", "x\n", " \t\n", "\u{a0}\u{2003}", "\u{a0}y\n", "a b\n\n", "\r\n"] {
            assert_eq!(blank_to_line_end(t), t.split('\n').next().unwrap_or("").trim().is_empty(), "{t:?}");
            assert_eq!(starts_line(t), t.rsplit('\n').next().is_some_and(|l| l.trim().is_empty()), "{t:?}");
        }
    }

    #[test]
    fn a_long_line_segments_in_linear_time() {
        // 50,000 sentences on one line (2.5 MB): reading to the line's end at each period
        // read 60 GB; now a few seconds at most even in a debug build.
        let text = "The service answers requests within 120 seconds. ".repeat(50_000);
        let t = std::time::Instant::now();
        assert_eq!(sentences(&text).len(), 50_000);
        let text = "Item 12. ".repeat(50_000);
        assert_eq!(sentences(&text).len(), 50_000);
        assert!(t.elapsed().as_secs() < 10, "{:?}", t.elapsed());
    }

    #[test]
    fn casual_sentences_end_after_short_words_that_are_not_abbreviations() {
        let split = |t: &str| -> Vec<String> {
            sentences_in_casual(t, 0..t.len()).into_iter().map(|r| t[r].trim().to_string()).collect()
        };
        assert_eq!(
            split("I do enjoy it. there are three types of accountants."),
            vec!["I do enjoy it.", "there are three types of accountants."]
        );
        assert_eq!(split("i love it too. the color green is calm."), vec!["i love it too.", "the color green is calm."]);
        assert_eq!(split("yea. the word comes from latin."), vec!["yea.", "the word comes from latin."]);
        assert_eq!(
            split("it was made by hbo. emotional pain can hurt."),
            vec!["it was made by hbo.", "emotional pain can hurt."]
        );
        assert_eq!(split("I believe so. it would be hard."), vec!["I believe so.", "it would be hard."]);
        assert_eq!(
            split("it was released in 2010. it was their third album."),
            vec!["it was released in 2010.", "it was their third album."]
        );
        assert_eq!(
            split("it was called \"ok computer\". so i like it."),
            vec!["it was called \"ok computer\".", "so i like it."]
        );
        assert_eq!(split("Steps: 1. open the lid."), vec!["Steps: 1. open the lid."], "one digit numbers an item");
        // Abbreviations still continue the sentence.
        assert_eq!(split("It is on Main St. and 5th ave. in town."), vec!["It is on Main St. and 5th ave. in town."]);
        assert_eq!(split("He was 5 yrs. old then."), vec!["He was 5 yrs. old then."]);
        assert_eq!(
            split("It costs approx. three dollars vs. the usual five."),
            vec!["It costs approx. three dollars vs. the usual five."]
        );
    }

    #[test]
    fn sources_rejoin_initials_and_split_glued_documents() {
        let split = |t: &str, sources| -> Vec<(String, bool)> {
            sentences_with(t, 0..t.len(), Rules { casual: true, sources })
                .into_iter()
                .map(|s| (t[s.range].to_string(), s.glued))
                .collect()
        };
        let t = "It is in Philadelphia.First for Women is a magazine. Ask No. Gift cards work.";
        assert_eq!(
            split(t, true),
            [
                ("It is in Philadelphia.".to_string(), false),
                ("First for Women is a magazine.".to_string(), true),
                ("Ask No. Gift cards work.".to_string(), false)
            ]
        );
        let plain = split(t, false);
        assert_eq!(plain.len(), 3, "{plain:?}");
        assert_eq!(plain[0].0, "It is in Philadelphia.First for Women is a magazine.");
        let formal = sentences_with(t, 0..t.len(), Rules::default());
        assert_eq!(formal.iter().map(|s| s.range.clone()).collect::<Vec<_>>(), sentences(t));
    }

    #[test]
    fn basic_sentences() {
        assert_eq!(sents("Hello world. How are you? Fine!"), vec!["Hello world.", "How are you?", "Fine!"]);
        assert_eq!(sents("It costs $3.50 today. Pi is 3.14."), vec!["It costs $3.50 today.", "Pi is 3.14."]);
        assert_eq!(sents("He said \"stop.\" Then left."), vec!["He said \"stop.\"", "Then left."]);
        assert_eq!(sents("Wait... really?! Yes."), vec!["Wait... really?!", "Yes."]);
        assert_eq!(sents("Wait... Really? Yes."), vec!["Wait...", "Really?", "Yes."]);
    }

    #[test]
    fn units_after_numbers_end_sentences() {
        let t = "Store at 2 °C to 8 °C. Once opened, keep it for 28 days.";
        let got: Vec<&str> = sentences(t).into_iter().map(|r| &t[r]).collect();
        assert_eq!(got, ["Store at 2 °C to 8 °C.", "Once opened, keep it for 28 days."]);
        let t = "Ask J. Smith about it.";
        assert_eq!(sentences(t).len(), 1);
    }

    #[test]
    fn abbreviations_and_initials() {
        assert_eq!(
            sents("Dr. Smith met J. K. Rowling in the U.S. on Monday."),
            vec!["Dr. Smith met J. K. Rowling in the U.S. on Monday."]
        );
        assert_eq!(sents("Use a tool, e.g. a hammer. Then stop."), vec!["Use a tool, e.g. a hammer.", "Then stop."]);
        assert_eq!(sents("Apples, pears, etc. They are fruit."), vec!["Apples, pears, etc.", "They are fruit."]);
        assert_eq!(sents("It weighs approx. three kilos."), vec!["It weighs approx. three kilos."]);
        assert_eq!(sents("See No. 5 below. No. Gift cards are final."), vec!["See No. 5 below.", "No.", "Gift cards are final."]);
    }

    #[test]
    fn lines_lists_and_headings() {
        let t = "# Steps\nDo this:\n1. Open the app\n2. Click save\n- a bullet\nplain wrapped\ncontinuation here.";
        assert_eq!(
            sents(t),
            vec!["# Steps", "Do this:", "1. Open the app", "2. Click save", "- a bullet", "plain wrapped\ncontinuation here."]
        );
        assert_eq!(sents("First para\n\nSecond para"), vec!["First para", "Second para"]);
    }

    #[test]
    fn cjk_and_unicode() {
        assert_eq!(sents("今日は晴れです。明日は雨！"), vec!["今日は晴れです。", "明日は雨！"]);
        assert_eq!(sents("Ça va… Très bien."), vec!["Ça va…", "Très bien."]);
    }

    #[test]
    fn paragraphs_split_on_blank_lines() {
        let t = "  a b\nc  \n\n \n d\n";
        let p: Vec<&str> = paragraphs(t).into_iter().map(|r| &t[r]).collect();
        assert_eq!(p, vec!["a b\nc", "d"]);
    }

    /// The char-by-char scan `sentences_in` replaced (it skips bytes to the next possible
    /// terminator): kept as the reference its output must equal.
    fn sentences_in_reference(text: &str, range: Range<usize>) -> Vec<Range<usize>> {
        let mut out = Vec::new();
        let mut start = range.start;
        let mut iter = text[range.clone()].char_indices().map(|(i, c)| (i + range.start, c)).peekable();
        while let Some((i, c)) = iter.next() {
            let next_i = i + c.len_utf8();
            match c {
                '。' | '！' | '？' => {
                    push_trimmed(text, start..next_i, &mut out);
                    start = next_i;
                }
                '.' | '!' | '?' | '…' => {
                    let mut end = next_i;
                    while let Some(&(j, d)) = iter.peek() {
                        if matches!(d, '.' | '!' | '?' | '…') || is_closer(d) {
                            end = j + d.len_utf8();
                            iter.next();
                        } else {
                            break;
                        }
                    }
                    if end < range.end && !text[end..].starts_with(char::is_whitespace) {
                        continue;
                    }
                    if c == '.' && !period_ends_sentence(text, i, end, range.end) {
                        continue;
                    }
                    push_trimmed(text, start..end, &mut out);
                    start = end;
                }
                '\n' if newline_ends_sentence(text, &range, i) => {
                    push_trimmed(text, start..i, &mut out);
                    start = next_i;
                }
                _ => {}
            }
        }
        push_trimmed(text, start..range.end, &mut out);
        out
    }

    #[test]
    fn byte_scan_matches_the_reference_on_tricky_text() {
        for t in [
            "Dr. Smith paid $3.50. Then… he left!\n\n1. Open it.\n2. Close it: done",
            "他来了。你好！真的？ “Quoted.” (Aside.) e.g. this… and that…… end",
            "No. 5 is fine. No. Gift cards. etc. And Inc. Ltd.\n- item one\n- item two?!",
            "a.b.c. U.S. troops… ’tis”. ok?’ » next",
        ] {
            for (a, b) in [(0, t.len()), (2, t.len() - 1)] {
                if t.is_char_boundary(a) && t.is_char_boundary(b) {
                    assert_eq!(sentences_in(t, a..b), sentences_in_reference(t, a..b), "{t:?}");
                }
            }
        }
    }

    proptest! {
        #[test]
        fn ranges_are_ordered_trimmed_char_boundaries(t in "(\\PC|\n| |\\.|!|\\?){0,80}") {
            let mut last = 0;
            for r in sentences(&t) {
                prop_assert!(r.start >= last && r.start < r.end && r.end <= t.len());
                prop_assert!(t.is_char_boundary(r.start) && t.is_char_boundary(r.end));
                let s = &t[r.clone()];
                prop_assert_eq!(s, s.trim());
                last = r.end;
            }
            for r in paragraphs(&t) {
                prop_assert!(t.is_char_boundary(r.start) && t.is_char_boundary(r.end));
            }
        }

        #[test]
        fn byte_scan_matches_the_reference(
            t in "(\\PC|\n| |\\.|!|\\?|…|。|！|？|”|’|\\)|[0-9]|Dr|etc|No|e\\.g|- |# ){0,80}",
            cut in 0usize..8,
        ) {
            let mut a = cut.min(t.len());
            while !t.is_char_boundary(a) {
                a -= 1;
            }
            prop_assert_eq!(sentences_in(&t, 0..t.len()), sentences_in_reference(&t, 0..t.len()));
            prop_assert_eq!(sentences_in(&t, a..t.len()), sentences_in_reference(&t, a..t.len()));
            prop_assert_eq!(first_sentence_in(&t, a..t.len()), sentences_in_reference(&t, a..t.len()).first().cloned());
        }
    }

    #[test]
    fn markdown_headings() {
        assert_eq!(markdown_heading("## Title ##"), Some((2, "Title")));
        assert_eq!(markdown_heading("   # Indented"), Some((1, "Indented")));
        assert_eq!(markdown_heading("##\tTab"), Some((2, "Tab")));
        assert_eq!(markdown_heading("#nope"), None);
        assert_eq!(markdown_heading("    # code"), None);
        assert_eq!(markdown_heading("####### seven"), None);
        assert_eq!(markdown_heading("## "), None);
        assert_eq!(markdown_heading("## Lumen 4.3 — ünïcode"), Some((2, "Lumen 4.3 — ünïcode")));
    }
}
