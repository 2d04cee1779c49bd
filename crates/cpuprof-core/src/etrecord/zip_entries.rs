//! The zip container of an ETRecord (Python's `zipfile`, `ZIP_STORED`), read directly:
//! the end record is looked for once, in the last 64 KiB (a file of end records is one
//! search, not one per record), the entry count it states is checked against
//! [`MAX_ENTRIES`] before the directory is read, and the directory keeps only names and
//! where each entry lies. Only the JSON entries asked for are read (CRC checked); the
//! `torch.save` pickles beside them are never opened. A name that appears twice is
//! read from its first entry (the order of the local headers) and reported.

use std::collections::HashMap;

use super::{EtRecordError, MAX_ENTRIES};

const LOCAL_SIG: u32 = 0x0403_4b50;
const CENTRAL_SIG: u32 = 0x0201_4b50;
const END_SIG: u32 = 0x0605_4b50;
const END64_LOCATOR_SIG: u32 = 0x0706_4b50;
const END64_SIG: u32 = 0x0606_4b50;
const END_LEN: usize = 22;
const END64_LOCATOR_LEN: usize = 20;
const END64_LEN: usize = 56;
const CENTRAL_LEN: usize = 46;
const LOCAL_LEN: usize = 30;
/// The end record's comment is at most this long, so the record starts in the last
/// `END_LEN + MAX_COMMENT` bytes.
const MAX_COMMENT: usize = 0xffff;

/// Where one entry lies (from the central directory).
#[derive(Debug, Clone, Copy)]
struct Entry {
    local_offset: u64,
    size: u64,
    stored_size: u64,
    method: u16,
    flags: u16,
    crc: u32,
}

pub(super) struct Entries<'a> {
    bytes: &'a [u8],
    by_name: HashMap<Vec<u8>, Entry>,
    /// Names found more than once (each once), in directory order.
    duplicates: Vec<String>,
}

fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}
fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}
fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}

fn not_zip(what: impl Into<String>) -> EtRecordError {
    EtRecordError::NotZip(format!("not a readable zip archive ({})", what.into()))
}

/// The directory as the end record states it: (entries, offset, size).
fn directory(bytes: &[u8]) -> Result<(u64, u64, u64), EtRecordError> {
    let len = bytes.len();
    if len < END_LEN {
        return Err(not_zip("no end of central directory record"));
    }
    let window = len.saturating_sub(END_LEN + MAX_COMMENT);
    let sig = END_SIG.to_le_bytes();
    // The last end record in the window whose comment ends within the file.
    let end = memchr::memmem::rfind_iter(&bytes[window..len - END_LEN + 4], &sig)
        .map(|p| window + p)
        .find(|&p| p + END_LEN + u16_at(bytes, p + 20) as usize <= len)
        .ok_or_else(|| not_zip("no end of central directory record"))?;
    let mut count = u16_at(bytes, end + 10) as u64;
    let mut size = u32_at(bytes, end + 12) as u64;
    let mut offset = u32_at(bytes, end + 16) as u64;
    if count == 0xffff || size == 0xffff_ffff || offset == 0xffff_ffff {
        // Zip64: a locator just before the end record points at the zip64 end record.
        let loc = end
            .checked_sub(END64_LOCATOR_LEN)
            .filter(|&l| u32_at(bytes, l) == END64_LOCATOR_SIG)
            .ok_or_else(|| not_zip("zip64 end record locator missing"))?;
        let at = usize::try_from(u64_at(bytes, loc + 8))
            .ok()
            .filter(|&a| a.checked_add(END64_LEN).is_some_and(|e| e <= loc))
            .filter(|&a| u32_at(bytes, a) == END64_SIG)
            .ok_or_else(|| not_zip("zip64 end record missing"))?;
        count = u64_at(bytes, at + 32);
        size = u64_at(bytes, at + 40);
        offset = u64_at(bytes, at + 48);
    }
    Ok((count, offset, size))
}

impl<'a> Entries<'a> {
    pub fn open(bytes: &'a [u8]) -> Result<Entries<'a>, EtRecordError> {
        if bytes.is_empty() {
            return Err(EtRecordError::NotZip("the file is empty".into()));
        }
        let (count, offset, size) = directory(bytes)?;
        // Refused before a byte of the directory is read: its memory is then bounded.
        if count > MAX_ENTRIES as u64 {
            return Err(EtRecordError::TooManyEntries(count));
        }
        let dir = offset
            .checked_add(size)
            .filter(|&e| e <= bytes.len() as u64)
            .map(|e| &bytes[offset as usize..e as usize])
            .ok_or_else(|| {
                not_zip(format!(
                    "the central directory ({size} bytes at {offset}) lies outside the file"
                ))
            })?;
        // Sized by what the directory can hold, not by the end record's claim.
        let room = (dir.len() / CENTRAL_LEN).min(count as usize);
        let mut by_name: HashMap<Vec<u8>, (Entry, bool)> = HashMap::with_capacity(room);
        let mut duplicates = Vec::new();
        let mut at = 0usize;
        for i in 0..count {
            let bad = |what: &str| not_zip(format!("central directory entry {i}: {what}"));
            if dir.len() - at < CENTRAL_LEN {
                return Err(bad("cut short"));
            }
            if u32_at(dir, at) != CENTRAL_SIG {
                return Err(bad("no header signature"));
            }
            let h = &dir[at..];
            let name_len = u16_at(h, 28) as usize;
            let extra_len = u16_at(h, 30) as usize;
            let comment_len = u16_at(h, 32) as usize;
            let total = CENTRAL_LEN + name_len + extra_len + comment_len;
            if h.len() < total {
                return Err(bad("cut short"));
            }
            let name = &h[CENTRAL_LEN..CENTRAL_LEN + name_len];
            let extra = &h[CENTRAL_LEN + name_len..CENTRAL_LEN + name_len + extra_len];
            let mut entry = Entry {
                flags: u16_at(h, 8),
                method: u16_at(h, 10),
                crc: u32_at(h, 16),
                stored_size: u32_at(h, 20) as u64,
                size: u32_at(h, 24) as u64,
                local_offset: u32_at(h, 42) as u64,
            };
            zip64_extra(extra, &mut entry);
            at += total;
            match by_name.entry(name.to_vec()) {
                std::collections::hash_map::Entry::Vacant(v) => {
                    v.insert((entry, false));
                }
                std::collections::hash_map::Entry::Occupied(o) => {
                    let (kept, reported) = o.into_mut();
                    // Each name said once, however often it repeats.
                    if !*reported {
                        *reported = true;
                        duplicates.push(String::from_utf8_lossy(name).into_owned());
                    }
                    // The first in the file's order (local headers) is kept.
                    if entry.local_offset < kept.local_offset {
                        *kept = entry;
                    }
                }
            }
        }
        Ok(Entries {
            bytes,
            by_name: by_name.into_iter().map(|(n, (e, _))| (n, e)).collect(),
            duplicates,
        })
    }

    /// Names that appear more than once (the first entry of each is read).
    pub fn duplicates(&self) -> &[String] {
        &self.duplicates
    }

    /// The bytes of entry `name`, or None if there is none. A stored entry lies inside the
    /// file, so nothing is allocated beyond the slice it is copied from.
    pub fn read(&self, name: &str) -> Result<Option<&'a [u8]>, EtRecordError> {
        let Some(e) = self.by_name.get(name.as_bytes()).copied() else {
            return Ok(None);
        };
        let bad = |detail: String| EtRecordError::BadEntry {
            entry: name.to_string(),
            detail,
        };
        if e.flags & 1 != 0 {
            return Err(bad("is encrypted".into()));
        }
        if e.method != 0 {
            return Err(bad(format!(
                "unsupported zip (compression method {}; ETRecords are stored uncompressed)",
                e.method
            )));
        }
        if e.size != e.stored_size {
            return Err(bad(format!(
                "stored, yet its sizes differ ({} and {})",
                e.stored_size, e.size
            )));
        }
        let len = self.bytes.len() as u64;
        if e.size > len {
            return Err(bad(format!(
                "says it holds {} bytes, more than the whole file ({len})",
                e.size
            )));
        }
        let local = usize::try_from(e.local_offset)
            .ok()
            .filter(|&o| {
                o.checked_add(LOCAL_LEN)
                    .is_some_and(|end| end <= self.bytes.len())
            })
            .filter(|&o| u32_at(self.bytes, o) == LOCAL_SIG)
            .ok_or_else(|| bad(format!("no local header at offset {}", e.local_offset)))?;
        let start = local as u64
            + LOCAL_LEN as u64
            + u16_at(self.bytes, local + 26) as u64
            + u16_at(self.bytes, local + 28) as u64;
        let end = start + e.size;
        if end > len {
            return Err(bad(format!(
                "cut short: {} of {} bytes",
                len.saturating_sub(start),
                e.size
            )));
        }
        let data = &self.bytes[start as usize..end as usize];
        let mut crc = flate2::Crc::new();
        crc.update(data);
        if crc.sum() != e.crc {
            return Err(bad(format!(
                "CRC-32 {:08x} does not match the directory's {:08x}",
                crc.sum(),
                e.crc
            )));
        }
        Ok(Some(data))
    }
}

/// Sizes and offset from the zip64 extra field (id 1), for those the header marks
/// `0xffffffff`, in the order the format gives them.
fn zip64_extra(mut extra: &[u8], e: &mut Entry) {
    while extra.len() >= 4 {
        let id = u16_at(extra, 0);
        let n = (u16_at(extra, 2) as usize).min(extra.len() - 4);
        let mut field = &extra[4..4 + n];
        if id == 1 {
            for v in [&mut e.size, &mut e.stored_size, &mut e.local_offset] {
                if *v == 0xffff_ffff && field.len() >= 8 {
                    *v = u64_at(field, 0);
                    field = &field[8..];
                }
            }
            return;
        }
        extra = &extra[4 + n..];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stored(entries: &[(&str, &[u8])], tail: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut dir = Vec::new();
        for (n, d) in entries {
            let mut crc = flate2::Crc::new();
            crc.update(d);
            let off = out.len() as u32;
            out.extend_from_slice(&LOCAL_SIG.to_le_bytes());
            out.extend_from_slice(&[20, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
            out.extend_from_slice(&crc.sum().to_le_bytes());
            out.extend_from_slice(&(d.len() as u32).to_le_bytes());
            out.extend_from_slice(&(d.len() as u32).to_le_bytes());
            out.extend_from_slice(&(n.len() as u16).to_le_bytes());
            out.extend_from_slice(&[0, 0]);
            out.extend_from_slice(n.as_bytes());
            out.extend_from_slice(d);
            dir.extend_from_slice(&CENTRAL_SIG.to_le_bytes());
            dir.extend_from_slice(&[20, 0, 20, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
            dir.extend_from_slice(&crc.sum().to_le_bytes());
            dir.extend_from_slice(&(d.len() as u32).to_le_bytes());
            dir.extend_from_slice(&(d.len() as u32).to_le_bytes());
            dir.extend_from_slice(&(n.len() as u16).to_le_bytes());
            dir.extend_from_slice(&[0; 12]);
            dir.extend_from_slice(&off.to_le_bytes());
            dir.extend_from_slice(n.as_bytes());
        }
        let off = out.len() as u32;
        out.extend_from_slice(&dir);
        out.extend_from_slice(&END_SIG.to_le_bytes());
        out.extend_from_slice(&[0, 0, 0, 0]);
        out.extend_from_slice(&(entries.len() as u16).to_le_bytes());
        out.extend_from_slice(&(entries.len() as u16).to_le_bytes());
        out.extend_from_slice(&(dir.len() as u32).to_le_bytes());
        out.extend_from_slice(&off.to_le_bytes());
        out.extend_from_slice(&(tail.len() as u16).to_le_bytes());
        out.extend_from_slice(tail);
        out
    }

    #[test]
    fn entries_are_read_by_name_and_crc_checked() {
        let z = stored(&[("a", b"{}"), ("b/c", b"[1]")], b"a comment");
        let e = Entries::open(&z).unwrap();
        assert_eq!(e.read("b/c").unwrap(), Some(&b"[1]"[..]));
        assert_eq!(e.read("a").unwrap(), Some(&b"{}"[..]));
        assert_eq!(e.read("x").unwrap(), None);
        let mut bad = z.clone();
        let at = bad.windows(3).position(|w| w == b"[1]").unwrap();
        bad[at + 1] = b'2';
        let err = Entries::open(&bad).unwrap().read("b/c").unwrap_err();
        assert!(err.to_string().contains("CRC-32"), "{err}");
    }

    #[test]
    fn a_name_twice_is_read_from_its_first_entry_and_reported() {
        let z = stored(&[("m", b"1"), ("n", b"2"), ("m", b"3")], b"");
        let e = Entries::open(&z).unwrap();
        assert_eq!(e.read("m").unwrap(), Some(&b"1"[..]));
        assert_eq!(e.duplicates(), ["m".to_string()]);
    }

    #[test]
    fn a_flood_of_end_records_is_one_search() {
        let mut z = vec![0u8; 100_000];
        let mut rec = END_SIG.to_le_bytes().to_vec();
        rec.extend_from_slice(&[0, 0, 0, 0, 1, 0, 1, 0, 46, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
        for _ in 0..50_000 {
            z.extend_from_slice(&rec);
        }
        let t = std::time::Instant::now();
        let e = Entries::open(&z).err().unwrap().to_string();
        assert!(e.contains("not a readable zip archive"), "{e}");
        assert!(t.elapsed() < std::time::Duration::from_secs(1));
    }

    #[test]
    fn the_stated_count_is_refused_before_the_directory_is_read() {
        let mut z = stored(&[("a", b"1")], b"");
        let n = z.len();
        // 60,000 entries stated by the 16-bit count: under the limit, the directory is
        // then read and found cut short.
        z[n - 12..n - 10].copy_from_slice(&60_000u16.to_le_bytes());
        let e = Entries::open(&z).err().unwrap().to_string();
        assert!(e.contains("cut short"), "{e}");
    }
}
