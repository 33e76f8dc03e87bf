//! Where in the markup a finding is: byte offset, line and column.

use serde::Serialize;

/// A place in a piece of markup.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Location {
    /// Byte offset from the start of the markup (0-based).
    pub byte: usize,
    /// 1-based line (lines end at `\n`).
    pub line: usize,
    /// 1-based column, counted in bytes from the start of the line (as bidscan-json counts).
    pub column: usize,
}

impl Location {
    /// The location of byte `byte` of `markup` (clamped to its length). O(`byte`): for findings, not per event.
    pub fn of(markup: &str, byte: usize) -> Location {
        let byte = byte.min(markup.len());
        let before = &markup.as_bytes()[..byte];
        // Markup is often one line (VAST from an ad server): the count first, the backward search only when
        // there is a newline at all.
        let newlines = memchr::memchr_iter(b'\n', before).count();
        let line_start = match newlines {
            0 => 0,
            _ => memchr::memrchr(b'\n', before).map_or(0, |nl| nl + 1),
        };
        Location {
            byte,
            line: 1 + newlines,
            column: byte - line_start + 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_columns_from_one() {
        let m = "ab\ncd\n\nef";
        assert_eq!(
            Location::of(m, 0),
            Location {
                byte: 0,
                line: 1,
                column: 1
            }
        );
        assert_eq!(
            Location::of(m, 4),
            Location {
                byte: 4,
                line: 2,
                column: 2
            }
        );
        assert_eq!(
            Location::of(m, 7),
            Location {
                byte: 7,
                line: 4,
                column: 1
            }
        );
        assert_eq!(Location::of(m, 99).byte, m.len());
    }
}
