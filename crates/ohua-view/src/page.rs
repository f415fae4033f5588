//! The page, compiled into the binary so it works offline and needs no
//! files next to the program: HTML, script, style, and the layout library
//! (`@dagrejs/dagre`, MIT, vendored under `page/vendor/`).

/// `index.html`.
pub const INDEX: &str = include_str!("../page/index.html");
/// `view.js`: fetches `/api/view`, lays out and draws the graph and plots.
pub const SCRIPT: &str = include_str!("../page/view.js");
/// `view.css`.
pub const STYLE: &str = include_str!("../page/view.css");
/// dagre's minified build: layered graph layout with clusters.
pub const DAGRE: &str = include_str!("../page/vendor/dagre.min.js");
