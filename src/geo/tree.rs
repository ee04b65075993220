//! The shape of an MMDB search tree, checked before its networks are walked.
//!
//! An MMDB's search tree is a binary tree of `node_count` nodes; walking it
//! (`maxminddb`'s network iterator) follows every path from the root, so its
//! cost is the number of paths, not of nodes. A file whose nodes point at the
//! same children (node *i* to node *i + 1* on both sides: a 605-byte file)
//! has 2^100 paths in 100 nodes and no cycle the walk could notice, and would
//! keep the loader busy for ever. Here the paths are counted level by level
//! from the root, each distinct node of a level once with the number of paths
//! reaching it, and the file is refused as soon as they pass [`PATHS_PER_NODE`]
//! times the node count: in a real file each node is reached by one path,
//! except the IPv4 subtree of an IPv6 file, which its aliases (`::ffff:0:0/96`,
//! `2001::/32`, `2002::/16`) reach up to three more times. The count costs
//! at most that many steps, whatever the file.

use std::collections::HashMap;

/// How many paths per node a search tree may have before it is refused.
pub(crate) const PATHS_PER_NODE: u64 = 16;

/// The search tree of `bytes` as its metadata describes it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Tree {
    pub node_count: u32,
    /// Bits per record: 24, 28 or 32.
    pub record_size: u16,
    /// 32 for an IPv4 tree, 128 for IPv6.
    pub depth: u32,
}

impl Tree {
    /// Refuses a tree with more paths than [`PATHS_PER_NODE`] times its
    /// nodes, or whose nodes lie past the end of `bytes`. Returns how many
    /// networks hold data: records pointing into the data section, each
    /// counted once however many paths reach its node (the IPv4 subtree of
    /// an IPv6 file counts once, as the network walk visits it), so the
    /// network cap is applied before any table is built.
    pub(crate) fn check(&self, bytes: &[u8]) -> Result<u64, String> {
        let budget = PATHS_PER_NODE * (u64::from(self.node_count) + 1) + 1024;
        let mut level: HashMap<u32, u64> = HashMap::from([(0, 1)]);
        let (mut paths, mut networks): (u64, u64) = (0, 0);
        for _ in 0..=self.depth {
            if level.is_empty() || self.node_count == 0 {
                return Ok(networks);
            }
            let mut next: HashMap<u32, u64> = HashMap::with_capacity(level.len() * 2);
            for (node, reaching) in level {
                paths = paths.saturating_add(reaching);
                if paths > budget {
                    return Err(format!(
                        "the search tree is not a tree: more than {budget} paths through its {} nodes",
                        self.node_count
                    ));
                }
                let (left, right) = self.records(bytes, node)?;
                networks += [left, right]
                    .iter()
                    .filter(|c| **c > self.node_count)
                    .count() as u64;
                for child in [left, right].into_iter().filter(|c| *c < self.node_count) {
                    let sum = next.entry(child).or_insert(0);
                    *sum = sum.saturating_add(reaching);
                }
            }
            level = next;
        }
        // Nodes still below the deepest level: a cycle the walk refuses too.
        Ok(networks)
    }

    /// The two records of `node`.
    fn records(&self, bytes: &[u8], node: u32) -> Result<(u32, u32), String> {
        let size = usize::from(self.record_size) / 4; // bytes per node
        let at = usize::try_from(node)
            .unwrap_or(usize::MAX)
            .saturating_mul(size);
        let b = bytes
            .get(at..at.saturating_add(size))
            .ok_or_else(|| format!("search tree node {node} lies past the end of the file"))?;
        let be = |s: &[u8]| s.iter().fold(0u32, |n, x| (n << 8) | u32::from(*x));
        Ok(match self.record_size {
            24 => (be(&b[0..3]), be(&b[3..6])),
            28 => (
                (u32::from(b[3] & 0xf0) << 20) | be(&b[0..3]),
                (u32::from(b[3] & 0x0f) << 24) | be(&b[4..7]),
            ),
            32 => (be(&b[0..4]), be(&b[4..8])),
            other => return Err(format!("record size {other} is not 24, 28 or 32")),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 24-bit tree of `n` nodes where node i points to `child(i)` on both sides.
    fn tree(n: u32, child: impl Fn(u32) -> u32) -> (Tree, Vec<u8>) {
        let mut bytes = Vec::new();
        for i in 0..n {
            let c = child(i).to_be_bytes();
            bytes.extend_from_slice(&c[1..4]);
            bytes.extend_from_slice(&c[1..4]);
        }
        let t = Tree {
            node_count: n,
            record_size: 24,
            depth: 128,
        };
        (t, bytes)
    }

    #[test]
    fn a_chain_of_shared_children_is_refused_at_once() {
        // Node i -> i + 1 on both sides, the last one -> data: 2^100 paths.
        let (t, bytes) = tree(100, |i| if i + 1 < 100 { i + 1 } else { 100 + 16 });
        let err = t.check(&bytes).unwrap_err();
        assert!(err.contains("not a tree"), "{err}");
    }

    #[test]
    fn a_real_shaped_tree_passes() {
        // A complete binary tree of depth 10: node i -> 2i + 1 and 2i + 2.
        let n = (1u32 << 10) - 1;
        let mut bytes = Vec::new();
        for i in 0..n {
            for c in [2 * i + 1, 2 * i + 2] {
                let c = if c < n { c } else { n + 16 };
                bytes.extend_from_slice(&c.to_be_bytes()[1..4]);
            }
        }
        let t = Tree {
            node_count: n,
            record_size: 24,
            depth: 32,
        };
        // Every leaf's two records point at data: 2^10 networks.
        assert_eq!(t.check(&bytes), Ok(1 << 10));
    }

    #[test]
    fn nodes_past_the_end_are_refused() {
        let (t, bytes) = tree(10, |i| i + 1);
        assert!(t.check(&bytes[..30]).unwrap_err().contains("past the end"));
    }
}
