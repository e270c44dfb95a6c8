//! Progress bars on stderr, hidden when stderr is not a terminal (CI, pipes).

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// A bar of `total` steps labelled `label`; draws nothing when not attended.
pub fn bar(total: u64, label: &str) -> ProgressBar {
    let pb = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
    if let Ok(style) =
        ProgressStyle::with_template("{msg:>12} [{bar:40}] {pos}/{len} {elapsed_precise}")
    {
        pb.set_style(style.progress_chars("=> "));
    }
    pb.set_message(label.to_string());
    pb
}
