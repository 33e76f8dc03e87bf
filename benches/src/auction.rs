//! The benchmark auction: one real pair's request and response from `corpus/validate-pairs/`, plus the responses
//! of the next real pairs (in name order) that hold bids, each with its `impid`s rewritten to the request's imps
//! (in turn) and its bid ids made unique per bidder (`b1-…`, `b2-…`). Each response is also given as the
//! `/validate` envelope of the request and it, so the auction compares with one `/validate` call per bidder.

use serde_json::Value;
use serde_json::value::RawValue;

use crate::pairs::Pair;

/// The pair whose request and response open the benchmark auction: a banner pair at the corpus's median
/// request (~350 bytes) and response (~300 bytes) sizes.
pub const PRIMARY: &str = "bwx_banner.json";

/// An auction's parts.
pub struct BenchAuction {
    /// The bid request.
    pub request: Vec<u8>,
    /// `(bidder, response)`, the primary pair's response first.
    pub responses: Vec<(String, Vec<u8>)>,
    /// `{"request":…,"response":…}` for each response, in the same order.
    pub envelopes: Vec<Vec<u8>>,
}

/// The auction of `bidders` bidders opened by pair `primary` (see the module docs). Panics when `primary` is not
/// a pair or there are too few pairs with bids after it.
pub fn bench_auction(pairs: &[Pair], primary: &str, bidders: usize) -> BenchAuction {
    #[derive(serde::Deserialize)]
    struct Envelope<'a> {
        #[serde(borrow)]
        request: &'a RawValue,
    }
    let at = pairs.iter().position(|p| p.name == primary).expect(primary);
    let first = &pairs[at];
    let e: Envelope<'_> = serde_json::from_slice(&first.envelope).unwrap();
    let request = e.request.get().as_bytes().to_vec();
    let parsed: Value = serde_json::from_slice(&request).unwrap();
    let imps: Vec<Value> = parsed["imp"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["id"].clone())
        .collect();
    let mut responses = vec![("b0".to_owned(), first.response.clone())];
    for p in pairs[at + 1..].iter().chain(&pairs[..at]) {
        if responses.len() == bidders {
            break;
        }
        let Ok(mut response) = serde_json::from_slice::<Value>(&p.response) else {
            continue;
        };
        let k = responses.len();
        let mut turn = 0;
        let Some(seats) = response["seatbid"].as_array_mut() else {
            continue;
        };
        for bid in seats
            .iter_mut()
            .filter_map(|s| s["bid"].as_array_mut())
            .flatten()
        {
            bid["impid"] = imps[turn % imps.len()].clone();
            turn += 1;
            let id = bid["id"].as_str().unwrap_or("").to_owned();
            bid["id"] = Value::String(format!("b{k}-{id}"));
        }
        if turn == 0 {
            continue;
        }
        responses.push((format!("b{k}"), serde_json::to_vec(&response).unwrap()));
    }
    assert_eq!(responses.len(), bidders, "too few pairs with bids");
    let envelopes = responses
        .iter()
        .map(|(_, r)| {
            let mut e = b"{\"request\":".to_vec();
            e.extend_from_slice(&request);
            e.extend_from_slice(b",\"response\":");
            e.extend_from_slice(r);
            e.push(b'}');
            e
        })
        .collect();
    BenchAuction {
        request,
        responses,
        envelopes,
    }
}
