//! The installed `cuda-shim`: the tool of [`cuda::cli`] with the driver library built into it
//! (`build.rs`), so that it needs nothing else on the machine.

static CARRIED: cuda::cli::Embedded = cuda::cli::Embedded {
    packed: include_bytes!(env!("CUDA_SHIM_CARRIED")),
    len: const_len(env!("CUDA_SHIM_CARRIED_LEN")),
    digest: env!("CUDA_SHIM_CARRIED_DIGEST"),
};

/// The decimal length build.rs wrote, parsed at compile time.
const fn const_len(text: &str) -> usize {
    let (bytes, mut n, mut k) = (text.as_bytes(), 0usize, 0);
    while k < bytes.len() {
        n = n * 10 + (bytes[k] - b'0') as usize;
        k += 1;
    }
    n
}

fn main() -> std::process::ExitCode {
    cuda::cli::main(Some(&CARRIED))
}
