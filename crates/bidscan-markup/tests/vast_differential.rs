//! The VAST fast path (`vast::scan`, our own tokenizer) against the exact path (`vast::inspect_with_quick_xml`,
//! quick-xml's events): whenever the fast path answers, its `VastInfo` (counts, version, wrapper URI, duration,
//! media types, warnings and their offsets, and a violation's message and place) is the exact path's; it answers for every
//! IAB sample and every truncation of one. Over the samples, their truncated and corrupted variants, hand-made
//! edge cases, random well-formed documents and random markup-like strings.

use std::path::{Path, PathBuf};

use bidscan_markup::vast::{self, VastInfo};
use proptest::prelude::*;

fn samples() -> Vec<(String, String)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../corpus/vast-samples");
    let table = std::fs::read_to_string(dir.join("EXPECTED.tsv")).expect("EXPECTED.tsv");
    let out: Vec<(String, String)> = table
        .lines()
        .map(|line| {
            let file = line.split('\t').next().unwrap().to_owned();
            let text = std::fs::read_to_string(Path::new(&dir).join(&file)).expect(&file);
            (file, text)
        })
        .collect();
    assert_eq!(out.len(), 75);
    out
}

/// The fast path's answer for `text`, checked against the exact path; `true` when it answered.
fn agrees(text: &str, what: &str) -> bool {
    let exact = vast::inspect_with_quick_xml(text);
    let Some(fast) = vast::scan(text) else {
        assert_eq!(
            vast::inspect(text),
            exact,
            "{what}: inspect is the exact path"
        );
        return false;
    };
    assert_eq!(fast, exact, "{what}");
    assert_eq!(vast::inspect(text), exact, "{what}: inspect");
    true
}

#[test]
fn every_sample_is_read_by_the_fast_path_exactly() {
    for (file, text) in samples() {
        assert!(agrees(&text, &file), "{file}: not read by the fast path");
    }
}

#[test]
fn truncations_and_corruptions_agree() {
    let mut checked = 0;
    for (file, text) in samples() {
        let end = text.trim_end().len();
        // Every 97th byte boundary and the last 40: both paths call every cut malformed, and the fast path
        // reports it itself unless the cut falls inside the XML declaration (left to quick-xml).
        let decl_end = if text.starts_with("<?") {
            text.find("?>").unwrap() + 2
        } else {
            0
        };
        let cuts = (0..end).step_by(97).chain(end.saturating_sub(40)..end);
        for cut in cuts.filter(|&c| text.is_char_boundary(c)) {
            let t = &text[..cut];
            let answered = agrees(t, &format!("{file} cut at {cut}"));
            assert!(answered || cut < decl_end, "{file} cut at {cut}");
            assert!(!vast::inspect(t).well_formed);
            checked += 1;
        }
        let root = if text.contains("<VAST") {
            "VAST"
        } else {
            "VideoAdServingTemplate"
        };
        // (after, from, to, the fast path answers itself)
        let corruptions: [(&str, &str, &str, bool); 13] = [
            ("<Ad", "</Ad>", "</Ax>", true),
            ("<Ad", "</Ad>", "</Ad x=\">\">", true),
            ("<Ad", ">", ">&nbsp;", true),
            ("<Ad", ">", "> & ", true),
            ("<Ad", ">", ">&#0;", true),
            ("<Ad", ">", ">&amp<", true),
            ("<Ad", "<Ad", "<Ad x=\"<\"", false),
            ("<Ad", "<Ad", "<Ad x=\"&bogus;\"", false),
            ("<Ad", "<Ad", "<Ad x=unquoted", false),
            ("<Ad", "<Ad", "<Ad x", false),
            ("<Ad", "<Ad", "<?xml version=\"1.0\"?><Ad", false),
            ("<Ad", "<Ad", "<!DOCTYPE x><Ad", false),
            ("<Ad", "<Ad", "</Ad><Ad", true),
        ];
        for (after, from, to, answered) in corruptions {
            let Some(start) = text.find(after) else {
                continue;
            };
            let at = start + text[start..].find(from).unwrap();
            let t = format!("{}{to}{}", &text[..at], &text[at + from.len()..]);
            let what = format!("{file}: {from} -> {to}");
            assert_eq!(agrees(&t, &what), answered, "{what}");
            assert!(!vast::inspect(&t).well_formed, "{what}");
            checked += 1;
        }
        for tail in [
            format!("<{root}/>"),
            "junk".to_owned(),
            "&amp;".to_owned(),
            "<![CDATA[x]]>".to_owned(),
            "</x>".to_owned(),
        ] {
            let t = format!("{text}{tail}");
            assert!(agrees(&t, &format!("{file} + {tail}")), "{file} + {tail}");
            assert!(!vast::inspect(&t).well_formed);
            checked += 1;
        }
        let close = format!("</{root}>");
        let cut = text.rfind(&close).unwrap();
        let t = format!("{}{}", &text[..cut], &text[cut + close.len()..]);
        assert!(agrees(&t, &format!("{file} unclosed")));
        assert!(!vast::inspect(&t).well_formed);
        // Well-formed variants the fast path must read the same way: a comment, a PI and a blank line after
        // the root, and the whole document after whitespace and a byte-order mark.
        for t in [
            format!("{text}\n<!-- served -->\n<?trace id=1?>\n"),
            format!(" \u{feff}\n{text}"),
        ] {
            assert!(agrees(&t, &format!("{file} variant")), "{file} variant");
        }
        checked += 3;
    }
    assert!(checked > 1000, "{checked}");
}

/// ` a0="0" a1="1" …`: `n` attributes with different names.
fn attributes(n: usize) -> String {
    (0..n).map(|k| format!(" a{k}=\"{k}\"")).collect()
}

#[test]
fn duplicate_attributes_are_not_well_formed() {
    // (markup, the attribute given twice, the start of its tag)
    for (m, name, tag) in [
        (
            "<VAST version=\"4.2\" version=\"4.1\"/>",
            "version",
            "<VAST",
        ),
        ("<VAST><a b='1' c='2' b='3'></a></VAST>", "b", "<a"),
        ("<VAST><a b='1' b='1'/></VAST>", "b", "<a"),
        (
            "<VAST><Ad><InLine><MediaFile delivery=\"progressive\" type=\"video/mp4\" width=\"1920\" \
             height=\"1080\" type=\"video/webm\"></MediaFile></InLine></Ad></VAST>",
            "type",
            "<MediaFile",
        ),
    ] {
        let info = vast::inspect(m);
        assert!(!info.well_formed, "{m}");
        let error = info.error.expect(m);
        assert_eq!(
            error.message,
            format!("duplicated attribute `{name}` (XML 1.0 §3.1, Unique Att Spec)"),
            "{m}"
        );
        let column = m.find(tag).expect(tag) + 1;
        assert_eq!((error.at.line, error.at.column), (1, column), "{m}");
    }
    for m in [
        "<VAST version=\"4.2\"><a ab=\"1\" a=\"2\" x:y='3' z:y='4'/></VAST>",
        &format!("<VAST><a{}/></VAST>", attributes(17)),
    ] {
        assert!(vast::inspect(m).well_formed, "{m}");
    }
}

#[test]
fn xml_rules_quick_xml_leaves_are_malformed() {
    for (m, message) in [
        (
            "<VAST><!-- a -- b --></VAST>",
            "`--` inside a comment (XML 1.0 §2.5)",
        ),
        (
            "<VAST><!-- a ---></VAST>",
            "`--` inside a comment (XML 1.0 §2.5)",
        ),
        ("<VAST>a]]>b</VAST>", "`]]>` in text (XML 1.0 §2.4)"),
        (
            "<VAST a=\"1\"b='2'/>",
            "no whitespace before an attribute (XML 1.0 §3.1)",
        ),
        (
            "<VAST><1x/></VAST>",
            "an element name that does not start with a letter, `_` or `:` (XML 1.0 §2.3)",
        ),
        (
            "<VAST><?XmL x?></VAST>",
            "processing instruction target `xml` is reserved (XML 1.0 §2.6)",
        ),
        (
            "<?xml encoding=\"UTF-8\"?><VAST/>",
            "XML declaration without a version first (XML 1.0 §2.8)",
        ),
    ] {
        let info = vast::inspect(m);
        assert_eq!(
            info.error.map(|e| e.message.into_owned()),
            Some(message.to_owned()),
            "{m}"
        );
    }
}

#[test]
fn edge_cases_agree() {
    let deep = format!(
        "<VAST version=\"4.2\">{}{}</VAST>",
        "<x>".repeat(40),
        "</x>".repeat(40)
    );
    // (markup, fast path expected to answer itself)
    let cases: Vec<(String, bool)> = vec![
        // Pieces of a captured text: references, CDATA, comments and blank pieces (skipped) in between.
        (
            "<VAST version='3.0'><Ad><Wrapper><Impression/><VASTAdTagURI> https://a/?x=1&amp;y=&#50;<!--c--> \
             <![CDATA[&z]]>  </VASTAdTagURI></Wrapper></Ad></VAST>"
                .into(),
            true,
        ),
        (
            "<VAST version=\"4.0\"><Ad><InLine><Impression>i</Impression><Creatives><Creative><Linear>\
             <Duration>00:00:<!-- -->1&#53;</Duration><MediaFiles><MediaFile>m</MediaFile></MediaFiles></Linear>\
             </Creative></Creatives></InLine></Ad></VAST>"
                .into(),
            true,
        ),
        // A reference that is whitespace is a blank piece, as quick-xml's walk reads it.
        (
            "<VAST version=\"4.0\"><Ad><Wrapper><Impression/><VASTAdTagURI>a&#32;b</VASTAdTagURI></Wrapper></Ad></VAST>"
                .into(),
            true,
        ),
        // Namespaces, whitespace in end tags, a prefixed version.
        (
            "<?xml version=\"1.0\"?>\n<v:VAST a=\"1\" b='2' v:version=\"4.1\" version = \"4.2\"><v:Ad ></v:Ad\n></v:VAST >"
                .into(),
            true,
        ),
        ("<VAST version=\"4.2\"><Ad id=\"a>b\" x='\"'/></VAST>".into(), true),
        // Attribute names: different ones (a prefix, another qualified name) are read; one given twice (XML
        // 1.0 §3.1, Unique Att Spec) is left to the exact path, in a short tag or a long one; more attributes
        // than the fast path keeps names for are read word by word, or left to the exact path.
        ("<VAST version=\"4.2\"><a ab=\"1\" a=\"2\" x:y='3' z:y='4'/></VAST>".into(), true),
        ("<VAST version=\"4.2\" version=\"4.1\"/>".into(), false),
        ("<VAST><a b='1' c='2' b='3'></a></VAST>".into(), false),
        (
            "<VAST><MediaFile delivery=\"progressive\" type=\"video/mp4\" width=\"1920\" height=\"1080\" \
             type=\"video/webm\"></MediaFile></VAST>"
                .into(),
            false,
        ),
        (format!("<VAST><a{}/></VAST>", attributes(9)), true),
        (format!("<VAST><a{}/></VAST>", attributes(16)), true),
        (format!("<VAST><a{}/></VAST>", attributes(17)), false),
        ("<VAST><![CDATA[]]></VAST>".into(), true),
        ("<VAST version=\"4.2\"><??><?pi?></VAST>".into(), true),
        ("<!----><VAST/><!-- a - b -->".into(), true),
        // XML 1.0 rules quick-xml does not check, left to the exact path: `--` in a
        // comment or `-` last (§2.5), `]]>` in text (§2.4), no whitespace between attributes (§3.1), a name
        // starting with a digit, `-` or `.` (§2.3), the reserved PI target `xml` in another case (§2.6), a
        // declaration without its version first (§2.8).
        ("<!----><VAST/><!-- a -- b -->".into(), false),
        ("<VAST><!-- a ---></VAST>".into(), false),
        ("<VAST>a]]>b</VAST>".into(), false),
        ("]]><VAST/>".into(), false),
        ("<VAST><Ad>x]]>".into(), false),
        ("<VAST a=\"1\"b='2'/>".into(), false),
        ("<VAST><MediaFile delivery=\"progressive\" type=\"video/mp4\" width=\"1920\"height=\"1080\"/></VAST>".into(), false),
        ("<VAST><1x/></VAST>".into(), false),
        ("<VAST><-x></-x></VAST>".into(), false),
        ("<VAST><.x/></VAST>".into(), false),
        ("<VAST><?XmL x?></VAST>".into(), false),
        ("<?xml encoding=\"UTF-8\"?><VAST/>".into(), false),
        ("<?xml ?><VAST/>".into(), false),
        ("<?xml version<x=\"1\"?><VAST/>".into(), false),
        // What they allow, read by the fast path.
        ("<VAST>a]]b>c]>]]</VAST>".into(), true),
        ("<VAST><_x/><:y/><é/><?xml-stylesheet x?><?xmlx?></VAST>".into(), true),
        ("<?xml version = '1.0' encoding=\"UTF-8\"?><VAST/>".into(), true),
        ("<NotVast version=\"9\"/>".into(), true),
        (deep.clone(), false),
        // Left to the exact path: DOCTYPE, unusual tag syntax, a declaration not at the start.
        ("<!DOCTYPE VAST><VAST/>".into(), false),
        ("<VAST a/>".into(), false),
        ("<VAST a=b/>".into(), false),
        ("<VAST/ >".into(), false),
        ("< VAST/>".into(), false),
        ("<>".into(), false),
        ("<></>".into(), false),
        ("<a=b></a=b>".into(), false),
        ("<VAST/><?xml version=\"1.0\"?>".into(), false),
        ("<VAST></VAST\u{c}>".into(), true),
        ("<VAST>&amp</VAST>".into(), true),
        ("<VAST><!-x--></VAST>".into(), true),
        ("<VAST><![CDATA]]></VAST>".into(), true),
        ("<VAST><?></VAST>".into(), false),
        ("<VAST></Ad></VAST>".into(), true),
        ("".into(), true),
        ("  ".into(), true),
        // Reported by the fast path as quick-xml reports them.
        ("<VAST><Ad></VAST>".into(), true),
        ("<VAST></  >".into(), true),
        ("</VAST>".into(), true),
        ("<VAST><Ad id=\"1".into(), true),
        ("<VAST><Ad id='1".into(), true),
        ("<VAST><".into(), true),
        ("<VAST><!-- x".into(), true),
        ("<VAST><![CDATA[x]]".into(), true),
        ("<![CDATA[x]]><VAST/>".into(), true),
        ("x<VAST/>".into(), true),
        ("&amp;<VAST/>".into(), true),
        ("<VAST/><VAST/>".into(), true),
        ("<VAST>&bogus;</VAST>".into(), true),
        ("<VAST><!".into(), true),
        ("<VAST><!x></VAST>".into(), true),
        ("<VAST><![CDA".into(), true),
        ("<VAST><!-".into(), true),
    ];
    for (m, answered) in cases {
        assert_eq!(agrees(&m, &m), answered, "{m:?}");
    }
    assert!(vast::inspect_with_quick_xml(&deep).well_formed);
}

/// A document of one inline `<Ad>` whose `<Linear>` holds a `<MediaFile>` with each of `attributes` (in
/// turn a leaf, an empty element and one with a CDATA section), with `<MediaFile>`s of other types in
/// `<Extensions>`, `<CreativeExtensions>` and a second `<Ad>`.
fn media_files(attributes: &[&str]) -> String {
    let files: String = attributes
        .iter()
        .enumerate()
        .map(|(k, a)| match k % 3 {
            0 => format!("<MediaFile{a}>https://m/{k}.mp4</MediaFile>\n"),
            1 => format!("<MediaFile{a}/>"),
            _ => format!("<v:MediaFile{a}><![CDATA[https://m/{k}]]></v:MediaFile>"),
        })
        .collect();
    format!(
        "<VAST version=\"4.2\"><Ad><InLine><Impression/><Extensions><Extension><MediaFile type=\"ext/1\"/>\
         </Extension></Extensions><Creatives><Creative><CreativeExtensions><MediaFile type=\"ext/2\">x</MediaFile>\
         </CreativeExtensions><Linear><Duration>00:00:15</Duration><MediaFiles>{files}</MediaFiles></Linear>\
         </Creative></Creatives></InLine></Ad><Ad><InLine><Impression/><Creatives><Creative><Linear>\
         <MediaFiles><MediaFile type=\"second/ad\">y</MediaFile></MediaFiles></Linear></Creative></Creatives>\
         </InLine></Ad></VAST>"
    )
}

#[test]
fn media_types_agree_and_are_the_first_ads() {
    // Media types: a reference, single quotes, whitespace, `xsi:type`, no type, a blank one, `type` after
    // other attributes, duplicates, more types than kept, a `type` with whitespace around `=` (the
    // word-by-word read), one with `<`, a bad reference, given twice or unquoted (the exact path); with
    // `<MediaFile>`s in `<Extensions>`, `<CreativeExtensions>` and a second `<Ad>` around them.
    let distinct = |n: usize| {
        (1..=n)
            .map(|k| format!(" type=\"a/{k}\""))
            .collect::<Vec<_>>()
    };
    let written = [
        " type=\"video/x&#45;flv\"",
        " type=' video/mp4 '",
        " type=\"video/mp4\"",
        " xsi:type=\"a/b\"",
        "",
        " type=\"\"",
        " type=\"&#32;\"",
        " type = \"video/webm\"",
        " type=\"video&#x2F;ogg\" id='1'",
        " id='2' type=\"&lt;&amp;&gt;&apos;&quot;\"",
        " id='3' type=\"video/3gpp\" w=\"1\"",
        " type=\"video/MP4\"",
    ];
    // (the `<MediaFile>`s' attributes, the fast path answers itself)
    let cases: Vec<(Vec<String>, bool)> = vec![
        (written.map(String::from).to_vec(), true),
        (distinct(4), true),
        ([distinct(4), distinct(2)].concat(), true),
        (distinct(6), true),
        (vec![" type=\"a<b\"".into()], false),
        (vec![" type=\"a&bogus;\"".into()], false),
        (vec![" type=\"a/1\" type=\"a/2\"".into()], false),
        (vec![" type=a/1".into()], false),
    ];
    for (attributes, answered) in cases {
        let attributes: Vec<&str> = attributes.iter().map(String::as_str).collect();
        let m = media_files(&attributes);
        assert_eq!(agrees(&m, &m), answered, "{m}");
    }

    let m = media_files(&[
        " type=\"video/x&#45;flv\"",
        " type=' video/mp4 '",
        " type=\"video/mp4\"",
        " xsi:type=\"a/b\"",
        "",
        " type=\"&#32;\"",
        " type = \"video/webm\"",
        " type=\"video/MP4\"",
    ]);
    assert!(agrees(&m, "media types"), "not read by the fast path");
    let info = vast::inspect(&m);
    assert!(info.well_formed, "{:?}", info.error);
    assert_eq!(info.media_files, 8);
    let types = &info.media_types;
    assert_eq!(
        types.iter().collect::<Vec<_>>(),
        ["video/x-flv", "video/mp4", "video/webm", "video/MP4"]
    );
    assert_eq!((types.more(), types.untyped()), (false, 3));
    let m = media_files(&[
        " type=\"a/1\"",
        " type=\"a/2\"",
        " type=\"a/1\"",
        " type=\"a/3\"",
        " type=\"a/4\"",
        " type=\"a/5\"",
    ]);
    assert!(agrees(&m, "more types"), "not read by the fast path");
    let info = vast::inspect(&m);
    assert_eq!(
        info.media_types.iter().collect::<Vec<_>>(),
        ["a/1", "a/2", "a/3", "a/4"]
    );
    assert!(info.media_types.more());
    assert_eq!(info.media_types.untyped(), 0);
}

/// A random element tree of VAST names with attributes, text, references, CDATA, comments and PIs: well-formed
/// by construction (the values and texts never hold `<`, and references are valid).
fn element(depth: u32) -> BoxedStrategy<String> {
    let name = prop_oneof![
        Just("Ad"),
        Just("InLine"),
        Just("Wrapper"),
        Just("Impression"),
        Just("Error"),
        Just("Linear"),
        Just("Duration"),
        Just("MediaFile"),
        Just("VASTAdTagURI"),
        Just("Creative"),
        Just("Extensions"),
        Just("CreativeExtensions"),
        Just("v:MediaFile"),
        Just("v:Ad"),
        Just("x"),
    ];
    let text = prop_oneof![
        Just(String::new()),
        Just(" ".to_owned()),
        Just("\n  ".to_owned()),
        Just("00:00:30".to_owned()),
        Just(" 00:01:05.5 ".to_owned()),
        Just("https://t/?a=1&amp;b=2".to_owned()),
        Just("&#x20;".to_owned()),
        Just("<![CDATA[https://m/1.mp4?a&b]]>".to_owned()),
        Just("<!-- note -->".to_owned()),
        Just("<?pi data?>".to_owned()),
        "[a-z0-9:. ]{0,8}",
    ];
    let attr = prop_oneof![
        Just(String::new()),
        Just(" id=\"1\"".to_owned()),
        Just(" type='video/mp4'".to_owned()),
        Just(" version=\"4.2\"".to_owned()),
        Just(" u=\"a&amp;b\"".to_owned()),
        Just(" x = \"a>b\" ".to_owned()),
        // `<MediaFile>` types: five distinct ones (more than kept), written with references, quotes and
        // whitespace; blank; prefixed.
        (0..5u8).prop_map(|k| format!(" type=\"video/t{k}\"")),
        Just(" type=' video/t1\t'".to_owned()),
        Just(" id='m' type=\"video&#x2F;t2\"".to_owned()),
        Just(" id=\"m\" type='video/t3' w=\"1\"".to_owned()),
        Just(" type = \"video/t3;codecs=&quot;a&quot;\"".to_owned()),
        Just(" type=\"&#32;\"".to_owned()),
        Just(" xsi:type=\"video/t4\"".to_owned()),
    ];
    let leaf = (name.clone(), attr.clone(), text.clone()).prop_map(|(n, a, t)| {
        if t.is_empty() {
            format!("<{n}{a}/>")
        } else {
            format!("<{n}{a}>{t}</{n}>")
        }
    });
    if depth == 0 {
        return leaf.boxed();
    }
    let children = proptest::collection::vec((element(depth - 1), text), 0..4);
    prop_oneof![
        leaf,
        (name, attr, children).prop_map(|(n, a, kids)| {
            let inner: String = kids.into_iter().map(|(k, t)| k + &t).collect();
            format!("<{n}{a}>{inner}</{n}>")
        })
    ]
    .boxed()
}

fn document() -> impl Strategy<Value = String> {
    (
        prop_oneof![
            Just(""),
            Just("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
        ],
        prop_oneof![Just("4.2"), Just("3.0"), Just("9")],
        proptest::collection::vec(element(4), 0..4),
        prop_oneof![Just(""), Just("\n"), Just("<!-- end -->")],
    )
        .prop_map(|(decl, version, ads, tail)| {
            format!(
                "{decl}<VAST version=\"{version}\">{}</VAST>{tail}",
                ads.concat()
            )
        })
}

/// Strings made of what the tokenizers care about.
fn markupish() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![
            Just("<"),
            Just(">"),
            Just("</"),
            Just("/>"),
            Just("&"),
            Just(";"),
            Just("&amp;"),
            Just("\""),
            Just("'"),
            Just("="),
            Just(" "),
            Just("<![CDATA["),
            Just("]]>"),
            Just("<!--"),
            Just("-->"),
            Just("<?"),
            Just("?>"),
            Just("<?xml ?>"),
            Just("<!DOCTYPE"),
            Just("<VAST>"),
            Just("</VAST>"),
            Just("<Ad>"),
            Just("</Ad>"),
            Just("<Duration>"),
            Just("</Duration>"),
            Just("Linear"),
            Just("version"),
            Just(" a='1'"),
            Just(" a=\"2\""),
            Just("\u{feff}"),
            Just("\n"),
            Just("x"),
            Just(":"),
        ],
        0..40,
    )
    .prop_map(|parts| parts.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn random_well_formed_documents_are_read_by_the_fast_path_exactly(doc in document()) {
        let exact = vast::inspect_with_quick_xml(&doc);
        prop_assert!(exact.well_formed, "{doc}: {:?}", exact.error);
        let fast = vast::scan(&doc);
        prop_assert_eq!(fast.as_ref(), Some(&exact), "{}", doc);
    }

    #[test]
    fn random_documents_cut_or_spliced_agree(doc in document(), cut in 0usize..2000, insert in markupish()) {
        let cut = (0..=cut.min(doc.len())).rev().find(|&c| doc.is_char_boundary(c)).unwrap();
        agrees(&doc[..cut], "cut");
        agrees(&format!("{}{insert}{}", &doc[..cut], &doc[cut..]), "spliced");
    }

    #[test]
    fn markup_like_strings_agree(text in markupish()) {
        agrees(&text, "markupish");
        agrees(&format!("<VAST>{text}</VAST>"), "in a root");
    }
}

#[test]
fn the_fast_path_info_is_the_exact_one_field_by_field() {
    // A guard on the comparison itself: `VastInfo` equality covers every field, warnings included.
    let a = vast::inspect_with_quick_xml("<VAST version=\"5\"><Ad><Wrapper/></Ad></VAST>");
    let b = VastInfo {
        ads: a.ads + 1,
        ..a.clone()
    };
    assert_ne!(a, b);
    assert!(!a.warnings.is_empty());
    assert_eq!(
        vast::scan("<VAST version=\"5\"><Ad><Wrapper/></Ad></VAST>"),
        Some(a)
    );
    // Media types and their untyped count take part too.
    let typed = |t: &str| {
        let m = format!(
            "<VAST version=\"4.2\"><Ad><InLine><Linear><MediaFile{t}/></Linear></InLine></Ad></VAST>"
        );
        vast::inspect(&m).media_types.into_owned()
    };
    assert_ne!(typed(" type=\"video/mp4\""), typed(" type=\"video/webm\""));
    assert_ne!(typed(""), typed(" type=\"video/mp4\""));
    // A missing and a blank type are both untyped, which the count tells from no `<MediaFile>`.
    assert_eq!(typed(""), typed(" type=\"\""));
    assert_ne!(typed(""), vast::MediaTypes::default());
}

/// `len` bytes cycling through `decoys` (never the end of the construct they go in).
fn filler(len: usize, decoys: &str) -> String {
    decoys.chars().cycle().take(len).collect()
}

#[test]
fn long_sections_and_large_documents_agree() {
    // CDATA sections and comments of 0 to ~1,400 bytes (every step and tail of the search for their end), with
    // `>`, `]>`, `]]x` and `->` decoys inside, in a document of ~110 KB (the size of the corpus's largest VAST,
    // where the IAB samples are a few KB): read by the fast path exactly, whole and cut at many places (inside
    // sections among them).
    let mut doc = String::from(
        "<VAST version=\"4.2\"><Ad><InLine><Impression><![CDATA[https://i/]]></Impression><Creatives>\
         <Creative><Linear><Duration>00:00:30</Duration><TrackingEvents>",
    );
    for len in (0..1400).step_by(13) {
        let cdata = filler(len, "https://t.example/?a=1>]>]]x]&b=<c>");
        let comment = filler(len % 701, "a->b-c>d").replace("--", "-e");
        let comment = comment.strip_suffix('-').unwrap_or(&comment).to_owned();
        doc.push_str(&format!(
            "<Tracking event=\"start\"><![CDATA[{cdata}]]></Tracking><!--{comment}-->"
        ));
    }
    doc.push_str(
        "</TrackingEvents><MediaFiles><MediaFile>m</MediaFile></MediaFiles></Linear></Creative></Creatives>\
         </InLine></Ad></VAST>",
    );
    assert!(doc.len() > 100_000, "{}", doc.len());
    assert!(agrees(&doc, "long sections"), "not read by the fast path");
    let whole = vast::scan(&doc).expect("read");
    assert!(whole.well_formed, "{:?}", whole.error);
    assert_eq!(whole.media_files, 1);
    assert_eq!(whole.duration_secs, Some(30.0));
    let mut cuts = 0;
    for cut in (0..doc.len()).step_by(331) {
        let reported = agrees(&doc[..cut], "cut");
        let info = vast::inspect(&doc[..cut]);
        assert!(!info.well_formed, "cut at {cut}");
        cuts += usize::from(reported);
    }
    // Every cut inside the root is a truncation the fast path reports itself.
    assert!(cuts >= doc.len() / 331 - 1, "{cuts}");
}

#[test]
fn long_start_tags_agree_at_every_window_boundary() {
    // Start tags of 40 to ~450 bytes (past the 32- and 64-byte windows of the masked read, into the word-by-word
    // read), their attributes shifted a byte at a time so that every part of an attribute, `/>` and `>` fall
    // on every 32-byte boundary: well-formed ones are read by the fast path exactly, the root's `version` among
    // them when it comes late; broken ones agree with the exact path.
    let mut read = 0;
    for pad in 0..140 {
        let x = "x".repeat(pad);
        let attrs = format!(
            " delivery=\"progressive\" a{x}=\"{x}\" type='video/mp4' width=\"1920\" height=\"1080\" \
             bitrate=\"{pad}\" id=\"m-{x}\""
        );
        let docs = [
            format!(
                "<VAST xmlns=\"http://www.iab.com/VAST\" a=\"{x}\" version=\"4.{}\" b=\"{x}\" c=\"{x}\">\
                 <Ad><InLine><Impression/>\
                 <Creatives><Creative><Linear><Duration>00:00:15</Duration><MediaFiles>\
                 <MediaFile{attrs}>m</MediaFile><MediaFile{attrs}/></MediaFiles></Linear></Creative>\
                 </Creatives></InLine></Ad></VAST>",
                pad % 3
            ),
            // Two spaces, `<` or `&` in a value, an unquoted value, a name without a value, a truncation: past
            // the first windows.
            format!("<VAST version=\"4.2\"><Ad{attrs}  z=\"1\"></Ad></VAST>"),
            format!("<VAST version=\"4.2\"><Ad{attrs} z=\"a<b\"></Ad></VAST>"),
            format!("<VAST version=\"4.2\"><Ad{attrs} z=\"a&amp;b\"></Ad></VAST>"),
            format!("<VAST version=\"4.2\"><Ad{attrs} z=1></Ad></VAST>"),
            format!("<VAST version=\"4.2\"><Ad{attrs} z></Ad></VAST>"),
            format!("<VAST version=\"4.2\"><Ad{attrs} z=\"1\""),
            format!("<VAST version=\"4.2\"><Ad{attrs}/ ></Ad></VAST>"),
        ];
        for (k, doc) in docs.iter().enumerate() {
            let answered = agrees(doc, &format!("pad {pad} doc {k}"));
            if k == 0 {
                assert!(answered, "pad {pad}: not read by the fast path");
                let info = vast::scan(doc).expect("read");
                assert!(info.well_formed, "pad {pad}: {:?}", info.error);
                assert_eq!(info.version, Some(format!("4.{}", pad % 3).as_str()));
                assert_eq!(info.media_files, 2, "pad {pad}");
                let types: Vec<&str> = info.media_types.iter().collect();
                assert_eq!(types, ["video/mp4"], "pad {pad}");
                read += 1;
            }
        }
    }
    assert_eq!(read, 140);
}
