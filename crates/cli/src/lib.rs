//! The `smithereens` command-line tool: argument parsing lives in `main.rs`;
//! this library holds the orchestration the commands share (the built-in
//! demo, report formatting, progress bars, the glTF export, the embedded
//! browser viewer and replication's `serve`/`join`) so tests can drive it
//! directly.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

/// This build, as recorded in runs: `smithereens <version> (<git commit>)`.
pub const ENGINE: &str = concat!(
    "smithereens ",
    env!("CARGO_PKG_VERSION"),
    " (",
    env!("SMITHEREENS_COMMIT"),
    ")"
);

pub mod demo;
pub mod export;
pub mod files;
pub mod progress;
pub mod replication;
pub mod report;
pub mod simulate;
pub mod view;
