//! Short ids that are safe to type, and the one place where a typed id or prefix is matched
//! against every id the arbiter knows.
//!
//! A [`DecisionId`] is a UUID v7: its first 48 bits are a timestamp, so prompts made within a
//! minute share their first eight hex digits. A prefix of the full id therefore says little, and
//! resolved against "what is pending now" it finds the wrong prompt once the one it meant has
//! ended (or, after a restart, one the gateway never knew). The short id is instead the shortest
//! prefix of the id's *random* part that no other known id shares, as jj shows change ids: the
//! 18 hex digits of its 72 random bits (`rand_a`, then `rand_b` without the variant digit, whose
//! first two bits are fixed). It is never shorter than [`MIN_SHORT_ID_DIGITS`].
//!
//! [`IdIndex::matching`] reads a typed id as a prefix of a random part, and also as a prefix of a
//! full id once it has [`MIN_FULL_PREFIX_DIGITS`] digits (so it reaches seven digits into the
//! random bits), and returns every known id it could name: a caller refuses anything but exactly
//! one.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Bound;

use thiserror::Error;

use crate::prompt::DecisionId;

/// The fewest hex digits of a short id, and of any prefix a person may type.
pub const MIN_SHORT_ID_DIGITS: usize = 4;

/// Hex digits in a whole id.
const FULL_DIGITS: usize = 32;

/// The fewest digits of a prefix that is also read as the start of a full id: twelve digits of
/// timestamp, the version digit and seven random digits.
pub const MIN_FULL_PREFIX_DIGITS: usize = 20;

/// Hex digits in the random part of a UUID v7 as short ids use it: the 12 bits of `rand_a`, then
/// the 60 bits of `rand_b` after its variant digit.
const RANDOM_DIGITS: usize = 18;

const RAND_B_LOW_BITS: u32 = 60;

/// The random part of an id, as a number of [`RANDOM_DIGITS`] hex digits.
fn random_part(id: DecisionId) -> u128 {
    let value = id.as_u128();
    let rand_a = (value >> 64) & 0xfff;
    let rand_b_low = value & ((1 << RAND_B_LOW_BITS) - 1);
    (rand_a << RAND_B_LOW_BITS) | rand_b_low
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

    /// The shortest prefix of `id`'s random part that no other known id's random part shares.
    /// (It is shorter than [`MIN_FULL_PREFIX_DIGITS`], so it is never read as a full id.)
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
        let length = (before.max(after) + 1).clamp(MIN_SHORT_ID_DIGITS, RANDOM_DIGITS);
        hex[..length].to_owned()
    }

    /// Every known id that `query` could name (a prefix of a random part, or of a full id from
    /// [`MIN_FULL_PREFIX_DIGITS`] digits on), oldest first; at most `limit` of them.
    pub fn matching(&self, query: &IdQuery, limit: usize) -> Vec<DecisionId> {
        let mut found = self.starting_full_ids(query, limit, MIN_FULL_PREFIX_DIGITS);
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

    /// The known full ids that start with `query`, however short it is: what a person who typed
    /// the start of a full id may have meant, to say why nothing was done.
    pub fn full_ids_starting(&self, query: &IdQuery, limit: usize) -> Vec<DecisionId> {
        self.starting_full_ids(query, limit, 0)
            .into_iter()
            .collect()
    }

    fn starting_full_ids(
        &self,
        query: &IdQuery,
        limit: usize,
        min_digits: usize,
    ) -> BTreeSet<DecisionId> {
        let mut found: BTreeSet<DecisionId> = BTreeSet::new();
        if query.digits.len() < min_digits {
            return found;
        }
        if let Some((low, high)) = query.range(FULL_DIGITS) {
            found.extend(
                self.by_full_id
                    .range(low..=high)
                    .take(limit)
                    .map(|value| DecisionId::from_u128(*value)),
            );
        }
        found
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

    /// An id with the given timestamp digits and (18-digit) random part.
    fn id(timestamp: u64, random: u128) -> DecisionId {
        let rand_a = (random >> RAND_B_LOW_BITS) & 0xfff;
        let rand_b_low = random & ((1 << RAND_B_LOW_BITS) - 1);
        DecisionId::from_u128(
            ((timestamp as u128) << 80) | (0x7 << 76) | (rand_a << 64) | (0b10 << 62) | rand_b_low,
        )
    }

    /// A random part that starts with `digits` (and goes on with zeros).
    fn random(digits: &str) -> u128 {
        u128::from_str_radix(&format!("{digits:0<18}"), 16).unwrap()
    }

    fn query(text: &str) -> IdQuery {
        IdQuery::parse(text).unwrap()
    }

    #[test]
    fn the_random_part_skips_the_version_and_variant_digits() {
        let made = id(0x0190_0000_0000, random("abc123456789abcdef"));
        assert_eq!(made.to_string(), "01900000-0000-7abc-8123-456789abcdef");
        assert_eq!(format!("{:018x}", random_part(made)), "abc123456789abcdef");
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
    fn the_start_of_a_full_id_names_nothing_until_it_reaches_into_the_random_digits() {
        let mut index = IdIndex::default();
        let released = id(0x0190_aaaa_0000, random("5555"));
        let pending = id(0x0190_aaaa_0001, random("6666"));
        index.insert(released);
        index.insert(pending);
        assert!(
            index.matching(&query("0190aaaa"), 10).is_empty(),
            "eight digits of timestamp name no prompt"
        );
        assert_eq!(
            index.full_ids_starting(&query("0190aaaa"), 10),
            vec![released, pending],
            "but say whose start they are"
        );
        let twenty_digits: String = pending.to_string().replace('-', "")[..20].to_owned();
        assert_eq!(index.matching(&query(&twenty_digits), 10), vec![pending]);
        assert_eq!(index.matching(&query("5555"), 10), vec![released]);
        assert_eq!(
            index.matching(&query(&pending.to_string()), 10),
            vec![pending]
        );
        assert!(index.matching(&query("7777"), 10).is_empty());
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
