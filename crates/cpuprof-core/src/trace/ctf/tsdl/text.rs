//! Packetized metadata (packets of TSDL text, each behind a header) unwrapped into the
//! text, and the sniffing of a metadata file's first bytes.

use super::{err, MetaError};

/// Magic of a metadata packet header (`0x75D11D57`), in the trace's byte order.
pub const METADATA_MAGIC: u32 = 0x75D1_1D57;
/// Bytes of a metadata packet header: magic, uuid[16], checksum, content_size,
/// packet_size, compression, encryption, checksum scheme, major, minor.
const METADATA_HEADER_LEN: usize = 37;

/// The TSDL text of a metadata file: packetized (magic `0x75D11D57` in either byte order,
/// each packet's header stripped and its content kept) or plain text.
pub fn metadata_text(bytes: &[u8]) -> Result<String, MetaError> {
    let le = bytes.len() >= 4
        && u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) == METADATA_MAGIC;
    let be = bytes.len() >= 4
        && u32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) == METADATA_MAGIC;
    if !le && !be {
        if bytes.is_empty() {
            return err(0, "empty metadata file");
        }
        return match std::str::from_utf8(bytes) {
            Ok(t) if t.trim_start().starts_with("/* CTF") || looks_like_tsdl(t) => {
                Ok(t.to_string())
            }
            Ok(_) => err(
                0,
                "neither packetized metadata (magic 0x75D11D57) nor TSDL text (`/* CTF 1.8 */`)",
            ),
            Err(_) => err(
                0,
                "neither packetized metadata (magic 0x75D11D57) nor UTF-8 TSDL text",
            ),
        };
    }
    let u32_at = |b: &[u8], o: usize| -> u32 {
        let w = [b[o], b[o + 1], b[o + 2], b[o + 3]];
        if le {
            u32::from_le_bytes(w)
        } else {
            u32::from_be_bytes(w)
        }
    };
    let mut out = Vec::with_capacity(bytes.len());
    let mut off = 0usize;
    while off < bytes.len() {
        let rest = &bytes[off..];
        if rest.len() < METADATA_HEADER_LEN {
            return err(0, format!("metadata packet at offset {off} is cut short ({} bytes, header needs {METADATA_HEADER_LEN})", rest.len()));
        }
        if u32_at(rest, 0) != METADATA_MAGIC {
            return err(
                0,
                format!(
                    "metadata packet at offset {off} has a bad magic (0x{:08x})",
                    u32_at(rest, 0)
                ),
            );
        }
        // The version comes last in the header: when it is not 1.8 the header is not
        // the one CTF 1.8 writes (a shorter one puts the text where the version belongs),
        // and what follows is not to be read as text.
        let (major, minor) = (rest[35], rest[36]);
        if (major, minor) != (1, 8) {
            return err(
                0,
                format!(
                    "metadata packet at offset {off} has a bad header: version {major}.{minor} where 1.8 belongs (a header that is not CTF 1.8's 37 bytes)"
                ),
            );
        }
        let content_bits = u64::from(u32_at(rest, 24));
        let packet_bits = u64::from(u32_at(rest, 28));
        let (compression, encryption) = (rest[32], rest[33]);
        if compression != 0 || encryption != 0 {
            return err(
                0,
                format!(
                    "metadata packet at offset {off} is compressed or encrypted (not supported)"
                ),
            );
        }
        if content_bits % 8 != 0
            || packet_bits % 8 != 0
            || content_bits > packet_bits
            || content_bits < (METADATA_HEADER_LEN as u64) * 8
        {
            return err(0, format!("metadata packet at offset {off} has inconsistent sizes (content {content_bits} bits, packet {packet_bits} bits)"));
        }
        let content = (content_bits / 8) as usize;
        let packet = (packet_bits / 8) as usize;
        if content > rest.len() {
            return err(0, format!("metadata packet at offset {off} is truncated: content needs {content} bytes, file has {}", rest.len()));
        }
        out.extend_from_slice(&rest[METADATA_HEADER_LEN..content]);
        // The last packet may be written without its padding.
        off += packet.min(rest.len());
    }
    // Writers may pad the content with NULs.
    while out.last() == Some(&0) {
        out.pop();
    }
    String::from_utf8(out).or_else(|_| err(0, "metadata text is not UTF-8"))
}

/// Whether the first bytes of a file (a few hundred are enough) look like CTF metadata:
/// a metadata packet (magic in either byte order) or TSDL text (`/* CTF 1.8 */` or a
/// TSDL keyword first, after an optional BOM and white space).
pub fn looks_like_metadata(head: &[u8]) -> bool {
    if head.len() >= 4 {
        let w = [head[0], head[1], head[2], head[3]];
        if u32::from_le_bytes(w) == METADATA_MAGIC || u32::from_be_bytes(w) == METADATA_MAGIC {
            return true;
        }
    }
    let head = head.strip_prefix(b"\xef\xbb\xbf").unwrap_or(head);
    // A cut in the middle of a UTF-8 sequence at the end of the head is not a reason.
    let text = match std::str::from_utf8(head) {
        Ok(t) => t,
        Err(e) => match std::str::from_utf8(&head[..e.valid_up_to()]) {
            Ok(t) => t,
            Err(_) => return false,
        },
    };
    text.trim_start().starts_with("/* CTF") || looks_like_tsdl(text)
}

fn looks_like_tsdl(t: &str) -> bool {
    let t = t.trim_start();
    ["trace", "typealias", "typedef", "clock", "env", "struct"]
        .iter()
        .any(|k| t.starts_with(k))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packetized_metadata_is_unwrapped() {
        let text = b"/* CTF 1.8 */ trace { byte_order = le; };";
        let mut bytes = Vec::new();
        for chunk in text.chunks(20) {
            let content = (37 + chunk.len()) as u32;
            let packet = content + 3;
            bytes.extend_from_slice(&METADATA_MAGIC.to_le_bytes());
            bytes.extend_from_slice(&[0; 16]);
            bytes.extend_from_slice(&0u32.to_le_bytes());
            bytes.extend_from_slice(&(content * 8).to_le_bytes());
            bytes.extend_from_slice(&(packet * 8).to_le_bytes());
            bytes.extend_from_slice(&[0, 0, 0, 1, 8]);
            bytes.extend_from_slice(chunk);
            bytes.extend_from_slice(&[0; 3]);
        }
        assert_eq!(metadata_text(&bytes).unwrap().as_bytes(), text);
        // The last packet holds 1 byte of text: cut inside its header.
        bytes.truncate(bytes.len() - 10);
        let e = metadata_text(&bytes).unwrap_err();
        assert!(e.message.contains("cut short"), "{e}");
    }
}
