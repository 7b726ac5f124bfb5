//! How entries are keyed in sled. A key starts with the scenario id, length-prefixed so that
//! one scenario's keys are exactly one prefix whatever characters ids and paths hold.

use super::CacheKey;

/// Bytes of the length prefix.
const LEN: usize = 8;
/// Bytes of a stale entry's sequence number.
const SEQ: usize = 8;

/// The prefix shared by every key of one scenario, in both trees.
pub(super) fn scenario(scenario_id: &str) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(LEN + scenario_id.len());
    bytes.extend_from_slice(&(scenario_id.len() as u64).to_be_bytes());
    bytes.extend_from_slice(scenario_id.as_bytes());
    bytes
}

/// The active entry's key: scenario id, then start path.
pub(super) fn active(key: &CacheKey) -> Vec<u8> {
    let mut bytes = scenario(&key.scenario_id);
    bytes.extend_from_slice(key.start_path.as_bytes());
    bytes
}

/// A stale entry's key: scenario id, then a sequence number that grows with each entry.
pub(super) fn stale(scenario_id: &str, seq: u64) -> Vec<u8> {
    let mut bytes = scenario(scenario_id);
    bytes.extend_from_slice(&seq.to_be_bytes());
    bytes
}

/// Splits a stored key into the scenario id and the rest; `None` when it is not ours.
pub(super) fn split(bytes: &[u8]) -> Option<(String, &[u8])> {
    let len: [u8; LEN] = bytes.get(..LEN)?.try_into().ok()?;
    let len = usize::try_from(u64::from_be_bytes(len)).ok()?;
    let id = bytes.get(LEN..LEN.checked_add(len)?)?;
    let rest = &bytes[LEN + len..];
    Some((String::from_utf8_lossy(id).into_owned(), rest))
}

/// The sequence number of a stale key.
pub(super) fn stale_seq(bytes: &[u8]) -> Option<u64> {
    let (_, rest) = split(bytes)?;
    let seq: [u8; SEQ] = rest.try_into().ok()?;
    Some(u64::from_be_bytes(seq))
}

/// An active key as people read it: `"checkout" at /cart`.
pub(super) fn describe_active(bytes: &[u8]) -> (String, String) {
    match split(bytes) {
        Some((id, path)) => {
            let text = format!("{id:?} at {}", String::from_utf8_lossy(path));
            (id, text)
        }
        None => (String::new(), format!("key {bytes:02x?}")),
    }
}

/// A stale key as people read it: `"checkout" stale #3`.
pub(super) fn describe_stale(bytes: &[u8]) -> (String, String) {
    match (split(bytes), stale_seq(bytes)) {
        (Some((id, _)), Some(seq)) => {
            let text = format!("{id:?} stale #{seq}");
            (id, text)
        }
        _ => (String::new(), format!("stale key {bytes:02x?}")),
    }
}
