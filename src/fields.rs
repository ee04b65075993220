//! The fields of an [`IpInfo`] by name, flat: `country_code` rather than
//! `location.country_code`. One list for every place that shows an answer as
//! columns or as a single value: the CSV formats, the text page's rows and
//! the single-field answers. A field's value is its text, `None` for null.

use std::borrow::Cow;
use std::fmt;
use std::str::FromStr;

use crate::model::{Accuracy, IpInfo};

/// One leaf of an [`IpInfo`], in the order of the JSON document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Field {
    Ip,
    Version,
    IsPublic,
    CountryCode,
    Country,
    CountryBn,
    Flag,
    Continent,
    City,
    Latitude,
    Longitude,
    Accuracy,
    TimeZone,
    LocalTime,
    Currency,
    CallingCode,
    Asn,
    Organization,
    Range,
    ReverseDns,
    /// `special_purpose`, an object in the JSON document: as a flat field,
    /// the block's registry name (`Private-Use`), or null.
    SpecialPurpose,
}

impl Field {
    /// Every field, in the order of the JSON document (the CSV columns).
    pub const ALL: [Field; 21] = [
        Field::Ip,
        Field::Version,
        Field::IsPublic,
        Field::CountryCode,
        Field::Country,
        Field::CountryBn,
        Field::Flag,
        Field::Continent,
        Field::City,
        Field::Latitude,
        Field::Longitude,
        Field::Accuracy,
        Field::TimeZone,
        Field::LocalTime,
        Field::Currency,
        Field::CallingCode,
        Field::Asn,
        Field::Organization,
        Field::Range,
        Field::ReverseDns,
        Field::SpecialPurpose,
    ];

    /// The field's name: its JSON member name.
    pub fn name(self) -> &'static str {
        match self {
            Field::Ip => "ip",
            Field::Version => "version",
            Field::IsPublic => "is_public",
            Field::CountryCode => "country_code",
            Field::Country => "country",
            Field::CountryBn => "country_bn",
            Field::Flag => "flag",
            Field::Continent => "continent",
            Field::City => "city",
            Field::Latitude => "latitude",
            Field::Longitude => "longitude",
            Field::Accuracy => "accuracy",
            Field::TimeZone => "time_zone",
            Field::LocalTime => "local_time",
            Field::Currency => "currency",
            Field::CallingCode => "calling_code",
            Field::Asn => "asn",
            Field::Organization => "organization",
            Field::Range => "range",
            Field::ReverseDns => "reverse_dns",
            Field::SpecialPurpose => "special_purpose",
        }
    }

    /// The field's value in `info` as text (numbers and booleans as the JSON
    /// answer writes them); `None` for null (and for a non-finite number,
    /// which JSON writes as null).
    pub fn value(self, info: &IpInfo) -> Option<Cow<'_, str>> {
        let l = &info.location;
        let n = &info.network;
        match self {
            Field::Ip => Some(Cow::Borrowed(info.ip.as_str())),
            Field::Version => text(&info.version),
            Field::IsPublic => info.is_public.map(|b| Cow::Borrowed(bool_text(b))),
            Field::CountryCode => text(&l.country_code),
            Field::Country => text(&l.country),
            Field::CountryBn => text(&l.country_bn),
            Field::Flag => text(&l.flag),
            Field::Continent => text(&l.continent),
            Field::City => owned(&l.city),
            Field::Latitude => float(l.latitude).map(Cow::Owned),
            Field::Longitude => float(l.longitude).map(Cow::Owned),
            Field::Accuracy => l.accuracy.map(|a| Cow::Borrowed(accuracy_text(a))),
            Field::TimeZone => text(&l.time_zone),
            Field::LocalTime => owned(&l.local_time),
            Field::Currency => text(&l.currency),
            Field::CallingCode => text(&l.calling_code),
            Field::Asn => n.asn.map(|a| Cow::Owned(a.to_string())),
            Field::Organization => owned(&n.organization),
            Field::Range => owned(&n.range),
            Field::ReverseDns => owned(&n.reverse_dns),
            Field::SpecialPurpose => info
                .special_purpose
                .as_ref()
                .map(|s| Cow::Borrowed(s.name.as_ref())),
        }
    }
}

impl Field {
    /// Whether the value is text that someone outside this project chose:
    /// an organisation or city name from a data file, a PTR name from a
    /// reverse zone. Every other field is a number, a boolean, a canonical
    /// address or text from the project's own tables (`+1`, `USD`, ...).
    pub fn is_foreign_text(self) -> bool {
        matches!(self, Field::Organization | Field::City | Field::ReverseDns)
    }

    /// The value for a spreadsheet cell: as [`Field::value`], but text that
    /// a spreadsheet would run as a formula gets a leading `'`
    /// ([`spreadsheet_safe`]): foreign text, and the calling code (`+61`,
    /// which a spreadsheet reads as the formula `=61`); numbers and the rest
    /// of the project's own text are never changed.
    pub fn cell(self, info: &IpInfo) -> Option<Cow<'_, str>> {
        let value = self.value(info)?;
        Some(if self.is_foreign_text() || self == Field::CallingCode {
            spreadsheet_safe(value)
        } else {
            value
        })
    }
}

/// Foreign text made safe for a spreadsheet and a terminal: control and
/// bidi characters dropped (tabs and line breaks become spaces,
/// [`sanitize::one_line`]), then, if a spreadsheet would take it for a
/// formula, a `'` in front, as OWASP advises against CSV injection:
/// organisation names come from data files and the input column from
/// whoever wrote the log being enriched. A formula is judged on the text as
/// sanitised and past any leading white space (U+00A0 and the other
/// Unicode spaces included) and format characters (U+FEFF, U+200B, ...),
/// which spreadsheets skip: its first other character is `=`, `+`, `-`,
/// `@`, or one of their full-width or small forms (`＝`, `＋`, `－`, `＠`,
/// ...), which some spreadsheets read as the ASCII ones. (A cell holding
/// `;`, the separator of spreadsheets in many locales, is quoted by
/// [`csv::cell`].)
pub fn spreadsheet_safe(text: Cow<'_, str>) -> Cow<'_, str> {
    let text = match sanitize::one_line(&text) {
        Cow::Borrowed(_) => text,
        Cow::Owned(clean) => Cow::Owned(clean),
    };
    let first = text.chars().find(|&c| !(c.is_whitespace() || is_format(c)));
    match first {
        Some(
            '=' | '+' | '-' | '@' | '\u{ff1d}' | '\u{ff0b}' | '\u{ff0d}' | '\u{ff20}' | '\u{fe66}'
            | '\u{fe62}' | '\u{fe63}' | '\u{fe6b}' | '\u{2212}',
        ) => Cow::Owned(format!("'{text}")),
        _ => text,
    }
}

/// Characters that print nothing and that a spreadsheet skips before a
/// formula: soft hyphen, Mongolian vowel separator, zero-width space,
/// joiners and marks, word joiner and invisible operators, byte-order mark.
fn is_format(c: char) -> bool {
    matches!(
        c,
        '\u{ad}' | '\u{180e}' | '\u{200b}'..='\u{200f}' | '\u{2060}'..='\u{2064}' | '\u{feff}'
    )
}

/// A finite number as the JSON answer writes it (zmij, as serde_json).
fn float(value: Option<f64>) -> Option<String> {
    let v = value.filter(|v| v.is_finite())?;
    Some(zmij::Buffer::new().format_finite(v).to_owned())
}

fn text<'a>(s: &'a Option<Cow<'static, str>>) -> Option<Cow<'a, str>> {
    s.as_deref().map(Cow::Borrowed)
}

fn owned(s: &Option<String>) -> Option<Cow<'_, str>> {
    s.as_deref().map(Cow::Borrowed)
}

fn bool_text(b: bool) -> &'static str {
    if b { "true" } else { "false" }
}

fn accuracy_text(a: Accuracy) -> &'static str {
    match a {
        Accuracy::Country => "country",
        Accuracy::City => "city",
    }
}

impl fmt::Display for Field {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is no field of [`IpInfo`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not a field; the fields are {list}", list = field_list())]
pub struct UnknownField(pub String);

fn field_list() -> String {
    Field::ALL.map(Field::name).join(", ")
}

impl FromStr for Field {
    type Err = UnknownField;

    /// Exactly a field's name (lower case, as in the JSON document).
    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Field::ALL
            .into_iter()
            .find(|f| f.name() == name)
            .ok_or_else(|| UnknownField(name.chars().take(64).collect()))
    }
}

pub mod csv;
pub mod json;
pub mod sanitize;

#[cfg(test)]
mod tests {
    use super::*;

    /// Every field of the JSON document, in its order, and nothing else
    /// (`special_purpose`, null here, is one field: its name).
    #[test]
    fn the_fields_are_the_json_leaves_in_order() {
        let info = IpInfo {
            ip: "192.0.2.1".into(),
            version: None,
            is_public: None,
            location: Default::default(),
            network: Default::default(),
            special_purpose: None,
        };
        // Member names in the order serde writes them (a Value would sort them).
        let json = serde_json::to_string(&info).unwrap();
        let leaves: Vec<&str> = json
            .split('"')
            .collect::<Vec<_>>()
            .windows(3)
            .filter(|w| w[2].starts_with(':') && !matches!(w[1], "location" | "network"))
            .map(|w| w[1])
            .collect();
        let names: Vec<&str> = Field::ALL.iter().map(|f| f.name()).collect();
        assert_eq!(leaves, names);
    }

    #[test]
    fn names_parse_back_and_unknown_names_are_refused() {
        for f in Field::ALL {
            assert_eq!(f.name().parse::<Field>(), Ok(f));
        }
        let err = "Country_Code".parse::<Field>().unwrap_err();
        assert!(err.to_string().contains("country_code"), "{err}");
        assert_eq!("x".repeat(1000).parse::<Field>().unwrap_err().0.len(), 64);
    }

    /// An answer for 8.8.8.8 with only its address, version and reachability.
    fn sample() -> IpInfo {
        IpInfo {
            ip: "8.8.8.8".into(),
            version: Some("IPv4".into()),
            is_public: Some(true),
            location: Default::default(),
            network: Default::default(),
            special_purpose: None,
        }
    }

    #[test]
    fn values_are_text_and_null_is_none() {
        let mut info = sample();
        info.location.latitude = Some(37.751);
        info.location.accuracy = Some(Accuracy::Country);
        info.network.asn = Some(15169);
        assert_eq!(Field::Ip.value(&info).as_deref(), Some("8.8.8.8"));
        assert_eq!(Field::IsPublic.value(&info).as_deref(), Some("true"));
        assert_eq!(Field::Latitude.value(&info).as_deref(), Some("37.751"));
        assert_eq!(Field::Accuracy.value(&info).as_deref(), Some("country"));
        assert_eq!(Field::Asn.value(&info).as_deref(), Some("15169"));
        assert_eq!(Field::City.value(&info), None);
        assert_eq!(Field::ReverseDns.value(&info), None);
    }

    /// The rows read back with the `csv` crate give the fields' values.
    #[test]
    fn csv_rows_read_back_as_the_values() {
        let mut info = sample();
        info.location.latitude = Some(38.0);
        info.location.longitude = Some(-97.5);
        info.network.asn = Some(15169);
        info.network.organization = Some("Quote \" and, comma\nnewline".into());
        info.location.city = Some("=1+1".into());
        let mut out = Vec::new();
        csv::header(&mut out);
        csv::row(&mut out, &info);
        csv::error_row(&mut out, "=bad,input\"", "invalid_ip");
        let mut reader = ::csv::Reader::from_reader(out.as_slice());
        let header = reader.headers().unwrap().clone();
        assert_eq!(header.len(), Field::ALL.len() + 1);
        let rows: Vec<::csv::StringRecord> = reader.records().map(Result::unwrap).collect();
        assert_eq!(rows.len(), 2);
        for (i, field) in Field::ALL.iter().enumerate() {
            assert_eq!(header.get(i), Some(field.name()));
            let want = field
                .cell(&info)
                .map(|v| v.into_owned())
                .unwrap_or_default();
            assert_eq!(rows[0].get(i), Some(want.as_str()), "{field}");
        }
        assert_eq!(rows[0].get(Field::ALL.len()), Some(""));
        assert_eq!(&rows[0][9], "38.0");
        assert_eq!(&rows[1][0], "'=bad,input\"");
        assert_eq!(&rows[1][Field::ALL.len()], "invalid_ip");
        assert!(
            rows[1]
                .iter()
                .skip(1)
                .take(Field::ALL.len() - 1)
                .all(str::is_empty)
        );
    }

    #[test]
    fn cells_defuse_formulas_in_text_but_never_touch_numbers() {
        let mut info = sample();
        info.location.longitude = Some(-122.08);
        info.location.calling_code = Some("+1".into());
        info.network.organization = Some("=HYPERLINK(\"http://x\")".into());
        info.location.city = Some("@SUM(A1)".into());
        assert_eq!(Field::Longitude.cell(&info).as_deref(), Some("-122.08"));
        assert_eq!(
            Field::Organization.cell(&info).as_deref(),
            Some("'=HYPERLINK(\"http://x\")")
        );
        assert_eq!(Field::City.cell(&info).as_deref(), Some("'@SUM(A1)"));
        assert_eq!(Field::Ip.cell(&info).as_deref(), Some("8.8.8.8"));
        assert_eq!(Field::CallingCode.cell(&info).as_deref(), Some("'+1"));
        for bad in ["+1", "-1", "=1", "@x"] {
            assert!(spreadsheet_safe(bad.into()).starts_with('\''), "{bad:?}");
        }
        // Controls and bidi dropped, tabs and line breaks made spaces.
        assert_eq!(spreadsheet_safe("\tx\r\ny".into()), " x  y");
        assert_eq!(
            spreadsheet_safe("\u{1b}]0;PWNED\u{7}\u{1b}[2J\u{202e}8.8.8.8\u{85}".into()),
            "]0;PWNED[2J8.8.8.8"
        );
        assert_eq!(spreadsheet_safe("\u{7f}=1".into()), "'=1");
        // Past leading white space and format characters, and in full width.
        for bad in [
            "\t=1",
            " =1+1",
            "\u{a0}=1",
            "\u{feff}=1",
            "\u{200b}=1",
            "\u{3000}+1",
            "\u{ff1d}1+1",
            "\u{ff0b}1",
            "\u{ff0d}1",
            "\u{ff20}x",
            "\u{2212}1",
        ] {
            let safe = spreadsheet_safe(bad.into());
            assert!(safe.starts_with('\''), "{bad:?} -> {safe:?}");
        }
        for good in ["a=1", " a", "1-2", "\u{a0}x"] {
            assert!(!spreadsheet_safe(good.into()).starts_with('\''), "{good:?}");
        }
        // A cell holding the separator of `;` locales is quoted.
        let mut out = Vec::new();
        csv::cell(&mut out, ";=cmd|' /C calc'!A0");
        assert_eq!(out, b"\";=cmd|' /C calc'!A0\"");
    }
}
