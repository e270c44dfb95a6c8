//! # smithereens-journal
//!
//! The durable journal of a Smithereens instance (DESIGN §3.10, §8): an
//! embedded ACID store ([redb](https://docs.rs/redb) 4.x, one file) holding
//!
//! * `log`: one [`CommitRecord`] per commit (absolute health of modified
//!   bonds, groups, receipts), keyed by commit sequence;
//! * `receipts`: the [`Receipt`]s in the instance's receipt window
//!   (`smithereens_core::receipts`), keyed by event id: receipts that
//!   expire from the window are deleted in the commit that expires them, so
//!   the table stays bounded like the window;
//! * `pending`: admitted, not yet committed events with their frozen
//!   distances and admission order, keyed by event id;
//! * `snapshots`: resumable [`Snapshot`]s (checkpoints), keyed by commit sequence;
//! * `meta`: instance, asset version, latest commit sequence.
//!
//! [`Journal::append`] writes the record, its receipts, the removal of its
//! events from `pending`, the updated `meta` and (every
//! [`JournalOptions::checkpoint_every`] commits) a snapshot in **one write
//! transaction**: after a crash either all of it exists or none of it, so a
//! receipt never exists without its commit, nor the reverse.
//!
//! [`Journal::recover`] = latest snapshot + the contiguous log after it +
//! the pending events, cross-checked against the receipts table.
//!
//! Every value is framed and checksummed by `smithereens_core::codec`, so a
//! damaged value is a typed error, never a panic.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

use redb::{Database, ReadableDatabase, ReadableTable, TableDefinition};
use serde::{Deserialize, Serialize};
use smithereens_core::codec::{self, FrameError};
use smithereens_core::receipts::ReceiptLookup;
use smithereens_core::recovery::{RecoveryError, RecoveryReport, recover};
use smithereens_core::{
    Asset, CommitRecord, EventId, EventSource, Instance, InstanceId, PendingEvent, Receipt,
    Snapshot,
};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

mod guard;
use guard::guard;

const META: TableDefinition<&str, &[u8]> = TableDefinition::new("meta");
const LOG: TableDefinition<u64, &[u8]> = TableDefinition::new("log");
const RECEIPTS: TableDefinition<u64, &[u8]> = TableDefinition::new("receipts");
const PENDING: TableDefinition<u64, &[u8]> = TableDefinition::new("pending");
const SNAPSHOTS: TableDefinition<u64, &[u8]> = TableDefinition::new("snapshots");
const META_KEY: &str = "meta";

const META_MAGIC: [u8; 4] = *b"SMJM";
const RECEIPT_MAGIC: [u8; 4] = *b"SMJR";
const PENDING_MAGIC: [u8; 4] = *b"SMJP";
/// Journal format version this build writes; it also reads version 1
/// (events stored as bare radial events, see `smithereens_core::codec`).
pub const JOURNAL_VERSION: u16 = 2;

/// When a commit is durable.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum Durability {
    /// Durable when [`Journal::append`] returns (fsync). The default.
    #[default]
    Immediate,
    /// Not durable until a later `Immediate` write (benchmarks, tests).
    None,
}

/// Journal settings.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct JournalOptions {
    /// Durability of every write.
    pub durability: Durability,
    /// Write a snapshot in the commit transaction every this many commits
    /// (0 = only at creation and on [`Journal::checkpoint`]).
    pub checkpoint_every: u64,
    /// Drop log records and snapshots older than the newest snapshot when
    /// checkpointing (bounded file; history is then gone).
    pub prune: bool,
}

impl Default for JournalOptions {
    /// Immediate durability, a checkpoint every 256 commits, no pruning.
    fn default() -> Self {
        Self {
            durability: Durability::Immediate,
            checkpoint_every: 256,
            prune: false,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Meta {
    instance: InstanceId,
    asset: u64,
    commit_seq: u64,
    topology_version: u64,
    snapshot_seq: u64,
    next_admission: u64,
}

/// Why a journal operation failed. A failed write leaves the file as before.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum JournalError {
    /// No journal at the path.
    #[error("no journal at {0}")]
    NotFound(PathBuf),
    /// A file already exists at the path (create refuses to overwrite).
    #[error("a file already exists at {0}")]
    AlreadyExists(PathBuf),
    /// The store reported an error (I/O, lock, or a corrupt / truncated file).
    #[error("store error: {0}")]
    Store(String),
    /// A stored value or table is missing or undecodable.
    #[error("journal is corrupt: {0}")]
    Corrupt(String),
    /// The journal belongs to another asset version.
    #[error("journal of asset {found:#018x}, the asset given is {expected:#018x}")]
    AssetMismatch {
        /// Asset given.
        expected: u64,
        /// In the journal.
        found: u64,
    },
    /// The record or instance belongs to another instance.
    #[error("journal of {expected}, got {found}")]
    WrongInstance {
        /// In the journal.
        expected: InstanceId,
        /// Given.
        found: InstanceId,
    },
    /// A record is not the next commit.
    #[error("the next commit is {expected}, the record is {found}")]
    OutOfOrder {
        /// Next expected sequence.
        expected: u64,
        /// Given.
        found: u64,
    },
    /// The instance given does not match the record (for a checkpoint).
    #[error("instance is at commit {instance}, the record is commit {record}")]
    InstanceMismatch {
        /// The instance's sequence.
        instance: u64,
        /// The record's sequence.
        record: u64,
    },
    /// Recovery failed (snapshot unusable or a record inconsistent).
    #[error("recovery")]
    Recovery(#[from] RecoveryError),
    /// The tables disagree with each other (receipts vs log, pending vs receipts).
    #[error("journal is inconsistent: {0}")]
    Inconsistent(String),
}

fn store<E: std::fmt::Display>(e: E) -> JournalError {
    JournalError::Store(e.to_string())
}

fn corrupt(what: &str, e: FrameError) -> JournalError {
    JournalError::Corrupt(format!("{what}: {e}"))
}

/// Bytes written by one journal transaction.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct WriteStats {
    /// Key and value bytes inserted (logical; the file grows by whole pages).
    pub bytes: u64,
    /// True when the transaction included a snapshot.
    pub checkpoint: bool,
}

/// An instance rebuilt from its journal.
#[derive(Debug)]
pub struct Recovered {
    /// The recovered instance (committed state plus pending events).
    pub instance: Instance,
    /// Records applied after the snapshot.
    pub report: RecoveryReport,
    /// Sequence of the snapshot recovery started from.
    pub snapshot_seq: u64,
}

/// What [`Journal::verify`] found.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct VerifyReport {
    /// Latest commit sequence.
    pub commit_seq: u64,
    /// Log records present.
    pub records: u64,
    /// Receipts present.
    pub receipts: u64,
    /// Pending events present.
    pub pending: u64,
    /// Snapshots present.
    pub snapshots: u64,
}

/// The durable journal of one instance.
pub struct Journal {
    /// The store; `None` only while the journal is being dropped (see its
    /// `Drop`).
    db: Option<Database>,
    path: PathBuf,
    meta: Meta,
    options: JournalOptions,
}

impl std::fmt::Debug for Journal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Journal")
            .field("path", &self.path)
            .field("meta", &self.meta)
            .field("options", &self.options)
            .finish()
    }
}

fn encode_meta(m: &Meta) -> Vec<u8> {
    codec::encode(META_MAGIC, JOURNAL_VERSION, m).unwrap_or_default()
}

impl Drop for Journal {
    /// Closing a redb database commits and trims its file, and on a damaged
    /// file redb can panic there (a release build of the corrupt-file test
    /// panicked in `close_database` reading a damaged table name, after
    /// every guarded call had returned its typed error). So the store is
    /// closed inside the journal's panic guard (`guard.rs`): a damaged
    /// file never panics on drop. There is no caller to give that error
    /// to, and nothing is lost that a successful call had not already made
    /// durable ([`Journal::close`] reports it).
    fn drop(&mut self) {
        if let Some(db) = self.db.take() {
            let _ = guard(move || {
                drop(db);
                Ok(())
            });
        }
    }
}

impl Journal {
    /// Closes the journal: redb commits and trims its file on close, the
    /// one step at which some damage to a file shows. Dropping the journal
    /// does the same and keeps quiet about it; `close` reports it.
    ///
    /// # Errors
    /// [`JournalError::Corrupt`] when the store failed an internal check on
    /// this file while closing it.
    pub fn close(mut self) -> Result<(), JournalError> {
        match self.db.take() {
            Some(db) => guard(move || {
                drop(db);
                Ok(())
            }),
            None => Ok(()),
        }
    }

    /// The open store (always, outside `drop`).
    fn db(&self) -> Result<&Database, JournalError> {
        self.db
            .as_ref()
            .ok_or_else(|| JournalError::Store("the journal is closed".to_owned()))
    }

    /// Creates a journal for `instance` at `path` (a new file) and makes its
    /// current state durable: a snapshot, its receipts and pending events.
    ///
    /// # Errors
    /// [`JournalError::AlreadyExists`] when a file exists at `path`,
    /// [`JournalError::Store`] for I/O errors.
    pub fn create(
        path: impl AsRef<Path>,
        instance: &Instance,
        options: JournalOptions,
    ) -> Result<Self, JournalError> {
        let path = path.as_ref().to_path_buf();
        if path.exists() {
            return Err(JournalError::AlreadyExists(path));
        }
        let db = Database::create(&path).map_err(store)?;
        let meta = Meta {
            instance: instance.id(),
            asset: instance.asset().fingerprint(),
            commit_seq: instance.commit_seq(),
            topology_version: instance.topology_version(),
            snapshot_seq: instance.commit_seq(),
            next_admission: 0,
        };
        let journal = Self {
            db: Some(db),
            path,
            meta,
            options,
        };
        let txn = journal.begin()?;
        {
            let mut meta_t = txn.open_table(META).map_err(store)?;
            txn.open_table(LOG).map_err(store)?;
            let mut receipts = txn.open_table(RECEIPTS).map_err(store)?;
            let mut pending = txn.open_table(PENDING).map_err(store)?;
            let mut snaps = txn.open_table(SNAPSHOTS).map_err(store)?;
            for r in instance.receipts() {
                receipts
                    .insert(r.event.id.0, encode_receipt(r).as_slice())
                    .map_err(store)?;
            }
            for p in instance.pending() {
                pending
                    .insert(p.event.id.0, encode_pending(p).as_slice())
                    .map_err(store)?;
            }
            snaps
                .insert(
                    instance.commit_seq(),
                    instance.snapshot().to_bytes().as_slice(),
                )
                .map_err(store)?;
            meta_t
                .insert(META_KEY, encode_meta(&journal.meta).as_slice())
                .map_err(store)?;
        }
        txn.commit().map_err(store)?;
        Ok(journal)
    }

    /// Opens an existing journal (after a crash, the store rolls back to the
    /// last committed transaction).
    ///
    /// # Errors
    /// [`JournalError::NotFound`], [`JournalError::Store`] for a file the
    /// store cannot open (truncated, corrupt, locked), [`JournalError::Corrupt`]
    /// for missing or undecodable metadata.
    pub fn open(path: impl AsRef<Path>, options: JournalOptions) -> Result<Self, JournalError> {
        let path = path.as_ref().to_path_buf();
        if !path.exists() {
            return Err(JournalError::NotFound(path));
        }
        let db = guard(|| Database::open(&path).map_err(store))?;
        let meta = guard(|| {
            let txn = db.begin_read().map_err(store)?;
            let table = txn
                .open_table(META)
                .map_err(|e| JournalError::Corrupt(format!("meta table: {e}")))?;
            let bytes = table
                .get(META_KEY)
                .map_err(store)?
                .ok_or_else(|| JournalError::Corrupt("no meta record".into()))?;
            codec::decode_compat::<Meta>(META_MAGIC, JOURNAL_VERSION, bytes.value())
                .map_err(|e| corrupt("meta", e))
        })?;
        Ok(Self {
            db: Some(db),
            path,
            meta,
            options,
        })
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }
    /// The journaled instance.
    pub fn instance(&self) -> InstanceId {
        self.meta.instance
    }
    /// Fingerprint of the journaled asset.
    pub fn asset(&self) -> u64 {
        self.meta.asset
    }
    /// Latest durable commit sequence.
    pub fn commit_seq(&self) -> u64 {
        self.meta.commit_seq
    }
    /// Sequence of the newest snapshot.
    pub fn snapshot_seq(&self) -> u64 {
        self.meta.snapshot_seq
    }
    /// Settings in force.
    pub fn options(&self) -> JournalOptions {
        self.options
    }

    fn begin(&self) -> Result<redb::WriteTransaction, JournalError> {
        let mut txn = self.db()?.begin_write().map_err(store)?;
        let d = match self.options.durability {
            Durability::Immediate => redb::Durability::Immediate,
            Durability::None => redb::Durability::None,
        };
        txn.set_durability(d).map_err(store)?;
        Ok(txn)
    }

    /// Makes an admitted event durable (with its frozen distances and
    /// admission order) so that it survives a crash before its commit.
    /// Idempotent.
    ///
    /// # Errors
    /// [`JournalError::Store`] for I/O errors; nothing is written on error.
    pub fn record_admission(&mut self, pending: &PendingEvent) -> Result<WriteStats, JournalError> {
        guard(|| self.write_admission(pending))
    }

    fn write_admission(&mut self, pending: &PendingEvent) -> Result<WriteStats, JournalError> {
        let bytes = encode_pending(pending);
        let mut meta = self.meta.clone();
        meta.next_admission = meta.next_admission.max(pending.admission_seq + 1);
        let meta_bytes = encode_meta(&meta);
        let txn = self.begin()?;
        {
            let mut table = txn.open_table(PENDING).map_err(store)?;
            table
                .insert(pending.event.id.0, bytes.as_slice())
                .map_err(store)?;
            let mut m = txn.open_table(META).map_err(store)?;
            m.insert(META_KEY, meta_bytes.as_slice()).map_err(store)?;
        }
        txn.commit().map_err(store)?;
        self.meta = meta;
        Ok(WriteStats {
            bytes: (8 + bytes.len() + META_KEY.len() + meta_bytes.len()) as u64,
            checkpoint: false,
        })
    }

    /// Makes one commit durable: its record, its receipts, the removal of its
    /// events from the pending table, the metadata and, when due, a snapshot
    /// of `instance` — all in one transaction. `instance` must be the
    /// instance right after the commit.
    ///
    /// # Errors
    /// [`JournalError::WrongInstance`] / [`JournalError::AssetMismatch`] for a
    /// foreign record, [`JournalError::OutOfOrder`] unless it is the next
    /// commit, [`JournalError::InstanceMismatch`] when `instance` is not at the
    /// record's sequence, [`JournalError::Store`] for I/O errors. Nothing is
    /// written on error.
    pub fn append(
        &mut self,
        record: &CommitRecord,
        instance: &Instance,
    ) -> Result<WriteStats, JournalError> {
        self.check_record(record)?;
        if instance.commit_seq() != record.commit_seq || instance.id() != record.instance {
            return Err(JournalError::InstanceMismatch {
                instance: instance.commit_seq(),
                record: record.commit_seq,
            });
        }
        let every = self.options.checkpoint_every;
        let due = every > 0 && record.commit_seq - self.meta.snapshot_seq >= every;
        let horizons = instance.receipt_window().horizons();
        guard(|| self.write_commit(record, &horizons, due.then_some(instance)))
    }

    fn check_record(&self, record: &CommitRecord) -> Result<(), JournalError> {
        if record.instance != self.meta.instance {
            return Err(JournalError::WrongInstance {
                expected: self.meta.instance,
                found: record.instance,
            });
        }
        if record.asset != self.meta.asset {
            return Err(JournalError::AssetMismatch {
                expected: self.meta.asset,
                found: record.asset,
            });
        }
        if record.commit_seq != self.meta.commit_seq + 1 {
            return Err(JournalError::OutOfOrder {
                expected: self.meta.commit_seq + 1,
                found: record.commit_seq,
            });
        }
        Ok(())
    }

    /// `horizons`: the instance's receipt horizons after the commit; the
    /// receipts at or below them (of the sources this commit touched) are
    /// deleted.
    fn write_commit(
        &mut self,
        record: &CommitRecord,
        horizons: &[(EventSource, u64)],
        checkpoint: Option<&Instance>,
    ) -> Result<WriteStats, JournalError> {
        let bytes = record.to_bytes();
        let mut meta = self.meta.clone();
        meta.commit_seq = record.commit_seq;
        meta.topology_version = record.topology_version;
        meta.next_admission = meta.next_admission.max(record.next_admission);
        let snapshot = checkpoint.map(|i| i.snapshot().to_bytes());
        if snapshot.is_some() {
            meta.snapshot_seq = record.commit_seq;
        }
        let meta_bytes = encode_meta(&meta);
        let mut written = (8 + bytes.len() + META_KEY.len() + meta_bytes.len()) as u64;
        let txn = self.begin()?;
        {
            let mut log = txn.open_table(LOG).map_err(store)?;
            log.insert(record.commit_seq, bytes.as_slice())
                .map_err(store)?;
            let mut receipts = txn.open_table(RECEIPTS).map_err(store)?;
            let mut pending = txn.open_table(PENDING).map_err(store)?;
            for r in &record.receipts {
                let rb = encode_receipt(r);
                written += 8 + rb.len() as u64;
                receipts
                    .insert(r.event.id.0, rb.as_slice())
                    .map_err(store)?;
                pending.remove(r.event.id.0).map_err(store)?;
            }
            // Only sources of this commit can have expired receipts now; the
            // range holds just the ones expired since the last commit.
            let mut sources: Vec<EventSource> = record
                .receipts
                .iter()
                .map(|r| r.event.id.source())
                .collect();
            sources.sort_unstable();
            sources.dedup();
            for src in sources {
                let Ok(i) = horizons.binary_search_by_key(&src, |&(s, _)| s) else {
                    continue;
                };
                let range = EventId::new(src, 0).0..=EventId::new(src, horizons[i].1).0;
                let expired: Vec<u64> = receipts
                    .range(range)
                    .map_err(store)?
                    .filter_map(|e| e.ok().map(|(k, _)| k.value()))
                    .collect();
                for k in expired {
                    receipts.remove(k).map_err(store)?;
                }
            }
            if let Some(snap) = &snapshot {
                written += 8 + snap.len() as u64;
                let mut snaps = txn.open_table(SNAPSHOTS).map_err(store)?;
                snaps
                    .insert(record.commit_seq, snap.as_slice())
                    .map_err(store)?;
                if self.options.prune {
                    let old: Vec<u64> = snaps
                        .range(..record.commit_seq)
                        .map_err(store)?
                        .filter_map(|e| e.ok().map(|(k, _)| k.value()))
                        .collect();
                    for k in old {
                        snaps.remove(k).map_err(store)?;
                    }
                    let old: Vec<u64> = log
                        .range(..=record.commit_seq)
                        .map_err(store)?
                        .filter_map(|e| e.ok().map(|(k, _)| k.value()))
                        .collect();
                    for k in old {
                        log.remove(k).map_err(store)?;
                    }
                }
            }
            let mut m = txn.open_table(META).map_err(store)?;
            m.insert(META_KEY, meta_bytes.as_slice()).map_err(store)?;
        }
        txn.commit().map_err(store)?;
        self.meta = meta;
        Ok(WriteStats {
            bytes: written,
            checkpoint: snapshot.is_some(),
        })
    }

    /// Writes a snapshot of `instance` (which must be at the journal's
    /// latest commit) so that recovery starts from here.
    ///
    /// # Errors
    /// [`JournalError::InstanceMismatch`] for an instance at another commit,
    /// [`JournalError::WrongInstance`], [`JournalError::Store`].
    pub fn checkpoint(&mut self, instance: &Instance) -> Result<WriteStats, JournalError> {
        if instance.id() != self.meta.instance {
            return Err(JournalError::WrongInstance {
                expected: self.meta.instance,
                found: instance.id(),
            });
        }
        if instance.commit_seq() != self.meta.commit_seq {
            return Err(JournalError::InstanceMismatch {
                instance: instance.commit_seq(),
                record: self.meta.commit_seq,
            });
        }
        guard(|| self.write_checkpoint(instance))
    }

    fn write_checkpoint(&mut self, instance: &Instance) -> Result<WriteStats, JournalError> {
        let snap = instance.snapshot().to_bytes();
        let mut meta = self.meta.clone();
        meta.snapshot_seq = instance.commit_seq();
        let meta_bytes = encode_meta(&meta);
        let txn = self.begin()?;
        {
            let mut snaps = txn.open_table(SNAPSHOTS).map_err(store)?;
            snaps
                .insert(instance.commit_seq(), snap.as_slice())
                .map_err(store)?;
            let mut m = txn.open_table(META).map_err(store)?;
            m.insert(META_KEY, meta_bytes.as_slice()).map_err(store)?;
        }
        txn.commit().map_err(store)?;
        self.meta = meta;
        Ok(WriteStats {
            bytes: (16 + snap.len() + META_KEY.len() + meta_bytes.len()) as u64,
            checkpoint: true,
        })
    }

    /// Rebuilds the instance: the newest snapshot, the contiguous log records
    /// after it, then the journaled pending events; finally checks that the
    /// receipts table and the recovered receipts agree.
    ///
    /// # Errors
    /// [`JournalError::AssetMismatch`] for another asset version,
    /// [`JournalError::Corrupt`] for undecodable values, [`JournalError::Inconsistent`]
    /// for a missing record or disagreeing tables, [`JournalError::Recovery`].
    pub fn recover(&self, asset: Arc<Asset>) -> Result<Recovered, JournalError> {
        if asset.fingerprint() != self.meta.asset {
            return Err(JournalError::AssetMismatch {
                expected: asset.fingerprint(),
                found: self.meta.asset,
            });
        }
        guard(|| self.recover_inner(asset))
    }

    fn recover_inner(&self, asset: Arc<Asset>) -> Result<Recovered, JournalError> {
        let txn = self.db()?.begin_read().map_err(store)?;
        let snaps = txn
            .open_table(SNAPSHOTS)
            .map_err(|e| JournalError::Corrupt(format!("snapshots: {e}")))?;
        let snap_bytes = snaps
            .get(self.meta.snapshot_seq)
            .map_err(store)?
            .ok_or_else(|| {
                JournalError::Inconsistent(format!("snapshot {} missing", self.meta.snapshot_seq))
            })?;
        let snapshot = Snapshot::from_bytes(snap_bytes.value()).map_err(|e| {
            JournalError::Corrupt(format!(
                "snapshot: {}",
                smithereens_core::error::display_chain(&e)
            ))
        })?;
        let log = txn
            .open_table(LOG)
            .map_err(|e| JournalError::Corrupt(format!("log: {e}")))?;
        let mut records = Vec::new();
        for entry in log
            .range(self.meta.snapshot_seq + 1..=self.meta.commit_seq)
            .map_err(store)?
        {
            let (k, v) = entry.map_err(store)?;
            let r = CommitRecord::from_bytes(v.value()).map_err(|e| corrupt("log record", e))?;
            if r.commit_seq != k.value() {
                return Err(JournalError::Inconsistent(format!(
                    "log key {} holds commit {}",
                    k.value(),
                    r.commit_seq
                )));
            }
            records.push(r);
        }
        let (mut instance, report) = recover(asset, &snapshot, &records)?;
        if let Some((from, to)) = report.missing {
            return Err(JournalError::Inconsistent(format!(
                "log records {from}..={to} are missing"
            )));
        }
        if instance.commit_seq() != self.meta.commit_seq {
            return Err(JournalError::Inconsistent(format!(
                "recovered commit {} but the journal is at {}",
                instance.commit_seq(),
                self.meta.commit_seq
            )));
        }
        let pending = read_all(&txn, PENDING, |b| {
            codec::decode_compat::<PendingEvent>(PENDING_MAGIC, JOURNAL_VERSION, b)
                .map_err(|e| corrupt("pending event", e))
        })?;
        let mut pending: Vec<PendingEvent> = pending.into_values().collect();
        pending.sort_by_key(|p| p.admission_seq);
        for p in pending {
            if instance.receipt(p.event.id).is_some() {
                return Err(JournalError::Inconsistent(format!(
                    "event {} is both pending and applied",
                    p.event.id
                )));
            }
            instance.restore_pending(p.clone()).map_err(|e| {
                JournalError::Inconsistent(format!("pending event {}: {e}", p.event.id))
            })?;
        }
        let receipts = read_all(&txn, RECEIPTS, |b| {
            codec::decode_compat::<Receipt>(RECEIPT_MAGIC, JOURNAL_VERSION, b)
                .map_err(|e| corrupt("receipt", e))
        })?;
        // Journals written before the receipt window kept every receipt:
        // stored receipts the instance knows as expired are fine.
        let mut held = 0;
        for (id, r) in &receipts {
            match instance.receipt_window().lookup(EventId(*id)) {
                ReceiptLookup::Recent(mine) if mine == r => held += 1,
                ReceiptLookup::Expired => {}
                _ => {
                    return Err(JournalError::Inconsistent(format!(
                        "receipt of event {id} disagrees with its commit"
                    )));
                }
            }
        }
        if held != instance.receipts().count() {
            return Err(JournalError::Inconsistent(format!(
                "{held} receipts stored, {} recovered",
                instance.receipts().count()
            )));
        }
        Ok(Recovered {
            instance,
            report,
            snapshot_seq: self.meta.snapshot_seq,
        })
    }

    /// Checks the journal without an asset: every value decodes, the log is
    /// contiguous up to the latest commit, every receipt belongs to a commit
    /// that lists it (or that a snapshot covers) and every logged receipt is
    /// stored unless it left its source's receipt window (the source then
    /// has a full window of stored receipts, all newer), and no event is
    /// both pending and applied.
    ///
    /// # Errors
    /// [`JournalError::Corrupt`] or [`JournalError::Inconsistent`] with the
    /// first problem found; [`JournalError::Store`] for I/O errors.
    pub fn verify(&self) -> Result<VerifyReport, JournalError> {
        guard(|| self.verify_inner())
    }

    fn verify_inner(&self) -> Result<VerifyReport, JournalError> {
        let txn = self.db()?.begin_read().map_err(store)?;
        let snapshots = read_all(&txn, SNAPSHOTS, |b| {
            Snapshot::from_bytes(b).map_err(|e| {
                JournalError::Corrupt(format!(
                    "snapshot: {}",
                    smithereens_core::error::display_chain(&e)
                ))
            })
        })?;
        let oldest_snapshot = snapshots
            .keys()
            .next()
            .copied()
            .ok_or_else(|| JournalError::Inconsistent("no snapshot".into()))?;
        if !snapshots.contains_key(&self.meta.snapshot_seq) {
            return Err(JournalError::Inconsistent(format!(
                "snapshot {} missing",
                self.meta.snapshot_seq
            )));
        }
        let log = read_all(&txn, LOG, |b| {
            CommitRecord::from_bytes(b).map_err(|e| corrupt("log record", e))
        })?;
        for s in oldest_snapshot + 1..=self.meta.commit_seq {
            match log.get(&s) {
                Some(r) if r.commit_seq == s => {}
                _ => {
                    return Err(JournalError::Inconsistent(format!(
                        "log record {s} missing or misfiled"
                    )));
                }
            }
        }
        if let Some(&last) = log.keys().next_back()
            && last > self.meta.commit_seq
        {
            return Err(JournalError::Inconsistent(format!(
                "log record {last} beyond the latest commit {}",
                self.meta.commit_seq
            )));
        }
        let receipts = read_all(&txn, RECEIPTS, |b| {
            codec::decode_compat::<Receipt>(RECEIPT_MAGIC, JOURNAL_VERSION, b)
                .map_err(|e| corrupt("receipt", e))
        })?;
        for (id, r) in &receipts {
            if r.event.id.0 != *id || r.commit_seq > self.meta.commit_seq {
                return Err(JournalError::Inconsistent(format!(
                    "receipt of event {id} names commit {} beyond the journal",
                    r.commit_seq
                )));
            }
            match log.get(&r.commit_seq) {
                Some(rec) if rec.receipts.contains(r) => {}
                Some(_) => {
                    return Err(JournalError::Inconsistent(format!(
                        "receipt of event {id} is not in commit {}",
                        r.commit_seq
                    )));
                }
                None if r.commit_seq <= oldest_snapshot => {
                    let snap = &snapshots[&oldest_snapshot];
                    if !snap.receipts.contains(r) {
                        return Err(JournalError::Inconsistent(format!(
                            "receipt of event {id} has no commit"
                        )));
                    }
                }
                None => {
                    return Err(JournalError::Inconsistent(format!(
                        "receipt of event {id} has no commit"
                    )));
                }
            }
        }
        // A logged receipt may be missing only because it left its source's
        // receipt window (`smithereens_core::receipts`): the store keeps the
        // receipts of each source's `window` highest sequence numbers, so a
        // missing one is legitimate exactly when the source has a full
        // window of stored receipts, all of higher sequence.
        let window = snapshots[&self.meta.snapshot_seq]
            .receipt_window
            .unwrap_or(smithereens_core::receipts::DEFAULT_RECEIPT_WINDOW)
            as usize;
        let mut stored: BTreeMap<EventSource, (usize, u64)> = BTreeMap::new();
        for &id in receipts.keys() {
            let id = EventId(id);
            let e = stored.entry(id.source()).or_insert((0, u64::MAX));
            e.0 += 1;
            e.1 = e.1.min(id.sequence());
        }
        for rec in log.values() {
            for r in &rec.receipts {
                let id = r.event.id;
                let expired = || {
                    stored
                        .get(&id.source())
                        .is_some_and(|&(count, lowest)| count >= window && id.sequence() < lowest)
                };
                match receipts.get(&id.0) {
                    Some(kept) if kept == r => {}
                    None if expired() => {}
                    _ => {
                        return Err(JournalError::Inconsistent(format!(
                            "commit {} lists event {} without its receipt",
                            rec.commit_seq, id
                        )));
                    }
                }
            }
        }
        let pending = read_all(&txn, PENDING, |b| {
            codec::decode_compat::<PendingEvent>(PENDING_MAGIC, JOURNAL_VERSION, b)
                .map_err(|e| corrupt("pending event", e))
        })?;
        if let Some(id) = pending.keys().find(|id| receipts.contains_key(id)) {
            return Err(JournalError::Inconsistent(format!(
                "event {id} is both pending and applied"
            )));
        }
        Ok(VerifyReport {
            commit_seq: self.meta.commit_seq,
            records: log.len() as u64,
            receipts: receipts.len() as u64,
            pending: pending.len() as u64,
            snapshots: snapshots.len() as u64,
        })
    }
}

fn read_all<T>(
    txn: &redb::ReadTransaction,
    def: TableDefinition<u64, &[u8]>,
    decode: impl Fn(&[u8]) -> Result<T, JournalError>,
) -> Result<BTreeMap<u64, T>, JournalError> {
    let table = txn
        .open_table(def)
        .map_err(|e| JournalError::Corrupt(format!("table: {e}")))?;
    let mut out = BTreeMap::new();
    for entry in table.iter().map_err(store)? {
        let (k, v) = entry.map_err(store)?;
        out.insert(k.value(), decode(v.value())?);
    }
    Ok(out)
}

fn encode_receipt(r: &Receipt) -> Vec<u8> {
    codec::encode(RECEIPT_MAGIC, JOURNAL_VERSION, r).unwrap_or_default()
}

fn encode_pending(p: &PendingEvent) -> Vec<u8> {
    codec::encode(PENDING_MAGIC, JOURNAL_VERSION, p).unwrap_or_default()
}
