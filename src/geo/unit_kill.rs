//! Tests of [`super::unit`]: a run of `update` stopped after each step of
//! its install (as a kill would) leaves the loader's [`super::files::candidates`]
//! a whole release, never a mixed pair.

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use crate::geo::files::{Table, candidates};
    use crate::geo::unit::*;

    fn scratch(tag: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("iplookup-unit-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// The month of the file the loader would take first for `table`.
    fn served_month(dir: &Path, table: Table) -> String {
        let (name, path) = candidates(dir, table).unwrap().remove(0);
        // The content says which release the file belongs to.
        let body = std::fs::read_to_string(&path).unwrap();
        assert!(name.contains(body.trim()), "{name} holds {body}");
        body.trim().to_owned()
    }

    /// Stages the month's country and ASN files as an update does (hidden
    /// temporary files in the data directory) and installs them, stopping
    /// after `steps` steps.
    fn update(dir: &Path, month: &str, steps: usize) {
        let files: Vec<UnitFile> = ["dbip-country-lite-", "dbip-asn-lite-"]
            .into_iter()
            .map(|kind| {
                let name = format!("{kind}{month}.csv.gz");
                let from = dir.join(format!(".{name}.1.1.tmp"));
                std::fs::write(&from, month).unwrap();
                UnitFile {
                    from,
                    name,
                    link: false,
                }
            })
            .collect();
        install_steps(dir, &format!("{month}-0123456789abcdef"), &files, steps).unwrap();
    }

    /// A kill after any step of an install leaves the loader a whole pair:
    /// both tables of the old release, or both of the new one. From the flat
    /// layout of earlier versions and from a unit.
    #[test]
    fn a_kill_between_any_two_steps_never_leaves_a_mixed_pair() {
        for from_flat in [true, false] {
            for steps in 0..=STEPS.len() {
                let dir = scratch(&format!("kill-{from_flat}-{steps}"));
                if from_flat {
                    for kind in ["dbip-country-lite-", "dbip-asn-lite-"] {
                        std::fs::write(dir.join(format!("{kind}2030-01.csv.gz")), "2030-01")
                            .unwrap();
                    }
                } else {
                    update(&dir, "2030-01", STEPS.len());
                }
                update(&dir, "2030-02", steps);
                let pair = (
                    served_month(&dir, Table::Country),
                    served_month(&dir, Table::Asn),
                );
                let want = if steps > 3 { "2030-02" } else { "2030-01" };
                assert_eq!(
                    pair,
                    (want.to_owned(), want.to_owned()),
                    "from the flat layout: {from_flat}; stopped after {steps} steps ({:?})",
                    STEPS.get(steps.wrapping_sub(1))
                );
                // The next whole run installs over what the killed one left.
                update(&dir, "2030-03", STEPS.len());
                assert_eq!(served_month(&dir, Table::Country), "2030-03");
                assert_eq!(served_month(&dir, Table::Asn), "2030-03");
                let units: Vec<_> = std::fs::read_dir(dir.join(RELEASES))
                    .unwrap()
                    .flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect();
                assert_eq!(units, ["2030-03-0123456789abcdef"], "older units removed");
                let flat: Vec<_> = std::fs::read_dir(&dir)
                    .unwrap()
                    .flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    // An update's hidden downloads are swept by its next run (`update::temp`).
                    .filter(|n| n != CURRENT && n != RELEASES && !n.starts_with(".dbip-"))
                    .collect();
                assert!(flat.is_empty(), "left in the data directory: {flat:?}");
                let _ = std::fs::remove_dir_all(&dir);
            }
        }
    }
}
