//! The BM25 analyzer of the PostgreSQL store: FTS5's own tokenizer.
//!
//! The SQLite store indexes chunks with FTS5's `porter unicode61 remove_diacritics 2`. Rather
//! than re-implement that tokenizer (Unicode 6.1 token classes, diacritic folding, FTS5's
//! Porter stemmer with its own length limits) and risk a token that differs, the PostgreSQL
//! store runs the very same tokenizer in a private in-memory SQLite database and reads the
//! tokens back through an `fts5vocab` instance table. Both backends therefore index and query
//! identical terms by construction.

use std::collections::BTreeMap;

use rusqlite::{Connection, params};

use crate::error::{Result, SqlContext};

/// A private in-memory FTS5 table used only to tokenize.
pub struct Analyzer {
    conn: Connection,
}

/// A text's terms: its token count (the BM25 length) and each distinct term's frequency.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Terms {
    /// Tokens in the text (repeats counted), as FTS5's column size.
    pub tokens: i64,
    /// Term → occurrences, in byte order of the term.
    pub frequencies: BTreeMap<String, i32>,
}

impl Analyzer {
    pub fn new() -> Result<Self> {
        let conn = Connection::open_in_memory().ctx("open tokenizer")?;
        conn.execute_batch(
            "CREATE VIRTUAL TABLE t USING fts5(text, content = '', tokenize = 'porter unicode61 remove_diacritics 2'); \
             CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance');",
        )
        .ctx("create tokenizer")?;
        Ok(Self { conn })
    }

    /// Tokenizes `texts` (in one pass through FTS5) into their [`Terms`], in order.
    pub fn terms(&self, texts: &[&str]) -> Result<Vec<Terms>> {
        let mut out = vec![Terms::default(); texts.len()];
        self.load(texts)?;
        let mut st = self.conn.prepare_cached("SELECT doc, term, count(*) FROM v GROUP BY doc, term").ctx("tokenize")?;
        let rows =
            st.query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?, r.get::<_, i64>(2)?))).ctx("tokenize")?;
        for row in rows {
            let (doc, term, n) = row.ctx("tokenize")?;
            if let Some(t) = usize::try_from(doc - 1).ok().and_then(|i| out.get_mut(i)) {
                t.tokens += n;
                t.frequencies.insert(term, i32::try_from(n).unwrap_or(i32::MAX));
            }
        }
        Ok(out)
    }

    /// The tokens of each text in order (a query phrase is the sequence of its tokens).
    pub fn tokens(&self, texts: &[&str]) -> Result<Vec<Vec<String>>> {
        let mut out = vec![Vec::new(); texts.len()];
        self.load(texts)?;
        let mut st = self.conn.prepare_cached("SELECT doc, term FROM v ORDER BY doc, \"offset\"").ctx("tokenize")?;
        let rows = st.query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?))).ctx("tokenize")?;
        for row in rows {
            let (doc, term) = row.ctx("tokenize")?;
            if let Some(t) = usize::try_from(doc - 1).ok().and_then(|i| out.get_mut(i)) {
                t.push(term);
            }
        }
        Ok(out)
    }

    /// Replaces the table's rows with `texts` (rowid = position + 1).
    fn load(&self, texts: &[&str]) -> Result<()> {
        self.conn.execute_batch("INSERT INTO t(t) VALUES ('delete-all')").ctx("tokenize")?;
        let mut st = self.conn.prepare_cached("INSERT INTO t(rowid, text) VALUES (?1, ?2)").ctx("tokenize")?;
        for (i, text) in texts.iter().enumerate() {
            st.execute(params![i as i64 + 1, text]).ctx("tokenize")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_fts5_porter_unicode61() {
        let a = Analyzer::new().unwrap();
        let t = a.terms(&["Session tokens expire; the tokens EXPIRED.", "", "Café naïve"]).unwrap();
        assert_eq!(t[0].tokens, 6);
        let f: Vec<(&str, i32)> = t[0].frequencies.iter().map(|(k, v)| (k.as_str(), *v)).collect();
        assert_eq!(f, [("expir", 2), ("session", 1), ("the", 1), ("token", 2)]);
        assert_eq!(t[1], Terms::default());
        assert_eq!(t[2].frequencies.keys().map(String::as_str).collect::<Vec<_>>(), ["cafe", "naiv"]);
        assert_eq!(a.tokens(&["expiring", "?!", "x-ray"]).unwrap(), [vec!["expir"], vec![], vec!["x", "rai"]]);
        // Rust calls a Devanagari vowel sign alphanumeric; Unicode 6.1's token classes do not:
        // one query word, a phrase of several tokens.
        assert!(a.tokens(&["हिन्दी"]).unwrap()[0].len() > 1);
    }
}
