//! The graph calls: building graphs node by node (`nodes`), their parameters (`params`) and
//! shape (`topology`), executable graphs (`exec`), DOT output (`dot`), graph memory (`mem`),
//! conditional nodes (`conditional`) and user objects (`user_object`). What a graph is, and
//! what its nodes do, is `crate::work`.

pub mod conditional;
pub mod dot;
pub mod exec;
pub mod mem;
pub mod nodes;
pub mod params;
pub mod topology;
pub mod user_object;
