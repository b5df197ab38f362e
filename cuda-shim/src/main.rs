//! The installed `cuda-shim`: the tool of [`cuda::cli`] with the driver library built into it
//! (`build.rs`, which writes this value), so that it needs nothing else on the machine.

static CARRIED: cuda::cli::Embedded = include!(concat!(env!("OUT_DIR"), "/carried.rs"));

fn main() -> std::process::ExitCode {
    cuda::cli::main(Some(&CARRIED))
}
