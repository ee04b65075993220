//! The world map the HTML page draws (Natural Earth, equirectangular): the
//! outline of each country, the opening tag of the map, and the map as the
//! asset the page refers to, named by its content hash and carrying its own
//! style (an image cannot see the page's style sheet). [`super::super::assets`]
//! serves it.

use std::collections::HashMap;
use std::sync::OnceLock;

use super::asset::Asset;

/// The world map (Natural Earth, equirectangular, viewBox 0 0 1000 500).
const WORLD_SVG: &str = include_str!("../../../assets/world.svg");

/// The map's own style: the colours of the page's `--land` (fill) and
/// `--card` (borders), light and dark.
pub(crate) const MAP_STYLE: &str = "path{fill:#cfd6de;stroke:#fff;stroke-width:.3}@media (prefers-color-scheme:dark){path{fill:#39424d;stroke:#171b21}}";

/// The world map as served: the file with [`MAP_STYLE`] added.
pub(crate) fn world_map() -> &'static Asset {
    static MAP: OnceLock<Asset> = OnceLock::new();
    MAP.get_or_init(|| Asset::new("world", "svg", styled_map().into_bytes()))
}

/// The map file with its style right after the opening `<svg ...>` tag.
fn styled_map() -> String {
    let svg = WORLD_SVG.trim();
    let at = svg.find('>').map_or(0, |i| i + 1);
    format!("{}<style>{MAP_STYLE}</style>{}\n", &svg[..at], &svg[at..])
}

/// The opening tag of the map (`<svg xmlns=... id="world" viewBox=...>`).
pub(crate) fn map_open_tag() -> &'static str {
    let svg = WORLD_SVG.trim_start();
    svg.find('>').map_or("<svg>", |i| &svg[..=i])
}

/// The outline (`d` attribute) of each country on the map, by ISO code.
fn outlines() -> &'static HashMap<&'static str, &'static str> {
    static OUTLINES: OnceLock<HashMap<&'static str, &'static str>> = OnceLock::new();
    OUTLINES.get_or_init(|| {
        WORLD_SVG
            .lines()
            .filter_map(|line| {
                let rest = line.trim().strip_prefix("<path id=\"")?;
                let (code, rest) = rest.split_once('"')?;
                let d = rest.strip_prefix(" d=\"")?.split_once('"')?.0;
                Some((code, d))
            })
            .collect()
    })
}

/// The outline of the country `code` on the map, if it has one.
pub(crate) fn outline(code: &str) -> Option<&'static str> {
    outlines().get(code).copied()
}

#[cfg(test)]
mod tests {
    use super::*;
    use sha2::Digest;

    #[test]
    fn the_map_is_named_by_its_content() {
        let map = world_map();
        assert!(map.path.starts_with("/assets/world."), "{}", map.path);
        assert!(map.path.ends_with(".svg"), "{}", map.path);
        let digest = sha2::Sha256::digest(&map.body);
        let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
        assert!(map.path.contains(&hex[..16]), "{} vs {hex}", map.path);
    }

    #[test]
    fn the_map_carries_its_style_and_every_country() {
        let text = String::from_utf8(world_map().body.clone()).unwrap();
        assert!(text.starts_with("<svg "), "{}", &text[..40]);
        assert!(text.contains(&format!("<style>{MAP_STYLE}</style>")));
        assert!(text.trim_end().ends_with("</svg>"));
        assert!(outlines().len() > 200, "{}", outlines().len());
        for code in ["US", "CA", "BD", "FR"] {
            let d = outline(code).unwrap();
            assert!(
                text.contains(&format!("<path id=\"{code}\" d=\"{d}\"")),
                "{code}"
            );
        }
        assert_eq!(outline("XX"), None);
        assert!(map_open_tag().contains("viewBox=\"0 0 1000 500\""));
    }
}
