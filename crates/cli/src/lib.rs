//! The `smithereens` command-line tool: argument parsing lives in `main.rs`;
//! this library holds the orchestration the commands share (the built-in
//! demo, report formatting, progress bars) so tests can drive it directly.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod demo;
pub mod progress;
pub mod report;
pub mod simulate;
