//! Snapshot tests of the IR and graph stages on representative algorithms.
//! Review changes with `cargo insta review` (or `INSTA_UPDATE=always`).

use ohua_compiler::compile;

fn stages(item: syn::ItemFn) -> String {
    let c = compile(&item, &[]).expect("compiles");
    format!("{}\n{}", c.stage("ir").unwrap(), c.stage("graph").unwrap())
}

#[test]
fn pipeline_with_resident_state() {
    insta::assert_snapshot!(stages(syn::parse_quote! {
        fn word_freq(lines: Vec<String>) -> Vec<(String, u64)> {
            let mut tok = Tokenizer::new();
            let mut counts = Counter::new();
            for line in lines {
                let words = tok.split(line);
                let clean = normalize(words);
                counts.add(clean);
            }
            counts.top(10)
        }
    }));
}

#[test]
fn state_used_twice_in_loop_is_carried() {
    insta::assert_snapshot!(stages(syn::parse_quote! {
        fn twice(xs: Vec<i64>) -> i64 {
            let mut s = S::new();
            for x in xs {
                s.a(x);
                let y = f(x);
                s.b(y);
            }
            s.total()
        }
    }));
}

#[test]
fn branch_switches_values_and_merges_phis() {
    insta::assert_snapshot!(stages(syn::parse_quote! {
        fn br(x: i64, y: i64) -> i64 {
            let mut acc = 0;
            if x > y {
                acc = f(x);
            } else {
                let z = g(y);
                acc = h(z, acc);
            }
            acc
        }
    }));
}

#[test]
fn match_dispatch_and_arm_bindings() {
    insta::assert_snapshot!(stages(syn::parse_quote! {
        fn m(v: Option<i64>, k: i64) -> i64 {
            match v {
                Some(x) if x > k => f(x),
                Some(x) => g(x, k),
                None => 0,
            }
        }
    }));
}

#[test]
fn nested_loops_capture_outer_values_as_sticky() {
    insta::assert_snapshot!(stages(syn::parse_quote! {
        fn nest(rows: Vec<Vec<i64>>, k: i64) -> Vec<i64> {
            let mut out = Vec::new();
            for row in rows {
                for x in row {
                    let y = scale(x, k);
                    out.push(y);
                }
            }
            out
        }
    }));
}

#[test]
fn while_loop_cycles_control_flow() {
    insta::assert_snapshot!(stages(syn::parse_quote! {
        fn count(n: u64) -> u64 {
            let mut i = 0;
            let mut acc = 1;
            while i < n {
                acc = step(acc);
                i += 1;
            }
            acc
        }
    }));
}

#[test]
fn tail_recursion_becomes_a_loop() {
    insta::assert_snapshot!(stages(syn::parse_quote! {
        fn gcd(a: u64, b: u64) -> u64 {
            if b == 0 { a } else { gcd(b, a % b) }
        }
    }));
}

#[test]
fn map_collect_is_smap_and_collect() {
    insta::assert_snapshot!(stages(syn::parse_quote! {
        fn squares(xs: Vec<u64>) -> Vec<u64> {
            let ys: Vec<u64> = xs.into_iter().map(|x| sq(x)).collect();
            ys
        }
    }));
}

/// A keyed state used twice in a loop body: the statements from its first
/// to its last call are one operator that holds the state (resident, not
/// carried), so it may run on replicas by key; the code stage routes it by
/// the first call's first argument.
#[test]
fn keyed_state_used_twice_in_loop_is_one_resident_operator() {
    let item: syn::ItemFn = syn::parse_quote! {
        fn detect(reqs: Vec<Req>) -> Vec<bool> {
            let mut c = ohua::keyed(Classifier::new());
            let mut out = Vec::new();
            for r in reqs {
                let good = c.classify(&r);
                let bad = inspect(&r, good);
                c.report(&r, bad);
                out.push(bad);
            }
            out
        }
    };
    insta::assert_snapshot!(stages(item.clone()));
    let code = compile(&item, &[]).expect("compiles").stage("code").unwrap();
    assert!(code.contains("run_keyed"), "{code}");
    assert!(code.contains("keys.of(&(&r))"), "routed by the first call's key: {code}");
}

/// The code stage of `item`.
fn code_of(item: &syn::ItemFn) -> String {
    compile(item, &[]).expect("compiles").stage("code").unwrap()
}

/// A call on a keyed state that also reads parameters (a number, a shared
/// reference): still routed by key, the state first among its sticky
/// inputs whatever order the statement names them in, each parameter
/// fanned out to the replicas.
#[test]
fn keyed_call_that_reads_parameters_is_routed_by_key() {
    let item: syn::ItemFn = syn::parse_quote! {
        fn serve(reqs: Vec<Req>, rounds: u32, cfg: &Config) -> Vec<u64> {
            let mut files = ohua::keyed(Files::new());
            let mut out = Vec::new();
            for r in reqs {
                let reply = pick(rounds, files.serve(&r, rounds, cfg));
                out.push(reply);
            }
            out
        }
    };
    let code = code_of(&item);
    assert!(code.contains("run_keyed"), "{code}");
    assert!(code.contains("keys.of(&(&r))"), "routed by the call's key: {code}");
    // The closure takes the state first, then the parameters.
    let closure = code.split("run_keyed").nth(1).unwrap();
    let (files, rounds) = (closure.find("mut files").unwrap(), closure.find("mut rounds").unwrap());
    assert!(files < rounds, "the state first: {closure}");
}

/// What keeps a call on a keyed state on one operator: another state it
/// reads, or a key that names a value from outside the loop (the key is
/// evaluated again where only the loop's values are at hand).
#[test]
fn keyed_call_with_another_state_or_a_key_from_outside_the_loop_runs_once() {
    let other_state: syn::ItemFn = syn::parse_quote! {
        fn serve(reqs: Vec<Req>) -> Vec<u64> {
            let mut files = ohua::keyed(Files::new());
            let mut log = Log::new();
            let mut out = Vec::new();
            for r in reqs {
                let reply = files.serve(&r, &mut log);
                out.push(reply);
            }
            out
        }
    };
    let key_from_outside: syn::ItemFn = syn::parse_quote! {
        fn serve(reqs: Vec<Req>, k: u64) -> Vec<u64> {
            let mut files = ohua::keyed(Files::new());
            let mut out = Vec::new();
            for r in reqs {
                let reply = files.serve(&k, &r);
                out.push(reply);
            }
            out
        }
    };
    for item in [other_state, key_from_outside] {
        let code = code_of(&item);
        assert!(!code.contains("run_keyed"), "{code}");
    }
}
