use std::fs;

use super::*;
use crate::model::steps::{FillValue, StepKind};

const CHECKOUT: &str = r#"id: checkout-as-demo-user        # default: path under scenarios/
task: Buy one Rust mug as the demo user and confirm the order.
start_url: /
account: demo
hints: ["The cart is in the header"]
steps:
  - go to /products
  - click "Add to cart" in "Rust mug"
  - fill "Email" with account.email
  - expect text "Thank you for your order"
expect:
  - text "Thank you for your order"
  - url /orders/*
tags: [smoke]
"#;

fn root() -> &'static Path {
    Path::new("scenarios")
}

fn parse_at(text: &str, file: &str) -> Result<Scenario, ScenarioError> {
    parse(text, &root().join(file), root())
}

fn error(text: &str) -> ScenarioError {
    parse_at(text, "checkout.yaml").expect_err("the scenario should be rejected")
}

#[test]
fn parses_the_design_example() {
    let scenario = parse_at(CHECKOUT, "checkout.yaml").unwrap();
    assert_eq!(scenario.id, "checkout-as-demo-user");
    assert_eq!(
        scenario.task,
        "Buy one Rust mug as the demo user and confirm the order."
    );
    assert_eq!(scenario.start_url, "/");
    assert_eq!(scenario.account.as_deref(), Some("demo"));
    assert_eq!(scenario.hints, ["The cart is in the header"]);
    assert_eq!(scenario.tags, ["smoke"]);
    assert_eq!(scenario.path, Path::new("scenarios/checkout.yaml"));
    let lines: Vec<usize> = scenario.steps.iter().map(|s| s.line).collect();
    assert_eq!(lines, [7, 8, 9, 10]);
    assert_eq!(
        scenario.steps[1].kind,
        StepKind::Click {
            name: "Add to cart".to_owned(),
            within: Some("Rust mug".to_owned()),
        }
    );
    assert_eq!(
        scenario.steps[1].text,
        r#"click "Add to cart" in "Rust mug""#
    );
    assert_eq!(
        scenario.steps[2].kind,
        StepKind::Fill {
            field: "Email".to_owned(),
            within: None,
            value: FillValue::Account("email".to_owned()),
        }
    );
    assert_eq!(
        scenario.expect,
        [
            ScenarioExpectation {
                expectation: Expectation::Text("Thank you for your order".to_owned()),
                text: r#"text "Thank you for your order""#.to_owned(),
                line: 12,
            },
            ScenarioExpectation {
                expectation: Expectation::Url("/orders/*".to_owned()),
                text: "url /orders/*".to_owned(),
                line: 13,
            },
        ]
    );
    assert_eq!(scenario.hash.len(), 64);
    assert!(
        scenario
            .hash
            .chars()
            .all(|c| c.is_ascii_digit() || ('a'..='f').contains(&c))
    );
}

#[test]
fn minimal_scenario_gets_defaults() {
    let scenario = parse_at("task: Browse the shop\n", "browse.yaml").unwrap();
    assert_eq!(scenario.id, "browse");
    assert_eq!(scenario.start_url, "/");
    assert_eq!(scenario.account, None);
    assert!(scenario.hints.is_empty() && scenario.steps.is_empty());
    assert!(scenario.expect.is_empty() && scenario.tags.is_empty());
    // Empty lists are fine too.
    let scenario = parse_at("task: Browse\nsteps:\nexpect: []\n", "browse.yaml").unwrap();
    assert!(scenario.steps.is_empty() && scenario.expect.is_empty());
}

#[test]
fn default_ids_come_from_the_path_under_the_root() {
    let cases = [
        ("scenarios/checkout.yaml", "scenarios", "checkout"),
        ("scenarios/shop/checkout.yml", "scenarios", "shop/checkout"),
        ("./scenarios/shop/a/b.yaml", "scenarios", "shop/a/b"),
        ("/p/scenarios/x.y.yaml", "/p/scenarios", "x.y"),
        ("elsewhere/other.yaml", "scenarios", "other"),
    ];
    for (path, root, id) in cases {
        assert_eq!(default_id(Path::new(path), Path::new(root)), id, "{path}");
        let scenario = parse("task: T\n", Path::new(path), Path::new(root)).unwrap();
        assert_eq!(scenario.id, id);
    }
}

#[test]
fn hash_follows_the_text() {
    let a = parse_at("task: Browse\n", "a.yaml").unwrap();
    let same = parse_at("task: Browse\n", "b.yaml").unwrap();
    let edited = parse_at("task: Browse \n", "a.yaml").unwrap();
    assert_eq!(a.hash, same.hash);
    assert_ne!(a.hash, edited.hash);
    // SHA-256 of "task: Browse\n", computed independently.
    assert_eq!(a.hash, sha256_hex(b"task: Browse\n"));
    assert_eq!(
        sha256_hex(b""),
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    );
}

#[test]
fn load_reads_the_file_and_hashes_its_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("scenarios");
    fs::create_dir_all(root.join("shop")).unwrap();
    let path = root.join("shop/cart.yaml");
    fs::write(&path, "task: Fill the cart\nsteps:\n  - go to /cart\n").unwrap();
    let scenario = load(&path, &root).unwrap();
    assert_eq!(scenario.id, "shop/cart");
    assert_eq!(scenario.path, path);
    assert_eq!(scenario.steps[0].line, 3);
    let before = scenario.hash;
    fs::write(&path, "task: Fill the cart\nsteps:\n  - go to /carts\n").unwrap();
    assert_ne!(load(&path, &root).unwrap().hash, before);

    let missing = load(&root.join("missing.yaml"), &root).unwrap_err();
    assert_eq!((missing.line, missing.column), (0, 0));
    assert!(
        missing.message.starts_with("cannot read the scenario"),
        "{missing}"
    );
    fs::write(root.join("bin.yaml"), b"task: \xff\n").unwrap();
    let binary = load(&root.join("bin.yaml"), &root).unwrap_err();
    assert!(binary.message.contains("not UTF-8"), "{binary}");
    assert_eq!((binary.line, binary.column), (1, 7), "{binary}");
}

fn bytes_error(bytes: &[u8]) -> ScenarioError {
    parse_bytes(bytes, &root().join("checkout.yaml"), root()).expect_err("rejected")
}

#[test]
fn invalid_utf8_names_the_first_bad_byte() {
    let err = bytes_error(b"task: Buy\nsteps:\n  - click \"Gr\xc3\xb6\xdfe\"\n");
    assert_eq!((err.line, err.column), (3, 15), "{err}");
    assert_eq!(
        err.message,
        "the scenario is not UTF-8 text: byte 0xDF is not valid UTF-8"
    );
    insta::assert_snapshot!("not_utf8", err.to_string());
    let err = bytes_error(b"task: \xed\xa0\x80\n");
    assert_eq!((err.line, err.column), (1, 7), "{err}");
    let err = bytes_error(b"task: Buy\r\nid: x\xe2\x82");
    assert_eq!((err.line, err.column), (2, 6), "{err}");
    assert!(
        err.message
            .ends_with("the file ends inside a character (0xE2 0x82)"),
        "{err}"
    );
}

#[test]
fn yaml_errors_are_located_in_characters_and_lines_ended_by_newlines() {
    let cases: &[(&str, (usize, usize), &str)] = &[
        // libyaml's reader gives a byte offset only (22 here), after `€` and `ü`.
        (
            "task: Kaufe für 5 €\u{7f}\n",
            (1, 20),
            "control characters are not allowed",
        ),
        (
            "task: T\nsteps:\n  - click \"x\u{1}\"\n",
            (3, 13),
            "control characters",
        ),
        // At the end of a file without a final line break: the end of its last line.
        (
            "task: T\nsteps:\n  - go to /\n  s",
            (4, 4),
            "could not find expected ':'",
        ),
        // YAML ends a line at NEL; editors and these positions do not.
        ("# note\u{85}more\ntask: T\n", (1, 8), "a mapping of keys"),
        ("\u{feff}task: [T\n", (1, 7), "invalid type: sequence"),
    ];
    for (text, at, message) in cases {
        let err = error(text);
        assert_eq!((err.line, err.column), *at, "{text:?}: {err}");
        assert!(err.message.contains(message), "{text:?}: {err}");
    }
}

#[test]
fn a_second_document_is_located_at_its_start() {
    let err = error("task: T\n# more\n---\ntask: U\n");
    assert_eq!((err.line, err.column), (3, 1), "{err}");
    insta::assert_snapshot!("second_document", err.to_string());
    let err = error("task: T\n...\n---\ntask: U\n");
    assert_eq!((err.line, err.column), (3, 1), "{err}");
    // serde_yaml calls these a second document; they are syntax errors: content after `...`
    // without `---`, an over-indented first key.
    for (text, line) in [
        ("task: T\n...\n\ntask: U\n", 4),
        ("  task: T\nsteps:\n  - go to /\n", 2),
    ] {
        let err = error(text);
        assert_eq!((err.line, err.column), (line, 1), "{err}");
        assert_eq!(
            err.message,
            "invalid YAML: did not find expected <document start>"
        );
    }
}

#[test]
fn keys_are_found_however_they_are_written() {
    // serde_yaml puts a duplicate key at the mapping's start; a quoted one too.
    let err = error("task: T\nid: ok\n\"task\": U\n");
    assert_eq!((err.line, err.column), (3, 1), "{err}");
    assert_eq!(err.message, "`task` appears more than once");
    let err = error("{task: T, id: -bad}\n");
    assert_eq!((err.line, err.column), (1, 15), "{err}");
    let err = error("'task': T\n\"start_url\" : shop\n");
    assert_eq!((err.line, err.column), (2, 15), "{err}");
    // `task:` without a value is there, and empty.
    let err = error("id: x\nsteps:\n  - go to /\ntask:\n");
    assert_eq!((err.line, err.column), (4, 6), "{err}");
    assert_eq!(err.message, "`task` is empty");
    let err = error("task: T\ntags: [smoke,\n  two words]\n");
    assert_eq!((err.line, err.column), (3, 3), "{err}");
}

#[test]
fn items_are_located_through_quotes_escapes_and_flow_lists() {
    let err = error("task: T\nexpect: [\"text \\\"Mug\\\"\", \"txt \\\"Done\\\"\"]\n");
    assert_eq!((err.line, err.column), (2, 27), "{err}");
    let err = error("task: T\nsteps:\n  - 'click \"it''s\" nw'\n");
    assert_eq!((err.line, err.column), (3, 20), "{err}");
    let err = error("task: T\nsteps:\n  - \"click \\u00e9 \\\"x\\\" nw\"\n");
    // `é` is written `\u00e9`, from column 12.
    assert_eq!((err.line, err.column), (3, 12), "{err}");
    let err = error("task: T\nsteps:\n  - \"click \\\"\\u00e9\\\" nw\"\n");
    assert_eq!((err.line, err.column), (3, 23), "{err}");
    let err = error("task: T\nsteps: [\"go to /\",\n  \"tap x\"]\n");
    assert_eq!((err.line, err.column), (3, 4), "{err}");
    let ok = parse_at("task: T\nsteps: [\"go to /\",\n  press Enter]\n", "a.yaml").unwrap();
    assert_eq!(ok.steps[1].line, 3);
    // An anchored list is a layout the scan does not read; the parser finds the item.
    let err = error("task: T\nsteps: &all\n  - go to /\n  - tap x\n");
    assert_eq!((err.line, err.column), (4, 5), "{err}");
}

#[test]
fn discover_recurses_sorts_and_skips_fragments_and_hidden() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for file in [
        "b.yaml",
        "a.yml",
        "shop/z.yaml",
        "shop/deep/c.yaml",
        "shop/fragments/kept.yaml",
        "fragments/login.yaml",
        ".hidden/x.yaml",
        "shop/.cache/y.yaml",
        ".dot.yaml",
        "notes.txt",
        "plan.json",
        "shop/checkout.plan.json",
    ] {
        let path = root.join(file);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, "task: T\n").unwrap();
    }
    let found: Vec<String> = discover(root)
        .unwrap()
        .iter()
        .map(|p| {
            p.strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/")
        })
        .collect();
    assert_eq!(
        found,
        [
            "a.yml",
            "b.yaml",
            "shop/deep/c.yaml",
            "shop/fragments/kept.yaml",
            "shop/z.yaml"
        ]
    );
    assert!(discover(&root.join("absent")).is_err());
}

#[test]
fn malformed_yaml_is_located() {
    let err = error("task: Buy a mug\nsteps:\n  - go to /\n bad: [\n");
    assert_eq!((err.line, err.column), (4, 2), "{err}");
    insta::assert_snapshot!("malformed_yaml", err.to_string());
}

#[test]
fn unknown_key_names_the_closest() {
    let err = error("task: Buy a mug\nstpes:\n  - go to /\n");
    assert_eq!((err.line, err.column), (2, 1), "{err}");
    assert!(err.hint.contains("did you mean `steps`?"), "{err}");
    insta::assert_snapshot!("unknown_key", err.to_string());
}

#[test]
fn unknown_step_verb_is_located_in_its_item() {
    let text = "task: Buy a mug\nstart_url: /\nsteps:\n  - go to /products\n\n  # then buy\n  -   tap \"Buy\"\n";
    let err = error(text);
    assert_eq!((err.line, err.column), (7, 7), "{err}");
    insta::assert_snapshot!("unknown_step_verb", err.to_string());
}

#[test]
fn unterminated_quote_points_at_the_opening_quote() {
    let err = error("task: Buy\nsteps:\n- go to /\n- click \"Add to cart\" in \"Mug\n");
    assert_eq!((err.line, err.column), (4, 26), "{err}");
    insta::assert_snapshot!("unterminated_quote", err.to_string());
}

#[test]
fn fill_without_with() {
    let err = error("task: Sign up\nsteps:\n  - fill \"Email\" \"ada@example.com\"\n");
    assert_eq!((err.line, err.column), (3, 18), "{err}");
    insta::assert_snapshot!("fill_without_with", err.to_string());
}

#[test]
fn account_value_needs_an_account() {
    let err =
        error("task: Sign in\nsteps:\n  - go to /login\n  - fill \"Email\" with account.email\n");
    assert_eq!((err.line, err.column), (4, 23), "{err}");
    insta::assert_snapshot!("account_without_account", err.to_string());
}

#[test]
fn unknown_press_key() {
    let err = error("task: Search\nsteps:\n  - fill \"Search\" with \"mug\"\n  - press Return\n");
    assert_eq!((err.line, err.column), (4, 11), "{err}");
    insta::assert_snapshot!("unknown_press_key", err.to_string());
}

#[test]
fn empty_file() {
    for text in ["", "\n\n", "# only a comment\n", "---\n"] {
        let err = error(text);
        assert_eq!((err.line, err.column), (1, 1));
        assert_eq!(err.message, "the scenario is empty");
    }
    insta::assert_snapshot!("empty_file", error("").to_string());
}

#[test]
fn bad_expectation_is_located_in_the_expect_list() {
    let err = error("task: T\nexpect:\n  - text \"Done\"\n  - txt \"Done\"\n");
    assert_eq!((err.line, err.column), (4, 5), "{err}");
    assert_eq!(err.message, "unknown expectation `txt` in `txt \"Done\"`");
    assert!(err.hint.contains("did you mean `text`?"), "{err}");
}

#[test]
fn quoted_items_and_flow_lists_are_located() {
    // A single-quoted YAML item: the column skips the quote.
    let err = error("task: T\nsteps:\n  - 'click \"Total: 5\" nw'\n");
    assert_eq!((err.line, err.column), (3, 23), "{err}");
    // A flow list: the item itself.
    let err = error("task: T\nsteps: [\"go to /\", \"tap x\"]\n");
    assert_eq!((err.line, err.column), (2, 21), "{err}");
    assert!(
        err.message.starts_with("unknown step verb \"tap\""),
        "{err}"
    );
    let ok = parse_at("task: T\nsteps: [\"go to /\", \"press Enter\"]\n", "a.yaml").unwrap();
    assert_eq!(ok.steps[1].line, 2);
}

#[test]
fn schema_errors_are_located_with_hints() {
    // An unquoted `: ` makes a step a mapping.
    let err = error("task: T\nsteps:\n  - expect text \"Total: 5\"\n");
    assert_eq!((err.line, err.column), (3, 5), "{err}");
    assert!(err.hint.contains("wrap it in single quotes"), "{err}");
    let err = error("task: T\nsteps: go to /\n");
    assert_eq!((err.line, err.column), (2, 8), "{err}");
    assert!(
        err.message.starts_with("`steps`: invalid type: string"),
        "{err}"
    );
    let err = error("task: T\ntask: U\n");
    assert_eq!((err.line, err.column), (2, 1), "{err}");
    assert_eq!(err.message, "`task` appears more than once");
    let err = error("- task: T\n");
    assert!(err.message.contains("mapping of keys"), "{err}");
}

#[test]
fn value_checks() {
    let cases = [
        ("steps:\n  - go to /\n", 1, 1, "missing `task`"),
        ("task: \"  \"\n", 1, 7, "`task` is empty"),
        (
            "task: T\nstart_url: https://shop.example/\n",
            2,
            12,
            "`start_url` must be a path starting with \"/\", found \"https://shop.example/\"",
        ),
        ("task: T\nid: -bad\n", 2, 5, "invalid id \"-bad\""),
        ("task: T\nid: has space\n", 2, 5, "invalid id \"has space\""),
        (
            "task: T\naccount: a b\n",
            2,
            10,
            "invalid account name \"a b\"",
        ),
        (
            "task: T\ntags:\n  - smoke\n  - \"two words\"\n",
            4,
            5,
            "invalid tag \"two words\"",
        ),
        ("task: T\nsteps:\n  -\n", 3, 4, "empty step"),
    ];
    for (text, line, column, message) in cases {
        let err = error(text);
        assert_eq!(err.message, message, "{text:?}");
        assert_eq!((err.line, err.column), (line, column), "{text:?}: {err}");
        assert!(!err.hint.is_empty(), "{text:?}");
    }
    let err = parse("task: T\n", Path::new("s/bad name.yaml"), Path::new("s")).unwrap_err();
    assert_eq!((err.line, err.column), (0, 0));
    assert_eq!(
        err.to_string(),
        format!(
            "s/bad name.yaml: the file name gives the invalid id \"bad name\"\n  hint: set `id:` in the file or rename it; {ID_RULE}"
        )
    );
    // Ids may use `/`, `.` and `-` after the first character.
    let ok = parse_at("task: T\nid: shop/v1.2-checkout_x\n", "a.yaml").unwrap();
    assert_eq!(ok.id, "shop/v1.2-checkout_x");
    assert!(is_valid_id(&"a".repeat(128)) && !is_valid_id(&"a".repeat(129)));
}

#[test]
fn strips_serde_yaml_locations() {
    assert_eq!(
        strip_locations(
            "did not find expected key at line 3 column 1, while parsing a block mapping at line 1 column 1"
        ),
        "did not find expected key, while parsing a block mapping"
    );
    assert_eq!(strip_locations("at line x"), "at line x");
    assert_eq!(
        strip_locations("control characters are not allowed at position 273"),
        "control characters are not allowed"
    );
    assert_eq!(strip_locations("seen at position x"), "seen at position x");
}

/// Valid scenarios the mutation test starts from: comments, quoted items, flow lists, CRLF
/// line ends and characters wider than a byte.
const MUTATION_BASES: &[&str] = &[
    CHECKOUT,
    "# Quoted items, a flow list and a commented item.\nid: 'shop/quoted'\ntask: \"Find the mug: the blue one\"\nstart_url: /search\naccount: demo\nhints:\n  - The search box is in the header\nsteps:\n  - fill \"Search\" with account.query\n  - 'click \"Result: Rust mug\"'\n  - press Enter\n  -   hover \"Rust mug\"   # the first result\nexpect: [\"text \\\"Rust mug\\\"\", url /products/*]\ntags:\n  - smoke\n  - search\n",
    "task: Log in\r\nsteps:\r\n  - go to /login\r\n  - fill \"Email\" with \"ada@example.com\"\r\n  - click \"Log in\"\r\nexpect:\r\n  - text \"Signed in\"\r\n",
    "task: Kaufe eine Tasse für 5 €\nstart_url: /größen\nsteps:\n  - click \"Größe\" in \"Übersicht\"\n  - select \"Grün\" in \"Farbe\"\n  - expect text \"Bestätigt ✓\"\nexpect:\n  - text \"Danke schön\"\ntags: [größe, 品質]\n",
];

/// A xorshift generator: the mutation test is the same on every run.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n.max(1) as u64) as usize
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
}

/// How many kinds of change [`mutate`] makes.
const MUTATIONS: usize = 12;

/// Invalid UTF-8: a stray byte, a lone lead byte, a cut sequence, a surrogate, an overlong
/// encoding, past U+10FFFF.
const INVALID_UTF8: &[&[u8]] = &[
    b"\xff",
    b"\x80",
    b"\xc3",
    b"\xe2\x82",
    b"\xed\xa0\x80",
    b"\xc0\xaf",
    b"\xf4\x90\x80\x80",
];
/// Characters libyaml's reader refuses, which it reports with a byte offset only.
const CONTROL: &[&[u8]] = &[
    b"\x01",
    b"\x00",
    b"\x7f",
    b"\x1b",
    b"\xc2\x80",
    b"\xef\xbf\xbe",
];
/// Line breaks YAML knows and `\n`-counting does not, and a byte-order mark.
const ODD_BREAKS: &[&[u8]] = &[b"\r", b"\xc2\x85", b"\xe2\x80\xa8", b"\xef\xbb\xbf"];
const QUOTES: &[&[u8]] = &[b"\"", b"'"];
const COLONS: &[&[u8]] = &[b":", b": ", b" : "];
const STRUCTURE: &[&[u8]] = &[
    b"[", b"{", b"]", b"&a ", b"*a", b"!!int ", b"|", b">", b"%", b"@", b"`", b"- ", b"#",
    b"\n---\n", b"\n...\n",
];
const SPACING: &[&[u8]] = &[b"  ", b" ", b"\n", b"\n  "];

/// Mutation `kind` of `base`, at a place `rng` picks: a byte flipped, the file cut, a byte
/// deleted, a line duplicated, or something inserted (invalid UTF-8, a tab, a quote, a colon,
/// a control character, an odd line break, YAML punctuation, spacing).
fn mutate(base: &[u8], kind: usize, rng: &mut Rng) -> Vec<u8> {
    let mut bytes = base.to_vec();
    let at = rng.below(bytes.len() + 1);
    let insert: &[u8] = match kind {
        0 => {
            let index = rng.below(bytes.len());
            bytes[index] = rng.below(256) as u8;
            return bytes;
        }
        1 => {
            bytes.truncate(at);
            return bytes;
        }
        2 => {
            bytes.remove(at.min(bytes.len() - 1));
            return bytes;
        }
        3 => return duplicate_line(base, rng),
        4 => rng.pick(INVALID_UTF8),
        5 => b"\t",
        6 => rng.pick(QUOTES),
        7 => rng.pick(COLONS),
        8 => rng.pick(CONTROL),
        9 => rng.pick(ODD_BREAKS),
        10 => rng.pick(STRUCTURE),
        _ => rng.pick(SPACING),
    };
    bytes.splice(at..at, insert.iter().copied());
    bytes
}

/// `base` with one of its lines written again elsewhere, or a key line written again quoted:
/// duplicate keys and list items.
fn duplicate_line(base: &[u8], rng: &mut Rng) -> Vec<u8> {
    let mut lines: Vec<Vec<u8>> = base
        .split_inclusive(|&b| b == b'\n')
        .map(<[u8]>::to_vec)
        .collect();
    let mut line = lines[rng.below(lines.len())].clone();
    if rng.below(3) == 0 {
        let key = KEYS[rng.below(KEYS.len())];
        line = format!("\"{key}\": x\n").into_bytes();
    }
    let to = rng.below(lines.len() + 1);
    lines.insert(to, line);
    lines.concat()
}

/// Line and column of byte `offset` of `bytes`, counted independently of `locate`: lines end
/// at `\n`, columns count characters, a byte-order mark opening the file is not one.
fn expected_position(bytes: &[u8], offset: usize) -> (usize, usize) {
    let before = std::str::from_utf8(&bytes[..offset]).expect("a valid prefix");
    let (mut line, mut column) = (1, 1);
    for (index, c) in before.char_indices() {
        match c {
            '\n' => (line, column) = (line + 1, 1),
            '\u{feff}' if index == 0 => {}
            _ => column += 1,
        }
    }
    (line, column)
}

/// How many mutated files ended each way.
#[derive(Debug, Default)]
struct Seen {
    valid: usize,
    not_utf8: usize,
    /// libyaml's reader refused a character, giving its byte offset only.
    reader: usize,
    /// serde_yaml gave a location.
    located: usize,
    duplicate: usize,
    /// Valid YAML that the scenario checks or the step parser refused.
    checked: usize,
    /// serde_yaml gave no location: a second document.
    unlocated: usize,
}

/// Checks one mutated file's outcome and counts its class.
fn check_mutation(bytes: &[u8], seen: &mut Seen) {
    let path = root().join("mutated.yaml");
    let result = std::panic::catch_unwind(|| parse_bytes(bytes, &path, root()));
    let text = String::from_utf8_lossy(bytes);
    let Err(err) = result.unwrap_or_else(|_| panic!("parsing panicked on {text:?}")) else {
        seen.valid += 1;
        return;
    };
    let rendered = err.to_string();
    let lines: Vec<&str> = text.split('\n').collect();
    let inside = err.line >= 1
        && err.line <= lines.len()
        && err.column >= 1
        && err.column <= lines[err.line - 1].chars().count() + 1;
    assert!(inside, "{rendered}\noutside {text:?}");
    let prefix = format!("scenarios/mutated.yaml:{}:{}: ", err.line, err.column);
    assert!(rendered.starts_with(&prefix), "{rendered}");
    let expected = match std::str::from_utf8(bytes) {
        Err(utf8) => {
            seen.not_utf8 += 1;
            Some(expected_position(bytes, utf8.valid_up_to()))
        }
        Ok(text) => expected_yaml_position(text, seen),
    };
    if let Some(expected) = expected {
        assert_eq!((err.line, err.column), expected, "{rendered}\nin {text:?}");
    } else if err.message != "missing `task`" && err.message != "the scenario is empty" {
        // Nothing else is on the first character of the file.
        assert_ne!((err.line, err.column), (1, 1), "{rendered}\nin {text:?}");
    }
}

/// Where serde_yaml, read on its own terms, puts the error in `text`; none when it parses or
/// gives no location.
fn expected_yaml_position(text: &str, seen: &mut Seen) -> Option<(usize, usize)> {
    let Err(err) = serde_yaml::from_str::<Option<RawScenario>>(text) else {
        seen.checked += 1;
        return None;
    };
    let message = err.to_string();
    if let Some(key) = duplicate_key(&message) {
        seen.duplicate += 1;
        return second_key_line(text, &key);
    }
    if let Some((_, offset)) = message.split_once(" at position ") {
        seen.reader += 1;
        let digits: String = offset.chars().take_while(char::is_ascii_digit).collect();
        return Some(expected_position(text.as_bytes(), digits.parse().unwrap()));
    }
    let Some(location) = err.location() else {
        seen.unlocated += 1;
        return None;
    };
    seen.located += 1;
    let expected = expected_position(text.as_bytes(), location.index());
    // libyaml's own line and column agree unless it met a break other than `\n` (CR, NEL, LS,
    // PS), a byte-order mark, or the end of a file without a final line break.
    let plain = !text.contains(['\r', '\u{85}', '\u{2028}', '\u{2029}', '\u{feff}'])
        && (location.index() < text.len() || text.ends_with('\n'));
    if plain {
        assert_eq!(expected, (location.line(), location.column()), "{text:?}");
    }
    Some(expected)
}

/// The line of the second top-level `key:` (or quoted `"key":`), column 1.
fn second_key_line(text: &str, key: &str) -> Option<(usize, usize)> {
    let spellings = [
        format!("{key}:"),
        format!("\"{key}\":"),
        format!("'{key}':"),
    ];
    text.lines()
        .enumerate()
        .filter(|(_, line)| spellings.iter().any(|s| line.starts_with(s.as_str())))
        .nth(1)
        .map(|(index, _)| (index + 1, 1))
}

#[test]
fn every_error_of_a_mutated_scenario_names_its_true_line_and_column() {
    for base in MUTATION_BASES {
        parse_at(base, "base.yaml").expect("a valid base");
    }
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let mut seen = Seen::default();
    for round in 0..400 {
        let base = rng.pick(MUTATION_BASES).as_bytes();
        let mutated = mutate(base, round % MUTATIONS, &mut rng);
        check_mutation(&mutated, &mut seen);
    }
    // Each class was met often enough for its assertions to mean something.
    assert!(seen.not_utf8 >= 30, "{seen:?}");
    assert!(seen.reader >= 15, "{seen:?}");
    assert!(seen.located >= 40, "{seen:?}");
    assert!(seen.duplicate >= 10, "{seen:?}");
    assert!(seen.checked >= 40, "{seen:?}");
}

#[test]
fn holds_expectations_and_their_since_are_checked_where_they_are_written() {
    let ok = "task: Order\nsteps:\n  - click \"Order\"\n  - expect holds \"count('.o') == before.count('.o') + 1\" since step 1\n  - click \"Order\"\nexpect:\n  - holds 'count(\".o\") == before.count(\".o\") + 1'\n  - holds count('.o') == before.count('.o') + 2 since step 2\n";
    let scenario = parse_at(ok, "order.yaml").expect("the scenario parses");
    assert_eq!(scenario.expect.len(), 2);

    let err = error(
        "task: Order\nsteps:\n  - click \"Order\"\n  - expect holds \"count('.o') > before.count('.o')\" since step 2\n",
    );
    assert_eq!((err.line, err.column), (4, 53), "{err}");
    insta::assert_snapshot!("holds_since_not_earlier", err.to_string());

    let err = error(
        "task: Order\nexpect:\n  - holds \"count('.o') > before.count('.o')\" since step 1\n",
    );
    assert_eq!((err.line, err.column), (3, 46), "{err}");
    assert!(err.message.contains("no step comes before this"), "{err}");

    let err = error("task: Order\nsteps:\n  - expect holds \"count('.o' > 1\"\n");
    assert_eq!(err.line, 3, "{err}");
    assert!(
        err.message.starts_with("the predicate does not parse"),
        "{err}"
    );
    assert!(err.hint.contains("CEL"), "{err}");
}

/// Runs `read` on a thread with a tokio worker's stack (2 MiB), where a server reads input.
fn on_a_worker_stack<T: Send + 'static>(read: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(read)
        .expect("a thread")
        .join()
        .expect("the reader returned instead of overflowing its stack")
}

#[test]
fn yaml_nested_without_end_or_aliased_without_end_is_an_error_naming_the_file() {
    let n = 10_000;
    let laughs = (1..10)
        .map(|i| {
            format!(
                "x{i}: &x{i} [{}]\n",
                vec![format!("*x{}", i - 1); 9].join(", ")
            )
        })
        .collect::<String>();
    for (shape, text) in [
        (
            "a flow list in a field",
            format!("task: t\nhints: {}{}\n", "[".repeat(n), "]".repeat(n)),
        ),
        (
            "a flow map in a field",
            format!("task: t\nhints: {}{}\n", "{a: ".repeat(n), "}".repeat(n)),
        ),
        (
            "a flow list under an unknown key",
            format!("task: t\nx: {}{}\n", "[".repeat(n), "]".repeat(n)),
        ),
        (
            "block lists",
            format!(
                "task: t\nx:\n{}\n",
                (0..1000)
                    .map(|i| format!("{}- ", " ".repeat(i * 2)))
                    .collect::<Vec<_>>()
                    .join("\n")
            ),
        ),
        (
            "aliases of aliases",
            format!("task: t\nx0: &x0 [lol]\n{laughs}"),
        ),
    ] {
        let err = on_a_worker_stack(move || parse_at(&text, "deep.yaml").expect_err("refused"));
        let shown = err.to_string();
        assert!(
            shown.starts_with("scenarios/deep.yaml:"),
            "{shape}: {shown}"
        );
        // Flow collections are measured before libyaml scans them: its time grows with the
        // square of their depth.
        if shape.starts_with("a flow") {
            assert!(
                shown.starts_with("scenarios/deep.yaml:2:")
                    && shown.contains("more than 128 levels deep"),
                "{shape}: {shown}"
            );
        }
    }
}
