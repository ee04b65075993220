//! Special-purpose AS numbers: the IANA Special-Purpose AS Numbers registry
//! (and the reserved numbers of the 16- and 32-bit AS number space), each
//! with its range, its registry name, its RFC and a sentence for people,
//! as [`super::SpecialBlock`] does for addresses. An AS answer names the
//! entry of a number in it (`AS0`, `AS23456`, `AS64512`, `AS65535`, ...)
//! instead of a generic "not found", and never shows such a number as an
//! ordinary network, even where a data row names it.

/// One entry of the registry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SpecialAsn {
    /// The first and last AS number of the entry.
    pub first: u32,
    pub last: u32,
    /// The registry's name for it.
    pub name: &'static str,
    /// The RFC that sets it aside (`RFC 7607`).
    pub rfc: &'static str,
    /// What it is for, in a sentence or two.
    pub explanation: &'static str,
}

impl SpecialAsn {
    /// The RFC Editor's page of [`SpecialAsn::rfc`].
    pub fn rfc_url(&self) -> String {
        super::explain::rfc_url(self.rfc)
    }

    /// The range as people write it: `AS0`, or `AS64512-AS65534`.
    pub fn range(&self) -> String {
        if self.first == self.last {
            format!("AS{}", self.first)
        } else {
            format!("AS{}-AS{}", self.first, self.last)
        }
    }
}

/// The registry, ascending, no two entries overlapping.
const REGISTRY: &[SpecialAsn] = &[
    SpecialAsn {
        first: 0,
        last: 0,
        name: "Reserved (AS 0)",
        rfc: "RFC 7607",
        explanation: "AS0 is reserved: no network may use it. It marks address space that must not be routed at all (route origin authorisations for AS0 say \"nobody announces this\"), so any announcement naming it is invalid.",
    },
    SpecialAsn {
        first: 23456,
        last: 23456,
        name: "AS_TRANS",
        rfc: "RFC 6793",
        explanation: "AS23456 (AS_TRANS) stands in for a 4-byte AS number on routers that only know 2-byte AS numbers. It belongs to no network: seeing it means an older router is on the path.",
    },
    SpecialAsn {
        first: 64496,
        last: 64511,
        name: "Reserved for use in documentation and sample code",
        rfc: "RFC 5398",
        explanation: "These 2-byte AS numbers are set aside for examples in documentation and sample code, like 192.0.2.0/24 for addresses. They are never used on the internet.",
    },
    SpecialAsn {
        first: 64512,
        last: 65534,
        name: "Reserved for Private Use",
        rfc: "RFC 6996",
        explanation: "Private AS numbers (2-byte), for networks inside one organisation or between a customer and its provider, like 10.0.0.0/8 for addresses. They are removed before routes reach the internet, so they name no public network.",
    },
    SpecialAsn {
        first: 65535,
        last: 65535,
        name: "Reserved (last 2-byte AS number)",
        rfc: "RFC 7300",
        explanation: "AS65535 is the last 2-byte AS number and is reserved: no network may use it (BGP well-known communities use the value). A data row naming it names no real network.",
    },
    SpecialAsn {
        first: 65536,
        last: 65551,
        name: "Reserved for use in documentation and sample code",
        rfc: "RFC 5398",
        explanation: "These 4-byte AS numbers are set aside for examples in documentation and sample code. They are never used on the internet.",
    },
    SpecialAsn {
        first: 4_200_000_000,
        last: 4_294_967_294,
        name: "Reserved for Private Use",
        rfc: "RFC 6996",
        explanation: "Private AS numbers (4-byte), for networks inside one organisation or between a customer and its provider. They are removed before routes reach the internet, so they name no public network.",
    },
    SpecialAsn {
        first: 4_294_967_295,
        last: 4_294_967_295,
        name: "Reserved (last 4-byte AS number)",
        rfc: "RFC 7300",
        explanation: "AS4294967295 is the last 4-byte AS number and is reserved: no network may use it.",
    },
];

/// The registry entry of the AS `number`, `None` for an ordinary number.
pub fn special_asn(number: u32) -> Option<&'static SpecialAsn> {
    let i = REGISTRY.partition_point(|e| e.last < number);
    REGISTRY.get(i).filter(|e| e.first <= number)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_number_and_only_those_is_special() {
        for (n, rfc) in [
            (0, "RFC 7607"),
            (23456, "RFC 6793"),
            (64496, "RFC 5398"),
            (64511, "RFC 5398"),
            (64512, "RFC 6996"),
            (65534, "RFC 6996"),
            (65535, "RFC 7300"),
            (65536, "RFC 5398"),
            (65551, "RFC 5398"),
            (4_200_000_000, "RFC 6996"),
            (4_294_967_294, "RFC 6996"),
            (u32::MAX, "RFC 7300"),
        ] {
            assert_eq!(special_asn(n).map(|e| e.rfc), Some(rfc), "AS{n}");
        }
        for n in [1, 15169, 23455, 23457, 64495, 65552, 4_199_999_999] {
            assert_eq!(special_asn(n), None, "AS{n}");
        }
        assert!(REGISTRY.windows(2).all(|w| w[0].last < w[1].first));
        assert_eq!(special_asn(64512).unwrap().range(), "AS64512-AS65534");
        assert_eq!(
            special_asn(0).unwrap().rfc_url(),
            "https://www.rfc-editor.org/rfc/rfc7607"
        );
    }
}
