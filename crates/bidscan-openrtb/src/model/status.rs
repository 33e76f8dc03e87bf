//! [`Status`]: bid or no-bid, a leaf type shared by `decode` (which decides it) and `validate` (whose
//! response rules depend on it).

/// Whether the response bids. Serializes as `"bid"` or `"nobid"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// At least one bid.
    Bid,
    /// No bid at all: empty body, `{}`, `seatbid` missing/empty/`null`, only empty seat bids, or `nbr` without
    /// bids (OpenRTB 2.6 §4.2.1 and §7.1 "No-Bid Signaling"). Not an error.
    NoBid,
}
