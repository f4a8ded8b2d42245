//! Setup shared by the `ask` fuzz targets: a small in-memory store to answer over.

use warrant_store::{DocumentInput, IngestOptions, SqliteStore, ingest};

/// An in-memory store holding one document (`d`, version 2.0) with `text`, facts extracted.
pub fn one_document_store(text: &str) -> SqliteStore {
    let store = SqliteStore::open_in_memory().expect("in-memory store");
    let doc = DocumentInput {
        id: "d".into(),
        text: text.into(),
        version: Some("2.0".into()),
        title: None,
        metadata: None,
        origin: "fuzz".into(),
    };
    ingest(&store, vec![doc], Vec::new(), &IngestOptions::default(), &mut |_| {}).expect("ingest");
    store
}
