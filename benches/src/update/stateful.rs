//! The stateful shape (`UPDATE_SHAPE=state`, issue 21 part 1): the CPU
//! shape's server with its cache used by two statements of the loop, as a
//! service that keeps per-key statistics next to its table does: it looks
//! the request up, and after encoding notes what it answered. The loop then
//! *carries* the cache from one request to the next (a `carry` operator
//! with a feedback arc) instead of holding it in one operator, which is
//! the shape whose requests waited for about a batch of later ones
//! (380-400 ms at 3 requests/ms) before issue 21's fix.

use std::sync::mpsc::{Receiver, Sender};

use super::server::{encode, encode_v2, parse, render, render_v2, Cache, Reply, Request, Sink};

/// The stateful server, version 1.
#[ohua::algorithm]
pub fn server_state(requests: Receiver<Request>, replies: Sender<Reply>) -> u64 {
    let mut cache = Cache::new();
    let mut sink = Sink::new(replies);
    for req in requests {
        let parsed = parse(req);
        let entry = cache.lookup(parsed);
        let tagged = render(entry);
        let reply = encode(tagged);
        let reply = cache.note(reply);
        sink.send(reply);
    }
    sink.count()
}

/// The stateful server, version 2, as a restart would start it.
#[ohua::algorithm]
pub fn server_state_v2(requests: Receiver<Request>, replies: Sender<Reply>) -> u64 {
    let mut cache = Cache::new();
    let mut sink = Sink::new(replies);
    for req in requests {
        let parsed = parse(req);
        let entry = cache.lookup(parsed);
        let tagged = render_v2(entry);
        let reply = encode_v2(tagged);
        let reply = cache.note(reply);
        sink.send(reply);
    }
    sink.count()
}
