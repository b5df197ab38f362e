//! Load-time diagnostics: `FILE:LINE:COL: error: message`.

use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// The module's name as the caller gave it (a file name, or e.g. `fatbin#0`).
    pub file: String,
    pub line: u32,
    pub col: u32,
    pub message: String,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: error: {}",
            self.file, self.line, self.col, self.message
        )
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LoadErrorKind {
    /// Malformed PTX, or PTX that violates the ISA's rules (CUDA_ERROR_INVALID_PTX).
    InvalidPtx,
    /// A `.version` newer than the engine accepts (CUDA_ERROR_UNSUPPORTED_PTX_VERSION).
    UnsupportedVersion,
    /// Valid PTX using something the executor cannot run yet (CUDA_ERROR_INVALID_PTX with a
    /// diagnostic naming the instruction).
    Unsupported,
    /// The module's variables do not fit in device memory (CUDA_ERROR_OUT_OF_MEMORY).
    OutOfMemory,
    /// PTX that ptxas compiles but the CUDA driver refuses to load
    /// (CUDA_ERROR_INVALID_IMAGE), such as a `.texref` kernel parameter.
    NotLoadable,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadError {
    pub kind: LoadErrorKind,
    pub diagnostics: Vec<Diagnostic>,
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, d) in self.diagnostics.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{d}")?;
        }
        Ok(())
    }
}

impl std::error::Error for LoadError {}
