use quote::quote;

use super::snapshot_type;
use crate::graph::Kind;

fn ty_of(call: &str) -> Option<String> {
    snapshot_type(&syn::parse_str(call).expect("a call")).map(|t| t.to_string())
}

#[test]
fn the_state_type_is_read_from_a_constructor_a_literal_or_a_turbofish() {
    assert_eq!(ty_of("snapshot(Routes::new())").as_deref(), Some("Routes"));
    assert_eq!(ty_of("ohua::snapshot(net::Routes::with(4))").as_deref(), Some("net :: Routes"));
    assert_eq!(ty_of("snapshot(Vec::<u8>::new())").as_deref(), Some("Vec :: < u8 >"));
    assert_eq!(ty_of("snapshot(Routes { hops: 0 })").as_deref(), Some("Routes"));
    assert_eq!(ty_of("snapshot::<Routes>(load())").as_deref(), Some("< Routes >"));
    // A tuple struct's constructor (regression: `snapshot(Total(0))` was
    // refused, `tests/tests/live_replace.rs`); an enum's variant.
    assert_eq!(ty_of("snapshot(Total(0))").as_deref(), Some("Total"));
    assert_eq!(ty_of("snapshot(counters::Total(0, 1))").as_deref(), Some("counters :: Total"));
    assert_eq!(ty_of("snapshot(Shape::Square(2))").as_deref(), Some("Shape"));
    assert_eq!(ty_of("snapshot(Some(Routes::new()))"), None);
    // A module's function, a trait's or a plain call say nothing of the type.
    assert_eq!(ty_of("snapshot(routes::new())"), None);
    assert_eq!(ty_of("snapshot(Default::default())"), None);
    assert_eq!(ty_of("snapshot(load())"), None);
}

fn compile(src: proc_macro2::TokenStream) -> crate::Compiled {
    crate::compile(&syn::parse2(src).expect("an fn"), &[]).expect("compiles")
}

/// (name, depth, replicable) of every finish.
fn finishes(c: &crate::Compiled) -> Vec<(String, u16, bool)> {
    let g = &c.graph;
    (0..g.nodes.len())
        .filter(|&n| g.nodes[n].name.ends_with(".read"))
        .map(|n| (g.nodes[n].name.clone(), g.nodes[n].depth, g.replicable(n)))
        .collect()
}

#[test]
fn a_let_of_a_call_on_a_snapshot_state_gets_a_finish_right_after_its_step() {
    let c = compile(quote! {
        fn alg(xs: Vec<u64>, limit: u64) -> u64 {
            let mut t = ohua::snapshot(Table::new());
            let mut sum = 0;
            for x in xs {
                t.put(x);
                let a = t.get(&x, limit);
                sum += a;
            }
            let n = t.len();
            sum + n
        }
    });
    assert_eq!(
        finishes(&c),
        vec![("alg/get#4.read".to_string(), 1, true), ("alg/len#6.read".to_string(), 0, false)],
        "{}",
        c.stage("graph").unwrap()
    );
    let g = &c.graph;
    let get = g.nodes.iter().position(|n| n.name == "alg/get#4").expect("the step");
    assert_eq!(g.nodes[get + 1].name, "alg/get#4.read", "producers before consumers");
    // The step hands its finish one value, and the finish binds what the let bound.
    let Kind::Call(finish) = &g.nodes[get + 1].kind else { panic!("a call") };
    assert_eq!(finish.returns.iter().map(ToString::to_string).collect::<Vec<_>>(), ["a"]);
    assert!(g.arcs.iter().any(|a| a.from == (get, 0) && a.to == (get + 1, 0)));
    assert!(
        g.arcs.iter().all(|a| a.from.0 != get || a.from.1 != 0 || a.to.0 == get + 1),
        "only the finish reads the step"
    );
}

#[test]
fn calls_whose_arguments_have_effects_stay_whole() {
    let c = compile(quote! {
        fn alg(xs: Vec<u64>) -> u64 {
            let mut t = ohua::snapshot(Table::new());
            let mut s = Log::new();
            let mut sum = 0;
            for x in xs {
                let a = t.get(s.next());
                let b = t.get(&mut sum);
                let c = t.get(format!("{x}"));
                let d = t.get(x.min(3));
                let e = f(&t, x);
                let g = t.get(x).map(|v| v + 1);
                t.put(a + b + c + d + e + g);
            }
            sum
        }
    });
    assert_eq!(finishes(&c), vec![], "{}", c.stage("graph").unwrap());
}

/// `alg`: a snapshot state `t`, and a loop over `xs` whose every item
/// `x` writes it (`t.put(x)`) and then runs `body`, which may add to `sum`.
fn after_a_write(body: proc_macro2::TokenStream) -> crate::Compiled {
    compile(quote! {
        fn alg(xs: Vec<u64>) -> u64 {
            let mut t = ohua::snapshot(Table::new());
            let mut sum = 0;
            for x in xs {
                t.put(x);
                #body
            }
            sum
        }
    })
}

#[test]
fn a_let_whose_expression_reads_the_state_only_through_calls_is_split() {
    let c = after_a_write(quote! {
        let a = t.get(&x).cloned().unwrap_or(0);
        let b = f(t.len()) + t.count(x, t.len());
        sum += a + b;
    });
    assert_eq!(
        finishes(&c).iter().map(|f| f.0.as_str()).collect::<Vec<_>>(),
        ["alg/unwrap_or#4.read", "alg/op#5.read"],
        "{}",
        c.stage("graph").unwrap()
    );
    let code = c.tokens.to_string().replace(' ', "");
    for site in 0..3 {
        assert!(code.contains(&format!("__ohua_probe{site}=")), "three sites in `b`, a probe each");
    }
}

#[test]
fn slice_and_str_methods_of_a_snapshot_vec_or_string_are_named_through_deref() {
    let c = compile(quote! {
        fn alg(xs: Vec<u64>) -> (Vec<bool>, usize) {
            let mut seen = ohua::snapshot(Vec::<u64>::new());
            let mut text = ohua::snapshot(String::new());
            let mut out = Vec::new();
            for x in xs {
                seen.push(x);
                let hit = seen.contains(&x);
                let n = seen.len();
                let word = text.contains("a");
                out.push(hit && word && n > 0);
            }
            (out, text.len())
        }
    });
    assert_eq!(finishes(&c).len(), 4, "{}", c.stage("graph").unwrap());
    let code = c.tokens.to_string().replace(' ', "");
    assert!(code.contains("Probe::of(&**seen,<[_]>::contains)"), "{code}");
    assert!(code.contains("Probe::of(&*seen,Vec::<u64>::len)"), "`len` is `Vec`'s own");
    assert!(code.contains("Probe::of(&**text,str::contains)"));
    assert!(code.contains("Probe::of(&*text,String::len)"));
}

#[test]
fn an_ifs_condition_or_a_matchs_scrutinee_that_reads_the_state_is_split_and_its_finish_feeds_the_switch() {
    let c = after_a_write(quote! {
        if t.has(&x) && t.len() > 2 {
            sum += 1;
        }
        let y = match t.kind(&x) {
            0 => 1,
            _ => 2,
        };
        sum += y;
    });
    let names: Vec<String> = finishes(&c).into_iter().map(|f| f.0).collect();
    assert_eq!(names, ["alg/if#4.read", "alg/match#6.read"], "{}", c.stage("graph").unwrap());
    let g = &c.graph;
    let finish = g.nodes.iter().position(|n| n.name == "alg/if#4.read").expect("the finish");
    assert!(
        g.arcs.iter().any(|a| a.from == (finish, 0) && g.nodes[a.to.0].name.contains("/switch@")),
        "{}",
        c.stage("graph").unwrap()
    );
}
