//! What each special-purpose block is for, in one plain English sentence or
//! two for people (the pages show it under the address and link the RFC),
//! and the RFC Editor's address of an RFC. Keyed by the registry's name, so
//! blocks of one kind (the three Private-Use blocks) share their text.

use super::SpecialBlock;

impl SpecialBlock {
    /// What the block is for and why its addresses have no location (or,
    /// for a block the registry marks globally reachable, why they may).
    pub(crate) fn explanation(&self) -> &'static str {
        explanation(self.name)
    }

    /// The RFC Editor's page of the block's first RFC.
    pub(crate) fn rfc_url(&self) -> String {
        self.rfcs
            .first()
            .map_or_else(String::new, |rfc| rfc_url(rfc))
    }

    /// Whether the block is the address space of a local network (private,
    /// shared, link-local, unique-local) or the machine itself (loopback):
    /// where a caller seen with such an address is most often a reverse
    /// proxy on the same machine or network.
    pub(crate) fn is_local_network(&self) -> bool {
        matches!(
            self.name,
            "Loopback"
                | "Loopback Address"
                | "Private-Use"
                | "Shared Address Space"
                | "Link Local"
                | "Link-Local Unicast"
                | "Unique-Local"
        )
    }
}

/// `https://www.rfc-editor.org/rfc/rfc1918` for `RFC 1918`.
pub(crate) fn rfc_url(rfc: &str) -> String {
    let number = rfc.strip_prefix("RFC ").unwrap_or(rfc);
    format!("https://www.rfc-editor.org/rfc/rfc{number}")
}

/// The sentence for a registry name; a general one for a name not listed
/// (never for a block of the tables: a test holds every name to a text).
fn explanation(name: &str) -> &'static str {
    TEXTS
        .iter()
        .find(|(n, _)| *n == name)
        .map_or(GENERAL, |(_, text)| text)
}

const GENERAL: &str = "A block IANA keeps for a special purpose. It is not routed on the internet, so it has no location.";

const TEXTS: &[(&str, &str)] = &[
    (
        "This network",
        "0.0.0.0/8 stands for \"this network\": a device uses 0.0.0.0 as its source address only while it does not know its own yet. It is never routed on the internet, so it has no location.",
    ),
    (
        "Private-Use",
        "Private addresses are for the networks inside homes, offices and data centres: anyone may use them, so the same address is in use in millions of networks at once. They are not routed on the internet, so they have no location.",
    ),
    (
        "Shared Address Space",
        "Shared address space is what an internet provider gives its customers' routers behind carrier-grade NAT; the provider translates it to a public address. It is not routed on the internet, so it has no location.",
    ),
    (
        "Loopback",
        "A loopback address never leaves the machine: 127.0.0.1 is a computer talking to itself. It has no location.",
    ),
    (
        "Link Local",
        "A link-local address is one a device gives itself when no DHCP server answers; it works only on the local link (one cable or Wi-Fi network) and is never routed, so it has no location.",
    ),
    (
        "IETF Protocol Assignments",
        "The IETF keeps this block for protocols that need fixed addresses. Its addresses are not ordinary hosts on the internet, so they have no location.",
    ),
    (
        "IPv4 Service Continuity Prefix",
        "This prefix is used inside a device or home router by DS-Lite and 464XLAT, which carry IPv4 across an IPv6-only network. It is not routed on the internet, so it has no location.",
    ),
    (
        "IPv4 dummy address",
        "192.0.0.8 is the source a router gives an ICMP message (what traceroute shows) when it has no IPv4 address of its own. It names no one machine, so it has no location.",
    ),
    (
        "Port Control Protocol Anycast",
        "An anycast address of Port Control Protocol servers, which let a device ask its router to open a port. It is reachable on the internet, and whoever is nearest answers it, so any location is what the data says.",
    ),
    (
        "Traversal Using Relays around NAT Anycast",
        "An anycast address of TURN servers, which relay calls and video between devices behind NAT. It is reachable on the internet, and whoever is nearest answers it, so any location is what the data says.",
    ),
    (
        "NAT64/DNS64 Discovery",
        "192.0.0.170 and 192.0.0.171 are the answers for ipv4only.arpa, which a device on an IPv6-only network looks up to find its NAT64 gateway. They are not hosts, so they have no location.",
    ),
    ("Documentation (TEST-NET-1)", DOCUMENTATION),
    ("Documentation (TEST-NET-2)", DOCUMENTATION),
    ("Documentation (TEST-NET-3)", DOCUMENTATION),
    ("Documentation", DOCUMENTATION),
    ("AS112-v4", AS112),
    ("AS112-v6", AS112),
    ("Direct Delegation AS112 Service", AS112),
    (
        "AMT",
        "The anycast block of AMT relays, which tunnel multicast traffic to networks without multicast. It is reachable on the internet, and whoever is nearest answers it, so any location is what the data says.",
    ),
    (
        "Benchmarking",
        "This block is for testing network equipment in a lab (benchmarks of routers and firewalls). It is not routed on the internet, so it has no location.",
    ),
    (
        "Multicast",
        "A multicast address names a group of receivers, not one machine: what is sent to it reaches every member. It is not a place, so it has no location.",
    ),
    (
        "Reserved",
        "240.0.0.0/4 has been kept back \"for future use\" since 1989 and most systems still refuse it. It is not routed on the internet, so it has no location.",
    ),
    (
        "Limited Broadcast",
        "255.255.255.255 reaches every device on the local network and no router forwards it, so it has no location.",
    ),
    (
        "Unspecified Address",
        ":: means \"no address\": a device uses it as its source before it has one. It has no location.",
    ),
    (
        "Loopback Address",
        "::1 never leaves the machine: it is a computer talking to itself over IPv6. It has no location.",
    ),
    (
        "IPv4-mapped Address",
        "::ffff:0:0/96 writes IPv4 addresses in IPv6 form inside a program; it never appears on a network, so it has no location (this service answers for the IPv4 address itself).",
    ),
    (
        "IPv4-IPv6 Translation",
        "64:ff9b::/96 is the well-known NAT64 prefix: an IPv6-only network reaches the IPv4 address in its last 32 bits through a NAT64 gateway. The gateway is wherever that network runs it, so any location is what the data says.",
    ),
    (
        "Local-Use IPv4/IPv6 Translation",
        "64:ff9b:1::/48 is for NAT64 inside one organisation's network. It is not routed on the internet, so it has no location.",
    ),
    (
        "Discard-Only Address Block",
        "100::/64 is a sink: networks drop whatever is sent to it, which operators use to blackhole attack traffic. It has no location.",
    ),
    (
        "Dummy IPv6 Prefix",
        "This prefix is the source a device gives a packet when it has no IPv6 address of its own to give. It names no one machine, so it has no location.",
    ),
    (
        "DNS-SD Service Registration Protocol Anycast",
        "An anycast address where devices register the services they offer (DNS-SD). It is reachable on the internet, and whoever is nearest answers it, so any location is what the data says.",
    ),
    (
        "ORCHIDv2",
        "ORCHIDv2 identifiers are hashes shaped like IPv6 addresses that name a host's key (used by HIP), not a place. They are reachable by those protocols only, so any location is what the data says.",
    ),
    (
        "Drone Remote ID Protocol Entity Tags",
        "Drone Remote ID entity tags are identifiers of unmanned aircraft shaped like IPv6 addresses, not places, so any location is what the data says.",
    ),
    (
        "Segment Routing (SRv6) SIDs",
        "This block holds segment routing identifiers, which steer traffic inside one operator's network. It is not routed on the internet, so it has no location.",
    ),
    (
        "Unique-Local",
        "Unique local addresses are IPv6's private addresses, for the networks inside homes, offices and data centres. They are not routed on the internet, so they have no location.",
    ),
    (
        "Link-Local Unicast",
        "fe80::/10 addresses exist on every IPv6 interface and work only on the local link (one cable or Wi-Fi network); they are never routed, so they have no location.",
    ),
    (
        "Site-Local (deprecated)",
        "fec0::/10 was IPv6's first form of private addresses, deprecated in 2004. It is not routed on the internet, so it has no location.",
    ),
    (
        "Reserved by IETF",
        "This part of the IPv6 space is kept back by the IETF and assigned to no one yet. Nothing is routed to it, so it has no location.",
    ),
];

const DOCUMENTATION: &str = "This block is reserved for examples in documentation and books, as example.com is for names. It is never used on the internet, so it has no location.";

const AS112: &str = "An anycast block of AS112, servers that answer the reverse DNS queries for private addresses that leak onto the internet. It is reachable on the internet, and whoever is nearest answers it, so any location is what the data says.";

#[cfg(test)]
mod tests {
    use super::super::{V4, V6};
    use super::*;

    #[test]
    fn every_block_of_the_tables_has_its_own_text() {
        for (name, global) in V4
            .iter()
            .map(|e| (e.2, e.4))
            .chain(V6.iter().map(|e| (e.2, e.4)))
        {
            let text = explanation(name);
            assert_ne!(text, GENERAL, "{name}");
            // A block that is not public says it has no location.
            assert_eq!(text.contains("no location"), !global, "{name}: {text}");
        }
    }

    #[test]
    fn rfc_urls_are_the_rfc_editors() {
        assert_eq!(
            rfc_url("RFC 1918"),
            "https://www.rfc-editor.org/rfc/rfc1918"
        );
        let b = super::super::block("fd00::1".parse().unwrap()).unwrap();
        assert_eq!(b.rfc_url(), "https://www.rfc-editor.org/rfc/rfc4193");
        assert!(b.is_local_network());
        let doc = super::super::block("192.0.2.1".parse().unwrap()).unwrap();
        assert!(!doc.is_local_network());
        assert!(doc.explanation().contains("documentation"));
    }
}
