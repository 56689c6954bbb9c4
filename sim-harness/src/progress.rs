//! Progress bars (indicatif) on stderr for work that takes more than about two seconds; hidden
//! when asked (`--json`) or when stdout is not a terminal, so pipes and logs stay clean.

use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;

/// A bar of `len` steps labelled `what`; hidden when `quiet` or stdout is not a terminal.
pub fn bar(len: u64, what: &str, quiet: bool) -> ProgressBar {
    if quiet || !std::io::stdout().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(len);
    bar.set_style(ProgressStyle::with_template("{msg:<24} [{bar:40}] {pos}/{len} ({elapsed})").expect("static template").progress_chars("=> "));
    bar.set_message(what.to_owned());
    bar
}

/// A bar of `total_bytes` bytes labelled `what` (shown as bytes and a rate); hidden as [`bar`].
pub fn bytes_bar(total_bytes: u64, what: &str, quiet: bool) -> ProgressBar {
    let bar = bar(total_bytes, what, quiet);
    bar.set_style(ProgressStyle::with_template("{msg:<24} [{bar:40}] {bytes}/{total_bytes} ({binary_bytes_per_sec}, {elapsed})").expect("static template").progress_chars("=> "));
    bar
}
