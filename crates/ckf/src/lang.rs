//! Language detection from stopwords and accents (spec §7.1): `en`, `pt-BR`, `es`, `fr`, `de`,
//! or `und` (BCP-47 "undetermined") when the evidence is too thin.

use std::sync::LazyLock;

use warrant_text::fasthash::FastMap;
use warrant_text::stopwords::List;
use warrant_text::words::words;

/// A detected language.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Lang {
    /// English.
    En,
    /// Brazilian Portuguese (the spec's Portuguese tag).
    PtBr,
    /// Spanish.
    Es,
    /// French.
    Fr,
    /// German.
    De,
    /// Not enough evidence.
    Und,
}

impl Lang {
    /// The BCP-47 tag.
    pub fn tag(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::PtBr => "pt-BR",
            Lang::Es => "es",
            Lang::Fr => "fr",
            Lang::De => "de",
            Lang::Und => "und",
        }
    }

    /// Parses a BCP-47 tag by its primary subtag (`pt`, `pt-PT` and `pt-BR` are all Portuguese).
    pub fn from_tag(tag: &str) -> Lang {
        let primary = tag.split(['-', '_']).next().unwrap_or("").to_ascii_lowercase();
        match primary.as_str() {
            "en" => Lang::En,
            "pt" => Lang::PtBr,
            "es" => Lang::Es,
            "fr" => Lang::Fr,
            "de" => Lang::De,
            _ => Lang::Und,
        }
    }
}

const LANGS: [Lang; 5] = [Lang::En, Lang::PtBr, Lang::Es, Lang::Fr, Lang::De];

/// Word → bitmask of languages it is a stopword of.
static STOPWORDS: LazyLock<FastMap<&'static str, u8>> = LazyLock::new(|| {
    let mut m: FastMap<&'static str, u8> = FastMap::default();
    let lists = [List::LangEn, List::LangPt, List::LangEs, List::LangFr, List::LangDe];
    for (bit, list) in lists.iter().enumerate() {
        for w in list.words() {
            *m.entry(w).or_insert(0) |= 1 << bit;
        }
    }
    m
});

/// Per-language evidence counts.
#[derive(Debug, Clone, Copy, Default)]
pub struct LangCounts {
    hits: [u32; 5],
}

impl LangCounts {
    /// Adds the evidence in `text`.
    pub fn add(&mut self, text: &str) {
        let mut buf = String::new();
        for (_, w) in words(text) {
            if w.len() > 12 {
                continue;
            }
            if let Some(mask) = STOPWORDS.get(crate::normalize::lower_word(w, &mut buf)) {
                for (i, h) in self.hits.iter_mut().enumerate() {
                    if mask & (1 << i) != 0 {
                        *h += 1;
                    }
                }
            }
        }
        // The accents below are all non-ASCII.
        if text.is_ascii() {
            return;
        }
        for c in text.chars() {
            match c {
                'ã' | 'õ' | 'ç' | 'Ã' | 'Õ' | 'Ç' => self.hits[1] += 2,
                'ñ' | 'Ñ' | '¿' | '¡' => self.hits[2] += 2,
                'ß' | 'ä' | 'ö' | 'ü' | 'Ä' | 'Ö' | 'Ü' => self.hits[4] += 2,
                'è' | 'ê' | 'ë' | 'î' | 'ï' | 'û' | 'ù' | 'œ' => self.hits[3] += 1,
                _ => {}
            }
        }
    }

    /// The most likely language: at least `min_hits` of evidence and clearly ahead of the
    /// runner-up, else [`Lang::Und`].
    pub fn best(&self, min_hits: u32) -> Lang {
        let mut order: Vec<(u32, usize)> = self.hits.iter().copied().zip(0..).collect();
        // Highest count first; ties by fixed language order.
        order.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        let (top, i) = order[0];
        let second = order[1].0;
        if top < min_hits || top * 4 < second * 5 {
            return Lang::Und;
        }
        LANGS[i]
    }
}

/// Detects the language of a text (`und` with fewer than 3 stopword hits or a near tie).
pub fn detect(text: &str) -> Lang {
    let mut c = LangCounts::default();
    c.add(text);
    c.best(3)
}

/// Detects the language of a large text from an evenly spread sample of at most ~64 KiB.
pub fn detect_sampled(text: &str) -> Lang {
    const WINDOW: usize = 8 * 1024;
    if text.len() <= 8 * WINDOW {
        return detect(text);
    }
    let mut c = LangCounts::default();
    let step = text.len() / 8;
    for k in 0..8 {
        let mut a = k * step;
        while !text.is_char_boundary(a) {
            a += 1;
        }
        let mut b = (a + WINDOW).min(text.len());
        while !text.is_char_boundary(b) {
            b -= 1;
        }
        c.add(&text[a..b]);
    }
    c.best(3)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_the_three_spec_languages() {
        assert_eq!(detect("The employee must submit the form within 60 days of the purchase."), Lang::En);
        assert_eq!(
            detect("A avaliação formativa deve orientar o aluno sobre o que já sabe e o que precisa aprender."),
            Lang::PtBr
        );
        assert_eq!(detect("El empleado debe presentar la solicitud antes de la fecha y con los documentos."), Lang::Es);
        assert_eq!(detect("Le salarié doit présenter la demande avant la date avec les documents."), Lang::Fr);
        assert_eq!(detect("Der Antrag muss vor dem Termin mit den Unterlagen eingereicht werden."), Lang::De);
        assert_eq!(detect("42 17 99"), Lang::Und);
        assert_eq!(detect(""), Lang::Und);
    }

    #[test]
    fn tags_round_trip() {
        for l in LANGS {
            assert_eq!(Lang::from_tag(l.tag()), l);
        }
        assert_eq!(Lang::from_tag("pt"), Lang::PtBr);
        assert_eq!(Lang::from_tag("xx"), Lang::Und);
    }
}
