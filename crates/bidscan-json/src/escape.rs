//! The escape tables (RFC 8259 §7), shared by the scalar string decoder (`string.rs`) and the AVX-512 kernel
//! (`scan/avx512.rs`). A leaf: it imports nothing from the crate.

/// What each one-byte escape (`\"` `\\` `\/` `\b` `\f` `\n` `\r` `\t`) decodes to, indexed by the byte after the
/// backslash; 0 for everything else (`u` and invalid escapes take the slow path). Also the AVX-512 kernel's table.
pub(crate) static SIMPLE: [u8; 256] = {
    let mut table = [0u8; 256];
    table[b'"' as usize] = b'"';
    table[b'\\' as usize] = b'\\';
    table[b'/' as usize] = b'/';
    table[b'b' as usize] = 0x08;
    table[b'f' as usize] = 0x0c;
    table[b'n' as usize] = b'\n';
    table[b'r' as usize] = b'\r';
    table[b't' as usize] = b'\t';
    table
};

/// Value of each hex digit byte; 0xff for every other byte.
pub(crate) static HEX: [u8; 256] = {
    let mut table = [0xffu8; 256];
    let mut i = 0;
    while i < 10 {
        table[b'0' as usize + i] = i as u8;
        i += 1;
    }
    let mut i = 0;
    while i < 6 {
        table[b'a' as usize + i] = 10 + i as u8;
        table[b'A' as usize + i] = 10 + i as u8;
        i += 1;
    }
    table
};
