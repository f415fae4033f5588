//! The caller's items as its worker reads them: pulled directly when they
//! are all there, from a reader thread when they come one by one.

use std::sync::mpsc::{self, TryRecvError};

use crate::error::ClusterError;
use crate::stage::{Items, EPOCH_ITEMS};

/// The caller's items as its worker reads them.
pub(crate) enum Feed<I, It> {
    /// Pulled by the worker itself: they are all there.
    Ready(std::iter::Fuse<It>),
    /// Read by a thread of their own, or pushed by the caller's code,
    /// which wakes the worker for each.
    Waiting(mpsc::Receiver<I>),
}

/// What [`Feed::next`] found.
pub(crate) enum Next<I> {
    Item(I),
    /// Nothing yet; more may come.
    Pending,
    Done,
}

impl<I: Send + 'static, It: Iterator<Item = I> + Send + 'static> Feed<I, It> {
    /// Starts reading `items`: an [`Items::Waiting`] source on a thread,
    /// which wakes the thread that calls this (the worker) for each item.
    pub(crate) fn start(items: Items<It>, process: usize) -> Result<Self, ClusterError> {
        let items = match items {
            Items::Ready(items) => return Ok(Feed::Ready(items.fuse())),
            Items::Pushed(rx) => return Ok(Feed::Waiting(rx)),
            Items::Waiting(items) => items,
        };
        let (tx, rx) = mpsc::sync_channel::<I>(EPOCH_ITEMS);
        let wake = std::thread::current();
        std::thread::Builder::new()
            .name("ohua-cluster-items".into())
            .spawn(move || {
                for item in items {
                    if tx.send(item).is_err() {
                        break;
                    }
                    wake.unpark();
                }
                drop(tx);
                wake.unpark();
            })
            .map_err(|e| ClusterError::WorkerPanicked { process, message: e.to_string() })?;
        Ok(Feed::Waiting(rx))
    }

    pub(crate) fn next(&mut self) -> Next<I> {
        match self {
            Feed::Ready(items) => items.next().map_or(Next::Done, Next::Item),
            Feed::Waiting(rx) => match rx.try_recv() {
                Ok(item) => Next::Item(item),
                Err(TryRecvError::Empty) => Next::Pending,
                Err(TryRecvError::Disconnected) => Next::Done,
            },
        }
    }
}
