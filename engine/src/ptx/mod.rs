//! The PTX front end: text -> tokens (`lexer`) -> syntax tree (`parser`, `ast`).
//!
//! The parser is generic over instructions (opcode, dotted modifiers, operands) so that the whole
//! ISA parses; deciding what an instruction means is the job of `lower`.

pub mod ast;
pub mod lexer;
pub mod parser;

/// Predefined identifiers (ISA chapter 10 special registers and `WARP_SZ`), with or without a
/// component: what a name check must not call undefined.
pub fn is_predefined_name(name: &str) -> bool {
    const NAMES: &[&str] = &[
        "%tid",
        "%ntid",
        "%laneid",
        "%warpid",
        "%nwarpid",
        "%ctaid",
        "%nctaid",
        "%smid",
        "%nsmid",
        "%gridid",
        "%is_explicit_cluster",
        "%clusterid",
        "%nclusterid",
        "%cluster_ctaid",
        "%cluster_nctaid",
        "%cluster_ctarank",
        "%cluster_nctarank",
        "%lanemask_eq",
        "%lanemask_le",
        "%lanemask_lt",
        "%lanemask_ge",
        "%lanemask_gt",
        "%clock",
        "%clock_hi",
        "%clock64",
        "%globaltimer",
        "%globaltimer_lo",
        "%globaltimer_hi",
        "%total_smem_size",
        "%aggr_smem_size",
        "%dynamic_smem_size",
        "%current_graph_exec",
        "WARP_SZ",
    ];
    NAMES.contains(&name)
        || name.starts_with("%envreg")
        || name.starts_with("%pm")
        || name.starts_with("%reserved_smem_offset_")
}
