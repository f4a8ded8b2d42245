//! Checking against a knowledge store: the chunks BM25 ranks highest for the answer (and its
//! question) become the sources of the check, each quoting into its document at the chunk's
//! own offset, so support edges point into the stored document text.

use warrant_store::{Store, StoreError};
use warrant_verify::lexicon::is_stopword;
use warrant_verify::{Corpus, Source};

/// Chunks retrieved per check by default.
pub const DEFAULT_CHUNKS: usize = 4;

/// The search query for an answer and its question: their words without function words
/// ("the", "of", "within": they match nearly every chunk, cost the most to rank and add
/// nothing to BM25), each once, in order.
pub fn query_words(answer: &str, question: Option<&str>) -> String {
    let mut seen = std::collections::HashSet::new();
    let mut out = String::new();
    let text = question.into_iter().chain(std::iter::once(answer));
    for w in text.flat_map(|t| t.split(|c: char| !c.is_alphanumeric())).filter(|w| !w.is_empty()) {
        let lower = w.to_lowercase();
        if is_stopword(&lower) || !seen.insert(lower) {
            continue;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(w);
    }
    out
}

/// The corpus for checking `answer` (and `question`) against `store`: the top `limit` chunks
/// by BM25 over the content words of both ([`query_words`]), in document order (document id,
/// then offset); adjacent chunks of one document are joined. An empty query or store gives
/// an empty corpus.
pub fn corpus_from_store(store: &dyn Store, answer: &str, question: Option<&str>, limit: usize) -> Result<Corpus, StoreError> {
    let mut hits = store.search(&query_words(answer, question), limit)?;
    hits.sort_by(|a, b| a.doc_id.cmp(&b.doc_id).then(a.start.cmp(&b.start)));
    let mut sources: Vec<Source> = Vec::with_capacity(hits.len());
    let mut last_end = 0usize;
    for h in hits {
        match sources.last_mut() {
            Some(prev) if prev.id == h.doc_id && last_end == h.start => prev.text.push_str(&h.text),
            _ => sources.push(Source { id: h.doc_id, text: h.text, offset: h.start }),
        }
        last_end = h.end;
    }
    Ok(Corpus::new(sources))
}

#[cfg(test)]
mod tests {
    use super::*;
    use warrant_store::{DocumentInput, IngestOptions, SqliteStore, ingest};

    fn doc(id: &str, text: &str) -> DocumentInput {
        DocumentInput { id: id.into(), text: text.into(), version: None, title: None, metadata: None, origin: id.into() }
    }

    #[test]
    fn queries_keep_content_words_once() {
        assert_eq!(
            query_words("The warranty of the product lasts 2 years.", Some("How long is the warranty?")),
            "long warranty product lasts 2 years"
        );
    }

    #[test]
    fn retrieved_chunks_quote_their_documents_at_the_right_offsets() {
        let store = SqliteStore::open_in_memory().expect("store");
        let text = "Canberra is the capital of Australia. ".repeat(3) + "Refunds take 30 days to process.";
        let opts = IngestOptions { max_chunk_chars: 40, ..IngestOptions::default() };
        ingest(&store, vec![doc("a", &text), doc("b", "Unrelated words here.")], vec![], &opts, &mut |_| {}).expect("ingest");
        let corpus = corpus_from_store(&store, "Refunds take 30 days.", None, 2).expect("corpus");
        assert!(!corpus.is_empty());
        for i in 0..corpus.len() {
            let s = corpus.doc(i);
            assert_eq!(s.id, "a");
            let expected: String = text.chars().skip(s.offset).take(s.text.chars().count()).collect();
            assert_eq!(s.text, expected);
        }
        assert!(corpus_from_store(&store, "", None, 4).expect("corpus").is_empty());
    }
}
