//! The lenient value readers behind the hand-written `Deserialize` impls.
//!
//! Every member is read with `deserialize_any` and a visitor that accepts every JSON type: the spec's shape is
//! taken as is (borrowed strings stay borrowed), a tolerated deviation is converted and noted as a
//! [`Coercion`](crate::Coercion), and a wrong type is consumed, noted as an error and read as absent. Nothing here knows the
//! decode mode; nothing here fails except the deserializer itself (syntax, depth) and a top-level structure
//! that is not a bid response, a bid request or an envelope (see [`Refusal`]).

pub(crate) mod base;
mod objects;
mod scalar;

pub(crate) use base::*;
pub use base::{MAX_COERCIONS, MAX_OBJECTS};
pub(crate) use objects::{ObjList, object, objects};
pub(crate) use scalar::{Flag, Float, Ident, Int, Text, list, scalar};
