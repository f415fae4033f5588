//! The latency-over-time plot, written as SVG text by hand (no plotting
//! dependency for a few lines and labels).

use std::fmt::Write as _;
use std::time::Duration;

use super::stats::{Window, WINDOW};

/// One line pair of the plot: a variant's p99 (thick) and max (thin, dashed).
pub struct Series<'a> {
    pub label: &'a str,
    pub windows: Vec<Window>,
}

const COLORS: [&str; 4] = ["#1f77b4", "#2ca02c", "#ff7f0e", "#d62728"];
/// The picture's size and the margins around the plot area (legend on the right).
const W: f64 = 960.0;
const H: f64 = 540.0;
const LEFT: f64 = 80.0;
const RIGHT: f64 = 210.0;
const TOP: f64 = 50.0;
const BOTTOM: f64 = 70.0;

/// Map a latency [µs] to a y coordinate between decades `lo` and `hi` (log10).
fn y_of(us: u64, lo: f64, hi: f64) -> f64 {
    let v = (us.max(1) as f64).log10().clamp(lo, hi);
    TOP + (H - TOP - BOTTOM) * (1.0 - (v - lo) / (hi - lo))
}

fn decade_label(d: i32) -> String {
    match d {
        0 => "1 µs".into(),
        1 => "10 µs".into(),
        2 => "100 µs".into(),
        3 => "1 ms".into(),
        4 => "10 ms".into(),
        5 => "100 ms".into(),
        6 => "1 s".into(),
        _ => format!("1e{d} µs"),
    }
}

/// The SVG of `series` over a run of `length` with the update at `update_at`.
pub fn svg(series: &[Series<'_>], length: Duration, update_at: Duration, title: &str) -> String {
    let values = series.iter().flat_map(|s| s.windows.iter().flat_map(|w| [w.p99, w.max])).filter(|&v| v > 0);
    let (min, max) = values.fold((u64::MAX, 1), |(lo, hi), v| (lo.min(v), hi.max(v)));
    let lo = (min.max(1) as f64).log10().floor();
    let hi = (max as f64).log10().ceil().max(lo + 1.0);
    let (plot_w, secs) = (W - LEFT - RIGHT, length.as_secs_f64());
    let x_of = |t: f64| LEFT + plot_w * t / secs;
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="13">"#
    );
    let _ = writeln!(s, r#"<rect width="{W}" height="{H}" fill="white"/>"#);
    let _ =
        writeln!(s, r#"<text x="{}" y="28" text-anchor="middle" font-size="15">{title}</text>"#, LEFT + plot_w / 2.0);
    // Axes, with a grid line per decade and per half second.
    let (bottom, right) = (H - BOTTOM, W - RIGHT);
    for d in lo as i32..=hi as i32 {
        let y = y_of(10f64.powi(d) as u64, lo, hi);
        let _ = writeln!(s, r##"<line x1="{LEFT}" y1="{y:.1}" x2="{right}" y2="{y:.1}" stroke="#ddd"/>"##);
        let _ =
            writeln!(s, r#"<text x="{}" y="{:.1}" text-anchor="end">{}</text>"#, LEFT - 6.0, y + 4.0, decade_label(d));
    }
    for k in 0..=(secs * 2.0).round() as u32 {
        let x = x_of(f64::from(k) / 2.0);
        let _ = writeln!(s, r##"<line x1="{x:.1}" y1="{TOP}" x2="{x:.1}" y2="{bottom}" stroke="#eee"/>"##);
        let _ = writeln!(
            s,
            r#"<text x="{x:.1}" y="{}" text-anchor="middle">{:.1}</text>"#,
            bottom + 18.0,
            f64::from(k) / 2.0
        );
    }
    let _ = writeln!(
        s,
        r#"<rect x="{LEFT}" y="{TOP}" width="{plot_w}" height="{}" fill="none" stroke="black"/>"#,
        bottom - TOP
    );
    let _ = writeln!(
        s,
        r#"<text x="{}" y="{}" text-anchor="middle">time of the request's intended arrival [s] ({} ms windows)</text>"#,
        LEFT + plot_w / 2.0,
        H - 22.0,
        WINDOW.as_millis()
    );
    let _ = writeln!(
        s,
        r#"<text transform="translate(20 {:.1}) rotate(-90)" text-anchor="middle">latency (log scale)</text>"#,
        TOP + (bottom - TOP) / 2.0
    );
    // The update.
    let ux = x_of(update_at.as_secs_f64());
    let _ = writeln!(
        s,
        r#"<line x1="{ux:.1}" y1="{TOP}" x2="{ux:.1}" y2="{bottom}" stroke="black" stroke-dasharray="6 4"/>"#
    );
    let _ = writeln!(s, r#"<text x="{:.1}" y="{}">update</text>"#, ux + 4.0, TOP + 14.0);
    // One p99 and one max line per variant, at the middle of each window.
    let half = WINDOW.as_secs_f64() / 2.0;
    for (k, series) in series.iter().enumerate() {
        let color = COLORS[k % COLORS.len()];
        for (width, dash, pick) in [(2.5, "", 0), (1.0, r#" stroke-dasharray="3 3""#, 1)] {
            let points: Vec<String> = (series.windows.iter().enumerate())
                .filter(|(_, w)| w.max > 0)
                .map(|(i, w)| {
                    let v = if pick == 0 { w.p99 } else { w.max };
                    format!("{:.1},{:.1}", x_of(i as f64 * WINDOW.as_secs_f64() + half), y_of(v, lo, hi))
                })
                .collect();
            let _ = writeln!(
                s,
                r#"<polyline fill="none" stroke="{color}" stroke-width="{width}"{dash} points="{}"/>"#,
                points.join(" ")
            );
        }
        // Legend.
        let y = TOP + 20.0 + 24.0 * k as f64;
        let x = right + 16.0;
        let _ =
            writeln!(s, r#"<line x1="{x}" y1="{y}" x2="{}" y2="{y}" stroke="{color}" stroke-width="2.5"/>"#, x + 28.0);
        let _ = writeln!(s, r#"<text x="{}" y="{}">{}</text>"#, x + 36.0, y + 4.0, series.label);
    }
    let y = TOP + 30.0 + 24.0 * series.len() as f64;
    let x = right + 16.0;
    let _ = writeln!(s, r#"<line x1="{x}" y1="{y}" x2="{}" y2="{y}" stroke="gray" stroke-width="2.5"/>"#, x + 28.0);
    let _ = writeln!(s, r#"<text x="{}" y="{}">p99</text>"#, x + 36.0, y + 4.0);
    let y = y + 22.0;
    let _ = writeln!(s, r#"<line x1="{x}" y1="{y}" x2="{}" y2="{y}" stroke="gray" stroke-dasharray="3 3"/>"#, x + 28.0);
    let _ = writeln!(s, r#"<text x="{}" y="{}">max</text>"#, x + 36.0, y + 4.0);
    s.push_str("</svg>\n");
    s
}
