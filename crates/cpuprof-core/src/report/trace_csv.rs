//! One CSV row per op of a trace (times in ms), header first, written by the `csv`
//! crate: fields holding commas, quotes or line breaks are quoted (RFC 4180).

use crate::trace::TraceProfile;

pub const CSV_HEADER: &str = "name,calls,errors,inclusive_total_ms,self_total_ms,mean_ms,median_ms,min_ms,max_ms,p10_ms,p90_ms,p99_ms,stddev_ms,input_shapes,dtypes,inclusive_outer_total_ms";

pub fn to_csv(p: &TraceProfile) -> String {
    super::csv::document(|w| {
        w.write_record(CSV_HEADER.split(','))?;
        for o in &p.ops {
            let s = &o.stats;
            let shapes = o.input_shapes.as_ref().map_or(String::new(), |v| {
                v.iter()
                    .map(|sig| serde_json::to_string(sig).unwrap_or_default())
                    .collect::<Vec<_>>()
                    .join(";")
            });
            let dtypes = o.dtypes.as_ref().map_or(String::new(), |v| {
                v.iter()
                    .map(|sig| serde_json::to_string(sig).unwrap_or_default())
                    .collect::<Vec<_>>()
                    .join(";")
            });
            w.write_record([
                o.name.clone(),
                o.calls.to_string(),
                o.errors.to_string(),
                (o.inclusive_total_ns as f64 / 1e6).to_string(),
                (o.self_total_ns as f64 / 1e6).to_string(),
                s.mean.to_string(),
                s.median.to_string(),
                s.min.to_string(),
                s.max.to_string(),
                s.p10.to_string(),
                s.p90.to_string(),
                s.p99.to_string(),
                s.stddev.to_string(),
                shapes,
                dtypes,
                (o.inclusive_outer_total_ns as f64 / 1e6).to_string(),
            ])?;
        }
        Ok(())
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
