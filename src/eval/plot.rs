//! Small line charts as PNG files: panels with axes, ticks, labelled series and optional
//! error bars. Text is drawn from an embedded 8x8 bitmap font, so plots render the same on
//! a machine with no fonts installed.

use font8x8::legacy::BASIC_LEGACY;

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
    /// Error bars: per point, the low and high `y` (empty for none).
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
}

struct Canvas {
    width: usize,
    height: usize,
    pixels: Vec<u8>,
}

impl Canvas {
    fn new(width: usize, height: usize) -> Canvas {
        Canvas {
            width,
            height,
            pixels: vec![255; width * height * 3],
        }
    }

    fn put(&mut self, x: i64, y: i64, colour: Rgb) {
        if x >= 0 && y >= 0 && (x as usize) < self.width && (y as usize) < self.height {
            let i = (y as usize * self.width + x as usize) * 3;
            self.pixels[i..i + 3].copy_from_slice(&colour);
        }
    }

    fn rect(&mut self, x0: i64, y0: i64, x1: i64, y1: i64, colour: Rgb) {
        for y in y0.min(y1)..=y0.max(y1) {
            for x in x0.min(x1)..=x0.max(x1) {
                self.put(x, y, colour);
            }
        }
    }

    /// A line `thickness` pixels wide (Bresenham, with a square pen).
    fn line(&mut self, (x0, y0): (i64, i64), (x1, y1): (i64, i64), colour: Rgb, thickness: i64) {
        let (dx, dy) = ((x1 - x0).abs(), -(y1 - y0).abs());
        let (sx, sy) = (if x0 < x1 { 1 } else { -1 }, if y0 < y1 { 1 } else { -1 });
        let (mut x, mut y, mut err) = (x0, y0, dx + dy);
        let r = thickness / 2;
        loop {
            self.rect(
                x - r,
                y - r,
                x + thickness - 1 - r,
                y + thickness - 1 - r,
                colour,
            );
            if x == x1 && y == y1 {
                break;
            }
            let e2 = 2 * err;
            if e2 >= dy {
                err += dy;
                x += sx;
            }
            if e2 <= dx {
                err += dx;
                y += sy;
            }
        }
    }

    /// Text with its top-left corner at (x, y), each font pixel `scale` pixels wide.
    fn text(&mut self, x: i64, y: i64, text: &str, scale: i64, colour: Rgb) {
        for (n, c) in text.chars().enumerate() {
            let code = if c.is_ascii() {
                c as usize
            } else {
                '?' as usize
            };
            let glyph = BASIC_LEGACY[code];
            let left = x + n as i64 * 8 * scale;
            for (row, bits) in glyph.iter().enumerate() {
                for col in 0..8 {
                    if bits & (1 << col) != 0 {
                        let px = left + col * scale;
                        let py = y + row as i64 * scale;
                        self.rect(px, py, px + scale - 1, py + scale - 1, colour);
                    }
                }
            }
        }
    }

    fn png(&self) -> Result<Vec<u8>, PlotError> {
        let mut bytes = Vec::new();
        {
            let mut encoder = png::Encoder::new(&mut bytes, self.width as u32, self.height as u32);
            encoder.set_color(png::ColorType::Rgb);
            encoder.set_depth(png::BitDepth::Eight);
            let mut writer = encoder
                .write_header()
                .map_err(|e| PlotError::Png(e.to_string()))?;
            writer
                .write_image_data(&self.pixels)
                .map_err(|e| PlotError::Png(e.to_string()))?;
        }
        Ok(bytes)
    }
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

/// A short label for a tick value.
fn tick_label(v: f64, step: f64) -> String {
    if v.abs() >= 1e5 {
        format!("{:.0}k", v / 1e3)
    } else if step >= 1.0 {
        format!("{v:.0}")
    } else {
        let decimals = (-step.log10().floor()) as usize;
        format!("{v:.decimals$}")
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

const PANEL_W: usize = 640;
const PANEL_H: usize = 420;

/// Draws `panels` in a grid `columns` wide and encodes it as a PNG.
pub fn render_png(panels: &[Panel], columns: usize) -> Result<Vec<u8>, PlotError> {
    let columns = columns.clamp(1, panels.len().max(1));
    let rows = panels.len().div_ceil(columns).max(1);
    let mut canvas = Canvas::new(PANEL_W * columns, PANEL_H * rows);
    let mut drawn = 0;
    for (i, panel) in panels.iter().enumerate() {
        let ox = (i % columns * PANEL_W) as i64;
        let oy = (i / columns * PANEL_H) as i64;
        if draw_panel(&mut canvas, panel, ox, oy) {
            drawn += 1;
        }
    }
    if drawn == 0 {
        let titles: Vec<&str> = panels.iter().map(|p| p.title.as_str()).collect();
        return Err(PlotError::Empty(titles.join(", ")));
    }
    canvas.png()
}

/// Draws one panel with its top-left corner at (ox, oy); false if it had no data.
fn draw_panel(canvas: &mut Canvas, panel: &Panel, ox: i64, oy: i64) -> bool {
    const BLACK: Rgb = [0, 0, 0];
    const GRID: Rgb = [225, 225, 225];
    let (left, right, top, bottom) = (
        ox + 78,
        ox + PANEL_W as i64 - 20,
        oy + 46,
        oy + PANEL_H as i64 - 56,
    );
    canvas.text(ox + 12, oy + 10, &panel.title, 2, BLACK);
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
    let (Some((x0, x1)), Some((y0, y1))) = (padded_range(xs), padded_range(ys)) else {
        canvas.text(left + 10, (top + bottom) / 2, "no data", 2, BLACK);
        return false;
    };
    let px = |x: f64| left + ((x - x0) / (x1 - x0) * (right - left) as f64).round() as i64;
    let py = |y: f64| bottom - ((y - y0) / (y1 - y0) * (bottom - top) as f64).round() as i64;
    let clamp_y = |y: f64| py(y.clamp(y0, y1));
    let x_ticks = nice_ticks(x0, x1, 6);
    let y_ticks = nice_ticks(y0, y1, 6);
    let x_step = x_ticks.get(1).map_or(1.0, |b| b - x_ticks[0]);
    let y_step = y_ticks.get(1).map_or(1.0, |b| b - y_ticks[0]);
    for &t in &y_ticks {
        canvas.line((left, py(t)), (right, py(t)), GRID, 1);
        let label = tick_label(t, y_step);
        canvas.text(
            left - 8 - 8 * label.len() as i64,
            py(t) - 4,
            &label,
            1,
            BLACK,
        );
    }
    for &t in &x_ticks {
        canvas.line((px(t), top), (px(t), bottom), GRID, 1);
        let label = tick_label(t, x_step);
        canvas.text(px(t) - 4 * label.len() as i64, bottom + 8, &label, 1, BLACK);
    }
    canvas.line((left, top), (left, bottom), BLACK, 1);
    canvas.line((left, bottom), (right, bottom), BLACK, 1);
    let x_label_left = (left + right) / 2 - 8 * panel.x_label.len() as i64;
    canvas.text(x_label_left, bottom + 26, &panel.x_label, 2, BLACK);
    canvas.text(ox + 12, top - 14, &panel.y_label, 1, BLACK);
    for (n, series) in panel.series.iter().enumerate() {
        let colour = PALETTE[n % PALETTE.len()];
        let finite: Vec<(i64, i64)> = series
            .points
            .iter()
            .filter(|p| p.0.is_finite() && p.1.is_finite())
            .map(|&(x, y)| (px(x), py(y)))
            .collect();
        for pair in finite.windows(2) {
            canvas.line(pair[0], pair[1], colour, 2);
        }
        for &(x, y) in &finite {
            canvas.rect(x - 2, y - 2, x + 2, y + 2, colour);
        }
        for (&(x, y), &(lo, hi)) in series.points.iter().zip(&series.bars) {
            if x.is_finite() && y.is_finite() {
                let (a, b) = (clamp_y(lo), clamp_y(hi));
                canvas.line((px(x), a), (px(x), b), colour, 1);
                canvas.line((px(x) - 3, a), (px(x) + 3, a), colour, 1);
                canvas.line((px(x) - 3, b), (px(x) + 3, b), colour, 1);
            }
        }
        let ly = top + 6 + 14 * n as i64;
        canvas.rect(right - 150, ly + 2, right - 138, ly + 6, colour);
        canvas.text(right - 132, ly, &series.label, 1, BLACK);
    }
    true
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
        assert_eq!(&bytes[1..4], b"PNG");
        let decoder = png::Decoder::new(bytes.as_slice());
        let mut reader = decoder.read_info().unwrap();
        let mut buf = vec![0; reader.output_buffer_size()];
        let info = reader.next_frame(&mut buf).unwrap();
        assert_eq!(
            (info.width, info.height),
            (2 * PANEL_W as u32, PANEL_H as u32)
        );
        // The title's text is drawn: black pixels in the title band.
        let row_bytes = info.width as usize * 3;
        let title_band = &buf[12 * row_bytes..24 * row_bytes];
        assert!(title_band.chunks(3).any(|p| p == [0, 0, 0]));
        // The series colour appears.
        assert!(buf.chunks(3).any(|p| p == PALETTE[0]));
        let empty = Panel {
            title: "nothing".into(),
            ..Panel::default()
        };
        assert!(matches!(render_png(&[empty], 1), Err(PlotError::Empty(_))));
    }
}
