//! LTTng's `index/<stream>.idx` files: where each packet of a stream file is, and how
//! big (read here; checked against the stream file by the caller and the cursor).

use super::INDEX_MAGIC;

/// One entry of an LTTng index: where a packet is and how big (sizes in bits).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IndexEntry {
    pub offset: u64,
    pub packet_size: u64,
    pub content_size: u64,
}

/// Parse an `index/<stream>.idx` file: header (magic, major, minor, entry length), then
/// big-endian entries starting offset, packet_size, content_size. None when it does not
/// look like an index (the caller then walks the packets alone).
pub fn parse_index(bytes: &[u8]) -> Result<Vec<IndexEntry>, String> {
    let be32 = |o: usize| -> Option<u32> {
        bytes
            .get(o..o + 4)
            .map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    };
    let be64 = |o: usize| -> Option<u64> {
        bytes.get(o..o + 8).map(|b| {
            let mut w = [0u8; 8];
            w.copy_from_slice(b);
            u64::from_be_bytes(w)
        })
    };
    if be32(0) != Some(INDEX_MAGIC) {
        return Err("bad magic".into());
    }
    let major = be32(4).unwrap_or(0);
    if major != 1 {
        return Err(format!("index version {major} is not 1"));
    }
    let entry_len = be32(12).unwrap_or(0) as usize;
    if !(24..=4096).contains(&entry_len) {
        return Err(format!("index entry length {entry_len} is implausible"));
    }
    let body = &bytes[16..];
    if body.len() % entry_len != 0 {
        return Err(format!(
            "index body of {} bytes is not a whole number of {entry_len}-byte entries",
            body.len()
        ));
    }
    let mut out = Vec::with_capacity(body.len() / entry_len);
    for i in 0..body.len() / entry_len {
        let o = 16 + i * entry_len;
        let (Some(offset), Some(packet_size), Some(content_size)) =
            (be64(o), be64(o + 8), be64(o + 16))
        else {
            return Err("index entry cut short".into());
        };
        out.push(IndexEntry {
            offset,
            packet_size,
            content_size,
        });
    }
    Ok(out)
}
