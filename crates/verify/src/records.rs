//! Structured sources. A source whose text is a JSON record (an object, an array of objects,
//! or JSON Lines of objects) is read field by field, not as a bag of words: each leaf field
//! becomes one sentence whose range is the field's own text in the source (so quotes stay
//! exact) and whose analysis reads a plain rendering of its typed value.
//!
//! The rendering is what makes the value count: `"OutdoorSeating": false` reads "no outdoor
//! seating" (a negation the claim's "offers outdoor seating" conflicts with), `null` and
//! "None" read nothing (an empty field supports nothing), `"11:0-22:0"` under `Monday` reads
//! "Monday: from 11:00 to 22:00" (times the date reader compares), lists read as lists.

use std::ops::Range;

use jsonc_parser::ast::{ObjectProp, Value};
use jsonc_parser::{CollectOptions, ParseOptions};

/// One leaf field: its text in the source and the sentence it renders to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Field {
    /// Byte range of `"key": value` in the source text.
    pub range: Range<usize>,
    /// The field as a sentence.
    pub text: String,
    /// The first field of a record after the first: windows do not run across records.
    pub new_record: bool,
    /// A long string of prose (a description): `range` is its inside, read as sentences.
    pub prose: bool,
}

/// A string value longer than this that holds a sentence end is prose, read as sentences.
const PROSE: usize = 200;

/// Parent keys that only group fields ("attributes", "details"): left out of the field's
/// words, which a claim never says.
const CONTAINERS: &[&str] = &["attributes", "properties", "details", "info", "data", "metadata", "fields", "record"];

/// The fields of `text` when it is a JSON record, an array of records or JSON Lines of
/// records; `None` for any other text (read as prose).
pub(crate) fn fields(text: &str) -> Option<Vec<Field>> {
    let trimmed = text.trim_start();
    if !(trimmed.starts_with('{') || trimmed.starts_with('[')) {
        return None;
    }
    if let Some(value) = parse(text) {
        let records: Vec<&Value<'_>> = match &value {
            Value::Object(_) => vec![&value],
            Value::Array(a) if !a.elements.is_empty() && a.elements.iter().all(|e| matches!(e, Value::Object(_))) => {
                a.elements.iter().collect()
            }
            _ => return None,
        };
        let mut out = Vec::new();
        for (i, r) in records.into_iter().enumerate() {
            push_record(text, 0, r, i > 0, &mut out);
        }
        return Some(out);
    }
    json_lines(text)
}

/// JSON Lines: every non-blank line an object.
fn json_lines(text: &str) -> Option<Vec<Field>> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut records = 0;
    for line in text.split_inclusive('\n') {
        let offset = start;
        start += line.len();
        if line.trim().is_empty() {
            continue;
        }
        let value = parse(line)?;
        if !matches!(value, Value::Object(_)) {
            return None;
        }
        push_record(line, offset, &value, records > 0, &mut out);
        records += 1;
    }
    (records > 0).then_some(out)
}

fn parse(text: &str) -> Option<Value<'_>> {
    // Comments, trailing commas and single-quoted strings are accepted (pasted and
    // Python-printed records); unquoted keys and missing commas are not: text that needs
    // them is prose more often than a record.
    let options = ParseOptions {
        allow_comments: true,
        allow_loose_object_property_names: false,
        allow_trailing_commas: true,
        allow_missing_commas: false,
        allow_single_quoted_strings: true,
        allow_hexadecimal_numbers: false,
        allow_unary_plus_numbers: false,
    };
    jsonc_parser::parse_to_ast(text, &CollectOptions::default(), &options).ok()?.value
}

/// Keys that name what a record is about.
const SUBJECT_KEYS: &[&str] = &["name", "title", "model", "product", "store", "business", "company", "brand"];

fn push_record(text: &str, offset: usize, record: &Value<'_>, new_record: bool, out: &mut Vec<Field>) {
    let before = out.len();
    let mut path = Vec::new();
    walk(text, offset, record, &mut path, None, out);
    if let Some(first) = out.get_mut(before) {
        first.new_record = new_record;
    }
    // Every field says whom it is about ("Luigi's Pizzeria: no outdoor seating"), as a
    // sentence of prose would: a claim about the record's subject then finds its subject in
    // each field, and one record's field is never read as another's.
    let Value::Object(o) = record else { return };
    let Some((subject, range)) = o.properties.iter().find_map(|p| match &p.value {
        Value::StringLit(v) if SUBJECT_KEYS.contains(&key_words(p.name.as_str()).as_str()) && !v.value.trim().is_empty() => {
            Some((v.value.trim().to_string(), offset + p.range.start..offset + p.range.end))
        }
        _ => None,
    }) else {
        return;
    };
    for f in out[before..].iter_mut().filter(|f| !f.prose && f.range != range) {
        f.text = match f.text.strip_prefix("No ") {
            Some(rest) => format!("{subject}: no {rest}"),
            None => format!("{subject} {}", f.text),
        };
    }
}

/// Every leaf under `value`; `prop` is the property holding it (its range is the quote).
fn walk(
    text: &str,
    offset: usize,
    value: &Value<'_>,
    path: &mut Vec<String>,
    prop: Option<&ObjectProp<'_>>,
    out: &mut Vec<Field>,
) {
    match value {
        Value::Object(o) => {
            for p in &o.properties {
                let words = key_words(p.name.as_str());
                let pushed = !(words.is_empty() || CONTAINERS.contains(&words.as_str()) && value_is_container(&p.value));
                if pushed {
                    path.push(words);
                }
                walk(text, offset, &p.value, path, Some(p), out);
                if pushed {
                    path.pop();
                }
            }
        }
        Value::Array(a) if a.elements.iter().any(|e| matches!(e, Value::Object(_) | Value::Array(_))) => {
            for e in &a.elements {
                walk(text, offset, e, path, None, out);
            }
        }
        Value::StringLit(s) if s.value.len() > PROSE && s.value.contains(". ") => {
            // Prose is read as sentences where its text is the value itself (no escapes);
            // otherwise as one field.
            let inner = s.range.start + 1..s.range.end.saturating_sub(1);
            if text.get(inner.clone()) == Some(&*s.value) {
                out.push(Field {
                    range: offset + inner.start..offset + inner.end,
                    text: String::new(),
                    new_record: false,
                    prose: true,
                });
            } else {
                push_rendered(text, offset, path, value, prop, out);
            }
        }
        _ => push_rendered(text, offset, path, value, prop, out),
    }
}

/// The leaf `value` as a rendered field, quoted as its property (`"key": value`) or, in an
/// array, as itself; nothing when it says nothing.
fn push_rendered(
    text: &str,
    offset: usize,
    path: &[String],
    value: &Value<'_>,
    prop: Option<&ObjectProp<'_>>,
    out: &mut Vec<Field>,
) {
    let Some(sentence) = render(path, value) else { return };
    let range = prop.map_or_else(|| value_range(value), |p| p.range.start..p.range.end);
    if text.get(range.clone()).is_some() {
        out.push(Field { range: offset + range.start..offset + range.end, text: sentence, new_record: false, prose: false });
    }
}

fn value_is_container(v: &Value<'_>) -> bool {
    matches!(v, Value::Object(_) | Value::Array(_))
}

fn value_range(v: &Value<'_>) -> Range<usize> {
    let r = match v {
        Value::StringLit(s) => &s.range,
        Value::NumberLit(n) => &n.range,
        Value::BooleanLit(b) => &b.range,
        Value::Object(o) => &o.range,
        Value::Array(a) => &a.range,
        Value::NullKeyword(n) => &n.range,
    };
    r.start..r.end
}

/// A leaf as a sentence; `None` when the field says nothing (null, empty, "None").
fn render(path: &[String], value: &Value<'_>) -> Option<String> {
    let key = path.join(" ");
    let scalar = |v: &Value<'_>| -> Option<Scalar> {
        match v {
            Value::BooleanLit(b) => Some(Scalar::Bool(b.value)),
            Value::NumberLit(n) => Some(Scalar::Text(n.value.to_string())),
            Value::StringLit(s) => Scalar::of_text(&s.value),
            _ => None,
        }
    };
    // "weight_kg": 1.3 reads "weight: 1.3 kg", an amount with its unit.
    let (head, unit) = key.rsplit_once(' ').unwrap_or(("", &key));
    if let Value::NumberLit(n) = value
        && is_unit(n.value, unit)
    {
        let head = if head.is_empty() { String::new() } else { format!("{head}: ") };
        return Some(format!("{head}{} {unit}.", n.value));
    }
    let text = match value {
        Value::Array(a) => {
            let items: Vec<String> = a.elements.iter().filter_map(scalar).map(Scalar::into_text).collect();
            list(&items)?
        }
        v => match scalar(v)? {
            Scalar::Bool(true) if !key.is_empty() => return Some(format!("{key}: yes.")),
            Scalar::Bool(false) if !key.is_empty() => return Some(format!("No {key}.")),
            Scalar::Bool(_) => return None,
            // Under "hours", a time range is when the place is open.
            Scalar::Text(t) => match time_range(&t) {
                Some(r) if path.iter().any(|p| p.split(' ').any(|w| w == "hours")) => format!("open {r}"),
                Some(r) => r,
                None => t,
            },
        },
    };
    Some(if key.is_empty() { format!("{text}.") } else { format!("{key}: {text}.") })
}

enum Scalar {
    Bool(bool),
    Text(String),
}

impl Scalar {
    /// A string field's value: "true"/"yes" and "false"/"no" are booleans, "None"/"null"/""
    /// nothing, and a Python-printed string (`u'free'`) its inside.
    fn of_text(s: &str) -> Option<Scalar> {
        let t = s.trim();
        let t = t.strip_prefix("u'").or_else(|| t.strip_prefix('\'')).and_then(|x| x.strip_suffix('\'')).unwrap_or(t).trim();
        match t.to_ascii_lowercase().as_str() {
            "" | "none" | "null" | "nan" | "n/a" => None,
            "true" | "yes" => Some(Scalar::Bool(true)),
            "false" | "no" => Some(Scalar::Bool(false)),
            _ => Some(Scalar::Text(t.to_string())),
        }
    }

    fn into_text(self) -> String {
        match self {
            Scalar::Bool(b) => if b { "yes" } else { "no" }.to_string(),
            Scalar::Text(t) => t,
        }
    }
}

/// `unit` read after `number` makes an amount with a unit ("1.3 kg", "10 hours").
fn is_unit(number: &str, unit: &str) -> bool {
    let text = format!("{number} {unit}");
    matches!(warrant_text::quantity::find_quantities(&text).as_slice(),
        [q] if q.dimension != warrant_text::quantity::Dimension::Number && q.range == (0..text.len()))
}

fn list(items: &[String]) -> Option<String> {
    match items {
        [] => None,
        [one] => Some(one.clone()),
        [init @ .., last] => Some(format!("{} and {last}", init.join(", "))),
    }
}

/// "11:0-22:0" → "from 11:00 to 22:00": opening hours as times the date reader knows.
fn time_range(t: &str) -> Option<String> {
    let (a, b) = t.split_once('-')?;
    let time = |s: &str| -> Option<String> {
        let (h, m) = s.trim().split_once(':')?;
        let (h, m): (u8, u8) = (h.parse().ok()?, m.parse().ok()?);
        (h <= 24 && m < 60).then(|| format!("{h}:{m:02}"))
    };
    Some(format!("from {} to {}", time(a)?, time(b)?))
}

/// A key as words: `OutdoorSeating` → "outdoor seating", `price_range2` → "price range";
/// weekday and month names keep their capital.
fn key_words(key: &str) -> String {
    let mut words: Vec<String> = Vec::new();
    for part in key.split(|c: char| !c.is_alphanumeric()) {
        let part = part.trim_end_matches(|c: char| c.is_ascii_digit());
        let mut word = String::new();
        let chars: Vec<char> = part.chars().collect();
        for (i, &c) in chars.iter().enumerate() {
            // A lower-to-upper step starts a word ("outdoorSeating"), unless the piece so far
            // is too short to be one ("WiFi", "iPhone").
            if c.is_uppercase() && i > 0 && chars[i - 1].is_lowercase() && word.chars().count() >= 3 {
                words.push(std::mem::take(&mut word));
            }
            word.push(c);
        }
        if !word.is_empty() {
            words.push(word);
        }
    }
    words
        .into_iter()
        // A word with capitals past its first letter ("WiFi", "TV") is written as a name is.
        .map(|w| {
            if warrant_text::date::is_calendar_name(&w) || w.chars().skip(1).any(char::is_uppercase) {
                w
            } else {
                w.to_lowercase()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rendered(text: &str) -> Vec<String> {
        fields(text).unwrap().into_iter().map(|f| f.text).collect()
    }

    #[test]
    fn typed_values_render_as_what_they_say() {
        let text = r#"{"name": "Luigi's Pizzeria", "stars": 4.5, "attributes": {"OutdoorSeating": false,
            "WiFi": "u'free'", "RestaurantsDelivery": null, "HasTV": "True", "Ambience": "None"},
            "hours": {"Monday": "11:0-22:0"}, "categories": ["Pizza", "Italian"], "review_count": 212}"#;
        assert_eq!(
            rendered(text),
            [
                "name: Luigi's Pizzeria.",
                "Luigi's Pizzeria stars: 4.5.",
                "Luigi's Pizzeria: no outdoor seating.",
                "Luigi's Pizzeria WiFi: free.",
                "Luigi's Pizzeria has TV: yes.",
                "Luigi's Pizzeria hours Monday: open from 11:00 to 22:00.",
                "Luigi's Pizzeria categories: Pizza and Italian.",
                "Luigi's Pizzeria review count: 212."
            ]
        );
        assert_eq!(
            rendered(r#"{"weight_kg": 1.3, "battery_life_hours": 10, "ports": 3}"#),
            ["weight: 1.3 kg.", "battery life: 10 hours.", "ports: 3."]
        );
    }

    #[test]
    fn ranges_are_the_fields_own_text() {
        let text = "{\"a\": {\"OutdoorSeating\": false}, \"b\": 3}";
        let f = fields(text).unwrap();
        assert_eq!(&text[f[0].range.clone()], "\"OutdoorSeating\": false");
        assert_eq!(&text[f[1].range.clone()], "\"b\": 3");
    }

    #[test]
    fn ranges_are_bytes_past_non_ascii_text() {
        let text = "{\"name\": \"Zoë's Café\", \"city\": \"Köln\", \"open\": false}";
        let f = fields(text).unwrap();
        assert_eq!(&text[f[1].range.clone()], "\"city\": \"Köln\"");
        assert_eq!(f[2].text, "Zoë's Café: no open.");
    }

    #[test]
    fn arrays_and_lines_of_records_mark_each_new_record() {
        let f = fields("[{\"a\": 1, \"b\": 2}, {\"a\": 3}]").unwrap();
        assert_eq!(f.iter().map(|f| f.new_record).collect::<Vec<_>>(), [false, false, true]);
        let text = "{\"city\": \"Tampa\"}\n\n{\"city\": \"Reno\", \"open\": true}\n";
        let f = fields(text).unwrap();
        assert_eq!(
            f.iter().map(|f| &text[f.range.clone()]).collect::<Vec<_>>(),
            ["\"city\": \"Tampa\"", "\"city\": \"Reno\"", "\"open\": true"]
        );
        assert_eq!(f.iter().map(|f| f.new_record).collect::<Vec<_>>(), [false, true, false]);
    }

    #[test]
    fn prose_and_other_json_are_not_records() {
        for t in ["The store opens at 9.", "[1, 2, 3]", "{ not json }", "{\"a\": 1}\nthen prose", "\"text\"", "[]", "{key: 1}"] {
            assert!(fields(t).is_none(), "{t}");
        }
    }

    #[test]
    fn long_prose_values_are_read_as_text() {
        let about = "A family restaurant. It has served pizza since 1980 and it is known for its crust. ".repeat(3);
        let text = format!("{{\"name\": \"Luigi's\", \"about\": \"{}\"}}", about.trim());
        let f = fields(&text).unwrap();
        assert!(f[1].prose && &text[f[1].range.clone()] == about.trim());
    }

    #[test]
    fn keys_split_into_words() {
        assert_eq!(key_words("OutdoorSeating"), "outdoor seating");
        assert_eq!(key_words("RestaurantsPriceRange2"), "restaurants price range");
        assert_eq!(key_words("WiFi"), "WiFi");
        assert_eq!(key_words("review_count"), "review count");
        assert_eq!(key_words("Monday"), "Monday");
    }

    proptest::proptest! {
        #[test]
        fn never_panics_and_ranges_are_char_boundaries(t in "(\\PC|[{}\\[\\]:,\"' ]|true|null|\\n){0,60}") {
            if let Some(f) = fields(&t) {
                let mut end = 0;
                for x in f {
                    proptest::prop_assert!(t.get(x.range.clone()).is_some());
                    proptest::prop_assert!(x.range.start >= end);
                    end = x.range.end;
                }
            }
        }
    }
}
