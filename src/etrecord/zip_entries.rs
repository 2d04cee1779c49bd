//! The zip container of an ETRecord, through the `zip` crate without compression
//! support (ETRecords are written `ZIP_STORED`). Only the JSON entries asked for are
//! read; the `torch.save` pickles beside them are never opened.

use std::io::{Cursor, Read};

use super::{EtRecordError, MAX_ENTRIES};

pub(super) struct Entries<'a> {
    archive: zip::ZipArchive<Cursor<&'a [u8]>>,
    len: usize,
}

impl<'a> Entries<'a> {
    pub fn open(bytes: &'a [u8]) -> Result<Entries<'a>, EtRecordError> {
        if bytes.is_empty() {
            return Err(EtRecordError::NotZip("the file is empty".into()));
        }
        let archive = zip::ZipArchive::new(Cursor::new(bytes))
            .map_err(|e| EtRecordError::NotZip(zip_message(&e)))?;
        if archive.len() > MAX_ENTRIES {
            return Err(EtRecordError::TooManyEntries(archive.len()));
        }
        Ok(Entries {
            archive,
            len: bytes.len(),
        })
    }

    /// The bytes of entry `name`, or None if there is none. An entry is never larger
    /// than the file (it is stored, not compressed), so that bounds what is allocated.
    pub fn read(&mut self, name: &str) -> Result<Option<Vec<u8>>, EtRecordError> {
        let bad = |detail: String| EtRecordError::BadEntry {
            entry: name.to_string(),
            detail,
        };
        let mut file = match self.archive.by_name(name) {
            Ok(f) => f,
            Err(zip::result::ZipError::FileNotFound) => return Ok(None),
            Err(e) => return Err(bad(zip_message(&e))),
        };
        let size = file.size();
        if size > self.len as u64 {
            return Err(bad(format!(
                "says it holds {size} bytes, more than the whole file ({})",
                self.len
            )));
        }
        let mut out = Vec::with_capacity(size as usize);
        (&mut file)
            .take(size)
            .read_to_end(&mut out)
            .map_err(|e| bad(e.to_string()))?;
        if (out.len() as u64) < size {
            return Err(bad(format!("cut short: {} of {size} bytes", out.len())));
        }
        Ok(Some(out))
    }
}

fn zip_message(e: &zip::result::ZipError) -> String {
    use zip::result::ZipError;
    match e {
        ZipError::UnsupportedArchive(what) => {
            format!("unsupported zip ({what}; ETRecords are stored uncompressed)")
        }
        ZipError::InvalidArchive(what) => format!("not a readable zip archive ({what})"),
        ZipError::Io(io) => format!("not a readable zip archive ({io})"),
        other => format!("not a readable zip archive ({other})"),
    }
}
