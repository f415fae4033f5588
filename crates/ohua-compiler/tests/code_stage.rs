//! Snapshot tests of the generated code (the `code` stage: what
//! `#[ohua::algorithm]` expands to) of a few representative algorithms, so
//! that a change in what the macro emits, and in how much, shows in review
//! (issue 22, part 6). Each snapshot starts with the expansion's size.
//! Review changes with `cargo insta review` (or `INSTA_UPDATE=always`).

use ohua_compiler::compile;

/// The code stage, headed by its size in lines and bytes.
fn code(item: syn::ItemFn) -> String {
    let code = compile(&item, &[]).expect("compiles").stage("code").unwrap();
    format!("// {} lines, {} bytes\n{code}", code.lines().count(), code.len())
}

/// A `cluster` algorithm (issue 25): its replicable statements are not
/// fused, run as `run_distributable` (values as bytes where the deployment
/// says `lanes = "serialized"`), and check every value they take and give
/// `Serialize + Deserialize` at the user's names; the state's call does not.
#[test]
fn cluster_algorithm_checks_what_crosses_processes() {
    let item: syn::ItemFn = syn::parse_quote! {
        fn scores(lines: Vec<String>, weight: i64) -> Vec<i64> {
            let mut out = Vec::new();
            for line in lines {
                let r = parse(line);
                let s = score(r, weight);
                out.push(s);
            }
            out
        }
    };
    let code = ohua_compiler::compile_with(&item, &[], ohua_compiler::Options { cluster: true })
        .expect("compiles")
        .stage("code")
        .unwrap();
    insta::assert_snapshot!(format!("// {} lines, {} bytes\n{code}", code.lines().count(), code.len()));
}

/// A state used by two statements of a `cluster` algorithm's loop (a
/// desk that answers each request) is carried from one to the next as
/// data: its calls stay where it is (their values need not be serde);
/// only the statements around them may cross processes. Found when such
/// a loop failed to compile: `Desk` was asked to be serde at the attribute.
#[test]
fn regression_a_state_carried_through_a_cluster_loop_stays_local() {
    let item: syn::ItemFn = syn::parse_quote! {
        fn desk_loop(requests: Receiver<u64>, desk: Desk) -> Vec<u64> {
            let mut desk = desk;
            for r in requests {
                let y = heavy(r);
                let t = desk.note(y);
                let z = heavy(t);
                desk.answer(z);
            }
            desk.finish()
        }
    };
    let code = ohua_compiler::compile_with(&item, &[], ohua_compiler::Options { cluster: true })
        .expect("compiles")
        .stage("code")
        .unwrap();
    assert_eq!(code.matches("run_distributable").count(), 2, "the two `heavy` calls: {code}");
    assert!(!code.contains("crosses_processes(&desk)"), "the desk is not sent: {code}");
    assert!(code.contains("crosses_processes(&y)") && code.contains("crosses_processes(&z)"), "{code}");
}

/// A pipeline of stateless calls around a state used once per item: the
/// fused chain, the resident state and the collecting sink.
#[test]
fn pipeline_with_resident_state() {
    insta::assert_snapshot!(code(syn::parse_quote! {
        fn word_freq(docs: Vec<String>) -> Vec<(String, u64)> {
            let mut counts = Counter::new();
            for doc in docs {
                let words = split(doc);
                let norm = normalize(words);
                let tally = tally(norm);
                counts.merge(tally);
            }
            counts.top(10)
        }
    }));
}

/// A state used by two statements of a loop: carried from one iteration
/// to the next.
#[test]
fn state_used_twice_in_a_loop_is_carried() {
    insta::assert_snapshot!(code(syn::parse_quote! {
        fn running(xs: Vec<u64>) -> Vec<u64> {
            let mut acc = Acc::new();
            let mut out = Vec::new();
            for x in xs {
                acc.add(x);
                let r = acc.get(x);
                out.push(r);
            }
            out
        }
    }));
}

/// A branch: switches its inputs into the arms and merges the results.
#[test]
fn branch_switches_and_merges() {
    insta::assert_snapshot!(code(syn::parse_quote! {
        fn br(x: i64, y: i64) -> i64 {
            let c = positive(x);
            let r = if c { double(x) } else { negate(y) };
            add(r, y)
        }
    }));
}

/// Fetches from a data source: submitted, awaited, and batched per round.
#[test]
fn fetches_are_submitted_and_awaited() {
    insta::assert_snapshot!(code(syn::parse_quote! {
        fn profile(db: &Source<Db>, id: u64) -> (u64, u64) {
            let a = db.fetch(id);
            let b = db.fetch(id + 1);
            (ok(a), ok(b))
        }
    }));
}

/// Arc ends have no drop glue (the runtime's `exec/parts.rs`): one that the
/// generated code never takes would leave its arc open, and one taken twice
/// would not compile. Every end of every arc is taken exactly once, in
/// algorithms of every shape the snapshots above and the stage tests cover.
#[test]
fn every_arc_end_is_taken_exactly_once() {
    let algorithms: Vec<syn::ItemFn> = vec![
        syn::parse_quote! {
            fn word_freq(docs: Vec<String>) -> Vec<(String, u64)> {
                let mut counts = Counter::new();
                for doc in docs { let words = split(doc); let norm = normalize(words); counts.merge(tally(norm)); }
                counts.top(10)
            }
        },
        syn::parse_quote! {
            fn running(xs: Vec<u64>) -> Vec<u64> {
                let mut acc = Acc::new();
                let mut out = Vec::new();
                for x in xs { acc.add(x); let r = acc.get(x); out.push(r); }
                out
            }
        },
        syn::parse_quote! {
            fn br(x: i64, y: i64) -> i64 {
                let c = positive(x);
                let r = if c { double(x) } else { negate(y) };
                add(r, y)
            }
        },
        syn::parse_quote! {
            fn profile(db: &Source<Db>, id: u64) -> (u64, u64) {
                let a = db.fetch(id);
                let b = db.fetch(id + 1);
                (ok(a), ok(b))
            }
        },
        syn::parse_quote! {
            fn nested(rows: Vec<Vec<u64>>, k: u64) -> Vec<u64> {
                let v: Vec<u64> = rows.into_iter().map(|row| {
                    let s: Vec<u64> = row.into_iter().map(|x| scale(x, k)).collect();
                    total(s)
                }).collect();
                v
            }
        },
        syn::parse_quote! {
            fn dispatch(xs: Vec<Msg>) -> u64 {
                let mut st = State::new();
                for m in xs {
                    match m { Msg::Add(v) => st.add(v), Msg::Reset => st.reset(), }
                }
                st.sum()
            }
        },
        syn::parse_quote! {
            fn count_down(n: u64) -> u64 {
                let mut i = n;
                let mut acc = 0;
                while positive(i) { acc = plus(acc, i); i = dec(i); }
                acc
            }
        },
    ];
    for item in algorithms {
        let name = item.sig.ident.to_string();
        let code = compile(&item, &[]).expect("compiles").stage("code").unwrap();
        let arcs = code.matches(".ports(").count();
        assert!(arcs > 0, "{name}: no arcs in\n{code}");
        for a in 0..arcs {
            for end in [format!("s{a}"), format!("r{a}")] {
                assert!(code.contains(&format!("let (s{a}, r{a}) = b.ports({a});")), "{name}: arc {a} not created");
                let taken = taken_count(&code, &end);
                assert_eq!(taken, 1, "{name}: `{end}` taken {taken} times in\n{code}");
            }
        }
    }
}

/// How often `end.take()` occurs in `code` as a whole name (not `xs1.take()`
/// for `s1`).
fn taken_count(code: &str, end: &str) -> usize {
    let needle = format!("{end}.take()");
    code.match_indices(&needle)
        .filter(|(at, _)| !code[..*at].ends_with(|c: char| c.is_alphanumeric() || c == '_'))
        .count()
}
