//! The 12-byte header of a flatcc size-prefixed ETDump: u32 LE `size` (bytes that follow),
//! u32 root offset, then the file identifier `ED00` (formats.md §1.1).

use super::EtDumpError;

/// Bytes before the first table: size prefix, root offset, identifier.
pub(crate) const HEADER_LEN: usize = 12;
pub(crate) const SIZE_PREFIX_LEN: usize = 4;
pub(crate) const IDENTIFIER: &[u8; 4] = b"ED00";

/// Checks the header and the size prefix against the file length. On success returns the
/// part of `bytes` the prefix covers, prefix included (`file[..4 + size]`): the flatbuffers
/// verifier checks alignment relative to the start of the slice it gets, and flatcc aligns
/// relative to file offset 0, so the prefix must stay in the slice.
pub(crate) fn check_header(bytes: &[u8]) -> Result<&[u8], EtDumpError> {
    let len = bytes.len();
    if len == 0 {
        return Err(EtDumpError::NotEtDump("empty file".into()));
    }
    if len < HEADER_LEN {
        return Err(EtDumpError::NotEtDump(format!(
            "only {len} byte{}, an ETDump header needs {HEADER_LEN}",
            if len == 1 { "" } else { "s" }
        )));
    }
    let ident = &bytes[8..12];
    if ident != IDENTIFIER {
        // A plain (not size-prefixed) flatbuffer has its identifier 4 bytes earlier.
        if &bytes[4..8] == IDENTIFIER {
            return Err(EtDumpError::NotEtDump(
                "file has no size prefix (plain flatbuffer?): identifier \"ED00\" found at \
                 bytes 4..8 instead of 8..12"
                    .into(),
            ));
        }
        return Err(EtDumpError::NotEtDump(format!(
            "identifier is \"{}\", expected \"ED00\"",
            ident.escape_ascii()
        )));
    }
    let declared = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) as u64;
    let available = (len - SIZE_PREFIX_LEN) as u64;
    if declared > available {
        return Err(EtDumpError::Incomplete {
            declared,
            available,
        });
    }
    if declared < available {
        // The runtime writes the buffer exactly; extra bytes mean the file was altered
        // (or two dumps were concatenated). The Python Inspector would ignore them.
        return Err(EtDumpError::Corrupt(format!(
            "size prefix says {declared} bytes follow, but the file has {available} \
             ({} trailing bytes)",
            available - declared
        )));
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(size: u32, root: u32, ident: &[u8; 4]) -> Vec<u8> {
        let mut v = size.to_le_bytes().to_vec();
        v.extend_from_slice(&root.to_le_bytes());
        v.extend_from_slice(ident);
        v
    }

    #[test]
    fn empty_is_not_etdump() {
        let e = check_header(&[]).unwrap_err();
        assert_eq!(e, EtDumpError::NotEtDump("empty file".into()));
    }

    #[test]
    fn shorter_than_header_is_not_etdump() {
        for n in 1..HEADER_LEN {
            let bytes = vec![0u8; n];
            match check_header(&bytes).unwrap_err() {
                EtDumpError::NotEtDump(msg) => {
                    assert!(msg.starts_with(&format!("only {n} byte")), "{msg}")
                }
                other => panic!("{n} bytes: {other:?}"),
            }
        }
    }

    #[test]
    fn wrong_identifier_is_named() {
        let bytes = header(8, 8, b"XX00");
        assert_eq!(
            check_header(&bytes).unwrap_err(),
            EtDumpError::NotEtDump("identifier is \"XX00\", expected \"ED00\"".into())
        );
    }

    #[test]
    fn unprintable_identifier_is_escaped() {
        let bytes = header(8, 8, &[0, 0xff, b'"', b'A']);
        match check_header(&bytes).unwrap_err() {
            EtDumpError::NotEtDump(msg) => {
                assert_eq!(msg, "identifier is \"\\x00\\xff\\\"A\", expected \"ED00\"")
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn plain_flatbuffer_is_recognised() {
        // root offset 16, identifier at 4..8, then anything.
        let mut bytes = 16u32.to_le_bytes().to_vec();
        bytes.extend_from_slice(b"ED00");
        bytes.extend_from_slice(&[0u8; 16]);
        match check_header(&bytes).unwrap_err() {
            EtDumpError::NotEtDump(msg) => {
                assert!(
                    msg.starts_with("file has no size prefix (plain flatbuffer?)"),
                    "{msg}"
                )
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn prefix_larger_than_file_is_incomplete() {
        let mut bytes = header(100, 8, b"ED00");
        bytes.extend_from_slice(&[0u8; 4]);
        assert_eq!(
            check_header(&bytes).unwrap_err(),
            EtDumpError::Incomplete {
                declared: 100,
                available: 12
            }
        );
        // u32::MAX does not overflow anything.
        let bytes = header(u32::MAX, 8, b"ED00");
        assert_eq!(
            check_header(&bytes).unwrap_err(),
            EtDumpError::Incomplete {
                declared: u32::MAX as u64,
                available: 8
            }
        );
    }

    #[test]
    fn trailing_bytes_are_corrupt() {
        let mut bytes = header(12, 8, b"ED00");
        bytes.extend_from_slice(&[0u8; 12]);
        match check_header(&bytes).unwrap_err() {
            EtDumpError::Corrupt(msg) => assert_eq!(
                msg,
                "size prefix says 12 bytes follow, but the file has 20 (8 trailing bytes)"
            ),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn exact_prefix_passes_whole_file() {
        let mut bytes = header(16, 8, b"ED00");
        bytes.extend_from_slice(&[0u8; 8]);
        assert_eq!(check_header(&bytes).unwrap().len(), bytes.len());
    }
}
