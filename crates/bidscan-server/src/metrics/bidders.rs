//! [`Bidders`]: the metrics labelled by bidder, with every bidder's handles resolved once.
//!
//! A request names its bidder with `?bidder=NAME` or `X-Bidder` (the auction route: each part's name). The
//! `bidder` label is that name when `server.bidders` lists it, `other` for any other name and `unknown` when
//! the request names none, so the series are bounded by the list, not by what clients send: `(names + 2) ×
//! SERIES_PER_BIDDER` (docs/metrics.md, "Series budget").
//!
//! The handles of each label value ([`BidderMetrics`]) are made when the list is configured, at start and on
//! each reload (`crate::config::reload`), into a [`BidderTable`] swapped in whole ([`ArcSwap`]): finding a
//! request's bidder is one atomic load and one hash of the name, with no allocation and no label lookup. Every
//! series of a listed name exists, at zero, from the moment the name is listed; a name taken off the list has
//! its series removed (a request already holding its handles counts into them unseen).

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use arc_swap::{ArcSwap, Guard};
use bidscan_openrtb::BidResponse;
use bidscan_openrtb::rules::Rates;
use prometheus::{Histogram, HistogramVec, IntCounter, IntCounterVec};

use crate::metrics::registry::OUTCOMES;

/// The `bidder` label of a name `server.bidders` does not list.
pub const OTHER: &str = "other";

/// The `bidder` label of a request that names no bidder.
pub const UNKNOWN: &str = "unknown";

/// The seat-non-bid status codes `bidscan_bidder_rejections_total` counts: every code a `/validate` rule
/// rejects with (`bidscan_openrtb::rules::Rule::statuscode`), and the auction's 100 (error from the bidder), 101
/// (timed out), 102 (invalid bid response) and 103 (unreachable). Sorted.
pub const REJECTION_CODES: [u16; 15] = [
    100, 101, 102, 103, 300, 301, 302, 303, 304, 350, 351, 352, 353, 356, 357,
];

/// The bucket bounds of `bidscan_bidder_bid_price_usd`, in USD (a CPM: the price of 1,000 impressions).
pub const PRICE_BUCKETS_USD: [f64; 11] =
    [0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 3.0, 5.0, 10.0, 20.0, 50.0];

/// Series one `bidder` label value holds: an outcome counter per [`OUTCOMES`] entry, a rejection counter per
/// [`REJECTION_CODES`] entry, the price histogram (its buckets, `+Inf`, `_sum`, `_count`), the unconverted
/// prices' counter, the response-bytes histogram (9 buckets, `+Inf`, `_sum`, `_count`) and the not-encodable
/// counter.
pub const SERIES_PER_BIDDER: usize =
    OUTCOMES.len() + REJECTION_CODES.len() + (PRICE_BUCKETS_USD.len() + 3) + 1 + (9 + 3) + 1;

/// The labelled metrics the handles are taken from (registered in [`crate::metrics::Metrics::new`]).
#[derive(Clone)]
pub struct BidderVecs {
    /// `bidscan_bidder_outcomes_total{bidder,outcome}`.
    pub outcomes: IntCounterVec,
    /// `bidscan_bidder_rejections_total{bidder,statuscode}`.
    pub rejections: IntCounterVec,
    /// `bidscan_bidder_bid_price_usd{bidder}`.
    pub price_usd: HistogramVec,
    /// `bidscan_bidder_bid_price_unconverted_total{bidder}`.
    pub unconverted: IntCounterVec,
    /// `bidscan_bidder_response_bytes{bidder}`.
    pub response_bytes: HistogramVec,
    /// `bidscan_bidder_not_encodable_total{bidder}`.
    pub not_encodable: IntCounterVec,
}

/// One `bidder` label value's series, resolved once. Every method is a few atomic adds.
pub struct BidderMetrics {
    /// The label value: a listed name, [`OTHER`] or [`UNKNOWN`].
    label: Box<str>,
    /// One per [`OUTCOMES`] entry, in that order.
    outcomes: Vec<IntCounter>,
    /// One per [`REJECTION_CODES`] entry, in that order.
    rejections: Vec<IntCounter>,
    price_usd: Histogram,
    unconverted: IntCounter,
    response_bytes: Histogram,
    not_encodable: IntCounter,
}

impl fmt::Debug for BidderMetrics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("BidderMetrics").field(&self.label()).finish()
    }
}

/// Two handles are equal when they count under the same label value.
impl PartialEq for BidderMetrics {
    fn eq(&self, other: &BidderMetrics) -> bool {
        self.label == other.label
    }
}

impl BidderMetrics {
    fn new(vecs: &BidderVecs, label: &str) -> BidderMetrics {
        BidderMetrics {
            label: label.into(),
            outcomes: OUTCOMES
                .iter()
                .map(|o| vecs.outcomes.with_label_values(&[label, o]))
                .collect(),
            rejections: REJECTION_CODES
                .iter()
                .map(|c| vecs.rejections.with_label_values(&[label, &c.to_string()]))
                .collect(),
            price_usd: vecs.price_usd.with_label_values(&[label]),
            unconverted: vecs.unconverted.with_label_values(&[label]),
            response_bytes: vecs.response_bytes.with_label_values(&[label]),
            not_encodable: vecs.not_encodable.with_label_values(&[label]),
        }
    }

    /// Removes this label value's series from the registry.
    fn remove(vecs: &BidderVecs, label: &str) {
        for o in OUTCOMES {
            let _ = vecs.outcomes.remove_label_values(&[label, o]);
        }
        for c in REJECTION_CODES {
            let _ = vecs
                .rejections
                .remove_label_values(&[label, &c.to_string()]);
        }
        let _ = vecs.price_usd.remove_label_values(&[label]);
        let _ = vecs.unconverted.remove_label_values(&[label]);
        let _ = vecs.response_bytes.remove_label_values(&[label]);
        let _ = vecs.not_encodable.remove_label_values(&[label]);
    }

    /// The `bidder` label value: a listed name, [`OTHER`] or [`UNKNOWN`].
    pub fn label(&self) -> &str {
        &self.label
    }

    /// Counts one response of this bidder with `outcome` (one of [`OUTCOMES`]; another is not counted) and
    /// `bytes` bytes (after decompression).
    pub fn observe_response(&self, outcome: &str, bytes: usize) {
        self.observe_outcome(outcome);
        self.response_bytes.observe(bytes as f64);
    }

    /// Counts one response of this bidder with `outcome` (one of [`OUTCOMES`]; another is not counted) whose
    /// size is not known (refused from its `Content-Length`).
    pub fn observe_outcome(&self, outcome: &str) {
        if let Some(i) = OUTCOMES.iter().position(|&o| o == outcome) {
            self.outcomes[i].inc();
        }
    }

    /// Counts one rejected bid (or, in the auction, one non-bid imp) with seat-non-bid `statuscode` (one of
    /// [`REJECTION_CODES`]; another is not counted).
    pub fn observe_rejection(&self, statuscode: u16) {
        if let Ok(i) = REJECTION_CODES.binary_search(&statuscode) {
            self.rejections[i].inc();
        }
    }

    /// Counts each status code of `statuscodes` as [`observe_rejection`](Self::observe_rejection) does.
    pub fn observe_rejections(&self, statuscodes: impl IntoIterator<Item = u16>) {
        for code in statuscodes {
            self.observe_rejection(code);
        }
    }

    /// Counts one response of this bidder that could not be answered as protobuf (an integer outside int32,
    /// `bidscan_openrtb::EncodeError`): `/decode`'s 422 `not_encodable`, an auction's part with
    /// `X-Bidscan-Error: not_encodable`. Its outcome is counted apart, as its decode's.
    pub fn observe_not_encodable(&self) {
        self.not_encodable.inc();
    }

    /// Counts one bid's price in USD, or (`None`) a bid whose price could not be converted: no price, or no
    /// rate from its currency.
    pub fn observe_bid_price_usd(&self, usd: Option<f64>) {
        match usd {
            Some(usd) => self.price_usd.observe(usd),
            None => self.unconverted.inc(),
        }
    }

    /// Whether the prices of `response` need rates to be read in USD: its currency (`cur`, else USD, OpenRTB
    /// 2.6 §4.2.1) is not USD.
    pub fn needs_rates(response: &BidResponse<'_>) -> bool {
        response.cur.as_deref().is_some_and(|cur| cur != "USD")
    }

    /// Counts the price of every bid of `response`, in its currency (`cur`, else USD, OpenRTB 2.6 §4.2.1)
    /// converted to USD with `rates` (read only when [`needs_rates`](Self::needs_rates); `None`: no rate, every
    /// price of another currency is unconverted).
    pub fn observe_bid_prices(&self, response: &BidResponse<'_>, rates: Option<&Rates>) {
        let cur = response.cur.as_deref().unwrap_or("USD");
        let bids = response.seatbid.iter().flat_map(|s| s.bid.iter());
        if cur == "USD" {
            for bid in bids {
                self.observe_bid_price_usd(bid.price);
            }
            return;
        }
        for bid in bids {
            let usd = match (bid.price, rates) {
                (Some(price), Some(rates)) => rates.convert(price, cur, "USD"),
                _ => None,
            };
            self.observe_bid_price_usd(usd);
        }
    }
}

/// The handles of every `bidder` label value of one configuration of `server.bidders`.
pub struct BidderTable {
    named: HashMap<Box<str>, Arc<BidderMetrics>>,
    other: Arc<BidderMetrics>,
    unknown: Arc<BidderMetrics>,
}

impl BidderTable {
    /// The handles of the bidder named `name` (`None` or empty: [`UNKNOWN`]; a name not listed: [`OTHER`]).
    pub fn get(&self, name: Option<&str>) -> &Arc<BidderMetrics> {
        match name {
            None | Some("") => &self.unknown,
            Some(name) => self.named.get(name).unwrap_or(&self.other),
        }
    }
}

/// The bidder dimension: the labelled metrics and the table of the names in force.
pub struct Bidders {
    vecs: BidderVecs,
    table: ArcSwap<BidderTable>,
}

impl Bidders {
    /// The dimension over `vecs`, listing no name yet (every name is [`OTHER`]).
    pub fn new(vecs: BidderVecs) -> Bidders {
        let table = BidderTable {
            named: HashMap::new(),
            other: Arc::new(BidderMetrics::new(&vecs, OTHER)),
            unknown: Arc::new(BidderMetrics::new(&vecs, UNKNOWN)),
        };
        Bidders {
            vecs,
            table: ArcSwap::from_pointee(table),
        }
    }

    /// Puts `names` (`server.bidders`) in force: their handles made (kept for the names listed before), the
    /// table swapped in, the series of names no longer listed removed. A name that is `other` or `unknown` is
    /// ignored (it would mix with those label values).
    pub fn configure(&self, names: &[String]) {
        let old = self.table.load_full();
        let named: HashMap<Box<str>, Arc<BidderMetrics>> = names
            .iter()
            .filter(|n| !matches!(n.as_str(), OTHER | UNKNOWN))
            .map(|n| {
                let handles = old
                    .named
                    .get(n.as_str())
                    .cloned()
                    .unwrap_or_else(|| Arc::new(BidderMetrics::new(&self.vecs, n)));
                (n.as_str().into(), handles)
            })
            .collect();
        let dropped: Vec<Box<str>> = old
            .named
            .keys()
            .filter(|n| !named.contains_key(*n))
            .cloned()
            .collect();
        self.table.store(Arc::new(BidderTable {
            named,
            other: old.other.clone(),
            unknown: old.unknown.clone(),
        }));
        for name in dropped {
            BidderMetrics::remove(&self.vecs, &name);
        }
    }

    /// The table in force: one atomic load. Hold it for a request (or an auction's parts) and call
    /// [`BidderTable::get`] per bidder.
    pub fn table(&self) -> Guard<Arc<BidderTable>> {
        self.table.load()
    }

    /// The handles of the bidder named `name` in the table in force (see [`BidderTable::get`]).
    pub fn resolve(&self, name: Option<&str>) -> Arc<BidderMetrics> {
        self.table().get(name).clone()
    }
}

#[cfg(test)]
mod tests {
    use crate::metrics::Metrics;

    use super::*;

    fn series(m: &Metrics) -> usize {
        m.render()
            .unwrap()
            .lines()
            .filter(|l| l.starts_with("bidscan_bidder_"))
            .count()
    }

    #[test]
    fn names_resolve_to_their_label_and_reloads_keep_the_budget() {
        let m = Metrics::new().unwrap();
        assert_eq!(series(&m), 2 * SERIES_PER_BIDDER);
        m.bidders
            .configure(&["acme".into(), "beta".into(), "other".into()]);
        assert_eq!(series(&m), 4 * SERIES_PER_BIDDER);
        let table = m.bidders.table();
        assert_eq!(table.get(Some("acme")).label(), "acme");
        assert_eq!(table.get(Some("zeta")).label(), OTHER);
        assert_eq!(table.get(None).label(), UNKNOWN);
        assert_eq!(table.get(Some("")).label(), UNKNOWN);
        let acme = table.get(Some("acme")).clone();
        drop(table);
        acme.observe_response("bid", 1000);
        acme.observe_response("no_such_outcome", 10);
        acme.observe_rejections([301, 301, 102, 999]);
        let mut rates = Rates::default();
        rates
            .0
            .entry("USD".into())
            .or_default()
            .insert("EUR".into(), 0.5);
        let doc = br#"{"id":"r","cur":"EUR","seatbid":[{"bid":[{"id":"a","impid":"1","price":1.5},{"id":"b","impid":"1"}]}]}"#;
        let mut input = doc.to_vec();
        let mut reader = bidscan_json::Reader::default();
        let decoded =
            bidscan_openrtb::decode(&mut reader, &mut input, bidscan_openrtb::Mode::Lenient)
                .unwrap();
        acme.observe_bid_prices(&decoded.response, Some(&rates));
        acme.observe_bid_prices(&decoded.response, None);
        acme.observe_not_encodable();
        let v = &m.bidders.vecs;
        assert_eq!(v.outcomes.with_label_values(&["acme", "bid"]).get(), 1);
        assert_eq!(v.rejections.with_label_values(&["acme", "301"]).get(), 2);
        assert_eq!(v.rejections.with_label_values(&["acme", "102"]).get(), 1);
        let price = v.price_usd.with_label_values(&["acme"]);
        assert_eq!((price.get_sample_count(), price.get_sample_sum()), (1, 3.0));
        assert_eq!(v.unconverted.with_label_values(&["acme"]).get(), 3);
        assert_eq!(v.not_encodable.with_label_values(&["acme"]).get(), 1);
        assert_eq!(
            v.response_bytes
                .with_label_values(&["acme"])
                .get_sample_count(),
            2
        );

        // A reload keeps acme's counts, drops beta's series, adds gamma's.
        m.bidders.configure(&["acme".into(), "gamma".into()]);
        assert_eq!(series(&m), 4 * SERIES_PER_BIDDER);
        let text = m.render().unwrap();
        assert!(!text.contains("bidder=\"beta\""));
        assert!(text.contains("bidder=\"gamma\""));
        assert_eq!(v.outcomes.with_label_values(&["acme", "bid"]).get(), 1);
        assert_eq!(m.bidders.resolve(Some("beta")).label(), OTHER);
    }
}
