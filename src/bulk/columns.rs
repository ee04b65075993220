//! The columns of bulk enrichment (`iplookup lookup --fields`): the fields
//! asked for, in the order given, and the pieces the fast CSV rows
//! (`bulk::enrich`) write them in. Fields that come from the country
//! alone and stand side by side form one piece, rendered once per country
//! and second; `asn` followed by `organization` is one piece, cached per AS
//! row.

use crate::fields::Field;

/// One piece of a row: one or more cells, each followed by its comma.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Piece {
    Ip,
    Version,
    IsPublic,
    /// A run of fields that come from the country alone:
    /// [`Columns::country_run`] of this number.
    Country(usize),
    Asn,
    Organization,
    /// `asn,organization`, side by side.
    Network,
    Range,
    ReverseDns,
    /// The name of the address's special-purpose block, if any.
    SpecialPurpose,
}

/// The columns of a row and how they are written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Columns {
    fields: Vec<Field>,
    pieces: Vec<Piece>,
    country_runs: Vec<Vec<Field>>,
}

impl Columns {
    /// The columns `fields`, in that order.
    pub(crate) fn new(fields: &[Field]) -> Columns {
        let mut columns = Columns {
            fields: fields.to_vec(),
            pieces: Vec::with_capacity(fields.len()),
            country_runs: Vec::new(),
        };
        for field in fields {
            columns.add(*field);
        }
        columns
    }

    /// Adds a field, joining it to the piece before when they go together.
    fn add(&mut self, field: Field) {
        let last = self.pieces.last().copied();
        let piece = match (field, last) {
            (f, Some(Piece::Country(run))) if from_country(f) => {
                self.country_runs[run].push(f);
                return;
            }
            (f, _) if from_country(f) => {
                self.country_runs.push(vec![f]);
                Piece::Country(self.country_runs.len() - 1)
            }
            (Field::Organization, Some(Piece::Asn)) => {
                self.pieces.pop();
                Piece::Network
            }
            (Field::Ip, _) => Piece::Ip,
            (Field::Version, _) => Piece::Version,
            (Field::IsPublic, _) => Piece::IsPublic,
            (Field::Asn, _) => Piece::Asn,
            (Field::Organization, _) => Piece::Organization,
            (Field::Range, _) => Piece::Range,
            (Field::SpecialPurpose, _) => Piece::SpecialPurpose,
            // Every field left is a country field or reverse_dns.
            _ => Piece::ReverseDns,
        };
        self.pieces.push(piece);
    }

    /// The fields, in column order.
    pub(crate) fn fields(&self) -> &[Field] {
        &self.fields
    }

    /// The pieces, in column order.
    pub(crate) fn pieces(&self) -> &[Piece] {
        &self.pieces
    }

    /// How many runs of country fields there are.
    pub(crate) fn country_runs(&self) -> usize {
        self.country_runs.len()
    }

    /// The fields of run `run` of [`Piece::Country`].
    pub(crate) fn country_run(&self, run: usize) -> &[Field] {
        self.country_runs.get(run).map_or(&[], Vec::as_slice)
    }
}

/// Whether a country-level answer takes the field from the country alone
/// (`city` is one: empty at country level).
pub(crate) fn from_country(field: Field) -> bool {
    matches!(
        field,
        Field::CountryCode
            | Field::Country
            | Field::CountryBn
            | Field::Flag
            | Field::Continent
            | Field::City
            | Field::Latitude
            | Field::Longitude
            | Field::Accuracy
            | Field::TimeZone
            | Field::LocalTime
            | Field::Currency
            | Field::CallingCode
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_field_makes_the_pieces_of_a_whole_row() {
        let all = Columns::new(&Field::ALL);
        use Piece::*;
        assert_eq!(
            all.pieces(),
            [
                Ip,
                Version,
                IsPublic,
                Country(0),
                Network,
                Range,
                ReverseDns,
                SpecialPurpose
            ]
        );
        assert_eq!(all.country_run(0).len(), 13);
        assert_eq!(all.country_runs(), 1);
        assert_eq!(all.fields(), Field::ALL);
    }

    #[test]
    fn fields_in_any_order_make_pieces_in_that_order() {
        use Field as F;
        use Piece::*;
        let c = Columns::new(&[
            F::Organization,
            F::CountryCode,
            F::Ip,
            F::TimeZone,
            F::Flag,
            F::Asn,
        ]);
        assert_eq!(c.pieces(), [Organization, Country(0), Ip, Country(1), Asn]);
        assert_eq!(c.country_run(0), [F::CountryCode]);
        assert_eq!(c.country_run(1), [F::TimeZone, F::Flag]);
        assert!(c.country_run(2).is_empty());
        let c = Columns::new(&[F::Ip, F::CountryCode, F::Asn, F::Organization]);
        assert_eq!(c.pieces(), [Ip, Country(0), Network]);
        assert_eq!(Columns::new(&[F::ReverseDns]).pieces(), [ReverseDns]);
        assert_eq!(Columns::new(&[]).pieces(), []);
    }
}
