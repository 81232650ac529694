//! Line charts as PNG files, drawn with the `plotters` crate: panels with a title, axis
//! names, gridlines, a marker shape and colour per series, intervals as shaded bands, and
//! the legend beside the data (never over it). Text uses an embedded TrueType font
//! (DejaVu Sans, `src/eval/fonts/`), so plots render the same on a machine with no fonts.

use std::sync::Once;

use plotters::coord::Shift;
use plotters::prelude::*;

/// An RGB colour.
pub type Rgb = [u8; 3];

/// Colours given to series in order.
pub const PALETTE: [Rgb; 6] = [
    [31, 119, 180],
    [214, 39, 40],
    [44, 160, 44],
    [255, 127, 14],
    [148, 103, 189],
    [140, 86, 75],
];

/// One line of a panel.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Series {
    /// Name shown in the legend.
    pub label: String,
    /// Points, in drawing order.
    pub points: Vec<(f64, f64)>,
    /// The interval of each point: its low and high `y`, drawn as a band (empty for none).
    pub bars: Vec<(f64, f64)>,
}

/// One chart: title, axis names and series.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Panel {
    /// Title above the chart.
    pub title: String,
    /// Name of the x axis.
    pub x_label: String,
    /// Name of the y axis.
    pub y_label: String,
    /// The lines.
    pub series: Vec<Series>,
}

/// Why a plot could not be made.
#[derive(Debug, thiserror::Error)]
pub enum PlotError {
    /// No panel has a finite point.
    #[error("nothing to plot: {0}")]
    Empty(String),
    /// PNG encoding failed.
    #[error("PNG encoding: {0}")]
    Png(String),
    /// Drawing failed.
    #[error("drawing the plot: {0}")]
    Draw(String),
}

const FONT: &str = "sans-serif";
static FONT_ONCE: Once = Once::new();

fn register_font() {
    FONT_ONCE.call_once(|| {
        let bytes: &'static [u8] = include_bytes!("fonts/DejaVuSans.ttf");
        // The embedded font is known to parse; a failure would leave text undrawn.
        let _ = plotters::style::register_font(FONT, FontStyle::Normal, bytes);
    });
}

/// Tick positions covering `[low, high]`: steps of 1, 2 or 5 times a power of ten, about
/// `target` of them.
pub fn nice_ticks(low: f64, high: f64, target: usize) -> Vec<f64> {
    if !(low.is_finite() && high.is_finite()) || high <= low {
        return vec![low];
    }
    let raw = (high - low) / target.max(1) as f64;
    let power = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * power)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * power);
    let first = (low / step).ceil() as i64;
    let last = (high / step).floor() as i64;
    (first..=last).map(|i| i as f64 * step).collect()
}

/// A tick label: at most four significant digits, no trailing zeros (`20`, `0.25`, `1.5e6`).
fn tick_text(v: f64) -> String {
    if v == 0.0 {
        return "0".into();
    }
    if v.abs() >= 1e6 || v.abs() < 1e-3 {
        return format!("{v:.1e}");
    }
    let text = format!(
        "{:.*}",
        (3 - v.abs().log10().floor() as i64).max(0) as usize,
        v
    );
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}

/// The range of finite values, padded a little; a flat range is widened.
fn padded_range(values: impl Iterator<Item = f64>) -> Option<(f64, f64)> {
    let (mut low, mut high) = (f64::INFINITY, f64::NEG_INFINITY);
    for v in values.filter(|v| v.is_finite()) {
        low = low.min(v);
        high = high.max(v);
    }
    if low > high {
        return None;
    }
    let pad = if high > low {
        (high - low) * 0.05
    } else {
        low.abs().max(1.0) * 0.1
    };
    Some((low - pad, high + pad))
}

const PANEL_W: usize = 760;
const PANEL_H: usize = 440;
/// Width of the legend column to the right of each chart.
const LEGEND_W: u32 = 190;

fn draw_error(e: impl std::fmt::Display) -> PlotError {
    PlotError::Draw(e.to_string())
}

/// Draws `panels` in a grid `columns` wide and encodes it as a PNG.
pub fn render_png(panels: &[Panel], columns: usize) -> Result<Vec<u8>, PlotError> {
    register_font();
    let columns = columns.clamp(1, panels.len().max(1));
    let rows = panels.len().div_ceil(columns).max(1);
    let (width, height) = ((PANEL_W * columns) as u32, (PANEL_H * rows) as u32);
    let mut pixels = vec![255u8; width as usize * height as usize * 3];
    let mut drawn = 0;
    {
        let root = BitMapBackend::with_buffer(&mut pixels, (width, height)).into_drawing_area();
        root.fill(&WHITE).map_err(draw_error)?;
        for (area, panel) in root.split_evenly((rows, columns)).iter().zip(panels) {
            if draw_panel(area, panel)? {
                drawn += 1;
            }
        }
        root.present().map_err(draw_error)?;
    }
    if drawn == 0 {
        let titles: Vec<&str> = panels.iter().map(|p| p.title.as_str()).collect();
        return Err(PlotError::Empty(titles.join(", ")));
    }
    encode_png(&pixels, width, height)
}

fn encode_png(pixels: &[u8], width: u32, height: u32) -> Result<Vec<u8>, PlotError> {
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, width, height);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder
        .write_header()
        .map_err(|e| PlotError::Png(e.to_string()))?;
    writer
        .write_image_data(pixels)
        .map_err(|e| PlotError::Png(e.to_string()))?;
    writer.finish().map_err(|e| PlotError::Png(e.to_string()))?;
    Ok(out)
}

type Area<'a> = DrawingArea<BitMapBackend<'a>, Shift>;

fn colour(n: usize) -> RGBColor {
    let [r, g, b] = PALETTE[n % PALETTE.len()];
    RGBColor(r, g, b)
}

/// Series `n`'s marker at `at`: circle, triangle, square, cross, filled circle, diamond.
fn marker<'a, DB: DrawingBackend + 'a, C: Clone + 'a>(
    n: usize,
    at: C,
    c: RGBColor,
) -> DynElement<'a, DB, C> {
    let style = c.stroke_width(2);
    let e = EmptyElement::at(at);
    match n % 6 {
        0 => (e + Circle::new((0, 0), 4, style)).into_dyn(),
        1 => (e + TriangleMarker::new((0, 0), 5, c.filled())).into_dyn(),
        2 => (e + Rectangle::new([(-4, -4), (4, 4)], style)).into_dyn(),
        3 => (e + Cross::new((0, 0), 4, style)).into_dyn(),
        4 => (e + Circle::new((0, 0), 4, c.filled())).into_dyn(),
        _ => (e + Polygon::new(vec![(0, -5), (5, 0), (0, 5), (-5, 0)], style)).into_dyn(),
    }
}

/// The legend in its own column: each series' line, marker and name.
fn draw_legend(area: &Area, panel: &Panel) -> Result<(), PlotError> {
    let text = (FONT, 15).into_font().color(&BLACK);
    for (n, series) in panel.series.iter().enumerate() {
        let y = 60 + 24 * n as i32;
        let c = colour(n);
        area.draw(&PathElement::new(vec![(6, y), (34, y)], c.stroke_width(2)))
            .map_err(draw_error)?;
        area.draw(&marker(n, (20, y), c)).map_err(draw_error)?;
        area.draw(&Text::new(series.label.clone(), (42, y - 8), text.clone()))
            .map_err(draw_error)?;
    }
    Ok(())
}

/// Draws one panel in `area`; false if it had no data.
fn draw_panel(area: &Area, panel: &Panel) -> Result<bool, PlotError> {
    let xs = panel
        .series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.0));
    let ys = panel.series.iter().flat_map(|s| {
        s.points
            .iter()
            .map(|p| p.1)
            .chain(s.bars.iter().flat_map(|b| [b.0, b.1]))
    });
    let (width, _) = area.dim_in_pixel();
    let (plot, legend) = area.split_horizontally(width.saturating_sub(LEGEND_W));
    let (Some((x0, x1)), Some((y0, y1))) = (padded_range(xs), padded_range(ys)) else {
        let style = (FONT, 20).into_font().color(&BLACK);
        plot.draw(&Text::new(
            format!("{}: no data", panel.title),
            (20, 20),
            style,
        ))
        .map_err(draw_error)?;
        return Ok(false);
    };
    let mut chart = ChartBuilder::on(&plot)
        .caption(&panel.title, (FONT, 22))
        .margin(12)
        .x_label_area_size(44)
        .y_label_area_size(70)
        .build_cartesian_2d(x0..x1, y0..y1)
        .map_err(draw_error)?;
    chart
        .configure_mesh()
        .x_desc(&panel.x_label)
        .y_desc(&panel.y_label)
        .label_style((FONT, 14))
        .axis_desc_style((FONT, 16))
        .light_line_style(RGBColor(247, 247, 247))
        .bold_line_style(RGBColor(220, 220, 220))
        .x_label_formatter(&|v| tick_text(*v))
        .y_label_formatter(&|v| tick_text(*v))
        .draw()
        .map_err(draw_error)?;
    for (n, series) in panel.series.iter().enumerate() {
        draw_series(&mut chart, n, series)?;
    }
    draw_legend(&legend, panel)?;
    Ok(true)
}

type Chart<'a, 'b> = ChartContext<
    'a,
    BitMapBackend<'b>,
    Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>,
>;

/// One series: its band (the intervals), its line, then a marker on every point.
fn draw_series(chart: &mut Chart, n: usize, series: &Series) -> Result<(), PlotError> {
    let c = colour(n);
    let finite = |&&(x, y): &&(f64, f64)| x.is_finite() && y.is_finite();
    let banded: Vec<(f64, f64, f64)> = series
        .points
        .iter()
        .zip(&series.bars)
        .filter(|(p, b)| finite(p) && b.0.is_finite() && b.1.is_finite())
        .map(|(p, b)| (p.0, b.0, b.1))
        .collect();
    if banded.len() > 1 {
        let mut outline: Vec<(f64, f64)> = banded.iter().map(|&(x, _, hi)| (x, hi)).collect();
        outline.extend(banded.iter().rev().map(|&(x, lo, _)| (x, lo)));
        chart
            .draw_series(std::iter::once(Polygon::new(outline, c.mix(0.18).filled())))
            .map_err(draw_error)?;
    } else if let Some(&(x, lo, hi)) = banded.first() {
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![(x, lo), (x, hi)],
                c.mix(0.5).stroke_width(6),
            )))
            .map_err(draw_error)?;
    }
    let points: Vec<(f64, f64)> = series.points.iter().filter(finite).copied().collect();
    chart
        .draw_series(LineSeries::new(points.iter().copied(), c.stroke_width(2)))
        .map_err(draw_error)?;
    draw_markers(chart, n, &points)
}

/// The markers of series `n`, the same shapes as [`marker`] draws in the legend.
fn draw_markers(chart: &mut Chart, n: usize, points: &[(f64, f64)]) -> Result<(), PlotError> {
    let c = colour(n);
    let s = c.stroke_width(2);
    let pts = points.iter().copied();
    let diamond = || vec![(0, -5), (5, 0), (0, 5), (-5, 0)];
    match n % 6 {
        0 => chart
            .draw_series(pts.map(|p| Circle::new(p, 4, s)))
            .map(|_| ()),
        1 => chart
            .draw_series(pts.map(|p| TriangleMarker::new(p, 5, c.filled())))
            .map(|_| ()),
        2 => chart
            .draw_series(pts.map(|p| EmptyElement::at(p) + Rectangle::new([(-4, -4), (4, 4)], s)))
            .map(|_| ()),
        3 => chart
            .draw_series(pts.map(|p| Cross::new(p, 4, s)))
            .map(|_| ()),
        4 => chart
            .draw_series(pts.map(|p| Circle::new(p, 4, c.filled())))
            .map(|_| ()),
        _ => chart
            .draw_series(pts.map(|p| EmptyElement::at(p) + Polygon::new(diamond(), s)))
            .map(|_| ()),
    }
    .map_err(draw_error)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_round_and_cover_the_range() {
        assert_eq!(
            nice_ticks(0.0, 10.0, 5),
            vec![0.0, 2.0, 4.0, 6.0, 8.0, 10.0]
        );
        let t = nice_ticks(-130.0, 480.0, 7);
        assert_eq!(t.first(), Some(&-100.0));
        assert_eq!(t.last(), Some(&400.0));
        assert!(t.windows(2).all(|w| (w[1] - w[0] - 100.0).abs() < 1e-9));
        assert_eq!(tick_text(20.0), "20");
        assert_eq!(tick_text(0.25), "0.25");
        assert_eq!(tick_text(-130.0), "-130");
        assert_eq!(tick_text(0.0), "0");
    }

    #[test]
    fn renders_a_png_with_text_and_refuses_empty_plots() {
        let panel = Panel {
            title: "Elo by step".into(),
            x_label: "step".into(),
            y_label: "Elo".into(),
            series: vec![Series {
                label: "net".into(),
                points: vec![(0.0, 0.0), (100.0, 50.0), (200.0, 120.0)],
                bars: vec![(0.0, 0.0), (20.0, 80.0), (90.0, 150.0)],
            }],
        };
        let bytes = render_png(&[panel.clone(), panel], 2).unwrap();
        if let Some(dir) = std::env::var_os("CZ_PLOT_SAMPLE") {
            std::fs::write(std::path::Path::new(&dir).join("plot-sample.png"), &bytes).unwrap();
        }
        assert_eq!(&bytes[1..4], b"PNG");
        let decoder = png::Decoder::new(bytes.as_slice());
        let mut reader = decoder.read_info().unwrap();
        let mut buf = vec![0; reader.output_buffer_size()];
        let info = reader.next_frame(&mut buf).unwrap();
        assert_eq!(
            (info.width, info.height),
            (2 * PANEL_W as u32, PANEL_H as u32)
        );
        // The title's text is drawn: dark pixels in the title band.
        let row_bytes = info.width as usize * 3;
        let title_band = &buf[8 * row_bytes..36 * row_bytes];
        assert!(title_band.chunks(3).any(|p| p.iter().all(|&c| c < 80)));
        // The series colour appears, and its band (a lighter shade of it).
        assert!(buf.chunks(3).any(|p| p == PALETTE[0]));
        let band = |p: &[u8]| p != PALETTE[0] && p[2] as u16 > p[0] as u16 + 20 && p[0] > 150;
        assert!(buf.chunks(3).any(band), "the interval band");
        // The legend sits in its own column, right of the plot: the series colour there.
        let legend_x = PANEL_W - LEGEND_W as usize + 10;
        let in_legend = (40..120).any(|y| {
            let i = (y * info.width as usize + legend_x) * 3;
            buf[i..i + 3] == PALETTE[0]
        });
        assert!(in_legend, "the legend beside the data");
        let empty = Panel {
            title: "nothing".into(),
            ..Panel::default()
        };
        assert!(matches!(render_png(&[empty], 1), Err(PlotError::Empty(_))));
    }
}
