//! `amq sim`: experiments that measure error rates as a structure fills, against the formula,
//! and write a CSV and an SVG plot.

use amq::cuckoo::{self, CuckooFilter};
use amq::math::{self, PlanKind, Target};
use amq::negative::{mean_false_negative_rate, NegativeCache};
use amq::window::{AgingBloom, Rotation, SlidingWindowBloom, WindowParams};
use amq::{AnyFilter, BlockedBloomFilter, BloomFilter, Filter, Insert, Remove};
use anyhow::{bail, Context, Result};
use plotters::prelude::*;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Measure error rates as a structure fills and compare them with the formula; writes
/// DIR/<name>.csv and DIR/<name>.svg.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  amq sim negative --l 16 --b 128 --n 1000000 --domain 100000 --out docs/sim
  amq sim negative --l 16 --b 1 --n 1000000 --domain 100000 --out docs/sim
  amq sim bloom --n 100000 --fpr 0.01 --out docs/sim
  amq sim cuckoo --n 100000 --fingerprint-bits 8 --out docs/sim
  amq sim window --window 4096 --chunk 256 --batch 16 --hashes 4 --n 1536 --out docs/sim
  amq sim aging --window 100000 --generations 4 --fpr 0.01 --n 1000000 --out docs/sim")]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Subcommand, Debug)]
enum Command {
    Negative(NegativeArgs),
    Bloom(BloomArgs),
    Cuckoo(CuckooArgs),
    Window(WindowArgs),
    Aging(AgingArgs),
}

/// Where the results go and how the run is seeded.
#[derive(clap::Args, Debug)]
struct Common {
    /// The directory for the CSV and the SVG (created if missing).
    #[arg(long)]
    out: PathBuf,
    /// The file name without extension (default: from the parameters).
    #[arg(long)]
    name: Option<String>,
    /// The seed of the random items and of the structure's hash.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Print a JSON summary on stdout.
    #[arg(long)]
    json: bool,
}

/// The seed's experiment (negative-bloom-filter.md): insert n random items drawn from a
/// domain, and each time the occupancy passes a multiple of 10% query `queries` more random
/// items of the domain: false positives among those not inserted, false negatives among those
/// inserted.
#[derive(clap::Args, Debug)]
struct NegativeArgs {
    /// l: 2^l slots.
    #[arg(long, default_value_t = 16)]
    l: u32,
    /// b, the fingerprint bits.
    #[arg(long, default_value_t = 128)]
    b: u32,
    /// w, the slots per set.
    #[arg(long, default_value_t = 1)]
    ways: u32,
    /// N, the items inserted (drawn with repetition from the domain).
    #[arg(long, default_value_t = 1_000_000)]
    n: u64,
    /// M, the size of the domain the items are drawn from.
    #[arg(long, default_value_t = 100_000)]
    domain: u64,
    /// Queries per measurement (default: n).
    #[arg(long)]
    queries: Option<u64>,
    #[command(flatten)]
    common: Common,
}

/// Fill a Bloom filter sized for n items and measure ε at `points` fills against the formula.
#[derive(clap::Args, Debug)]
struct BloomArgs {
    /// The layout.
    #[arg(long, value_enum, default_value = "bloom")]
    kind: super::BloomKind,
    /// n, the items the filter is sized for (and filled with).
    #[arg(long, default_value_t = 100_000)]
    n: u64,
    /// The target ε at n items (ignored with --bits).
    #[arg(long, value_parser = super::parse_fpr, default_value = "0.01")]
    fpr: f64,
    /// m, the bits (instead of --fpr).
    #[arg(long)]
    bits: Option<u64>,
    /// k, the hash functions (default: the best for n and m).
    #[arg(long)]
    hashes: Option<u32>,
    /// Measurements along the fill.
    #[arg(long, default_value_t = 20)]
    points: u64,
    /// Queries of items never inserted per measurement.
    #[arg(long, default_value_t = 200_000)]
    queries: u64,
    #[command(flatten)]
    common: Common,
}

/// Fill a cuckoo filter sized for n items until its first refused insert, measuring ε at
/// every `step` of load factor against `1 − (1 − 2^−f)^(2bα)`; then delete the items again,
/// oldest first, measuring ε on the way down and checking that every item not yet deleted is
/// still found.
#[derive(clap::Args, Debug)]
struct CuckooArgs {
    /// n, the items the filter is sized for (⌈n/(4 · 0.95)⌉ buckets); it is filled past n, to
    /// the first refused insert.
    #[arg(long, default_value_t = 100_000)]
    n: u64,
    /// f, the fingerprint bits (8, 12 or 16).
    #[arg(long, default_value_t = 8)]
    fingerprint_bits: u32,
    /// The load-factor step between measurements.
    #[arg(long, default_value_t = 0.05)]
    step: f64,
    /// Queries of items never inserted per measurement.
    #[arg(long, default_value_t = 200_000)]
    queries: u64,
    #[command(flatten)]
    common: Common,
}

/// Stream n distinct items through an aging filter (rotated by count) and, at `points` times,
/// measure ε on fresh items against the expected rate and the bound it was sized for, check
/// that every item of the last `window` insertions is found, and measure how many items
/// older than g·c insertions still answer "maybe" (they should be forgotten: about ε).
#[derive(clap::Args, Debug)]
struct AgingArgs {
    /// The insertions the filter must remember (at least).
    #[arg(long, default_value_t = 100_000)]
    window: u64,
    /// g, the generations.
    #[arg(long, default_value_t = 4)]
    generations: u32,
    /// The bound on ε the filter is sized for.
    #[arg(long, value_parser = super::parse_fpr, default_value = "0.01")]
    fpr: f64,
    /// n, the items streamed through.
    #[arg(long, default_value_t = 1_000_000)]
    n: u64,
    /// Measurements along the stream.
    #[arg(long, default_value_t = 40)]
    points: u64,
    /// Queries of fresh items (and of forgotten items) per measurement.
    #[arg(long, default_value_t = 100_000)]
    queries: u64,
    #[command(flatten)]
    common: Common,
}

/// Fill a sliding-window filter and measure ε against [`WindowParams::fpr`] at position B·W/S
/// (whose window fills as the items after it arrive, then leaves into the archive) and at the
/// newest position (whose window is only partly filled).
#[derive(clap::Args, Debug)]
struct WindowArgs {
    /// W, the window bits.
    #[arg(long, default_value_t = 4096)]
    window: u64,
    /// S, the chunk bits.
    #[arg(long, default_value_t = 256)]
    chunk: u64,
    /// B, the insertions per slide.
    #[arg(long, default_value_t = 16)]
    batch: u64,
    /// k, the indices per item.
    #[arg(long, default_value_t = 4)]
    hashes: u32,
    /// n, the items inserted (positions 0..n).
    #[arg(long, default_value_t = 1536)]
    n: u64,
    /// Measurements along the fill.
    #[arg(long, default_value_t = 48)]
    points: u64,
    /// Queries of items never inserted per measurement and position.
    #[arg(long, default_value_t = 100_000)]
    queries: u64,
    #[command(flatten)]
    common: Common,
}

/// Runs `amq sim`.
pub fn run(a: Args) -> Result<ExitCode> {
    match a.command {
        Command::Negative(a) => negative(a),
        Command::Bloom(a) => bloom(a),
        Command::Cuckoo(a) => cuckoo(a),
        Command::Window(a) => window(a),
        Command::Aging(a) => aging(a),
    }
}

/// One line of a plot.
struct Series {
    name: String,
    color: RGBColor,
    /// A formula (dashed, no markers) rather than a measurement (solid, with markers).
    formula: bool,
    points: Vec<(f64, f64)>,
}

struct Plot<'a> {
    title: String,
    x_label: &'a str,
    y_label: &'a str,
    log_y: bool,
    series: Vec<Series>,
}

const RED: RGBColor = RGBColor(0xd6, 0x27, 0x28);
const BLUE: RGBColor = RGBColor(0x1f, 0x77, 0xb4);
const GREEN: RGBColor = RGBColor(0x2c, 0xa0, 0x2c);

fn draw(path: &Path, plot: &Plot<'_>) -> Result<()> {
    let points = plot.series.iter().flat_map(|s| s.points.iter());
    let usable: Vec<(f64, f64)> = points
        .copied()
        .filter(|&(x, y)| x.is_finite() && y.is_finite() && (!plot.log_y || y > 0.0))
        .collect();
    if usable.is_empty() {
        bail!("nothing to plot");
    }
    let x_max = usable.iter().map(|p| p.0).fold(f64::MIN, f64::max);
    let x_min = usable.iter().map(|p| p.0).fold(f64::MAX, f64::min).min(0.0);
    let x_max = if x_max > x_min { x_max } else { x_min + 1.0 };
    let y_max = usable.iter().map(|p| p.1).fold(0.0, f64::max);
    let root = SVGBackend::new(path, (900, 560)).into_drawing_area();
    let err = |e: DrawingAreaErrorKind<std::io::Error>| {
        anyhow::anyhow!("cannot draw {}: {e}", path.display())
    };
    root.fill(&WHITE).map_err(err)?;
    let mut builder = ChartBuilder::on(&root);
    builder
        .caption(&plot.title, ("sans-serif", 20))
        .margin(16)
        .margin_right(48)
        .x_label_area_size(48)
        .y_label_area_size(80);
    let x_fmt = |v: &f64| {
        if x_max > 100.0 {
            format!("{v:.0}")
        } else {
            format!("{v:.2}")
        }
    };
    if plot.log_y {
        let y_min = usable.iter().map(|p| p.1).fold(f64::MAX, f64::min);
        let lo = 10f64.powf(y_min.log10().floor());
        let hi = 10f64.powf(y_max.log10().ceil()).max(lo * 10.0);
        let mut chart = builder
            .build_cartesian_2d(x_min..x_max, (lo..hi).log_scale())
            .map_err(err)?;
        chart
            .configure_mesh()
            .x_desc(plot.x_label)
            .x_label_formatter(&x_fmt)
            .y_desc(plot.y_label)
            .y_label_formatter(&|v| format!("{v:.0e}"))
            .draw()
            .map_err(err)?;
        draw_series(&mut chart, plot, SeriesLabelPosition::LowerRight).map_err(err)?;
    } else {
        let hi = if y_max > 0.0 { y_max * 1.1 } else { 1e-3 };
        let mut chart = builder
            .build_cartesian_2d(x_min..x_max, 0.0..hi)
            .map_err(err)?;
        chart
            .configure_mesh()
            .x_desc(plot.x_label)
            .x_label_formatter(&x_fmt)
            .y_desc(plot.y_label)
            .draw()
            .map_err(err)?;
        draw_series(&mut chart, plot, SeriesLabelPosition::UpperLeft).map_err(err)?;
    }
    root.present().map_err(err)?;
    Ok(())
}

/// Draws every series of `plot` on `chart` (formulas dashed, measurements solid with
/// markers; on a log axis the points at or below 0 are left out) and its legend at `legend`.
fn draw_series<'a, CT>(
    chart: &mut ChartContext<'a, SVGBackend<'a>, CT>,
    plot: &Plot<'_>,
    legend: SeriesLabelPosition,
) -> Result<(), DrawingAreaErrorKind<std::io::Error>>
where
    CT: CoordTranslate<From = (f64, f64)>,
{
    for s in &plot.series {
        let pts: Vec<(f64, f64)> = s
            .points
            .iter()
            .copied()
            .filter(|p| !plot.log_y || p.1 > 0.0)
            .collect();
        let (color, style) = (s.color, ShapeStyle::from(&s.color).stroke_width(2));
        let anno = if s.formula {
            chart.draw_series(DashedLineSeries::new(pts, 6, 4, style))?
        } else {
            chart.draw_series(LineSeries::new(pts, style).point_size(3))?
        };
        anno.label(s.name.clone()).legend(move |(x, y)| {
            PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
        });
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .position(legend)
        .draw()
}

/// Writes DIR/<name>.csv and DIR/<name>.svg and reports them.
fn finish(
    common: &Common,
    default_name: String,
    csv: String,
    plot: &Plot<'_>,
    summary: serde_json::Value,
) -> Result<ExitCode> {
    std::fs::create_dir_all(&common.out)
        .with_context(|| format!("cannot create {}", common.out.display()))?;
    let name = common.name.clone().unwrap_or(default_name);
    let csv_path = common.out.join(format!("{name}.csv"));
    let svg_path = common.out.join(format!("{name}.svg"));
    crate::fsio::write(&csv_path, csv.as_bytes())?;
    draw(&svg_path, plot)?;
    let mut summary = summary;
    summary["csv"] = csv_path.display().to_string().into();
    summary["svg"] = svg_path.display().to_string().into();
    crate::output::summary(common.json, &summary, || {
        format!("wrote {} and {}", csv_path.display(), svg_path.display())
    })?;
    Ok(ExitCode::SUCCESS)
}

fn negative(a: NegativeArgs) -> Result<ExitCode> {
    if a.domain == 0 || a.n == 0 {
        bail!("--n and --domain must be at least 1");
    }
    let mut cache = NegativeCache::new(a.l, a.b, a.ways, a.common.seed)?;
    let domain = usize::try_from(a.domain).context("--domain is too large")?;
    let mut truth = Vec::new();
    truth
        .try_reserve_exact(domain)
        .map_err(|_| crate::input::cannot_allocate(domain, "the domain (--domain)"))?;
    truth.resize(domain, false);
    let mut distinct = 0u64;
    let queries = a.queries.unwrap_or(a.n).max(1);
    let mut rng = StdRng::seed_from_u64(a.common.seed);
    let mut csv = String::from(
        "occupancy,inserted,distinct,present_queries,false_negatives,fnr,fnr_formula,absent_queries,false_positives,fpr,fpr_formula\n",
    );
    let mut rows: Vec<[f64; 5]> = Vec::new(); // occupancy, fnr, fnr formula, fpr, fpr formula
    let mut next = 0.1f64;
    let mut measure = |cache: &NegativeCache,
                       truth: &[bool],
                       distinct: u64,
                       inserted: u64,
                       rng: &mut StdRng,
                       csv: &mut String| {
        let (mut pos, mut fneg, mut neg, mut fpos) = (0u64, 0u64, 0u64, 0u64);
        for _ in 0..queries {
            let x = rng.random_range(0..a.domain);
            let present = cache.contains(&x);
            if truth[x as usize] {
                pos += 1;
                fneg += u64::from(!present);
            } else {
                neg += 1;
                fpos += u64::from(present);
            }
        }
        let rate = |k: u64, of: u64| if of == 0 { 0.0 } else { k as f64 / of as f64 };
        // an item pushed out still matches if one of the w fingerprints left equals its own
        let still_matches = (f64::from(cache.ways()) * (-f64::from(cache.b())).exp2()).min(1.0);
        let fnr_formula =
            mean_false_negative_rate(distinct, cache.slots(), cache.ways()) * (1.0 - still_matches);
        let fpr_formula = cache.estimated_fpr();
        let occ = cache.occupancy();
        let _ = writeln!(
            csv,
            "{occ:.6},{inserted},{distinct},{pos},{fneg},{:.6e},{fnr_formula:.6e},{neg},{fpos},{:.6e},{fpr_formula:.6e}",
            rate(fneg, pos),
            rate(fpos, neg)
        );
        rows.push([
            occ,
            rate(fneg, pos),
            fnr_formula,
            rate(fpos, neg),
            fpr_formula,
        ]);
    };
    // Measure at each multiple of 10% occupancy, as the seed does (and once at the end if the
    // occupancy never reached 10%).
    let mut measured = false;
    for i in 0..a.n {
        let x = rng.random_range(0..a.domain);
        cache.insert(&x);
        let seen = &mut truth[x as usize];
        distinct += u64::from(!*seen);
        *seen = true;
        if cache.occupancy() >= next {
            while cache.occupancy() >= next {
                next += 0.1;
            }
            measure(&cache, &truth, distinct, i + 1, &mut rng, &mut csv);
            measured = true;
        }
    }
    if !measured {
        measure(&cache, &truth, distinct, a.n, &mut rng, &mut csv);
    }
    let col = |j: usize| rows.iter().map(|r| (r[0], r[j])).collect::<Vec<_>>();
    let plot = Plot {
        title: format!(
            "negative cache: l = {}, b = {}, {} way{}, N = {}, M = {}",
            a.l,
            a.b,
            a.ways,
            if a.ways == 1 { "" } else { "s" },
            a.n,
            a.domain
        ),
        x_label: "occupancy (fraction of slots in use)",
        y_label: "rate",
        log_y: false,
        series: vec![
            Series {
                name: "false positives (measured)".into(),
                color: RED,
                formula: false,
                points: col(3),
            },
            Series {
                name: "false positives: occupancy·w·2^-b".into(),
                color: RED,
                formula: true,
                points: col(4),
            },
            Series {
                name: "false negatives (measured)".into(),
                color: BLUE,
                formula: false,
                points: col(1),
            },
            Series {
                name: "false negatives: mean P[Bin(j, w/2^l) >= w]·(1 - w·2^-b)".into(),
                color: BLUE,
                formula: true,
                points: col(2),
            },
        ],
    };
    let last = rows.last().copied().unwrap_or_default();
    let summary = serde_json::json!({
        "sim": "negative", "l": a.l, "b": a.b, "ways": a.ways, "n": a.n, "domain": a.domain,
        "occupancy": last[0], "fnr": last[1], "fnr_formula": last[2], "fpr": last[3], "fpr_formula": last[4],
        "max_fpr": rows.iter().map(|r| r[3]).fold(0.0, f64::max),
    });
    finish(
        &a.common,
        format!("negative-l{}-b{}-w{}", a.l, a.b, a.ways),
        csv,
        &plot,
        summary,
    )
}

fn bloom(a: BloomArgs) -> Result<ExitCode> {
    if a.n == 0 || a.points == 0 {
        bail!("--n and --points must be at least 1");
    }
    let kind = a.kind.plan_kind();
    let target = match a.bits {
        Some(m) => Target::Bits(m),
        None => Target::Fpr(a.fpr),
    };
    let plan = math::plan(kind, a.n, target, a.hashes)?;
    let seed = a.common.seed;
    let mut filter = match kind {
        PlanKind::BlockedBloom => {
            AnyFilter::BlockedBloom(BlockedBloomFilter::new(plan.m_bits, plan.k, seed)?)
        }
        _ => AnyFilter::Bloom(BloomFilter::new(plan.m_bits, plan.k, seed)?),
    };
    let mut rng = StdRng::seed_from_u64(seed);
    let mut csv = String::from("items,bits_per_key,queries,false_positives,fpr,fpr_formula\n");
    let mut rows = Vec::new();
    let mut inserted = 0u64;
    for p in 1..=a.points {
        let upto = (u128::from(a.n) * u128::from(p) / u128::from(a.points)) as u64;
        while inserted < upto {
            // inserted items have the top bit clear, queries have it set: never a member
            let x: u64 = rng.random::<u64>() >> 1;
            filter.insert(&x.to_le_bytes())?;
            inserted += 1;
        }
        let fp = (0..a.queries)
            .filter(|_| filter.contains(&(rng.random::<u64>() | 1 << 63).to_le_bytes()))
            .count() as u64;
        let formula = match kind {
            PlanKind::BlockedBloom => {
                math::blocked_fpr(inserted, plan.m_bits / math::BLOCK_BITS, plan.k)
            }
            _ => math::fpr_exact(inserted, plan.m_bits, plan.k),
        };
        let got = fp as f64 / a.queries.max(1) as f64;
        let _ = writeln!(
            csv,
            "{inserted},{:.4},{},{fp},{got:.6e},{formula:.6e}",
            plan.m_bits as f64 / inserted as f64,
            a.queries
        );
        rows.push((inserted as f64, got, formula));
    }
    let plot = Plot {
        title: format!(
            "{}: m = {} bits, k = {}, filled to n = {}",
            kind.name(),
            plan.m_bits,
            plan.k,
            a.n
        ),
        x_label: "items inserted",
        y_label: "false-positive rate (log scale)",
        log_y: true,
        series: vec![
            Series {
                name: "measured".into(),
                color: RED,
                formula: false,
                points: rows.iter().map(|r| (r.0, r.1)).collect(),
            },
            Series {
                name: if kind == PlanKind::BlockedBloom {
                    "formula (Poisson block load)".into()
                } else {
                    "formula (1 - (1 - 1/m)^kn)^k".into()
                },
                color: BLUE,
                formula: true,
                points: rows.iter().map(|r| (r.0, r.2)).collect(),
            },
        ],
    };
    let last = rows.last().copied().unwrap_or_default();
    let summary = serde_json::json!({
        "sim": "bloom", "kind": kind.name(), "m_bits": plan.m_bits, "k": plan.k, "n": a.n,
        "fpr": last.1, "fpr_formula": last.2,
    });
    finish(
        &a.common,
        format!("{}-n{}-m{}-k{}", kind.name(), a.n, plan.m_bits, plan.k),
        csv,
        &plot,
        summary,
    )
}

fn cuckoo(a: CuckooArgs) -> Result<ExitCode> {
    if a.n == 0 {
        bail!("--n must be at least 1");
    }
    if !(a.step > 0.0 && a.step < 1.0) {
        bail!("--step must be in (0, 1), got {}", a.step);
    }
    let seed = a.common.seed;
    let mut f = CuckooFilter::with_capacity(a.n, a.fingerprint_bits, seed)?;
    let bits = f.fingerprint_bits();
    let mut rng = StdRng::seed_from_u64(seed);
    let mut csv = String::from(
        "phase,items,load_factor,queries,false_positives,fpr,fpr_formula,false_negatives\n",
    );
    // (load factor, measured ε, formula) for each phase
    let (mut filling, mut deleting) = (Vec::new(), Vec::new());
    let mut keys: Vec<u64> = Vec::with_capacity(usize::try_from(f.slots()).unwrap_or(0));
    let mut measure = |f: &CuckooFilter, phase: &str, keys: &[u64], rng: &mut StdRng| {
        let fp = (0..a.queries)
            // members have the top bit clear, queries have it set: never a member
            .filter(|_| f.contains(&(rng.random::<u64>() | 1 << 63)))
            .count() as u64;
        let false_negatives = keys.iter().filter(|x| !f.contains(*x)).count();
        let got = fp as f64 / a.queries.max(1) as f64;
        let load = f.load_factor();
        let formula = cuckoo::fpr(bits, load);
        let _ = writeln!(
            csv,
            "{phase},{},{load:.6},{},{fp},{got:.6e},{formula:.6e},{false_negatives}",
            f.inserted(),
            a.queries
        );
        (load, got, formula, false_negatives)
    };
    let mut next = a.step;
    let full_at = loop {
        let x: u64 = rng.random::<u64>() >> 1;
        match f.insert(&x) {
            Ok(_) => keys.push(x),
            Err(amq::Error::Full { .. }) => break f.load_factor(),
            Err(e) => return Err(e.into()),
        }
        if f.load_factor() >= next {
            filling.push(measure(&f, "fill", &keys, &mut rng));
            next += a.step;
        }
    };
    filling.push(measure(&f, "full", &keys, &mut rng));
    // Delete oldest first, measuring each time the load falls below a multiple of the step.
    let mut next = (full_at / a.step).ceil() * a.step - a.step;
    let mut deleted = 0;
    while deleted < keys.len() {
        if !f.remove(&keys[deleted]) {
            bail!("an inserted item was not found to delete");
        }
        deleted += 1;
        if f.load_factor() <= next + 1e-12 {
            deleting.push(measure(&f, "delete", &keys[deleted..], &mut rng));
            next -= a.step;
        }
    }
    let false_negatives: usize = filling.iter().chain(&deleting).map(|r| r.3).sum();
    let col = |v: &[(f64, f64, f64, usize)], formula: bool| -> Vec<(f64, f64)> {
        v.iter()
            .map(|r| (r.0, if formula { r.2 } else { r.1 }))
            .collect()
    };
    let mut formula = col(&filling, true);
    formula.retain(|p| p.1 > 0.0);
    let plot = Plot {
        title: format!(
            "cuckoo filter: f = {bits}, {} buckets of 4, filled to the first refusal (α = {full_at:.4})",
            f.buckets()
        ),
        x_label: "load factor α",
        y_label: "false-positive rate (log scale)",
        log_y: true,
        series: vec![
            Series {
                name: "measured while filling".into(),
                color: RED,
                formula: false,
                points: col(&filling, false),
            },
            Series {
                name: "measured while deleting".into(),
                color: GREEN,
                formula: false,
                points: col(&deleting, false),
            },
            Series {
                name: format!("formula 1 - (1 - 2^-{bits})^(8α)"),
                color: BLUE,
                formula: true,
                points: formula,
            },
        ],
    };
    let last = filling.last().copied().unwrap_or_default();
    let summary = serde_json::json!({
        "sim": "cuckoo", "n": a.n, "fingerprint_bits": bits, "buckets": f.buckets(),
        "items_at_first_refusal": keys.len(), "load_factor_at_first_refusal": full_at,
        "fpr": last.1, "fpr_formula": last.2, "false_negatives": false_negatives,
    });
    finish(
        &a.common,
        format!("cuckoo-n{}-f{bits}", a.n),
        csv,
        &plot,
        summary,
    )
}

fn aging(a: AgingArgs) -> Result<ExitCode> {
    if a.n == 0 || a.points == 0 || a.queries == 0 {
        bail!("--n, --points and --queries must be at least 1");
    }
    let seed = a.common.seed;
    let mut f = AgingBloom::with_window(a.window, a.generations, a.fpr, seed)?;
    let Rotation::Count(c) = f.rotation() else {
        bail!("a count-rotated filter was expected");
    };
    let span = c * u64::from(f.generations()); // older than this: forgotten
    let mut rng = StdRng::seed_from_u64(seed);
    let mut csv = String::from(
        "items,queries,false_positives,fpr,fpr_expected,fpr_bound,window_checked,window_missed,old_queries,old_maybe,old_maybe_rate\n",
    );
    // items are 0, 1, 2, ... (top bit clear); fresh queries have the top bit set
    let (mut rows, mut missed_total) = (Vec::new(), 0u64);
    let mut inserted = 0u64;
    for p in 1..=a.points {
        let upto = (u128::from(a.n) * u128::from(p) / u128::from(a.points)) as u64;
        while inserted < upto {
            f.insert(&inserted)?;
            inserted += 1;
        }
        let fp = (0..a.queries)
            .filter(|_| f.contains(&(rng.random::<u64>() | 1 << 63)))
            .count() as u64;
        let got = fp as f64 / a.queries as f64;
        let recent = inserted.saturating_sub(a.window)..inserted;
        let missed = recent.clone().filter(|i| !f.contains(i)).count() as u64;
        missed_total += missed;
        let old_end = inserted.saturating_sub(span);
        // every forgotten item if there are at most `queries` of them, else a random sample
        let (old_queries, old_maybe) = if old_end <= a.queries {
            let hits = (0..old_end).filter(|i| f.contains(i)).count() as u64;
            (old_end, hits)
        } else {
            let hits = (0..a.queries)
                .filter(|_| f.contains(&rng.random_range(0..old_end)))
                .count() as u64;
            (a.queries, hits)
        };
        let old_rate = if old_queries == 0 {
            f64::NAN
        } else {
            old_maybe as f64 / old_queries as f64
        };
        let (expected, bound) = (f.estimated_fpr(), f.fpr_bound());
        let _ = writeln!(
            csv,
            "{inserted},{},{fp},{got:.6e},{expected:.6e},{bound:.6e},{},{missed},{old_queries},{old_maybe},{old_rate:.6e}",
            a.queries,
            recent.end - recent.start
        );
        rows.push((inserted as f64, got, expected, bound, old_rate));
    }
    let col = |j: usize| -> Vec<(f64, f64)> {
        rows.iter()
            .map(|r| (r.0, [r.1, r.2, r.3, r.4][j]))
            .filter(|p| p.1.is_finite())
            .collect()
    };
    let plot = Plot {
        title: format!(
            "aging bloom: window {}, g = {}, c = {c}, m = {} bits per generation, k = {}",
            a.window,
            f.generations(),
            f.m(),
            f.k()
        ),
        x_label: "items inserted",
        y_label: "rate (log scale)",
        log_y: true,
        series: vec![
            Series {
                name: "fresh items: false positives (measured)".into(),
                color: RED,
                formula: false,
                points: col(0),
            },
            Series {
                name: "expected from the live generations".into(),
                color: RED,
                formula: true,
                points: col(1),
            },
            Series {
                name: "bound it was sized for".into(),
                color: BLUE,
                formula: true,
                points: col(2),
            },
            Series {
                name: format!("items older than g·c = {span}: still \"maybe\" (measured)"),
                color: GREEN,
                formula: false,
                points: col(3),
            },
        ],
    };
    let last = rows.last().copied().unwrap_or_default();
    let summary = serde_json::json!({
        "sim": "aging", "window": a.window, "generations": f.generations(), "c": c,
        "m_bits_per_generation": f.m(), "k": f.k(), "n": a.n,
        "fpr": last.1, "fpr_expected": last.2, "fpr_bound": last.3,
        "max_fpr": rows.iter().map(|r| r.1).fold(0.0, f64::max),
        "old_maybe_rate": if last.4.is_finite() { serde_json::json!(last.4) } else { serde_json::Value::Null },
        "false_negatives_in_window": missed_total,
    });
    finish(
        &a.common,
        format!("aging-w{}-g{}", a.window, f.generations()),
        csv,
        &plot,
        summary,
    )
}

fn window(a: WindowArgs) -> Result<ExitCode> {
    if a.n == 0 || a.points == 0 {
        bail!("--n and --points must be at least 1");
    }
    let params = WindowParams {
        window_bits: a.window,
        chunk_bits: a.chunk,
        batch: a.batch,
        k: a.hashes,
    };
    let seed = a.common.seed;
    let mut f = SlidingWindowBloom::new(params, seed)?;
    let mut rng = StdRng::seed_from_u64(seed);
    // A fixed position whose window is the first to be covered by W/S full batches: its ε
    // rises to the steady state as the items after it arrive, then its chunks are archived.
    let fixed = params.batch * params.chunks();
    let mut csv = String::from("items,position,archived,queries,false_positives,fpr,fpr_formula\n");
    let (mut latest, mut old) = (Vec::new(), Vec::new());
    for p in 1..=a.points {
        let upto = (u128::from(a.n) * u128::from(p) / u128::from(a.points)) as u64;
        while f.next_position() < upto {
            let x: u64 = rng.random::<u64>() >> 1;
            f.insert(&x)?;
        }
        let n = f.next_position();
        if n == 0 {
            continue; // fewer items than points: nothing inserted yet
        }
        let mut probe = |position: u64| {
            let fp = (0..a.queries)
                .filter(|_| f.contains(&(rng.random::<u64>() | 1 << 63), position))
                .count() as u64;
            let got = fp as f64 / a.queries.max(1) as f64;
            let formula = params.fpr(n, position);
            let archived = position / params.batch < f.window_start_chunk();
            let _ = writeln!(
                csv,
                "{n},{position},{archived},{},{fp},{got:.6e},{formula:.6e}",
                a.queries
            );
            (n as f64, got, formula)
        };
        latest.push(probe(n - 1));
        old.push(probe(fixed));
    }
    let pts = |v: &[(f64, f64, f64)], j: usize| {
        v.iter()
            .map(|r| (r.0, if j == 1 { r.1 } else { r.2 }))
            .collect()
    };
    let series = vec![
        Series {
            name: format!("position B·W/S = {fixed} (measured)"),
            color: GREEN,
            formula: false,
            points: pts(&old, 1),
        },
        Series {
            name: format!("position {fixed} (formula)"),
            color: GREEN,
            formula: true,
            points: pts(&old, 2),
        },
        Series {
            name: "newest position (measured)".into(),
            color: RED,
            formula: false,
            points: pts(&latest, 1),
        },
        Series {
            name: "newest position (formula)".into(),
            color: RED,
            formula: true,
            points: pts(&latest, 2),
        },
    ];
    let plot = Plot {
        title: format!(
            "sliding-window bloom: W = {}, S = {}, B = {}, k = {}",
            params.window_bits, params.chunk_bits, params.batch, params.k
        ),
        x_label: "items inserted (positions)",
        y_label: "false-positive rate (log scale)",
        log_y: true,
        series,
    };
    let last = latest.last().copied().unwrap_or_default();
    let summary = serde_json::json!({
        "sim": "window", "window_bits": params.window_bits, "chunk_bits": params.chunk_bits,
        "batch": params.batch, "k": params.k, "n": a.n,
        "fpr_latest": last.1, "fpr_latest_formula": last.2,
        "steady_state_fpr": params.steady_state_fpr(),
        "archived_chunks": f.archived_chunks(), "archive_bytes": f.archive_bytes(),
    });
    finish(
        &a.common,
        format!(
            "window-W{}-S{}-B{}-k{}",
            params.window_bits, params.chunk_bits, params.batch, params.k
        ),
        csv,
        &plot,
        summary,
    )
}
