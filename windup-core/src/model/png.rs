//! What a PNG's header says about it, read without decoding it: enough to inline a screenshot
//! or check its size when Windup is built without the `images` feature.

/// The eight bytes every PNG starts with.
const SIGNATURE: &[u8] = b"\x89PNG\r\n\x1a\n";

/// A PNG's width and height, from its header (the `IHDR` chunk that must come first); `None` when
/// the bytes are no PNG.
pub fn dimensions(bytes: &[u8]) -> Option<(u32, u32)> {
    let rest = bytes.strip_prefix(SIGNATURE)?;
    // The chunk's length (4 bytes), its type, then width and height, big-endian.
    let header = rest.get(..16)?;
    if &header[4..8] != b"IHDR" {
        return None;
    }
    let number = |at: usize| u32::from_be_bytes(header[at..at + 4].try_into().expect("4 bytes"));
    let (width, height) = (number(8), number(12));
    (width > 0 && height > 0).then_some((width, height))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_header_gives_the_size_and_anything_else_gives_none() {
        let mut png = SIGNATURE.to_vec();
        png.extend([0, 0, 0, 13]);
        png.extend(b"IHDR");
        png.extend(1280u32.to_be_bytes());
        png.extend(720u32.to_be_bytes());
        png.extend([8, 2, 0, 0, 0]);
        assert_eq!(dimensions(&png), Some((1280, 720)));
        assert_eq!(dimensions(&png[..20]), None, "cut short");
        assert_eq!(dimensions(b"<html>"), None);
        let mut other = png.clone();
        other[12..16].copy_from_slice(b"IDAT");
        assert_eq!(dimensions(&other), None, "IHDR must come first");
    }
}
