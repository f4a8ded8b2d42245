//! Checking against a knowledge store: the candidate chunks a claim is held against, and
//! fact-level signals (a claim's own facts matched against the store's validated facts).

use std::collections::{BTreeMap, BTreeSet};

use std::sync::Arc;

pub use crate::chunk_index::ChunkIndex;
use crate::chunk_index::{Loaded, Memo, PERSISTED, Ranking};
use warrant_facts::{ChunkContext, Fact, Object, Polarity, Vocabulary, extract_facts};
use warrant_store::{Chunk, FactQuery, Store, StoreError};
use warrant_verify::{Analysed, ClaimResult, Corpus, Edge, QUESTION_WEIGHT, Relationship, Selector, Source, Status};

/// Chunks retrieved per claim from a store.
pub const CHUNKS_PER_CLAIM: usize = 8;

/// Fact edges of each kind (supporting, contradicting) added per claim at most.
pub const MAX_FACT_EDGES: usize = 3;

/// The chunks BM25 retrieved for each claim text (chunk ids), so fact lookups can keep to
/// them without searching again.
pub type ChunkScope = BTreeMap<String, BTreeSet<String>>;

/// The corpus a set of claims is checked against in a store: the BM25 top chunks for each
/// claim text ([`ChunkIndex`]; the question's words, if any, count as weaker context, so a
/// bare answer such as "Lucy Gordon" finds the passage the question is about), each chunk a
/// source placed at its offset in its document (so quotes point into the document), in
/// document id then chunk order (so equal stores ingested in another order give the same
/// corpus); and which chunks each claim retrieved.
pub fn retrieve(store: &dyn Store, claims: &[&str], question: Option<&str>, per_claim: usize) -> Result<Retrieved, StoreError> {
    // The index kept in the store for its current state, if any: a fresh process reads only
    // what these claims need, a long-lived one only what no earlier check read (the memo).
    // Else the index in memory (built on first use).
    let memo = Memo::of(store)?;
    let mut found = None;
    store.read_persisted(PERSISTED, &mut |view| {
        let texts: Vec<&str> = claims.iter().copied().chain(question).collect();
        found = Some(pick(&Loaded::load(view, Arc::clone(&memo), &texts)?, claims, question, per_claim)?);
        Ok(())
    })?;
    let picked = match found {
        Some(p) => p,
        None => pick(&*ChunkIndex::of(store)?, claims, question, per_claim)?,
    };
    // Each chunk carries its document's title, as a whole document does: "He won the prize
    // in 1921" under the title "Albert Einstein" speaks of Einstein. Looked up after the
    // persisted view is released, once per document.
    let mut titles: BTreeMap<String, Option<String>> = BTreeMap::new();
    for (chunk, _) in &picked.chunks {
        if !titles.contains_key(&chunk.doc_id) {
            let title = store.document(&chunk.doc_id)?.and_then(|d| d.title);
            titles.insert(chunk.doc_id.clone(), title);
        }
    }
    let mut corpus = Corpus::default();
    for (chunk, analysed) in picked.chunks {
        let title = titles.get(&chunk.doc_id).cloned().flatten();
        let mut source = Source::new(chunk.doc_id, chunk.text).titled(title);
        source.offset = chunk.start;
        corpus.add_analysed(source, analysed);
    }
    corpus.settle_openers();
    Ok(Retrieved { corpus, scope: picked.scope, searched: picked.searched })
}

/// The chunks BM25 ranked best for the claims, in document id then chunk order.
struct Picked {
    chunks: Vec<(Chunk, Arc<Analysed>)>,
    scope: ChunkScope,
    searched: usize,
}

fn pick(index: &dyn Ranking, claims: &[&str], question: Option<&str>, per_claim: usize) -> Result<Picked, StoreError> {
    let context = question.map(|q| index.terms_of(q)).unwrap_or_default();
    let queries: Vec<Vec<(u32, f64)>> = claims
        .iter()
        .map(|text| {
            let own = index.terms_of(text);
            let mut terms: Vec<(u32, f64)> = own.iter().map(|&t| (t, 1.0)).collect();
            terms.extend(context.iter().filter(|t| !own.contains(t)).map(|&t| (t, QUESTION_WEIGHT)));
            terms
        })
        .collect();
    let hits: Vec<(&str, Vec<usize>)> = claims.iter().copied().zip(index.best_each(&queries, per_claim)).collect();
    let picked: Vec<usize> = hits.iter().flat_map(|(_, h)| h.iter().copied()).collect::<BTreeSet<_>>().into_iter().collect();
    let fetched = index.fetch(&picked)?;
    let at = |p: usize| picked.binary_search(&p).map(|i| &fetched[i].0).ok();
    let mut scope = ChunkScope::new();
    for (text, positions) in &hits {
        let ids = scope.entry((*text).to_string()).or_default();
        ids.extend(positions.iter().filter_map(|&p| at(p)).map(|c| c.id.clone()));
    }
    let mut chunks = fetched;
    chunks.sort_by(|(a, _), (b, _)| (&a.doc_id, a.index).cmp(&(&b.doc_id, b.index)));
    Ok(Picked { chunks, scope, searched: index.chunk_count() })
}

/// What [`retrieve`] found.
#[derive(Debug)]
pub struct Retrieved {
    /// The retrieved chunks, as sources.
    pub corpus: Corpus,
    /// The chunks each claim text retrieved.
    pub scope: ChunkScope,
    /// How many chunks were searched (the store's, at the state searched).
    pub searched: usize,
}

/// Every document of a store, whole (for a small store built from `--sources`).
pub fn corpus_of_documents(store: &dyn Store) -> Result<Corpus, StoreError> {
    let mut sources = Vec::new();
    for d in store.documents()? {
        if let Some(text) = store.document_text(&d.id)? {
            sources.push(Source::new(d.id, text).titled(d.title));
        }
    }
    Ok(Corpus::new(sources))
}

/// How a stored fact bears on a fact the claim states.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Bearing {
    Agrees,
    Conflicts,
}

/// Adds fact-level evidence to checked claims: each claim is read by the store's pattern
/// extractor, and its facts are looked up by subject and predicate. A stored fact with the
/// same object and polarity supports the claim (an unsupported or partly supported claim
/// becomes supported); one with the opposite polarity, or another object for a functional
/// predicate, contradicts it. Facts under another stated condition or version are not compared.
///
/// With a `scope` (a large store), only facts read from the chunks retrieved for the claim
/// count: the same subject and predicate in an unrelated document ("audit logs expire after
/// 30 minutes" in another product's policy) is another fact, not a conflict. At most
/// [`MAX_FACT_EDGES`] edges of each kind are added per claim.
pub fn apply_fact_signals(
    store: &dyn Store,
    vocab: &Vocabulary,
    claims: &mut [ClaimResult],
    scope: Option<&ChunkScope>,
) -> Result<(), StoreError> {
    // Every claim's facts first, so the store answers all their lookups at once (one
    // transaction on a server store, instead of one per fact).
    let stated: Vec<Vec<Fact>> = claims
        .iter()
        .map(|claim| {
            if matches!(claim.status, Status::NotApplicable | Status::Unverified) {
                return Vec::new();
            }
            let read = extract_facts(vocab, &ChunkContext::new(&claim.text, "claim", "claim#1", None));
            read.facts.into_iter().map(|v| v.fact).collect()
        })
        .collect();
    let queries: Vec<FactQuery> =
        stated.iter().flatten().map(|mine| FactQuery::subject_predicate(&mine.subject, &mine.predicate)).collect();
    if queries.is_empty() {
        return Ok(());
    }
    let mut answers = store.facts_each(&queries)?.into_iter();
    let nothing = BTreeSet::new();
    let mut bearings: Vec<Vec<(Bearing, Fact)>> = Vec::with_capacity(claims.len());
    for (claim, mine) in claims.iter().zip(&stated) {
        let allowed = scope.map(|s| s.get(&claim.text).unwrap_or(&nothing));
        let mut found: Vec<(Bearing, Fact)> = Vec::new();
        for mine in mine {
            let functional = matches!(vocab.cardinality(&mine.predicate), warrant_facts::Cardinality::Functional);
            for theirs in answers.next().unwrap_or_default() {
                if allowed.is_some_and(|a| !a.contains(&theirs.source.chunk_id)) {
                    continue;
                }
                if let Some(b) = bearing(mine, &theirs, functional) {
                    found.push((b, theirs));
                }
            }
        }
        // At most MAX_FACT_EDGES of each kind, counted whether or not the quote is found.
        let mut added = [0usize; 2];
        found.retain(|(b, _)| {
            let kind = usize::from(*b == Bearing::Conflicts);
            added[kind] += 1;
            added[kind] <= MAX_FACT_EDGES
        });
        bearings.push(found);
    }
    // The chunks the kept facts quote, read at once.
    let ids: Vec<&str> =
        bearings.iter().flatten().map(|(_, f)| f.source.chunk_id.as_str()).collect::<BTreeSet<_>>().into_iter().collect();
    let chunks: BTreeMap<String, Chunk> =
        ids.iter().zip(store.chunks_by_id(&ids)?).filter_map(|(id, c)| Some(((*id).to_string(), c?))).collect();
    for (claim, found) in claims.iter_mut().zip(bearings) {
        for (bearing, fact) in found {
            let Some(selector) = chunks.get(&fact.source.chunk_id).and_then(|c| fact_selector(c, &fact)) else { continue };
            // The same quote, or one inside an edge of the same kind that the alignment already
            // quoted from this source (the fact's span is a part of its sentence), adds nothing.
            let kind = match bearing {
                Bearing::Agrees => Relationship::Supports,
                Bearing::Conflicts => Relationship::Contradicts,
            };
            let already = claim.support_edges.iter().any(|e| {
                e.source_id == fact.source.doc_id
                    && (e.selector == selector
                        || e.relationship == kind && e.selector.start <= selector.start && selector.end <= e.selector.end)
            });
            let described = format!("{} {} {}", fact.subject, fact.predicate, fact.object);
            match bearing {
                Bearing::Agrees => {
                    if matches!(claim.status, Status::Unsupported | Status::PartiallySupported) {
                        claim.status = Status::Supported;
                        claim.confidence = fact.confidence.min(1.0);
                        claim.reason = format!("the fact {described} is stated in {}", fact.source.doc_id);
                        claim.support_edges.retain(|e| e.relationship != Relationship::Background);
                    }
                    if !already {
                        push_edge(claim, Relationship::Supports, fact.source.doc_id.clone(), selector, fact.confidence);
                    }
                }
                Bearing::Conflicts => {
                    if claim.status != Status::Contradicted {
                        claim.status = Status::Contradicted;
                        claim.confidence = fact.confidence.min(1.0);
                        claim.reason = format!("the source states the fact {described}, which the claim contradicts");
                    }
                    if !already {
                        push_edge(claim, Relationship::Contradicts, fact.source.doc_id.clone(), selector, fact.confidence);
                    }
                }
            }
        }
    }
    Ok(())
}

/// How a stored fact bears on one the claim states, if at all. A claim without a condition is
/// compared with a fact under one ("after 30 minutes" / "after 30 minutes of inactivity");
/// two different conditions, or two different versions, are not compared.
fn bearing(mine: &Fact, theirs: &Fact, functional: bool) -> Option<Bearing> {
    let conditions_differ = mine.condition().is_some() && theirs.condition() != mine.condition();
    if conditions_differ || mine.normalized_version().is_some_and(|v| theirs.normalized_version().is_some_and(|t| t != v)) {
        return None;
    }
    let same_object = objects_agree(&mine.object, &theirs.object);
    match (same_object, theirs.polarity == mine.polarity) {
        (true, true) => Some(Bearing::Agrees),
        (true, false) => Some(Bearing::Conflicts),
        (false, _) if functional && theirs.polarity == Polarity::Affirm && mine.polarity == Polarity::Affirm => {
            Some(Bearing::Conflicts)
        }
        _ => None,
    }
}

fn push_edge(claim: &mut ClaimResult, relationship: Relationship, source_id: String, selector: Selector, confidence: f64) {
    let n = claim.support_edges.len() + 1;
    claim.support_edges.push(Edge {
        edge_id: format!("{}-e{n}", claim.claim_id),
        relationship,
        source_id,
        selector,
        confidence: (confidence * 1000.0).round() / 1000.0,
    });
}

/// The fact's quote in `chunk` (its chunk), in chars of its document (fact spans are
/// chunk-relative).
fn fact_selector(chunk: &Chunk, fact: &Fact) -> Option<Selector> {
    let exact: String = chunk.text.chars().skip(fact.span.start).take(fact.span.end.saturating_sub(fact.span.start)).collect();
    if exact.is_empty() {
        return None;
    }
    Some(Selector { exact, start: chunk.start + fact.span.start, end: chunk.start + fact.span.end })
}

/// Same object: equal after case and space folding, or the same amount ("30 minutes",
/// "half an hour").
fn objects_agree(a: &Object, b: &Object) -> bool {
    match (a, b) {
        (Object::String(x), Object::String(y)) => {
            let fold = |s: &str| warrant_text::normalize::collapse_whitespace(s).to_lowercase();
            fold(x) == fold(y) || same_amount(x, y)
        }
        (Object::Number(x), Object::Number(y)) => warrant_facts::numbers_equal(x, y),
        (Object::Bool(x), Object::Bool(y)) => x == y,
        _ => a.to_string() == b.to_string(),
    }
}

fn same_amount(a: &str, b: &str) -> bool {
    let one = |s: &str| {
        let q = warrant_text::quantity::find_quantities(s);
        match q.as_slice() {
            [q] => Some((q.dimension.clone(), q.canonical().unwrap_or_else(|| q.value.clone()))),
            _ => None,
        }
    };
    matches!((one(a), one(b)), (Some(x), Some(y)) if x == y)
}
