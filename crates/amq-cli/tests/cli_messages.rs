//! What a new user meets first: the words of `amq build`'s summary, `amq plan` when a kind
//! cannot be planned, numeric options given a negative number, inputs that start with a
//! byte-order mark, the block file of `amq cashu block`, the errors for a size or a hex
//! line, and every command's `--help`.

mod common;

use common::*;

/// `amq build`'s summary says what went in and what the filter is sized for, for every kind:
/// `items_inserted` (as `amq info --json`) and `items_planned`, never one `items` that meant
/// either.
#[test]
fn build_summary_says_items_inserted_and_planned() {
    let dir = Dir::new();
    for kind in ["bloom", "blocked-bloom", "split-block-bloom", "cuckoo"] {
        let f = dir.path(&format!("{kind}.amq"));
        let build = |extra: &[&str], json: bool| {
            let mut cmd = amq();
            cmd.args(["build", "--kind", kind, "--fpr", "0.01", "-o"])
                .arg(&f)
                .args(extra)
                .arg("-")
                .write_stdin(words("w", 10));
            if json {
                cmd.arg("--json");
            }
            cmd.output().unwrap()
        };
        let out = build(&["--items", "100"], true);
        assert!(out.status.success(), "{kind}: {out:?}");
        let v = json(&out.stdout);
        assert_eq!(v["items_inserted"], 10, "{kind}: {v}");
        assert_eq!(v["items_planned"], 100, "{kind}: {v}");
        assert!(v.get("items").is_none(), "{kind}: {v}");
        assert_eq!(v["items_inserted"], info(&f)["items_inserted"], "{kind}");
        // bits per key and the expected fpr are those at the planned n
        assert_eq!(v["expected_at_items"], 100, "{kind}: {v}");
        let bits_per_key = v["bits_per_key"].as_f64().unwrap();
        assert_eq!(
            bits_per_key,
            v["m_bits"].as_f64().unwrap() / 100.0,
            "{kind}"
        );
        assert!(v["expected_fpr"].as_f64().unwrap() <= 0.01, "{kind}: {v}");
        let text = String::from_utf8(build(&["--items", "100"], false).stderr).unwrap();
        assert!(
            text.starts_with(&format!(
                "built {kind}: 10 items inserted, sized for 100 items"
            )),
            "{text}"
        );
        assert!(
            text.contains(&format!(
                "at 100 items: {bits_per_key:.2} bits per key, expected fpr"
            )),
            "{text}"
        );
        // without --items the filter is sized for the items counted
        let v = json(&build(&[], true).stdout);
        assert_eq!(
            (v["items_inserted"].clone(), v["items_planned"].clone()),
            (10.into(), 10.into())
        );
    }
}

/// The kinds `amq plan` lists (its JSON lines) and what it said on stderr.
fn plan_kinds(args: &[&str]) -> (Vec<String>, String) {
    let out = amq().arg("plan").args(args).arg("--json").output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{err}");
    let kinds = json_lines(&out.stdout)
        .iter()
        .map(|v| v["kind"].as_str().unwrap().to_owned())
        .collect();
    (kinds, err)
}

/// `amq plan` without --kind leaves out a kind that cannot be planned, with a line saying
/// which and why (as for --memory), for --fpr and --bits too; it fails only if no kind can.
/// With --kind the error names the kind.
#[test]
fn plan_leaves_out_the_kinds_it_cannot_plan() {
    // only the classic Bloom filter reaches ε = 1e-300 in 2^63 bits
    let (kinds, err) = plan_kinds(&["--items", "1000", "--fpr", "1e-300"]);
    assert_eq!(kinds, ["bloom"]);
    let left_out: Vec<&str> = err
        .lines()
        .map(|l| l.split(": not planned: invalid ").next().unwrap())
        .collect();
    assert_eq!(
        left_out,
        ["blocked-bloom", "cuckoo", "split-block-bloom"],
        "{err}"
    );
    let text = amq()
        .args(["plan", "--items", "1000", "--fpr", "1e-300"])
        .output()
        .unwrap();
    assert!(text.status.success());
    assert_eq!(String::from_utf8_lossy(&text.stderr), err);
    // only cuckoo takes a bit budget past 2^63 (its largest table)
    let (kinds, err) = plan_kinds(&["--items", "1000", "--bits", "18446744073709551615"]);
    assert_eq!(kinds, ["cuckoo"]);
    assert!(err.starts_with("bloom: not planned: invalid m: "), "{err}");
    // no kind fits 1 byte: one error line
    let out = amq()
        .args(["plan", "--items", "1000", "--memory", "1"])
        .output()
        .unwrap();
    let e = assert_one_error(&out, "cannot plan any kind: bloom: invalid m: ");
    assert!(e.contains("; cuckoo: invalid m: "), "{e}");
    assert!(out.stdout.is_empty());
    for (kind, why) in [
        ("cuckoo", "invalid fpr: 1e-300 needs"),
        ("blocked-bloom", "invalid n: 1000 items at ε = 1e-300"),
    ] {
        let out = amq()
            .args(["plan", "--items", "1000", "--fpr", "1e-300", "--kind", kind])
            .output()
            .unwrap();
        assert_one_error(&out, &format!("error: cannot plan {kind}: {why}"));
    }
}

/// A numeric option given a negative number is refused by its parser, as `--opt=-1` is, not
/// taken for an unknown flag (clap's tip then said to write `-- -1`, which fails too).
#[test]
fn a_negative_number_is_a_value_of_a_numeric_option() {
    let dir = Dir::new();
    dir.write("items.hex", "00\n");
    let cases: [(&[&str], &str, &str); 5] = [
        (
            &[
                "btc",
                "bip37",
                "build",
                "--elements",
                "3",
                "--fpr",
                "0.01",
                "items.hex",
            ],
            "--tweak",
            "<T>",
        ),
        (&["window", "contains", "w.amq", "x"], "--at", "<AT>"),
        (
            &["build", "--fpr", "0.01", "-o", "b.amq"],
            "--seed",
            "<SEED>",
        ),
        (&["plan", "--fpr", "0.01"], "--items", "<ITEMS>"),
        (&["plan", "--items", "5"], "--fpr", "<FPR>"),
    ];
    for (args, opt, name) in cases {
        let run = |value: &[String]| {
            amq()
                .current_dir(dir.root())
                .args(args)
                .args(value)
                .output()
                .unwrap()
        };
        let split = run(&[opt.to_string(), "-1".to_string()]);
        let joined = run(&[format!("{opt}=-1")]);
        let e = assert_one_error(&split, &format!("invalid value '-1' for '{opt} {name}': "));
        assert_eq!(e, String::from_utf8_lossy(&joined.stderr));
    }
}

/// A UTF-8 byte-order mark at the start of a text input is dropped, not made part of the first
/// item (or of its hex), in a file or on stdin; a JSON input with one is read as without.
#[test]
fn a_leading_byte_order_mark_is_dropped() {
    const BOM: &str = "\u{feff}";
    let dir = Dir::new();
    let file = dir.write("bom.txt", format!("{BOM}apple\r\npear\n"));
    let hex = dir.write("bom.hex", format!("{BOM}0xabcd\nef\n"));
    let contains = |f: &std::path::Path, args: &[&str]| {
        let out = amq()
            .arg("contains")
            .arg(f)
            .args(args)
            .args(["--json"])
            .output()
            .unwrap();
        json_lines(&out.stdout)
            .iter()
            .map(|v| v["maybe"].as_bool().unwrap())
            .collect::<Vec<bool>>()
    };
    for (name, input, stdin, hex_flag, items) in [
        ("file", Some(&file), None, false, ["apple", "pear"]),
        (
            "stdin",
            None,
            Some(format!("{BOM}apple\npear\n")),
            false,
            ["apple", "pear"],
        ),
        ("hex", Some(&hex), None, true, ["abcd", "ef"]),
    ] {
        let f = dir.path(&format!("{name}.amq"));
        let mut cmd = amq();
        cmd.args(["build", "--fpr", "0.000001", "-o"]).arg(&f);
        if hex_flag {
            cmd.arg("--hex");
        }
        match (input, stdin) {
            (Some(path), _) => cmd.arg(path),
            (None, text) => cmd.arg("-").write_stdin(text.unwrap()),
        };
        let out = cmd.output().unwrap();
        assert!(out.status.success(), "{name}: {out:?}");
        let mut args = items.to_vec();
        if hex_flag {
            args.insert(0, "--hex");
        }
        assert_eq!(contains(&f, &args), [true, true], "{name}");
        // the first item is not the BOM and the item
        let with_bom = if hex_flag {
            "efbbbfabcd".to_string()
        } else {
            format!("{BOM}apple")
        };
        let mut args = vec![with_bom.as_str()];
        if hex_flag {
            args.insert(0, "--hex");
        }
        assert_eq!(contains(&f, &args), [false], "{name}");
    }
    // JSON: amq eth bloom of a log
    let log = serde_json::json!({"address": format!("0x{}", "11".repeat(20)), "topics": []});
    let plain = amq()
        .args(["eth", "bloom"])
        .write_stdin(log.to_string())
        .output()
        .unwrap();
    assert!(plain.status.success(), "{plain:?}");
    let with_bom = amq()
        .args(["eth", "bloom"])
        .write_stdin(format!("{BOM}{log}"))
        .output()
        .unwrap();
    assert!(
        with_bom.status.success(),
        "{}",
        String::from_utf8_lossy(&with_bom.stderr)
    );
    assert_eq!(with_bom.stdout, plain.stdout);
}

/// `amq cashu block info` and `block fold` take the block as `--block FILE`, as `block match`
/// does, or as their argument (not both).
#[test]
fn every_cashu_block_command_takes_block_as_an_option() {
    let dir = Dir::new();
    let block = dir.path("0.bin");
    let built = amq()
        .args(["cashu", "block", "build", "--b", "6", "--raw", "-"])
        .write_stdin(lines((1..=2).map(|i| format!("{i:064x}"))))
        .output()
        .unwrap();
    assert!(built.status.success(), "{built:?}");
    std::fs::write(&block, &built.stdout).unwrap();
    for command in [&["info", "--json"][..], &["fold", "--to", "5"][..]] {
        let run = |how: &[&str]| {
            amq()
                .args(["cashu", "block"])
                .args(command)
                .args(how)
                .arg(&block)
                .output()
                .unwrap()
        };
        let positional = run(&[]);
        assert!(positional.status.success(), "{positional:?}");
        let option = run(&["--block"]);
        assert!(option.status.success(), "{command:?}: {option:?}");
        assert_eq!(option.stdout, positional.stdout);
        let both = amq()
            .args(["cashu", "block"])
            .args(command)
            .arg(&block)
            .arg("--block")
            .arg(&block)
            .output()
            .unwrap();
        assert_one_error(&both, "cannot be used with");
        let neither = amq()
            .args(["cashu", "block"])
            .args(command)
            .output()
            .unwrap();
        assert_one_error(&neither, "<BLOCK|--block <HEX|FILE>>");
    }
    let matched = amq()
        .args(["cashu", "block", "match", "--block"])
        .arg(&block)
        .arg("-")
        .write_stdin(lines([format!("{:064x}", 1)]))
        .output()
        .unwrap();
    assert!(matched.status.success(), "{matched:?}");
}

/// A size that is not a whole number with a known unit is refused with what a size is.
#[test]
fn a_size_error_says_what_a_size_is() {
    for size in ["1.5MB", "12 parsecs", "5XB", "-5", ""] {
        let out = amq()
            .args(["plan", "--items", "1000", "--memory", size])
            .output()
            .unwrap();
        let e = assert_one_error(
            &out,
            &format!("invalid value '{size}' for '--memory <MEMORY>': a size is a whole number"),
        );
        assert!(
            e.contains("KB, MB, GB") && e.contains("KiB, MiB, GiB"),
            "{e}"
        );
        assert!(!e.contains("unknown size unit"), "{e}");
    }
    let v = success_json(amq().args([
        "plan", "--items", "1000", "--memory", "1500KB", "--json", "--kind", "bloom",
    ]));
    assert_eq!(v["bytes"], 1_500_000);
}

/// A hex line with a character that is not a hex digit names it with its place in the line
/// (from 1, the `0x` counted), not in the digits after the `0x`.
#[test]
fn a_bad_hex_character_is_placed_in_its_line() {
    let dir = Dir::new();
    let f = dir.path("f.amq");
    let built = amq()
        .args(["build", "--fpr", "0.01", "-o"])
        .arg(&f)
        .arg("-")
        .write_stdin("a\n")
        .output()
        .unwrap();
    assert!(built.status.success(), "{built:?}");
    for (line, c, at) in [("0xzz", 'z', 3), ("abzz", 'z', 3), ("  0Xab-c", '-', 7)] {
        let out = amq()
            .args(["query", "--hex"])
            .arg(&f)
            .write_stdin(format!("00\n{line}\n"))
            .output()
            .unwrap();
        assert_one_error(
            &out,
            &format!(
                "error: -:2: invalid hex {line:?}: {c:?} at character {at} (counting from 1) \
                 is not a hex digit"
            ),
        );
    }
}

/// An empty input builds a filter of 0 items sized for 1 item, and the summary says so (it
/// said `0 items, ... (10.00 bits per key), expected fpr 0.8194%`, figures that are for 1).
#[test]
fn an_empty_input_builds_a_filter_sized_for_one_item() {
    let dir = Dir::new();
    for kind in ["bloom", "cuckoo"] {
        let build = |json: bool| {
            let mut cmd = amq();
            cmd.args(["build", "--kind", kind, "--fpr", "0.01", "-o"])
                .arg(dir.path(&format!("{kind}.amq")))
                .arg("-")
                .write_stdin("");
            if json {
                cmd.arg("--json");
            }
            cmd.output().unwrap()
        };
        let v = json(&build(true).stdout);
        assert_eq!(v["items_inserted"], 0, "{v}");
        assert_eq!(v["items_planned"], 1, "{v}");
        assert_eq!(v["expected_at_items"], 1, "{v}");
        assert_eq!(v["bits_per_key"].as_f64(), v["m_bits"].as_f64(), "{v}");
        let out = build(false);
        assert!(out.status.success(), "{out:?}");
        let text = String::from_utf8(out.stderr).unwrap();
        assert!(
            text.starts_with(&format!("built {kind}: 0 items inserted, sized for 1 item")),
            "{text}"
        );
        assert!(text.contains("; at 1 item: "), "{text}");
        assert!(!text.contains("1 items"), "{text}");
    }
}

/// The subcommands listed under `Commands:` in a help text (without `help`).
fn subcommands(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .filter_map(|l| l.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_owned)
        .collect()
}

/// Every command's `--help` reads as text: no Rust string escape shows through (`\"` from a
/// doc comment that escaped its quotes), and no alternation of names in backticks is split at
/// a line break of the source (`negative| ttl`: clap joins a doc comment's lines with a space).
#[test]
fn every_help_text_reads_without_source_artifacts() {
    let mut todo = vec![Vec::<String>::new()];
    let mut seen = 0;
    while let Some(path) = todo.pop() {
        let out = amq().args(&path).arg("--help").output().unwrap();
        assert!(out.status.success(), "amq {} --help failed", path.join(" "));
        let help = String::from_utf8(out.stdout).unwrap();
        seen += 1;
        assert!(
            !help.contains("\\\""),
            "amq {} --help shows an escaped quote: {help}",
            path.join(" ")
        );
        let split = help
            .as_bytes()
            .windows(3)
            .any(|w| w[0].is_ascii_alphanumeric() && w[1] == b'|' && w[2] == b' ');
        assert!(
            !split,
            "amq {} --help has an alternation split by a space (`a| b`): {help}",
            path.join(" ")
        );
        for sub in subcommands(&help) {
            let mut next = path.clone();
            next.push(sub);
            todo.push(next);
        }
    }
    assert!(seen > 70, "only {seen} help texts");
}
