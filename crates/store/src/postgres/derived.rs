//! Derived data kept in the store for one state of its chunks ([`Store::persist_derived`],
//! [`Store::read_persisted`]). The state is the store's generation; writing derived data
//! does not bump it.

use postgres::Transaction;
use postgres::binary_copy::BinaryCopyInWriter;
use postgres::fallible_iterator::FallibleIterator;
use postgres::types::{ToSql, Type};

use super::{PostgresStore, WRITE_LOCK, chunks_by_id_in, generation_of};
use crate::PersistedView;
use crate::error::{Result, SqlContext};
use crate::model::Chunk;

/// The generation as bytes (8, little-endian).
pub(super) fn state_of(tx: &mut Transaction<'_>) -> Result<Vec<u8>> {
    Ok(generation_of(tx)?.to_le_bytes().to_vec())
}

impl PostgresStore {
    pub(super) fn persist_derived_entries(
        &self,
        name: &str,
        state: &[u8],
        entries: &mut dyn Iterator<Item = (Vec<u8>, Vec<u8>)>,
    ) -> Result<bool> {
        self.with_client(|c| {
            let mut tx = c.transaction().ctx("begin write")?;
            // In turn with writers: the generation read here holds until the commit.
            tx.execute("SELECT pg_advisory_xact_lock($1)", &[&WRITE_LOCK]).ctx("lock for write")?;
            if state_of(&mut tx)? != state {
                return Ok(false);
            }
            tx.execute("DELETE FROM derived WHERE name = $1", &[&name]).ctx("clear derived data")?;
            // A check reads megabytes of these values at once; lz4 gives them back ~2× faster
            // than the default pglz (PostgreSQL 14+ built with lz4; else the default stays).
            let lz4 = tx
                .query_opt("SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY(enumvals)", &[])
                .ctx("read compression methods")?
                .is_some();
            if lz4 {
                tx.batch_execute("SET LOCAL default_toast_compression = 'lz4'").ctx("choose compression")?;
            }
            {
                let sink = tx.copy_in("COPY derived (name, key, value) FROM STDIN BINARY").ctx("write derived data")?;
                let mut writer = BinaryCopyInWriter::new(sink, &[Type::TEXT, Type::BYTEA, Type::BYTEA]);
                for (key, value) in entries {
                    writer.write(&[&name, &key, &value]).ctx("write derived data")?;
                }
                writer.finish().ctx("write derived data")?;
            }
            tx.execute(
                "INSERT INTO derived_state (name, state) VALUES ($1, $2) \
                 ON CONFLICT (name) DO UPDATE SET state = EXCLUDED.state",
                &[&name, &state],
            )
            .ctx("write derived state")?;
            tx.commit().ctx("commit")?;
            Ok(true)
        })
    }

    pub(super) fn read_persisted_entries(
        &self,
        name: &str,
        read: &mut dyn FnMut(&dyn PersistedView) -> Result<()>,
    ) -> Result<bool> {
        self.read(|tx| {
            let kept: Option<Vec<u8>> = tx
                .query_opt("SELECT state FROM derived_state WHERE name = $1", &[&name])
                .ctx("read derived state")?
                .map(|r| r.try_get(0))
                .transpose()
                .ctx("read derived state")?;
            let state = state_of(tx)?;
            if kept.as_ref() != Some(&state) {
                return Ok(false);
            }
            // The view needs `&self` reads on a `&mut` transaction: it borrows it in a cell.
            let view = View { tx: std::cell::RefCell::new(tx), name, state };
            read(&view)?;
            Ok(true)
        })
    }
}

struct View<'a, 'b> {
    tx: std::cell::RefCell<&'a mut Transaction<'b>>,
    name: &'a str,
    state: Vec<u8>,
}

impl PersistedView for View<'_, '_> {
    fn values(&self, keys: &[Vec<u8>]) -> Result<Vec<Option<Vec<u8>>>> {
        let mut tx = self.tx.borrow_mut();
        // Row by row: each value is copied out as it arrives, so the connection's read buffer
        // stays small instead of holding every row (megabytes of postings) until the last.
        let params: [&(dyn ToSql + Sync); 2] = [&self.name, &keys];
        let mut rows =
            tx.query_raw("SELECT key, value FROM derived WHERE name = $1 AND key = ANY($2)", params).ctx("read derived data")?;
        let mut found: std::collections::HashMap<Vec<u8>, Vec<u8>> = std::collections::HashMap::with_capacity(keys.len());
        while let Some(r) = rows.next().ctx("read derived data")? {
            found.insert(r.try_get(0).ctx("read derived data")?, r.try_get(1).ctx("read derived data")?);
        }
        Ok(keys.iter().map(|k| found.remove(k)).collect())
    }

    fn chunks(&self, ids: &[&str]) -> Result<Vec<Option<Chunk>>> {
        chunks_by_id_in(&mut self.tx.borrow_mut(), ids)
    }

    fn state(&self) -> &[u8] {
        &self.state
    }
}
