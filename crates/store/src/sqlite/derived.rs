//! Derived data kept in the store for one state of its chunks ([`Store::persist_derived`],
//! [`Store::read_persisted`]). The state is the store's fingerprint: a write that changes a
//! chunk changes it, and writing derived data does not.

use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};

use super::{CHUNK_SELECT, SqliteStore, chunk_from_row, fingerprint_of, lock};
use crate::PersistedView;
use crate::error::{Result, SqlContext};
use crate::model::Chunk;

/// The fingerprint as bytes: the chunk sequence (8 bytes, little-endian), then the FTS
/// averages record.
pub(super) fn state_of(c: &Connection) -> Result<Vec<u8>> {
    let (averages, seq) = fingerprint_of(c)?;
    let mut state = seq.to_le_bytes().to_vec();
    state.extend_from_slice(&averages);
    Ok(state)
}

impl SqliteStore {
    pub(super) fn persist_derived_entries(
        &self,
        name: &str,
        state: &[u8],
        entries: &mut dyn Iterator<Item = (Vec<u8>, Vec<u8>)>,
    ) -> Result<bool> {
        let mut conn = lock(&self.writer);
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).ctx("begin write")?;
        if state_of(&tx)? != state {
            return Ok(false);
        }
        tx.execute("DELETE FROM derived WHERE name = ?1", [name]).ctx("clear derived data")?;
        {
            let mut insert =
                tx.prepare_cached("INSERT INTO derived (name, key, value) VALUES (?1, ?2, ?3)").ctx("write derived data")?;
            for (key, value) in entries {
                insert.execute(params![name, key, value]).ctx("write derived data")?;
            }
        }
        tx.execute("INSERT OR REPLACE INTO derived_state (name, state) VALUES (?1, ?2)", params![name, state])
            .ctx("write derived state")?;
        tx.commit().ctx("commit")?;
        Ok(true)
    }

    pub(super) fn read_persisted_entries(
        &self,
        name: &str,
        read: &mut dyn FnMut(&dyn PersistedView) -> Result<()>,
    ) -> Result<bool> {
        self.read(|c| {
            // One read transaction: the state compared and every later read see one snapshot.
            let tx = c.unchecked_transaction().ctx("begin read")?;
            let kept: Option<Vec<u8>> = tx
                .prepare_cached("SELECT state FROM derived_state WHERE name = ?1")
                .and_then(|mut st| st.query_row([name], |r| r.get(0)).optional())
                .ctx("read derived state")?;
            let state = state_of(&tx)?;
            if kept.as_ref() != Some(&state) {
                return Ok(false);
            }
            read(&View { c: &tx, name, state })?;
            tx.commit().ctx("end read")?;
            Ok(true)
        })
    }
}

struct View<'a> {
    c: &'a Connection,
    name: &'a str,
    state: Vec<u8>,
}

impl PersistedView for View<'_> {
    fn values(&self, keys: &[Vec<u8>]) -> Result<Vec<Option<Vec<u8>>>> {
        let mut st = self.c.prepare_cached("SELECT value FROM derived WHERE name = ?1 AND key = ?2").ctx("read derived data")?;
        keys.iter().map(|k| st.query_row(params![self.name, k], |r| r.get(0)).optional().ctx("read derived data")).collect()
    }

    fn chunks(&self, ids: &[&str]) -> Result<Vec<Option<Chunk>>> {
        let mut st = self.c.prepare_cached(&format!("{CHUNK_SELECT} WHERE c.id = ?1")).ctx("read chunk")?;
        ids.iter().map(|id| st.query_row([id], chunk_from_row).optional().ctx("read chunk")).collect()
    }

    fn state(&self) -> &[u8] {
        &self.state
    }
}
