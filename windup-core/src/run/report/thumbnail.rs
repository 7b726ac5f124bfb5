//! Screenshots made light enough to inline by the hundred: each filmstrip frame becomes a JPEG
//! thumbnail of at most 320 × 400 pixels (a few KB where the PNG is tens of KB), while a
//! failure's screenshot stays as it was taken, full size.
//!
//! JPEG rather than WebP: the `image` crate encodes WebP only losslessly, which for a page with
//! photos or gradients is several times the size of a JPEG, and a JPEG's size follows its pixel
//! count, not how busy the page is.

use std::collections::HashMap;
use std::io;
#[cfg(feature = "images")]
use std::io::Cursor;
use std::path::Path;

#[cfg(feature = "images")]
use image::codecs::jpeg::JpegEncoder;
#[cfg(feature = "images")]
use image::{DynamicImage, ImageReader};

/// A thumbnail's bounds: twice the filmstrip's 180 CSS pixels, about, for high-density screens.
#[cfg(feature = "images")]
pub(super) const MAX_WIDTH: u32 = 320;
#[cfg(feature = "images")]
const MAX_HEIGHT: u32 = 400;
/// Enough for a page's layout and its larger text; the full-size image is the failure's.
#[cfg(feature = "images")]
const QUALITY: u8 = 75;

/// A screenshot as the report shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Picture {
    Inline {
        mime: &'static str,
        data: Vec<u8>,
        width: u32,
        height: u32,
    },
    /// The file is gone.
    Missing,
    /// The file is there but is no image that can be shown: why.
    Undecodable(String),
}

/// The thumbnail of every screenshot in `paths`, each made once, on every core.
pub(super) fn thumbnails<'a>(paths: &[&'a Path]) -> io::Result<HashMap<&'a Path, Picture>> {
    let mut unique = paths.to_vec();
    unique.sort();
    unique.dedup();
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
    let share = unique.len().div_ceil(workers).max(1);
    let parts = std::thread::scope(|scope| {
        let running: Vec<_> = unique
            .chunks(share)
            .map(|part| {
                scope.spawn(move || {
                    part.iter()
                        .map(|&path| Ok((path, thumbnail(path)?)))
                        .collect::<io::Result<Vec<_>>>()
                })
            })
            .collect();
        running
            .into_iter()
            .map(|worker| {
                worker
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect::<io::Result<Vec<_>>>()
    })?;
    Ok(parts.into_iter().flatten().collect())
}

/// A screenshot scaled down to fit the thumbnail's bounds, as a JPEG.
#[cfg(feature = "images")]
pub(super) fn thumbnail(path: &Path) -> io::Result<Picture> {
    let Some(bytes) = read(path)? else {
        return Ok(Picture::Missing);
    };
    let image = match image::load_from_memory(&bytes) {
        Ok(image) => image,
        Err(err) => return Ok(Picture::Undecodable(err.to_string())),
    };
    let small = if image.width() <= MAX_WIDTH && image.height() <= MAX_HEIGHT {
        image
    } else {
        image.thumbnail(MAX_WIDTH, MAX_HEIGHT)
    };
    // JPEG has no alpha; screenshots are opaque anyway.
    let small = DynamicImage::ImageRgb8(small.to_rgb8());
    let mut data = Vec::new();
    if let Err(err) = small.write_with_encoder(JpegEncoder::new_with_quality(&mut data, QUALITY)) {
        return Ok(Picture::Undecodable(err.to_string()));
    }
    Ok(Picture::Inline {
        mime: "image/jpeg",
        data,
        width: small.width(),
        height: small.height(),
    })
}

/// Without the `images` feature a frame is inlined as it was taken: the report is heavier, and
/// the same to look at.
#[cfg(not(feature = "images"))]
pub(super) fn thumbnail(path: &Path) -> io::Result<Picture> {
    full_size(path)
}

/// A screenshot as it was taken, once it is known to decode.
#[cfg(feature = "images")]
pub(super) fn full_size(path: &Path) -> io::Result<Picture> {
    let Some(bytes) = read(path)? else {
        return Ok(Picture::Missing);
    };
    // Reading from memory: no I/O error can come of guessing the format.
    let reader = ImageReader::new(Cursor::new(&bytes)).with_guessed_format()?;
    let Some(format) = reader.format() else {
        return Ok(Picture::Undecodable("not a PNG or JPEG image".to_owned()));
    };
    match reader.decode() {
        Ok(image) => Ok(Picture::Inline {
            mime: format.to_mime_type(),
            width: image.width(),
            height: image.height(),
            data: bytes,
        }),
        Err(err) => Ok(Picture::Undecodable(err.to_string())),
    }
}

/// A screenshot as it was taken, once its header says it is a PNG (without the `images` feature
/// nothing decodes it; WebDriver's screenshots are PNGs).
#[cfg(not(feature = "images"))]
pub(super) fn full_size(path: &Path) -> io::Result<Picture> {
    let Some(bytes) = read(path)? else {
        return Ok(Picture::Missing);
    };
    match crate::model::png::dimensions(&bytes) {
        Some((width, height)) => Ok(Picture::Inline {
            mime: "image/png",
            width,
            height,
            data: bytes,
        }),
        None => Ok(Picture::Undecodable("not a PNG image".to_owned())),
    }
}

/// The file's bytes; `None` when it is gone.
fn read(path: &Path) -> io::Result<Option<Vec<u8>>> {
    match std::fs::read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(err) if err.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(err) => Err(io::Error::new(
            err.kind(),
            format!(
                "cannot read the screenshot {} for the report: {err}",
                path.display()
            ),
        )),
    }
}
