//! [`encode_protobuf`]: a [`BidResponse`] written as a protobuf `BidResponse` of IAB Tech Lab's OpenRTB 2.6
//! schema (`openrtb.proto`; `crates/bidscan-proto/proto/bidresponse.proto` states the messages used), the inverse
//! of [`decode_protobuf`](crate::decode_protobuf).
//!
//! Fields are written in field-number order, as reference encoders (protobuf C++/upb, Python) write them, so a
//! document without `ext` members of its own encodes to the same bytes as
//! `scripts/openrtb_protobuf.py` converts its JSON to. The typed members of the model map to the schema's fields
//! (the numbers `decode/protobuf/response.rs` reads); `ext` and an object `adm`, which the model keeps as JSON
//! text, are written by the tables of `decode/protobuf/schema.rs`:
//! - declared `ext` members to their fields (`bid.ext.skadn`/`dsa`/`scid`, `ext.seatnonbid`/`igi`), OpenRTB's 0/1
//!   flags as `bool`, `google.protobuf.Value` members from any JSON value;
//! - members in the raw form the decoder renders undeclared fields in (`"[1001]":[{"varint":5}]`, see
//!   docs/api.md) back to those fields, so a protobuf body's own extensions survive a round trip;
//! - any other member (a free-form JSON `ext` member, which no field carries) is dropped with an
//!   [`EncodeWarning`] naming it;
//! - an object `adm` whose members are all `NativeResponse` fields to `adm_native` (field 50); any other object
//!   `adm` to `adm` (field 6) as its JSON text, which loses nothing.
//!
//! What the wire cannot carry without changing a value is an [`EncodeError`]: an integer outside `int32` (`w`,
//! `h`, `dur`, …, and the `int32` fields under `ext`), never truncated. What it can carry only by dropping it is a
//! warning: a flag other than 0 or 1 (`seatbid.group`), a member of the wrong JSON type, a `null`.

use std::borrow::Cow;
use std::collections::HashSet;
use std::fmt;

use base64::Engine as _;
use bidscan_json::RawJson;
use bidscan_proto::{
    Limits, MAX_FIELD_NUMBER, Message, WireType, begin_len, end_len, put_bool, put_double,
    put_group, put_int32, put_len, put_tag, put_varint,
};
use serde::Deserialize;
use serde::de::{Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;

use crate::decode::protobuf::schema::{
    BID_EXT, Desc, FieldDesc, Kind, NATIVE_RESPONSE, RESPONSE_EXT, SEAT_EXT,
};
use crate::model::adm::{Adm, AdmObject};
use crate::model::bid::Bid;
use crate::model::response::{BidResponse, SeatBid};

/// A value the protobuf wire cannot carry as it is, an integer outside int32: the encoding stops (nothing is
/// truncated). An HTTP server answers it 422 `not_encodable`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EncodeError {
    /// JSON pointer of the member (`/seatbid/0/bid/1/w`).
    pub path: String,
    /// What is wrong (`3000000000 is outside int32`).
    pub message: String,
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}

impl std::error::Error for EncodeError {}

/// A member left out of the encoding, because no field of the schema carries it or its value does not fit its
/// field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EncodeWarning {
    /// JSON pointer of the member dropped (`/seatbid/0/bid/0/ext/foo`).
    pub path: String,
    /// Why (`Bid.Ext declares no such field`).
    pub message: String,
}

impl fmt::Display for EncodeWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} dropped: {}", self.path, self.message)
    }
}

/// Appends `response` to `out` as a protobuf `BidResponse` (see the module docs for the mapping), and returns
/// the members dropped on the way, in document order.
///
/// Errors: [`EncodeError`] for an integer outside `int32`; `out` then holds a partial message (truncate it to
/// its former length to discard it). Never panics on input.
pub fn encode_protobuf(
    response: &BidResponse<'_>,
    out: &mut Vec<u8>,
) -> Result<Vec<EncodeWarning>, EncodeError> {
    let mut e = Enc {
        out,
        warnings: Vec::new(),
        depth: 1,
    };
    e.response(response)?;
    Ok(e.warnings)
}

/// Where a member is, as a list of steps walked back to the root when a path is needed (only for a warning or
/// an error: a document encoded cleanly builds no path).
#[derive(Clone, Copy)]
enum At<'p> {
    Root,
    Key(&'p At<'p>, &'p str),
    Index(&'p At<'p>, usize),
}

impl At<'_> {
    fn key<'p>(&'p self, name: &'p str) -> At<'p> {
        At::Key(self, name)
    }

    fn index(&self, i: usize) -> At<'_> {
        At::Index(self, i)
    }

    /// The JSON pointer (RFC 6901: `~` and `/` in a name escaped as `~0` and `~1`).
    fn pointer(&self) -> String {
        let mut steps = Vec::new();
        let mut at = self;
        loop {
            match at {
                At::Root => break,
                At::Key(up, name) => {
                    steps.push(Cow::Owned(name.replace('~', "~0").replace('/', "~1")));
                    at = up;
                }
                At::Index(up, i) => {
                    steps.push(Cow::Owned(i.to_string()));
                    at = up;
                }
            }
        }
        let mut s = String::new();
        for step in steps.iter().rev() {
            s.push('/');
            s.push_str(step);
        }
        s
    }
}

struct Enc<'o> {
    out: &'o mut Vec<u8>,
    warnings: Vec<EncodeWarning>,
    /// Nesting of the message being written, counted as decoders count it (the `BidResponse` is 1).
    depth: u32,
}

/// The deepest nesting of messages (and groups) written, the top message counted as 1: the recursion limit
/// protobuf's reference parsers apply by default (protobuf C++ and Java `CodedInputStream`, Go `protowire`'s
/// users, prost: 100), below `decode_protobuf`'s 128. Only a `google.protobuf.Value` (three levels per JSON
/// object, two per array) or a raw-form group can come near it.
const MAX_DEPTH: u32 = 100;

/// An `int32` out of an `i64`, or the error naming `at`.
fn int32(v: i64, at: &At<'_>) -> Result<i32, EncodeError> {
    i32::try_from(v).map_err(|_| overflow(&v.to_string(), at))
}

#[cold]
fn overflow(v: &str, at: &At<'_>) -> EncodeError {
    EncodeError {
        path: at.pointer(),
        message: format!(
            "{v} is outside int32 (−2147483648 to 2147483647), which protobuf's int32 field holds"
        ),
    }
}

impl Enc<'_> {
    #[cold]
    fn warn(&mut self, at: &At<'_>, message: impl Into<String>) {
        self.warnings.push(EncodeWarning {
            path: at.pointer(),
            message: message.into(),
        });
    }

    fn str(&mut self, number: u32, v: &Option<Cow<'_, str>>) {
        if let Some(v) = v {
            put_len(self.out, number, v.as_bytes());
        }
    }

    fn int(
        &mut self,
        number: u32,
        v: Option<i64>,
        at: &At<'_>,
        name: &str,
    ) -> Result<(), EncodeError> {
        if let Some(v) = v {
            put_int32(self.out, number, int32(v, &at.key(name))?);
        }
        Ok(())
    }

    fn response(&mut self, r: &BidResponse<'_>) -> Result<(), EncodeError> {
        let at = At::Root;
        self.str(1, &r.id);
        for (i, seat) in r.seatbid.iter().enumerate() {
            let start = begin_len(self.out, 2);
            self.nested(|e| e.seat(seat, &at.key("seatbid").index(i)))?;
            end_len(self.out, start);
        }
        self.str(3, &r.bidid);
        self.str(4, &r.cur);
        self.str(5, &r.customdata);
        self.int(6, r.nbr.map(|n| n.0), &at, "nbr")?;
        self.ext(&r.ext, &RESPONSE_EXT, "BidResponse.Ext", &at)
    }

    fn seat(&mut self, s: &SeatBid<'_>, at: &At<'_>) -> Result<(), EncodeError> {
        for (i, bid) in s.bid.iter().enumerate() {
            let start = begin_len(self.out, 1);
            self.nested(|e| e.bid(bid, &at.key("bid").index(i)))?;
            end_len(self.out, start);
        }
        self.str(2, &s.seat);
        match s.group {
            Some(g @ (0 | 1)) => put_bool(self.out, 3, g == 1),
            Some(g) => self.warn(
                &at.key("group"),
                format!("{g} is not a 0/1 flag, which protobuf's bool field holds"),
            ),
            None => {}
        }
        self.ext(&s.ext, &SEAT_EXT, "SeatBid.Ext", at)
    }

    fn bid(&mut self, b: &Bid<'_>, at: &At<'_>) -> Result<(), EncodeError> {
        self.str(1, &b.id);
        self.str(2, &b.impid);
        if let Some(price) = b.price {
            put_double(self.out, 3, price);
        }
        self.str(4, &b.adid);
        self.str(5, &b.nurl);
        let native = match &b.adm {
            Some(Adm::Markup(text)) => {
                put_len(self.out, 6, text.as_bytes());
                None
            }
            Some(Adm::Object(o)) if is_native_response(o) => Some(o),
            Some(Adm::Object(o)) => {
                put_len(self.out, 6, o.to_json().as_bytes());
                None
            }
            None => None,
        };
        for s in b.adomain.iter() {
            put_len(self.out, 7, s.as_bytes());
        }
        self.str(8, &b.iurl);
        self.str(9, &b.cid);
        self.str(10, &b.crid);
        self.packed(11, b.attr.iter().map(|v| v.0), &at.key("attr"))?;
        self.str(13, &b.dealid);
        self.str(14, &b.bundle);
        for s in b.cat.iter() {
            put_len(self.out, 15, s.as_bytes());
        }
        self.int(16, b.w, at, "w")?;
        self.int(17, b.h, at, "h")?;
        self.int(18, b.api.map(|v| v.0), at, "api")?;
        self.int(19, b.protocol.map(|v| v.0), at, "protocol")?;
        self.int(20, b.qagmediarating.map(|v| v.0), at, "qagmediarating")?;
        self.int(21, b.exp, at, "exp")?;
        self.str(22, &b.burl);
        self.str(23, &b.lurl);
        self.str(24, &b.tactic);
        self.str(25, &b.language);
        self.int(26, b.wratio, at, "wratio")?;
        self.int(27, b.hratio, at, "hratio")?;
        self.int(28, b.slotinpod.map(|v| v.0), at, "slotinpod")?;
        self.str(29, &b.langb);
        self.int(30, b.cattax.map(|v| v.0), at, "cattax")?;
        self.packed(31, b.apis.iter().map(|v| v.0), &at.key("apis"))?;
        self.int(32, b.dur, at, "dur")?;
        self.int(33, b.mtype.map(|v| v.0), at, "mtype")?;
        if let Some(o) = native {
            let members: Vec<(Cow<'_, str>, &str)> = o
                .members
                .iter()
                .map(|(k, v)| (Cow::Borrowed(&**k), v.get()))
                .collect();
            let start = begin_len(self.out, 50);
            self.nested(|e| {
                e.message(&members, &NATIVE_RESPONSE, "NativeResponse", &at.key("adm"))
            })?;
            end_len(self.out, start);
        }
        self.ext(&b.ext, &BID_EXT, "Bid.Ext", at)
    }

    /// A packed repeated `int32` (written only when not empty).
    fn packed(
        &mut self,
        number: u32,
        values: impl Iterator<Item = i64> + Clone,
        at: &At<'_>,
    ) -> Result<(), EncodeError> {
        for (i, v) in values.clone().enumerate() {
            int32(v, &at.index(i))?;
        }
        bidscan_proto::put_packed_int32(self.out, number, values.map(|v| v as i32));
        Ok(())
    }

    /// `f` run one message deeper (see [`MAX_DEPTH`]).
    fn nested<R>(&mut self, f: impl FnOnce(&mut Self) -> R) -> R {
        self.depth += 1;
        let r = f(self);
        self.depth -= 1;
        r
    }

    /// An `ext` member (field 99) of the message at `at`: its JSON object written as the `Ext` message `desc`.
    fn ext(
        &mut self,
        ext: &Option<RawJson<'_>>,
        desc: &'static Desc,
        name: &str,
        at: &At<'_>,
    ) -> Result<(), EncodeError> {
        let Some(ext) = ext else { return Ok(()) };
        let at = at.key("ext");
        let Some(members) = members(ext.get()) else {
            self.warn(
                &at,
                "not a JSON object, which protobuf's `Ext` message needs",
            );
            return Ok(());
        };
        let start = begin_len(self.out, 99);
        self.nested(|e| e.message(&members, desc, name, &at))?;
        end_len(self.out, start);
        Ok(())
    }

    /// The body of message `desc` (named `name` in warnings) from a JSON object's `members`: the declared fields
    /// in field-number order, then (an `Ext`) the raw-form members in document order; the rest dropped.
    fn message(
        &mut self,
        members: &[(Cow<'_, str>, &str)],
        desc: &'static Desc,
        name: &str,
        at: &At<'_>,
    ) -> Result<(), EncodeError> {
        // Declared fields by ascending number (a table holds at most a dozen: a scan per field allocates nothing).
        let mut last = 0;
        while let Some(d) = desc
            .fields
            .iter()
            .filter(|d| d.number > last)
            .min_by_key(|d| d.number)
        {
            last = d.number;
            // A member sent twice keeps its last value, as JSON readers keep it.
            if let Some((key, raw)) = members.iter().rev().find(|(k, _)| k == d.name) {
                self.field(d, raw, &at.key(key))?;
            }
        }
        for (key, raw) in last_of_each(members) {
            if desc.fields.iter().any(|d| d.name == key) {
                continue;
            }
            let at = at.key(key);
            match raw_number(key) {
                Some(number) if desc.raw && !desc.fields.iter().any(|d| d.number == number) => {
                    let mark = self.out.len();
                    if !self.raw(number, raw) {
                        self.out.truncate(mark);
                        self.warn(
                            &at,
                            "not in the raw form of an undeclared field ([{\"varint\":N}, {\"len\":\"base64\"}, …])",
                        );
                    }
                }
                _ => self.warn(&at, format!("{name} declares no such field")),
            }
        }
        Ok(())
    }

    /// One declared field from its JSON value.
    fn field(&mut self, d: &FieldDesc, raw: &str, at: &At<'_>) -> Result<(), EncodeError> {
        if !d.repeated {
            return self.one(d, raw, at);
        }
        let (list, single) = match items(raw) {
            Some(list) => (list, false),
            // A single value for a list, which lenient readers accept: its path is the member's own.
            None => (vec![raw], true),
        };
        let item = |i| if single { *at } else { at.index(i) };
        if matches!(d.kind, Kind::Int32 | Kind::Flag) {
            let mut values = Vec::with_capacity(list.len());
            for (i, raw) in list.iter().enumerate() {
                if let Some(v) = self.scalar_varint(d.kind, raw, &item(i))? {
                    values.push(v);
                }
            }
            if !values.is_empty() {
                let start = begin_len(self.out, d.number);
                for v in values {
                    put_varint(self.out, v);
                }
                end_len(self.out, start);
            }
            return Ok(());
        }
        for (i, raw) in list.iter().enumerate() {
            self.one(d, raw, &item(i))?;
        }
        Ok(())
    }

    /// A varint scalar's value (an `int32` sign-extended, a flag 0 or 1), or `None` when dropped (warned).
    fn scalar_varint(
        &mut self,
        kind: Kind,
        raw: &str,
        at: &At<'_>,
    ) -> Result<Option<u64>, EncodeError> {
        match (kind, leaf(raw)) {
            (Kind::Flag, Leaf::Bool(b)) => Ok(Some(u64::from(b))),
            (Kind::Flag, Leaf::Num(n)) => match integer(n) {
                Some(v @ (0 | 1)) => Ok(Some(v as u64)),
                _ => {
                    self.warn(
                        at,
                        format!("{n} is not a 0/1 flag, which protobuf's bool field holds"),
                    );
                    Ok(None)
                }
            },
            (Kind::Int32, Leaf::Num(n)) => self.int32_text(n, at),
            (Kind::Int32, Leaf::Str(s)) if number_text(&s) => self.int32_text(&s, at),
            (_, found) => {
                self.warn(
                    at,
                    format!(
                        "{} where protobuf's field holds {}",
                        found.name(),
                        kind_name(kind)
                    ),
                );
                Ok(None)
            }
        }
    }

    /// An `int32`'s text as its varint (sign-extended); `None` (warned) for a fraction.
    fn int32_text(&mut self, n: &str, at: &At<'_>) -> Result<Option<u64>, EncodeError> {
        match integer(n) {
            Some(v) => Ok(Some(i64::from(int32(v, at)?) as u64)),
            None if n
                .parse::<f64>()
                .is_ok_and(|f| f.fract() == 0.0 || !f.is_finite()) =>
            {
                Err(overflow(n, at))
            }
            None => {
                self.warn(
                    at,
                    format!("{n} is not an integer, which protobuf's int32 field holds"),
                );
                Ok(None)
            }
        }
    }

    /// One value of a declared field.
    fn one(&mut self, d: &FieldDesc, raw: &str, at: &At<'_>) -> Result<(), EncodeError> {
        let found = leaf(raw);
        if let Leaf::Null = found
            && !matches!(d.kind, Kind::Value)
        {
            self.warn(at, "null, which protobuf cannot carry");
            return Ok(());
        }
        match d.kind {
            Kind::Int32 | Kind::Flag => {
                if let Some(v) = self.scalar_varint(d.kind, raw, at)? {
                    put_tag(self.out, d.number, WireType::Varint);
                    put_varint(self.out, v);
                }
            }
            Kind::Str => match found {
                Leaf::Str(s) => put_len(self.out, d.number, s.as_bytes()),
                // An id sent as a number, which lenient readers accept.
                Leaf::Num(n) if integer(n).is_some() => put_len(self.out, d.number, n.as_bytes()),
                found => self.warn(
                    at,
                    format!("{} where protobuf's field holds a string", found.name()),
                ),
            },
            Kind::Double => match found {
                Leaf::Num(n) => self.double(d.number, n, at),
                Leaf::Str(s) if number_text(&s) => self.double(d.number, &s, at),
                found => self.warn(
                    at,
                    format!("{} where protobuf's field holds a number", found.name()),
                ),
            },
            Kind::Message(desc) => match members(raw) {
                Some(members) => {
                    let start = begin_len(self.out, d.number);
                    self.nested(|e| e.message(&members, desc, d.name, at))?;
                    end_len(self.out, start);
                }
                None => self.warn(
                    at,
                    format!("{} where protobuf's field holds an object", found.name()),
                ),
            },
            Kind::Value => {
                let start = begin_len(self.out, d.number);
                if self.value(raw, at, self.depth + 1) {
                    end_len(self.out, start);
                } else {
                    self.out.truncate(start.tag);
                    self.warn(
                        at,
                        format!(
                            "nested deeper than {MAX_DEPTH} messages as a google.protobuf.Value, past protobuf parsers' recursion limit"
                        ),
                    );
                }
            }
            Kind::MapStrDouble => match members(raw) {
                Some(members) => {
                    for (key, v) in last_of_each(&members) {
                        let n = match leaf(v) {
                            Leaf::Num(n) => n.parse().unwrap_or(f64::NAN),
                            found => {
                                self.warn(
                                    &at.key(key),
                                    format!("{} where protobuf's map holds a number", found.name()),
                                );
                                continue;
                            }
                        };
                        let start = begin_len(self.out, d.number);
                        put_len(self.out, 1, key.as_bytes());
                        put_double(self.out, 2, n);
                        end_len(self.out, start);
                    }
                }
                None => self.warn(
                    at,
                    format!("{} where protobuf's map holds an object", found.name()),
                ),
            },
        }
        Ok(())
    }

    /// A `double` field from a number's text; dropped (warned) when the text is past `f64`'s range (`"1e400"`, a
    /// string, which JSON readers refuse as a number): protobuf would carry infinity, which JSON cannot render.
    fn double(&mut self, number: u32, n: &str, at: &At<'_>) {
        match n.parse::<f64>() {
            Ok(v) if v.is_finite() => put_double(self.out, number, v),
            _ => self.warn(at, format!("{n} is outside double's range")),
        }
    }

    /// The body of a `google.protobuf.Value` (struct.proto) standing for the JSON value `raw`: `null_value` 1,
    /// `number_value` 2, `string_value` 3, `bool_value` 4, `struct_value` 5, `list_value` 6.
    /// `depth` is the `Value`'s own nesting; `false` (the caller discards what was written) when the value would
    /// nest past [`MAX_DEPTH`].
    fn value(&mut self, raw: &str, at: &At<'_>, depth: u32) -> bool {
        if depth > MAX_DEPTH {
            return false;
        }
        match leaf(raw) {
            Leaf::Null => {
                put_tag(self.out, 1, WireType::Varint);
                put_varint(self.out, 0);
            }
            Leaf::Num(n) => put_double(self.out, 2, n.parse().unwrap_or(f64::NAN)),
            Leaf::Str(s) => put_len(self.out, 3, s.as_bytes()),
            Leaf::Bool(b) => put_bool(self.out, 4, b),
            Leaf::Object => {
                let members = members(raw).unwrap_or_default();
                let st = begin_len(self.out, 5);
                for (key, v) in last_of_each(&members) {
                    let entry = begin_len(self.out, 1);
                    put_len(self.out, 1, key.as_bytes());
                    let value = begin_len(self.out, 2);
                    if !self.value(v, &at.key(key), depth + 3) {
                        return false;
                    }
                    end_len(self.out, value);
                    end_len(self.out, entry);
                }
                end_len(self.out, st);
            }
            Leaf::Array => {
                let list = items(raw).unwrap_or_default();
                let lv = begin_len(self.out, 6);
                for (i, item) in list.iter().enumerate() {
                    let value = begin_len(self.out, 1);
                    if !self.value(item, &at.index(i), depth + 2) {
                        return false;
                    }
                    end_len(self.out, value);
                }
                end_len(self.out, lv);
            }
            Leaf::Invalid => self.warn(at, "not JSON"),
        }
        true
    }

    /// An undeclared field of number `number` from its raw form (the `render` module's: an array of
    /// `{"varint":N}`, `{"i64":N}`, `{"i32":N}`, `{"len":"base64"}`, `{"group":"base64"}`); `false` when `raw` is
    /// not in that form (the caller discards what was written).
    fn raw(&mut self, number: u32, raw: &str) -> bool {
        let Some(list) = items(raw) else { return false };
        for item in list {
            let Some(members) = members(item) else {
                return false;
            };
            let [(kind, v)] = &members[..] else {
                return false;
            };
            let ok = match (&**kind, leaf(v)) {
                ("varint", Leaf::Num(n)) => n.parse::<u64>().map(|v| {
                    put_tag(self.out, number, WireType::Varint);
                    put_varint(self.out, v);
                }),
                ("i64", Leaf::Num(n)) => n.parse::<u64>().map(|v| {
                    put_tag(self.out, number, WireType::I64);
                    self.out.extend_from_slice(&v.to_le_bytes());
                }),
                ("i32", Leaf::Num(n)) => n.parse::<u32>().map(|v| {
                    put_tag(self.out, number, WireType::I32);
                    self.out.extend_from_slice(&v.to_le_bytes());
                }),
                ("len" | "group", Leaf::Str(s)) => {
                    match base64::engine::general_purpose::STANDARD.decode(s.as_bytes()) {
                        Ok(bytes) if kind == "len" => {
                            put_len(self.out, number, &bytes);
                            Ok(())
                        }
                        Ok(bytes) => {
                            let mark = self.out.len();
                            put_group(self.out, number, &bytes);
                            if !is_one_group(&self.out[mark..], self.depth) {
                                return false;
                            }
                            Ok(())
                        }
                        Err(_) => return false,
                    }
                }
                _ => return false,
            };
            if ok.is_err() {
                return false;
            }
        }
        true
    }
}

/// Whether every member of an object `adm` is a `NativeResponse` field (OpenRTB Native 1.2 §5.1), so that
/// `adm_native` carries it whole. `{}` is one (an empty `adm_native`, which the decoder reads back as `{}`).
fn is_native_response(o: &AdmObject<'_>) -> bool {
    o.members
        .iter()
        .all(|(k, _)| NATIVE_RESPONSE.fields.iter().any(|d| d.name == k))
}

/// Whether `bytes` is exactly one well-formed group field (its start tag, fields, its end tag), as a protobuf
/// parser reads it: a group's raw form is arbitrary base64, which may not hold fields.
/// `depth` is the nesting of the message it is a field of: nested groups count as messages.
fn is_one_group(bytes: &[u8], depth: u32) -> bool {
    let limits = Limits {
        max_depth: MAX_DEPTH.saturating_sub(depth - 1),
        ..Limits::default()
    };
    let Ok(mut m) = Message::new(bytes, limits) else {
        return false;
    };
    matches!(m.next(), Ok(Some(f)) if matches!(f.value, bidscan_proto::Value::Group(_)))
        && matches!(m.next(), Ok(None))
}

/// The field number of a raw-form member name, `[N]` (1 ≤ N ≤ 2^29−1) with `N` as the decoder renders it
/// (decimal digits, no sign, no leading zero), so that the name reads back the same.
fn raw_number(key: &str) -> Option<u32> {
    let digits = key.strip_prefix('[')?.strip_suffix(']')?;
    if !digits.bytes().all(|b| b.is_ascii_digit()) || (digits.len() > 1 && digits.starts_with('0'))
    {
        return None;
    }
    let n: u32 = digits.parse().ok()?;
    (1..=MAX_FIELD_NUMBER).contains(&n).then_some(n)
}

/// A number's text as an integer: `300`, or `300.0` / `3e2` (a float with no fraction, which lenient readers
/// accept), when it fits `i64`.
fn integer(n: &str) -> Option<i64> {
    if let Ok(v) = n.parse::<i64>() {
        return Some(v);
    }
    let f: f64 = n.parse().ok()?;
    (f.is_finite() && f.fract() == 0.0 && f.abs() < 9.2e18).then_some(f as i64)
}

/// Whether a string holds a JSON number (`"300"`, which lenient readers read as the number).
fn number_text(s: &str) -> bool {
    matches!(leaf(s), Leaf::Num(_))
}

fn kind_name(kind: Kind) -> &'static str {
    match kind {
        Kind::Flag => "a 0/1 flag",
        Kind::Int32 => "an integer",
        Kind::Double => "a number",
        Kind::Str => "a string",
        _ => "an object",
    }
}

/// A JSON value's shape, its scalar borrowed from the text.
enum Leaf<'a> {
    Null,
    Bool(bool),
    /// A number's text.
    Num(&'a str),
    Str(Cow<'a, str>),
    Object,
    Array,
    Invalid,
}

impl Leaf<'_> {
    fn name(&self) -> &'static str {
        match self {
            Leaf::Null => "null",
            Leaf::Bool(_) => "a boolean",
            Leaf::Num(_) => "a number",
            Leaf::Str(_) => "a string",
            Leaf::Object => "an object",
            Leaf::Array => "an array",
            Leaf::Invalid => "not JSON",
        }
    }
}

/// A JSON string's value, borrowed when it has no escape.
#[derive(Deserialize)]
struct Text<'a>(#[serde(borrow)] Cow<'a, str>);

/// The shape of the JSON value `raw` (valid JSON, as the model keeps it; surrounding space allowed).
fn leaf(raw: &str) -> Leaf<'_> {
    let t = raw.trim_matches([' ', '\t', '\n', '\r']);
    match t.as_bytes().first() {
        Some(b'n') if t == "null" => Leaf::Null,
        Some(b't') if t == "true" => Leaf::Bool(true),
        Some(b'f') if t == "false" => Leaf::Bool(false),
        Some(b'{') => Leaf::Object,
        Some(b'[') => Leaf::Array,
        Some(b'"') => match serde_json::from_str::<Text<'_>>(t) {
            Ok(s) => Leaf::Str(s.0),
            Err(_) => Leaf::Invalid,
        },
        Some(b'-' | b'0'..=b'9') if serde_json::from_str::<&RawValue>(t).is_ok() => Leaf::Num(t),
        _ => Leaf::Invalid,
    }
}

/// A JSON object's members in document order (names unescaped, values as their text); `None` when `raw` is not
/// an object.
fn members(raw: &str) -> Option<Vec<(Cow<'_, str>, &str)>> {
    struct Members<'a>(Vec<(Cow<'a, str>, &'a str)>);
    impl<'de> Deserialize<'de> for Members<'de> {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct V;
            impl<'de> Visitor<'de> for V {
                type Value = Members<'de>;
                fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                    f.write_str("a JSON object")
                }
                fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                    let mut out = Vec::new();
                    while let Some(k) = map.next_key::<Text<'de>>()? {
                        let v: &'de RawValue = map.next_value()?;
                        out.push((k.0, v.get()));
                    }
                    Ok(Members(out))
                }
            }
            d.deserialize_map(V)
        }
    }
    match leaf(raw) {
        Leaf::Object => serde_json::from_str::<Members<'_>>(raw).ok().map(|m| m.0),
        _ => None,
    }
}

/// The members of a JSON object a reader keeps: the last of each name, in document order. A name sent twice keeps
/// its last value, as JSON readers keep it and protobuf maps (a `Struct`'s fields, `map<string, double>`) keep
/// the last entry of a key, so each name is written once.
fn last_of_each<'m, 'a>(
    members: &'m [(Cow<'a, str>, &'a str)],
) -> Vec<&'m (Cow<'a, str>, &'a str)> {
    let mut seen = HashSet::with_capacity(members.len());
    let mut kept: Vec<_> = members
        .iter()
        .rev()
        .filter(|(k, _)| seen.insert(&**k))
        .collect();
    kept.reverse();
    kept
}

/// A JSON array's items as their text; `None` when `raw` is not an array.
fn items(raw: &str) -> Option<Vec<&str>> {
    match leaf(raw) {
        Leaf::Array => serde_json::from_str::<Vec<&RawValue>>(raw)
            .ok()
            .map(|v| v.into_iter().map(RawValue::get).collect()),
        _ => None,
    }
}
