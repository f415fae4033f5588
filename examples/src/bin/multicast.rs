//! InContext's signed multicast (§7.2) with a snapshot state: a group's
//! members come and go and send signed messages. Per message, a cheap
//! `&mut self` update of the group (a join adds a member's key, a leave
//! removes it, a data message counts against its sender), then the
//! expensive `&self` check of the signature against the key the group held
//! at that point (ed25519, the `ed25519-dalek` crate), then delivery in
//! order. The group is declared `ohua::snapshot(Group::new())`: the checks
//! run on snapshots, on replicas, beside the updates after them, and the
//! deliveries equal sequential execution's, message for message.
//!
//! ```text
//! cargo run --release -p ohua-examples --bin multicast [-- --messages N]
//! ```

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::collections::BTreeMap;

use ed25519_dalek::{Signature, Signer, SigningKey, Verifier, VerifyingKey};
use ohua::algorithm;
use ohua_examples::{arg_usize, best_of, print_case_study, Rng};

/// What travels on the multicast channel.
#[derive(Debug, Clone)]
pub enum Message {
    /// A member joins with its key.
    Join { member: u32, key: VerifyingKey },
    /// A member leaves: its later messages are rejected.
    Leave { member: u32 },
    /// A signed message from a member.
    Data { sender: u32, body: Vec<u8>, signature: Signature },
}

/// The group: the members' keys and what each sent (the forwarding state).
#[derive(Debug, Clone, Default)]
pub struct Group {
    keys: BTreeMap<u32, VerifyingKey>,
    sent: BTreeMap<u32, u64>,
    changes: u64,
}

impl Group {
    fn new() -> Self {
        Group::default()
    }

    /// `&mut self`: cheap, in message order on the live group.
    fn update(&mut self, m: &Message) {
        match m {
            Message::Join { member, key } => {
                self.keys.insert(*member, *key);
                self.changes += 1;
            }
            Message::Leave { member } => {
                self.keys.remove(member);
                self.changes += 1;
            }
            Message::Data { sender, .. } => *self.sent.entry(*sender).or_default() += 1,
        }
    }

    /// `&self`: the expensive part, on a snapshot: does the signature check
    /// out against the key the group holds for the sender right now?
    fn verify(&self, m: &Message) -> Verdict {
        match m {
            Message::Data { sender, body, signature } => match self.keys.get(sender) {
                Some(key) if key.verify(body, signature).is_ok() => Verdict::Deliver(self.sent[sender]),
                Some(_) => Verdict::BadSignature,
                None => Verdict::NotAMember,
            },
            _ => Verdict::Membership(self.changes),
        }
    }
}

/// What happened to a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Delivered as the sender's n-th message.
    Deliver(u64),
    /// Signed with a key the sender does not hold.
    BadSignature,
    /// From someone not (or no longer) in the group.
    NotAMember,
    /// A join or leave, the group's n-th change.
    Membership(u64),
}

/// The delivery log, in message order.
#[derive(Debug, Default)]
pub struct Deliveries(Vec<(usize, Verdict)>);

impl Deliveries {
    fn new() -> Self {
        Deliveries::default()
    }

    fn deliver(&mut self, verdict: Verdict) {
        let n = self.0.len();
        self.0.push((n, verdict));
    }
}

#[algorithm]
fn multicast(messages: Vec<Message>) -> Vec<(usize, Verdict)> {
    let mut group = ohua::snapshot(Group::new());
    let mut out = Deliveries::new();
    for m in messages {
        group.update(&m);
        let verdict = group.verify(&m);
        out.deliver(verdict);
    }
    out.0
}

fn sequential(messages: Vec<Message>) -> Vec<(usize, Verdict)> {
    let mut group = Group::new();
    let mut out = Deliveries::new();
    for m in messages {
        group.update(&m);
        out.deliver(group.verify(&m));
    }
    out.0
}

/// `n` messages among 32 would-be members: one in 20 a join or a leave,
/// the rest data, mostly from members; one data message in 50 signed
/// with the wrong key, one in 50 from someone not in the group.
fn messages(n: usize, seed: u64) -> Vec<Message> {
    let mut rng = Rng::new(seed);
    let keys: Vec<SigningKey> = (0..32)
        .map(|_| {
            let mut secret = [0u8; 32];
            secret.iter_mut().for_each(|b| *b = rng.below(256) as u8);
            SigningKey::from_bytes(&secret)
        })
        .collect();
    let mut out: Vec<Message> =
        (0..24).map(|member| Message::Join { member, key: keys[member as usize].verifying_key() }).collect();
    let mut members: Vec<u32> = (0..24).collect();
    for i in 0..n {
        if rng.below(20) == 0 {
            let member = rng.below(32) as u32;
            out.push(match members.iter().position(|m| *m == member) {
                Some(at) => {
                    members.swap_remove(at);
                    Message::Leave { member }
                }
                None => {
                    members.push(member);
                    Message::Join { member, key: keys[member as usize].verifying_key() }
                }
            });
            continue;
        }
        let member = match rng.below(50) {
            _ if members.is_empty() => rng.below(32) as u32,
            0 => rng.below(32) as u32,
            _ => members[rng.below(members.len() as u64) as usize],
        };
        let body = format!("message {i} from {member}: {}", rng.next_u64()).into_bytes();
        let signer = if rng.below(50) == 0 { &keys[(member as usize + 1) % 32] } else { &keys[member as usize] };
        out.push(Message::Data { sender: member, signature: signer.sign(&body), body });
    }
    out
}

fn main() {
    let n = arg_usize("--messages", "MULTICAST_MESSAGES", 20_000);
    let runs = 3;
    let msgs = messages(n, 7);
    println!("multicast: {} messages (joins, leaves, signed data) in a group of up to 32", msgs.len());
    let (seq, t_seq) = best_of(runs, || msgs.clone(), sequential);
    let start = std::time::Instant::now();
    let first = multicast(msgs.clone());
    let t_first = start.elapsed();
    let (got, t_def) = best_of(runs, || msgs.clone(), multicast);
    assert_eq!(first, seq, "the first run differs from sequential execution");
    assert_eq!(got, seq, "the default deployment differs from sequential execution");
    let count = |f: fn(&Verdict) -> bool| seq.iter().filter(|(_, v)| f(v)).count();
    println!(
        "delivered {}, bad signatures {}, not members {}, membership changes {}; deliveries equal sequential: yes",
        count(|v| matches!(v, Verdict::Deliver(_))),
        count(|v| *v == Verdict::BadSignature),
        count(|v| *v == Verdict::NotAMember),
        count(|v| matches!(v, Verdict::Membership(_)))
    );
    let (_, reports) = ohua::profile(|| multicast(msgs.clone()));
    print_case_study(runs, t_seq, t_first, t_def, &reports[0]);
}
