//! The Deserializer's serde semantics match serde_json's: the same typed inputs give the same values (or both
//! fail) — enums in all shapes, options, tuples, structs from arrays, numeric and bool map keys, bytes, chars,
//! untagged / internally tagged enums and `flatten` (both buffer through `deserialize_any`).

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt::Debug;

use serde::Deserialize;

use crate::common;

/// Decodes `text` as `T` with bidscan and with serde_json and asserts the same outcome.
fn same<T>(text: &str) -> Option<T>
where
    T: for<'de> Deserialize<'de> + PartialEq + Debug,
{
    let mut buf = text.as_bytes().to_vec();
    let ours = common::from_slice_mut::<T>(&mut buf);
    let theirs = serde_json::from_str::<T>(text);
    match (ours, theirs) {
        (Ok(a), Ok(b)) => {
            assert_eq!(a, b, "{text}");
            Some(a)
        }
        (Err(_), Err(_)) => None,
        (a, b) => panic!("{text}: bidscan {a:?}, serde_json {b:?}"),
    }
}

#[derive(Debug, Deserialize, PartialEq)]
enum Shape {
    Unit,
    Newtype(u8),
    Tuple(i32, String),
    Struct { a: bool, b: Option<f64> },
}

#[derive(Debug, Deserialize, PartialEq)]
#[serde(untagged)]
enum Loose {
    Num(f64),
    Text(String),
    List(Vec<Loose>),
}

#[derive(Debug, Deserialize, PartialEq)]
#[serde(tag = "type")]
enum Tagged {
    Banner { w: u32 },
    Video { dur: Option<u32> },
}

#[derive(Debug, Deserialize, PartialEq)]
struct Outer {
    id: String,
    #[serde(flatten)]
    rest: BTreeMap<String, serde_json::Value>,
}

#[derive(Debug, Deserialize, PartialEq)]
struct Point {
    x: i8,
    y: i8,
}

#[derive(Debug, Deserialize, PartialEq)]
struct Unit;

#[derive(Debug, Deserialize, PartialEq)]
struct Wrapper(u16);

#[test]
fn enums_in_every_shape() {
    assert_eq!(same::<Shape>(r#""Unit""#), Some(Shape::Unit));
    assert_eq!(same::<Shape>(r#"{"Newtype": 7}"#), Some(Shape::Newtype(7)));
    assert_eq!(
        same::<Shape>(r#" { "Tuple" : [ -1 , "x\ty" ] } "#),
        Some(Shape::Tuple(-1, "x\ty".into()))
    );
    assert_eq!(
        same::<Shape>(r#"{"Struct":{"a":true,"b":null}}"#),
        Some(Shape::Struct { a: true, b: None })
    );
    assert_eq!(same::<Shape>(r#"{"Unit":null}"#), Some(Shape::Unit));
    for bad in [
        r#""Nope""#,
        r#"{"Newtype":7,"x":1}"#,
        r#"{"Tuple":[1]}"#,
        "3",
        "[]",
        r#"{"Unit":null"#,
    ] {
        assert_eq!(same::<Shape>(bad), None, "{bad}");
    }
    assert_eq!(
        same::<Vec<Tagged>>(r#"[{"type":"Banner","w":3},{"dur":5,"type":"Video"}]"#)
            .map(|v| v.len()),
        Some(2)
    );
    assert_eq!(
        same::<Vec<Loose>>(r#"[1.5, "a\"b", [2, ["c"]]]"#),
        Some(vec![
            Loose::Num(1.5),
            Loose::Text("a\"b".into()),
            Loose::List(vec![
                Loose::Num(2.0),
                Loose::List(vec![Loose::Text("c".into())])
            ]),
        ])
    );
}

#[test]
fn containers_and_scalars() {
    assert_eq!(same::<Point>(r#"[1, -2]"#), Some(Point { x: 1, y: -2 }));
    assert_eq!(
        same::<Point>(r#"{"y":1,"x":2,"z":[{}]}"#),
        Some(Point { x: 2, y: 1 })
    );
    assert_eq!(same::<Point>(r#"{"x":200,"y":1}"#), None);
    assert_eq!(
        same::<(u8, String, Option<bool>)>(r#"[1,"s",null]"#),
        Some((1, "s".into(), None))
    );
    assert_eq!(same::<(u8, u8)>("[1,2,3]"), None);
    assert_eq!(same::<Unit>("null"), Some(Unit));
    assert_eq!(same::<Wrapper>("65535"), Some(Wrapper(65535)));
    assert_eq!(same::<char>(r#""\u00e9""#), Some('é'));
    assert_eq!(same::<char>(r#""ab""#), None);
    assert_eq!(same::<i128>("-5"), Some(-5));
    assert_eq!(
        same::<i128>("-170141183460469231731687303715884105728"),
        Some(i128::MIN)
    );
    assert_eq!(
        same::<u128>("340282366920938463463374607431768211455"),
        Some(u128::MAX)
    );
    assert_eq!(
        same::<u128>("340282366920938463463374607431768211456"),
        None
    );
    assert_eq!(same::<u128>("1.5"), None);
    assert_eq!(same::<i128>("\"1\""), None);
    assert_eq!(same::<u64>("18446744073709551615"), Some(u64::MAX));
    assert_eq!(same::<i64>("-9223372036854775808"), Some(i64::MIN));
    assert_eq!(same::<f32>("0.1"), Some(0.1));
    assert_eq!(same::<u8>("1.0"), None);
    assert_eq!(same::<Option<Option<u8>>>("null"), Some(None));
    assert_eq!(
        same::<serde_bytes_like::Bytes>(r#""a\nb""#).map(|b| b.0),
        Some(b"a\nb".to_vec())
    );
    assert_eq!(same::<()>("null"), Some(()));
    assert_eq!(same::<bool>(" true "), Some(true));
}

#[test]
fn map_keys_as_numbers_bools_and_enums() {
    let m = same::<BTreeMap<u32, u8>>(r#"{"1":1,"4294967295":2}"#).unwrap();
    assert_eq!(m[&4294967295], 2);
    assert_eq!(same::<BTreeMap<i8, u8>>(r#"{"-3":1}"#).unwrap()[&-3], 1);
    assert_eq!(same::<BTreeMap<u8, u8>>(r#"{"x":1}"#), None);
    assert_eq!(same::<BTreeMap<u8, u8>>(r#"{"300":1}"#), None);
    assert_eq!(
        same::<BTreeMap<bool, u8>>(r#"{"true":1,"false":0}"#)
            .unwrap()
            .len(),
        2
    );
    assert_eq!(
        same::<BTreeMap<f64Key, u8>>(r#"{"1.5":1}"#).map(|m| m.len()),
        Some(1)
    );
    #[derive(Debug, Deserialize, PartialEq, Eq, PartialOrd, Ord)]
    enum Key {
        A,
        B,
    }
    assert_eq!(
        same::<BTreeMap<Key, u8>>(r#"{"B":2,"A":1}"#)
            .unwrap()
            .keys()
            .collect::<Vec<_>>(),
        [&Key::A, &Key::B]
    );
}

#[test]
fn flatten_and_borrowed_cows() {
    let outer = same::<Outer>(r#"{"id":"x","a":[1],"b":{"c":"\u0041"}}"#).unwrap();
    assert_eq!(outer.rest.len(), 2);
    // bidscan borrows an escaped string where serde_json has to allocate.
    #[derive(Debug, Deserialize)]
    struct Borrowing<'a> {
        #[serde(borrow)]
        s: Cow<'a, str>,
    }
    let mut buf = br#"{"s":"a\"b"}"#.to_vec();
    let b: Borrowing = common::from_slice_mut(&mut buf).unwrap();
    assert!(matches!(b.s, Cow::Borrowed("a\"b")));
}

/// A float map key, ordered by its bits.
#[allow(non_camel_case_types)]
#[derive(Debug, PartialEq)]
struct f64Key(f64);
impl Eq for f64Key {}
impl PartialOrd for f64Key {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for f64Key {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0)
    }
}
impl<'de> Deserialize<'de> for f64Key {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        f64::deserialize(d).map(f64Key)
    }
}

mod serde_bytes_like {
    //! `Vec<u8>` through `deserialize_byte_buf`, as `serde_bytes` does.
    use std::fmt;

    use serde::de::{self, Deserialize, Deserializer, Visitor};

    #[derive(Debug, PartialEq)]
    pub struct Bytes(pub Vec<u8>);

    impl<'de> Deserialize<'de> for Bytes {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct V;
            impl<'de> Visitor<'de> for V {
                type Value = Bytes;
                fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                    f.write_str("bytes")
                }
                fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Bytes, E> {
                    Ok(Bytes(v.to_vec()))
                }
                fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Bytes, A::Error> {
                    let mut out = Vec::new();
                    while let Some(b) = seq.next_element()? {
                        out.push(b);
                    }
                    Ok(Bytes(out))
                }
            }
            d.deserialize_byte_buf(V)
        }
    }
}

/// An `f32` target gets the float rounded once, straight to `f32` (as std's `parse::<f32>` and serde_json with
/// `float_roundtrip`), not through `f64`, and a float beyond `f32`'s range is an error, not infinity.
#[test]
fn f32_targets_round_once_and_reject_overflow() {
    let f32_of = |text: &str| common::from_slice_mut::<f32>(&mut text.as_bytes().to_vec());
    // Just above the halfway point between 1.0 and the next f32: through f64 it rounds to 1.0.
    for text in [
        "1.0000000596046448",
        "0.1",
        "3.4028234e38",
        "1e-45",
        "-0",
        "-0.0",
        "16777217.0",
        "7",
        "-3",
    ] {
        let got = f32_of(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        let want: f32 = text.parse().unwrap();
        assert_eq!(got.to_bits(), want.to_bits(), "{text}");
    }
    for text in [
        "3.4028236e38",
        "1e39",
        "-1e39",
        "340282366920938463463374607431768211456",
    ] {
        let err = f32_of(text).expect_err(text);
        assert!(
            err.to_string().contains("number out of range"),
            "{text}: {err}"
        );
    }
    // The grammar still applies, and a float inside a structure too.
    assert!(f32_of("01.5").is_err() && f32_of("1.").is_err());
    assert_eq!(
        same::<Vec<f32>>("[1.0000000596046448, 2, -0.5]"),
        Some(vec![1.0000001, 2.0, -0.5])
    );
}
