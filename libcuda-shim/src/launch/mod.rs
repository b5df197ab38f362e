//! Kernel launches: `kernel` (validation, the parameter block, submission and execution),
//! `occupancy` (the `cuOccupancy*` queries) and `legacy` (the launch API before
//! `cuLaunchKernel`).

pub mod kernel;
pub mod legacy;
pub mod occupancy;
