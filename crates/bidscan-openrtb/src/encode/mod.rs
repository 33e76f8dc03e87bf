//! The model written back out in another encoding: [`protobuf`] writes a [`BidResponse`](crate::BidResponse) as
//! IAB Tech Lab's OpenRTB 2.6 protobuf `BidResponse` (the JSON renderers are in `output`).

pub(crate) mod protobuf;
