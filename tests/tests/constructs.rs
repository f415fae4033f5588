//! One readable test per construct of the algorithm language, each checked
//! against sequential execution under every deployment.

use ohua::algorithm;
use ohua_conformance::{check, Log};

fn double(x: i64) -> i64 {
    x * 2
}
fn inc(x: i64) -> i64 {
    x + 1
}
fn pair(x: i64) -> (i64, i64) {
    (x, -x)
}

#[algorithm]
fn lets_tuples_shadowing(x: i64) -> (i64, i64, i64) {
    let y = double(x);
    let (a, b) = pair(y);
    let _ = inc(a);
    let y = inc(y);
    let y = y + a * 10;
    (y, a, b)
}

#[test]
fn let_tuple_wildcard_and_shadowing() {
    assert_eq!(check(|| lets_tuples_shadowing(5)), (111, 10, -10));
}

#[algorithm]
fn expressions(v: Vec<i64>, k: i64) -> String {
    let n = v.len() as i64;
    let first = v[0];
    let total: i64 = v.iter().sum();
    let msg = format!("{n} items, first {first}, total {}, k={k}", total);
    let w = vec![k; 3];
    msg + &format!("{:?}", w)
}

#[test]
fn literals_operators_fields_references_macros() {
    check(|| expressions(vec![4, 5, 6], 7));
}

#[algorithm]
fn state_before_in_and_after_loop(xs: Vec<i64>) -> (Vec<String>, i64) {
    let mut log = Log::new();
    log.mark("start");
    for x in xs {
        let y = double(x);
        log.push(y);
        log.mark("body");
    }
    log.mark("end");
    log.finish()
}

#[test]
fn state_used_before_inside_twice_and_after_a_loop() {
    let (calls, acc) = check(|| state_before_in_and_after_loop(vec![1, 2, 3]));
    assert_eq!(acc, 12);
    assert_eq!(calls.len(), 8);
}

#[algorithm]
fn resident_state(xs: Vec<i64>) -> (Vec<String>, i64) {
    let mut log = Log::new();
    for x in xs {
        let y = inc(x);
        log.push(y);
    }
    log.finish()
}

#[test]
fn state_used_once_in_a_loop_stays_in_its_operator() {
    check(|| resident_state((0..500).collect()));
    check(|| resident_state(vec![]));
}

#[algorithm]
fn branches(xs: Vec<i64>) -> (Vec<String>, i64, i64) {
    let mut log = Log::new();
    let mut big = 0;
    for x in xs {
        if x % 3 == 0 {
            log.push(x);
        } else if x % 3 == 1 {
            log.mark("one");
            big = big + x;
        } else {
            let z = double(x);
            log.push(z);
        }
    }
    let (calls, acc) = log.finish();
    (calls, acc, big)
}

#[test]
fn if_else_if_else_with_state_in_several_arms() {
    check(|| branches((0..50).collect()));
}

#[algorithm]
fn if_value(x: i64) -> i64 {
    let y = if x > 0 { double(x) } else { inc(x) };
    let z = if y > 10 { y } else { 0 };
    y + z
}

#[test]
fn if_as_a_value() {
    check(|| if_value(7));
    check(|| if_value(-3));
}

#[derive(Debug, Clone, PartialEq)]
pub enum Msg {
    Add(i64),
    Mark(String),
    Pair(i64, i64),
    Quit,
}

#[algorithm]
fn matches(msgs: Vec<Msg>) -> (Vec<String>, i64) {
    let mut log = Log::new();
    for m in msgs {
        match m {
            Msg::Add(x) if x > 100 => {
                log.mark("big");
            }
            Msg::Add(x) => {
                log.push(x);
            }
            Msg::Mark(s) => log.mark(&s),
            Msg::Pair(a, b) => {
                let s = a + b;
                log.push(s);
            }
            Msg::Quit => {}
        }
    }
    log.finish()
}

#[test]
fn match_with_bindings_guards_and_state() {
    let msgs = vec![Msg::Add(1), Msg::Mark("m".into()), Msg::Add(500), Msg::Pair(2, 3), Msg::Quit, Msg::Add(7)];
    check(|| matches(msgs.clone()));
}

#[algorithm]
fn nested_loops(rows: Vec<Vec<i64>>) -> (Vec<String>, i64) {
    let mut log = Log::new();
    let scale = 3;
    for row in rows {
        log.mark("row");
        for x in row {
            let y = x * scale;
            log.push(y);
        }
    }
    log.finish()
}

#[test]
fn nested_loops_with_state_across_both_levels() {
    check(|| nested_loops(vec![vec![1, 2], vec![], vec![3], vec![4, 5, 6]]));
    check(|| nested_loops(vec![]));
}

#[algorithm]
fn carried_sum(xs: Vec<i64>) -> (i64, i64) {
    let mut sum = 0;
    let mut count = 0;
    for x in xs {
        sum += x;
        count = count + 1;
        let avg = sum / count;
        sum = sum + avg - avg;
    }
    (sum, count)
}

#[test]
fn loop_carried_locals() {
    check(|| carried_sum((1..=100).collect()));
    check(|| carried_sum(vec![]));
}

#[algorithm]
fn collect_map(xs: Vec<i64>) -> Vec<(i64, i64)> {
    let mut log = Log::new();
    let ys: Vec<(i64, i64)> = xs
        .into_iter()
        .map(|x| {
            let y = double(x);
            let seen = log.push(y);
            (y, seen)
        })
        .collect();
    ys
}

#[test]
fn map_collect_is_smap_with_collect() {
    check(|| collect_map((0..100).collect()));
}

#[algorithm]
fn unknown_length(n: u64) -> Vec<u64> {
    let mut out = Vec::new();
    for x in (0..).map(|i: u64| i * i).take_while(move |sq| *sq < n) {
        out.push(x);
    }
    out
}

#[test]
fn for_over_an_iterator_of_unknown_length() {
    check(|| unknown_length(10_000));
}

/// A parameter taken by reference may be iterated directly: the items
/// borrow the caller's data, which outlives the run. (`for x in &local` is
/// rejected with a message; see `tests/compile_fail/cases/for_over_borrowed_local.rs`.)
#[algorithm]
fn borrowed_parameter(xs: &[i64], words: &[String]) -> (Vec<i64>, usize) {
    let mut out = Vec::new();
    for x in xs {
        out.push(double(*x));
    }
    let mut total = 0;
    for w in words.iter() {
        total = total + w.len();
    }
    (out, total)
}

#[test]
fn for_over_a_parameter_taken_by_reference() {
    let xs: Vec<i64> = (0..50).collect();
    let words: Vec<String> = ["a", "bb", "ccc"].iter().map(|s| s.to_string()).collect();
    let (out, total) = check(|| borrowed_parameter(&xs, &words));
    assert_eq!(out.len(), 50);
    assert_eq!(total, 6);
}

#[algorithm]
fn while_loop(n: i64) -> (i64, i64, Vec<String>) {
    let mut i = 0;
    let mut acc = 1;
    let mut log = Log::new();
    while i < n {
        acc = acc * 2 % 1_000_007;
        log.push(i);
        i += 1;
    }
    let (calls, _) = log.finish();
    (i, acc, calls)
}

#[test]
fn while_with_loop_carried_variables() {
    check(|| while_loop(20));
    check(|| while_loop(0));
}

#[algorithm]
fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

#[test]
fn tail_recursion() {
    assert_eq!(check(|| gcd(1071, 462)), 21);
}

#[algorithm]
fn collatz_steps(n: u64, steps: u64) -> u64 {
    match n {
        1 => steps,
        n if n % 2 == 0 => collatz_steps(n / 2, steps + 1),
        _ => {
            let m = 3 * n + 1;
            collatz_steps(m, steps + 1)
        }
    }
}

#[test]
fn tail_recursion_in_match_arms() {
    assert_eq!(check(|| collatz_steps(27, 0)), 111);
}

#[algorithm]
mod composed {
    use super::*;

    #[algorithm]
    pub fn normalize_all(xs: Vec<i64>, log: Log) -> (Vec<i64>, Log) {
        let mut log = log;
        let mut out = Vec::new();
        for x in xs {
            let y = inc(x);
            log.push(y);
            out.push(y);
        }
        (out, log)
    }

    #[algorithm]
    pub fn pipeline(xs: Vec<i64>) -> (Vec<i64>, Vec<String>) {
        let log = Log::new();
        let (ys, log) = normalize_all(xs, log);
        let (zs, log) = normalize_all(ys, log);
        let (calls, _) = log.finish();
        (zs, calls)
    }
}

#[test]
fn algorithms_call_algorithms_and_are_flattened() {
    check(|| composed::pipeline(vec![1, 2, 3]));
}

fn half(x: u64) -> u64 {
    x / 2
}

#[algorithm]
fn halvings(mut n: u64, acc: u64) -> u64 {
    match n {
        0 | 1 => acc,
        _ => {
            n = half(n);
            halvings(n, acc + 1)
        }
    }
}

#[test]
fn tail_recursion_after_reassigning_a_parameter_in_an_arm() {
    assert_eq!(check(|| halvings(1000, 0)), 9);
}

/// A swap through a temporary of values that are not `Copy`: the
/// assignments only rename values (issue 9, part 4).
#[algorithm]
fn swap_through_a_temporary(a: String, b: String, rounds: Vec<u8>) -> (String, String, Vec<String>) {
    let mut a = a;
    let mut b = b;
    let tmp = a;
    a = b;
    b = tmp;
    let mut seen = Vec::new();
    for _r in rounds {
        let t = a;
        a = b;
        b = t;
        let s = format!("{a}/{b}");
        seen.push(s);
    }
    (a, b, seen)
}

#[test]
fn swapping_values_that_are_not_copy() {
    check(|| swap_through_a_temporary("left".into(), "right".into(), vec![1, 2, 3]));
}

fn find_word(words: &[String], prefix: &str) -> Option<String> {
    words.iter().find(|w| w.starts_with(prefix)).cloned()
}

/// A by-value method (`unwrap`) in a branch on a value whose other method
/// (`is_some`) decides the branch (issue 9, part 4).
#[algorithm]
fn consuming_call_in_a_branch(words: Vec<String>, prefix: String) -> String {
    let m = find_word(&words, &prefix);
    if m.is_some() {
        let p = m.unwrap();
        p
    } else {
        let none = String::from("none");
        none
    }
}

#[test]
fn consuming_a_value_inside_a_branch() {
    let words: Vec<String> = ["apple", "banana", "cherry"].iter().map(|s| s.to_string()).collect();
    check(|| consuming_call_in_a_branch(words.clone(), "ba".into()));
    check(|| consuming_call_in_a_branch(words.clone(), "zz".into()));
}

/// The README's form of a loop over an unbounded iterator: the closure
/// borrows a parameter (issue 9, part 4).
#[algorithm]
fn squares_below(limit: u64) -> Vec<u64> {
    let mut out = Vec::new();
    for i in (1u64..).take_while(|i| i * i < limit) {
        let sq = i * i;
        out.push(sq);
    }
    out
}

#[test]
fn a_closure_in_the_loop_header_borrows_a_parameter() {
    check(|| squares_below(1_000));
}

fn word_count(s: &str) -> usize {
    s.split_whitespace().count()
}

/// A `let` may borrow from a parameter taken by reference (the caller's data
/// outlives the run); borrowing from a local is rejected with advice
/// (`tests/compile_fail/cases/borrowing_let.rs`).
#[algorithm]
fn borrow_of_a_parameter(text: &str) -> (usize, String) {
    let t = text.trim();
    let n = word_count(t);
    let upper = t.to_uppercase();
    (n, upper)
}

#[test]
fn a_let_may_borrow_from_a_parameter_taken_by_reference() {
    check(|| borrow_of_a_parameter("  two words  "));
}
