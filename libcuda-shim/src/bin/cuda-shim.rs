//! The checkout's `cuda-shim` (`target/<profile>/cuda-shim`): the tool of [`cuda::cli`], using
//! the `libcuda.so` built beside it. The installed tool is the package `cuda-shim`.

fn main() -> std::process::ExitCode {
    cuda::cli::main(None)
}
