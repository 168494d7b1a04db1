//! Short ids that are safe to type, and the one place where a typed id or prefix is matched
//! against every id the arbiter knows.
//!
//! A [`DecisionId`] is a UUID v7: its first 48 bits are a timestamp, so prompts made within a
//! minute share their first eight hex digits. A prefix of the full id therefore says little, and
//! resolved against "what is pending now" it finds the wrong prompt once the one it meant has
//! ended. The short id is instead the shortest prefix of the id's *random* part (the 19 hex
//! digits after the version digit) that no other known id shares, as jj shows change ids; it is
//! never shorter than [`MIN_SHORT_ID_DIGITS`], and never also the start of a known full id.
//!
//! [`IdIndex::matching`] reads a typed id both ways (a prefix of the full id, or of the random
//! part) and returns every known id it could name, so a caller refuses anything but exactly one.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Bound;

use thiserror::Error;

use crate::prompt::DecisionId;

/// The fewest hex digits of a short id, and of any prefix a person may type.
pub const MIN_SHORT_ID_DIGITS: usize = 4;

/// Hex digits in a whole id.
const FULL_DIGITS: usize = 32;

/// Hex digits in the random part of a UUID v7: 12 bits of `rand_a`, then the variant digit and
/// 60 bits of `rand_b`.
const RANDOM_DIGITS: usize = 19;

const RANDOM_MASK: u128 = (1 << (4 * RANDOM_DIGITS)) - 1;

/// The random part of an id, as a number of [`RANDOM_DIGITS`] hex digits.
fn random_part(id: DecisionId) -> u128 {
    id.as_u128() & RANDOM_MASK
}

/// A typed id that is not one, with what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum IdQueryError {
    #[error("`{given}` is not a prompt id: ids are hexadecimal digits (and dashes)")]
    NotHex { given: String },
    #[error("`{given}` is too short to name a prompt safely: give at least {MIN_SHORT_ID_DIGITS} digits")]
    TooShort { given: String },
    #[error("`{given}` is longer than a prompt id")]
    TooLong { given: String },
}

/// A typed id or prefix, normalised: lower-case hex digits without dashes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdQuery {
    digits: String,
}

impl IdQuery {
    pub fn parse(given: &str) -> Result<IdQuery, IdQueryError> {
        let trimmed = given.trim();
        let digits: String = trimmed
            .chars()
            .filter(|c| *c != '-')
            .map(|c| c.to_ascii_lowercase())
            .collect();
        if !digits.chars().all(|c| c.is_ascii_hexdigit()) {
            return Err(IdQueryError::NotHex {
                given: given.to_owned(),
            });
        }
        if digits.len() < MIN_SHORT_ID_DIGITS {
            return Err(IdQueryError::TooShort {
                given: given.to_owned(),
            });
        }
        if digits.len() > FULL_DIGITS {
            return Err(IdQueryError::TooLong {
                given: given.to_owned(),
            });
        }
        Ok(IdQuery { digits })
    }

    /// The ids in `[low, high]` whose `field_digits`-digit form starts with this query, or
    /// `None` when the query is longer than the field.
    fn range(&self, field_digits: usize) -> Option<(u128, u128)> {
        if self.digits.len() > field_digits {
            return None;
        }
        let value = u128::from_str_radix(&self.digits, 16).expect("checked to be hex digits");
        let free_bits = 4 * (field_digits - self.digits.len());
        let low = value << free_bits;
        let high = if free_bits == 0 {
            low
        } else {
            low | ((1u128 << free_bits) - 1)
        };
        Some((low, high))
    }
}

/// Every id the arbiter knows (pending or finished), ordered by the full id and by the random
/// part (then the full id, should two random parts ever be equal), so that short ids and typed
/// prefixes cost a lookup, not a scan.
#[derive(Debug, Default)]
pub struct IdIndex {
    by_full_id: BTreeSet<u128>,
    by_random_part: BTreeSet<(u128, u128)>,
}

impl IdIndex {
    pub fn insert(&mut self, id: DecisionId) {
        self.by_full_id.insert(id.as_u128());
        self.by_random_part.insert((random_part(id), id.as_u128()));
    }

    pub fn remove(&mut self, id: DecisionId) {
        self.by_full_id.remove(&id.as_u128());
        self.by_random_part.remove(&(random_part(id), id.as_u128()));
    }

    pub fn len(&self) -> usize {
        self.by_full_id.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_full_id.is_empty()
    }

    /// The shortest prefix of `id`'s random part that names it alone among the known ids, read
    /// either way: no other random part and no full id starts with it.
    pub fn short_id(&self, id: DecisionId) -> String {
        let random = random_part(id);
        let shared_with = |other: u128| -> usize {
            let differing = random ^ other;
            ((differing.leading_zeros() as usize).saturating_sub(128 - 4 * RANDOM_DIGITS) / 4)
                .min(RANDOM_DIGITS)
        };
        let this = (random, id.as_u128());
        let before = self
            .by_random_part
            .range(..this)
            .next_back()
            .map(|(other, _)| shared_with(*other))
            .unwrap_or(0);
        let after = self
            .by_random_part
            .range((Bound::Excluded(this), Bound::Unbounded))
            .next()
            .map(|(other, _)| shared_with(*other))
            .unwrap_or(0);
        let hex = format!("{random:0width$x}", width = RANDOM_DIGITS);
        let mut length = (before.max(after) + 1).clamp(MIN_SHORT_ID_DIGITS, RANDOM_DIGITS);
        while length < RANDOM_DIGITS && self.starts_a_full_id(&hex[..length]) {
            length += 1;
        }
        hex[..length].to_owned()
    }

    fn starts_a_full_id(&self, digits: &str) -> bool {
        let query = IdQuery {
            digits: digits.to_owned(),
        };
        query
            .range(FULL_DIGITS)
            .is_some_and(|(low, high)| self.by_full_id.range(low..=high).next().is_some())
    }

    /// Every known id that `query` could name, as a prefix of a full id or of a random part,
    /// oldest first; at most `limit` of them.
    pub fn matching(&self, query: &IdQuery, limit: usize) -> Vec<DecisionId> {
        let mut found: BTreeSet<DecisionId> = BTreeSet::new();
        if let Some((low, high)) = query.range(FULL_DIGITS) {
            found.extend(
                self.by_full_id
                    .range(low..=high)
                    .take(limit)
                    .map(|value| DecisionId::from_u128(*value)),
            );
        }
        if let Some((low, high)) = query.range(RANDOM_DIGITS) {
            let in_range = self.by_random_part.range((low, 0)..=(high, u128::MAX));
            found.extend(
                in_range
                    .take(limit)
                    .map(|(_, id)| DecisionId::from_u128(*id)),
            );
        }
        found.into_iter().take(limit).collect()
    }
}

/// Short ids for a set of ids known together, such as the records of an audit log.
pub fn short_ids(ids: impl IntoIterator<Item = DecisionId>) -> BTreeMap<DecisionId, String> {
    let mut index = IdIndex::default();
    let ids: Vec<DecisionId> = ids.into_iter().collect();
    for id in &ids {
        index.insert(*id);
    }
    ids.into_iter().map(|id| (id, index.short_id(id))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An id with the given timestamp digits and random digits.
    fn id(timestamp: u64, random: u128) -> DecisionId {
        DecisionId::from_u128(((timestamp as u128) << 80) | (0x7 << 76) | (random & RANDOM_MASK))
    }

    /// A random part that starts with `digits` (and goes on with zeros).
    fn random(digits: &str) -> u128 {
        u128::from_str_radix(&format!("{digits:0<19}"), 16).unwrap()
    }

    fn query(text: &str) -> IdQuery {
        IdQuery::parse(text).unwrap()
    }

    #[test]
    fn typed_ids_are_normalised_and_checked() {
        assert_eq!(query(" 01A2-b3c4 ").digits, "01a2b3c4");
        assert_eq!(
            IdQuery::parse("a3f").unwrap_err(),
            IdQueryError::TooShort {
                given: "a3f".into()
            }
        );
        assert!(matches!(
            IdQuery::parse("a3fz"),
            Err(IdQueryError::NotHex { .. })
        ));
        assert!(matches!(
            IdQuery::parse(""),
            Err(IdQueryError::TooShort { .. })
        ));
        assert!(matches!(
            IdQuery::parse(&"a".repeat(33)),
            Err(IdQueryError::TooLong { .. })
        ));
        let full = DecisionId::new_v7().to_string();
        assert_eq!(IdQuery::parse(&full).unwrap().digits.len(), 32);
    }

    #[test]
    fn a_short_id_is_the_shortest_unique_prefix_of_the_random_part() {
        let mut index = IdIndex::default();
        let first = id(0x0190_0000_0000, random("abcd1111"));
        let second = id(0x0190_0000_0001, random("abcd2222"));
        let loner = id(0x0190_0000_0002, random("1234"));
        for known in [first, second, loner] {
            index.insert(known);
        }
        assert_eq!(index.short_id(first), "abcd1");
        assert_eq!(index.short_id(second), "abcd2");
        assert_eq!(
            index.short_id(loner),
            "1234",
            "never shorter than the minimum"
        );
        index.remove(second);
        assert_eq!(
            index.short_id(first),
            "abcd",
            "shorter again once the neighbour is forgotten"
        );
    }

    #[test]
    fn a_short_id_is_never_also_the_start_of_a_full_id() {
        let mut index = IdIndex::default();
        // Its random part starts with the same digits as every full id of its time.
        let unlucky = id(0x0190_0000_0000, random("01905555"));
        index.insert(unlucky);
        let short = index.short_id(unlucky);
        assert_eq!(short, "01905");
        assert_eq!(index.matching(&query(&short), 10), vec![unlucky]);
    }

    #[test]
    fn a_prefix_matches_every_known_id_it_could_name_either_way() {
        let mut index = IdIndex::default();
        let released = id(0x0190_aaaa_0000, random("5555"));
        let pending = id(0x0190_aaaa_0001, random("6666"));
        index.insert(released);
        index.insert(pending);
        assert_eq!(
            index.matching(&query("0190aaaa"), 10),
            vec![released, pending],
            "a stale full-id prefix names both"
        );
        assert_eq!(index.matching(&query("5555"), 10), vec![released]);
        assert_eq!(
            index.matching(&query(&pending.to_string()), 10),
            vec![pending]
        );
        assert!(index.matching(&query("7777"), 10).is_empty());
        assert_eq!(
            index.matching(&query("0190"), 1).len(),
            1,
            "at most the limit"
        );
    }

    #[test]
    fn two_ids_with_the_same_random_part_are_never_told_apart_by_it() {
        let mut index = IdIndex::default();
        let first = id(1, 0x42);
        let second = id(2, 0x42);
        index.insert(first);
        index.insert(second);
        let short = index.short_id(first);
        assert_eq!(short.len(), RANDOM_DIGITS);
        assert_eq!(
            index.matching(&query(&short), 10),
            vec![first, second],
            "so a caller refuses it as ambiguous"
        );
    }

    #[test]
    fn short_ids_of_a_log_are_unique_among_themselves() {
        let ids: Vec<DecisionId> = (0..2_000).map(|_| DecisionId::new_v7()).collect();
        let shorts = short_ids(ids.iter().copied());
        let mut index = IdIndex::default();
        ids.iter().for_each(|known| index.insert(*known));
        for (known, short) in &shorts {
            assert!(short.len() >= MIN_SHORT_ID_DIGITS);
            assert_eq!(
                index.matching(&query(short), 10),
                vec![*known],
                "{short} names {known} alone"
            );
        }
    }
}
