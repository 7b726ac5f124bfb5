//! Where things are in the scenario text, as 1-based lines (ended by `\n`) and columns counted
//! in characters.
//!
//! serde_yaml gives positions only inside its errors, so a [`Part`] is found by a probe that
//! fails on purpose when it reaches the part and reads the error's byte offset. The `- ` items of
//! a block list, needed for every step, are found by scanning, which is cheaper; a list the scan
//! does not understand falls back to probes.

use std::fmt;

use serde::Deserializer as _;
use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};

/// A 1-based line and column.
pub(super) type Position = (usize, usize);

/// The line and column of byte `offset` of `text`; an offset inside a character counts as that
/// character, and a byte-order mark opening the file is not a column.
pub(super) fn line_column(text: &str, offset: usize) -> Position {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line_start = before.rfind('\n').map_or(0, |newline| newline + 1);
    let line = before.bytes().filter(|&b| b == b'\n').count() + 1;
    let mut current = &before[line_start..];
    if line_start == 0 {
        current = current.strip_prefix('\u{feff}').unwrap_or(current);
    }
    (line, current.chars().count() + 1)
}

/// Where the first invalid byte of `bytes` is, when they are not UTF-8.
pub(super) fn invalid_utf8(bytes: &[u8], err: &std::str::Utf8Error) -> Position {
    let valid = std::str::from_utf8(&bytes[..err.valid_up_to()]).unwrap_or_default();
    line_column(valid, valid.len())
}

/// Where serde_yaml saw `err` in `text`; serde_yaml gives no location when a second document
/// follows, see [`second_document`].
pub(super) fn yaml_error(err: &serde_yaml::Error, text: &str) -> Position {
    let offset = match err.location() {
        Some(location) if location.index() > 0 => location.index(),
        // libyaml's reader (control characters) leaves the mark at zero and says `at position N`.
        _ => reader_offset(&err.to_string()).unwrap_or(0),
    };
    line_column(text, offset)
}

/// `N` of libyaml's ` at position N`, when it ends the problem's text.
fn reader_offset(message: &str) -> Option<usize> {
    let (_, after) = message.split_once(" at position ")?;
    let end = after
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(after.len());
    let rest = &after[end..];
    if end == 0 || !(rest.is_empty() || rest.starts_with(',')) {
        return None;
    }
    after[..end].parse().ok()
}

/// Where the second YAML document of `text` starts: its `---` or `...` line, or its first
/// node. serde_yaml calls a syntax error after a first document a second document too; that
/// error is the `Err`.
pub(super) fn second_document(text: &str) -> Result<Position, serde_yaml::Error> {
    // The probe always fails, and serde_yaml has seen a second document: the `(1, 1)`s are
    // for a text that was never called one.
    let Some(second) = serde_yaml::Deserializer::from_str(text).nth(1) else {
        return Ok((1, 1));
    };
    let err = match ValueProbe.deserialize(second) {
        Ok(()) => return Ok((1, 1)),
        Err(err) if !err.to_string().contains(FOUND) => return Err(err),
        Err(err) => err,
    };
    let root = err
        .location()
        .map_or((1, 1), |location| line_column(text, location.index()));
    Ok(marker_before(text, root.0).unwrap_or(root))
}

/// The `---` or `...` line at or just before `line`, past blank lines and comments.
fn marker_before(text: &str, line: usize) -> Option<Position> {
    let is_marker = |line: &str| {
        ["---", "..."].iter().any(|mark| {
            line.strip_prefix(mark)
                .is_some_and(|rest| rest.trim().is_empty() || rest.starts_with([' ', '\t']))
        })
    };
    let lines: Vec<&str> = text.split('\n').take(line).collect();
    for (index, current) in lines.iter().enumerate().rev() {
        if is_marker(current) {
            return Some((index + 1, 1));
        }
        let trimmed = current.trim();
        if index + 1 < line && !(trimmed.is_empty() || trimmed.starts_with('#')) {
            return None;
        }
    }
    None
}

/// A part of the scenario's top-level mapping.
#[derive(Debug, Clone, Copy)]
pub(super) enum Part<'a> {
    /// The `occurrence`th (0-based) top-level key `key`.
    Key { key: &'a str, occurrence: usize },
    /// The value of the first top-level key `key`.
    Value(&'a str),
    /// Item `index` of the list under the first top-level key `key`.
    Item(&'a str, usize),
}

/// What a probe's error says, to tell it from a real one.
const FOUND: &str = "the part windup looks for";

/// Where `part` starts in `text` (a quoted value at its quote), as libyaml read it.
pub(super) fn find(text: &str, part: Part<'_>) -> Option<Position> {
    let err = serde_yaml::Deserializer::from_str(text)
        .deserialize_map(MapProbe(part))
        .err()?;
    let location = err.location().filter(|_| err.to_string().contains(FOUND))?;
    Some(line_column(text, location.index()))
}

struct MapProbe<'a>(Part<'a>);

impl<'de> Visitor<'de> for MapProbe<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a mapping")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let (wanted, occurrence) = match self.0 {
            Part::Key { key, occurrence } => (key, Some(occurrence)),
            Part::Value(key) | Part::Item(key, _) => (key, None),
        };
        let mut seen = 0;
        while let Some(key) = map.next_key_seed(KeyProbe {
            wanted,
            occurrence,
            seen: &mut seen,
        })? {
            match self.0 {
                Part::Value(_) if key => return map.next_value_seed(ValueProbe),
                Part::Item(_, index) if key => return map.next_value_seed(ItemProbe(index)),
                _ => map.next_value::<IgnoredAny>().map(drop)?,
            }
        }
        Ok(())
    }
}

/// Deserializes a key to whether it is the wanted one; fails at its `occurrence`th appearance.
struct KeyProbe<'s> {
    wanted: &'s str,
    occurrence: Option<usize>,
    seen: &'s mut usize,
}

impl<'de> DeserializeSeed<'de> for KeyProbe<'_> {
    type Value = bool;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<bool, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeyProbe<'_> {
    type Value = bool;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a key")
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<bool, E> {
        if key != self.wanted {
            return Ok(false);
        }
        if self.occurrence == Some(*self.seen) {
            return Err(E::custom(FOUND));
        }
        *self.seen += 1;
        Ok(true)
    }
}

/// Fails at whatever value it is given: serde_yaml marks the error with the value's start.
struct ValueProbe;

impl<'de> DeserializeSeed<'de> for ValueProbe {
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl Visitor<'_> for ValueProbe {
    type Value = ();

    // Every `visit_*` left to its default fails with "invalid type: …, expected FOUND".
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(FOUND)
    }
}

/// Skips to item `.0` of a list and fails there.
struct ItemProbe(usize);

impl<'de> DeserializeSeed<'de> for ItemProbe {
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for ItemProbe {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        for _ in 0..self.0 {
            if seq.next_element::<IgnoredAny>()?.is_none() {
                return Ok(());
            }
        }
        seq.next_element_seed(ValueProbe).map(drop)
    }
}

/// The items of one top-level list key, in order.
#[derive(Debug)]
pub(super) struct Items {
    items: Vec<Item>,
    /// Where an item that cannot be found is reported: the key's value.
    fallback: Position,
}

#[derive(Debug)]
struct Item {
    line: usize,
    /// 1-based column, in characters, where the item's value starts.
    column: usize,
    /// The rest of the line from `column`.
    raw: String,
}

impl Items {
    /// The line of item `index`.
    pub(super) fn line(&self, index: usize) -> usize {
        self.start(index).0
    }

    /// Line and column where item `index`'s value starts (its opening quote, if quoted).
    pub(super) fn start(&self, index: usize) -> Position {
        self.items
            .get(index)
            .map_or(self.fallback, |item| (item.line, item.column))
    }

    /// Line and column of character `column` (1-based) of item `index`, whose value is `written`.
    /// When the value is not written on the item's line as it reads, the column of its start.
    pub(super) fn locate(&self, index: usize, written: &str, column: usize) -> Position {
        let Some(item) = self.items.get(index) else {
            return self.fallback;
        };
        let inner = column.saturating_sub(1);
        match shown_at(&item.raw, written, inner) {
            Some(offset) => (item.line, item.column + offset),
            None => (item.line, item.column),
        }
    }
}

/// Which character of `raw` (an item's line from its start) shows character `inner` of the
/// item's value `written`: plain text maps one to one, quoted text through its quotes and
/// escapes. None when the value is not all on that line.
fn shown_at(raw: &str, written: &str, inner: usize) -> Option<usize> {
    if written.contains('\n') {
        return None;
    }
    if raw.starts_with(written) {
        return Some(inner.min(written.chars().count()));
    }
    let mut raw_chars = raw.chars();
    let quote = raw_chars.next().filter(|c| matches!(c, '\'' | '"'))?;
    // Where each character of the value starts in `raw`, then where the closing quote is.
    let mut starts = Vec::new();
    let mut decoded = String::new();
    let mut offset = 1;
    loop {
        let c = raw_chars.next()?;
        let (value, width) = match (quote, c) {
            ('\'', '\'') if raw_chars.clone().next() == Some('\'') => {
                raw_chars.next();
                ('\'', 2)
            }
            ('"', '\\') => unescape(&mut raw_chars)?,
            (quote, c) if c == quote => break,
            (_, c) => (c, 1),
        };
        starts.push(offset);
        decoded.push(value);
        offset += width;
    }
    (decoded == written).then(|| starts.get(inner).copied().unwrap_or(offset))
}

/// The character a double-quoted `\\…` escape stands for, and how many characters it takes
/// with its backslash; `chars` is just past the backslash.
fn unescape(chars: &mut std::str::Chars<'_>) -> Option<(char, usize)> {
    let hex = |chars: &mut std::str::Chars<'_>, digits: usize| {
        let code: String = chars.take(digits).collect();
        let value = u32::from_str_radix(&code, 16)
            .ok()
            .and_then(char::from_u32)?;
        Some((value, digits + 2))
    };
    let value = match chars.next()? {
        'x' => return hex(chars, 2),
        'u' => return hex(chars, 4),
        'U' => return hex(chars, 8),
        '0' => '\0',
        'a' => '\u{7}',
        'b' => '\u{8}',
        't' | '\t' => '\t',
        'n' => '\n',
        'v' => '\u{b}',
        'f' => '\u{c}',
        'r' => '\r',
        'e' => '\u{1b}',
        'N' => '\u{85}',
        '_' => '\u{a0}',
        'L' => '\u{2028}',
        'P' => '\u{2029}',
        c @ (' ' | '"' | '/' | '\\') => c,
        _ => return None,
    };
    Some((value, 2))
}

/// The `count` items of the list under top-level `key:`.
pub(super) fn list_items(text: &str, key: &str, count: usize) -> Items {
    let mut items = scan_block_list(text, key);
    if items.len() != count {
        // A flow list, or a layout the scan does not follow: ask the parser, item by item.
        items = (0..count)
            .map_while(|index| find(text, Part::Item(key, index)))
            .map(|(line, column)| Item {
                line,
                column,
                raw: rest_of_line(text, line, column),
            })
            .collect();
    }
    // Only an item the parser cannot find (none, for a list it parsed) falls back to the key.
    let fallback = if items.len() < count {
        find(text, Part::Value(key)).unwrap_or((1, 1))
    } else {
        (1, 1)
    };
    Items { items, fallback }
}

/// The `- ` items of a block list under top-level `key:`, found by reading the lines.
fn scan_block_list(text: &str, key: &str) -> Vec<Item> {
    let lines: Vec<&str> = text.lines().collect();
    let Some(key_index) = lines.iter().position(|l| value_after_key(l, key).is_some()) else {
        return Vec::new();
    };
    let value = value_after_key(lines[key_index], key).unwrap_or_default();
    if !strip_comment(value).trim().is_empty() {
        return Vec::new();
    }
    let mut items = Vec::new();
    let mut item_indent = None;
    for (offset, line) in lines[key_index + 1..].iter().enumerate() {
        let trimmed = line.trim_start_matches(' ');
        if trimmed.trim().is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let indent = line.len() - trimmed.len();
        let is_item = trimmed == "-" || trimmed.starts_with("- ");
        match item_indent {
            None if is_item => item_indent = Some(indent),
            None => break,
            Some(expected) if is_item && indent == expected => {}
            Some(expected) if indent <= expected => break,
            // A continuation line of a multi-line item.
            Some(_) => continue,
        }
        let after_dash = &trimmed[1..];
        let value = after_dash.trim_start_matches([' ', '\t']);
        items.push(Item {
            line: key_index + offset + 2,
            column: indent + 2 + (after_dash.len() - value.len()),
            raw: value.to_owned(),
        });
    }
    items
}

/// Line `line` of `text` from character `column` on.
fn rest_of_line(text: &str, line: usize, column: usize) -> String {
    let current = text.split('\n').nth(line - 1).unwrap_or_default();
    let current = current.strip_suffix('\r').unwrap_or(current);
    let current = if line == 1 {
        current.strip_prefix('\u{feff}').unwrap_or(current)
    } else {
        current
    };
    current.chars().skip(column - 1).collect()
}

/// For a top-level `key:` line, the text after the colon.
fn value_after_key<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let rest = line.strip_prefix(key)?.trim_start_matches(' ');
    let value = rest.strip_prefix(':')?;
    (value.is_empty() || value.starts_with([' ', '\t'])).then_some(value)
}

fn strip_comment(value: &str) -> &str {
    let trimmed = value.trim_start();
    if trimmed.starts_with('#') {
        return "";
    }
    match value.find(" #") {
        Some(at) => &value[..at],
        None => value,
    }
}
