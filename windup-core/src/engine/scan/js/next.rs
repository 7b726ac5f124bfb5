//! Next.js: the routes its directories declare. In `app/`, a folder with a `page` file is a
//! page; `(group)` folders vanish, `@slot` folders are not segments, `_private` folders and
//! intercepting `(.)x` folders are not routes, `route.ts` is an API handler. In `pages/`,
//! each file is a page but `_app`, `_document`, `_error` and everything under `api/`.
//! `[slug]` is `:slug`, `[...all]` is `*all`, `[[...opt]]` both the folder and `*opt`.

use std::path::{Path, PathBuf};

use super::super::files::{self, is_skipped};
use super::super::{Framework, Scan, normal};
use super::{Sources, elements};
use crate::model::sitemap::{Provenance, Route};

const PAGE_EXTENSIONS: &[&str] = &["tsx", "jsx", "ts", "js", "mdx"];

/// Adds the pages of the Next.js app in `dir` to `scan`.
pub(super) fn scan(root: &Path, dir: &Path, why: &str, sources: &mut Sources, scan: &mut Scan) {
    for (base, framework) in [("app", Framework::NextApp), ("pages", Framework::NextPages)] {
        let Some(top) = [dir.join(base), dir.join("src").join(base)]
            .into_iter()
            .find(|d| d.is_dir())
        else {
            continue;
        };
        scan.conventions.push(super::super::Convention {
            framework,
            why: format!("{why}; its {}/ directory", files::relative(dir, &top)),
        });
        let mut pages = Vec::new();
        match framework {
            Framework::NextApp => app_pages(&top, &mut Vec::new(), &mut pages),
            _ => pages_pages(&top, &mut Vec::new(), &mut pages),
        }
        if pages.is_empty() {
            continue;
        }
        scan.frameworks.push(framework);
        for (segments, file) in pages {
            let elements = match file.extension().and_then(|e| e.to_str()) {
                Some("mdx") => Vec::new(),
                _ => sources.get(&file).map(elements::of).unwrap_or_default(),
            };
            for pattern in patterns(&segments) {
                scan.routes.push(Route {
                    pattern,
                    file: files::relative(root, &file),
                    lines: None,
                    elements: elements.clone(),
                    provenance: Provenance {
                        framework: framework.to_string(),
                        file: files::relative(root, &file),
                        line: 0,
                        partial: false,
                    },
                });
            }
        }
    }
}

/// A folder's entries: sub-folders and files, sorted, dependencies and hidden ones left out.
fn entries(dir: &Path) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let mut folders = Vec::new();
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') || is_skipped(&name) {
            continue;
        }
        match entry.file_type() {
            Ok(kind) if kind.is_dir() => folders.push(entry.path()),
            Ok(kind) if kind.is_file() => found.push(entry.path()),
            _ => {}
        }
    }
    folders.sort();
    found.sort();
    (folders, found)
}

fn stem_and_ext(path: &Path) -> (String, String) {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let ext = path
        .extension()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    (stem, ext)
}

/// `app/`: the folders with a `page` file, by their segments.
fn app_pages(dir: &Path, segments: &mut Vec<String>, pages: &mut Vec<(Vec<String>, PathBuf)>) {
    let (folders, found) = entries(dir);
    let page = found.iter().find(|f| {
        let (stem, ext) = stem_and_ext(f);
        stem == "page" && PAGE_EXTENSIONS.contains(&ext.as_str())
    });
    if let Some(page) = page {
        pages.push((segments.clone(), page.clone()));
    }
    for folder in folders {
        let name = folder
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let intercepting =
            name.starts_with("(.)") || name.starts_with("(..)") || name.starts_with("(...)");
        if name.starts_with('_') || intercepting {
            continue;
        }
        let vanishes = (name.starts_with('(') && name.ends_with(')')) || name.starts_with('@');
        if !vanishes {
            segments.push(name);
        }
        app_pages(&folder, segments, pages);
        if !vanishes {
            segments.pop();
        }
    }
}

/// `pages/`: every page file, by its segments (`index` is its folder).
fn pages_pages(dir: &Path, segments: &mut Vec<String>, pages: &mut Vec<(Vec<String>, PathBuf)>) {
    let (folders, found) = entries(dir);
    for file in found {
        let (stem, ext) = stem_and_ext(&file);
        if !PAGE_EXTENSIONS.contains(&ext.as_str()) || stem.starts_with('_') || stem.ends_with(".d")
        {
            continue;
        }
        let mut at = segments.clone();
        if stem != "index" {
            at.push(stem);
        }
        pages.push((at, file));
    }
    for folder in folders {
        let name = folder
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if (segments.is_empty() && name == "api") || name.starts_with('_') {
            continue;
        }
        segments.push(name);
        pages_pages(&folder, segments, pages);
        segments.pop();
    }
}

/// A page's patterns from its folder names: one, or two for an optional catch-all.
fn patterns(segments: &[String]) -> Vec<String> {
    let mut path = Vec::new();
    for segment in segments {
        let inner = segment.strip_prefix('[').and_then(|s| s.strip_suffix(']'));
        match inner {
            Some(optional) if optional.starts_with("[...") && optional.ends_with(']') => {
                let name = &optional[4..optional.len() - 1];
                let without = normal(&path.join("/"));
                path.push(format!("*{name}"));
                return vec![without, normal(&path.join("/"))];
            }
            Some(rest) if rest.starts_with("...") => path.push(format!("*{}", &rest[3..])),
            Some(name) => path.push(format!(":{name}")),
            None => path.push(segment.clone()),
        }
    }
    vec![normal(&path.join("/"))]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(segments: &[&str]) -> Vec<String> {
        patterns(&segments.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>())
    }

    #[test]
    fn dynamic_segments_and_catch_alls_become_patterns() {
        assert_eq!(of(&[]), ["/"]);
        assert_eq!(of(&["blog", "[slug]"]), ["/blog/:slug"]);
        assert_eq!(of(&["docs", "[...all]"]), ["/docs/*all"]);
        assert_eq!(of(&["shop", "[[...filters]]"]), ["/shop", "/shop/*filters"]);
    }
}
