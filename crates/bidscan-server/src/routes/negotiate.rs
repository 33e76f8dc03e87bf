//! Proactive negotiation of an answer's media type from the request's `Accept` (RFC 9110 §12.5.1): which of
//! the representations a route offers the client prefers, or `406 Not Acceptable` (RFC 9110 §15.5.7) when it
//! accepts none.
//!
//! The rules:
//! - no `Accept` (or only empty ones): the first offer (JSON), as "any media type";
//! - every `Accept` line counts, its comma-separated media ranges each with an optional weight `q` (0 to 1, three
//!   decimals; `q=0` refuses); parameters other than `q` are ignored; a range that does not parse is skipped;
//! - an offer's weight is that of the most specific range matching one of its names (`type/subtype` over
//!   `type/*` over `*/*`; RFC 9110 §12.5.1's precedence), the best over its names;
//! - the offer with the highest weight wins; on a tie, the one a more specific range named (an offer named exactly
//!   over one only a wildcard matches: `application/x-protobuf, */*` takes protobuf; RFC 9110 §12.5.1 gives "the
//!   most specific reference" precedence), then the one listed first (JSON).
//!
//! An `Accept` line that is not visible ASCII is skipped.

use axum::http::HeaderMap;
use axum::http::header::ACCEPT;

/// A representation a route can answer in: its media types, the first the one sent in `Content-Type`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Offer {
    /// The media types (lowercase) that name it; `names[0]` is sent.
    pub names: &'static [&'static str],
}

/// JSON (RFC 8259).
pub const JSON: Offer = Offer {
    names: &["application/json"],
};

/// A protobuf message: `application/x-protobuf` sent, `application/protobuf` (the IETF draft's name) and
/// `application/vnd.google.protobuf` accepted as well, as the request's `Content-Type` takes them.
pub const PROTOBUF: Offer = Offer {
    names: &[
        "application/x-protobuf",
        "application/protobuf",
        "application/vnd.google.protobuf",
    ],
};

/// The offer of `offers` the request's `Accept` prefers (see the module docs); `None` when it accepts none of
/// them (the caller answers 406). `offers` is not empty; its first is the default and wins ties between equally
/// specific ranges.
pub fn choose(headers: &HeaderMap, offers: &[Offer]) -> Option<Offer> {
    let mut lines = headers
        .get_all(ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .filter(|v| !v.trim().is_empty())
        .peekable();
    if lines.peek().is_none() {
        return offers.first().copied();
    }
    let ranges: Vec<Range<'_>> = lines
        .flat_map(|l| l.split(','))
        .filter_map(Range::parse)
        .collect();
    // Per offer: (weight, specificity of the range that gave it), compared in that order.
    let mut best: Option<(Offer, (u16, u8))> = None;
    for offer in offers {
        let w = offer
            .names
            .iter()
            .filter_map(|name| weight(&ranges, name))
            .max()
            .unwrap_or((0, 0));
        if w.0 > 0 && best.is_none_or(|(_, b)| w > b) {
            best = Some((*offer, w));
        }
    }
    best.map(|(o, _)| o)
}

/// The names of every offer, for a 406's message and its `Accept`-like list.
pub fn offered(offers: &[Offer]) -> String {
    offers
        .iter()
        .flat_map(|o| o.names.iter().copied())
        .collect::<Vec<_>>()
        .join(", ")
}

/// One media range of `Accept`: `type/subtype` (either `*`) and its weight in thousandths.
struct Range<'a> {
    kind: &'a str,
    sub: &'a str,
    q: u16,
}

impl<'a> Range<'a> {
    fn parse(text: &'a str) -> Option<Range<'a>> {
        let mut params = text.split(';');
        let (kind, sub) = params.next()?.trim().split_once('/')?;
        let (kind, sub) = (kind.trim(), sub.trim());
        if kind.is_empty() || sub.is_empty() || (kind == "*" && sub != "*") {
            return None;
        }
        let mut q = 1000;
        for p in params {
            let Some((name, value)) = p.split_once('=') else {
                continue;
            };
            if name.trim().eq_ignore_ascii_case("q") {
                q = qvalue(value.trim())?;
            }
        }
        Some(Range { kind, sub, q })
    }

    /// How specific a match of `name` is: 3 exact, 2 `type/*`, 1 `*/*`; 0 no match.
    fn matches(&self, name: &str) -> u8 {
        let Some((kind, sub)) = name.split_once('/') else {
            return 0;
        };
        if self.kind == "*" {
            1
        } else if !self.kind.eq_ignore_ascii_case(kind) {
            0
        } else if self.sub == "*" {
            2
        } else if self.sub.eq_ignore_ascii_case(sub) {
            3
        } else {
            0
        }
    }
}

/// A weight (RFC 9110 §12.4.2: `0[.ddd]` or `1[.000]`) in thousandths.
fn qvalue(v: &str) -> Option<u16> {
    let (int, frac) = v.split_once('.').unwrap_or((v, ""));
    if frac.len() > 3 || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let thousandths: u16 = format!("{frac:0<3}").parse().ok()?;
    match int {
        "0" => Some(thousandths),
        "1" if thousandths == 0 => Some(1000),
        _ => None,
    }
}

/// The weight the most specific range matching `name` gives it (the best of equally specific ones), with that
/// range's specificity ([`Range::matches`]); `None` when no range matches.
fn weight(ranges: &[Range<'_>], name: &str) -> Option<(u16, u8)> {
    let mut best: Option<(u8, u16)> = None;
    for r in ranges {
        let s = r.matches(name);
        if s == 0 {
            continue;
        }
        best = match best {
            Some((bs, bq)) if bs > s || (bs == s && bq >= r.q) => Some((bs, bq)),
            _ => Some((s, r.q)),
        };
    }
    best.map(|(s, q)| (q, s))
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn pick(accept: &[&str]) -> Option<&'static str> {
        let mut h = HeaderMap::new();
        for a in accept {
            h.append(ACCEPT, HeaderValue::from_str(a).unwrap());
        }
        choose(&h, &[JSON, PROTOBUF]).map(|o| o.names[0])
    }

    const J: Option<&str> = Some("application/json");
    const P: Option<&str> = Some("application/x-protobuf");

    #[test]
    fn json_without_a_preference_and_on_ties() {
        assert_eq!(pick(&[]), J);
        assert_eq!(pick(&[""]), J);
        assert_eq!(pick(&["*/*"]), J);
        assert_eq!(pick(&["application/*"]), J);
        assert_eq!(pick(&["application/json, application/x-protobuf"]), J);
        assert_eq!(
            pick(&["application/x-protobuf;q=0.5, application/json;q=0.5"]),
            J
        );
    }

    #[test]
    fn protobuf_by_any_of_its_names_and_by_weight() {
        assert_eq!(pick(&["application/x-protobuf"]), P);
        assert_eq!(pick(&["application/protobuf"]), P);
        assert_eq!(pick(&["Application/Vnd.Google.Protobuf"]), P);
        assert_eq!(pick(&["application/json;q=0.9, application/x-protobuf"]), P);
        assert_eq!(
            pick(&["application/json;q=0.1", "application/x-protobuf;q=0.2"]),
            P
        );
        assert_eq!(pick(&["*/*;q=0.1, application/x-protobuf"]), P);
        // The most specific range decides: json refused, everything else welcome.
        assert_eq!(pick(&["application/json;q=0, */*"]), P);
        assert_eq!(
            pick(&["application/*;q=0.3, application/x-protobuf;q=0.4"]),
            P
        );
    }

    #[test]
    fn nothing_acceptable() {
        assert_eq!(pick(&["text/html"]), None);
        assert_eq!(pick(&["application/json;q=0"]), None);
        assert_eq!(pick(&["*/*;q=0"]), None);
        assert_eq!(pick(&["application/xml, text/*"]), None);
        // Unparseable ranges are skipped; with nothing left, nothing is acceptable.
        assert_eq!(pick(&["nonsense, application/json;q=2"]), None);
        assert_eq!(pick(&["*/json"]), None);
    }

    #[test]
    fn a_type_named_exactly_beats_a_wildcard_at_equal_weight() {
        assert_eq!(pick(&["application/x-protobuf, */*"]), P);
        assert_eq!(pick(&["*/*;q=0.5, application/protobuf;q=0.5"]), P);
        assert_eq!(pick(&["application/*", "application/x-protobuf"]), P);
        assert_eq!(pick(&["application/x-protobuf;q=0.4, */*;q=0.5"]), J);
    }

    #[test]
    fn weights_parse_as_rfc_9110_writes_them() {
        assert_eq!(qvalue("1"), Some(1000));
        assert_eq!(qvalue("1.000"), Some(1000));
        assert_eq!(qvalue("0.5"), Some(500));
        assert_eq!(qvalue("0.001"), Some(1));
        assert_eq!(qvalue("0"), Some(0));
        assert_eq!(qvalue("1.5"), None);
        assert_eq!(qvalue("0.0001"), None);
        assert_eq!(qvalue("-1"), None);
        assert_eq!(qvalue(""), None);
    }

    mod generated {
        use super::*;
        use proptest::prelude::*;

        const OFFERS: [Offer; 2] = [JSON, PROTOBUF];

        fn headers(lines: &[String]) -> HeaderMap {
            let mut h = HeaderMap::new();
            for l in lines {
                if let Ok(v) = HeaderValue::from_str(l) {
                    h.append(ACCEPT, v);
                }
            }
            h
        }

        /// A weight as RFC 9110 §12.4.2 writes it, from thousandths.
        fn qtext(thousandths: u16) -> String {
            if thousandths == 1000 {
                "1".to_owned()
            } else {
                format!("0.{thousandths:03}")
            }
        }

        /// A weight parameter: none, a valid one, or one that does not parse.
        fn q() -> impl Strategy<Value = String> {
            prop_oneof![
                Just(String::new()),
                (0u16..=1000).prop_map(|t| format!(";q={}", qtext(t))),
                Just(";q=2".to_owned()),
                Just("; Q = 0.5".to_owned()),
                Just(";level=1".to_owned()),
            ]
        }

        /// A media range of `vocabulary` with a weight.
        fn range(vocabulary: Vec<&'static str>) -> impl Strategy<Value = String> {
            (proptest::sample::select(vocabulary), q()).prop_map(|(k, q)| format!("{k}{q}"))
        }

        const EVERY_RANGE: [&str; 10] = [
            "application/json",
            "application/x-protobuf",
            "application/protobuf",
            "Application/Vnd.Google.Protobuf",
            "application/*",
            "*/*",
            "text/html",
            "application/xml",
            "*/json",
            "nonsense",
        ];

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(512))]

            /// Arbitrary header bytes never panic, and the choice is one of the offers.
            #[test]
            fn any_accept_picks_one_of_the_offers_or_none(
                lines in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..48), 0..4),
                reversed in any::<bool>(),
            ) {
                let mut h = HeaderMap::new();
                for l in &lines {
                    if let Ok(v) = HeaderValue::from_bytes(l) {
                        h.append(ACCEPT, v);
                    }
                }
                let offers = if reversed { [PROTOBUF, JSON] } else { OFFERS };
                if let Some(o) = choose(&h, &offers) {
                    prop_assert!(offers.contains(&o));
                }
            }

            /// Media ranges as clients write them: the choice is an offer, and `None` only when some range was sent.
            #[test]
            fn ranges_pick_one_of_the_offers(
                lines in proptest::collection::vec(
                    proptest::collection::vec(range(EVERY_RANGE.to_vec()), 0..5).prop_map(|r| r.join(", ")),
                    0..3,
                ),
            ) {
                match choose(&headers(&lines), &OFFERS) {
                    Some(o) => prop_assert!(OFFERS.contains(&o)),
                    None => prop_assert!(lines.iter().any(|l| !l.trim().is_empty())),
                }
            }

            /// An offer whose every name is sent with `q=0` is never chosen, whatever the wildcards and the other
            /// ranges say.
            #[test]
            fn an_offer_refused_with_q_0_is_never_chosen(
                refused in 0usize..2,
                others in proptest::collection::vec(any::<proptest::sample::Index>(), 0..6),
                weights in proptest::collection::vec(q(), 6),
                at in any::<proptest::sample::Index>(),
            ) {
                let offer = OFFERS[refused];
                // Ranges that name no name of the refused offer exactly.
                let vocabulary: Vec<&str> = EVERY_RANGE
                    .iter()
                    .copied()
                    .filter(|r| !offer.names.iter().any(|n| n.eq_ignore_ascii_case(r)))
                    .collect();
                let mut ranges: Vec<String> = others
                    .iter()
                    .zip(&weights)
                    .map(|(i, q)| format!("{}{q}", i.get(&vocabulary)))
                    .collect();
                for name in offer.names {
                    let i = at.index(ranges.len() + 1);
                    ranges.insert(i, format!("{name};q=0"));
                }
                let chosen = choose(&headers(&[ranges.join(", ")]), &OFFERS);
                prop_assert_ne!(chosen, Some(offer), "{}", ranges.join(", "));
            }

            /// RFC 9110 §12.5.1: the exact range's weight decides for its type over a wildcard's, in either order;
            /// at equal weight the offer named exactly wins over the one only the wildcard matches.
            #[test]
            fn the_exact_range_decides_over_a_wildcard(
                named in 0usize..2,
                name in any::<proptest::sample::Index>(),
                wildcard in proptest::sample::select(vec!["*/*", "application/*"]),
                (exact_q, wild_q) in prop_oneof![(0u16..=1000).prop_map(|q| (q, q)), (0u16..=1000, 0u16..=1000)],
                exact_first in any::<bool>(),
            ) {
                let offer = OFFERS[named];
                let other = OFFERS[1 - named];
                let exact = format!("{};q={}", name.get(offer.names), qtext(exact_q));
                let wild = format!("{wildcard};q={}", qtext(wild_q));
                let header = if exact_first { format!("{exact}, {wild}") } else { format!("{wild}, {exact}") };
                let want = if exact_q > 0 && exact_q >= wild_q {
                    Some(offer)
                } else if wild_q > 0 {
                    Some(other)
                } else {
                    None
                };
                prop_assert_eq!(choose(&headers(std::slice::from_ref(&header)), &OFFERS), want, "{}", header);
            }
        }
    }
}
