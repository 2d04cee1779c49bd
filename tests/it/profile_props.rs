//! The whole pipeline never panics: dumps with random byte flips that still parse, and
//! logs with random edits, go through attribution, statistics, checks and every report
//! format. (The readers' own property tests cover bytes that do not parse.)

use crate::common;

use common::fixture;
use cpuprof_tui::cli::ReportFormat;
use cpuprof_tui::profile::{build_profile, ProfileSource};
use cpuprof_tui::{etdump, report, runlog};
use proptest::prelude::*;

fn source() -> ProfileSource {
    ProfileSource {
        etdump: "fuzz.etdp".into(),
        log: Some("fuzz.log".into()),
    }
}

fn run_all(dump: &etdump::EtDump, log: &runlog::RunLog, warmup: usize) {
    if let Ok(p) = build_profile(dump, Some(log), warmup, source()) {
        // Every row's statistics are consistent whatever the input.
        if let Some(m) = &p.method {
            assert!(
                m.count == m.samples.len()
                    && (m.count == 0 || m.min() <= m.median() && m.median() <= m.max())
            );
        }
        for format in [ReportFormat::Table, ReportFormat::Json, ReportFormat::Csv] {
            let _ = report::render(&p, format);
        }
        let _ = cpuprof_tui::app::ExplorerData::from_profile(&p);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn flipped_dumps_that_parse_never_panic(
        flips in proptest::collection::vec((12usize..67_232, any::<u8>()), 1..24),
        warmup in 0usize..4,
    ) {
        let mut bytes = std::fs::read(fixture("cpu/cnn2_basic.etdp")).unwrap();
        for (at, x) in flips {
            let i = at % bytes.len();
            bytes[i] ^= x.max(1);
        }
        let log = runlog::parse(&std::fs::read(fixture("cpu/cnn2_basic.log")).unwrap());
        if let Ok(dump) = etdump::parse(&bytes) {
            run_all(&dump, &log, warmup);
        }
    }

    #[test]
    fn edited_logs_never_panic(
        edits in proptest::collection::vec((0usize..15_814, any::<u8>()), 1..40),
        cut in 0usize..15_814,
    ) {
        let dump = etdump::read_file(&fixture("cpu/cnn2_basic.etdp")).unwrap();
        let mut log = std::fs::read(fixture("cpu/cnn2_basic.log")).unwrap();
        for (at, x) in edits {
            let i = at % log.len();
            log[i] = x;
        }
        log.truncate(cut.max(1));
        run_all(&dump, &runlog::parse(&log), 3);
    }

    #[test]
    fn a_log_from_another_model_never_panics(warmup in 0usize..3) {
        // mlp's plan explains none of cnn2's steps: a plan_unmatched warning, no crash.
        let dump = etdump::read_file(&fixture("cpu/cnn2_basic.etdp")).unwrap();
        let log = runlog::parse(&std::fs::read(fixture("cpu/mlp_basic.log")).unwrap());
        let p = build_profile(&dump, Some(&log), warmup, source()).unwrap();
        prop_assert!(p.warnings.iter().any(|w| w.kind == "plan_unmatched"));
        run_all(&dump, &log, warmup);
    }
}
