//! Where things are in the scenario text. serde_yaml locates syntax and schema errors but gives
//! no spans for values, so the lines of top-level keys and list items are found by scanning.

/// The `- ` items of one top-level list key, in order.
#[derive(Debug, Default)]
pub(super) struct Items {
    /// The key's own line and column, the fallback for flow lists (`steps: [a, b]`).
    key: Option<(usize, usize)>,
    items: Vec<Item>,
}

#[derive(Debug)]
struct Item {
    line: usize,
    /// 1-based column where the item's value starts.
    column: usize,
    /// The rest of the line from `column`.
    raw: String,
}

impl Items {
    /// The line of item `index`; the key's line when the list is not a block list; 0 when unknown.
    pub(super) fn line(&self, index: usize) -> usize {
        match self.items.get(index) {
            Some(item) => item.line,
            None => self.key.map_or(0, |(line, _)| line),
        }
    }

    /// Line and column where item `index`'s value starts (its opening quote, if quoted).
    pub(super) fn start(&self, index: usize) -> (usize, usize) {
        match self.items.get(index) {
            Some(item) => (item.line, item.column),
            None => self.key.unwrap_or((0, 0)),
        }
    }

    /// Line and column of character `column` (1-based) of item `index`, whose value is `written`.
    /// When the value is not written plainly on one line, the column of the value's start.
    pub(super) fn locate(&self, index: usize, written: &str, column: usize) -> (usize, usize) {
        let Some(item) = self.items.get(index) else {
            return self.key.unwrap_or((0, 0));
        };
        let inner = column.saturating_sub(1);
        let plain = item.raw.starts_with(written);
        let single = item.raw.starts_with('\'')
            && !written.contains('\'')
            && item.raw[1..].starts_with(written);
        let double = item.raw.starts_with('"')
            && !written.contains(['"', '\\'])
            && item.raw[1..].starts_with(written);
        let offset = if plain {
            Some(0)
        } else if single || double {
            Some(1)
        } else {
            None
        };
        match offset {
            Some(offset) if !written.contains('\n') => (item.line, item.column + offset + inner),
            _ => (item.line, item.column),
        }
    }
}

/// The items of the block list under top-level `key:`.
pub(super) fn list_items(text: &str, key: &str) -> Items {
    let lines: Vec<&str> = text.lines().collect();
    let Some(key_index) = lines.iter().position(|l| value_after_key(l, key).is_some()) else {
        return Items::default();
    };
    let mut found = Items {
        key: Some((key_index + 1, 1)),
        items: Vec::new(),
    };
    let value = value_after_key(lines[key_index], key).unwrap_or_default();
    if !strip_comment(value).trim().is_empty() {
        return found;
    }
    let mut item_indent = None;
    for (offset, line) in lines[key_index + 1..].iter().enumerate() {
        let trimmed = line.trim_start();
        if trimmed.is_empty() || trimmed.starts_with('#') {
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
        let value = after_dash.trim_start();
        found.items.push(Item {
            line: key_index + offset + 2,
            column: indent + 2 + (after_dash.len() - value.len()),
            raw: value.to_owned(),
        });
    }
    found
}

/// Line and value column of the first top-level `key:`.
pub(super) fn key_position(text: &str, key: &str) -> Option<(usize, usize)> {
    text.lines().enumerate().find_map(|(index, line)| {
        let value = value_after_key(line, key)?;
        let trimmed = value.trim_start();
        let column = if strip_comment(trimmed).trim().is_empty() {
            1
        } else {
            line.len() - trimmed.len() + 1
        };
        Some((index + 1, column))
    })
}

/// Line and column (1) of the `n`th (0-based) top-level `key:`.
pub(super) fn nth_key_position(text: &str, key: &str, n: usize) -> Option<(usize, usize)> {
    text.lines()
        .enumerate()
        .filter(|(_, line)| value_after_key(line, key).is_some())
        .nth(n)
        .map(|(index, _)| (index + 1, 1))
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
