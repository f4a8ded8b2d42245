//! The knowledge graph the chain walks, built over a [`Store`]:
//!
//! - **entity nodes** come from the store's entity index (canonical entity strings such as
//!   `session_token`, with their aliases and mentions);
//! - **edges** come from facts: subject → object by predicate. An object that is itself a
//!   stored entity is an entity neighbour; any other object (a duration, a date, a value) is
//!   reached through the chunk that states the fact;
//! - **chunk nodes** are the evidence bodies: the text every evidence item quotes from.
//!
//! Node ids have the spec's six dotted parts (§8), so `partial_id` suffix resolution works:
//!
//! | node | id | partial ids that resolve |
//! |---|---|---|
//! | entity `session_token` | `warrant.local.knowledge.graph.entity.session_token` | `session_token`, `entity.session_token` |
//! | chunk `auth#2` | `warrant.local.knowledge.chunk.auth.2` | `2`, `auth.2` |
//!
//! Document ids may hold dots (`docs/a.md`): in a chunk id, `%` and `.` of the document id are
//! percent-encoded (`docs/a%2Emd`), so every id decodes back to its store key ([`parse_node_id`]).

use std::collections::BTreeSet;

use warrant_facts::{Fact, Object, canonical_entity};
use warrant_store::{FactQuery, SearchHit, Store};

use crate::payload::Evidence;
use crate::subquery::{SubQuery, SubQueryKind};
use crate::text::{Terms, best_sentence, sentence_at};

/// The first two parts of every node id: organisation and platform.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdScheme {
    /// Organisation part (default `warrant`).
    pub org: String,
    /// Platform part (default `local`).
    pub platform: String,
}

impl Default for IdScheme {
    fn default() -> Self {
        Self { org: "warrant".into(), platform: "local".into() }
    }
}

/// A graph node as the store knows it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Node {
    /// A stored entity (canonical entity string).
    Entity(String),
    /// A stored chunk (`<docId>#<n>`).
    Chunk(String),
}

/// Domain part of graph node ids.
const DOMAIN: &str = "knowledge";

fn encode_part(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '%' => out.push_str("%25"),
            '.' => out.push_str("%2E"),
            c => out.push(c),
        }
    }
    out
}

fn decode_part(s: &str) -> Option<String> {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(p) = rest.find('%') {
        out.push_str(&rest[..p]);
        match rest.get(p + 1..p + 3) {
            Some("25") => out.push('%'),
            Some("2E" | "2e") => out.push('.'),
            _ => return None,
        }
        rest = &rest[p + 3..];
    }
    out.push_str(rest);
    Some(out)
}

impl IdScheme {
    /// The id of an entity node (`<org>.<platform>.knowledge.graph.entity.<canonical>`).
    pub fn entity_id(&self, canonical: &str) -> String {
        format!("{}.{}.{DOMAIN}.graph.entity.{}", self.org, self.platform, encode_part(canonical))
    }

    /// The id of a chunk node (`<org>.<platform>.knowledge.chunk.<doc>.<n>`); `None` for a chunk
    /// id not of the form `<docId>#<n>`.
    pub fn chunk_id(&self, chunk: &str) -> Option<String> {
        let (doc, n) = chunk.rsplit_once('#')?;
        if doc.is_empty() || n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        Some(format!("{}.{}.{DOMAIN}.chunk.{}.{n}", self.org, self.platform, encode_part(doc)))
    }

    /// The id of a node.
    pub fn node_id(&self, node: &Node) -> Option<String> {
        match node {
            Node::Entity(e) => Some(self.entity_id(e)),
            Node::Chunk(c) => self.chunk_id(c),
        }
    }
}

/// The store node an id names (any organisation and platform), or `None` for an id that is
/// not a graph node id.
pub fn parse_node_id(id: &str) -> Option<Node> {
    let parts: Vec<&str> = id.split('.').collect();
    if parts.len() != 6 || parts.iter().any(|p| p.is_empty()) || parts[2] != DOMAIN {
        return None;
    }
    match (parts[3], parts[4]) {
        ("graph", "entity") => decode_part(parts[5]).map(Node::Entity),
        ("chunk", doc) if parts[5].bytes().all(|b| b.is_ascii_digit()) => {
            decode_part(doc).map(|d| Node::Chunk(format!("{d}#{}", parts[5])))
        }
        _ => None,
    }
}

/// Whether an id has exactly six non-empty dot-separated parts (spec §8).
#[cfg(test)]
fn is_entity_id(id: &str) -> bool {
    let parts: Vec<&str> = id.split('.').collect();
    parts.len() == 6 && parts.iter().all(|p| !p.is_empty())
}

/// An entity hit of the classifier: the entity and the topic words that named it.
#[derive(Debug, Clone, PartialEq)]
pub struct EntityHit {
    /// Canonical entity string.
    pub canonical: String,
    /// The label: a stored alias occurring in the topic, else the topic words as written.
    pub label: String,
    /// Words of the topic the hit covers.
    pub words: usize,
    /// A sentence about the entity, with the chunk it comes from.
    pub snippet: Option<(String, String)>,
}

/// Runs sub-queries: the graph primitives (spec §6.4) behind one method, so fusion can be
/// tested against fakes.
pub trait SubQueryRunner: Sync {
    /// Runs one sub-query; `limit` caps its results. An `Err` degrades the execution.
    fn run(&self, query: &SubQuery, limit: usize) -> Result<Vec<Evidence>, String>;
}

/// The knowledge graph over a store.
pub struct StoreGraph<'s> {
    store: &'s dyn Store,
    scheme: IdScheme,
    /// Predicates whose objects are timestamps (for `temporal_range`).
    timestamp_predicates: Vec<String>,
    /// Words that steer snippet choice (the working topic's terms).
    focus: Terms,
    /// Capped chunk frequencies of query words, shared by the graph's focused copies.
    df_cache: std::sync::Arc<std::sync::Mutex<std::collections::HashMap<String, usize>>>,
    /// Chunk count from which a query word is common ([`COMMON_CHUNKS`]).
    common_chunks: usize,
}

/// A sentence quoted from a chunk, with the chunk id.
type Quote = (String, String);

/// Mentions read per entity hit (labels come from the aliases among them).
const HEAD_MENTIONS: usize = 16;

/// A query word in this many chunks or more is left out of BM25 queries that have rarer words.
pub const COMMON_CHUNKS: usize = 2_000;

impl<'s> StoreGraph<'s> {
    /// A graph over `store` with the default id scheme.
    pub fn new(store: &'s dyn Store) -> Self {
        Self {
            store,
            scheme: IdScheme::default(),
            timestamp_predicates: timestamp_predicates(),
            focus: Terms::default(),
            df_cache: Default::default(),
            common_chunks: COMMON_CHUNKS,
        }
    }

    /// Uses another id scheme.
    pub fn with_scheme(mut self, scheme: IdScheme) -> Self {
        self.scheme = scheme;
        self
    }

    /// Sets the chunk count from which a query word counts as common (default
    /// [`COMMON_CHUNKS`]; `usize::MAX` keeps every word).
    pub fn with_common_chunks(mut self, n: usize) -> Self {
        self.common_chunks = n.max(1);
        self
    }

    /// The same graph with snippets chosen for `topic`'s terms.
    pub fn focused(&self, topic: &str) -> StoreGraph<'s> {
        StoreGraph {
            store: self.store,
            scheme: self.scheme.clone(),
            timestamp_predicates: self.timestamp_predicates.clone(),
            focus: Terms::of(topic),
            df_cache: self.df_cache.clone(),
            common_chunks: self.common_chunks,
        }
    }

    /// The store.
    pub fn store(&self) -> &'s dyn Store {
        self.store
    }

    /// The id scheme.
    pub fn scheme(&self) -> &IdScheme {
        &self.scheme
    }

    /// Entities named in `topic`: every run of 1–4 words (not only stopwords) looked up in the
    /// entity index; a longer phrase wins over the words inside it. In topic order.
    pub fn entity_hits(&self, topic: &str) -> Result<Vec<EntityHit>, String> {
        let words = crate::text::word_ranges(topic);
        let mut taken = vec![false; words.len()];
        let mut hits: Vec<(usize, EntityHit)> = Vec::new();
        let mut seen = BTreeSet::new();
        for n in (1..=4.min(words.len())).rev() {
            for i in 0..=words.len() - n {
                if taken[i..i + n].iter().any(|t| *t) {
                    continue;
                }
                let phrase = &topic[words[i].start..words[i + n - 1].end];
                if words[i..i + n].iter().all(|r| crate::text::is_stopword(&topic[r.clone()].to_lowercase())) {
                    continue;
                }
                let Some(entity) = self.store.entity_head(phrase, HEAD_MENTIONS).map_err(|e| e.to_string())? else { continue };
                taken[i..i + n].iter_mut().for_each(|t| *t = true);
                if !seen.insert(entity.id.clone()) {
                    continue;
                }
                let label = entity
                    .aliases
                    .iter()
                    .find(|a| crate::text::contains_phrase(topic, a))
                    .cloned()
                    .unwrap_or_else(|| phrase.to_string());
                let snippet = self.entity_snippet(&entity.id, entity.mentions.first().and_then(|m| m.chunk_id.clone()))?;
                hits.push((i, EntityHit { canonical: entity.id, label, words: n, snippet }));
            }
        }
        hits.sort_by_key(|(i, _)| *i);
        Ok(hits.into_iter().map(|(_, h)| h).collect())
    }

    /// BM25 over chunk text, on the query's terms ([`Self::query_terms`]).
    pub fn search(&self, query: &str, limit: usize) -> Result<Vec<SearchHit>, String> {
        let terms = self.query_terms(query)?;
        if terms.is_empty() {
            return Ok(Vec::new());
        }
        self.store.search(&terms.join(" "), limit).map_err(|e| e.to_string())
    }

    /// The words a BM25 query keeps: the query's terms (no stopwords, no one-letter words),
    /// minus words in [`COMMON_CHUNKS`] chunks or more (see [`Self::with_common_chunks`]) when a rarer term remains (project rule).
    /// A BM25 query costs time in proportion to the chunks its words occur in, and a word in a
    /// large share of the chunks adds little to the ranking; when every term is that common,
    /// the rarest one is kept.
    pub fn query_terms(&self, query: &str) -> Result<Vec<String>, String> {
        let terms = Terms::of(query).as_slice().to_vec();
        if terms.len() <= 1 {
            return Ok(terms);
        }
        let mut counts = Vec::with_capacity(terms.len());
        for t in &terms {
            let cached = self.df_cache.lock().unwrap_or_else(std::sync::PoisonError::into_inner).get(t).copied();
            let n = match cached {
                Some(n) => n,
                None => {
                    let n = self.store.chunk_frequency(t, self.common_chunks).map_err(|e| e.to_string())?;
                    let mut cache = self.df_cache.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                    if cache.len() > 10_000 {
                        cache.clear();
                    }
                    cache.insert(t.clone(), n);
                    n
                }
            };
            counts.push(n);
        }
        let kept: Vec<String> =
            terms.iter().zip(&counts).filter(|(_, n)| **n < self.common_chunks).map(|(t, _)| t.clone()).collect();
        if !kept.is_empty() {
            return Ok(kept);
        }
        let rarest = counts.iter().enumerate().min_by_key(|(_, n)| **n).map_or(0, |(i, _)| i);
        Ok(vec![terms[rarest].clone()])
    }

    /// The sentence of a chunk that best matches the focus (or `terms`), exact as stored.
    pub fn chunk_snippet(&self, text: &str, terms: &Terms) -> String {
        let terms = if terms.is_empty() { &self.focus } else { terms };
        best_sentence(text, terms).to_string()
    }

    /// A sentence about an entity: the sentence of its first fact as subject, else of its
    /// first mention; with the chunk id it quotes.
    fn entity_snippet(&self, canonical: &str, mention_chunk: Option<String>) -> Result<Option<(String, String)>, String> {
        let q = FactQuery { subject: Some(canonical.to_string()), limit: Some(1), ..FactQuery::default() };
        let facts = self.store.facts(&q).map_err(|e| e.to_string())?;
        if let Some(f) = facts.first()
            && let Some(s) = self.fact_sentence(f)?
        {
            return Ok(Some(s));
        }
        let Some(chunk_id) = mention_chunk else { return Ok(None) };
        let Some(chunk) = self.store.chunk(&chunk_id).map_err(|e| e.to_string())? else { return Ok(None) };
        let s = self.chunk_snippet(&chunk.text, &Terms::of(&canonical.replace('_', " ")));
        Ok((!s.is_empty()).then_some((s, chunk.id)))
    }

    /// The sentence of its chunk a fact was read from, with the chunk id.
    fn fact_sentence(&self, f: &Fact) -> Result<Option<(String, String)>, String> {
        let Some(chunk) = self.store.chunk(&f.source.chunk_id).map_err(|e| e.to_string())? else { return Ok(None) };
        let s = sentence_at(&chunk.text, f.span.start).to_string();
        Ok((!s.is_empty()).then_some((s, chunk.id)))
    }

    fn entity_evidence(&self, q: &SubQuery, canonical: &str, snippet: Option<(String, String)>) -> Option<Evidence> {
        let (snippet_text, objectstore_ref) = snippet.unwrap_or_default();
        Some(Evidence {
            entity_id: self.scheme.entity_id(canonical),
            tier: q.tier.clone(),
            source: q.source.clone(),
            score: 0.0,
            snippet_text,
            objectstore_ref,
        })
    }

    fn chunk_evidence(&self, q: &SubQuery, chunk_id: &str, snippet: String, score: f64) -> Option<Evidence> {
        Some(Evidence {
            entity_id: self.scheme.chunk_id(chunk_id)?,
            tier: q.tier.clone(),
            source: q.source.clone(),
            score,
            snippet_text: snippet,
            objectstore_ref: chunk_id.to_string(),
        })
    }

    fn entity_state(&self, q: &SubQuery, ids: &[String], limit: usize) -> Result<Vec<Evidence>, String> {
        let mut out = Vec::new();
        for id in ids {
            if out.len() >= limit {
                break;
            }
            match parse_node_id(id) {
                Some(Node::Entity(e)) => {
                    let Some(entity) = self.store.entity_head(&e, 1).map_err(|e| e.to_string())? else { continue };
                    if entity.id != e {
                        continue; // only the exact entity, not a plural/singular variant
                    }
                    let snippet = self.entity_snippet(&e, entity.mentions.first().and_then(|m| m.chunk_id.clone()))?;
                    out.extend(self.entity_evidence(q, &e, snippet));
                }
                Some(Node::Chunk(c)) => {
                    let Some(chunk) = self.store.chunk(&c).map_err(|e| e.to_string())? else { continue };
                    let s = self.chunk_snippet(&chunk.text, &Terms::default());
                    out.extend(self.chunk_evidence(q, &chunk.id, s, 0.0));
                }
                None => {} // not a node of this graph: logged upstream, never evidence
            }
        }
        Ok(out)
    }

    /// Outgoing edges of a node: `(neighbour, sentence stating the edge)`.
    fn neighbours(&self, node: &Node, predicates: &[String], limit: usize) -> Result<Vec<(Node, Quote)>, String> {
        let facts: Vec<Fact> = match node {
            Node::Entity(e) => {
                let q = FactQuery { subject: Some(e.clone()), ..FactQuery::default() };
                self.collect_facts(&q, predicates, limit)?
            }
            Node::Chunk(c) => {
                let q = FactQuery { chunk_id: Some(c.clone()), ..FactQuery::default() };
                self.collect_facts(&q, predicates, limit)?
            }
        };
        let mut out = Vec::new();
        for f in facts {
            let Some(sentence) = self.fact_sentence(&f)? else { continue };
            let next = match node {
                Node::Chunk(_) => Some(Node::Entity(f.subject.clone())),
                Node::Entity(_) => match &f.object {
                    Object::String(s) => {
                        let c = canonical_entity(s);
                        let known =
                            !c.is_empty() && self.store.entity_head(&c, 0).map_err(|e| e.to_string())?.is_some_and(|e| e.id == c);
                        Some(if known { Node::Entity(c) } else { Node::Chunk(f.source.chunk_id.clone()) })
                    }
                    _ => Some(Node::Chunk(f.source.chunk_id.clone())),
                },
            };
            if let Some(n) = next.filter(|n| n != node) {
                out.push((n, sentence));
            }
        }
        Ok(out)
    }

    fn collect_facts(&self, q: &FactQuery, predicates: &[String], limit: usize) -> Result<Vec<Fact>, String> {
        let mut out = Vec::new();
        self.store
            .visit_facts(q, &mut |f| {
                if predicates.is_empty() || predicates.contains(&f.predicate) {
                    out.push(f);
                }
                out.len() < limit
            })
            .map_err(|e| e.to_string())?;
        Ok(out)
    }

    fn predicate_walk(
        &self,
        q: &SubQuery,
        seeds: &[String],
        predicates: &[String],
        hops: u32,
        limit: usize,
    ) -> Result<Vec<Evidence>, String> {
        let mut frontier: Vec<Node> = seeds.iter().filter_map(|s| parse_node_id(s)).collect();
        let mut visited: BTreeSet<Node> = frontier.iter().cloned().collect();
        let mut out = Vec::new();
        for _ in 0..hops.max(1) {
            let mut next = Vec::new();
            for node in &frontier {
                for (n, (snippet, chunk)) in self.neighbours(node, predicates, limit)? {
                    if out.len() >= limit {
                        return Ok(out);
                    }
                    if !visited.insert(n.clone()) {
                        continue;
                    }
                    let ev = match &n {
                        Node::Entity(e) => self.entity_evidence(q, e, Some((snippet, chunk))),
                        Node::Chunk(c) => self.chunk_evidence(q, c, snippet, 0.0),
                    };
                    out.extend(ev);
                    next.push(n);
                }
            }
            frontier = next;
        }
        Ok(out)
    }

    fn temporal_range(&self, q: &SubQuery, start: &str, end: &str, limit: usize) -> Result<Vec<Evidence>, String> {
        let parse = |s: &str| warrant_facts::parse_timestamp_ms(s).map_err(|e| format!("bad time {s:?}: {e:?}"));
        let (lo, hi) = (parse(start)?, parse(end)?);
        let mut out = Vec::new();
        let mut seen = BTreeSet::new();
        for p in &self.timestamp_predicates {
            let fq = FactQuery { predicate: Some(p.clone()), ..FactQuery::default() };
            let mut hits = Vec::new();
            self.store
                .visit_facts(&fq, &mut |f| {
                    let t = match &f.object {
                        Object::String(s) => warrant_facts::parse_timestamp_ms(s).ok(),
                        _ => None,
                    };
                    if t.is_some_and(|t| (lo..=hi).contains(&t)) && seen.insert(f.subject.clone()) {
                        hits.push(f);
                    }
                    hits.len() + out.len() < limit
                })
                .map_err(|e| e.to_string())?;
            for f in hits {
                let s = self.fact_sentence(&f)?;
                out.extend(self.entity_evidence(q, &f.subject, s));
            }
            if out.len() >= limit {
                break;
            }
        }
        Ok(out)
    }

    fn bm25(&self, q: &SubQuery, query: &str, limit: usize) -> Result<Vec<Evidence>, String> {
        let terms = Terms::of(query);
        let hits = self.search(query, limit)?;
        Ok(hits
            .into_iter()
            // A heading names a section; it states nothing, so it is never evidence.
            .filter(|h| !is_heading_only(&h.text))
            .filter_map(|h| {
                let s = self.chunk_snippet(&h.text, &terms);
                self.chunk_evidence(q, &h.chunk_id, s, h.score)
            })
            .collect())
    }

    /// Whether an evidence id resolves to an entity or chunk in the store.
    pub fn resolves(&self, id: &str) -> Result<bool, String> {
        Ok(match parse_node_id(id) {
            Some(Node::Entity(e)) => self.store.entity_head(&e, 0).map_err(|e| e.to_string())?.is_some_and(|x| x.id == e),
            Some(Node::Chunk(c)) => self.store.chunk(&c).map_err(|e| e.to_string())?.is_some(),
            None => false,
        })
    }
}

impl SubQueryRunner for StoreGraph<'_> {
    fn run(&self, q: &SubQuery, limit: usize) -> Result<Vec<Evidence>, String> {
        match &q.kind {
            SubQueryKind::EntityState(a) => self.entity_state(q, &a.entity_ids, limit),
            SubQueryKind::PredicateWalk(a) => self.predicate_walk(q, &a.seeds, &a.predicates, a.max_hops, limit),
            SubQueryKind::TemporalRange(a) => self.temporal_range(q, &a.start, &a.end, limit),
            SubQueryKind::Bm25(a) => self.bm25(q, &a.query, if a.limit == 0 { limit } else { a.limit.min(limit) }),
        }
    }
}

/// Predicates of the default vocabulary whose object is a timestamp (computed once: the
/// vocabulary compiles its patterns).
fn timestamp_predicates() -> Vec<String> {
    static PREDICATES: std::sync::LazyLock<Vec<String>> = std::sync::LazyLock::new(|| {
        warrant_facts::Vocabulary::builtin()
            .entries()
            .iter()
            .filter(|e| e.object_type() == warrant_facts::ArgType::Timestamp)
            .map(|e| e.id.clone())
            .collect()
    });
    PREDICATES.clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_have_six_parts_and_decode_back() {
        let s = IdScheme::default();
        let e = s.entity_id("session_token");
        assert_eq!(e, "warrant.local.knowledge.graph.entity.session_token");
        assert!(is_entity_id(&e));
        assert_eq!(parse_node_id(&e), Some(Node::Entity("session_token".into())));
        let c = s.chunk_id("docs/a.md#12").unwrap();
        assert_eq!(c, "warrant.local.knowledge.chunk.docs/a%2Emd.12");
        assert!(is_entity_id(&c));
        assert_eq!(parse_node_id(&c), Some(Node::Chunk("docs/a.md#12".into())));
        assert_eq!(parse_node_id(&s.chunk_id("50%.x#1").unwrap()), Some(Node::Chunk("50%.x#1".into())));
        assert_eq!(s.chunk_id("nochunk"), None);
        assert_eq!(s.chunk_id("doc#x"), None);
        assert_eq!(parse_node_id("a.b.c.d.e.f"), None);
        assert_eq!(parse_node_id("warrant.local.knowledge.chunk.d%2x.1"), None);
    }
}

/// True when every non-blank line of a chunk is a Markdown heading.
fn is_heading_only(text: &str) -> bool {
    let mut lines = text.lines().filter(|l| !l.trim().is_empty()).peekable();
    lines.peek().is_some() && lines.all(|l| warrant_text::segment::markdown_heading(l).is_some())
}

#[cfg(test)]
mod heading_tests {
    #[test]
    fn headings_are_recognised() {
        assert!(super::is_heading_only("## Tools"));
        assert!(super::is_heading_only("# Title\n\n## Part"));
        assert!(!super::is_heading_only("## Tools\nPaging tool: Beacon"));
        assert!(!super::is_heading_only("#hashtag"));
        assert!(!super::is_heading_only("   "));
    }
}
