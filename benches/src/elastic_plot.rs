//! `ohua-bench elastic`'s plot: each deployment's p99 per window (top,
//! log scale) and the replicas it held open (bottom) over the run, written
//! as SVG text by hand like `update/plot.rs` (no plotting dependency for a
//! few lines).

use std::fmt::Write as _;
use std::time::Duration;

/// One deployment: its p99 per window (start in s, p99) and its open
/// replicas as steps (from this time in s on, this many).
pub struct Line<'a> {
    pub label: &'a str,
    pub p99: Vec<(f64, Duration)>,
    pub replicas: Vec<(f64, usize)>,
}

const COLORS: [&str; 4] = ["#d62728", "#7f7f7f", "#1f77b4", "#2ca02c"];
const W: f64 = 960.0;
const H: f64 = 620.0;
const LEFT: f64 = 80.0;
const RIGHT: f64 = 230.0;
/// Top and bottom of the latency panel and of the replicas panel.
const LAT: (f64, f64) = (50.0, 380.0);
const REP: (f64, f64) = (430.0, 570.0);
/// The latency axis: 0.1 ms to 1 s, in decades of ms.
const DECADES: (f64, f64) = (-1.0, 3.0);

/// The SVG of `lines` over `secs`, with the SLA drawn at `sla` and the load
/// steps (shares of one replica) named under the time axis.
pub fn svg(lines: &[Line<'_>], secs: f64, sla: Duration, steps: &[f64], title: &str) -> String {
    let plot_w = W - LEFT - RIGHT;
    let x_of = |t: f64| LEFT + plot_w * (t / secs).clamp(0.0, 1.0);
    let y_lat = |d: Duration| {
        let v = (d.as_secs_f64() * 1e3).max(1e-3).log10().clamp(DECADES.0, DECADES.1);
        LAT.0 + (LAT.1 - LAT.0) * (1.0 - (v - DECADES.0) / (DECADES.1 - DECADES.0))
    };
    let most = lines.iter().flat_map(|l| l.replicas.iter().map(|r| r.1)).max().unwrap_or(1).max(2);
    let y_rep = |n: usize| REP.1 - (REP.1 - REP.0) * n as f64 / most as f64;
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="13">"#
    );
    let _ = writeln!(s, r#"<rect width="{W}" height="{H}" fill="white"/>"#);
    let _ =
        writeln!(s, r#"<text x="{}" y="28" text-anchor="middle" font-size="15">{title}</text>"#, LEFT + plot_w / 2.0);
    // Latency grid, one line per decade, and the SLA.
    for d in DECADES.0 as i32..=DECADES.1 as i32 {
        let y = y_lat(Duration::from_secs_f64(10f64.powi(d) / 1e3));
        let label = if d < 0 { "0.1 ms".to_string() } else { format!("{} ms", 10u64.pow(d as u32)) };
        let _ = writeln!(s, r##"<line x1="{LEFT}" y1="{y}" x2="{}" y2="{y}" stroke="#ddd"/>"##, W - RIGHT);
        let _ = writeln!(s, r#"<text x="{}" y="{}" text-anchor="end">{label}</text>"#, LEFT - 6.0, y + 4.0);
    }
    let y = y_lat(sla);
    let _ = writeln!(
        s,
        r##"<line x1="{LEFT}" y1="{y}" x2="{}" y2="{y}" stroke="#000" stroke-dasharray="6 4"/>"##,
        W - RIGHT
    );
    let _ = writeln!(s, r#"<text x="{}" y="{}">SLA p99 {} ms</text>"#, W - RIGHT + 6.0, y + 4.0, sla.as_millis());
    let _ = writeln!(
        s,
        r#"<text x="16" y="{}" transform="rotate(-90 16 {0})">p99 per window</text>"#,
        (LAT.0 + LAT.1) / 2.0
    );
    // Replicas grid.
    for n in 0..=most {
        let y = y_rep(n);
        let _ = writeln!(s, r##"<line x1="{LEFT}" y1="{y}" x2="{}" y2="{y}" stroke="#ddd"/>"##, W - RIGHT);
        let _ = writeln!(s, r#"<text x="{}" y="{}" text-anchor="end">{n}</text>"#, LEFT - 6.0, y + 4.0);
    }
    let _ = writeln!(
        s,
        r#"<text x="16" y="{}" transform="rotate(-90 16 {0})">replicas open</text>"#,
        (REP.0 + REP.1) / 2.0
    );
    // Time axis: the load steps.
    let per_step = secs / steps.len().max(1) as f64;
    for (k, share) in steps.iter().enumerate() {
        let x = x_of(per_step * k as f64);
        let _ = writeln!(s, r##"<line x1="{x}" y1="{}" x2="{x}" y2="{}" stroke="#bbb"/>"##, LAT.0, REP.1);
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{}" text-anchor="middle">{:.0} % load</text>"#,
            x_of(per_step * (k as f64 + 0.5)),
            REP.1 + 22.0,
            share * 100.0
        );
    }
    let _ = writeln!(
        s,
        r#"<text x="{}" y="{}" text-anchor="middle">time ({secs:.0} s)</text>"#,
        LEFT + plot_w / 2.0,
        H - 12.0
    );
    for (i, line) in lines.iter().enumerate() {
        let color = COLORS[i % COLORS.len()];
        let points: Vec<String> = line.p99.iter().map(|&(t, d)| format!("{:.1},{:.1}", x_of(t), y_lat(d))).collect();
        let _ =
            writeln!(s, r#"<polyline fill="none" stroke="{color}" stroke-width="2" points="{}"/>"#, points.join(" "));
        // Steps: horizontal to the next change, then vertical.
        let mut steps_at: Vec<String> = Vec::new();
        for (k, &(t, n)) in line.replicas.iter().enumerate() {
            let until = line.replicas.get(k + 1).map_or(secs, |next| next.0);
            // Lines of equal counts are offset by a pixel per deployment, so all show.
            let y = y_rep(n) + i as f64 * 2.0;
            steps_at.push(format!("{:.1},{y:.1} {:.1},{y:.1}", x_of(t), x_of(until)));
        }
        let _ =
            writeln!(s, r#"<polyline fill="none" stroke="{color}" stroke-width="2" points="{}"/>"#, steps_at.join(" "));
        let y = LAT.0 + 20.0 * i as f64;
        let _ = writeln!(s, r#"<rect x="{}" y="{}" width="14" height="4" fill="{color}"/>"#, W - RIGHT + 6.0, y + 40.0);
        let _ = writeln!(s, r#"<text x="{}" y="{}">{}</text>"#, W - RIGHT + 26.0, y + 46.0, line.label);
    }
    s.push_str("</svg>\n");
    s
}
