//! A generated document root: the resources of the dissertation's
//! experiments (512-byte news snippets, 20 KiB articles) and a page with an
//! image for a browser.

use std::io::{self, Write};
use std::path::Path;

/// Snippets and articles generated (each).
pub const DOCUMENTS: usize = 100;
/// Size of a snippet (Fig. 2.24's feeds).
pub const SMALL: usize = 512;
/// Size of an article (Fig. 2.24's articles).
pub const LARGE: usize = 20 * 1024;

/// Fill `dir` (created if needed): `index.html` (with `logo.png`),
/// `small.html` (512 B), `large.html` (20 KiB), `news/N.html` (512 B each)
/// and `articles/N.html` (20 KiB each), N < 100.
///
/// # Errors
///
/// If a file cannot be written.
pub fn generate_root(dir: &Path) -> io::Result<()> {
    std::fs::create_dir_all(dir.join("news"))?;
    std::fs::create_dir_all(dir.join("articles"))?;
    // The script lets a headless browser tell whether the image loaded
    // (`examples/web_server/browser-check.sh`).
    let index = r#"<!DOCTYPE html>
<html><head><title>Ohua web server</title></head>
<body><h1>Served by an Ohua algorithm</h1>
<img id="logo" src="logo.png" alt="logo" width="64" height="64">
<p id="status">loading</p>
<p><a href="small.html">small</a> <a href="large.html">large</a></p>
<script>
window.addEventListener("load", () => {
  const img = document.getElementById("logo");
  document.getElementById("status").textContent =
    img.complete && img.naturalWidth === 64 ? "image loaded" : "image missing";
});
</script>
</body></html>
"#;
    std::fs::write(dir.join("index.html"), index)?;
    std::fs::write(dir.join("logo.png"), png(64, 64)?)?;
    std::fs::write(dir.join("small.html"), page("small", 0, SMALL))?;
    std::fs::write(dir.join("large.html"), page("large", 0, LARGE))?;
    for i in 0..DOCUMENTS {
        std::fs::write(dir.join(format!("news/{i}.html")), page("news", i, SMALL))?;
        std::fs::write(dir.join(format!("articles/{i}.html")), page("article", i, LARGE))?;
    }
    Ok(())
}

/// An HTML page of exactly `size` bytes.
fn page(kind: &str, i: usize, size: usize) -> Vec<u8> {
    let mut p = format!("<!DOCTYPE html>\n<html><body><h1>{kind} {i}</h1>\n<p>").into_bytes();
    let end = b"</p></body></html>\n";
    let words = b"lorem ipsum dolor sit amet consectetur adipiscing elit ";
    while p.len() + end.len() < size {
        let k = (size - end.len() - p.len()).min(words.len());
        p.extend_from_slice(&words[..k]);
    }
    p.extend_from_slice(end);
    p
}

/// A `w` x `h` RGB PNG (a gradient), encoded with `flate2`.
fn png(w: u32, h: u32) -> io::Result<Vec<u8>> {
    let mut raw = Vec::new();
    for y in 0..h {
        raw.push(0); // filter: none
        for x in 0..w {
            raw.extend_from_slice(&[(x * 4) as u8, (y * 4) as u8, 160]);
        }
    }
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    z.write_all(&raw)?;
    let idat = z.finish()?;
    let mut ihdr = Vec::new();
    ihdr.extend_from_slice(&w.to_be_bytes());
    ihdr.extend_from_slice(&h.to_be_bytes());
    ihdr.extend_from_slice(&[8, 2, 0, 0, 0]); // 8-bit RGB
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    for (kind, data) in [(b"IHDR", &ihdr), (b"IDAT", &idat), (b"IEND", &Vec::new())] {
        out.extend_from_slice(&(data.len() as u32).to_be_bytes());
        let mut crc = flate2::Crc::new();
        crc.update(kind);
        crc.update(data);
        out.extend_from_slice(kind);
        out.extend_from_slice(data);
        out.extend_from_slice(&crc.sum().to_be_bytes());
    }
    Ok(out)
}
