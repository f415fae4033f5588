//! From a request and what `load` found for it to what to send: the file
//! whole, a part of it, `304 Not Modified`, or an error page.

use std::sync::Arc;

use super::conditional::select;
use super::exchange::{Body, Exchange, Found, Request, Step};
use super::range::{ContentRange, Selected};
use super::respond::error_body;
use super::Validators;

/// A file `load` found.
pub(crate) struct Loaded {
    pub(crate) body: Body,
    pub(crate) kind: &'static str,
    pub(crate) validators: Option<Validators>,
}

/// Turn a request into what to send, by `load`; pass other steps on.
pub(crate) fn answer(mut ex: Exchange, load: impl FnOnce(&Request) -> Result<Loaded, u16>) -> Exchange {
    let Step::Request(r) = &ex.step else { return ex };
    let found = |status, content_type, body| Found {
        status,
        content_type,
        body,
        head_only: r.head_only,
        keep_alive: r.keep_alive,
        minor_version: r.minor_version,
        validators: None,
        content_range: None,
    };
    const TEXT: &str = "text/plain; charset=utf-8";
    ex.step = Step::Found(match load(r) {
        Ok(Loaded { body, kind, validators: Some(v) }) => {
            let len = body.len();
            let mut f = match select(&r.conditions, r.head_only, &v, len) {
                Selected::Full => found(200, kind, body),
                Selected::NotModified => found(304, kind, Body::Bytes(Arc::from(&[][..]))),
                Selected::Part(first, last) => Found {
                    content_range: Some(ContentRange::Part { first, last, len }),
                    ..found(206, kind, body.part(first, last))
                },
                Selected::Unsatisfiable => Found {
                    content_range: Some(ContentRange::Unsatisfiable { len }),
                    ..found(416, TEXT, Body::Bytes(error_body(416)))
                },
            };
            f.validators = Some(v);
            f
        }
        // No validators (a time HTTP cannot say): no conditions either.
        Ok(Loaded { body, kind, validators: None }) => found(200, kind, body),
        // A missing or forbidden file keeps the connection (as nginx does).
        Err(status) => found(status, TEXT, Body::Bytes(error_body(status))),
    });
    ex
}
