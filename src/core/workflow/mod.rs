//! The workflow model: a YAML file of `workers:` and `steps:` read into typed structs
//! ([`model`]), checked as a whole before anything runs ([`validate`](mod@validate)) into a [`Plan`] of
//! dependency waves ([`graph`]), with `{{ … }}` templates ([`template`]). Pure: the face reads
//! the file, the operations run the plan.

pub mod graph;
pub mod model;
pub mod problem;
pub mod record;
pub mod template;
pub mod validate;

pub use model::{OutputSource, Step, WorkflowFile};
pub use validate::{Plan, PlannedStep, PlannedWorker, Problem, validate};
