//! The wire format (protobuf encoding guide, <https://protobuf.dev/programming-guides/encoding/>): varints, tags,
//! the six wire types, and a [`Message`] cursor that hands out one [`Field`] at a time, borrowing every
//! length-delimited value from the body.

use crate::error::{Error, ErrorKind};

/// Strings shorter than this (in bytes) are checked as ASCII before UTF-8 ([`Field::str`]).
const SHORT_STRING: usize = 64;

/// The largest field number protobuf allows, 2^29−1 (encoding guide, "Message Structure").
pub const MAX_FIELD_NUMBER: u32 = (1 << 29) - 1;

/// The wire types (encoding guide, "Message Structure"): `VARINT` 0, `I64` 1, `LEN` 2, `SGROUP` 3, `EGROUP` 4,
/// `I32` 5.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WireType {
    /// 0: int32, int64, uint32, uint64, sint32, sint64, bool, enum.
    Varint = 0,
    /// 1: fixed64, sfixed64, double.
    I64 = 1,
    /// 2: string, bytes, embedded messages, packed repeated fields.
    Len = 2,
    /// 3: group start (deprecated).
    StartGroup = 3,
    /// 4: group end (deprecated).
    EndGroup = 4,
    /// 5: fixed32, sfixed32, float.
    I32 = 5,
}

impl WireType {
    /// The encoding guide's name: `VARINT`, `I64`, `LEN`, `SGROUP`, `EGROUP`, `I32`.
    pub fn name(self) -> &'static str {
        match self {
            WireType::Varint => "VARINT",
            WireType::I64 => "I64",
            WireType::Len => "LEN",
            WireType::StartGroup => "SGROUP",
            WireType::EndGroup => "EGROUP",
            WireType::I32 => "I32",
        }
    }

    fn from_bits(bits: u8) -> Option<Self> {
        Some(match bits {
            0 => WireType::Varint,
            1 => WireType::I64,
            2 => WireType::Len,
            3 => WireType::StartGroup,
            4 => WireType::EndGroup,
            5 => WireType::I32,
            _ => return None,
        })
    }
}

/// Limits applied while reading.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Deepest nesting of embedded messages and groups, counted as the JSON reader counts containers (the top
    /// message is depth 1). Default 128, the JSON reader's default.
    pub max_depth: u32,
    /// Longest length-delimited value accepted, in bytes: the body limit (a longer length cannot be honest).
    /// Default `usize::MAX` (only the body's end bounds lengths).
    pub max_len: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_depth: 128,
            max_len: usize::MAX,
        }
    }
}

/// One field's value as read from the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Value<'a> {
    /// Wire type 0: the varint's 64 bits.
    Varint(u64),
    /// Wire type 1: the 8 little-endian bytes as a `u64`.
    I64(u64),
    /// Wire type 2: the bytes, borrowed from the body.
    Len(&'a [u8]),
    /// Wire types 3…4: the group's contents (between its start and end tags), already checked well-formed.
    Group(&'a [u8]),
    /// Wire type 5: the 4 little-endian bytes as a `u32`.
    I32(u32),
}

impl Value<'_> {
    /// The value's wire type ([`WireType::StartGroup`] for a group).
    pub fn wire_type(&self) -> WireType {
        match self {
            Value::Varint(_) => WireType::Varint,
            Value::I64(_) => WireType::I64,
            Value::Len(_) => WireType::Len,
            Value::Group(_) => WireType::StartGroup,
            Value::I32(_) => WireType::I32,
        }
    }
}

/// One field of a message: its number, its value, and where its tag and value start in the body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Field<'a> {
    /// The field number, 1 to [`MAX_FIELD_NUMBER`].
    pub number: u32,
    /// The value.
    pub value: Value<'a>,
    /// Byte offset of the tag in the body.
    pub offset: usize,
    /// Byte offset of the value in the body (for `LEN`, of its first byte after the length).
    pub value_offset: usize,
    /// The nesting depth of the message holding the field (the top message is 1).
    depth: u32,
}

impl<'a> Field<'a> {
    fn expect(&self, expected: WireType) -> Error {
        let kind = match self.value {
            Value::Group(_) => ErrorKind::GroupOnKnownField,
            v => ErrorKind::WrongWireType {
                expected,
                found: v.wire_type(),
            },
        };
        Error::new(kind, self.offset)
    }

    /// A `VARINT` field's 64 bits; any other wire type is [`ErrorKind::WrongWireType`] (a group
    /// [`ErrorKind::GroupOnKnownField`]).
    pub fn varint(&self) -> Result<u64, Error> {
        match self.value {
            Value::Varint(v) => Ok(v),
            _ => Err(self.expect(WireType::Varint)),
        }
    }

    /// An `int32` field: the varint's low 32 bits, as protobuf parsers read it (a negative `int32` is sent
    /// sign-extended to 10 bytes).
    pub fn int32(&self) -> Result<i32, Error> {
        Ok(self.varint()? as i32)
    }

    /// An `int64` field.
    pub fn int64(&self) -> Result<i64, Error> {
        Ok(self.varint()? as i64)
    }

    /// A `bool` field: any non-zero varint is `true`, as protobuf parsers read it.
    pub fn bool(&self) -> Result<bool, Error> {
        Ok(self.varint()? != 0)
    }

    /// A `double` field (`I64`).
    pub fn double(&self) -> Result<f64, Error> {
        match self.value {
            Value::I64(bits) => Ok(f64::from_bits(bits)),
            _ => Err(self.expect(WireType::I64)),
        }
    }

    /// A `float` field (`I32`).
    pub fn float(&self) -> Result<f32, Error> {
        match self.value {
            Value::I32(bits) => Ok(f32::from_bits(bits)),
            _ => Err(self.expect(WireType::I32)),
        }
    }

    /// A `LEN` field's bytes, borrowed from the body.
    pub fn bytes(&self) -> Result<&'a [u8], Error> {
        match self.value {
            Value::Len(b) => Ok(b),
            _ => Err(self.expect(WireType::Len)),
        }
    }

    /// A `string` field, borrowed from the body after its UTF-8 check; [`ErrorKind::InvalidUtf8`] at the first
    /// invalid byte otherwise.
    ///
    /// Strings under 64 bytes (most of a bid's: ids, domains, codes) are first checked as ASCII, a
    /// word at a time (the `ascii` crate over `<[u8]>::is_ascii`); the others, and short ones that are not ASCII,
    /// go to simdutf8 (which hands inputs under 64 bytes to `std::str::from_utf8`, a byte at a time until
    /// aligned: ~100 instructions for a median 11-byte string against ~25).
    #[inline(always)]
    pub fn str(&self) -> Result<&'a str, Error> {
        Field::str_at(self.bytes()?, self.value_offset)
    }

    /// [`Field::str`] of a `LEN` value's `bytes` that start at byte `value_offset` of the body (as
    /// [`Message::next_len_in`] hands them out).
    #[inline(always)]
    pub fn str_at(bytes: &'a [u8], value_offset: usize) -> Result<&'a str, Error> {
        if bytes.len() < SHORT_STRING
            && let Ok(ascii) = ascii::AsciiStr::from_ascii(bytes)
        {
            return Ok(ascii.as_str());
        }
        utf8(bytes, value_offset)
    }

    /// An embedded message's fields, one level deeper; [`ErrorKind::DepthLimit`] past the limit.
    pub fn message(&self, limits: &Limits) -> Result<Message<'a>, Error> {
        let bytes = self.bytes()?;
        if self.depth >= limits.max_depth {
            return Err(Error::new(ErrorKind::DepthLimit, self.offset));
        }
        Ok(Message {
            data: bytes,
            pos: 0,
            base: self.value_offset,
            depth: self.depth + 1,
            limits: *limits,
        })
    }

    /// The elements of a repeated varint field (`int32`, `bool`, enums) as sent: packed (one `LEN` field of
    /// varints) or not (this one `VARINT`). Protobuf parsers accept both for every repeated scalar (encoding
    /// guide, "Packed Repeated Fields").
    pub fn varints(&self) -> Result<Varints<'a>, Error> {
        match self.value {
            Value::Varint(v) => Ok(Varints {
                data: &[],
                pos: 0,
                base: self.value_offset,
                single: Some(v),
            }),
            Value::Len(data) => Ok(Varints {
                data,
                pos: 0,
                base: self.value_offset,
                single: None,
            }),
            _ => Err(self.expect(WireType::Varint)),
        }
    }
}

/// The varints of a repeated scalar field ([`Field::varints`]), packed or not.
#[derive(Clone, Debug)]
pub struct Varints<'a> {
    data: &'a [u8],
    pos: usize,
    base: usize,
    single: Option<u64>,
}

impl Iterator for Varints<'_> {
    type Item = Result<u64, Error>;
    fn next(&mut self) -> Option<Self::Item> {
        if let Some(v) = self.single.take() {
            return Some(Ok(v));
        }
        if self.pos >= self.data.len() {
            return None;
        }
        match varint(self.data, self.pos, self.base) {
            Ok((v, next)) => {
                self.pos = next;
                Some(Ok(v))
            }
            Err(e) => {
                self.pos = self.data.len();
                Some(Err(e))
            }
        }
    }
}

/// [`Field::str`] past its ASCII check, out of line (the check stays small where it is inlined).
#[inline(never)]
fn utf8(bytes: &[u8], base: usize) -> Result<&str, Error> {
    match simdutf8::basic::from_utf8(bytes) {
        Ok(s) => Ok(s),
        Err(_) => Err(utf8_error(bytes, base)),
    }
}

#[cold]
fn utf8_error(bytes: &[u8], base: usize) -> Error {
    let valid = match std::str::from_utf8(bytes) {
        Ok(_) => bytes.len(),
        Err(e) => e.valid_up_to(),
    };
    Error::new(ErrorKind::InvalidUtf8, base + valid)
}

/// Reads the varint at `data[pos..]`: its value and the position after it. Offsets in errors are `base + pos`.
/// Always inlined, as [`Message::next`] and the tag reading are: each field's reading then stays in the
/// caller's loop (a call per field and per varint cost ~19% of `decode_protobuf` on the real twins). One and two
/// bytes (tags, flags, codes, sizes, lengths under 16 KiB) are read here; longer varints out of line.
#[inline(always)]
pub(crate) fn varint(data: &[u8], pos: usize, base: usize) -> Result<(u64, usize), Error> {
    match data.get(pos) {
        Some(&b) if b < 0x80 => return Ok((u64::from(b), pos + 1)),
        Some(&b) => {
            if let Some(&c) = data.get(pos + 1)
                && c < 0x80
            {
                return Ok((u64::from(b & 0x7f) | u64::from(c) << 7, pos + 2));
            }
        }
        None => return Err(Error::new(ErrorKind::TruncatedVarint, base + pos)),
    }
    long_varint(data, pos, base)
}

/// [`varint`] past two bytes (or cut short after its first).
#[inline(never)]
fn long_varint(data: &[u8], pos: usize, base: usize) -> Result<(u64, usize), Error> {
    let mut value = 0u64;
    for i in 0..10 {
        let Some(&b) = data.get(pos + i) else {
            return Err(Error::new(ErrorKind::TruncatedVarint, base + pos));
        };
        if i == 9 && b > 1 {
            return Err(Error::new(ErrorKind::VarintTooLong, base + pos));
        }
        value |= u64::from(b & 0x7f) << (7 * i);
        if b < 0x80 {
            return Ok((value, pos + i + 1));
        }
    }
    Err(Error::new(ErrorKind::VarintTooLong, base + pos))
}

/// A `LEN` field as [`Message::next_len_in`] hands it out: its number, its bytes, their offset in the body.
type LenField<'a> = (u32, &'a [u8], usize);

/// A cursor over one message's fields, borrowing from the body.
///
/// [`Message::next`] reads the next field's tag and value: a `LEN` value is sliced (its length checked against
/// the message's end and [`Limits::max_len`]), a group is walked to its end tag (nested groups counted against
/// [`Limits::max_depth`]) and handed out whole, so an unknown field of any wire type is skipped by ignoring it.
/// Nothing is allocated.
#[derive(Clone, Debug)]
pub struct Message<'a> {
    data: &'a [u8],
    pos: usize,
    base: usize,
    depth: u32,
    limits: Limits,
}

impl<'a> Message<'a> {
    /// The top-level message of a body. [`ErrorKind::LengthPastLimit`] when the body itself is longer than
    /// [`Limits::max_len`].
    pub fn new(body: &'a [u8], limits: Limits) -> Result<Self, Error> {
        if body.len() > limits.max_len {
            return Err(Error::new(ErrorKind::LengthPastLimit, 0));
        }
        Ok(Message {
            data: body,
            pos: 0,
            base: 0,
            depth: 1,
            limits,
        })
    }

    /// The limits this message is read under.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// Byte offset in the body of this message's first byte.
    pub fn offset(&self) -> usize {
        self.base
    }

    /// The next field, or `None` at the message's end. Errors: a truncated or overlong varint, field number 0
    /// or above 2^29−1, wire type 6 or 7, a length past the message's end or the body limit, a truncated fixed
    /// value, an end-group tag outside a group, a group without its end, groups nested past the depth limit.
    #[inline(always)]
    #[allow(clippy::should_implement_trait)] // Fallible: an `Iterator` of `Result`s would hide the stop.
    pub fn next(&mut self) -> Result<Option<Field<'a>>, Error> {
        let at = self.pos;
        let Some(&first) = self.data.get(at) else {
            return Ok(None);
        };
        // A one-byte tag (field numbers 1 to 15) is the byte `number << 3 | wire type`: no varint to assemble,
        // and neither number check can fail. Two bytes (16 to 2047) need only the zero check (a non-minimal
        // `0x80 0x00`). Everything else takes the general path.
        let (number, bits, mut pos) = match (first, self.data.get(at + 1)) {
            (8..0x80, _) => (u32::from(first >> 3), first & 7, at + 1),
            (0x80.., Some(&second)) if second < 0x80 && second != 0 => {
                let tag = u32::from(first & 0x7f) | u32::from(second) << 7;
                (tag >> 3, (first & 7), at + 2)
            }
            _ => self.tag(at)?,
        };
        let value_offset = self.base + pos;
        let value = match bits {
            0 => {
                let (v, next) = varint(self.data, pos, self.base)?;
                pos = next;
                Value::Varint(v)
            }
            1 => {
                let bytes = self.fixed::<8>(pos)?;
                pos += 8;
                Value::I64(u64::from_le_bytes(bytes))
            }
            5 => {
                let bytes = self.fixed::<4>(pos)?;
                pos += 4;
                Value::I32(u32::from_le_bytes(bytes))
            }
            2 => {
                let (len, start) = varint(self.data, pos, self.base)?;
                // The body is at most `max_len` long (`Message::new`), so a length that fits in the message fits
                // in the limit, unless this message was opened under a lower limit: one compare for both.
                let room = (self.data.len() - start).min(self.limits.max_len);
                if len > room as u64 {
                    return Err(self.len_error(len, pos));
                }
                let end = start + len as usize;
                return self.field(
                    number,
                    Value::Len(&self.data[start..end]),
                    at,
                    self.base + start,
                    end,
                );
            }
            3 => {
                let (end, after) = self.group_end(number, pos, at)?;
                let contents = &self.data[pos..end];
                pos = after;
                Value::Group(contents)
            }
            4 => return Err(Error::new(ErrorKind::UnmatchedEndGroup, self.base + at)),
            _ => return Err(Error::new(ErrorKind::InvalidWireType(bits), self.base + at)),
        };
        self.field(number, value, at, value_offset, pos)
    }

    /// The next field when it is a `LEN` field with a one-byte tag whose number (1 to 15) has its bit set in
    /// `numbers` (bit N for field N): its number, its bytes (borrowed from the body) and their offset in the body,
    /// read with [`Message::next`]'s checks and errors. `Ok(None)` for any other field and at the message's end,
    /// with nothing read ([`Message::next`] then reads it).
    ///
    /// The strings of a bid are most of its fields: read this way they skip building a [`Field`] and the
    /// dispatch on the wire type (one compare on the tag byte instead).
    #[inline(always)]
    pub fn next_len_in(&mut self, numbers: u16) -> Result<Option<LenField<'a>>, Error> {
        let at = self.pos;
        let Some(&tag) = self.data.get(at) else {
            return Ok(None);
        };
        let number = u32::from(tag >> 3);
        if tag & 0x87 != WireType::Len as u8 || numbers & (1 << (number & 15)) == 0 || number == 0 {
            return Ok(None);
        }
        let (len, start) = varint(self.data, at + 1, self.base)?;
        let room = (self.data.len() - start).min(self.limits.max_len);
        if len > room as u64 {
            return Err(self.len_error(len, at + 1));
        }
        let end = start + len as usize;
        self.pos = end;
        Ok(Some((number, &self.data[start..end], self.base + start)))
    }

    /// Hands out a field whose value ends at `next`.
    #[inline(always)]
    fn field(
        &mut self,
        number: u32,
        value: Value<'a>,
        at: usize,
        value_offset: usize,
        next: usize,
    ) -> Result<Option<Field<'a>>, Error> {
        self.pos = next;
        Ok(Some(Field {
            number,
            value,
            offset: self.base + at,
            value_offset,
            depth: self.depth,
        }))
    }

    /// The error for a length `len` (at `pos`) that does not fit: past the limit first, as the limit is checked
    /// before the message's end.
    #[cold]
    fn len_error(&self, len: u64, pos: usize) -> Error {
        let kind = if len > self.limits.max_len as u64 {
            ErrorKind::LengthPastLimit
        } else {
            ErrorKind::LengthPastEnd
        };
        Error::new(kind, self.base + pos)
    }

    /// The tag at `at` in general (any length, checked): field number, wire type bits, and the position after it.
    #[inline(never)]
    fn tag(&self, at: usize) -> Result<(u32, u8, usize), Error> {
        let (tag, pos) = varint(self.data, at, self.base)?;
        let number = tag >> 3;
        if number == 0 {
            return Err(Error::new(ErrorKind::FieldNumberZero, self.base + at));
        }
        if number > u64::from(MAX_FIELD_NUMBER) {
            return Err(Error::new(ErrorKind::FieldNumberTooLarge, self.base + at));
        }
        Ok((number as u32, (tag & 7) as u8, pos))
    }

    /// The tag at `at`, its wire type checked: field number, wire type, and the position after it.
    fn wire_tag(&self, at: usize) -> Result<(u32, WireType, usize), Error> {
        let (number, bits, pos) = self.tag(at)?;
        let wire = WireType::from_bits(bits)
            .ok_or_else(|| Error::new(ErrorKind::InvalidWireType(bits), self.base + at))?;
        Ok((number, wire, pos))
    }

    fn fixed<const N: usize>(&self, pos: usize) -> Result<[u8; N], Error> {
        self.data
            .get(pos..pos + N)
            .and_then(|b| b.try_into().ok())
            .ok_or_else(|| Error::new(ErrorKind::TruncatedFixed, self.base + pos))
    }

    /// Walks a group of field `number` whose contents start at `pos` (its start tag at `start`): the position of
    /// its end tag and the position after it. Nested groups are walked without recursion, their numbers kept on
    /// a stack bounded by the depth limit.
    fn group_end(
        &self,
        number: u32,
        mut pos: usize,
        start: usize,
    ) -> Result<(usize, usize), Error> {
        let mut open: Vec<u32> = Vec::new();
        let mut current = number;
        if self.depth >= self.limits.max_depth {
            return Err(Error::new(ErrorKind::DepthLimit, self.base + start));
        }
        loop {
            if pos >= self.data.len() {
                return Err(Error::new(ErrorKind::UnterminatedGroup, self.base + start));
            }
            let at = pos;
            let (n, wire, next) = self.wire_tag(at)?;
            pos = next;
            match wire {
                WireType::Varint => pos = varint(self.data, pos, self.base)?.1,
                WireType::I64 => {
                    self.fixed::<8>(pos)?;
                    pos += 8;
                }
                WireType::I32 => {
                    self.fixed::<4>(pos)?;
                    pos += 4;
                }
                WireType::Len => {
                    let (len, s) = varint(self.data, pos, self.base)?;
                    if len > self.limits.max_len as u64 {
                        return Err(Error::new(ErrorKind::LengthPastLimit, self.base + pos));
                    }
                    pos = s
                        .checked_add(len as usize)
                        .filter(|end| *end <= self.data.len())
                        .ok_or_else(|| Error::new(ErrorKind::LengthPastEnd, self.base + pos))?;
                }
                WireType::StartGroup => {
                    if self.depth + open.len() as u32 + 1 >= self.limits.max_depth {
                        return Err(Error::new(ErrorKind::DepthLimit, self.base + at));
                    }
                    open.push(current);
                    current = n;
                }
                WireType::EndGroup => {
                    if n != current {
                        return Err(Error::new(ErrorKind::UnmatchedEndGroup, self.base + at));
                    }
                    match open.pop() {
                        Some(outer) => current = outer,
                        None => return Ok((at, pos)),
                    }
                }
            }
        }
    }
}
