//! `replace!` names the replaced function by any path that names it
//! (issue 21, part 3, item 2): imported (`use svc::greet;`), renamed
//! (`use svc::greet as hello;`), or in full (`svc::greet`). Before the fix
//! an imported name failed with "cannot find function `__ohua_slot_greet`"
//! (and warned that the import was unused), so this file did not compile.
#![deny(unused_imports)]

use std::sync::mpsc::{self, Receiver, Sender};

use ohua::{algorithm, Update};
use ohua_conformance::within;

mod svc {
    #[ohua::updatable]
    pub fn greet(x: u64) -> String {
        format!("hello {x}")
    }
}

fn hi(x: u64) -> String {
    format!("hi {x}")
}
fn hey(x: u64) -> String {
    format!("hey {x}")
}
fn yo(x: u64) -> String {
    format!("yo {x}")
}

/// Updates written where only an import names the function.
mod updates {
    use super::svc::greet;
    use super::svc::greet as hello;

    pub fn through_use() -> ohua::update::Replacement {
        ohua::replace!(greet => super::hi)
    }

    pub fn through_rename() -> ohua::update::Replacement {
        ohua::replace!(hello => super::hey)
    }

    pub fn back_through_rename() -> ohua::update::Replacement {
        ohua::replace!(hello => hello)
    }
}

#[algorithm]
fn server(requests: Receiver<u64>, out: Sender<String>) -> u64 {
    let mut sent = Sent::new(out);
    for x in requests {
        let s = svc::greet(x);
        sent.send(s);
    }
    sent.count()
}

struct Sent(Sender<String>, u64);
impl Sent {
    fn new(out: Sender<String>) -> Self {
        Sent(out, 0)
    }
    fn send(&mut self, s: String) {
        self.1 += 1;
        let _ = self.0.send(s);
    }
    fn count(&self) -> u64 {
        self.1
    }
}

#[test]
fn a_replacement_names_the_function_through_use_a_rename_or_its_full_path() {
    let (tx, rx) = mpsc::channel();
    let (out, answers) = mpsc::channel();
    let service = ohua::service(move || server(rx, out));
    let steps: Vec<(Option<ohua::update::Replacement>, &str)> = vec![
        (None, "hello 0"),
        (Some(updates::through_use()), "hi 1"),
        (Some(updates::through_rename()), "hey 2"),
        (Some(ohua::replace!(svc::greet => yo)), "yo 3"),
        (Some(ohua::replace!(crate::svc::greet => hi)), "hi 4"),
        (Some(updates::back_through_rename()), "hello 5"),
    ];
    for (k, (r, expected)) in steps.into_iter().enumerate() {
        // The service is idle: the cut goes before the next request.
        let pending = r.map(|r| service.request(Update::new().replace(r)));
        tx.send(k as u64).unwrap();
        assert_eq!(answers.recv().unwrap(), expected);
        if let Some(p) = pending {
            p.wait().unwrap();
        }
    }
    drop(tx);
    assert_eq!(within(30, "the service", move || service.join()), 6);
}

#[test]
fn a_function_imported_by_name_is_still_callable_and_replaceable_in_one_scope() {
    use svc::greet;
    assert_eq!(greet(1), "hello 1", "outside a service the function runs its body");
    let r = ohua::replace!(greet => yo);
    assert!(r.function().ends_with("svc::greet"), "{}", r.function());
}
