//! The messages of IAB Tech Lab's OpenRTB 2.6 protobuf schema (`openrtb.proto`, InteractiveAdvertisingBureau/
//! openrtb2.x) that are rendered to JSON rather than decoded into the typed model: the declared fields of
//! `BidResponse.Ext`, `SeatBid.Ext` and `Bid.Ext`, the messages under them, and `NativeResponse` (a bid's
//! `adm_native`). Field numbers, names and types as the schema declares them; the fields in its order, which is
//! the order they are rendered in. `crates/bidscan-proto/proto/bidresponse.proto` states the same messages.

/// How a field's value is rendered in JSON.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Kind {
    /// `string`: a JSON string.
    Str,
    /// `int32`: a JSON integer.
    Int32,
    /// `bool`: OpenRTB's integer flag, `0` or `1`.
    Flag,
    /// `double`: a JSON number (`null` when not finite, which JSON cannot carry).
    Double,
    /// An embedded message: a JSON object.
    Message(&'static Desc),
    /// `google.protobuf.Value`: the JSON value it stands for (protobuf's JSON mapping of `Value`).
    Value,
    /// `map<string, double>`: a JSON object.
    MapStrDouble,
}

/// One declared field.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FieldDesc {
    /// The field number.
    pub(crate) number: u32,
    /// The JSON member name (the schema's field name, which is OpenRTB's member name).
    pub(crate) name: &'static str,
    /// How the value is read and rendered.
    pub(crate) kind: Kind,
    /// `repeated`: a JSON array (a `map` is not marked repeated).
    pub(crate) repeated: bool,
}

/// One message: its declared fields, and whether its undeclared fields are rendered raw (the `Ext` messages,
/// whose `extensions 500 to max` carry companies' fields) or skipped.
#[derive(Debug)]
pub(crate) struct Desc {
    /// The declared fields in the schema's order.
    pub(crate) fields: &'static [FieldDesc],
    /// Undeclared fields rendered in the raw form (see `render`), else skipped.
    pub(crate) raw: bool,
}

const fn f(number: u32, name: &'static str, kind: Kind) -> FieldDesc {
    FieldDesc {
        number,
        name,
        kind,
        repeated: false,
    }
}

const fn r(number: u32, name: &'static str, kind: Kind) -> FieldDesc {
    FieldDesc {
        number,
        name,
        kind,
        repeated: true,
    }
}

use Kind::{Double, Flag, Int32, MapStrDouble, Message, Str, Value};

/// An `Ext` message that declares no field (`extensions 500 to max` only): its fields are all rendered raw.
pub(crate) static EXT: Desc = Desc {
    fields: &[],
    raw: true,
};

/// `BidResponse.Ext`.
pub(crate) static RESPONSE_EXT: Desc = Desc {
    fields: &[
        r(1, "seatnonbid", Message(&SEAT_NON_BID)),
        r(2, "igi", Message(&INTEREST_GROUP_INTENT)),
    ],
    raw: true,
};

/// `SeatBid.Ext`.
pub(crate) static SEAT_EXT: Desc = EXT_ONLY;

const EXT_ONLY: Desc = Desc {
    fields: &[],
    raw: true,
};

/// `Bid.Ext`.
pub(crate) static BID_EXT: Desc = Desc {
    fields: &[
        f(1, "skadn", Message(&SKADN_RESPONSE)),
        f(2, "dsa", Message(&DSA_RESPONSE)),
        f(3, "scid", Str),
    ],
    raw: true,
};

static SEAT_NON_BID: Desc = Desc {
    fields: &[
        r(1, "nonbid", Message(&NON_BID)),
        f(2, "seat", Str),
        f(99, "ext", Message(&EXT)),
    ],
    raw: false,
};

static NON_BID: Desc = Desc {
    fields: &[
        f(1, "impid", Str),
        f(2, "statuscode", Int32),
        f(99, "ext", Message(&EXT)),
    ],
    raw: false,
};

static INTEREST_GROUP_INTENT: Desc = Desc {
    fields: &[
        f(1, "impid", Str),
        r(2, "igb", Message(&INTEREST_GROUP_BUYER)),
        r(3, "igs", Message(&INTEREST_GROUP_SELLER)),
    ],
    raw: false,
};

static INTEREST_GROUP_BUYER: Desc = Desc {
    fields: &[
        f(1, "origin", Str),
        f(2, "maxbid", Double),
        f(3, "cur", Str),
        f(4, "pbs", Value),
        f(5, "ps", MapStrDouble),
        f(6, "begid", Int32),
    ],
    raw: false,
};

static INTEREST_GROUP_SELLER: Desc = Desc {
    fields: &[f(1, "impid", Str), f(2, "config", Value)],
    raw: false,
};

static DSA_RESPONSE: Desc = Desc {
    fields: &[
        f(1, "behalf", Str),
        f(2, "paid", Str),
        r(3, "transparency", Message(&TRANSPARENCY)),
        f(4, "adrender", Flag),
    ],
    raw: false,
};

static TRANSPARENCY: Desc = Desc {
    fields: &[f(1, "domain", Str), r(2, "dsaparams", Int32)],
    raw: false,
};

static SKADN_RESPONSE: Desc = Desc {
    fields: &[
        f(1, "version", Str),
        f(2, "network", Str),
        f(10, "sourceidentifier", Str),
        f(3, "campaign", Str),
        f(4, "itunesitem", Str),
        f(11, "productpageid", Str),
        r(9, "fidelities", Message(&SKADN_FIDELITY)),
        f(5, "nonce", Str),
        f(6, "sourceapp", Str),
        f(7, "timestamp", Str),
        f(8, "signature", Str),
        f(12, "skoverlay", Message(&SKOVERLAY)),
        f(99, "ext", Message(&EXT)),
    ],
    raw: false,
};

static SKADN_FIDELITY: Desc = Desc {
    fields: &[
        f(1, "fidelity", Int32),
        f(2, "nonce", Str),
        f(3, "timestamp", Str),
        f(4, "signature", Str),
        f(99, "ext", Message(&EXT)),
    ],
    raw: false,
};

static SKOVERLAY: Desc = Desc {
    fields: &[
        f(1, "delay", Int32),
        f(2, "endcarddelay", Int32),
        f(3, "dismissible", Flag),
        f(4, "pos", Int32),
        f(99, "ext", Message(&EXT)),
    ],
    raw: false,
};

/// `NativeResponse` (OpenRTB Native 1.2 §5.1), a bid's `adm_native`.
pub(crate) static NATIVE_RESPONSE: Desc = Desc {
    fields: &[
        f(1, "ver", Str),
        r(2, "assets", Message(&NATIVE_ASSET)),
        f(6, "assetsurl", Str),
        f(7, "dcourl", Str),
        f(3, "link", Message(&NATIVE_LINK)),
        r(4, "imptrackers", Str),
        f(5, "jstracker", Str),
        r(8, "eventtrackers", Message(&NATIVE_EVENT_TRACKER)),
        f(9, "privacy", Str),
        f(99, "ext", Message(&EXT)),
    ],
    raw: false,
};

static NATIVE_LINK: Desc = Desc {
    fields: &[
        f(1, "url", Str),
        r(2, "clicktrackers", Str),
        f(3, "fallback", Str),
        f(99, "ext", Message(&EXT)),
    ],
    raw: false,
};

static NATIVE_ASSET: Desc = Desc {
    fields: &[
        f(1, "id", Int32),
        f(2, "required", Flag),
        f(3, "title", Message(&NATIVE_TITLE)),
        f(4, "img", Message(&NATIVE_IMAGE)),
        f(5, "video", Message(&NATIVE_VIDEO)),
        f(6, "data", Message(&NATIVE_DATA)),
        f(7, "link", Message(&NATIVE_LINK)),
        f(99, "ext", Message(&EXT)),
    ],
    raw: false,
};

static NATIVE_TITLE: Desc = Desc {
    fields: &[
        f(1, "text", Str),
        f(2, "len", Int32),
        f(99, "ext", Message(&EXT)),
    ],
    raw: false,
};

static NATIVE_IMAGE: Desc = Desc {
    fields: &[
        f(4, "type", Int32),
        f(1, "url", Str),
        f(2, "w", Int32),
        f(3, "h", Int32),
        f(99, "ext", Message(&EXT)),
    ],
    raw: false,
};

static NATIVE_DATA: Desc = Desc {
    fields: &[
        f(3, "type", Int32),
        f(4, "len", Int32),
        f(1, "label", Str),
        f(2, "value", Str),
        f(99, "ext", Message(&EXT)),
    ],
    raw: false,
};

static NATIVE_VIDEO: Desc = Desc {
    fields: &[f(1, "vasttag", Str), f(99, "ext", Message(&EXT))],
    raw: false,
};

static NATIVE_EVENT_TRACKER: Desc = Desc {
    fields: &[
        f(1, "event", Int32),
        f(2, "method", Int32),
        f(3, "url", Str),
        f(4, "customdata", Str),
        f(99, "ext", Message(&EXT)),
    ],
    raw: false,
};
