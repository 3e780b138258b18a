//! The graphs G_N of Mukherjee, Borst and van Leeuwaarden, as
//! adjacency lists in one array (compressed rows).

use super::config::GraphSpec;
use crate::streams::below;
use rand::Rng;

/// An undirected simple graph on vertices 0..N.
#[derive(Clone, Debug, PartialEq)]
pub struct Graph {
    start: Vec<usize>,
    nbrs: Vec<u32>,
}

impl Graph {
    /// Builds `spec` on `n` vertices (validated), drawing random graphs from `rng`.
    pub fn build<R: Rng + ?Sized>(spec: &GraphSpec, n: usize, rng: &mut R) -> Graph {
        let edges: Vec<(usize, usize)> = match *spec {
            GraphSpec::Clique => (0..n)
                .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
                .collect(),
            GraphSpec::Ring => (0..n).map(|i| (i, (i + 1) % n)).collect(),
            GraphSpec::Torus => {
                let side = (n as f64).sqrt().round() as usize;
                let at = |r: usize, c: usize| (r % side) * side + (c % side);
                (0..side)
                    .flat_map(|r| {
                        (0..side)
                            .flat_map(move |c| [(at(r, c), at(r, c + 1)), (at(r, c), at(r + 1, c))])
                    })
                    .collect()
            }
            GraphSpec::ErdosRenyi { mean_degree } => erdos_renyi_mean(n, mean_degree, rng),
            GraphSpec::RandomRegular { degree } => random_regular(n, degree, rng),
            GraphSpec::RingPeriphery { core_mean_degree } => {
                let ring = n / 2;
                let core = n - ring;
                let mut edges: Vec<(usize, usize)> =
                    (0..ring).map(|i| (i, (i + 1) % ring)).collect();
                edges.extend(
                    erdos_renyi_mean(core, core_mean_degree, rng)
                        .into_iter()
                        .map(|(a, b)| (ring + a, ring + b)),
                );
                for i in 0..ring {
                    edges.push((i, ring + below(rng, core)));
                }
                edges
            }
        };
        Graph::from_edges(n, &edges)
    }

    fn from_edges(n: usize, edges: &[(usize, usize)]) -> Graph {
        let mut deg = vec![0usize; n];
        for &(a, b) in edges {
            deg[a] += 1;
            deg[b] += 1;
        }
        let mut start = vec![0; n + 1];
        for v in 0..n {
            start[v + 1] = start[v] + deg[v];
        }
        let mut fill = start.clone();
        let mut nbrs = vec![0u32; start[n]];
        for &(a, b) in edges {
            nbrs[fill[a]] = b as u32;
            fill[a] += 1;
            nbrs[fill[b]] = a as u32;
            fill[b] += 1;
        }
        for v in 0..n {
            nbrs[start[v]..start[v + 1]].sort_unstable();
        }
        Graph { start, nbrs }
    }

    /// The neighbours of `v`, in increasing order.
    #[inline]
    pub fn neighbours(&self, v: usize) -> &[u32] {
        &self.nbrs[self.start[v]..self.start[v + 1]]
    }

    /// N.
    pub fn order(&self) -> usize {
        self.start.len() - 1
    }

    /// The mean degree.
    pub fn mean_degree(&self) -> f64 {
        self.nbrs.len() as f64 / self.order() as f64
    }
}

/// G(N, p) with p = d̄/(N − 1): mean degree d̄.
fn erdos_renyi_mean<R: Rng + ?Sized>(
    n: usize,
    mean_degree: f64,
    rng: &mut R,
) -> Vec<(usize, usize)> {
    erdos_renyi(n, mean_degree / (n as f64 - 1.0).max(1.0), rng)
}

/// G(N, p) by geometric skips over the pairs (i < j) in order: O(N + edges).
fn erdos_renyi<R: Rng + ?Sized>(n: usize, p: f64, rng: &mut R) -> Vec<(usize, usize)> {
    let mut edges = Vec::new();
    if p <= 0.0 || n < 2 {
        return edges;
    }
    if p >= 1.0 {
        return (0..n)
            .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
            .collect();
    }
    // ln(1 − p) without cancellation for tiny p.
    let ln_q = (-p).ln_1p();
    let pairs = (n as f64) * (n as f64);
    // Pairs in row-major order of the upper triangle: (v, w), w > v.
    let (mut v, mut w) = (0usize, 0usize);
    loop {
        let u: f64 = 1.0 - rng.random::<f64>(); // (0, 1]
        let skip = (u.ln() / ln_q).floor();
        if skip >= pairs {
            break; // past the last pair
        }
        w += 1 + skip as usize;
        while w >= n && v < n - 1 {
            w = w - n + v + 2;
            v += 1;
        }
        if v >= n - 1 {
            break;
        }
        edges.push((v, w));
    }
    edges
}

/// A uniformly random d-regular simple graph by pairing points and rejecting
/// loops and repeated edges as they come; a dead end restarts (Steger and
/// Wormald 1999: asymptotically uniform for d = o(N^{1/3})).
fn random_regular<R: Rng + ?Sized>(n: usize, d: usize, rng: &mut R) -> Vec<(usize, usize)> {
    if d == n - 1 {
        return (0..n)
            .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
            .collect();
    }
    'restart: loop {
        let mut points: Vec<usize> = (0..n).flat_map(|v| std::iter::repeat_n(v, d)).collect();
        let mut adj: Vec<Vec<usize>> = vec![Vec::with_capacity(d); n];
        let mut edges = Vec::with_capacity(n * d / 2);
        while !points.is_empty() {
            let mut tries = 0;
            loop {
                let i = below(rng, points.len());
                let j = below(rng, points.len());
                let (a, b) = (points[i], points[j]);
                if i != j && a != b && !adj[a].contains(&b) {
                    adj[a].push(b);
                    adj[b].push(a);
                    edges.push((a.min(b), a.max(b)));
                    let (hi, lo) = (i.max(j), i.min(j));
                    points.swap_remove(hi);
                    points.swap_remove(lo);
                    break;
                }
                tries += 1;
                if tries > 100 * points.len() {
                    continue 'restart;
                }
            }
        }
        return edges;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn graphs_have_their_degrees() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        let ring = Graph::build(&GraphSpec::Ring, 10, &mut rng);
        assert_eq!(ring.neighbours(0), &[1, 9]);
        let torus = Graph::build(&GraphSpec::Torus, 16, &mut rng);
        assert!((0..16).all(|v| torus.neighbours(v).len() == 4));
        assert_eq!(torus.neighbours(0), &[1, 3, 4, 12]);
        let reg = Graph::build(&GraphSpec::RandomRegular { degree: 3 }, 50, &mut rng);
        assert!((0..50).all(|v| {
            let nb = reg.neighbours(v);
            nb.len() == 3 && !nb.contains(&(v as u32)) && nb.windows(2).all(|w| w[0] < w[1])
        }));
        let clique = Graph::build(&GraphSpec::Clique, 6, &mut rng);
        assert!((0..6).all(|v| clique.neighbours(v).len() == 5));
    }

    /// G(N, p): the edge count is Binomial(N(N−1)/2, p); within 5 sd.
    #[test]
    fn erdos_renyi_has_the_binomial_edge_count() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(4);
        let (n, d) = (2000usize, 6.0);
        let g = Graph::build(&GraphSpec::ErdosRenyi { mean_degree: d }, n, &mut rng);
        let pairs = (n * (n - 1) / 2) as f64;
        let p = d / (n as f64 - 1.0);
        let edges = g.nbrs.len() as f64 / 2.0;
        assert!(
            (edges - pairs * p).abs() < 5.0 * (pairs * p * (1.0 - p)).sqrt(),
            "{edges}"
        );
        assert!((0..n).all(|v| g.neighbours(v).windows(2).all(|w| w[0] < w[1])));
    }

    /// Half the servers on a ring of degree 3 (two ring neighbours and one
    /// core server); the core's degree its Erdős–Rényi mean plus its share
    /// of the periphery's edges.
    #[test]
    fn a_ring_periphery_has_half_its_servers_at_degree_three() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(6);
        let (n, d) = (2001usize, 20.0);
        let g = Graph::build(
            &GraphSpec::RingPeriphery {
                core_mean_degree: d,
            },
            n,
            &mut rng,
        );
        let ring = n / 2;
        for v in 0..ring {
            let nb = g.neighbours(v);
            assert_eq!(nb.len(), 3, "ring server {v}: {nb:?}");
            assert!(nb.contains(&(((v + 1) % ring) as u32)));
            assert!(nb.iter().filter(|&&u| (u as usize) >= ring).count() == 1);
        }
        // The core: its own Erdős–Rényi degree plus the periphery's one
        // edge per ring server, spread over it.
        let core = n - ring;
        let core_deg: usize = (ring..n).map(|v| g.neighbours(v).len()).sum();
        let mean = core_deg as f64 / core as f64;
        let expected = d + ring as f64 / core as f64;
        assert!((mean - expected).abs() < 0.5, "{mean} against {expected}");
    }

    /// A tiny p (where 1 − p rounds to 1) gives no edges, not all of them.
    #[test]
    fn erdos_renyi_with_a_tiny_p_is_empty() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        assert!(erdos_renyi(10, 1e-17, &mut rng).is_empty());
        let g = Graph::build(&GraphSpec::ErdosRenyi { mean_degree: 1e-15 }, 100, &mut rng);
        assert_eq!(g.mean_degree(), 0.0);
    }
}
