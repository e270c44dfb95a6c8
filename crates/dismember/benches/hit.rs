//! Placeholder; replaced by the hit benchmark.
fn main() {}
