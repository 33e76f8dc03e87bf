//! What a decoded response renders to besides its canonical JSON: the short view ([`summary`]) and verbatim
//! JSON made compact ([`compact`]).

pub mod compact;
pub(crate) mod summary;
