use lb_core::*;
fn main() {
    let args: Vec<f64> = std::env::args()
        .skip(1)
        .map(|a| a.parse().unwrap())
        .collect();
    let (slow, fast, load, m, nn) = (
        args[0],
        args[1],
        args[2],
        args[3] as usize,
        args[4] as usize,
    );
    let service: Vec<Law> = (0..nn)
        .map(|n| Law::Bernoulli {
            p: if n < nn / 2 { slow } else { fast },
        })
        .collect();
    let mu: f64 = service.iter().map(Law::mean).sum();
    for pol in [
        PolicyConfig::Jiq,
        PolicyConfig::Led {
            dispatch: LedDispatch::LJsq,
            update: LedUpdate::Pull { p_hat: 0.1 },
            tie_break: TieBreak::Random,
        },
    ] {
        let cfg = SlottedConfig {
            system: SystemConfig {
                arrivals: vec![
                    Law::Poisson {
                        mean: load * mu / m as f64
                    };
                    m
                ],
                service: service.clone(),
            },
            policy: pol,
            granularity: Granularity::Batch,
            count_own: true,
            run: RunLength {
                slots: 400_000,
                warmup: 20_000,
                batches: 64,
            },
        };
        let t = std::time::Instant::now();
        let s = run(&cfg, &Seeds::from_u64(1, 2), 0);
        println!(
            "{} sumq {:.1} resp {:?} stab {:?} end {} q {:?} {:?}",
            pol.name(),
            s.mean_sum_q,
            s.mean_response,
            s.stability,
            s.in_system_end,
            &s.mean_queue[..2],
            t.elapsed()
        );
    }
}
