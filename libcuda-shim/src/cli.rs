//! `cuda-shim`: the command-line face of libcuda-shim. Two binaries run it: the checkout's
//! (`src/bin/cuda-shim.rs`, which uses the `libcuda.so` built beside it) and the installed one
//! (package `cuda-shim`, which carries a copy of the library: [`Embedded`]).
//!
//! - `cuda-shim run [--inject RULES] [--check memcheck|racecheck|synccheck|initcheck [--leak-check full]
//!   [--print-limit N] [--error-exitcode N]] [--stats] [--stats-json FILE] [--progress]
//!   -- PROGRAM [ARGS...]` runs a program with the emulator as its CUDA driver (`--inject`: fault
//!   injection, as `CUDA_SHIM_INJECT`; `--check`: the sanitizer, as `CUDA_SHIM_CHECK`, exiting
//!   with N, default 1, when it found errors and the program itself succeeded; `--stats`,
//!   `--stats-json` and `--progress`: as `CUDA_SHIM_STATS` and `CUDA_SHIM_PROGRESS`)
//!   (and `CUPY_COMPILE_WITH_PTX=1` unless set: CuPy then asks NVRTC for PTX);
//! - `cuda-shim check [--lower-only] [--emit-ir] FILE.ptx...` loads PTX files as the driver
//!   would (or, with `--lower-only`, only checks that every instruction is valid PTX that lowers
//!   to IR) and prints diagnostics and a summary per file (`--emit-ir`: and each kernel's IR,
//!   verified);
//! - `cuda-shim env` prints shell lines (`eval "$(cuda-shim env)"`) that preload the library
//!   for every later command, as `run` does for one;
//! - `cuda-shim library` prints the path of the library `run` and `env` preload (an installed
//!   tool carries its own copy, written out on first use: `driver_library`);
//! - `cuda-shim info` prints the emulated device and its profile.

use std::ffi::OsString;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

const USAGE: &str = "\
usage: cuda-shim run [--inject RULES] [--check memcheck|racecheck|synccheck|initcheck [--leak-check full]
                     [--print-limit N] [--log-file FILE] [--error-exitcode N]] [--stats]
                     [--stats-json FILE] [--progress] [--] PROGRAM [ARGS...]
                                            run PROGRAM with libcuda-shim as its CUDA driver;
                                            --stats: print what ran at exit (per kernel, memory,
                                            copies), --stats-json FILE: write it as JSON;
                                            --progress: a live line for launches over 1 s;
                                            --inject: fault-injection rules, as CUDA_SHIM_INJECT
                                            (README: fault injection);
                                            --check memcheck|racecheck|synccheck|initcheck: the sanitizer (README),
                                            --leak-check full: and report leaked device memory;
                                            --print-limit N: print at most N of memcheck's
                                            invalid-access reports (default 100, 0: all);
                                            --log-file FILE: write the reports there, not to
                                            stderr (%p: the process ID, %n: the program's name,
                                            %q{VAR}: a variable, as CUDA_SHIM_CHECK_LOG);
                                            exit status N (default 1) when it found errors
       cuda-shim check [--lower-only] [--emit-ir] FILE.ptx...
                                            load PTX files as the driver would, print diagnostics
                                            and a summary per file (functions, instructions,
                                            instructions the executor cannot run yet, each
                                            kernel's estimated registers);
                                            --lower-only: succeed when every instruction is
                                            valid PTX that lowers to IR, run or not;
                                            --emit-ir: also verify and print each kernel's IR
       cuda-shim env                        print the shell lines that make later commands use the
                                            shim without the launcher: eval \"$(cuda-shim env)\"
       cuda-shim library                    print the path of the driver library run and env
                                            preload (CUDA_SHIM_LIBRARY, the one built beside
                                            the tool, or the copy embedded in an installed tool)
       cuda-shim info                       print the emulated device and its profile
       cuda-shim support-table              print the README's table of driver entry points
";

/// A compressed copy of the driver library carried by an installed `cuda-shim`.
pub struct Embedded {
    /// The library, compressed with zstd.
    pub packed: &'static [u8],
    /// Its size uncompressed.
    pub len: usize,
    /// A digest of its bytes, naming its cache file (two builds of one version never share it).
    pub digest: &'static str,
}

/// Runs the tool on the process's arguments.
pub fn main(embedded: Option<&Embedded>) -> ExitCode {
    let mut args = std::env::args_os().skip(1);
    let Some(command) = args.next() else {
        eprint!("{USAGE}");
        return ExitCode::from(2);
    };
    let rest: Vec<OsString> = args.collect();
    match command.to_str() {
        Some("run") => run(rest, embedded),
        Some("check") => check(rest),
        Some("env") => env(embedded),
        Some("library") => match driver_library(embedded) {
            Ok(l) => {
                println!("{}", l.display());
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("cuda-shim library: {e}");
                ExitCode::from(2)
            }
        },
        Some("info") => {
            println!("{}", crate::config::profile());
            let sm = crate::config::profile().sm();
            if crate::config::strict_arch() {
                println!(
                    "PTX: sm_{sm} and older; an image whose PTX all targets newer GPUs is refused \
                     (CUDA_SHIM_STRICT_ARCH=1), as a GPU driver refuses it"
                );
            } else {
                println!(
                    "PTX: sm_{sm} and older; an image with only newer PTX (e.g. compute_120) runs \
                     that PTX, whose instructions the engine lacks are refused at load \
                     (CUDA_SHIM_STRICT_ARCH=1 refuses the image, as a GPU driver does)"
                );
            }
            ExitCode::SUCCESS
        }
        Some("support-table") => {
            print!("{}", support_table());
            ExitCode::SUCCESS
        }
        Some("help" | "-h" | "--help") => {
            print!("{USAGE}");
            ExitCode::SUCCESS
        }
        _ => {
            eprint!("cuda-shim: unknown command {command:?}\n{USAGE}");
            ExitCode::from(2)
        }
    }
}

/// `cuda-shim env`: the variables `run` sets, as POSIX shell lines (quoted, and keeping an
/// LD_PRELOAD already set), for a shell or a CI job to evaluate.
fn env(embedded: Option<&Embedded>) -> ExitCode {
    let library = match driver_library(embedded) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("cuda-shim env: {e}");
            return ExitCode::from(2);
        }
    };
    let quoted = format!("'{}'", library.display().to_string().replace('\'', r"'\''"));
    println!("export LD_PRELOAD={quoted}\"${{LD_PRELOAD:+:$LD_PRELOAD}}\"");
    println!("export CUPY_COMPILE_WITH_PTX=\"${{CUPY_COMPILE_WITH_PTX:-1}}\"");
    ExitCode::SUCCESS
}

/// The driver library `run` and `env` preload: the file `CUDA_SHIM_LIBRARY` names; else the
/// library built beside this executable (`target/<profile>/libcuda.so` in a checkout); else
/// the copy an installed tool carries, written out once ([`write_out`]).
fn driver_library(embedded: Option<&Embedded>) -> Result<PathBuf, String> {
    if let Some(named) = std::env::var_os("CUDA_SHIM_LIBRARY").filter(|v| !v.is_empty()) {
        let named = PathBuf::from(named);
        return if named.is_file() {
            Ok(named)
        } else {
            Err(format!(
                "CUDA_SHIM_LIBRARY={}: no such file",
                named.display()
            ))
        };
    }
    let exe =
        std::env::current_exe().map_err(|e| format!("cannot locate cuda-shim itself: {e}"))?;
    let dir = exe.parent().unwrap_or(Path::new("."));
    for name in ["libcuda.so", "libcuda.so.1"] {
        let candidate = dir.join(name);
        if candidate.is_file() {
            return Ok(candidate);
        }
    }
    match embedded {
        Some(e) => write_out(e),
        None => Err(format!(
            "no libcuda.so beside {}: build it with `cargo build --release`, name one in \
             CUDA_SHIM_LIBRARY, or install the tool that carries it (`cargo install --locked \
             --path cuda-shim`)",
            exe.display()
        )),
    }
}

/// The carried library, written to
/// `${XDG_CACHE_HOME:-~/.cache}/libcuda-shim/lib/<version>-<digest>/libcuda.so.1` unless a
/// previous run wrote it there. It is written under a temporary name and renamed, so that
/// runs starting at once never see half of it.
fn write_out(e: &Embedded) -> Result<PathBuf, String> {
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    let dir = cache.join("libcuda-shim").join("lib").join(format!(
        "{}-{}",
        env!("CARGO_PKG_VERSION"),
        e.digest
    ));
    let file = dir.join("libcuda.so.1");
    if std::fs::metadata(&file).is_ok_and(|m| m.len() == e.len as u64) {
        return Ok(file);
    }
    let write = || -> std::io::Result<()> {
        use std::os::unix::fs::PermissionsExt;
        std::fs::create_dir_all(&dir)?;
        let bytes = zstd::bulk::decompress(e.packed, e.len)?;
        let temporary = dir.join(format!(".libcuda.so.1.{}", std::process::id()));
        std::fs::write(&temporary, bytes)?;
        std::fs::set_permissions(&temporary, std::fs::Permissions::from_mode(0o755))?;
        std::fs::rename(&temporary, &file)
    };
    write().map(|()| file.clone()).map_err(|err| {
        format!(
            "cannot write the carried library to {}: {err}",
            file.display()
        )
    })
}

fn run(mut args: Vec<OsString>, embedded: Option<&Embedded>) -> ExitCode {
    let mut inject = None;
    let (mut check, mut leaks, mut error_exit) = (None::<String>, false, 1u8);
    let mut print_limit = None::<u64>;
    let mut log_file = None::<OsString>;
    let mut stats = None::<OsString>;
    let mut progress = false;
    while let Some(flag) = args.first().and_then(|a| a.to_str()).map(str::to_string) {
        match flag.as_str() {
            "--stats" => {
                stats = Some("table".into());
                args.remove(0);
                continue;
            }
            "--progress" => {
                progress = true;
                args.remove(0);
                continue;
            }
            "--inject" | "--check" | "--leak-check" | "--error-exitcode" | "--stats-json"
            | "--print-limit" | "--log-file" => {}
            _ => break,
        }
        let Some(value) = args.get(1).cloned() else {
            eprint!("cuda-shim run: {flag} needs a value\n{USAGE}");
            return ExitCode::from(2);
        };
        args.drain(..2);
        let text = value.to_string_lossy().to_string();
        match flag.as_str() {
            "--inject" => inject = Some(value),
            "--stats-json" => {
                let mut v = OsString::from("json:");
                v.push(&value);
                stats = Some(v);
            }
            "--check"
                if ["memcheck", "racecheck", "synccheck", "initcheck"].contains(&text.as_str()) =>
            {
                check = Some(text)
            }
            "--check" => {
                eprintln!(
                    "cuda-shim run: --check {text}: the tools are memcheck, racecheck, synccheck \
                     and initcheck"
                );
                return ExitCode::from(2);
            }
            "--leak-check" => leaks = text == "full",
            "--log-file" => log_file = Some(value),
            "--print-limit" => match text.parse::<u64>() {
                Ok(n) => print_limit = Some(n),
                Err(_) => {
                    eprintln!("cuda-shim run: --print-limit {text:?} is not a number");
                    return ExitCode::from(2);
                }
            },
            _ => match text.parse::<u8>() {
                Ok(n) => error_exit = n,
                Err(_) => {
                    eprintln!("cuda-shim run: --error-exitcode {text:?} is not a number 0-255");
                    return ExitCode::from(2);
                }
            },
        }
    }
    if args.first().is_some_and(|a| a == "--") {
        args.remove(0);
    }
    let Some(program) = args.first().cloned() else {
        eprint!("cuda-shim run: no program given\n{USAGE}");
        return ExitCode::from(2);
    };
    let library = match driver_library(embedded) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("cuda-shim run: {e}");
            return ExitCode::from(2);
        }
    };
    // LD_PRELOAD makes the loader satisfy the program's later dlopen("libcuda.so.1") (cudart) or
    // DT_NEEDED libcuda.so.1 (driver-API programs) with our library, matched by its soname.
    let mut preload = OsString::from(library.as_os_str());
    if let Some(existing) = std::env::var_os("LD_PRELOAD").filter(|v| !v.is_empty()) {
        preload.push(":");
        preload.push(existing);
    }
    let mut command = Command::new(&program);
    command.args(&args[1..]).env("LD_PRELOAD", preload);
    // CuPy finds NVRTC through its own dlopen handle, where the shim cannot hand back PTX for a
    // cubin (README: run-time compilers); asked for PTX, it loads that instead.
    if std::env::var_os("CUPY_COMPILE_WITH_PTX").is_none() {
        command.env("CUPY_COMPILE_WITH_PTX", "1");
    }
    if let Some(spec) = inject {
        command.env("CUDA_SHIM_INJECT", spec);
    }
    if let Some(v) = stats {
        command.env("CUDA_SHIM_STATS", v);
    }
    if progress {
        command.env("CUDA_SHIM_PROGRESS", "1");
    }
    if let Some(f) = log_file {
        command.env("CUDA_SHIM_CHECK_LOG", f);
    }
    if let Some(tool) = check {
        let mut words = tool.clone();
        if leaks && tool == "memcheck" {
            words.push_str(",leaks");
        }
        if let Some(n) = print_limit {
            words.push_str(&format!(",print-limit={n}"));
        }
        return run_checked(command, &words, error_exit, &program);
    }
    let err = command.exec();
    eprintln!(
        "cuda-shim run: cannot run {}: {err}",
        Path::new(&program).display()
    );
    ExitCode::from(127)
}

/// Runs the program under the sanitizer and waits for it: its exit status, or `error_exit` when
/// it succeeded but the sanitizer found errors (the library writes their count to
/// `CUDA_SHIM_CHECK_REPORT` at exit).
fn run_checked(mut command: Command, check: &str, error_exit: u8, program: &OsString) -> ExitCode {
    let report = std::env::temp_dir().join(format!("cuda-shim-check-{}", std::process::id()));
    let _ = std::fs::remove_file(&report);
    command
        .env("CUDA_SHIM_CHECK", check)
        .env("CUDA_SHIM_CHECK_REPORT", &report);
    let status = match command.status() {
        Ok(s) => s,
        Err(err) => {
            eprintln!(
                "cuda-shim run: cannot run {}: {err}",
                Path::new(program).display()
            );
            return ExitCode::from(127);
        }
    };
    let errors: u64 = std::fs::read_to_string(&report)
        .ok()
        .and_then(|t| t.trim().parse().ok())
        .unwrap_or(0);
    let _ = std::fs::remove_file(&report);
    use std::os::unix::process::ExitStatusExt;
    let code = match (status.code(), status.signal()) {
        (Some(c), _) => c as u8,
        (None, Some(sig)) => 128u8.wrapping_add(sig as u8),
        _ => 1,
    };
    if code == 0 && errors > 0 {
        ExitCode::from(error_exit)
    } else {
        ExitCode::from(code)
    }
}

fn check(mut args: Vec<OsString>) -> ExitCode {
    let mut flag = |name: &str| {
        let at = args.iter().position(|a| a == name);
        at.map(|k| args.remove(k)).is_some()
    };
    let lower_only = flag("--lower-only");
    let emit_ir = flag("--emit-ir");
    if args.is_empty() {
        eprint!("cuda-shim check: no PTX file given\n{USAGE}");
        return ExitCode::from(2);
    }
    let mut failed = 0usize;
    for file in &args {
        let path = Path::new(file);
        let name = path.display().to_string();
        let text = match std::fs::read(path) {
            Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            Err(e) => {
                eprintln!("{name}: error: cannot read: {e}");
                failed += 1;
                continue;
            }
        };
        let s = engine::check(&text, &name, lower_only);
        if let Some(error) = &s.error {
            eprintln!("{error}");
            failed += 1;
        }
        println!(
            "{name}: {}: {} function(s) ({} kernel(s)), {} instruction(s), {} the executor \
             cannot run yet",
            if s.ok() { "ok" } else { "failed" },
            s.functions,
            s.kernels,
            s.instructions,
            s.unsupported_total()
        );
        for (kernel, regs) in &s.kernel_regs {
            println!("  kernel {kernel}: {regs} registers (estimate of ptxas's count)");
        }
        for (opcode, (n, names)) in &s.unsupported {
            println!("  unsupported {opcode}: {n} ({})", names.join(", "));
        }
        if emit_ir && s.ok() {
            if let Ok(m) = engine::Module::load(&text, &name) {
                for k in m.kernels() {
                    println!("\nkernel {}:", k.name);
                    if let Err(e) = k.verify_ir() {
                        eprintln!("{name}: kernel {}: {e}", k.name);
                        failed += 1;
                    }
                    print!("{}", k.ir_text());
                }
            }
        }
    }
    if failed > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// The README's table of driver entry points, generated from the export table itself so that it
/// cannot drift: one row per name `cuGetProcAddress` knows, with every ABI symbol exported for it.
fn support_table() -> String {
    use std::collections::BTreeMap;
    use std::fmt::Write as _;
    let mut by_base: BTreeMap<&str, (Vec<&str>, usize, usize)> = BTreeMap::new();
    for entry in crate::entry_points() {
        let row = by_base.entry(entry.base).or_default();
        row.0.push(entry.symbol);
        row.1 += 1;
        row.2 += usize::from(entry.implemented);
    }
    let implemented = by_base.values().filter(|r| r.2 == r.1).count();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} entry points, {} implemented; the others return `CUDA_ERROR_NOT_SUPPORTED` \
         (and show in the trace).\n",
        by_base.len(),
        implemented
    );
    out.push_str("| entry point | exported symbols | status |\n|---|---|---|\n");
    for (base, (mut symbols, total, done)) in by_base {
        symbols.sort_unstable();
        let status = match done {
            0 => "not supported",
            d if d == total => "implemented",
            _ => "partial",
        };
        let symbols: Vec<String> = symbols.iter().map(|s| format!("`{s}`")).collect();
        let _ = writeln!(out, "| `{base}` | {} | {status} |", symbols.join(" "));
    }
    out
}
