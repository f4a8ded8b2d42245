//! Dates and times in prose: ISO and numeric forms, month names, weekdays, relative days,
//! bare years in context, and clock times. Each mention keeps what it pins down.

use std::ops::Range;
use std::sync::LazyLock;

use crate::pattern::compile as re;
use regex::Regex;

/// What kind of temporal expression a mention is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DateKind {
    /// A calendar date (possibly partial: month and day without year, month and year).
    Date,
    /// A year on its own ("in 1991").
    Year,
    /// A weekday name.
    Weekday,
    /// today / yesterday / tomorrow / tonight.
    Relative,
    /// A clock time.
    Time,
}

/// A temporal mention.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DateMention {
    /// Byte range in the text.
    pub range: Range<usize>,
    /// Kind of expression.
    pub kind: DateKind,
    /// Year, when stated.
    pub year: Option<i32>,
    /// Month 1–12, when stated.
    pub month: Option<u8>,
    /// Day 1–31, when stated.
    pub day: Option<u8>,
    /// Weekday 0 = Monday … 6 = Sunday, when stated.
    pub weekday: Option<u8>,
    /// Minutes after midnight, for times.
    pub minute_of_day: Option<u16>,
}

impl DateMention {
    /// `YYYY-MM-DD`, `YYYY-MM`, `--MM-DD` or `YYYY` for what is known; `None` otherwise.
    pub fn iso(&self) -> Option<String> {
        match (self.year, self.month, self.day) {
            (Some(y), Some(m), Some(d)) => Some(format!("{y:04}-{m:02}-{d:02}")),
            (Some(y), Some(m), None) => Some(format!("{y:04}-{m:02}")),
            (None, Some(m), Some(d)) => Some(format!("--{m:02}-{d:02}")),
            // XML Schema's gMonth.
            (None, Some(m), None) => Some(format!("--{m:02}")),
            (Some(y), None, None) => Some(format!("{y:04}")),
            _ => None,
        }
    }
}

const MONTHS: [&str; 12] =
    ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"];
const WEEKDAYS: [&str; 7] = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"];

/// True for a month or weekday name as written in running text, capitalised ("March",
/// "Friday"): a date word, not a proper name. All-caps "MAY" is not one.
pub fn is_calendar_name(word: &str) -> bool {
    let mut chars = word.chars();
    let capitalised = chars.next().is_some_and(char::is_uppercase) && chars.all(char::is_lowercase);
    // Every name is ASCII and at most 9 bytes; a word with any other character cannot be one
    // (the only non-ASCII letter that lower-cases to ASCII is the Kelvin sign, to `k`, which
    // no name contains). Lower-cased on the stack: this runs once per capitalised word.
    if !capitalised || !word.is_ascii() || word.len() > 9 {
        return false;
    }
    let mut buf = [0u8; 9];
    let lower = &mut buf[..word.len()];
    lower.copy_from_slice(word.as_bytes());
    lower.make_ascii_lowercase();
    MONTHS.iter().chain(WEEKDAYS.iter()).any(|n| n.as_bytes() == &*lower)
}

/// Month number (1–12) of a month name or common abbreviation.
pub fn month_number(word: &str) -> Option<u8> {
    let w = word.trim_end_matches('.').to_lowercase();
    if w.len() < 3 {
        return None;
    }
    MONTHS
        .iter()
        .position(|m| *m == w || (w.len() >= 3 && m.starts_with(&w) && (w.len() == 3 || w == "sept")))
        .map(|i| i as u8 + 1)
}

const MONTH_RE: &str = r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?";

static ISO: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?-u:\b)(\d{4})[-/](\d{1,2})[-/](\d{1,2})(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?(?-u:\b)")
});
static US: LazyLock<Regex> = LazyLock::new(|| re(r"(?-u:\b)(\d{1,2})/(\d{1,2})/(\d{4})(?-u:\b)"));
/// Month-name forms in one pass: "March 3(, 2024)", "3(rd) (of) March( 2024)", "March 2024".
static MONTH_FORMS: LazyLock<Regex> = LazyLock::new(|| {
    re(&format!(
        r"(?i)(?-u:\b)(?:(?P<m1>{MONTH_RE})\s+(?P<d1>\d{{1,2}})(?:st|nd|rd|th)?(?-u:\b)(?:,?\s+(?P<y1>\d{{4}})(?-u:\b))?|(?P<d2>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<m2>{MONTH_RE})(?:,?\s+(?P<y2>\d{{4}})(?-u:\b))?|(?P<m3>{MONTH_RE})\s+(?P<y3>\d{{4}})(?-u:\b))"
    ))
});
/// A month on its own after a word that places something in time ("born in December",
/// "during March"). The month must be capitalised: "in march" is rarely the month.
static MONTH_ALONE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?-u:\b)(?i:in|of|during|since|until|through|by|from|early|late|mid|every|each|this|last|next)\s+(?P<m>January|February|March|April|May|June|July|August|September|October|November|December)(?-u:\b)",
    )
});
/// Weekdays and relative days in one pass.
static DAY_WORDS: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)(?-u:\b)(?:(?P<w>monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?|(?P<r>today|yesterday|tomorrow|tonight))(?-u:\b)",
    )
});
static TIME: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)(?-u:\b)(\d{1,2}):(\d{2})(?::\d{2})?(?:\s?([ap])\.?m\.?)?(?:\s?(?:utc|gmt|[ecmp][sd]t|cet|cest))?(?-u:\b)|(?-u:\b)(\d{1,2})\s?([ap])\.?m(?-u:\b)\.?",
    )
});

fn valid(y: Option<i32>, m: u8, d: u8) -> bool {
    if !(1..=12).contains(&m) || d == 0 {
        return false;
    }
    let leap = y.is_none_or(|y| (y % 4 == 0 && y % 100 != 0) || y % 400 == 0);
    let max = match m {
        2 => 28 + u8::from(leap),
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    };
    d <= max
}

/// Finds temporal mentions, in order, without overlaps (longer, more specific forms win).
/// Month and weekday names and relative-day words, to skip regexes that cannot match.
/// The first entries of `NAMES` are month names; the rest are day words.
const MONTH_NAME_COUNT: usize = 24;

static NAMES: LazyLock<aho_corasick::AhoCorasick> = LazyLock::new(|| {
    aho_corasick::AhoCorasick::builder()
        .ascii_case_insensitive(true)
        .match_kind(aho_corasick::MatchKind::LeftmostLongest)
        .build([
            "jan",
            "feb",
            "mar",
            "apr",
            "may",
            "jun",
            "jul",
            "aug",
            "sep",
            "sept",
            "oct",
            "nov",
            "dec",
            "january",
            "february",
            "march",
            "april",
            "june",
            "july",
            "august",
            "september",
            "october",
            "november",
            "december",
            "monday",
            "tuesday",
            "wednesday",
            "thursday",
            "friday",
            "saturday",
            "sunday",
            "mondays",
            "tuesdays",
            "wednesdays",
            "thursdays",
            "fridays",
            "saturdays",
            "sundays",
            "today",
            "yesterday",
            "tomorrow",
            "tonight",
        ])
        .unwrap_or_else(|e| panic!("date names: {e}"))
});

/// An ISO (`2024-03-05`, `2024/3/5`) or US (`3/5/2024`) date shape somewhere in the bytes.
fn has_numeric_date_shape(b: &[u8]) -> bool {
    let runs = |mut i: usize| -> (usize, usize) {
        let s = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        (s, i)
    };
    let mut i = 0;
    while i < b.len() {
        if !b[i].is_ascii_digit() || (i > 0 && b[i - 1].is_ascii_digit()) {
            i += 1;
            continue;
        }
        let (s1, e1) = runs(i);
        if e1 < b.len() && matches!(b[e1], b'-' | b'/') {
            let sep = b[e1];
            let (s2, e2) = runs(e1 + 1);
            if e2 > s2 && e2 - s2 <= 2 && e2 < b.len() && b[e2] == sep {
                let (s3, e3) = runs(e2 + 1);
                let (l1, l3) = (e1 - s1, e3 - s3);
                if (l1 == 4 && (1..=2).contains(&l3)) || (sep == b'/' && l1 <= 2 && l3 == 4) {
                    return true;
                }
            }
        }
        i = e1.max(i + 1);
    }
    false
}

/// Years after a preposition ("in 1991", "since 2020"): 4-digit runs checked by hand.
fn find_years(text: &str, out: &mut Vec<DateMention>) {
    const BEFORE: [&str; 13] =
        ["in", "since", "by", "from", "until", "till", "before", "after", "of", "during", "year", "circa", "c."];
    let b = text.as_bytes();
    let mut i = 0;
    while i + 4 <= b.len() {
        if !b[i].is_ascii_digit() || (i > 0 && b[i - 1].is_ascii_alphanumeric()) {
            i += 1;
            continue;
        }
        let mut e = i;
        while e < b.len() && b[e].is_ascii_digit() {
            e += 1;
        }
        let bounded_after = e == b.len() || !(b[e].is_ascii_alphanumeric() || b[e] == b'_');
        let year = &text[i..e];
        if e - i == 4 && bounded_after && (year.starts_with('1') || year.starts_with("20")) {
            let before = text[..i].trim_end_matches([' ', '\t', '\n']);
            let ws = text[..i].len() - before.len();
            let word_start = before
                .char_indices()
                .rev()
                .find(|(_, c)| !(c.is_ascii_alphabetic() || *c == '.'))
                .map_or(0, |(p, c)| p + c.len_utf8());
            let word = &before[word_start..];
            if ws > 0 && BEFORE.iter().any(|w| word.eq_ignore_ascii_case(w)) {
                let y = year.parse().ok();
                out.push(DateMention {
                    range: i..e,
                    kind: DateKind::Year,
                    year: y,
                    month: None,
                    day: None,
                    weekday: None,
                    minute_of_day: None,
                });
            }
        }
        i = e;
    }
}

fn has_run_of_digits(text: &str, n: usize) -> bool {
    let mut run = 0;
    for b in text.bytes() {
        if b.is_ascii_digit() {
            run += 1;
            if run >= n {
                return true;
            }
        } else {
            run = 0;
        }
    }
    false
}

/// Every date mentioned in `text` (absolute, month-and-year, relative), in order of position.
pub fn find_dates(text: &str) -> Vec<DateMention> {
    let mut found: Vec<DateMention> = Vec::new();
    // A name counts only as a whole word ("mar" in "market" does not).
    // Whole-word hits only ("mar" in "market" does not count); months and day words apart.
    let (mut months, mut days) = (false, false);
    for m in NAMES.find_iter(text) {
        let before = text[..m.start()].chars().next_back().is_none_or(|c| !c.is_alphabetic());
        let after = text[m.end()..].chars().next().is_none_or(|c| !c.is_alphabetic());
        if before && after {
            if m.pattern().as_usize() < MONTH_NAME_COUNT {
                months = true;
            } else {
                days = true;
            }
        }
    }
    let year_digits = has_run_of_digits(text, 4);
    let numeric = year_digits && has_numeric_date_shape(text.as_bytes());
    let b = text.as_bytes();
    // `h:mm`, or a digit then (a space and) am / pm / a.m. / p.m.
    let clock = b.windows(3).any(|w| w[1] == b':' && w[0].is_ascii_digit() && w[2].is_ascii_digit())
        || b.windows(4).any(|w| {
            w[0].is_ascii_digit() && {
                let r = if w[1] == b' ' { &w[2..] } else { &w[1..3] };
                matches!(r[0] | 0x20, b'a' | b'p') && matches!(r[1] | 0x20, b'm' | b'.')
            }
        });
    let mk = |range: Range<usize>, kind, year, month, day| DateMention {
        range,
        kind,
        year,
        month,
        day,
        weekday: None,
        minute_of_day: None,
    };
    // Each gate is checked before its scan (a filter on the matches would run the regex anyway).
    for c in numeric.then(|| ISO.captures_iter(text)).into_iter().flatten() {
        let (Some(a), Some(y), Some(m), Some(d)) = (c.get(0), c.get(1), c.get(2), c.get(3)) else { continue };
        let (y, m, d) = (y.as_str().parse().ok(), m.as_str().parse().unwrap_or(0), d.as_str().parse().unwrap_or(0));
        if valid(y, m, d) {
            found.push(mk(a.range(), DateKind::Date, y, Some(m), Some(d)));
        }
    }
    for c in numeric.then(|| US.captures_iter(text)).into_iter().flatten() {
        let (Some(a), Some(m), Some(d), Some(y)) = (c.get(0), c.get(1), c.get(2), c.get(3)) else { continue };
        let (y, m, d) = (y.as_str().parse().ok(), m.as_str().parse().unwrap_or(0), d.as_str().parse().unwrap_or(0));
        if valid(y, m, d) {
            found.push(mk(a.range(), DateKind::Date, y, Some(m), Some(d)));
        }
    }
    for c in months.then(|| MONTH_FORMS.captures_iter(text)).into_iter().flatten() {
        let Some(a) = c.get(0) else { continue };
        let (mname, day, year) = match (c.name("m1"), c.name("m2"), c.name("m3")) {
            (Some(m), _, _) => (m, c.name("d1"), c.name("y1")),
            (_, Some(m), _) => (m, c.name("d2"), c.name("y2")),
            (_, _, Some(m)) => (m, None, c.name("y3")),
            _ => continue,
        };
        // "may 5" is usually the verb: require a capital M for the bare word "may".
        if mname.as_str().eq_ignore_ascii_case("may") && !mname.as_str().starts_with('M') {
            continue;
        }
        let Some(m) = month_number(mname.as_str()) else { continue };
        let y = year.and_then(|y| y.as_str().parse().ok());
        match day.map(|d| d.as_str().parse::<u8>().unwrap_or(0)) {
            Some(d) if valid(y, m, d) => found.push(mk(a.range(), DateKind::Date, y, Some(m), Some(d))),
            Some(_) => {}
            None => found.push(mk(a.range(), DateKind::Date, y, Some(m), None)),
        }
    }
    // A longer form at the same place wins below ("in December 1974" is December 1974).
    for c in months.then(|| MONTH_ALONE.captures_iter(text)).into_iter().flatten() {
        let Some(m) = c.name("m") else { continue };
        found.push(mk(m.range(), DateKind::Date, None, month_number(m.as_str()), None));
    }
    for a in days.then(|| DAY_WORDS.find_iter(text)).into_iter().flatten() {
        let w = a.as_str().trim_end_matches(['s', 'S']);
        match WEEKDAYS.iter().position(|x| x.eq_ignore_ascii_case(w)) {
            Some(i) => {
                let mut d = mk(a.range(), DateKind::Weekday, None, None, None);
                d.weekday = Some(i as u8);
                found.push(d);
            }
            None => found.push(mk(a.range(), DateKind::Relative, None, None, None)),
        }
    }
    if year_digits {
        find_years(text, &mut found);
    }
    for c in clock.then(|| TIME.captures_iter(text)).into_iter().flatten() {
        let Some(a) = c.get(0) else { continue };
        let (h, m, ampm) = match (c.get(1), c.get(2), c.get(4)) {
            (Some(h), Some(m), _) => (h.as_str().parse::<u16>().unwrap_or(99), m.as_str().parse::<u16>().unwrap_or(99), c.get(3)),
            (_, _, Some(h)) => (h.as_str().parse::<u16>().unwrap_or(99), 0, c.get(5)),
            _ => continue,
        };
        let h = match ampm.map(|x| x.as_str().to_ascii_lowercase()) {
            Some(p) if h == 12 => {
                if p == "a" {
                    0
                } else {
                    12
                }
            }
            Some(p) if p == "p" => h + 12,
            _ => h,
        };
        if h < 24 && m < 60 {
            let mut d = mk(a.range(), DateKind::Time, None, None, None);
            d.minute_of_day = Some(h * 60 + m);
            found.push(d);
        }
    }
    // Keep the earliest-starting, then longest, mention; drop overlaps.
    found.sort_by(|a, b| a.range.start.cmp(&b.range.start).then(b.range.end.cmp(&a.range.end)));
    let mut out: Vec<DateMention> = Vec::with_capacity(found.len());
    for d in found {
        if out.last().is_some_and(|p| d.range.start < p.range.end) {
            continue;
        }
        out.push(d);
    }
    share_range_years(text, &mut out);
    out
}

/// "from 23 February to 6 March 2011", "between May 5 and June 3, 2010": the range's first
/// date is written without the year its end states, and is in that year when it does not fall
/// after the end ("from December 20 to January 5, 2011" starts in another year, left unstated).
fn share_range_years(text: &str, dates: &mut [DateMention]) {
    for i in 1..dates.len() {
        let (head, tail) = dates.split_at_mut(i);
        let (first, end) = (&mut head[i - 1], &tail[0]);
        let calendar = |d: &DateMention| d.kind == DateKind::Date && d.month.is_some();
        if !(calendar(first) && calendar(end)) || first.year.is_some() || end.year.is_none() {
            continue;
        }
        let between = text.get(first.range.end..end.range.start).unwrap_or("").trim();
        let joins = matches!(between.to_ascii_lowercase().as_str(), "to" | "until" | "till" | "through" | "thru" | "and")
            || matches!(between, "-" | "–" | "—");
        let fits = first.day.is_none_or(|d| first.month.is_some_and(|m| valid(end.year, m, d)));
        if joins && fits && (first.month, first.day.unwrap_or(1)) <= (end.month, end.day.unwrap_or(31)) {
            first.year = end.year;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn isos(t: &str) -> Vec<(String, Option<String>)> {
        find_dates(t).into_iter().map(|d| (t[d.range.clone()].to_string(), d.iso())).collect()
    }

    #[test]
    fn calendar_forms() {
        assert_eq!(isos("Due 2026-12-18."), vec![("2026-12-18".into(), Some("2026-12-18".into()))]);
        assert_eq!(isos("on December 18th, 2026"), vec![("December 18th, 2026".into(), Some("2026-12-18".into()))]);
        assert_eq!(isos("on 18 December 2026"), vec![("18 December 2026".into(), Some("2026-12-18".into()))]);
        assert_eq!(isos("on Dec. 18"), vec![("Dec. 18".into(), Some("--12-18".into()))]);
        assert_eq!(isos("12/18/2026"), vec![("12/18/2026".into(), Some("2026-12-18".into()))]);
        assert_eq!(isos("in March 2024"), vec![("March 2024".into(), Some("2024-03".into()))]);
        assert_eq!(isos("first released in 1991."), vec![("1991".into(), Some("1991".into()))]);
        assert_eq!(isos("born in December"), vec![("December".into(), Some("--12".into()))]);
        assert_eq!(isos("born in December 1974"), vec![("December 1974".into(), Some("1974-12".into()))]);
        assert!(isos("the march in may").is_empty(), "lower case: the walk and the verb");
        assert!(isos("2023-02-30").is_empty());
    }

    proptest::proptest! {
        #[test]
        fn never_panics_and_ranges_are_char_boundaries(t in "(\\PC|[0-9/:-]|in |may |March |pm ){0,40}") {
            for d in find_dates(&t) {
                proptest::prop_assert!(t.is_char_boundary(d.range.start) && t.is_char_boundary(d.range.end));
            }
        }
    }

    #[test]
    fn years_need_a_preposition_and_unicode_is_safe() {
        assert_eq!(isos("costs €1999 in 2024"), vec![("2024".into(), Some("2024".into()))]);
        assert!(isos("16-3-4 = 9 and 1000 apples").is_empty());
    }

    #[test]
    fn calendar_names() {
        for (w, want) in [
            ("March", true),
            ("Friday", true),
            ("September", true),
            ("MAY", false),
            ("may", false),
            ("Mayday", false),
            ("Márch", false),
            ("Wednesdays", false),
            ("", false),
            ("Jan", false),
        ] {
            assert_eq!(is_calendar_name(w), want, "{w:?}");
        }
    }

    #[test]
    fn a_range_shares_its_end_year() {
        assert_eq!(
            isos("took place from 23 February to 6 March 2011 in Oslo"),
            vec![("23 February".into(), Some("2011-02-23".into())), ("6 March 2011".into(), Some("2011-03-06".into()))]
        );
        assert_eq!(isos("between May 5 and June 3, 2010")[0].1.as_deref(), Some("2010-05-05"));
        assert_eq!(isos("March 3 – March 9, 2024")[0].1.as_deref(), Some("2024-03-03"));
        // Starts in the year before the one stated; which one is not said.
        assert_eq!(isos("from December 20 to January 5, 2011")[0].1.as_deref(), Some("--12-20"));
        // 29 February is no day of 2011.
        assert_eq!(isos("from February 29 to March 3, 2011")[0].1.as_deref(), Some("--02-29"));
        // Multi-byte text between and around the dates.
        assert_eq!(isos("«from May 5 – June 3, 2010»")[0].1.as_deref(), Some("2010-05-05"));
        assert_eq!(isos("from May 5 à June 3, 2010")[0].1.as_deref(), Some("--05-05"));
        // Not a range: two dates in a list.
        assert_eq!(isos("on May 5, and on June 3, 2010")[0].1.as_deref(), Some("--05-05"));
    }

    #[test]
    fn may_the_verb_is_not_a_month() {
        assert!(isos("it may 5 times").is_empty());
        assert_eq!(isos("on May 5").len(), 1);
    }

    #[test]
    fn weekdays_relative_and_times() {
        let d = find_dates("Delivery is expected by Friday, shipped yesterday at 2:30 pm UTC or 14:00.");
        let kinds: Vec<DateKind> = d.iter().map(|x| x.kind).collect();
        assert_eq!(kinds, vec![DateKind::Weekday, DateKind::Relative, DateKind::Time, DateKind::Time]);
        assert_eq!(d[0].weekday, Some(4));
        assert_eq!(d[2].minute_of_day, Some(14 * 60 + 30));
        assert_eq!(d[3].minute_of_day, Some(14 * 60));
    }
}
