//! Dates and times in prose: ISO and numeric forms, month names, weekdays, relative days,
//! bare years in context, and clock times. Each mention keeps what it pins down.

use std::ops::Range;
use std::sync::LazyLock;

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
            (Some(y), None, None) => Some(format!("{y:04}")),
            _ => None,
        }
    }
}

const MONTHS: [&str; 12] =
    ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"];
const WEEKDAYS: [&str; 7] = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"];

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

fn re(p: &str) -> Regex {
    Regex::new(p).unwrap_or_else(|e| panic!("date regex {p}: {e}"))
}

const MONTH_RE: &str = r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?";

static ISO: LazyLock<Regex> = LazyLock::new(|| {
    re(r"\b(\d{4})[-/](\d{1,2})[-/](\d{1,2})(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?\b")
});
static US: LazyLock<Regex> = LazyLock::new(|| re(r"\b(\d{1,2})/(\d{1,2})/(\d{4})\b"));
static MONTH_DAY: LazyLock<Regex> =
    LazyLock::new(|| re(&format!(r"(?i)\b({MONTH_RE})\s+(\d{{1,2}})(?:st|nd|rd|th)?\b(?:,?\s+(\d{{4}})\b)?")));
static DAY_MONTH: LazyLock<Regex> =
    LazyLock::new(|| re(&format!(r"(?i)\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({MONTH_RE})(?:,?\s+(\d{{4}})\b)?")));
static MONTH_YEAR: LazyLock<Regex> = LazyLock::new(|| re(&format!(r"(?i)\b({MONTH_RE})\s+(\d{{4}})\b")));
static WEEKDAY: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?\b"));
static RELATIVE: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)\b(today|yesterday|tomorrow|tonight)\b"));
static YEAR: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?i)\b(?:in|since|by|from|until|till|before|after|of|during|year|circa|c\.)\s+((?:1[0-9]|20)[0-9]{2})\b")
});
static TIME: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(\d{1,2}):(\d{2})(?::\d{2})?(?:\s?([ap])\.?m\.?)?(?:\s?(?:utc|gmt|[ecmp][sd]t|cet|cest))?\b|\b(\d{1,2})\s?([ap])\.?m\b\.?",
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
pub fn find_dates(text: &str) -> Vec<DateMention> {
    let mut found: Vec<DateMention> = Vec::new();
    let mk = |range: Range<usize>, kind, year, month, day| DateMention {
        range,
        kind,
        year,
        month,
        day,
        weekday: None,
        minute_of_day: None,
    };
    for c in ISO.captures_iter(text) {
        let (Some(a), Some(y), Some(m), Some(d)) = (c.get(0), c.get(1), c.get(2), c.get(3)) else { continue };
        let (y, m, d) = (y.as_str().parse().ok(), m.as_str().parse().unwrap_or(0), d.as_str().parse().unwrap_or(0));
        if valid(y, m, d) {
            found.push(mk(a.range(), DateKind::Date, y, Some(m), Some(d)));
        }
    }
    for c in US.captures_iter(text) {
        let (Some(a), Some(m), Some(d), Some(y)) = (c.get(0), c.get(1), c.get(2), c.get(3)) else { continue };
        let (y, m, d) = (y.as_str().parse().ok(), m.as_str().parse().unwrap_or(0), d.as_str().parse().unwrap_or(0));
        if valid(y, m, d) {
            found.push(mk(a.range(), DateKind::Date, y, Some(m), Some(d)));
        }
    }
    for (r, month_first) in [(&*MONTH_DAY, true), (&*DAY_MONTH, false)] {
        for c in r.captures_iter(text) {
            let (Some(a), Some(g1), Some(g2)) = (c.get(0), c.get(1), c.get(2)) else { continue };
            let (mname, dstr) = if month_first { (g1.as_str(), g2.as_str()) } else { (g2.as_str(), g1.as_str()) };
            let (Some(m), Ok(d)) = (month_number(mname), dstr.parse::<u8>()) else { continue };
            // "may 5" is usually the verb: require a capital M for the bare word "may".
            if mname.eq_ignore_ascii_case("may") && !mname.starts_with('M') {
                continue;
            }
            let y = c.get(3).and_then(|y| y.as_str().parse().ok());
            if valid(y, m, d) {
                found.push(mk(a.range(), DateKind::Date, y, Some(m), Some(d)));
            }
        }
    }
    for c in MONTH_YEAR.captures_iter(text) {
        let (Some(a), Some(mn), Some(y)) = (c.get(0), c.get(1), c.get(2)) else { continue };
        if mn.as_str().eq_ignore_ascii_case("may") && !mn.as_str().starts_with('M') {
            continue;
        }
        if let Some(m) = month_number(mn.as_str()) {
            found.push(mk(a.range(), DateKind::Date, y.as_str().parse().ok(), Some(m), None));
        }
    }
    for c in WEEKDAY.captures_iter(text) {
        let (Some(a), Some(w)) = (c.get(0), c.get(1)) else { continue };
        let mut d = mk(a.range(), DateKind::Weekday, None, None, None);
        d.weekday = WEEKDAYS.iter().position(|x| x.eq_ignore_ascii_case(w.as_str())).map(|i| i as u8);
        found.push(d);
    }
    for c in RELATIVE.captures_iter(text) {
        if let Some(a) = c.get(0) {
            found.push(mk(a.range(), DateKind::Relative, None, None, None));
        }
    }
    for c in YEAR.captures_iter(text) {
        let Some(y) = c.get(1) else { continue };
        found.push(mk(y.range(), DateKind::Year, y.as_str().parse().ok(), None, None));
    }
    for c in TIME.captures_iter(text) {
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
    out
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
        assert!(isos("2023-02-30").is_empty());
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
