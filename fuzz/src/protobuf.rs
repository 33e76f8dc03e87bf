//! The protobuf target: bidscan-openrtb's `decode_protobuf` against prost on arbitrary bytes (the reference
//! structs and the property are bidscan-openrtb's `tests/protobuf_reference.rs`, included by path), and the
//! inspected decode on the same bytes.

use bidscan_openrtb::{Inspector, Mode, ProtobufLimits};

#[path = "../../crates/bidscan-openrtb/tests/protobuf_reference.rs"]
mod reference;

/// Checks the protobuf properties on `data` (panics on a violation). See the crate docs.
pub fn protobuf(data: &[u8]) {
    reference::check(data);
    let mut rendered = String::new();
    if let Ok(d) = bidscan_openrtb::decode_protobuf_inspected(
        data,
        &mut rendered,
        Mode::Lenient,
        ProtobufLimits::default(),
        &mut Inspector::new(),
    ) {
        assert_eq!(d.markup.len(), d.bid_count());
        // Every rendered `ext` is JSON.
        let exts = std::iter::once(d.response.ext)
            .chain(d.response.seatbid.iter().map(|s| s.ext))
            .chain(d.response.seatbid.iter().flat_map(|s| s.bid.iter().map(|b| b.ext)));
        for ext in exts.flatten() {
            serde_json::from_str::<serde_json::Value>(ext.get())
                .unwrap_or_else(|e| panic!("rendered ext is not JSON: {e}: {}", ext.get()));
        }
    }
}
