//! What NVIDIA's cudart needs beyond the documented driver API: the private export tables it
//! asks `cuGetExportTable` for (`export_tables`) and the integrity check one of them computes
//! (`integrity`).

pub mod export_tables;
pub mod integrity;
