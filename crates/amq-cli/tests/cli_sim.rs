//! `amq sim`: small, fast runs that check the CSV and the SVG and the rates they report.

mod common;

use common::{amq, success_json, Dir};

fn sim(args: &[&str], dir: &std::path::Path) -> serde_json::Value {
    let v = success_json(
        amq()
            .arg("sim")
            .args(args)
            .arg("--out")
            .arg(dir)
            .arg("--json"),
    );
    let csv = std::fs::read_to_string(v["csv"].as_str().unwrap()).unwrap();
    assert!(csv.lines().count() >= 2, "{csv}");
    let svg = std::fs::read_to_string(v["svg"].as_str().unwrap()).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("</svg>"));
    v
}

/// Every row of `amq sim negative`'s CSV: the measured false-negative and false-positive
/// rates within 4σ of the formulas. The queries draw with repetition from the domain's
/// present (or absent) items, whose answers the filter fixes, so σ² = p(1 − p)(1/queries +
/// 1/items): the sample's spread around those items' rate plus the items' rate's around p.
fn assert_negative_rows_track_the_formulas(csv: &str, domain: f64) {
    let mut rows = 0;
    for line in csv.lines().skip(1) {
        let r: Vec<f64> = line.split(',').map(|x| x.parse().unwrap()).collect();
        // distinct; present_queries, fnr, fnr_formula; absent_queries, fpr, fpr_formula
        let distinct = r[2];
        for (queries, items, got, want) in [
            (r[3], distinct, r[5], r[6]),
            (r[7], domain - distinct, r[9], r[10]),
        ] {
            if queries == 0.0 {
                continue;
            }
            let sigma = (want * (1.0 - want) * (1.0 / queries + 1.0 / items)).sqrt();
            assert!(
                (got - want).abs() <= 4.0 * sigma + 1e-9,
                "{got} vs {want} (σ {sigma}) in {line}"
            );
        }
        rows += 1;
    }
    assert!(rows >= 5, "{csv}");
}

#[test]
fn negative_b128_has_no_false_positives_and_b1_about_half() {
    let dir = Dir::new();
    let small = [
        "--l",
        "12",
        "--n",
        "20000",
        "--domain",
        "20000",
        "--queries",
        "20000",
    ];
    let v = sim(
        &[&["negative", "--b", "128"], &small[..]].concat(),
        dir.root(),
    );
    assert_eq!(v["max_fpr"], 0.0);
    // about 9,400 distinct items held by 4,096 slots: most are pushed out
    let fnr = v["fnr"].as_f64().unwrap();
    assert!(fnr > 0.5, "{fnr}");
    let csv = std::fs::read_to_string(dir.path("negative-l12-b128-w1.csv")).unwrap();
    assert_negative_rows_track_the_formulas(&csv, 20000.0);
    let v = sim(
        &[&["negative", "--b", "1"], &small[..]].concat(),
        dir.root(),
    );
    let fpr = v["fpr"].as_f64().unwrap();
    assert!(fpr > 0.35 && fpr <= 0.5, "{fpr}"); // occupancy / 2
    let csv = std::fs::read_to_string(dir.path("negative-l12-b1-w1.csv")).unwrap();
    assert!(csv.starts_with("occupancy,inserted,distinct,"));
    assert_negative_rows_track_the_formulas(&csv, 20000.0);
}

#[test]
fn bloom_and_window_track_the_formula() {
    let dir = Dir::new();
    let v = sim(
        &[
            "bloom",
            "--n",
            "5000",
            "--fpr",
            "0.05",
            "--points",
            "5",
            "--queries",
            "40000",
        ],
        dir.root(),
    );
    let (got, want) = (
        v["fpr"].as_f64().unwrap(),
        v["fpr_formula"].as_f64().unwrap(),
    );
    assert!(
        (got - want).abs() < 4.0 * (want * (1.0 - want) / 40000.0).sqrt(),
        "{got} vs {want}"
    );
    let v = sim(
        &[
            "window",
            "--window",
            "1024",
            "--chunk",
            "64",
            "--batch",
            "8",
            "--hashes",
            "3",
            "--n",
            "3000",
            "--points",
            "4",
            "--queries",
            "40000",
        ],
        dir.root(),
    );
    let (got, want) = (
        v["fpr_latest"].as_f64().unwrap(),
        v["fpr_latest_formula"].as_f64().unwrap(),
    );
    assert!(
        (got - want).abs() < 4.0 * (want * (1.0 - want) / 40000.0).sqrt() + 0.1 * want,
        "{got} vs {want}"
    );
    assert!(v["archived_chunks"].as_u64().unwrap() > 0);
}

#[test]
fn cuckoo_fills_past_95_percent_tracks_the_formula_and_deletes_without_false_negatives() {
    let dir = Dir::new();
    let queries = 40_000.0;
    let v = sim(
        &[
            "cuckoo",
            "--n",
            "20000",
            "--fingerprint-bits",
            "8",
            "--step",
            "0.1",
            "--queries",
            "40000",
        ],
        dir.root(),
    );
    let load = v["load_factor_at_first_refusal"].as_f64().unwrap();
    assert!((0.95..1.0).contains(&load), "{load}");
    assert_eq!(v["false_negatives"], 0);
    let csv = std::fs::read_to_string(v["csv"].as_str().unwrap()).unwrap();
    let rows: Vec<Vec<&str>> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect())
        .collect();
    for phase in ["fill", "full", "delete"] {
        assert!(
            rows.iter().any(|r| r[0] == phase),
            "no {phase} row in {csv}"
        );
    }
    for r in &rows {
        let (got, want): (f64, f64) = (r[5].parse().unwrap(), r[6].parse().unwrap());
        // 4σ of the binomial count, plus a little for the load's own spread
        let tolerance = 4.0 * (want * (1.0 - want) / queries).sqrt() + 1e-4;
        assert!((got - want).abs() < tolerance, "{r:?}");
        assert_eq!(r[7], "0", "false negatives in {r:?}");
    }
    // emptied by the deletes: nothing left to match
    assert_eq!(rows.last().unwrap()[1], "0");
    assert_eq!(rows.last().unwrap()[4], "0");
}

#[test]
fn aging_remembers_the_window_forgets_the_rest_and_keeps_its_bound() {
    let dir = Dir::new();
    let queries = 40_000.0;
    let v = sim(
        &[
            "aging",
            "--window",
            "3000",
            "--generations",
            "4",
            "--fpr",
            "0.02",
            "--n",
            "30000",
            "--points",
            "12",
            "--queries",
            "40000",
        ],
        dir.root(),
    );
    assert_eq!(v["false_negatives_in_window"], 0);
    let bound = v["fpr_bound"].as_f64().unwrap();
    assert!(bound <= 0.02, "{bound}");
    let csv = std::fs::read_to_string(v["csv"].as_str().unwrap()).unwrap();
    let mut forgotten_checked = 0;
    for line in csv.lines().skip(1) {
        let r: Vec<&str> = line.split(',').collect();
        let (got, expected): (f64, f64) = (r[3].parse().unwrap(), r[4].parse().unwrap());
        let sigma = (expected * (1.0 - expected) / queries).sqrt();
        assert!((got - expected).abs() <= 4.0 * sigma + 1e-4, "{line}");
        assert!(expected <= bound * (1.0 + 1e-9), "{line}");
        assert_eq!(r[7], "0", "an item of the window was missed: {line}");
        // items older than g·c: forgotten, so they answer "maybe" only as often as fresh ones
        let old_queries: f64 = r[8].parse().unwrap();
        if old_queries >= 1000.0 {
            let old: f64 = r[10].parse().unwrap();
            let old_sigma = (bound * (1.0 - bound) / old_queries).sqrt();
            assert!(old <= bound + 4.0 * old_sigma + 1e-4, "{line}");
            forgotten_checked += 1;
        }
    }
    assert!(forgotten_checked >= 6, "{csv}");
}

#[test]
fn bad_parameters_exit_2() {
    let dir = Dir::new();
    amq()
        .args(["sim", "cuckoo", "--fingerprint-bits", "10", "--out"])
        .arg(dir.root())
        .assert()
        .code(2);
    let dir = Dir::new();
    amq()
        .args(["sim", "negative", "--l", "50", "--out"])
        .arg(dir.root())
        .assert()
        .code(2);
    amq()
        .args(["sim", "window", "--chunk", "100", "--out"])
        .arg(dir.root())
        .assert()
        .code(2);
    amq()
        .args(["sim", "bloom", "--n", "0", "--out"])
        .arg(dir.root())
        .assert()
        .code(2);
}
