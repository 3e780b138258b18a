//! The metrics a table or figure can show. Each model defines its own (name,
//! label, value) in lb-manifest's model module ([`lb_manifest::model`]); this is a
//! handle on one of them.

use lb_manifest::{Model, Point, Summary};
use lb_model::MetricInfo;

/// A per-replication metric of one model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Metric {
    /// The model whose metric it is.
    pub model: Model,
    info: &'static MetricInfo,
}

impl Metric {
    /// The metric `name` of `model`.
    pub fn parse(model: Model, name: &str) -> Option<Metric> {
        model.metric(name).map(|info| Metric { model, info })
    }

    /// A metric a manifest validated: of `model` if it has one so named, else
    /// of the first model that does (an experiment with no point yet has no
    /// model to read from its results).
    pub fn validated(model: Model, name: &str) -> Metric {
        Metric::parse(model, name)
            .or_else(|| Model::ALL.iter().find_map(|m| Metric::parse(*m, name)))
            .unwrap_or_else(|| panic!("{name}: not a metric of any model (validated)"))
    }

    /// Every metric of `model`.
    pub fn all(model: Model) -> Vec<Metric> {
        model
            .metrics()
            .iter()
            .map(|info| Metric { model, info })
            .collect()
    }

    /// The metrics of the tables of an experiment sweeping `axes`: the
    /// model's table metrics that apply to it ([`MetricInfo::applies`]).
    pub fn table_metrics_for(model: Model, axes: &[String]) -> Vec<Metric> {
        Metric::all(model)
            .into_iter()
            .filter(|m| m.info.applies(axes))
            .collect()
    }

    /// The column name.
    pub fn name(self) -> &'static str {
        self.info.name
    }

    /// Whether the metric means something for a run that did not settle.
    pub fn transient(self) -> bool {
        self.info.transient
    }

    /// A label for an axis, unit included (figure markup).
    pub fn label(self) -> &'static str {
        self.info.label
    }

    /// What kind of number it is (how its interval is made).
    pub fn kind(self) -> lb_model::MetricKind {
        self.info.kind
    }

    /// The metric's value in one replication of `point` (None where
    /// undefined, or where the point is of another model).
    pub fn value(self, point: &Point, s: &Summary) -> Option<f64> {
        point.metric(self.name(), s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every metric of every model has a value function: a name the table
    /// lists but the model cannot compute would be a column of blanks. (The
    /// run reads its dispatching preference, as `run.preference` asks, on
    /// two servers, so that its estimates sometimes differ.)
    #[test]
    fn every_listed_metric_is_computed() {
        use lb_core::slotted::{Law, PolicyConfig, RunLength, Seeds, SlottedConfig, SystemConfig};
        let c = SlottedConfig {
            system: SystemConfig {
                arrivals: vec![Law::Bernoulli { p: 0.3 }],
                service: vec![Law::Bernoulli { p: 0.5 }; 2],
            },
            policy: PolicyConfig::Random,
            granularity: Default::default(),
            count_own: true,
            run: RunLength {
                slots: 20_000,
                warmup: 1_000,
                batches: 32,
                warmup_rule: Default::default(),
                advance: Default::default(),
                preference: true,
                estimation: false,
            },
        };
        let point = Point {
            model: Model::Slotted,
            model_version: lb_core::MODEL_VERSION,
            profile: lb_manifest::Profile::Full,
            seed: 1,
            config: lb_manifest::PointConfig::Slotted(c.clone()),
        };
        let s = Summary::Slotted(lb_core::slotted::run(&c, &Seeds::from_u64(1, 2), 0));
        // The estimation error (`run.estimation`) is read where there are
        // local estimates: an L-JSQ-Push on the same servers.
        let mut led = c.clone();
        led.policy = PolicyConfig::Led {
            dispatch: lb_core::slotted::LedDispatch::LJsq,
            update: lb_core::slotted::LedUpdate::Push {
                d: 1,
                p_hat: 0.5,
                when: lb_core::slotted::PushWhen::Arrivals,
                revision: 0,
            },
            tie_break: lb_core::slotted::TieBreak::Random,
        };
        led.run.preference = false;
        led.run.estimation = true;
        let led_point = Point {
            config: lb_manifest::PointConfig::Slotted(led.clone()),
            ..point.clone()
        };
        let e = Summary::Slotted(lb_core::slotted::run(&led, &Seeds::from_u64(1, 2), 0));
        for m in Metric::all(Model::Slotted) {
            assert!(
                m.value(&point, &s).is_some() || m.value(&led_point, &e).is_some(),
                "{}",
                m.name()
            );
        }
    }
}
