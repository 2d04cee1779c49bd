//! A profile's metadata: fields taken from its path by a `--key` template
//! (`{device}/{commit}/run-{n}.etdp`), a sidecar `<stem>.meta.json` (a flat object) beside
//! it, and its `mtime`.

use std::path::Path;

use serde_json::{Map, Value};

/// A parsed `--key` template: literal text and `{name}` fields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyTemplate {
    parts: Vec<Part>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Lit(String),
    Field(String),
}

impl KeyTemplate {
    /// Err: one line saying what is wrong (an unclosed `{`, an empty or repeated name,
    /// two fields with nothing between them).
    pub fn parse(s: &str) -> Result<KeyTemplate, String> {
        let mut parts = Vec::new();
        let mut rest = s;
        let mut names: Vec<String> = Vec::new();
        while !rest.is_empty() {
            match rest.find('{') {
                Some(0) => {
                    let end = rest
                        .find('}')
                        .ok_or_else(|| "a `{` without its `}`".to_string())?;
                    let name = &rest[1..end];
                    if name.is_empty()
                        || !name
                            .chars()
                            .all(|c| c.is_alphanumeric() || c == '_' || c == '-' || c == '.')
                    {
                        return Err(format!(
                            "`{{{name}}}` is not a field name (letters, digits, _ - .)"
                        ));
                    }
                    if names.iter().any(|n| n == name) {
                        return Err(format!("field `{name}` appears twice"));
                    }
                    if matches!(parts.last(), Some(Part::Field(_))) {
                        return Err("two fields with nothing between them".into());
                    }
                    names.push(name.to_string());
                    parts.push(Part::Field(name.to_string()));
                    rest = &rest[end + 1..];
                }
                Some(i) => {
                    parts.push(Part::Lit(rest[..i].to_string()));
                    rest = &rest[i..];
                }
                None => {
                    if rest.contains('}') {
                        return Err("a `}` without its `{`".into());
                    }
                    parts.push(Part::Lit(rest.to_string()));
                    rest = "";
                }
            }
        }
        if names.is_empty() {
            return Err("no `{field}` in the template".into());
        }
        Ok(KeyTemplate { parts })
    }

    /// The field names, in template order.
    pub fn fields(&self) -> Vec<&str> {
        self.parts
            .iter()
            .filter_map(|p| match p {
                Part::Field(n) => Some(n.as_str()),
                Part::Lit(_) => None,
            })
            .collect()
    }

    /// The fields of `rel` (a path relative to the root, `/`-separated), or None when it
    /// does not have the template's shape. A field matches one or more characters other
    /// than `/`, as few as the rest allows.
    pub fn extract(&self, rel: &str) -> Option<Vec<(String, String)>> {
        let mut out = Vec::new();
        let mut failed = Default::default();
        matches(&self.parts, rel, 0, 0, &mut out, &mut failed).then_some(out)
    }
}

/// Whether `s[at..]` has the shape of `parts[k..]`, the fields filled into `out`. States
/// (part, position) known to fail are kept in `failed`, so fields that could end at many
/// places cost at most parts × positions tries, never a search over every combination.
fn matches(
    parts: &[Part],
    s: &str,
    k: usize,
    at: usize,
    out: &mut Vec<(String, String)>,
    failed: &mut std::collections::HashSet<(usize, usize)>,
) -> bool {
    if failed.contains(&(k, at)) {
        return false;
    }
    let rest = &s[at..];
    let ok = match parts.get(k) {
        None => rest.is_empty(),
        Some(Part::Lit(l)) => {
            rest.starts_with(l.as_str()) && matches(parts, s, k + 1, at + l.len(), out, failed)
        }
        Some(Part::Field(name)) => {
            let limit = rest.find('/').unwrap_or(rest.len());
            let ends = rest[..limit].char_indices().skip(1).map(|(e, _)| e);
            let mut found = false;
            for end in ends.chain([limit]).filter(|&e| e > 0) {
                out.push((name.clone(), rest[..end].to_string()));
                if matches(parts, s, k + 1, at + end, out, failed) {
                    found = true;
                    break;
                }
                out.pop();
            }
            found
        }
    };
    if !ok {
        failed.insert((k, at));
    }
    ok
}

/// The sidecar of a profile: `<stem>.meta.json` beside it (for a CTF directory,
/// `<dir>.meta.json` beside it, or `meta.json` in it).
pub fn sidecar_path(path: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    if let (Some(parent), Some(stem)) = (path.parent(), path.file_stem()) {
        out.push(parent.join(format!("{}.meta.json", stem.to_string_lossy())));
    }
    if path.is_dir() {
        out.push(path.join("meta.json"));
    }
    out
}

/// The sidecar's fields: Ok(None) when there is none, Err when it is not a flat JSON
/// object (nested values are refused).
pub fn read_sidecar(path: &Path) -> Result<Option<Map<String, Value>>, String> {
    let Some(file) = sidecar_path(path).into_iter().find(|p| p.is_file()) else {
        return Ok(None);
    };
    let name = file.display().to_string();
    // Read at most one byte over the limit: a huge sidecar is refused, never read whole.
    let mut bytes = Vec::new();
    std::fs::File::open(&file)
        .and_then(|f| {
            std::io::Read::read_to_end(&mut std::io::Read::take(f, (1 << 20) + 1), &mut bytes)
        })
        .map_err(|e| format!("{name}: {}", crate::input::io_message(&e)))?;
    if bytes.len() > 1 << 20 {
        return Err(format!("{name}: a sidecar over 1 MiB"));
    }
    let v: Value = serde_json::from_slice(&bytes).map_err(|e| format!("{name}: {e}"))?;
    let Value::Object(map) = v else {
        return Err(format!("{name}: not a JSON object"));
    };
    if let Some((k, _)) = map.iter().find(|(_, v)| v.is_object() || v.is_array()) {
        return Err(format!(
            "{name}: field `{k}` is not flat (an object or array)"
        ));
    }
    Ok(Some(map))
}

/// `mtime` as UTC `YYYY-MM-DDTHH:MM:SSZ` (sorts as text and naturally).
pub fn mtime_text(path: &Path) -> Option<String> {
    let t = std::fs::metadata(path).ok()?.modified().ok()?;
    let secs = t.duration_since(std::time::UNIX_EPOCH).ok()?.as_secs() as i64;
    Some(utc_text(secs))
}

/// Seconds since the epoch as UTC text (proleptic Gregorian calendar).
pub fn utc_text(secs: i64) -> String {
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let (y, m, d) = crate::units::civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn template_extracts_fields_from_the_relative_path() {
        let t = KeyTemplate::parse("{device}/{commit}/run-{n}.etdp").unwrap();
        assert_eq!(t.fields(), ["device", "commit", "n"]);
        let f = t.extract("pixel7/c10/run-3.etdp").unwrap();
        let want: Vec<(String, String)> = [("device", "pixel7"), ("commit", "c10"), ("n", "3")]
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect();
        assert_eq!(f, want);
        assert_eq!(t.extract("pixel7/run-3.etdp"), None);
        assert_eq!(t.extract("a/b/c/run-1.etdp"), None);
        // A field may hold dashes and dots; the literal after it decides where it ends.
        let t = KeyTemplate::parse("{device}-{n}.etdp").unwrap();
        let f = t.extract("pixel-7-12.etdp").unwrap();
        assert_eq!(f[0].1, "pixel");
        assert_eq!(f[1].1, "7-12");
    }

    /// Five fields in one 250-character name that never ends as the template does: a
    /// search over every split would try ~C(249, 4) = 1.6e8 of them; known failures cut
    /// it to parts × positions. Each field still takes as few characters as it can.
    #[test]
    fn many_fields_in_one_name_do_not_search_every_split() {
        let t = KeyTemplate::parse("{a}-{b}-{c}-{d}-{e}.etdp").unwrap();
        let name = "x-".repeat(125);
        let start = std::time::Instant::now();
        assert_eq!(t.extract(&name), None);
        assert!(
            start.elapsed() < std::time::Duration::from_secs(2),
            "{:?}",
            start.elapsed()
        );
        let f = t.extract(&format!("{name}y.etdp")).unwrap();
        let got: Vec<&str> = f.iter().map(|(_, v)| v.as_str()).collect();
        let tail = format!("{}y", "x-".repeat(121));
        assert_eq!(got, ["x", "x", "x", "x", tail.as_str()]);
    }

    #[test]
    fn bad_templates_say_why() {
        assert!(KeyTemplate::parse("{a").is_err());
        assert!(KeyTemplate::parse("{}").is_err());
        assert!(KeyTemplate::parse("{a}{b}").is_err());
        assert!(KeyTemplate::parse("{a}/{a}").is_err());
        assert!(KeyTemplate::parse("plain.etdp").is_err());
    }

    #[test]
    fn utc_text_of_known_instants() {
        assert_eq!(utc_text(0), "1970-01-01T00:00:00Z");
        // 2000-02-29 12:34:56 UTC = 951827696 (date -u -d @951827696).
        assert_eq!(utc_text(951_827_696), "2000-02-29T12:34:56Z");
        assert_eq!(utc_text(1_798_761_600), "2027-01-01T00:00:00Z");
    }
}
