//! The filler byte of a kernel's last partial block. A leaf, so the kernels (`x86.rs`, `swar.rs`, `neon.rs`) do
//! not import the scanner's `mod.rs`, which imports them.

/// Filler for the last partial block: not a stop byte, so padding never reports a stop.
pub(super) const PAD: u8 = b' ';
