//! Progress of long work on stderr: an animated bar when stderr is a
//! terminal, plain lines when it is not (a pipe, a log file, CI), so that
//! work of minutes never runs silently. indicatif hides its bars when not
//! drawing to a terminal; [`Progress`] then prints `label: done/total (p %),
//! elapsed` when the work starts and every [`LINE_INTERVAL`] until it ends,
//! from a ticker thread, so a line comes even while a long phase (placing
//! 100 000 Voronoi sites) reports nothing.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Time between two plain progress lines.
pub const LINE_INTERVAL: Duration = Duration::from_secs(5);

/// Done and total steps, shared with the ticker thread.
#[derive(Debug)]
struct Counts {
    label: String,
    started: Instant,
    position: AtomicU64,
    total: AtomicU64,
}

impl Counts {
    /// `label: done/total (p %), m:ss elapsed`; before the total is known,
    /// `label: started, m:ss elapsed` (not a puzzling `0/0`).
    fn line(&self) -> String {
        let elapsed = self.started.elapsed().as_secs();
        let position = self.position.load(Ordering::Relaxed);
        let done = match self.total.load(Ordering::Relaxed) {
            0 if position == 0 => "started".to_string(),
            0 => format!("{position} done"),
            t => format!("{position}/{t} ({} %)", position.saturating_mul(100) / t),
        };
        format!(
            "{}: {done}, {}:{:02} elapsed",
            self.label,
            elapsed / 60,
            elapsed % 60
        )
    }
}

/// Progress of one piece of work, shown as a bar or as plain lines.
#[derive(Debug)]
pub struct Progress {
    counts: Arc<Counts>,
    /// The bar, when stderr is a terminal.
    bar: Option<ProgressBar>,
    /// Plain lines: the ticker and the way to stop it.
    ticker: Option<(Sender<()>, JoinHandle<()>)>,
}

/// Progress of `total` steps labelled `label`: a bar on a terminal, plain
/// lines otherwise.
pub fn bar(total: u64, label: &str) -> Progress {
    Progress::new(total, label, std::io::stderr().is_terminal())
}

impl Progress {
    /// As [`bar`], choosing the form: `terminal` draws a bar; otherwise a
    /// first plain line is printed now and one every [`LINE_INTERVAL`].
    pub fn new(total: u64, label: &str, terminal: bool) -> Self {
        let counts = Arc::new(Counts {
            label: label.to_string(),
            started: Instant::now(),
            position: AtomicU64::new(0),
            total: AtomicU64::new(total),
        });
        if terminal {
            let pb = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
            if let Ok(style) =
                ProgressStyle::with_template("{msg:>12} [{bar:40}] {pos}/{len} {elapsed_precise}")
            {
                pb.set_style(style.progress_chars("=> "));
            }
            pb.set_message(label.to_string());
            return Self {
                counts,
                bar: Some(pb),
                ticker: None,
            };
        }
        eprintln!("{}", counts.line());
        let (stop, stopped) = mpsc::channel::<()>();
        let shared = counts.clone();
        let ticker = std::thread::Builder::new()
            .name("progress".into())
            .spawn(move || {
                while let Err(RecvTimeoutError::Timeout) = stopped.recv_timeout(LINE_INTERVAL) {
                    eprintln!("{}", shared.line());
                }
            })
            .ok()
            .map(|handle| (stop, handle));
        Self {
            counts,
            bar: None,
            ticker,
        }
    }

    /// Sets the number of steps (work whose size is known only once it starts).
    pub fn set_length(&mut self, total: u64) {
        self.counts.total.store(total, Ordering::Relaxed);
        if let Some(b) = &self.bar {
            b.set_length(total);
        }
    }

    /// Records that `position` steps are done.
    pub fn set_position(&mut self, position: u64) {
        self.counts.position.store(position, Ordering::Relaxed);
        if let Some(b) = &self.bar {
            b.set_position(position);
        }
    }

    /// The plain progress line: `label: done/total (p %), m:ss elapsed`.
    pub fn line(&self) -> String {
        self.counts.line()
    }

    /// Ends the work: removes the bar, or stops the plain lines with a last one.
    pub fn finish_and_clear(&mut self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
        if let Some((stop, handle)) = self.ticker.take() {
            let _ = stop.send(());
            let _ = handle.join();
            eprintln!("{}", self.counts.line());
        }
    }
}

impl Drop for Progress {
    /// Work that ends in an error stops its ticker too (without a last line).
    fn drop(&mut self) {
        if let Some((stop, handle)) = self.ticker.take() {
            let _ = stop.send(());
            let _ = handle.join();
        }
    }
}
