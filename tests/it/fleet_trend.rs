//! #43: `fleet --order commit` on a farm of 4 devices x 10 commits (one profile each;
//! `fixtures/fleet/farm_*`, made by `scripts/make_fleet_farm.py`; `farm_truth.json` says
//! what was injected). In both farms dev2 runs one operator 1.6x slower at every commit: a
//! device effect, which must never read as a commit change (it used to: "a change from
//! dev2/c00", the split falling between two profiles of one commit and every sample
//! pooled). `farm_null` has no commit effect: no change on any row. `farm_regress` has one
//! operator 1.3x slower on every device from c07 on: found at c07 (the first profile of
//! c07), whatever the order of the devices' names.

use std::path::Path;

use serde_json::Value;

use crate::support::fleet_files;
use fleet_files::{fx, ok_stdout};

fn truth() -> Value {
    serde_json::from_str(&std::fs::read_to_string(fx("fleet/farm_truth.json")).unwrap()).unwrap()
}

/// The farm copied with device `devN` named `names[N - 1]`.
fn renamed(farm: &str, names: &[&str; 4], into: &Path) {
    for (i, name) in names.iter().enumerate() {
        let from = fx(&format!("fleet/{farm}/dev{}", i + 1));
        for commit in std::fs::read_dir(&from).unwrap() {
            let commit = commit.unwrap();
            let to = into.join(name).join(commit.file_name());
            std::fs::create_dir_all(&to).unwrap();
            for f in std::fs::read_dir(commit.path()).unwrap() {
                let f = f.unwrap();
                std::fs::copy(f.path(), to.join(f.file_name())).unwrap();
            }
        }
    }
}

/// The one group of `fleet DIR --order commit` (no `--by`: every device together).
fn group(dir: &Path) -> Value {
    let t = truth();
    let v: Value = serde_json::from_str(&ok_stdout(&[
        "fleet",
        dir.to_str().unwrap(),
        "--format",
        "json",
        "--key",
        t["layout"].as_str().unwrap(),
        "--order",
        "commit",
    ]))
    .unwrap();
    let groups = v["groups"].as_array().unwrap();
    assert_eq!(groups.len(), 1);
    assert_eq!(groups[0]["profiles"].as_array().unwrap().len(), 40);
    groups[0].clone()
}

const ORDERS: [[&str; 4]; 4] = [
    ["a", "b", "c", "d"],
    ["d", "c", "b", "a"],
    ["b", "a", "c", "d"],
    ["a", "d", "b", "c"],
];

#[test]
fn a_device_effect_is_no_commit_change() {
    let t = truth();
    assert!(t["farm_null"]["change"].is_null());
    let slow_row = t["device_effect"]["row"].as_str().unwrap();
    for names in ORDERS {
        let dir = tempfile::tempdir().unwrap();
        renamed("farm_null", &names, dir.path());
        let g = group(dir.path());
        let mut seen = false;
        for r in g["rows"].as_array().unwrap() {
            assert!(
                r["change"].is_null(),
                "{names:?}: change on {}: {r}",
                r["name"]
            );
            if r["name"] == slow_row {
                seen = true;
                // The device effect is there to be seen: dev2's profiles are outliers.
                let slow = names[1];
                let outliers = r["outliers"].as_array().unwrap();
                assert!(!outliers.is_empty(), "{r}");
                assert!(
                    outliers
                        .iter()
                        .all(|o| o["id"].as_str().unwrap().starts_with(&format!("{slow}/"))),
                    "{r}"
                );
            }
        }
        assert!(seen);
    }
}

#[test]
fn a_regression_is_found_at_its_commit_whatever_the_device_order() {
    let t = truth();
    let want = &t["farm_regress"]["change"];
    let leaf = want["row"].as_str().unwrap();
    let factor = want["factor"].as_f64().unwrap();
    let from = want["from_commit"].as_str().unwrap();
    let device_row = t["device_effect"]["row"].as_str().unwrap();
    for names in ORDERS {
        let dir = tempfile::tempdir().unwrap();
        renamed("farm_regress", &names, dir.path());
        let g = group(dir.path());
        // The first profile of the commit: the device name first in natural order.
        let at = format!("a/{from}/run-1.etdp");
        let rows = g["rows"].as_array().unwrap();
        let leaf_row = rows.iter().find(|r| r["name"] == leaf).unwrap();
        let leaf_path: Vec<&Value> = leaf_row["path"].as_array().unwrap().iter().collect();
        let c = &leaf_row["change"];
        assert_eq!(c["at"], at.as_str(), "{names:?}: {leaf_row}");
        let d = c["delta_pct"].as_f64().unwrap();
        assert!(((factor - 1.0) * 100.0 - d).abs() < 10.0, "{d}");
        assert!(c["p_value"].as_f64().unwrap() <= 0.05);
        for r in rows {
            let path: Vec<&Value> = r["path"].as_array().unwrap().iter().collect();
            let on_path = leaf_path.starts_with(&path);
            if r["name"] == device_row || !on_path {
                assert!(
                    r["change"].is_null(),
                    "{names:?}: false change on {}: {r}",
                    r["name"]
                );
            } else if !r["change"].is_null() {
                assert_eq!(r["change"]["at"], at.as_str(), "{names:?}: {r}");
            }
        }
    }
}
