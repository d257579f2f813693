//! The writer beside the walk: on its own connection to the primary, between every two pages, it
//! commits rows newer than everything, rows inside the range already walked, a row just behind
//! the cursor (the next page's first row, which a lagging replica lacks), and deletes rows of any
//! age, seeded ones included.

use std::collections::BTreeSet;

use chrono::{NaiveDateTime, TimeDelta};
use keyset_tests::seed;

use crate::Backend;

/// The writer's seed: each walk meets the same sequence of choices.
const WRITER_SEED: u64 = 2026;

/// A linear congruential generator (Knuth's MMIX constants): seeded, so a walk replays exactly,
/// and no dependency for a few hundred coin tosses.
pub struct Lcg(pub u64);

impl Lcg {
    /// A number in `0..n`, from the high bits (the low bits of an LCG cycle quickly).
    pub fn below(&mut self, n: u64) -> u64 {
        self.0 =
            self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % n
    }
}

pub struct Writer<B: Backend> {
    conn: B::Conn,
    rng: Lcg,
    next_id: i64,
    newer_slot: i64,
    /// Rows on the primary, by id, for picking deletions.
    live: Vec<i64>,
    pub inserted: usize,
    pub deleted: BTreeSet<i64>,
}

impl<B: Backend> Writer<B> {
    pub fn new(conn: B::Conn, initial: impl IntoIterator<Item = i64>) -> Self {
        let live: Vec<i64> = initial.into_iter().collect();
        let next_id = live.iter().max().map_or(1, |max| max + 1);
        Writer {
            conn,
            rng: Lcg(WRITER_SEED),
            next_id,
            newer_slot: 100,
            live,
            inserted: 0,
            deleted: BTreeSet::new(),
        }
    }

    /// One round of writes, each committed on its own; `walked` is every row the walk returned
    /// so far, in its order (the last one is the cursor row).
    pub fn between_pages(&mut self, walked: &[(NaiveDateTime, i64)]) {
        for _ in 0..self.rng.below(3) {
            // Newer than every row: before the first page, where the walk has been.
            let created_at = seed::timestamp(self.newer_slot);
            self.newer_slot += 1;
            self.insert(created_at);
        }
        if !walked.is_empty() {
            for _ in 0..self.rng.below(3) {
                // With a fresh (larger) id, a walked row's timestamp sorts before that row.
                let (created_at, _) = walked[self.rng.below(walked.len() as u64) as usize];
                self.insert(created_at);
            }
        }
        if let Some((cursor_at, _)) = walked.last() {
            // Just behind the cursor: the first row of the next page.
            self.insert(*cursor_at - TimeDelta::microseconds(1));
        }
        for _ in 0..self.rng.below(4) {
            let index = self.rng.below(self.live.len() as u64) as usize;
            let id = self.live.swap_remove(index);
            assert_eq!(B::delete(&mut self.conn, id), 1, "the writer deletes a row that is there");
            self.deleted.insert(id);
        }
    }

    fn insert(&mut self, created_at: NaiveDateTime) {
        let id = self.next_id;
        self.next_id += 1;
        let row = seed::NewPost { created_at, ..seed::post(id) };
        B::insert(&mut self.conn, &[row]);
        self.live.push(id);
        self.inserted += 1;
    }
}
