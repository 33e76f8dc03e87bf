//! VAST `Duration` values: `HH:MM:SS` or `HH:MM:SS.mmm` (VAST 4.2 §3.9.1 "Duration", the same in 2.0–4.1).

/// Seconds of a VAST duration, or `None` when it is not in the `HH:MM:SS[.mmm]` form. Surrounding whitespace is
/// ignored; hours may have any number of digits (at least one), minutes and seconds exactly two and below 60,
/// the fraction 1–3 digits.
pub fn parse(text: &str) -> Option<f64> {
    let mut parts = text.trim().splitn(3, ':');
    let (h, m, s) = (parts.next()?, parts.next()?, parts.next()?);
    let (s, frac) = s.split_once('.').unwrap_or((s, ""));
    let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    if !digits(h) || h.len() > 6 || !digits(m) || m.len() != 2 || !digits(s) || s.len() != 2 {
        return None;
    }
    if !(frac.is_empty() || digits(frac) && frac.len() <= 3) || text.trim().ends_with('.') {
        return None;
    }
    let (h, m, s): (f64, f64, f64) = (h.parse().ok()?, m.parse().ok()?, s.parse().ok()?);
    if m >= 60.0 || s >= 60.0 {
        return None;
    }
    let frac = if frac.is_empty() {
        0.0
    } else {
        frac.parse::<f64>().ok()? / 10f64.powi(frac.len() as i32)
    };
    Some(h * 3600.0 + m * 60.0 + s + frac)
}

#[cfg(test)]
mod tests {
    use super::parse;

    #[test]
    fn reads_vast_durations() {
        assert_eq!(parse("00:00:30"), Some(30.0));
        assert_eq!(parse(" 00:00:16 \n"), Some(16.0));
        assert_eq!(parse("00:01:05.500"), Some(65.5));
        assert_eq!(parse("01:00:00.5"), Some(3600.5));
        assert_eq!(parse("100:00:00"), Some(360000.0));
    }

    #[test]
    fn refuses_other_forms() {
        for t in [
            "",
            "30",
            "0:30",
            "00:60:00",
            "00:00:60",
            "00:00:3",
            "00:00:30.",
            "00:00:30.1234",
            "aa:bb:cc",
            "-1:00:00",
            "00:00:30 s",
        ] {
            assert_eq!(parse(t), None, "{t:?}");
        }
    }
}
