//! [`Limiter`]: at most `capture.per_minute` samples per bidder label in each minute (a leaf).
//!
//! Fixed windows: minute `n` is `[n·60 s, (n+1)·60 s)` of the clock the caller passes, so a bidder gets a fresh
//! budget at each minute's start. The keys are bidder labels (`server.bidders` names, `other`, `unknown`), a
//! bounded set, so the table never grows with what clients send. The mutex is taken only for a bad answer while
//! capture is on, never on a good one.

use std::collections::HashMap;
use std::sync::Mutex;

/// Per-label budgets of the current minute.
#[derive(Debug)]
pub struct Limiter {
    per_minute: u32,
    /// label → (the minute its count is of, samples taken in it).
    taken: Mutex<HashMap<Box<str>, (u64, u32)>>,
}

impl Limiter {
    /// A limiter of `per_minute` samples per label and minute.
    pub fn new(per_minute: u32) -> Limiter {
        Limiter {
            per_minute,
            taken: Mutex::new(HashMap::new()),
        }
    }

    /// Whether `label` may still take a sample in `minute`, taking nothing: checked before a body is kept.
    pub fn has_room(&self, label: &str, minute: u64) -> bool {
        let taken = self.taken.lock().unwrap_or_else(|e| e.into_inner());
        match taken.get(label) {
            Some(&(m, n)) if m == minute => n < self.per_minute,
            _ => self.per_minute > 0,
        }
    }

    /// Takes one of `label`'s samples of `minute`; `false` when its budget is spent.
    pub fn take(&self, label: &str, minute: u64) -> bool {
        let mut taken = self.taken.lock().unwrap_or_else(|e| e.into_inner());
        let entry = match taken.get_mut(label) {
            Some(entry) => entry,
            None => taken.entry(label.into()).or_insert((minute, 0)),
        };
        if entry.0 != minute {
            *entry = (minute, 0);
        }
        if entry.1 >= self.per_minute {
            return false;
        }
        entry.1 += 1;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_budget_per_label_and_minute() {
        let l = Limiter::new(2);
        assert!(l.has_room("a", 7));
        assert!(l.take("a", 7));
        assert!(l.take("a", 7));
        assert!(!l.has_room("a", 7));
        assert!(!l.take("a", 7), "the third of minute 7");
        assert!(l.take("b", 7), "another label has its own budget");
        assert!(l.has_room("a", 8), "a fresh budget at the next minute");
        assert!(l.take("a", 8));
        assert!(l.take("a", 8));
        assert!(!l.take("a", 8));
    }
}
