//! The OpenRTB 2.6 model: [`BidResponse`](response::BidResponse) → [`SeatBid`](response::SeatBid) →
//! [`Bid`](bid::Bid), the bid request view the rules read ([`request`]), markup ([`adm`]), code lists
//! ([`lists`]), the inline lists a bid keeps ([`inline`]) and bid / no-bid ([`status`]).

pub(crate) mod adm;
pub(crate) mod bid;
pub(crate) mod inline;
pub mod lists;
pub(crate) mod request;
pub(crate) mod response;
pub(crate) mod status;
