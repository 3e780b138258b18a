use lb_core::*;
fn main() {
    let service: Vec<Law> = [0.3, 0.5, 0.7]
        .iter()
        .map(|&p| Law::Bernoulli { p })
        .collect();
    let mu_sum = 1.5;
    let eps = 0.03;
    let lam = mu_sum - eps;
    let cfg = SlottedConfig {
        system: SystemConfig {
            arrivals: vec![Law::Poisson { mean: lam }],
            service: service.clone(),
        },
        policy: PolicyConfig::WeightedRandom,
        granularity: Granularity::Batch,
        count_own: true,
        run: RunLength {
            slots: 1_500_000,
            warmup: 50_000,
            batches: 64,
        },
    };
    for r in 0..10 {
        let s = run(&cfg, &Seeds::from_u64(17, 18), r);
        let th: Vec<f64> = service
            .iter()
            .map(|l| {
                let w = l.mean() / mu_sum;
                theory::single_server_bernoulli_service(lam * w, lam * w, l.mean())
            })
            .collect();
        println!(
            "r{r} q {:?} theory {:?} stable {}",
            s.mean_queue
                .iter()
                .map(|x| format!("{x:.1}"))
                .collect::<Vec<_>>(),
            th.iter().map(|x| format!("{x:.1}")).collect::<Vec<_>>(),
            s.stability.stable
        );
    }
}
