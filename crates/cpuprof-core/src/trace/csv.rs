//! One CSV row per op (times in ms), header first. Fields holding commas, quotes or
//! line breaks are quoted (RFC 4180).

use std::fmt::Write;

use super::model::TraceProfile;

pub const CSV_HEADER: &str = "name,calls,errors,inclusive_total_ms,self_total_ms,mean_ms,median_ms,min_ms,max_ms,p10_ms,p90_ms,p99_ms,stddev_ms,input_shapes,dtypes,inclusive_outer_total_ms";

pub fn to_csv(p: &TraceProfile) -> String {
    let mut out = String::new();
    out.push_str(CSV_HEADER);
    out.push('\n');
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
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
            quote(&o.name),
            o.calls,
            o.errors,
            o.inclusive_total_ns as f64 / 1e6,
            o.self_total_ns as f64 / 1e6,
            s.mean,
            s.median,
            s.min,
            s.max,
            s.p10,
            s.p90,
            s.p99,
            s.stddev,
            quote(&shapes),
            quote(&dtypes),
            o.inclusive_outer_total_ns as f64 / 1e6
        );
    }
    out
}

pub fn quote(field: &str) -> String {
    if field.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", field.replace('"', "\"\""))
    } else {
        field.to_string()
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn quoting() {
        assert_eq!(super::quote("a,b"), "\"a,b\"");
        assert_eq!(super::quote("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(super::quote("aten::mm"), "aten::mm");
    }
}
