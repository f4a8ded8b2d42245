//! Words: tokenisation with byte offsets, and English number words ("twenty-five").

use std::ops::Range;

use num_bigint::BigInt;
use num_rational::BigRational;

/// Byte classes for [`words`]: ASCII letters and digits, the ASCII joiners `'`, `-` and `_`,
/// other ASCII, and non-ASCII bytes (decoded as chars).
const OTHER: u8 = 0;
const ALNUM: u8 = 1;
const JOINER: u8 = 2;
const WIDE: u8 = 3;
static CLASS: [u8; 256] = {
    let mut t = [OTHER; 256];
    let mut i = 0;
    while i < 256 {
        let b = i as u8;
        t[i] = if b >= 0x80 {
            WIDE
        } else if b.is_ascii_alphanumeric() {
            ALNUM
        } else if b == b'\'' || b == b'-' || b == b'_' {
            JOINER
        } else {
            OTHER
        };
        i += 1;
    }
    t
};

/// Word tokens (letters, digits, apostrophes and inner hyphens/underscores) with byte ranges.
pub fn words(text: &str) -> impl Iterator<Item = (Range<usize>, &str)> {
    let b = text.as_bytes();
    let mut pos = 0;
    // One table look-up per ASCII byte: every sentence is tokenised several times per compile.
    std::iter::from_fn(move || {
        // Skip to a word start.
        let start = loop {
            match CLASS[usize::from(*b.get(pos)?)] {
                ALNUM => break pos,
                WIDE => {
                    let c = wide_char_at(text, pos);
                    if c.is_alphanumeric() {
                        break pos;
                    }
                    pos += c.len_utf8();
                }
                _ => pos += 1,
            }
        };
        // Then past letters and digits, and joiners followed by one.
        let mut end = start;
        while let Some(&byte) = b.get(end) {
            match CLASS[usize::from(byte)] {
                ALNUM => end += 1,
                JOINER if next_is_alnum(text, end + 1) => end += 1,
                WIDE => {
                    let c = wide_char_at(text, end);
                    if c.is_alphanumeric() || (c == '’' && next_is_alnum(text, end + c.len_utf8())) {
                        end += c.len_utf8();
                    } else {
                        break;
                    }
                }
                _ => break,
            }
        }
        pos = end;
        Some((start..end, &text[start..end]))
    })
}

/// The non-ASCII character starting at byte `i` (a char boundary inside `text`).
#[inline]
fn wide_char_at(text: &str, i: usize) -> char {
    text[i..].chars().next().unwrap_or('\0')
}

fn next_is_alnum(text: &str, i: usize) -> bool {
    match text.as_bytes().get(i).map(|&b| CLASS[usize::from(b)]) {
        Some(ALNUM) => true,
        Some(WIDE) => wide_char_at(text, i).is_alphanumeric(),
        _ => false,
    }
}

const UNITS: [&str; 20] = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
];
const TENS: [&str; 8] = ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"];

fn small(w: &str) -> Option<u64> {
    if let Some(i) = UNITS.iter().position(|u| *u == w) {
        return Some(i as u64);
    }
    if let Some(i) = TENS.iter().position(|t| *t == w) {
        return Some(20 + 10 * i as u64);
    }
    match w {
        "a" | "an" => None,
        "dozen" => Some(12),
        "once" => Some(1),
        "twice" => Some(2),
        "thrice" => Some(3),
        _ => {
            let (t, u) = w.split_once('-')?;
            let tv = TENS.iter().position(|x| *x == t)? as u64 * 10 + 20;
            let uv = UNITS.iter().position(|x| *x == u).filter(|&i| (1..10).contains(&i))? as u64;
            Some(tv + uv)
        }
    }
}

/// A number written in words, with its byte range.
#[derive(Debug, Clone, PartialEq)]
pub struct NumberWord {
    /// Byte range in the text.
    pub range: Range<usize>,
    /// Its value.
    pub value: BigRational,
}

/// Finds numbers written in words: "three", "twenty-five", "one hundred and five",
/// "two thousand", "a dozen", "half" (0.5), "twice" (2).
pub fn find_number_words(text: &str) -> Vec<NumberWord> {
    let toks: Vec<(Range<usize>, String)> = words(text).map(|(r, w)| (r, w.to_lowercase())).collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        let w = toks[i].1.as_str();
        if w == "half" {
            out.push(NumberWord { range: toks[i].0.clone(), value: BigRational::new(BigInt::from(1), BigInt::from(2)) });
            i += 1;
            continue;
        }
        if (w == "a" || w == "an") && toks.get(i + 1).is_some_and(|t| t.1 == "dozen") {
            out.push(NumberWord {
                range: toks[i].0.start..toks[i + 1].0.end,
                value: BigRational::from_integer(BigInt::from(12)),
            });
            i += 2;
            continue;
        }
        let Some(first) = small(w) else {
            // "two-year", "twenty-five-day": a number word glued to a unit by a hyphen.
            if let Some((head, tail)) = w.rsplit_once('-')
                && tail.chars().all(char::is_alphabetic)
                && let Some(v) = small(head)
            {
                let r = &toks[i].0;
                out.push(NumberWord { range: r.start..r.start + head.len(), value: BigRational::from_integer(BigInt::from(v)) });
            }
            i += 1;
            continue;
        };
        let start = toks[i].0.start;
        let mut end = toks[i].0.end;
        let mut total: u64 = 0;
        let mut current = first;
        let mut j = i + 1;
        while j < toks.len() {
            let t = toks[j].1.as_str();
            let mult = match t {
                "hundred" => Some(100),
                "thousand" => Some(1000),
                "million" => Some(1_000_000),
                "billion" => Some(1_000_000_000),
                _ => None,
            };
            if let Some(m) = mult {
                if m == 100 {
                    current *= 100;
                } else {
                    total += current * m;
                    current = 0;
                }
                end = toks[j].0.end;
                j += 1;
                continue;
            }
            if t == "and"
                && toks.get(j + 1).is_some_and(|n| small(&n.1).is_some())
                && current % 100 == 0
                && (current > 0 || total > 0)
            {
                j += 1;
                continue;
            }
            if let Some(v) = small(t)
                && (current % 100 == 0 && (current > 0 || total > 0))
                && v < 100
            {
                current += v;
                end = toks[j].0.end;
                j += 1;
                continue;
            }
            break;
        }
        out.push(NumberWord { range: start..end, value: BigRational::from_integer(BigInt::from(total + current)) });
        i = j;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The previous, char-by-char tokeniser: `words` must split exactly as it did.
    fn words_reference(text: &str) -> Vec<(Range<usize>, &str)> {
        let mut iter = text.char_indices().peekable();
        let mut out = Vec::new();
        loop {
            let start = loop {
                match iter.next() {
                    Some((i, c)) if c.is_alphanumeric() => break Some(i),
                    Some(_) => {}
                    None => break None,
                }
            };
            let Some(start) = start else { return out };
            let mut end = text.len();
            while let Some(&(i, c)) = iter.peek() {
                let joiner = (c == '\'' || c == '’' || c == '-' || c == '_')
                    && text[i + c.len_utf8()..].chars().next().is_some_and(char::is_alphanumeric);
                if c.is_alphanumeric() || joiner {
                    iter.next();
                } else {
                    end = i;
                    break;
                }
            }
            out.push((start..end, &text[start..end]));
        }
    }

    proptest! {
        #[test]
        fn words_match_the_char_by_char_tokeniser(t in "[a-zA-Z0-9 '’_\\-.,éçã日本\u{0301}\u{00a0}]{0,40}|\\PC{0,30}") {
            let got: Vec<(Range<usize>, &str)> = words(&t).collect();
            prop_assert_eq!(got, words_reference(&t));
        }
    }

    #[test]
    fn tokenises_with_offsets() {
        let t = "Don't stop—it's well-known_v2!";
        let w: Vec<&str> = words(t).map(|(_, w)| w).collect();
        assert_eq!(w, vec!["Don't", "stop", "it's", "well-known_v2"]);
        for (r, s) in words(t) {
            assert_eq!(&t[r], s);
        }
    }

    #[test]
    fn number_words() {
        let vals = |t: &str| {
            find_number_words(t)
                .into_iter()
                .map(|n| (t[n.range.clone()].to_string(), n.value.to_integer().to_string()))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            vals("three eggs and twenty-five cents"),
            vec![("three".into(), "3".into()), ("twenty-five".into(), "25".into())]
        );
        assert_eq!(vals("one hundred and five people"), vec![("one hundred and five".into(), "105".into())]);
        assert_eq!(vals("two thousand three hundred"), vec![("two thousand three hundred".into(), "2300".into())]);
        assert_eq!(vals("a dozen eggs, twice"), vec![("a dozen".into(), "12".into()), ("twice".into(), "2".into())]);
        assert_eq!(vals("me and my partner"), Vec::<(String, String)>::new());
        assert_eq!(vals("a two-year warranty"), vec![("two".into(), "2".into())]);
        assert_eq!(vals("a well-known fact"), Vec::<(String, String)>::new());
    }
}
