//! The plots of `amq sim`: measured series solid with markers, formulas dashed, drawn to SVG.

use anyhow::{bail, Result};
use plotters::prelude::*;
use std::path::Path;

/// One line of a plot.
pub(super) struct Series {
    pub(super) name: String,
    pub(super) color: RGBColor,
    /// A formula (dashed, no markers) rather than a measurement (solid, with markers).
    pub(super) formula: bool,
    pub(super) points: Vec<(f64, f64)>,
}

/// A chart: its title, axis labels, a linear or logarithmic y axis, and its lines.
pub(super) struct Plot<'a> {
    pub(super) title: String,
    pub(super) x_label: &'a str,
    pub(super) y_label: &'a str,
    pub(super) log_y: bool,
    pub(super) series: Vec<Series>,
}

pub(super) const RED: RGBColor = RGBColor(0xd6, 0x27, 0x28);
pub(super) const BLUE: RGBColor = RGBColor(0x1f, 0x77, 0xb4);
pub(super) const GREEN: RGBColor = RGBColor(0x2c, 0xa0, 0x2c);

/// Draws `plot` to an SVG file at `path`.
pub(super) fn draw(path: &Path, plot: &Plot<'_>) -> Result<()> {
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
