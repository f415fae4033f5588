//! The generated-programs suite must keep exercising what it is there to
//! check. Fused chains (`node/chain.rs`) exist only where the compiler finds
//! runs of one-input stateless calls; if the grammar stopped producing them,
//! the generated programs would no longer test fusion against sequential
//! execution, and nothing else would notice.

use syn::visit::Visit;

/// Every `fn` item in a file, however deeply nested in modules.
#[derive(Default)]
struct Fns(Vec<syn::ItemFn>);

impl<'ast> Visit<'ast> for Fns {
    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        self.0.push(f.clone());
    }
}

/// The generated code of the first `programs` programs of seed 1.
fn generated_code(programs: usize) -> Vec<String> {
    compiled(programs).iter().map(|c| c.stage("code").expect("code stage")).collect()
}

/// The first `programs` programs of seed 1, compiled.
fn compiled(programs: usize) -> Vec<ohua_compiler::Compiled> {
    (0..programs)
        .map(|index| {
            let source = ohua_conformance::gen::program(1, index);
            let file: syn::File = syn::parse_str(&source).expect("generated source parses");
            // `alg` itself is marked where the program has a helper.
            let options = ohua_compiler::Options { cluster: source.contains("algorithm(cluster)]") };
            let mut fns = Fns::default();
            fns.visit_file(&file);
            let alg = fns.0.iter().find(|f| f.sig.ident == "alg").expect("every program has `alg`");
            let siblings: Vec<syn::ItemFn> = fns.0.iter().filter(|f| f.sig.ident == "helper").cloned().collect();
            ohua_compiler::compile_with(alg, &siblings, options).expect("generated programs compile")
        })
        .collect()
}

/// Snapshot states (issue 24): programs read and write one, and some of
/// their reads run apart from the state (a finish operator, `.read`),
/// inside a loop, where they may have replicas.
#[test]
fn generated_programs_read_snapshot_states_apart_in_loops() {
    let programs = 100;
    let graphs = compiled(programs);
    let reads = |c: &ohua_compiler::Compiled| {
        let g = &c.graph;
        let finishes: Vec<usize> = (0..g.nodes.len()).filter(|&n| g.nodes[n].name.ends_with(".read")).collect();
        (!finishes.is_empty(), finishes.iter().any(|&n| g.replicable(n)))
    };
    // A read in an `if` arm: its step on the state takes the state (or an
    // argument) from the arm's `switch`.
    let in_branch = |c: &ohua_compiler::Compiled| {
        let g = &c.graph;
        (1..g.nodes.len())
            .filter(|&n| g.nodes[n].name.ends_with(".read"))
            .any(|finish| g.arcs.iter().any(|a| a.to.0 == finish - 1 && g.nodes[a.from.0].name.contains("/switch@")))
    };
    let split = graphs.iter().filter(|c| reads(c).0).count();
    let in_loops = graphs.iter().filter(|c| reads(c).1).count();
    let in_branches = graphs.iter().filter(|c| in_branch(c)).count();
    println!(
        "of {programs} programs: {split} read a snapshot state apart, {in_loops} in a loop (replicable), \
         {in_branches} in a branch"
    );
    assert!(split * 10 >= programs, "only {split} programs read a snapshot state apart");
    assert!(in_loops * 20 >= programs, "only {in_loops} programs read a snapshot state apart in a loop");
    assert!(in_branches * 20 >= programs, "only {in_branches} programs read a snapshot state apart in a branch");
    // The shapes sequential Rust has and a plain `let x = ss.read(v);`
    // does not: a generic method whose argument borrows a local, a result
    // that borrows the state inside a chain, several calls in one
    // expression; each split (a finish that evaluates it).
    let finished = |shape: &str| {
        graphs
            .iter()
            .filter(|c| {
                let graph = c.stage("graph").expect("graph stage");
                graph.lines().any(|l| l.contains(".read ") && l.replace(' ', "").contains(shape))
            })
            .count()
    };
    let (generic, chained, several) =
        (finished("ss.near(&"), finished(".copied().unwrap_or("), finished("f2(ss.read("));
    let conditions = finished("%5==2");
    let matches = finished("match");
    println!(
        "split reads: {generic} programs with a generic one, {chained} a chained one, {several} several calls, \
         {conditions} an `if` condition, {matches} a `match`'s scrutinee"
    );
    for (n, shape) in [
        (generic, "generic"),
        (chained, "chained"),
        (several, "several calls"),
        (conditions, "condition"),
        (matches, "scrutinee"),
    ] {
        assert!(n * 20 >= programs, "only {n} programs split a {shape} read of a snapshot state");
    }
}

#[test]
fn generated_programs_contain_fused_chains() {
    let programs = 100;
    let with_chain = generated_code(programs).iter().filter(|code| code.contains("Link::new")).count();
    // Measured at the time of writing: see tests/README.md.
    assert!(with_chain * 4 >= programs, "only {with_chain} of {programs} generated programs have a fused chain");
    println!("{with_chain} of {programs} generated programs have a fused chain");
}

/// `#[ohua::algorithm(cluster)]` (issue 25): a third of the programs are
/// marked, and most of those have a replicable statement whose values are
/// checked serde and go through bytes on serialized lanes; the others keep
/// their statements fused.
#[test]
fn generated_programs_are_cluster_algorithms_with_distributable_calls() {
    let programs = 100;
    let compiled = compiled(programs);
    let code: Vec<String> = compiled.iter().map(|c| c.stage("code").expect("code stage")).collect();
    let marked = code.iter().filter(|c| c.contains("crosses_processes")).count();
    // Runs of distributable calls merged into one (`graph/remote_chains.rs`
    // in the compiler joins their labels with "; ").
    let merged = compiled.iter().filter(|c| c.graph.nodes.iter().any(|n| n.label.contains("); "))).count();
    // A distributable call that reads the captured parameter `k`: on a
    // cluster its items go out with the value (`node/remote_values.rs`).
    let captured = code
        .iter()
        .filter(|c| {
            c.split("run_distributable(").skip(1).any(|call| {
                let header = &call[..call.find("| {").unwrap_or(call.len())];
                header.contains("(mut k,)")
            })
        })
        .count();
    let distributed = code.iter().filter(|c| c.contains("run_distributable")).count();
    // Their states are `LocalLog`s, not serde: a call that sent one to
    // another process would not compile (measured: 18 of 23; the others
    // have no state).
    let local = code.iter().filter(|c| c.contains("crosses_processes") && c.contains("LocalLog")).count();
    println!(
        "{marked} of {programs} programs check values crossing processes, {distributed} run a call as bytes, \
         {local} have states that are not serde, {merged} merge a run of distributable calls, \
         {captured} distribute a call that reads `k`"
    );
    assert!(marked * 5 >= programs, "only {marked} of {programs} generated programs are cluster algorithms");
    assert!(distributed * 6 >= programs, "only {distributed} of {programs} run a call as bytes");
    assert!(local * 3 >= marked * 2, "only {local} of the {marked} cluster programs have states that are not serde");
    // Measured: 18 of 29.
    assert!(merged * 2 >= marked, "only {merged} of the {marked} cluster programs merge a run of distributable calls");
    // Measured: 6 of 29.
    assert!(captured * 6 >= marked, "only {captured} of the {marked} cluster programs distribute a call reading `k`");
}

/// The shapes of issue 9, part 4 (valid Rust that the compiler once
/// rejected) stay in the generated programs: swaps of values that are not
/// `Copy` through a temporary, a by-value method in a branch, and a loop
/// header whose closure captures a local.
#[test]
fn generated_programs_contain_moves_consuming_branches_and_capturing_headers() {
    let programs = 100;
    let sources: Vec<String> = (0..programs).map(|i| ohua_conformance::gen::program(1, i)).collect();
    let count = |needle: &str| sources.iter().filter(|s| s.contains(needle)).count();
    let (swaps, branches, headers) = (count("let st"), count(".unwrap();"), count(".filter(|j: &i64|"));
    println!(
        "of {programs} programs: {swaps} swap, {branches} consume in a branch, {headers} capture in a loop header"
    );
    assert!(swaps * 10 >= programs, "only {swaps} programs swap through a temporary");
    assert!(branches * 20 >= programs, "only {branches} programs consume a value in a branch");
    assert!(headers * 20 >= programs, "only {headers} programs capture a local in a loop header");
}

/// Keyed state (issue 10): some programs call a keyed state in their loops,
/// on replicas by key (`run_keyed` in the generated code), and some call it
/// more than once in one body, which fuses those statements into one
/// operator (`frontend/keyed_regions.rs`).
#[test]
fn generated_programs_contain_keyed_calls_and_fused_keyed_regions() {
    let programs = 100;
    let code = generated_code(programs);
    let keyed = code.iter().filter(|c| c.contains("run_keyed")).count();
    let fused = code.iter().filter(|c| c.contains("::core::convert::identity")).count();
    // A keyed call that also reads the parameter `k`: its closure takes the
    // state first, then `k` (`graph/ops/call.rs`).
    let with_k = code.iter().filter(|c| c.contains("(mut ks, mut k)")).count();
    println!(
        "of {programs} programs: {keyed} call a keyed state on replicas, {fused} fuse a keyed region, \
         {with_k} call it on replicas with the parameter `k`"
    );
    assert!(keyed * 20 >= programs, "only {keyed} programs call a keyed state on replicas");
    assert!(fused * 20 >= programs, "only {fused} programs fuse calls on a keyed state");
    assert!(with_k * 20 >= programs, "only {with_k} programs call a keyed state on replicas reading `k`");
}

#[test]
fn generated_programs_fetch_write_and_fetch_in_called_algorithms() {
    let programs: Vec<String> = (0..100).map(|i| ohua_conformance::gen::program(1, i)).collect();
    let fetching = programs.iter().filter(|p| p.contains(".fetch(")).count();
    let writing = programs.iter().filter(|p| p.contains(".write((")).count();
    // `helper` comes first in its module: a fetch before `fn alg` is in it.
    let in_helper = programs
        .iter()
        .filter(|p| p.contains("pub fn helper") && p.split("pub fn alg").next().unwrap().contains(".fetch("))
        .count();
    eprintln!("of 100 programs: {fetching} fetch, {writing} write, {in_helper} fetch in helper");
    // Measured at the time of writing: see tests/README.md.
    assert!(fetching >= 30 && writing >= 15 && in_helper >= 3, "{fetching} {writing} {in_helper}");
}
