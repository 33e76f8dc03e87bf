//! The encode target: bidscan-openrtb's `encode_protobuf` on the model of any bytes that decode as a JSON bid
//! response. The property is bidscan-openrtb's `tests/protobuf_encode_property.rs`, included by path (it
//! includes the prost reference structs of `tests/protobuf_reference.rs` in turn).

#[path = "../../crates/bidscan-openrtb/tests/protobuf_encode_property.rs"]
mod property;

pub use property::Outcome as EncodeOutcome;

/// Checks the encode properties on `data` (panics on a violation). See the crate docs.
pub fn encode(data: &[u8]) -> EncodeOutcome {
    property::check(data)
}
