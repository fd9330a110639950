//! The pictures of `bench reproduce`: line charts (a quantity against the graph's size)
//! and grouped bar charts (a group per graph, a bar per method), each written as SVG and
//! as PNG.
//!
//! An axis whose values span more than [`LOG_SPAN`] is logarithmic, labelled at every
//! power of ten with lighter lines at 2..9 of each decade. Methods keep their colour in
//! every picture of a run ([`Line::color`], [`Bars::color`] index [`PALETTE`]); a GPU
//! method's end-to-end line is dashed beside its solid kernel line, and a bar may carry a
//! black tick for a second figure of the same method (kernel time on an end-to-end bar).
//!
//! Text is drawn with DejaVu Sans, embedded in the binary (`fonts/`, with its licence:
//! the Bitstream Vera licence, DejaVu's changes public domain; from Debian's
//! `fonts-dejavu-core` 2.37), so neither building nor running needs a system font
//! library.

use std::path::{Path, PathBuf};

use anyhow::{anyhow, Result};
use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint};
use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// The family name the embedded font is registered under.
const FONT: &str = "sans-serif";
/// DejaVu Sans 2.37, unmodified.
const FONT_DATA: &[u8] = include_bytes!("fonts/DejaVuSans.ttf");
/// Pixels of every picture (the SVG's user units too).
const SIZE: (u32, u32) = (1280, 760);
/// Text sizes as plotters takes them (it draws them 1.24 times smaller): title, the line
/// under it, tick labels, axis labels, the legend.
const TITLE: f64 = 36.0;
const NOTE: f64 = 22.0;
const TICKS: f64 = 23.0;
const AXIS: f64 = 27.0;
const LEGEND: f64 = 24.0;
/// A value axis whose largest value exceeds its smallest this many times is logarithmic.
const LOG_SPAN: f64 = 30.0;
/// The same for the size axis of a line chart (sizes that double are drawn log-log).
const LOG_SPAN_X: f64 = 4.0;

/// Tableau 10: distinguishable, and readable in print and for most colour-blind readers.
const PALETTE: [RGBColor; 10] = [
    RGBColor(0x4e, 0x79, 0xa7),
    RGBColor(0xf2, 0x8e, 0x2b),
    RGBColor(0xe1, 0x57, 0x59),
    RGBColor(0x76, 0xb7, 0xb2),
    RGBColor(0x59, 0xa1, 0x4f),
    RGBColor(0xed, 0xc9, 0x48),
    RGBColor(0xb0, 0x7a, 0xa1),
    RGBColor(0xff, 0x9d, 0xa7),
    RGBColor(0x9c, 0x75, 0x5f),
    RGBColor(0x79, 0x70, 0x6e),
];

/// One series of a line chart.
pub struct Line {
    /// The legend's text.
    pub name: String,
    /// Index into [`PALETTE`] (modulo its length).
    pub color: usize,
    /// Dashed (an end-to-end time beside the solid kernel time of the same method).
    pub dashed: bool,
    /// (x, y) points; those not positive and finite are left out.
    pub points: Vec<(f64, f64)>,
}

/// One method's bars of a bar chart, one slot per group.
pub struct Bars {
    /// The legend's text.
    pub name: String,
    /// Index into [`PALETTE`].
    pub color: usize,
    /// Per group: the bar's height and an optional tick across it; `None` (or a height
    /// that is not positive) leaves the slot marked "n/a".
    pub values: Vec<Option<(f64, Option<f64>)>>,
}

/// What a figure draws.
pub enum Chart {
    /// Lines against a numeric x axis.
    Lines {
        /// The x axis's label, with its unit.
        x_label: String,
        /// The series.
        lines: Vec<Line>,
    },
    /// Bars grouped by `groups` (on the x axis).
    Bars {
        /// The groups' names.
        groups: Vec<String>,
        /// The series, each with one slot per group.
        bars: Vec<Bars>,
        /// The legend's text for the black tick (when a bar has one).
        tick: String,
    },
}

/// One picture.
pub struct Figure {
    /// The file stem (`floyd-warshall`).
    pub name: String,
    /// The title.
    pub title: String,
    /// A line under the title: what was measured, how.
    pub note: String,
    /// The y axis's label, with its unit.
    pub y_label: String,
    /// The data.
    pub chart: Chart,
}

impl Figure {
    /// Every positive, finite y value the figure would draw.
    fn y_values(&self) -> Vec<f64> {
        let v: Vec<f64> = match &self.chart {
            Chart::Lines { lines, .. } => lines
                .iter()
                .flat_map(|l| l.points.iter().map(|p| p.1))
                .collect(),
            Chart::Bars { bars, .. } => bars
                .iter()
                .flat_map(|b| b.values.iter().flatten())
                .flat_map(|&(v, t)| std::iter::once(v).chain(t))
                .collect(),
        };
        v.into_iter()
            .filter(|x| x.is_finite() && *x > 0.0)
            .collect()
    }

    /// Writes `dir/NAME.svg` and `dir/NAME.png` and returns their paths; writes nothing
    /// (and returns none) when the figure has no value to draw (every method refused).
    pub fn write(&self, dir: &Path) -> Result<Vec<PathBuf>> {
        if self.y_values().is_empty() {
            return Ok(Vec::new());
        }
        register_font()?;
        let svg = dir.join(format!("{}.svg", self.name));
        let png = dir.join(format!("{}.png", self.name));
        let fail = |p: &Path, e: String| anyhow!("drawing {}: {e}", p.display());
        {
            let root = SVGBackend::new(&svg, SIZE).into_drawing_area();
            self.draw(&root).map_err(|e| fail(&svg, e.to_string()))?;
            root.present().map_err(|e| fail(&svg, e.to_string()))?;
        }
        {
            let root = BitMapBackend::new(&png, SIZE).into_drawing_area();
            self.draw(&root).map_err(|e| fail(&png, e.to_string()))?;
            root.present().map_err(|e| fail(&png, e.to_string()))?;
        }
        Ok(vec![svg, png])
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult<(), DB> {
        root.fill(&WHITE)?;
        let body = root.margin(8, 0, 0, 0).titled(&self.title, (FONT, TITLE))?;
        body.draw(&Text::new(
            self.note.as_str(),
            (SIZE.0 as i32 / 2, 4),
            TextStyle::from((FONT, NOTE))
                .color(&RGBColor(80, 80, 80))
                .pos(Pos::new(HPos::Center, VPos::Top)),
        ))?;
        let body = body.margin(34, 0, 0, 0);
        let legend = self.legend_entries();
        let legend_style = TextStyle::from((FONT, LEGEND));
        let mut widest = 0;
        for (name, _) in &legend {
            widest = widest.max(root.estimate_text_size(name, &legend_style)?.0);
        }
        let legend_width = (widest + 70).min(SIZE.0 * 2 / 5);
        let (plot_area, legend_area) = body.split_horizontally(SIZE.0 - legend_width);
        let y = Scale::of(&self.y_values(), LOG_SPAN);
        let y_label = y.described(&self.y_label);
        match &self.chart {
            Chart::Lines { x_label, lines } => {
                let xs: Vec<f64> = lines
                    .iter()
                    .flat_map(|l| l.points.iter().map(|p| p.0))
                    .filter(|x| x.is_finite() && *x > 0.0)
                    .collect();
                let x = Scale::of(&xs, LOG_SPAN_X);
                let mut chart = ChartBuilder::on(&plot_area)
                    .margin(16)
                    .x_label_area_size(80)
                    .y_label_area_size(120)
                    .build_cartesian_2d(x.coord(), y.coord())?;
                mesh(&mut chart, &x.described(x_label), &y_label, &x, &y)?;
                for l in lines {
                    let style = PALETTE[l.color % PALETTE.len()].stroke_width(3);
                    let pts: Vec<(f64, f64)> = l
                        .points
                        .iter()
                        .filter(|p| x.fits(p.0) && y.fits(p.1))
                        .map(|&(a, b)| (x.map(a), y.map(b)))
                        .collect();
                    if l.dashed {
                        chart.draw_series(DashedLineSeries::new(pts.clone(), 12, 8, style))?;
                    } else {
                        chart.draw_series(LineSeries::new(pts.clone(), style))?;
                    }
                    chart
                        .draw_series(pts.iter().map(|&p| {
                            Circle::new(p, 5, PALETTE[l.color % PALETTE.len()].filled())
                        }))?;
                }
            }
            Chart::Bars { groups, bars, .. } => {
                let g = groups.len().max(1) as f64;
                let centres: Vec<f64> = (0..groups.len()).map(|i| i as f64 + 0.5).collect();
                let names = groups.clone();
                let x_label = move |v: &f64| {
                    let i = v.floor() as usize;
                    names.get(i).cloned().unwrap_or_default()
                };
                let mut chart = ChartBuilder::on(&plot_area)
                    .margin(16)
                    .x_label_area_size(80)
                    .y_label_area_size(120)
                    .build_cartesian_2d(
                        Coord {
                            lo: 0.0,
                            hi: g,
                            bold: centres,
                            light: Vec::new(),
                        },
                        y.coord(),
                    )?;
                let mut m = chart.configure_mesh();
                y_mesh(&mut m, &y_label, &y);
                m.disable_x_mesh()
                    .x_label_formatter(&x_label)
                    .x_desc("graph")
                    .draw()?;
                // Bars side by side, centred in their group, at most 0.3 groups wide.
                let width = (0.8 / bars.len().max(1) as f64).min(0.3);
                let start = 0.5 - width * bars.len() as f64 / 2.0;
                let floor = y.lo;
                for (k, b) in bars.iter().enumerate() {
                    let color = PALETTE[b.color % PALETTE.len()];
                    for (i, slot) in b.values.iter().enumerate() {
                        let left = i as f64 + start + k as f64 * width;
                        let right = left + width * 0.92;
                        match slot {
                            Some((v, tick)) if y.fits(*v) => {
                                chart.draw_series(std::iter::once(Rectangle::new(
                                    [(left, floor), (right, y.map(*v))],
                                    color.filled(),
                                )))?;
                                if let Some(t) = tick.filter(|t| y.fits(*t)) {
                                    chart.draw_series(std::iter::once(PathElement::new(
                                        vec![(left, y.map(t)), (right, y.map(t))],
                                        BLACK.stroke_width(4),
                                    )))?;
                                }
                            }
                            _ => {
                                chart.draw_series(std::iter::once(Text::new(
                                    "n/a",
                                    ((left + right) / 2.0, floor),
                                    TextStyle::from((FONT, 13))
                                        .color(&RGBColor(90, 90, 90))
                                        .pos(Pos::new(HPos::Center, VPos::Bottom)),
                                )))?;
                            }
                        }
                    }
                }
            }
        }
        draw_legend(&legend_area, &legend, &legend_style)
    }

    /// The legend: a name and its sample per entry.
    fn legend_entries(&self) -> Vec<(String, Sample)> {
        match &self.chart {
            Chart::Lines { lines, .. } => lines
                .iter()
                .filter(|l| !l.points.is_empty())
                .map(|l| (l.name.clone(), Sample::Line(l.color, l.dashed)))
                .collect(),
            Chart::Bars { bars, tick, .. } => {
                let mut v: Vec<(String, Sample)> = bars
                    .iter()
                    .map(|b| (b.name.clone(), Sample::Bar(b.color)))
                    .collect();
                let ticks = bars
                    .iter()
                    .flat_map(|b| b.values.iter().flatten())
                    .any(|v| v.1.is_some());
                if ticks {
                    v.push((tick.clone(), Sample::Tick));
                }
                v
            }
        }
    }
}

type DrawResult<T, DB> = Result<T, DrawingAreaErrorKind<<DB as DrawingBackend>::ErrorType>>;

/// How a legend entry is drawn.
enum Sample {
    /// A line of this colour, dashed or not, with a marker.
    Line(usize, bool),
    /// A filled square.
    Bar(usize),
    /// The black tick of bars.
    Tick,
}

fn draw_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    entries: &[(String, Sample)],
    style: &TextStyle,
) -> DrawResult<(), DB> {
    let row = 34;
    for (i, (name, sample)) in entries.iter().enumerate() {
        let y = 40 + i as i32 * row;
        match *sample {
            Sample::Line(c, dashed) => {
                let s = PALETTE[c % PALETTE.len()].stroke_width(3);
                let pts = vec![(4, y), (44, y)];
                if dashed {
                    area.draw(&DashedPathElement::new(pts, 8, 6, s))?;
                } else {
                    area.draw(&PathElement::new(pts, s))?;
                }
                area.draw(&Circle::new(
                    (24, y),
                    5,
                    PALETTE[c % PALETTE.len()].filled(),
                ))?;
            }
            Sample::Bar(c) => {
                area.draw(&Rectangle::new(
                    [(14, y - 9), (34, y + 9)],
                    PALETTE[c % PALETTE.len()].filled(),
                ))?;
            }
            Sample::Tick => {
                area.draw(&PathElement::new(
                    vec![(10, y), (38, y)],
                    BLACK.stroke_width(4),
                ))?;
            }
        }
        area.draw(&Text::new(
            name.as_str(),
            (54, y),
            style.pos(Pos::new(HPos::Left, VPos::Center)),
        ))?;
    }
    Ok(())
}

/// Draws the grid and both axes of a line chart.
fn mesh<DB: DrawingBackend>(
    chart: &mut ChartContext<'_, DB, Cartesian2d<Coord, Coord>>,
    x_label: &str,
    y_label: &str,
    x: &Scale,
    y: &Scale,
) -> DrawResult<(), DB> {
    let xf = |v: &f64| x.label(*v);
    let mut m = chart.configure_mesh();
    y_mesh(&mut m, y_label, y);
    m.x_desc(x_label).x_label_formatter(&xf).draw()
}

/// The y axis's part of a mesh: its label, tick labels, styles common to every chart.
fn y_mesh<'a, 'b, X, DB>(
    m: &mut plotters::chart::MeshStyle<'a, 'b, X, Coord, DB>,
    y_label: &str,
    y: &'b Scale,
) where
    X: Ranged,
    DB: DrawingBackend,
{
    m.y_desc(y_label)
        .y_label_formatter(&y.formatter)
        .label_style((FONT, TICKS))
        .axis_desc_style((FONT, AXIS))
        .bold_line_style(RGBColor(190, 190, 190))
        .light_line_style(RGBColor(235, 235, 235));
}

/// A coordinate: linear in the axis's mapped values, with the ticks a [`Scale`] chose
/// (bold at its labels, light between them).
#[derive(Clone)]
struct Coord {
    lo: f64,
    hi: f64,
    bold: Vec<f64>,
    light: Vec<f64>,
}

impl Ranged for Coord {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, v: &f64, limit: (i32, i32)) -> i32 {
        let share = (v - self.lo) / (self.hi - self.lo);
        limit.0 + (f64::from(limit.1 - limit.0) * share).round() as i32
    }

    fn key_points<Hint: KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        if hint.weight().allow_light_points() {
            self.light.clone()
        } else {
            self.bold.clone()
        }
    }

    fn range(&self) -> std::ops::Range<f64> {
        self.lo..self.hi
    }
}

/// An axis: logarithmic or linear, its range in mapped units (log10 of the value where
/// logarithmic) and its ticks.
struct Scale {
    log: bool,
    lo: f64,
    hi: f64,
    bold: Vec<f64>,
    light: Vec<f64>,
    formatter: Box<dyn Fn(&f64) -> String>,
}

impl Scale {
    /// The axis for `values` (positive, finite; at least one): logarithmic when the
    /// largest exceeds the smallest `log_span` times.
    fn of(values: &[f64], log_span: f64) -> Scale {
        let min = values.iter().copied().fold(f64::INFINITY, f64::min);
        let max = values.iter().copied().fold(0.0, f64::max);
        if max / min > log_span {
            // From 1, 2 or 5 times a power of ten below the least value (by 10% at least,
            // so that its bar shows) to the same above the greatest; labels at the ends
            // (unless a power of ten is near) and at every power of ten.
            let lo = nice_floor(min * 0.9).log10();
            let hi = nice_ceil(max * 1.02).log10();
            let decades = lo.floor() as i32..=hi.ceil() as i32;
            let inside = |v: &f64| *v >= lo - 1e-9 && *v <= hi + 1e-9;
            let mut bold: Vec<f64> = decades.clone().map(f64::from).filter(inside).collect();
            for end in [lo, hi] {
                // An end close to a power of ten keeps no label (they would overlap).
                if !bold.iter().any(|b| (b - end).abs() < 0.32) {
                    bold.push(end);
                }
            }
            bold.sort_by(f64::total_cmp);
            let light = decades
                .flat_map(|e| (2..10).map(move |k| f64::from(e) + (k as f64).log10()))
                .filter(inside)
                .collect();
            Scale {
                log: true,
                lo,
                hi,
                bold,
                light,
                // One style per axis: powers of ten throughout when any label needs one.
                formatter: Box::new(move |v| log_label(*v, hi >= 6.0 || lo < -3.0)),
            }
        } else {
            let step = nice_step(max / 5.0);
            let hi = (max / step).ceil() * step;
            let n = (hi / step).round() as usize;
            let bold: Vec<f64> = (0..=n).map(|i| i as f64 * step).collect();
            let light = (0..n).map(|i| (i as f64 + 0.5) * step).collect();
            Scale {
                log: false,
                lo: 0.0,
                hi,
                bold,
                light,
                formatter: Box::new(move |v| number_label(*v, step)),
            }
        }
    }

    /// The axis's label, saying when it is logarithmic.
    fn described(&self, label: &str) -> String {
        if self.log {
            format!("{label}, log scale")
        } else {
            label.to_string()
        }
    }

    /// A value in the axis's mapped units.
    fn map(&self, v: f64) -> f64 {
        if self.log {
            v.log10()
        } else {
            v
        }
    }

    /// Whether `v` can be drawn on this axis.
    fn fits(&self, v: f64) -> bool {
        v.is_finite() && (v > 0.0 || !self.log)
    }

    /// The tick label at mapped position `v`.
    fn label(&self, v: f64) -> String {
        (self.formatter)(&v)
    }

    fn coord(&self) -> Coord {
        Coord {
            lo: self.lo,
            hi: self.hi,
            bold: self.bold.clone(),
            light: self.light.clone(),
        }
    }
}

/// The label at `v` = log10 of the value (a power of ten, or an axis end at 1, 2 or 5
/// times one): plain digits (0.001 to 100,000), or `scientific`ally (`5×10⁶`, `10⁶`).
fn log_label(v: f64, scientific: bool) -> String {
    let e = (v + 1e-9).floor();
    let k = 10f64.powf(v - e).round() as u64;
    let e = e as i32;
    match e {
        _ if scientific && k == 1 => power_of_ten(e),
        _ if scientific => format!("{k}×{}", power_of_ten(e)),
        -3..=-1 => {
            let x = k as f64 * 10f64.powi(e);
            let decimals = (-e) as usize;
            format!("{x:.decimals$}")
        }
        0..=5 => thousands(k * 10u64.pow(e as u32)),
        _ if k == 1 => power_of_ten(e),
        _ => format!("{k}×{}", power_of_ten(e)),
    }
}

/// 10 with the exponent `e` in superscript: `10⁶`, `10⁻⁴`.
fn power_of_ten(e: i32) -> String {
    const SUP: [char; 10] = ['⁰', '¹', '²', '³', '⁴', '⁵', '⁶', '⁷', '⁸', '⁹'];
    let digits: String = e
        .unsigned_abs()
        .to_string()
        .chars()
        .map(|c| SUP[c.to_digit(10).unwrap_or(0) as usize])
        .collect();
    format!("10{}{digits}", if e < 0 { "⁻" } else { "" })
}

/// The greatest of 1, 2 and 5 times a power of ten at or below `x` (positive).
fn nice_floor(x: f64) -> f64 {
    let p = 10f64.powf(x.log10().floor());
    [5.0, 2.0, 1.0]
        .into_iter()
        .map(|k| k * p)
        .find(|s| *s <= x * (1.0 + 1e-9))
        .unwrap_or(p)
}

/// The least of 1, 2 and 5 times a power of ten at or above `x` (positive).
fn nice_ceil(x: f64) -> f64 {
    nice_step(x)
}

/// A linear axis's label: as many decimals as the step needs.
fn number_label(v: f64, step: f64) -> String {
    let decimals = (-step.log10().floor()).max(0.0) as usize;
    if decimals == 0 {
        thousands(v.round() as u64)
    } else {
        format!("{v:.decimals$}")
    }
}

/// 1, 2 or 5 times a power of ten, the least at or above `raw`.
fn nice_step(raw: f64) -> f64 {
    let p = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|k| k * p)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * p)
}

/// `1234567` as `1,234,567`.
fn thousands(v: u64) -> String {
    let s = v.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Registers the embedded font once.
fn register_font() -> Result<()> {
    static DONE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    let ok = *DONE
        .get_or_init(|| plotters::style::register_font(FONT, FontStyle::Normal, FONT_DATA).is_ok());
    if ok {
        Ok(())
    } else {
        Err(anyhow!("the embedded font could not be read"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A GPU run's figures as they will look: many methods, ticks, refusals.
    fn samples() -> Vec<Figure> {
        let methods = [
            "gpu auto",
            "gpu delta-stepping",
            "gpu dijkstra-parallel",
            "gpu bellman-ford-queue",
            "gpu bellman-ford",
            "gpu spmv-csr",
            "gpu spmv-ell",
            "cpu delta-stepping",
            "cpu dijkstra",
        ];
        let bars = methods
            .iter()
            .enumerate()
            .map(|(k, m)| Bars {
                name: m.to_string(),
                color: k,
                values: (0..3)
                    .map(|g| {
                        let v = 7.5 * 2f64.powi(k as i32 + g);
                        match (k, g) {
                            (6, 0) => None,
                            (7 | 8, _) => Some((v * 10.0, None)),
                            _ => Some((v, Some(v * 1.5))),
                        }
                    })
                    .collect(),
            })
            .collect();
        let sizes = [10.0, 50.0, 100.0, 500.0, 1000.0, 2000.0, 4000.0, 8000.0];
        let mut lines = vec![Line {
            name: "cpu".into(),
            color: 0,
            dashed: false,
            points: sizes
                .iter()
                .map(|&n| (n, 1e-6 * n * n * n / 4.0 + 0.1))
                .collect(),
        }];
        for (k, v) in ["fw-tuned", "fw-blocked", "fw-naive"].iter().enumerate() {
            for (dashed, extra) in [(false, 0.0), (true, 0.3)] {
                lines.push(Line {
                    name: format!("gpu {v}, {}", if dashed { "end to end" } else { "kernels" }),
                    color: k + 1,
                    dashed,
                    points: sizes
                        .iter()
                        .map(|&n| (n, 1e-10 * n * n * n * (k as f64 + 1.0) * 4.0 + 0.04 + extra))
                        .collect(),
                });
            }
        }
        vec![
            Figure {
                name: "bars".into(),
                title: "The CUDA SSSP thesis: SSSP variants, GPU and CPU".into(),
                note: "2^22 vertices, weights 1..255".into(),
                y_label: "time (ms, median)".into(),
                chart: Chart::Bars {
                    groups: vec!["kron 22".into(), "urand 22".into(), "grid 2048x2048".into()],
                    bars,
                    tick: "GPU end to end".into(),
                },
            },
            Figure {
                name: "lines".into(),
                title: "The GPU Floyd-Warshall article (Fig. 5): time against vertices".into(),
                note: "undirected grids".into(),
                y_label: "time (ms, median)".into(),
                chart: Chart::Lines {
                    x_label: "vertices (n)".into(),
                    lines,
                },
            },
        ]
    }

    #[test]
    fn figures_are_written_as_svg_and_png_with_their_text() {
        let d = tempfile::tempdir().unwrap();
        for f in samples() {
            let files = f.write(d.path()).unwrap();
            assert_eq!(files.len(), 2);
            let svg = std::fs::read_to_string(&files[0]).unwrap();
            assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
            assert!(svg.contains(&f.title) && svg.contains("log scale"), "{svg}");
            let png = std::fs::read(&files[1]).unwrap();
            assert!(png.starts_with(b"\x89PNG\r\n\x1a\n") && png.len() > 10_000);
        }
        // A figure with nothing to draw writes nothing.
        let empty = Figure {
            chart: Chart::Lines {
                x_label: "n".into(),
                lines: Vec::new(),
            },
            ..samples().remove(1)
        };
        assert!(empty.write(d.path()).unwrap().is_empty());
    }

    #[test]
    fn axes_go_logarithmic_over_wide_ranges_with_readable_labels() {
        let s = Scale::of(&[0.04, 2.0, 1800.0], LOG_SPAN);
        assert!(s.log);
        let labels: Vec<String> = s.bold.iter().map(|v| s.label(*v)).collect();
        assert_eq!(labels, ["0.02", "0.1", "1", "10", "100", "1,000"]);
        assert!((s.lo - 0.02f64.log10()).abs() < 1e-12 && (s.hi - 2000f64.log10()).abs() < 1e-12);
        let s = Scale::of(&[128.0, 1024.0], LOG_SPAN_X);
        let labels: Vec<String> = s.bold.iter().map(|v| s.label(*v)).collect();
        assert_eq!(labels, ["100", "1,000"]);
        let s = Scale::of(&[0.3, 70.0], LOG_SPAN);
        let labels: Vec<String> = s.bold.iter().map(|v| s.label(*v)).collect();
        assert_eq!(labels, ["0.2", "1", "10", "100"]);
        assert_eq!(log_label(7.0, false), "10⁷");
        assert_eq!(log_label(-5.0, false), "10⁻⁵");
        assert_eq!(log_label(2e-3f64.log10(), false), "0.002");
        assert_eq!(log_label(5.0, false), "100,000");
        // An axis reaching 10^6 writes every label as a power of ten.
        let s = Scale::of(&[70_000.0, 4_200_000.0], LOG_SPAN_X);
        let labels: Vec<String> = s.bold.iter().map(|v| s.label(*v)).collect();
        assert_eq!(labels, ["10⁵", "10⁶", "5×10⁶"]);
        let s = Scale::of(&[3.0, 17.0], LOG_SPAN);
        assert!(!s.log);
        assert_eq!((s.lo, s.hi), (0.0, 20.0));
        assert_eq!(s.label(5.0), "5");
        assert_eq!(number_label(0.25, 0.05), "0.25");
        assert_eq!(thousands(1234567), "1,234,567");
    }
}
