//! The path stack: where in the document the value being decoded sits, kept cheaply (one segment per open
//! container, updated with a store per key or element) and rendered as a JSON pointer only when an error happens.

use std::fmt::Write;

/// One open container's current position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Seg<'de> {
    /// Between elements or entries (before the first, after the last, or while reading a key).
    Pending,
    /// Decoding the value of this key (the key as decoded, borrowed from the input).
    Key(&'de str),
    /// Decoding the element at this index.
    Index(usize),
}

/// Renders segments as an RFC 6901 JSON pointer (`~` → `~0`, `/` → `~1`); `Pending` segments add nothing.
pub(crate) fn render(path: &[Seg<'_>]) -> String {
    let mut out = String::new();
    for seg in path {
        match *seg {
            Seg::Pending => {}
            Seg::Key(key) => {
                out.push('/');
                for c in key.chars() {
                    match c {
                        '~' => out.push_str("~0"),
                        '/' => out.push_str("~1"),
                        c => out.push(c),
                    }
                }
            }
            Seg::Index(i) => {
                let _ = write!(out, "/{i}");
            }
        }
    }
    out
}

/// Empties a path stack and re-types it for another input lifetime, keeping its allocation (the in-place
/// `collect` of an empty vector of a same-layout type reuses the buffer; `reader.rs` tests that it does).
pub(crate) fn recycle<'a, 'b>(mut path: Vec<Seg<'a>>) -> Vec<Seg<'b>> {
    path.clear();
    path.into_iter().map(|_| Seg::Pending).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_json_pointer_with_escapes() {
        let path = [
            Seg::Key("seatbid"),
            Seg::Index(0),
            Seg::Pending,
            Seg::Key("a/b~c"),
        ];
        assert_eq!(render(&path), "/seatbid/0/a~1b~0c");
        assert_eq!(render(&[]), "");
    }

    #[test]
    fn recycle_keeps_capacity() {
        let mut v: Vec<Seg<'_>> = Vec::with_capacity(40);
        v.push(Seg::Index(3));
        let v2: Vec<Seg<'static>> = recycle(v);
        assert!(v2.is_empty());
        assert_eq!(v2.capacity(), 40);
    }
}
