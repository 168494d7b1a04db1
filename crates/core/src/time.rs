//! Wall-clock instants as the arbiter sees them: milliseconds since the Unix epoch, handed in by
//! the caller (the core never reads a clock) and written as RFC 3339 text on the wire.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Milliseconds since 1970-01-01T00:00:00Z.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Timestamp(pub u64);

impl Timestamp {
    pub fn from_unix_millis(millis: u64) -> Self {
        Timestamp(millis)
    }

    pub fn unix_millis(self) -> u64 {
        self.0
    }

    /// Milliseconds from `earlier` to `self`, or zero when `earlier` is later.
    pub fn millis_since(self, earlier: Timestamp) -> u64 {
        self.0.saturating_sub(earlier.0)
    }

    /// Parses the RFC 3339 form that [`fmt::Display`] writes (`2026-11-30T03:13:33.123Z`).
    pub fn parse_rfc3339(text: &str) -> Option<Timestamp> {
        let text = text.strip_suffix('Z')?;
        let (date, clock) = text.split_once('T')?;
        let mut date_parts = date.splitn(3, '-').map(|part| part.parse::<i64>().ok());
        let (year, month, day) = (
            date_parts.next()??,
            date_parts.next()??,
            date_parts.next()??,
        );
        let (clock, millis) = match clock.split_once('.') {
            Some((clock, fraction)) => {
                let digits: String = fraction.chars().chain("000".chars()).take(3).collect();
                (clock, digits.parse::<u64>().ok()?)
            }
            None => (clock, 0),
        };
        let mut clock_parts = clock.splitn(3, ':').map(|part| part.parse::<i64>().ok());
        let (hour, minute, second) = (
            clock_parts.next()??,
            clock_parts.next()??,
            clock_parts.next()??,
        );
        let valid = (1..=12).contains(&month)
            && (1..=31).contains(&day)
            && (0..24).contains(&hour)
            && (0..60).contains(&minute)
            && (0..=60).contains(&second);
        // Years past 9999 are not RFC 3339, and would overflow the arithmetic below.
        if !valid || !(1970..=9999).contains(&year) {
            return None;
        }
        let days = days_from_civil(year, month, day);
        let seconds = days * 86_400 + hour * 3_600 + minute * 60 + second;
        Some(Timestamp(seconds as u64 * 1_000 + millis))
    }
}

/// A duration in its largest whole unit: the count, then `units` for seconds, minutes, hours
/// or days (`["s", "m", "h", "d"]` writes `42s`, `5m`, `3h`, `2d`).
pub fn in_largest_unit(millis: u64, units: [&str; 4]) -> String {
    let seconds = millis / 1_000;
    let (count, unit) = match seconds {
        0..=59 => (seconds, units[0]),
        60..=3_599 => (seconds / 60, units[1]),
        3_600..=86_399 => (seconds / 3_600, units[2]),
        _ => (seconds / 86_400, units[3]),
    };
    format!("{count}{unit}")
}

impl fmt::Display for Timestamp {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        let seconds = (self.0 / 1_000) as i64;
        let millis = self.0 % 1_000;
        let (year, month, day) = civil_from_days(seconds.div_euclid(86_400));
        let second_of_day = seconds.rem_euclid(86_400);
        write!(
            formatter,
            "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{millis:03}Z",
            second_of_day / 3_600,
            second_of_day % 3_600 / 60,
            second_of_day % 60
        )
    }
}

impl Serialize for Timestamp {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Timestamp {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        Timestamp::parse_rfc3339(&text).ok_or_else(|| {
            serde::de::Error::custom(format!("`{text}` is not an RFC 3339 UTC time"))
        })
    }
}

/// Converts days since the epoch to a proleptic Gregorian date (Howard Hinnant's algorithm).
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let shifted = days + 719_468;
    let era = shifted.div_euclid(146_097);
    let day_of_era = shifted.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1_460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_index + 2) / 5 + 1;
    let month = if month_index < 10 {
        month_index + 3
    } else {
        month_index - 9
    };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// The inverse of [`civil_from_days`].
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year.rem_euclid(400);
    let month_index = if month > 2 { month - 3 } else { month + 9 };
    let day_of_year = (153 * month_index + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_duration_is_written_in_its_largest_whole_unit() {
        let units = ["s", "m", "h", "d"];
        for (millis, written) in [
            (0, "0s"),
            (59_999, "59s"),
            (60_000, "1m"),
            (3_599_999, "59m"),
            (3_600_000, "1h"),
            (86_399_999, "23h"),
            (86_400_000, "1d"),
            (10 * 86_400_000, "10d"),
        ] {
            assert_eq!(in_largest_unit(millis, units), written, "{millis}");
        }
        assert_eq!(
            in_largest_unit(300_000, [" s", " min", " h", " d"]),
            "5 min"
        );
    }

    #[test]
    fn formats_a_known_instant() {
        assert_eq!(Timestamp(0).to_string(), "1970-01-01T00:00:00.000Z");
        assert_eq!(
            Timestamp(1_796_008_413_123).to_string(),
            "2026-11-30T03:13:33.123Z"
        );
    }

    #[test]
    fn parses_what_it_formats() {
        for millis in [0, 951_782_400_000, 1_796_008_413_123, 4_102_444_799_999] {
            let text = Timestamp(millis).to_string();
            assert_eq!(
                Timestamp::parse_rfc3339(&text),
                Some(Timestamp(millis)),
                "{text}"
            );
        }
    }

    #[test]
    fn refuses_text_that_is_not_a_time() {
        for text in [
            "",
            "yesterday",
            "2026-13-01T00:00:00Z",
            "2026-11-30 03:13:33Z",
            "2026-11-30T03:13:33",
            "99999999999999999-01-01T00:00:00Z",
        ] {
            assert_eq!(Timestamp::parse_rfc3339(text), None, "{text}");
        }
    }
}
