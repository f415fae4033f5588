//! The `auto` deployment cuts by measured cost once it has measured
//! (`crates/ohua-runtime/src/deploy/learned.rs`): the first run of a graph in
//! a process is split by operator count, later runs by each operator's busy
//! time in earlier runs. Results never depend on the cut.

use ohua::{algorithm, Deployment, SectionStrategy};

/// Some tens of microseconds of real work: a dependent chain of 20,000
/// multiply-rotate rounds (its result is the return value, so it is not
/// optimised away).
fn heavy(x: u64) -> u64 {
    let mut h = x;
    for _ in 0..20_000 {
        h = h.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(17) ^ x;
    }
    h & 0xFFFF
}

fn light(x: u64) -> u64 {
    x.wrapping_add(1)
}

/// One expensive stage followed by five cheap ones: by operator count the
/// middle of the pipeline is among the cheap stages, by cost it is right after
/// `heavy`.
#[algorithm]
fn heavy_then_light(xs: Vec<u64>) -> Vec<u64> {
    let mut out = Vec::new();
    for x in xs {
        let a = heavy(x);
        let b = light(a);
        let c = light(b);
        let d = light(c);
        let e = light(d);
        let f = light(e);
        out.push(f);
    }
    out
}

fn two_workers_auto() -> Deployment {
    Deployment { workers: 2, sections: SectionStrategy::Auto, ..Deployment::default() }
}

/// (section of `heavy`, sections of the `light` calls) in one profiled run.
fn sections_of_one_run(xs: Vec<u64>) -> (Vec<u64>, usize, Vec<usize>) {
    let (out, reports) = ohua::profile(|| ohua::with_deployment(two_workers_auto(), || heavy_then_light(xs)));
    let nodes = &reports.last().expect("one run").nodes;
    let heavy = nodes.iter().find(|n| n.name.contains("/heavy#")).expect("heavy").section;
    let light = nodes.iter().filter(|n| n.name.contains("/light#")).map(|n| n.section).collect();
    (out, heavy, light)
}

#[test]
fn auto_cuts_after_the_expensive_stage_once_it_has_measured_it() {
    let xs: Vec<u64> = (0..300).collect();
    let expected: Vec<u64> = xs.iter().map(|&x| heavy(x) + 5).collect();

    // First run of this graph in this process (no other test uses it):
    // cut by count, so `heavy` shares its section with some `light` calls.
    let (out, heavy_section, light_sections) = sections_of_one_run(xs.clone());
    assert_eq!(out, expected);
    assert!(
        light_sections.contains(&heavy_section),
        "count-based cut: heavy {heavy_section}, light {light_sections:?}"
    );

    // The first run measured several ms in `heavy` (fused with the `light`
    // calls of its section and spread over them evenly). Within two more
    // runs the cut sits right after `heavy` and stays there.
    let mut cuts = Vec::new();
    for _ in 0..4 {
        let (out, heavy_section, light_sections) = sections_of_one_run(xs.clone());
        assert_eq!(out, expected);
        cuts.push((heavy_section, light_sections));
    }
    for (heavy_section, light_sections) in &cuts[1..] {
        assert!(
            light_sections.iter().all(|s| s != heavy_section),
            "measured cut should separate heavy from every light call: {cuts:?}"
        );
    }
    assert!(cuts[1..].windows(2).all(|w| w[0] == w[1]), "the measured cut should be stable: {cuts:?}");
}
