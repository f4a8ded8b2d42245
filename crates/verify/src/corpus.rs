//! Where evidence comes from. A [`Corpus`] holds source documents split into sentences, each
//! analysed once, with an inverted index for BM25 retrieval of candidate sentences.

use std::ops::Range;
use std::sync::{Arc, OnceLock};

use warrant_text::OffsetMap;
use warrant_text::bm25::{Index as Bm25, Params, Weighting};
use warrant_text::fasthash::{FastMap, FastSet};
use warrant_text::segment::{self, Rules};

use crate::analysis::Analysis;
use crate::records;

/// A source document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    /// Its id (used in support edges).
    pub id: String,
    /// Its text; selectors point into it.
    pub text: String,
    /// Char offset of `text` in the document `id` names (non-zero when `text` is a chunk of a
    /// larger document), added to every selector.
    pub offset: usize,
    /// The heading the text stands under (a page's title, "Amazon (company)"): what its
    /// sentences speak of when they do not name it ("The tech giant is …"). Read, never quoted.
    pub title: Option<String>,
}

impl Source {
    /// A whole document.
    pub fn new(id: impl Into<String>, text: impl Into<String>) -> Self {
        Source { id: id.into(), text: text.into(), offset: 0, title: None }
    }

    /// The same source under a heading (see [`Source::title`]); an empty title is none.
    pub fn titled(mut self, title: Option<String>) -> Self {
        self.title = title.filter(|t| !t.trim().is_empty());
        self
    }
}

/// One sentence of a source.
#[derive(Debug, Clone)]
pub struct Sentence {
    /// Document index in the corpus.
    pub doc: usize,
    /// Byte range in the document text.
    pub range: Range<usize>,
    /// What it says (shared with the [`Analysed`] text it came from).
    pub analysis: Arc<Analysis>,
    /// It was glued to the previous sentence without a space ("…Philadelphia.First…"): the
    /// mark of texts concatenated from different documents.
    pub glued: bool,
    /// It is a piece of a sentence too long to quote whole ([`LONG_SENTENCE`]), cut at a
    /// space near [`PIECE`] bytes: a window holding it is that piece alone.
    pub cut: bool,
    /// Its position among its document's sentences.
    within: usize,
}

/// Documents, their sentences and a key → sentences index.
#[derive(Debug, Clone, Default)]
pub struct Corpus {
    docs: Vec<Source>,
    /// Each document's sentences as analysed.
    analysed: Vec<Arc<Analysed>>,
    maps: Vec<OffsetMap>,
    sentences: Vec<Sentence>,
    /// First sentence index of each document (sentences are stored per document, in order).
    doc_start: Vec<usize>,
    /// Each document's title as analysed, its capitalised opener a name unless the sources
    /// write it in lower case ("Amazon (company)" names Amazon, "Green" is a colour).
    titles: Vec<Option<Analysis>>,
    /// Each document's topic ([`Corpus::topic`]): the sentence holding its first name, found
    /// when first asked (a document naming nothing was scanned whole at every ask).
    topics: Vec<OnceLock<Option<usize>>>,
    /// Each document's recurring names ([`Corpus::recurring`]), found when first asked.
    recurring: Vec<OnceLock<Vec<(usize, usize)>>>,
    /// Each sentence's retrieval terms (a document per sentence).
    index: Bm25,
    /// Stems the sources write in lower case.
    lower: FastSet<Arc<str>>,
    /// Stems the sources capitalise inside a sentence (as a name's word).
    named: FastSet<Arc<str>>,
    /// Names of two words or more, by their last word ([`Corpus::full_names_ending_in`]),
    /// gathered when first asked.
    full_names: OnceLock<FastMap<String, Vec<Vec<String>>>>,
}

/// Sources are split as casual text pasted from many documents: sentences may start in lower
/// case, and documents may run into each other without a space.
const SOURCES: Rules = Rules { casual: true, sources: true };

/// Sentence retrieval's BM25: every term counts once per sentence, and a question key's
/// weight scales its finished score.
const BM25: Params = Params::standard(Weighting::Score);

impl Corpus {
    /// Builds a corpus from sources (sentences split at `. ! ?`, paragraphs and lines).
    pub fn new(sources: Vec<Source>) -> Self {
        let mut c = Corpus::default();
        for s in sources {
            c.add(s);
        }
        c.settle_openers();
        c
    }

    /// A sentence-opening capitalised word is a name when the sources never write it in lower
    /// case ("Canberra is …"), a common word otherwise ("Refunds are …"). [`Corpus::new`] does
    /// this; a corpus built source by source with [`Corpus::add_analysed`] calls it once all
    /// are added.
    pub fn settle_openers(&mut self) {
        let mut lower: FastSet<Arc<str>> = FastSet::default();
        let mut named: FastSet<Arc<str>> = FastSet::default();
        for a in &self.analysed {
            lower.extend(a.lower.iter().cloned());
            named.extend(a.named.iter().cloned());
        }
        self.named = named;
        for s in &mut self.sentences {
            if s.analysis.opener.as_ref().is_some_and(|n| !lower.contains(n.stems[0].as_str())) {
                let within = s.within;
                s.analysis = self.analysed[s.doc].promoted(within);
            }
        }
        for t in self.titles.iter_mut().flatten() {
            if t.opener.as_ref().is_some_and(|n| !lower.contains(n.stems[0].as_str())) {
                t.promote_opener();
            }
            // Title case is not a name where the text writes the word in lower case ("Green").
            let named = &self.named;
            t.names.retain(|n| n.stems.len() > 1 || !lower.contains(n.stems[0].as_str()) || named.contains(n.stems[0].as_str()));
        }
        self.lower = lower;
        // Promoted openers are names: topics are found again.
        self.topics = self.docs.iter().map(|_| OnceLock::new()).collect();
        self.recurring = self.docs.iter().map(|_| OnceLock::new()).collect();
        self.full_names = OnceLock::new();
    }

    /// The words of every distinct name of two words or more the sources write whose last word
    /// is `last` ("sotomayor" → [sonia, sotomayor], [judge, sotomayor]).
    pub fn full_names_ending_in(&self, last: &str) -> &[Vec<String>] {
        let map = self.full_names.get_or_init(|| {
            let mut map: FastMap<String, Vec<Vec<String>>> = FastMap::default();
            for n in self.sentences.iter().flat_map(|s| s.analysis.names.iter()).filter(|n| n.words.len() >= 2) {
                let Some(w) = n.words.last() else { continue };
                let list = map.entry(w.clone()).or_default();
                if !list.contains(&n.words) {
                    list.push(n.words.clone());
                }
            }
            map
        });
        map.get(last).map_or(&[], Vec::as_slice)
    }

    /// True when the sources write this stem in lower case somewhere.
    pub fn written_lower(&self, stem: &str) -> bool {
        self.lower.contains(stem)
    }

    /// True when the sources capitalise this stem inside a sentence somewhere.
    pub fn written_as_name(&self, stem: &str) -> bool {
        self.named.contains(stem)
    }

    /// The first name of a document: what it is about, and who "he" or "she" most likely is.
    /// Its title's first name only when its text names no one: a page's title may name a thing
    /// or a list ("Nobel Prize in Physics") where its sentences' "he" is the one they name.
    pub fn topic(&self, doc: usize) -> Option<&crate::analysis::Name> {
        let at = self.topics.get(doc)?.get_or_init(|| {
            let start = self.doc_start[doc];
            let end = self.doc_start.get(doc + 1).copied().unwrap_or(self.sentences.len());
            (start..end).find(|&i| !self.sentences[i].analysis.names.is_empty())
        });
        at.and_then(|i| self.sentences[i].analysis.names.first()).or_else(|| self.title_names(doc).first())
    }

    /// The names of a document's title (none without one).
    fn title_names(&self, doc: usize) -> &[crate::analysis::Name] {
        self.titles.get(doc).and_then(Option::as_ref).map_or(&[], |t| t.names.as_slice())
    }

    /// The names a document states in two sentences or more, its title's and its topic: whom
    /// its sentences speak of when they do not name them ("your home" in a call with Mr.
    /// Johnson, "the tech giant" under "Amazon (company)").
    pub fn recurring(&self, doc: usize) -> impl Iterator<Item = &crate::analysis::Name> {
        let at = self.recurring.get(doc).map(|cell| {
            cell.get_or_init(|| {
                let start = self.doc_start[doc];
                let end = self.doc_start.get(doc + 1).copied().unwrap_or(self.sentences.len());
                // Per distinct name (by stems), its first mention and how many sentences name it.
                let mut seen: Vec<((usize, usize), usize)> = Vec::new();
                for i in start..end {
                    let names = &self.sentences[i].analysis.names;
                    for (j, n) in names.iter().enumerate() {
                        if names[..j].iter().any(|m| m.stems == n.stems) {
                            continue;
                        }
                        let known = seen.iter_mut().find(|((s, k), _)| self.sentences[*s].analysis.names[*k].stems == n.stems);
                        match known {
                            Some((_, count)) => *count += 1,
                            None => seen.push(((i, j), 1)),
                        }
                    }
                }
                let topic = seen.first().map(|(at, _)| *at);
                seen.iter().filter(|(at, count)| *count >= 2 || Some(*at) == topic).map(|(at, _)| *at).collect()
            })
        });
        self.title_names(doc).iter().chain(at.into_iter().flatten().map(|&(s, k)| &self.sentences[s].analysis.names[k]))
    }

    /// Adds one source.
    pub fn add(&mut self, source: Source) {
        let analysed = Arc::new(Analysed::of(&source.text));
        self.add_analysed(source, analysed);
    }

    /// Adds one source whose text was analysed before ([`Analysed::of`] of exactly this
    /// text): a store's chunks are analysed once and checked against many times.
    pub fn add_analysed(&mut self, source: Source, analysed: Arc<Analysed>) {
        let doc = self.docs.len();
        self.full_names = OnceLock::new();
        self.doc_start.push(self.sentences.len());
        let mut terms: Vec<(u32, u32)> = Vec::new();
        for (within, s) in analysed.sentences.iter().enumerate() {
            terms.clear();
            terms.extend(s.analysis.terms.iter().map(|k| (self.index.intern(k), 1)));
            self.index.add(&terms);
            let analysis = Arc::clone(&s.analysis);
            self.sentences.push(Sentence { doc, range: s.range.clone(), analysis, glued: s.glued, cut: s.cut, within });
        }
        self.topics.push(OnceLock::new());
        self.recurring.push(OnceLock::new());
        self.titles.push(source.title.as_deref().map(Analysis::of));
        self.maps.push(OffsetMap::new(&source.text));
        self.docs.push(source);
        self.analysed.push(analysed);
    }

    /// Number of documents.
    pub fn len(&self) -> usize {
        self.docs.len()
    }

    /// True when there are no documents.
    pub fn is_empty(&self) -> bool {
        self.docs.is_empty()
    }

    /// A document.
    pub fn doc(&self, i: usize) -> &Source {
        &self.docs[i]
    }

    /// All sentences.
    pub fn sentences(&self) -> &[Sentence] {
        &self.sentences
    }

    /// Char span of a byte range in document `doc`.
    pub fn char_span(&self, doc: usize, r: &Range<usize>) -> (usize, usize) {
        let m = &self.maps[doc];
        (m.to_char(r.start), m.to_char(r.end))
    }

    /// True when sentence `j` (= `i + 1`) continues sentence `i`, so that a window may span
    /// both: same document, not glued on from elsewhere, and about the same thing — it refers
    /// back ("He …"), names something `i` names, or names nothing new.
    pub fn joinable(&self, i: usize, j: usize) -> bool {
        let (Some(a), Some(b)) = (self.sentences.get(i), self.sentences.get(j)) else { return false };
        // A piece of an overlong sentence stands alone, so every quote of one is bounded.
        if a.doc != b.doc || a.cut || b.cut {
            return false;
        }
        // Glued on from another document: joined only when it is about something the first
        // sentence names (its opening name appears there) — a bridge between the two.
        if b.glued {
            return b.analysis.names.first().is_some_and(|n| a.analysis.names.iter().any(|m| m.same_as(n)));
        }
        let b = &b.analysis;
        // "The studio …" after a sentence about Studio Ghibli.
        if b.opening_noun.as_ref().is_some_and(|n| a.analysis.stems.contains(n)) {
            return true;
        }
        // Names are the same when their last words agree ("Hari" and "Badr Hari", not "Best
        // Film" and "Best Actor").
        b.refers_back || b.names.is_empty() || b.names.iter().any(|n| a.analysis.names.iter().any(|m| m.same_as(n)))
    }

    /// Number of sentences that state a key (or hold it in a name): its document frequency.
    pub fn df(&self, key: &str) -> usize {
        self.index.term(key).map_or(0, |t| self.index.df(t))
    }

    /// Inverse document frequency of a key over the corpus's sentences (BM25's).
    pub fn idf(&self, key: &str) -> f64 {
        self.index.idf_for(self.df(key))
    }

    /// The best sentences for a set of keys by BM25 (k1 = 1.2, b = 0.75), best first, ties by
    /// position. Question keys count with `weight` < 1.
    pub fn retrieve(&self, keys: &[String], weighted: &[(String, f64)], limit: usize) -> Vec<usize> {
        self.retrieve_preferring(keys, weighted, limit, &|_| 0)
    }

    /// [`Corpus::retrieve`], except that when more sentences tie at the last score kept than
    /// there are places left, those kept are the ones `prefer` ranks higher (then the earlier):
    /// in a templated source thousands of sentences share every word of a claim and differ only
    /// in an amount ("… within 120 ms."), and the first few by position say nothing about it.
    /// Without such a tie the result is [`Corpus::retrieve`]'s.
    pub fn retrieve_preferring(
        &self,
        keys: &[String],
        weighted: &[(String, f64)],
        limit: usize,
        prefer: &dyn Fn(&Sentence) -> usize,
    ) -> Vec<usize> {
        let terms: Vec<(u32, f64)> = keys
            .iter()
            .map(|k| (k.as_str(), 1.0))
            .chain(weighted.iter().map(|(k, w)| (k.as_str(), *w)))
            .filter_map(|(k, w)| Some((self.index.term(k)?, w)))
            .collect();
        let mut scores: Vec<f64> = vec![0.0; self.sentences.len()];
        let mut touched: Vec<u32> = Vec::new();
        self.index.accumulate(&BM25, &terms, &mut scores, &mut touched);
        let mut top = warrant_text::rank::top(touched.iter().map(|&s| (scores[s as usize], s)), limit);
        if let Some(&last) = top.last()
            && top.len() == limit
        {
            let cut = scores[last as usize];
            let kept = top.iter().filter(|&&s| scores[s as usize] == cut).count();
            let mut tied: Vec<u32> = touched.iter().copied().filter(|&s| scores[s as usize] == cut).collect();
            if tied.len() > kept {
                tied.sort_by_key(|&s| (std::cmp::Reverse(prefer(&self.sentences[s as usize])), s));
                top.truncate(limit - kept);
                top.extend_from_slice(&tied[..kept]);
            }
        }
        top.into_iter().map(|s| s as usize).collect()
    }
}

/// A text split into sentences, each analysed: what [`Corpus::add`] computes for a source,
/// kept so it can be computed once for a text read many times.
#[derive(Debug, Default)]
pub struct Analysed {
    sentences: Vec<AnalysedSentence>,
    /// Stems the text writes in lower case, each once.
    lower: Vec<Arc<str>>,
    /// Stems the text capitalises inside a sentence, each once.
    named: Vec<Arc<str>>,
}

#[derive(Debug)]
struct AnalysedSentence {
    range: Range<usize>,
    analysis: Arc<Analysis>,
    /// The analysis with its opening word read as a name ([`Analysis::promote_opener`]),
    /// made when a corpus first asks for it.
    promoted: OnceLock<Arc<Analysis>>,
    glued: bool,
    cut: bool,
}

impl Analysed {
    /// Splits `text` into sentences (at `. ! ?`, paragraphs and lines) and analyses each.
    pub fn of(text: &str) -> Self {
        let mut out = Analysed::default();
        let mut lower: FastSet<&str> = FastSet::default();
        if let Some(fields) = records::fields(text) {
            // A structured source: a sentence per field, quoted as the field's own text and
            // read as its rendering ([`records`]).
            for f in fields {
                if f.prose {
                    out.add_prose(text, f.range);
                } else {
                    out.sentences.push(AnalysedSentence {
                        range: f.range,
                        analysis: Arc::new(Analysis::of(&f.text)),
                        promoted: OnceLock::new(),
                        glued: f.new_record,
                        cut: false,
                    });
                }
            }
        } else {
            for p in segment::paragraphs(text) {
                out.add_prose(text, p);
            }
        }
        let mut named: FastSet<&str> = FastSet::default();
        for s in &out.sentences {
            for (i, (stem, cap)) in s.analysis.stems.iter().zip(&s.analysis.caps).enumerate() {
                if !cap && lower.insert(stem) {
                    out.lower.push(Arc::from(stem.as_str()));
                }
                if *cap && i > 0 && named.insert(stem) {
                    out.named.push(Arc::from(stem.as_str()));
                }
            }
        }
        out
    }

    /// The sentences of `text[range]` (a paragraph), each analysed.
    fn add_prose(&mut self, text: &str, range: Range<usize>) {
        for sentence in segment::sentences_with(text, range, SOURCES) {
            // An overlong sentence (a text without sentence ends) in pieces.
            let pieces = bounded(text, sentence.range);
            let cut = pieces.len() > 1;
            for (k, piece) in pieces.into_iter().enumerate() {
                let analysis = Analysis::of(&text[piece.clone()]);
                self.sentences.push(AnalysedSentence {
                    range: piece,
                    analysis: Arc::new(analysis),
                    promoted: OnceLock::new(),
                    glued: sentence.glued && k == 0,
                    cut,
                });
            }
        }
    }

    /// Sentence `i` with its opening word read as a name.
    fn promoted(&self, i: usize) -> Arc<Analysis> {
        let s = &self.sentences[i];
        Arc::clone(s.promoted.get_or_init(|| {
            let mut a = Analysis::clone(&s.analysis);
            a.promote_opener();
            Arc::new(a)
        }))
    }

    /// Number of sentences.
    pub fn len(&self) -> usize {
        self.sentences.len()
    }

    /// True for a text without sentences.
    pub fn is_empty(&self) -> bool {
        self.sentences.is_empty()
    }
}

/// Longest sentence (bytes) read and quoted whole. A longer one — a text without sentence
/// ends, or a list run together — is read in pieces of at most [`PIECE`] bytes: reading it
/// whole cost time quadratic in its length, and every quote of it was all of it.
pub const LONG_SENTENCE: usize = 1000;

/// Most bytes of a piece of an overlong sentence.
pub const PIECE: usize = 400;

/// `r` (a trimmed sentence) whole when at most [`LONG_SENTENCE`] bytes, else cut into trimmed
/// pieces of at most [`PIECE`] bytes: at the last space of each piece's second half, or at
/// the char boundary nearest the limit when there is none there.
fn bounded(text: &str, r: Range<usize>) -> Vec<Range<usize>> {
    if r.len() <= LONG_SENTENCE {
        return vec![r];
    }
    let mut out = Vec::new();
    let mut start = r.start;
    loop {
        let rest = &text[start..r.end];
        start += rest.len() - rest.trim_start().len();
        if start >= r.end {
            break;
        }
        if r.end - start <= PIECE {
            out.push(segment::trim_range(text, start..r.end));
            break;
        }
        let mut limit = start + PIECE;
        while !text.is_char_boundary(limit) {
            limit -= 1;
        }
        let end = text[start..limit].rfind(char::is_whitespace).filter(|&i| i >= PIECE / 2).map_or(limit, |i| start + i);
        out.push(segment::trim_range(text, start..end));
        start = end;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_title_names_the_topic_and_is_never_a_sentence() {
        let text = "The tech giant is the largest online retailer. Jeff Bezos founded it in 1994.";
        let titled = Corpus::new(vec![Source::new("e1", text).titled(Some("Amazon (company)".into()))]);
        let words = |c: &Corpus| c.topic(0).map(|n| n.words.join(" "));
        // The text names Jeff Bezos: he is whom its "he" is; the title's name recurs.
        assert_eq!(words(&titled).as_deref(), Some("jeff bezos"));
        let unnamed = Corpus::new(vec![
            Source::new("e1", "The tech giant is the largest online retailer.").titled(Some("Amazon (company)".into())),
        ]);
        assert_eq!(words(&unnamed).as_deref(), Some("amazon"));
        assert_eq!(titled.recurring(0).next().map(|n| n.words.join(" ")).as_deref(), Some("amazon"));
        assert_eq!(titled.sentences().len(), 2, "the title is read, not split into the text");
        let plain = Corpus::new(vec![Source::new("e1", text)]);
        assert_eq!(words(&plain).as_deref(), Some("jeff bezos"));
        // A blank title is none; a title the sources write in lower case names nothing.
        assert_eq!(Source::new("e1", text).titled(Some("  ".into())).title, None);
        let colour =
            Corpus::new(vec![Source::new("e1", "The colour green lies between blue and yellow.").titled(Some("Green".into()))]);
        assert_eq!(words(&colour), None);
    }

    #[test]
    fn glued_sentences_split() {
        let c =
            Corpus::new(vec![Source::new("k", "Arthur's Magazine was published in Philadelphia.First for Women is a magazine.")]);
        assert_eq!(c.sentences().len(), 2);
        assert_eq!(&c.doc(0).text[c.sentences()[1].range.clone()], "First for Women is a magazine.");
        let c = Corpus::new(vec![Source::new("k", "He is an actor.H. Bruce Humberstone was a director.")]);
        assert_eq!(c.sentences().len(), 2, "split at the glue point, not after the initial");
        let c = Corpus::new(vec![Source::new("k", "It started on 30 March 2013.Reggie Yates is an actor. The U.S. Army.")]);
        assert_eq!(c.sentences().len(), 3);
        assert!(c.sentences()[1].glued && !c.sentences()[2].glued);
    }

    #[test]
    fn sources_analysed_beforehand_make_the_same_corpus() {
        let texts = ["Refunds are issued weekly. Canberra is the capital.", "We process refunds daily.", "Canberra hosts it."];
        let fresh = Corpus::new(texts.iter().enumerate().map(|(i, t)| Source::new(format!("s{i}"), *t)).collect());
        let mut built = Corpus::default();
        for (i, t) in texts.iter().enumerate() {
            built.add_analysed(Source::new(format!("s{i}"), *t), Arc::new(Analysed::of(t)));
        }
        built.settle_openers();
        let show = |c: &Corpus| c.sentences().iter().map(|s| format!("{:?} {:?}", s.range, s.analysis)).collect::<Vec<_>>();
        assert_eq!(show(&fresh), show(&built));
        // "Refunds" is written in lower case in another source: a common word, not a name;
        // "Canberra" never is: a name.
        let first = &built.sentences()[0].analysis;
        assert!(first.names.is_empty() && first.keys.contains(&crate::lexicon::key("refunds")));
        assert_eq!(built.sentences()[1].analysis.names[0].words, ["canberra"]);
        assert!(built.written_lower(&crate::lexicon::stem("refunds")) && !built.written_lower("canberra"));
    }

    #[test]
    fn overlong_sentences_are_read_in_bounded_pieces() {
        // No sentence ends: 6,000 words with a multi-byte char and a long unbroken run.
        let mut text: String = (0..6000).map(|i| format!("wörd{} ", i % 97)).collect();
        text.push_str(&"x".repeat(1500));
        text.push_str(" tail. A short sentence follows.");
        let c = Corpus::new(vec![Source::new("k", text.clone())]);
        let n = c.sentences().len();
        assert!(n > 100, "{n} pieces");
        let mut prev_end = 0;
        for (i, s) in c.sentences().iter().enumerate() {
            let piece = &text[s.range.clone()];
            assert!(piece.len() <= PIECE || !s.cut, "piece {i} is {} bytes", piece.len());
            assert_eq!(piece, piece.trim(), "piece {i} is trimmed");
            assert!(!piece.is_empty() && s.range.start >= prev_end, "pieces are ordered and disjoint");
            prev_end = s.range.end;
            assert!(!c.joinable(i, i + 1) || !s.cut, "a piece is never joined");
        }
        // Cut at spaces (the unbroken run hard-cut), nothing lost but blanks.
        let kept: String = c.sentences().iter().map(|s| &text[s.range.clone()]).collect::<Vec<_>>().join(" ");
        assert_eq!(kept.split_whitespace().collect::<String>(), text.split_whitespace().collect::<String>());
        let last = c.sentences().last().unwrap();
        assert!(!last.cut && &text[last.range.clone()] == "A short sentence follows.");
        // A sentence up to the bound stays whole.
        let long = format!("{}end.", "word ".repeat(190));
        assert!(long.len() > PIECE && long.len() <= LONG_SENTENCE);
        let c = Corpus::new(vec![Source::new("k", long.clone())]);
        assert_eq!(c.sentences().len(), 1);
        assert!(!c.sentences()[0].cut);
    }

    #[test]
    fn retrieval_ranks_by_shared_keys() {
        let c = Corpus::new(vec![
            Source::new("a", "Cats sleep a lot. Dogs bark at night."),
            Source::new("b", "Session tokens expire after 30 minutes."),
        ]);
        let keys: Vec<String> = ["token", "expir"].iter().map(|k| crate::lexicon::key(k)).collect();
        assert_eq!(c.retrieve(&keys, &[], 2), vec![2]);
    }

    #[test]
    fn ties_at_the_cut_off_go_to_the_preferred_sentences() {
        let text: String = (0..50).map(|i| format!("The service answers within {} seconds. ", 100 + i)).collect();
        let c = Corpus::new(vec![Source::new("a", text)]);
        assert_eq!(c.sentences().len(), 50);
        let keys: Vec<String> = ["service", "answers"].iter().map(|k| crate::lexicon::key(k)).collect();
        assert_eq!(c.retrieve(&keys, &[], 3), vec![0, 1, 2], "ties by position");
        let prefer = |s: &Sentence| usize::from(c.doc(0).text[s.range.clone()].contains("140"));
        assert_eq!(c.retrieve_preferring(&keys, &[], 3, &prefer), vec![40, 0, 1], "a tied place goes to the preferred");
    }
}
