//! One CSV row per op of a trace (times in ms), header first, written by the `csv`
//! crate: fields holding commas, quotes or line breaks are quoted (RFC 4180).

use crate::rows::{Facts, RowTree};

pub const CSV_HEADER: &str = "name,calls,errors,inclusive_total_ms,self_total_ms,mean_ms,median_ms,min_ms,max_ms,p10_ms,p90_ms,p99_ms,stddev_ms,input_shapes,dtypes,inclusive_outer_total_ms";

/// One line per `op` row of `tree` (`RowTree::trace_ops`).
pub fn to_csv(tree: &RowTree) -> String {
    super::csv::document(|w| {
        w.write_record(CSV_HEADER.split(','))?;
        for o in tree.ops() {
            let Facts::Op {
                calls,
                errors,
                inclusive_ns,
                outer_ns,
                self_ns,
                shapes,
                dtypes,
            } = &o.facts
            else {
                continue;
            };
            let s = &o.stats;
            let fields = [
                calls.to_string(),
                errors.to_string(),
                (*inclusive_ns as f64 / 1e6).to_string(),
                (*self_ns as f64 / 1e6).to_string(),
                s.mean().to_string(),
                s.median().to_string(),
                s.min().to_string(),
                s.max().to_string(),
                s.p10().to_string(),
                s.p90().to_string(),
                s.p99().to_string(),
                s.stddev().to_string(),
                signatures(shapes),
                signatures(dtypes),
                (*outer_ns as f64 / 1e6).to_string(),
            ];
            // The name borrowed (it may be huge), the figures made.
            let name = std::iter::once(o.name.as_bytes());
            w.write_record(name.chain(fields.iter().map(|f| f.as_bytes())))?;
        }
        Ok(())
    })
}

/// Each signature as JSON, `;` between them; empty where the source has none.
fn signatures<T: serde::Serialize>(v: &Option<Vec<T>>) -> String {
    v.as_ref().map_or(String::new(), |v| {
        v.iter()
            .map(|sig| serde_json::to_string(sig).unwrap_or_default())
            .collect::<Vec<_>>()
            .join(";")
    })
}

#[cfg(test)]
mod tests {
    /// Quoted only where RFC 4180 needs it: a comma, a quote (doubled), a line break.
    #[test]
    fn quoting() {
        let text = super::super::csv::document(|w| {
            w.write_record(["a,b", "say \"hi\"", "aten::mm", "two\nlines", ""])
        });
        assert_eq!(
            text,
            "\"a,b\",\"say \"\"hi\"\"\",aten::mm,\"two\nlines\",\n"
        );
    }
}
