//! What every lenient reader builds on: the document's counters ([`Doc`]) and a member's context ([`Ctx`]), the
//! member protocol ([`Member`], [`read_members`], `members!`, [`FromMap`]), draining and raw capture. A leaf of
//! [`super`]: the scalar and object readers import it, it imports neither.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use bidscan_json::RawJson;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use crate::checks::issue::{Coercion, CoercionKind, JsonType};

/// Start of the message of a [`Refusal::Response`] error (what a serde caller other than `decode` sees).
pub(crate) const NOT_A_BID_RESPONSE: &str = "not a bid response";

/// Start of the message of a [`Refusal::Request`] error.
pub(crate) const NOT_A_BID_REQUEST: &str = "not a bid request";

/// What was refused for its shape: the document is JSON, but not what the decode expects (a structural error,
/// not a syntax one).
///
/// A serde visitor can only fail with its deserializer's error type, built from a message
/// (`de::Error::custom`), so the refusal travels beside the error: the code that makes the error records its
/// `Refusal` in the decode's slot ([`refuse`]), and `decode` / `decode_pair` map the error by that value
/// (`not_a_bid_response`, `openrtb3_not_supported`, `not_a_bid_request`, `not_an_envelope`), never by its text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// Not a bid response: the body is not an object, `seatbid` is a scalar, a limit was passed, or the object
    /// has no `seatbid`, no `nbr` and a member that is no bid response's ([`Foreign`]).
    Response,
    /// An OpenRTB 3.0 document: no `seatbid`, no `nbr`, and a top-level `openrtb` member ([`Foreign`]).
    Openrtb3,
    /// Not a bid request: a validation envelope's `request` is not an object, or a limit was passed in it.
    Request,
    /// Not a validation envelope: the top level is not an object, or a member comes twice.
    Envelope,
}

/// Records `refusal` in `slot` and makes the error carrying `message` (which starts with the refusal's words:
/// [`NOT_A_BID_RESPONSE`], [`NOT_A_BID_REQUEST`], "not a validation envelope").
#[cold]
pub(crate) fn refuse<E: de::Error>(
    slot: &mut Option<Refusal>,
    refusal: Refusal,
    message: impl fmt::Display,
) -> E {
    *slot = Some(refusal);
    E::custom(message)
}

/// A refusal for a value's shape (a `seatbid` that is a number, a `request` that is an array), noted where it is
/// found and made only once the reader has read the whole input: a body that is also not JSON after it
/// (`{"seatbid":5,"x":}`) is then malformed (400), as RFC 8259 comes first, not a wrong shape (422). The first
/// one counts. (The limits, [`MAX_OBJECTS`] and [`MAX_COERCIONS`], refuse at once: they bound the work.)
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Deferred {
    pub(crate) refusal: Refusal,
    /// The whole message, starting with the refusal's words ([`NOT_A_BID_RESPONSE`], …).
    pub(crate) message: String,
    /// JSON pointer of the refused value.
    pub(crate) path: String,
}

/// Notes `deferred` in `slot` unless a refusal is there already.
pub(crate) fn defer(slot: &mut Option<Deferred>, deferred: Deferred) {
    slot.get_or_insert(deferred);
}

/// Most seat bids and bids (together) one document may hold; past it the document is refused as not a bid
/// response. Bounds what decoding allocates: a `{},` bid is 3 bytes of input but a ~780-byte [`Bid`](crate::Bid)
/// plus its validation issues, so without a bound a 4 MiB body of empty bids took over 4 GB.
pub const MAX_OBJECTS: u32 = 10_000;

/// Most coercions (lenient deviations and type errors) one document may have; past it the document is refused
/// as not a bid response. Only the first `MAX_COERCIONS` are ever recorded, so memory stays bounded.
pub const MAX_COERCIONS: u32 = 10_000;

/// Document-wide counters shared by every object of one document.
#[derive(Debug, Default)]
pub(crate) struct Doc {
    /// Coercions noted so far: the `order` of the next one.
    pub(crate) order: u32,
    /// Seat bids and bids decoded so far.
    pub(crate) objects: u32,
    /// Length of the last non-empty `bid` array decoded: the first capacity of the next one (see
    /// [`FromMap::first_capacity`]).
    pub(crate) last_bids: usize,
    /// True while reading a bid request (its `imp`, `format` and `deals` count as objects), so a limit's error
    /// names the request, not the response.
    pub(crate) request: bool,
    /// Set when a reader of this document refused it ([`refuse`]); the seed that made the `Doc` hands it on.
    pub(crate) refused: Option<Refusal>,
    /// A shape refusal noted by a reader of this document ([`Deferred`]); the seed that made the `Doc` hands it
    /// on.
    pub(crate) deferred: Option<Deferred>,
    /// JSON pointer of the object this document is (`""`, or `"/response"` in a validation envelope), for a
    /// deferred refusal's path.
    pub(crate) base: &'static str,
}

/// Where the coercions of the object being decoded go, and the document-wide counters.
pub(crate) struct Ctx<'r> {
    out: &'r mut Vec<Coercion>,
    pub(crate) doc: &'r mut Doc,
}

impl<'r> Ctx<'r> {
    pub(crate) fn new(out: &'r mut Vec<Coercion>, doc: &'r mut Doc) -> Self {
        Ctx { out, doc }
    }

    pub(crate) fn note(&mut self, field: &'static str, index: Option<u32>, kind: CoercionKind) {
        if self.doc.order < MAX_COERCIONS {
            self.out.push(Coercion {
                field,
                index,
                kind,
                order: self.doc.order,
            });
        }
        self.doc.order = self.doc.order.saturating_add(1);
    }

    /// Counts one more seat bid or bid (of a request: impression, format or deal); an error past
    /// [`MAX_OBJECTS`].
    pub(crate) fn count_object<E: de::Error>(&mut self) -> Result<(), E> {
        self.doc.objects = self.doc.objects.saturating_add(1);
        if self.doc.objects > MAX_OBJECTS {
            let slot = &mut self.doc.refused;
            return Err(if self.doc.request {
                refuse(
                    slot,
                    Refusal::Request,
                    format_args!(
                        "{NOT_A_BID_REQUEST}: more than {MAX_OBJECTS} impressions, formats and deals"
                    ),
                )
            } else {
                refuse(
                    slot,
                    Refusal::Response,
                    format_args!(
                        "{NOT_A_BID_RESPONSE}: more than {MAX_OBJECTS} seat bids and bids"
                    ),
                )
            });
        }
        Ok(())
    }
}

/// Tracks which members of an object were seen, to note duplicates.
#[derive(Default)]
pub(crate) struct Seen(u64);

impl Seen {
    pub(crate) fn check(&mut self, ctx: &mut Ctx<'_>, bit: u8, field: &'static str) {
        let mask = 1u64 << bit;
        if self.0 & mask != 0 {
            ctx.note(field, None, CoercionKind::DuplicateField);
        }
        self.0 |= mask;
    }

    /// Whether the member with bit `bit` ([`Member::bit`]) was seen.
    pub(crate) fn has(&self, bit: u8) -> bool {
        self.0 & (1u64 << bit) != 0
    }
}

/// Consumes the rest of an array or object so the deserializer can continue after it.
pub(super) fn drain_seq<'de, S: SeqAccess<'de>>(mut seq: S) -> Result<(), S::Error> {
    while seq.next_element::<IgnoredAny>()?.is_some() {}
    Ok(())
}

pub(super) fn drain_map<'de, M: MapAccess<'de>>(mut map: M) -> Result<(), M::Error> {
    while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
    Ok(())
}

/// Reads the value of the current member as raw JSON that must be an object (`ext`).
pub(crate) fn raw_object<'de, A: MapAccess<'de>>(
    map: &mut A,
    ctx: &mut Ctx<'_>,
    field: &'static str,
) -> Result<Option<RawJson<'de>>, A::Error> {
    let raw: RawJson<'de> = map.next_value()?;
    let found = match raw.get().as_bytes().first() {
        Some(b'{') => return Ok(Some(raw)),
        Some(b'n') => {
            ctx.note(field, None, CoercionKind::Null);
            return Ok(None);
        }
        Some(b'[') => JsonType::Array,
        Some(b'"') => JsonType::String,
        Some(b't' | b'f') => JsonType::Bool,
        _ => JsonType::Number,
    };
    ctx.note(
        field,
        None,
        CoercionKind::InvalidType {
            expected: "an object",
            found,
        },
    );
    Ok(None)
}

/// A decoded member name as a `Cow` (borrowed unless the deserializer had to unescape into scratch).
pub(crate) struct CowStr<'de>(pub Cow<'de, str>);

impl<'de> de::Deserialize<'de> for CowStr<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = CowStr<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(CowStr(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(CowStr(Cow::Owned(v.to_owned())))
            }
        }
        deserializer.deserialize_str(V)
    }
}

/// Maps member names to a struct's field enum without allocating (`None`: unknown member, to be skipped).
pub(crate) struct KeySeed<F>(pub fn(&str) -> Option<F>);

impl<'de, F> DeserializeSeed<'de> for KeySeed<F> {
    type Value = Option<F>;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_identifier(self)
    }
}

impl<'de, F> Visitor<'de> for KeySeed<F> {
    type Value = Option<F>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a member name")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok((self.0)(v))
    }
}

/// Objects that decode from a map with the document-wide counters.
pub(crate) trait FromMap<'de>: Sized + Default {
    /// Reads an object's members into `self`, a default value (in place: a `Bid` is large, and decoding it where
    /// it will stay, in its `Vec`, saves moving it through every layer of the deserializer).
    fn read_map<A: MapAccess<'de>>(&mut self, map: A, doc: &mut Doc) -> Result<(), A::Error>;

    /// Reads an object into a new value.
    fn from_map<A: MapAccess<'de>>(map: A, doc: &mut Doc) -> Result<Self, A::Error> {
        let mut value = Self::default();
        value.read_map(map, doc)?;
        Ok(value)
    }

    /// Capacity to start an array of these with, from what the document has shown so far (0: start empty and
    /// grow as `Vec` does).
    fn first_capacity(_doc: &Doc) -> usize {
        0
    }

    /// Notes the length of an array of these just decoded.
    fn decoded_array(_doc: &mut Doc, _len: usize) {}
}

/// A visitor for a whole object decoded on its own (`serde_json::from_str::<Bid>`), starting its own order count.
pub(crate) struct Standalone<T>(pub PhantomData<T>);

impl<'de, T: FromMap<'de>> Visitor<'de> for Standalone<T> {
    type Value = T;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }
    fn visit_map<M: MapAccess<'de>>(self, map: M) -> Result<Self::Value, M::Error> {
        T::from_map(map, &mut Doc::default())
    }
}

/// A member enum declared with [`members!`]: name → member, member → name, and a bit for duplicate detection.
pub(crate) trait Member: Copy + 'static {
    /// The member named `name`, or `None` for an unknown member (skipped undecoded); an unknown name is noted in
    /// `unknown` ([`Unknown::note`]) in the unknown names' arm of the one match, so a known name pays nothing for
    /// it.
    fn parse_or_note(name: &str, unknown: &mut Unknown<'_, Self>) -> Option<Self>;
    /// The member's JSON name.
    fn name(self) -> &'static str;
    /// The member's bit in [`Seen`] (its declaration index, < 64).
    fn bit(self) -> u8;
    /// Every member, in declaration order.
    const ALL: &'static [Self];
}

/// What the unknown member names of one object showed, noted by [`Member::parse_or_note`].
pub(crate) struct Unknown<'f, M> {
    /// The member the last unknown name is a form of ([`resembling`]); taken after each name.
    misnamed: Option<M>,
    /// Where names that are no member's, nor a member's in another form, are noted; only the bid response's
    /// reader asks ([`read_members_noting`]).
    foreign: Option<&'f mut Foreign>,
}

impl<M: Member> Unknown<'_, M> {
    /// Notes the unknown name `name`: the member it is a form of, or else, when asked, a foreign name. A plain
    /// lower-case name (`site`, `device`: most of a bid request's members, which are not read) is settled here
    /// without a call; the others go out of line.
    #[inline]
    pub(crate) fn note(&mut self, name: &str) {
        if self.foreign.is_none() && folds_to_itself(name.as_bytes()) {
            self.misnamed = None;
        } else {
            self.note_other(name);
        }
    }

    #[cold]
    #[inline(never)]
    fn note_other(&mut self, name: &str) {
        self.misnamed = resembling(name);
        if let (None, Some(foreign)) = (&self.misnamed, self.foreign.as_deref_mut()) {
            foreign.note(name);
        }
    }
}

/// The top-level member names of a bid response that are no member's, nor a member's in another form
/// ([`resembling`]): the first one (for a refusal's message) and whether one is `openrtb`, the top level of an
/// OpenRTB 3.0 document (`{"openrtb": {"ver": "3.0", …}}`, OpenRTB 3.0 §3.1). A body with such a member and
/// neither `seatbid` nor `nbr` is refused ([`Refusal::Response`], [`Refusal::Openrtb3`]).
#[derive(Debug, Default)]
pub(crate) struct Foreign {
    /// The first such name, its first [`ShortName::MAX`] bytes.
    pub(crate) first: Option<ShortName>,
    /// One of them is `openrtb`.
    pub(crate) openrtb: bool,
}

impl Foreign {
    fn note(&mut self, name: &str) {
        if self.first.is_none() {
            self.first = Some(ShortName::new(name));
        }
        self.openrtb |= name == "openrtb";
    }
}

/// The first bytes of a name, at most [`ShortName::MAX`] and cut at a character boundary, kept without
/// allocating; displayed with `…` when cut.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ShortName {
    bytes: [u8; ShortName::MAX],
    /// Bytes of `bytes` in use (≤ `MAX`), a character boundary of the name.
    len: u8,
    /// The name is longer than `len` bytes.
    cut: bool,
}

impl ShortName {
    /// Most bytes kept.
    pub(crate) const MAX: usize = 32;

    fn new(name: &str) -> Self {
        let len = name.floor_char_boundary(Self::MAX);
        let mut bytes = [0; Self::MAX];
        bytes[..len].copy_from_slice(&name.as_bytes()[..len]);
        ShortName {
            bytes,
            len: len as u8,
            cut: len < name.len(),
        }
    }
}

impl fmt::Display for ShortName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // A prefix cut at a character boundary of a `str`: always UTF-8.
        f.write_str(std::str::from_utf8(&self.bytes[..usize::from(self.len)]).unwrap_or_default())?;
        if self.cut {
            f.write_str("…")?;
        }
        Ok(())
    }
}

/// Reads a member name for [`read_members`]: the member it names, or `None` for an unknown member, skipped and
/// noted in the slot ([`Unknown::note`]).
struct MemberSeed<'s, 'f, M>(&'s mut Unknown<'f, M>);

impl<'de, M: Member> DeserializeSeed<'de> for MemberSeed<'_, '_, M> {
    type Value = Option<M>;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_identifier(self)
    }
}

impl<'de, M: Member> Visitor<'de> for MemberSeed<'_, '_, M> {
    type Value = Option<M>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a member name")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(M::parse_or_note(v, self.0))
    }
}

/// A lower-case name without `_` or `-` folds to itself: unless it is a plural, no member's name folds to it (the
/// member's own name was looked up already), so it resembles none. Most bidders' own members end here.
#[inline]
fn folds_to_itself(b: &[u8]) -> bool {
    b.iter().all(u8::is_ascii_lowercase) && (b.len() <= 3 || b[b.len() - 1] != b's')
}

/// The member whose name `name` is in another form: ASCII case, and `_` or `-` between its letters aside
/// (`Seatbid`, `seat_bid`, `API`), or that form with a final `s` after three letters or more (`bids`, not `ids`).
/// A name starting or ending with `_` or `-` (`_id`, a document store's own key) is not a form of a member's. A
/// bidder that sends one meant that member, and what it sent is lost: worth an issue where any other unknown
/// member (a bidder's own field) is skipped silently, as the OpenAPI description says. Out of line: only unknown
/// names come here.
#[cold]
#[inline(never)]
pub(crate) fn resembling<M: Member>(name: &str) -> Option<M> {
    /// Longest name compared.
    const MAX: usize = 32;
    let b = name.as_bytes();
    if folds_to_itself(b) {
        return None;
    }
    let edge = |c: Option<&u8>| c.is_some_and(|c| c.is_ascii_alphanumeric());
    if !edge(b.first()) || !edge(b.last()) {
        return None;
    }
    let mut sent = [0u8; MAX];
    let mut len = 0;
    for &c in b.iter().filter(|&&c| c != b'_' && c != b'-') {
        *sent.get_mut(len)? = c.to_ascii_lowercase();
        len += 1;
    }
    // Members' names are lower-case letters: the folded name itself first (`Api` is `api`, not `apis`), then
    // without a plural's `s`.
    let exact = |len: usize| {
        M::ALL
            .iter()
            .copied()
            .find(|m| m.name().as_bytes() == &sent[..len])
    };
    exact(len).or_else(|| {
        (len > 3 && sent[len - 1] == b's')
            .then(|| exact(len - 1))
            .flatten()
    })
}

/// Reads an object's members in order: unknown names are skipped without decoding (one that is a member's name
/// in another case or form is noted as `misnamed_member` at that member), a repeated member is noted as
/// `duplicate_field`, and each known member is handed to `read` (map, context, member, its JSON name).
/// Returns the coercions noted on this object's own members. Inlined: each object type calls it once, and out of
/// line it added a call and a frame to every object (the response's own loop included).
#[inline(always)]
pub(crate) fn read_members<'de, A, M>(
    map: A,
    doc: &mut Doc,
    read: impl FnMut(&mut A, &mut Ctx<'_>, M, &'static str) -> Result<(), A::Error>,
) -> Result<Vec<Coercion>, A::Error>
where
    A: MapAccess<'de>,
    M: Member,
{
    read_members_noting(map, doc, None, read).map(|(coercions, _)| coercions)
}

/// [`read_members`], also noting the names that are no member's, nor a form of one, in `foreign` (when given),
/// and returning which members came ([`Seen`]) with the coercions. The bid response's reader uses it to tell a
/// body that is not a bid response from a no-bid.
#[inline(always)]
pub(crate) fn read_members_noting<'de, A, M>(
    mut map: A,
    doc: &mut Doc,
    foreign: Option<&mut Foreign>,
    mut read: impl FnMut(&mut A, &mut Ctx<'_>, M, &'static str) -> Result<(), A::Error>,
) -> Result<(Vec<Coercion>, Seen), A::Error>
where
    A: MapAccess<'de>,
    M: Member,
{
    let mut coercions = Vec::new();
    let mut ctx = Ctx::new(&mut coercions, doc);
    let mut seen = Seen::default();
    let mut unknown = Unknown {
        misnamed: None,
        foreign,
    };
    while let Some(key) = map.next_key_seed(MemberSeed::<M>(&mut unknown))? {
        let Some(member) = key else {
            if let Some(member) = unknown.misnamed.take() {
                ctx.note(member.name(), None, CoercionKind::MisnamedMember);
            }
            map.next_value::<IgnoredAny>()?;
            continue;
        };
        let field = member.name();
        seen.check(&mut ctx, member.bit(), field);
        read(&mut map, &mut ctx, member, field)?;
    }
    Ok((coercions, seen))
}

/// Declares a struct's member enum: `parse_or_note` (name → member), `name`, and a bit index for duplicate detection.
macro_rules! members {
    ($(#[$meta:meta])* $name:ident { $($variant:ident = $json:literal,)* }) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        #[repr(u8)]
        pub(crate) enum $name { $($variant,)* }

        impl $name {
            pub(crate) fn name(self) -> &'static str {
                match self {
                    $($name::$variant => $json,)*
                }
            }
        }

        impl $crate::lenient::base::Member for $name {
            #[inline(always)]
            fn parse_or_note(
                name: &str,
                unknown: &mut $crate::lenient::base::Unknown<'_, Self>,
            ) -> Option<Self> {
                match name {
                    $($json => Some($name::$variant),)*
                    _ => {
                        unknown.note(name);
                        None
                    }
                }
            }
            fn name(self) -> &'static str {
                $name::name(self)
            }
            fn bit(self) -> u8 {
                self as u8
            }
            const ALL: &'static [Self] = &[$($name::$variant,)*];
        }
    };
}
pub(crate) use members;
