//! [`Growing`]: an answer built in pieces whose memory is agreed before it is taken, so that a long answer is
//! stopped while it is built, not after it exists (`/validate/auction`'s: a 1 MB call of compressed bidders can
//! ask for hundreds of MB of findings).
//!
//! The buffer grows only once its hold has agreed to what it would then occupy: the buffer's capacity (not its
//! length: that is the memory taken), plus while it moves the buffer it moves from (a reallocation copies, so
//! both exist for a moment), plus the bytes the caller holds beside it (the piece being appended). It grows by
//! half its capacity, or to exactly what a piece needs when the hold has no room for more, so an answer of N bytes
//! costs about log₁.₅(N) moves and holds at most 1.5 × N (when the hold has no room for half again: the piece
//! and 64 KiB, then exactly the piece).

/// The room left past a piece when the hold has none for half again: 64 KiB, the budget's step.
const SLACK: usize = 64 * 1024;

/// What an answer may hold: called with the bytes it would occupy in all (see the module docs), it answers
/// whether they are held now. Called with fewer bytes than before, it gives the rest back and answers `true`.
pub type Hold<'h> = &'h mut dyn FnMut(usize) -> bool;

/// The hold said no: the answer cannot take the memory it needs (the server sheds the call with 503
/// `overloaded`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Refused;

/// An answer's buffer under a [`Hold`] (see the module docs).
pub struct Growing<'h> {
    out: Vec<u8>,
    hold: Hold<'h>,
}

impl<'h> Growing<'h> {
    /// A buffer of `capacity` bytes, held by `hold`.
    ///
    /// # Errors
    /// [`Refused`] when `hold` has no room for it.
    pub fn with_capacity(capacity: usize, hold: Hold<'h>) -> Result<Growing<'h>, Refused> {
        if !hold(capacity) {
            return Err(Refused);
        }
        Ok(Growing {
            out: Vec::with_capacity(capacity),
            hold,
        })
    }

    /// The bytes written so far.
    pub fn len(&self) -> usize {
        self.out.len()
    }

    /// Makes room for `additional` more bytes while `beside` bytes are held elsewhere (a piece being appended),
    /// and tells the hold what is occupied then: the capacity plus `beside`.
    ///
    /// # Errors
    /// [`Refused`] (the buffer unchanged) when the hold has no room for the move.
    pub fn reserve(&mut self, additional: usize, beside: usize) -> Result<(), Refused> {
        let capacity = self.out.capacity();
        let needed = self.out.len().saturating_add(additional);
        if needed > capacity {
            let grown = needed.max(capacity.saturating_add(capacity / 2));
            // Short of half again, a little past the piece, so that the next small piece does not move it again.
            let slack = needed.saturating_add(SLACK).min(grown);
            let Some(want) = [grown, slack, needed]
                .into_iter()
                .find(|&want| (self.hold)(capacity.saturating_add(want).saturating_add(beside)))
            else {
                return Err(Refused);
            };
            self.out.reserve_exact(want - self.out.len());
        }
        if (self.hold)(self.out.capacity().saturating_add(beside)) {
            Ok(())
        } else {
            Err(Refused)
        }
    }

    /// Appends `piece` (held elsewhere in `beside` bytes, its buffer's capacity) under the hold.
    ///
    /// # Errors
    /// [`Refused`], nothing appended, when the hold has no room for it.
    pub fn append(&mut self, piece: &[u8], beside: usize) -> Result<(), Refused> {
        self.reserve(piece.len(), beside)?;
        self.out.extend_from_slice(piece);
        Ok(())
    }

    /// Appends a copy of the bytes at `range` of what is written (`range` within [`len`](Self::len)).
    ///
    /// # Errors
    /// [`Refused`], nothing appended, when the hold has no room for it.
    pub fn append_within(&mut self, range: std::ops::Range<usize>) -> Result<(), Refused> {
        self.reserve(range.len(), 0)?;
        self.out.extend_from_within(range);
        Ok(())
    }

    /// The bytes written since `start` (at most [`len`](Self::len)), to be changed in place.
    pub fn written_mut(&mut self, start: usize) -> &mut [u8] {
        let start = start.min(self.out.len());
        &mut self.out[start..]
    }

    /// The bytes written.
    pub fn written(&self) -> &[u8] {
        &self.out
    }

    /// The answer; the hold keeps the buffer's capacity (what the answer occupies until it is sent).
    pub fn into_inner(self) -> Vec<u8> {
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hold_is_asked_before_the_buffer_moves() {
        let mut asked = Vec::new();
        let mut held = 0;
        let mut hold = |bytes: usize| {
            asked.push(bytes);
            if bytes <= 100 {
                held = bytes;
                true
            } else {
                false
            }
        };
        let mut out = Growing::with_capacity(10, &mut hold).unwrap();
        out.append(&[1; 10], 5).unwrap();
        // 10 more: 15 (half again) is not enough, so exactly 20 (the slack is past half again), with the old 10
        // beside while it moves.
        out.append(&[2; 10], 0).unwrap();
        assert_eq!(out.written().len(), 20);
        // 70 more: 90 asked with the old 20 beside (110), refused; the buffer unchanged.
        assert_eq!(out.append(&[3; 70], 0), Err(Refused));
        assert_eq!(out.len(), 20);
        out.append_within(0..10).unwrap();
        assert_eq!(&out.written()[20..], &[1; 10]);
        drop(out);
        // The three sizes asked for 70 more (half again, the piece and 64 KiB, the piece) are all 90 here.
        assert_eq!(asked, [10, 15, 30, 20, 110, 110, 110, 50, 30]);
        assert_eq!(held, 30);
    }
}
