//! Checks `abi/` against the pinned `cuda.h` it was generated from: a C program, compiled at
//! test time with the system C compiler against the toolkit's headers, prints the size and
//! alignment of the main structures and the value of every enumerator and `#define` constant
//! that `abi/src/types.rs` declares; the test compares them with `std::mem::size_of`/`align_of`
//! and the crate's constants. A second check compares the parameter lists of the driver's
//! exported entry points (`libcuda-shim/src/exports.rs`) with `abi/src/functions.rs`.
//!
//! Needs NVIDIA's pip toolkit (`scripts/install-toolkit.sh`, as every end-to-end test does)
//! and `cc`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn toolkit() -> PathBuf {
    let out = Command::new("bash")
        .arg(repo().join("scripts/install-toolkit.sh"))
        .output()
        .expect("cannot run scripts/install-toolkit.sh");
    assert!(
        out.status.success(),
        "this test needs NVIDIA's pip toolkit and scripts/install-toolkit.sh failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    PathBuf::from(String::from_utf8(out.stdout).unwrap().trim())
}

fn scratch() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join("target"));
    let target = if target.is_absolute() {
        target
    } else {
        repo().join(target)
    };
    let dir = target.join("abi-check");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Compiles and runs a C program against the toolkit's cuda.h; returns its stdout.
fn run_c(name: &str, body: &str) -> String {
    let dir = scratch();
    let src = dir.join(format!("{name}.c"));
    let exe = dir.join(name);
    let program = format!(
        "#include <stdio.h>\n#include <stddef.h>\n#include <cuda.h>\nint main(void) {{\n{body}return 0;\n}}\n"
    );
    std::fs::write(&src, program).unwrap();
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let out = Command::new(cc)
        .arg("-std=c11")
        .arg("-I")
        .arg(toolkit().join("include"))
        .arg("-o")
        .arg(&exe)
        .arg(&src)
        .output()
        .expect("cannot run the C compiler");
    assert!(
        out.status.success(),
        "cc failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = Command::new(&exe).output().unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap()
}

macro_rules! layouts {
    ($($t:ident),* $(,)?) => {
        /// (name, Rust size, Rust alignment) of each structure checked.
        fn rust_layouts() -> Vec<(&'static str, usize, usize)> {
            vec![$((stringify!($t), std::mem::size_of::<abi::$t>(), std::mem::align_of::<abi::$t>())),*]
        }
    };
}

layouts!(
    CUDA_MEMCPY2D,
    CUDA_MEMCPY3D,
    CUDA_MEMCPY3D_PEER,
    CUDA_ARRAY_DESCRIPTOR,
    CUDA_ARRAY3D_DESCRIPTOR,
    CUlaunchConfig,
    CUlaunchAttribute,
    CUlaunchAttributeValue,
    CUDA_KERNEL_NODE_PARAMS,
    CUDA_KERNEL_NODE_PARAMS_v1,
    CUDA_MEMSET_NODE_PARAMS,
    CUDA_HOST_NODE_PARAMS,
    CUDA_GRAPH_INSTANTIATE_PARAMS,
    CUgraphNodeParams,
    CUgraphEdgeData,
    CUgraphExecUpdateResultInfo,
    CUmemAllocationProp,
    CUmemPoolProps,
    CUmemAccessDesc,
    CUmemLocation,
    CUDA_POINTER_ATTRIBUTE_P2P_TOKENS,
    CUuuid,
    CUdevprop,
    CUipcMemHandle,
    CUipcEventHandle,
    CUexecAffinityParam,
    CUctxCreateParams,
    CUDA_RESOURCE_DESC,
    CUDA_TEXTURE_DESC,
    CUtensorMap,
    CUaccessPolicyWindow,
    CUstreamBatchMemOpParams,
    CUDA_EXTERNAL_MEMORY_HANDLE_DESC,
);

#[test]
fn struct_sizes_and_alignments_match_cuda_h() {
    let layouts = rust_layouts();
    let mut body = String::new();
    for (name, _, _) in &layouts {
        body += &format!("printf(\"{name} %zu %zu\\n\", sizeof({name}), _Alignof({name}));\n");
    }
    let out = run_c("layouts", &body);
    let c: HashMap<&str, (usize, usize)> = out
        .lines()
        .map(|l| {
            let v: Vec<&str> = l.split(' ').collect();
            (v[0], (v[1].parse().unwrap(), v[2].parse().unwrap()))
        })
        .collect();
    let mut bad = Vec::new();
    for (name, size, align) in &layouts {
        let (cs, ca) = c[name];
        if (cs, ca) != (*size, *align) {
            bad.push(format!("{name}: C {cs}/{ca}, Rust {size}/{align}"));
        }
    }
    assert!(bad.is_empty(), "layouts differ:\n{}", bad.join("\n"));
    // Facts the contract relies on: a launch attribute is 72 bytes.
    assert_eq!(c["CUlaunchAttribute"].0, 72);
}

/// Every `pub const NAME: T = T(value);` (enumerators) and `pub const NAME: u32 = value;`
/// (`#define`s, flagged true) in the generated types.
fn rust_constants() -> Vec<(String, i128, bool)> {
    let text = include_str!("../src/types.rs");
    let mut out = Vec::new();
    for chunk in text.split("pub const ").skip(1) {
        let Some(end) = chunk.find(';') else { continue };
        let decl: String = chunk[..end]
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        let Some((name, rest)) = decl.split_once(':') else {
            continue;
        };
        let Some((_, value)) = rest.split_once('=') else {
            continue;
        };
        let value = value.trim();
        let define = !value.contains('(');
        let number = match value.find('(') {
            Some(open) if value.ends_with(')') => &value[open + 1..value.len() - 1],
            _ => value,
        };
        let number = number
            .trim()
            .trim_end_matches("usize")
            .trim_end_matches("u32");
        if let Ok(v) = number.parse::<i128>() {
            out.push((name.trim().to_string(), v, define));
        }
    }
    out
}

#[test]
fn enum_and_define_values_match_cuda_h() {
    let consts = rust_constants();
    assert!(consts.len() > 900, "only {} constants parsed", consts.len());
    let mut body = String::new();
    for (name, _, define) in &consts {
        let print = format!("printf(\"{name} %lld\\n\", (long long){name});\n");
        if *define {
            // cuda.h #undefs a few helper macros after use (RESOURCE_ABI_*): skip those.
            body += &format!("#ifdef {name}\n{print}#else\nprintf(\"{name} undef\\n\");\n#endif\n");
        } else {
            body += &print;
        }
    }
    let out = run_c("constants", &body);
    let c: HashMap<&str, Option<i128>> = out
        .lines()
        .map(|l| {
            let (n, v) = l.split_once(' ').unwrap();
            (n, v.parse().ok())
        })
        .collect();
    let mut bad = Vec::new();
    let mut compared = 0;
    for (name, r, _) in &consts {
        let Some(v) = c[name.as_str()] else { continue };
        compared += 1;
        // An enumerator above INT_MAX is negative in C when its enum is int-typed.
        if v != *r && (v as u32) != (*r as u32) {
            bad.push(format!("{name}: cuda.h {v}, abi {r}"));
        }
    }
    assert!(bad.is_empty(), "constants differ:\n{}", bad.join("\n"));
    assert!(
        compared + 10 > consts.len(),
        "only {compared} of {} compared",
        consts.len()
    );
}

/// The shape of a parameter's type that the C ABI cares about beyond its size: the pointer
/// prefix (`*mut *const`) and, for scalars, the type name with aliases of the same C type
/// folded.
fn shape(ty: &str) -> String {
    let ty = ty.replace("::core::ffi::", "").replace(' ', "");
    let stars: String = ty
        .match_indices('*')
        .map(|(i, _)| {
            if ty[i..].starts_with("*mut") {
                "m"
            } else {
                "c"
            }
        })
        .collect();
    let base = ty.trim_start_matches('*').to_string();
    let base = base.rsplit("mut").next().unwrap_or(&base).to_string();
    let base = base.rsplit("const").next().unwrap_or(&base).to_string();
    let base = base.trim_start_matches('*').to_string();
    if !stars.is_empty() {
        return stars;
    }
    let folded = match base.as_str() {
        "c_uint" | "u32" => "u32",
        "c_int" | "i32" | "CUdevice" => "i32",
        "c_ulonglong" | "cuuint64_t" | "u64" | "CUdeviceptr" => "u64",
        "usize" | "size_t" => "usize",
        "c_uchar" | "u8" => "u8",
        "c_ushort" | "u16" => "u16",
        "f32" | "c_float" => "f32",
        // Handles are pointers by value.
        b if b.starts_with("CU") && !b.contains('_') => "handle",
        _ => "other",
    };
    folded.to_string()
}

fn params(list: &str) -> Vec<String> {
    let mut out = Vec::new();
    for p in list.split(',') {
        let p = p.trim();
        if p.is_empty() {
            continue;
        }
        let (_, ty) = p.split_once(':').expect(p);
        out.push(shape(ty));
    }
    out
}

#[test]
fn exported_signatures_match_functions_rs() {
    let functions = include_str!("../src/functions.rs");
    let mut declared: HashMap<String, Vec<String>> = HashMap::new();
    for chunk in functions.split("pub fn ").skip(1) {
        let open = chunk.find('(').unwrap();
        // The parameter list ends at the parenthesis that closes the first one.
        let mut depth = 0;
        let close = chunk
            .char_indices()
            .find(|&(_, c)| {
                depth += match c {
                    '(' => 1,
                    ')' => -1,
                    _ => 0,
                };
                c == ')' && depth == 0
            })
            .unwrap()
            .0;
        declared.insert(chunk[..open].to_string(), params(&chunk[open + 1..close]));
    }
    let exports = std::fs::read_to_string(repo().join("libcuda-shim/src/exports.rs")).unwrap();
    let mut checked = 0;
    let mut bad = Vec::new();
    for line in exports.lines() {
        let line = line.trim();
        let Some((head, _)) = line.split_once(") => ") else {
            continue;
        };
        let Some(open) = head.find('(') else { continue };
        let symbol = head.split_whitespace().next().unwrap();
        let Some(want) = declared.get(symbol) else {
            continue;
        };
        let have = params(&head[open + 1..]);
        checked += 1;
        // Handles declared as opaque pointers may be spelled either way; compare what matters.
        let same = have.len() == want.len()
            && have.iter().zip(want).all(|(h, w)| {
                h == w || (h == "handle" && w == "other") || (h == "other" && w == "handle")
            });
        if !same {
            bad.push(format!(
                "{symbol}: exported ({}) vs cuda.h ({})",
                have.join(", "),
                want.join(", ")
            ));
        }
    }
    assert!(checked > 200, "only {checked} exports compared");
    assert!(bad.is_empty(), "signatures differ:\n{}", bad.join("\n"));
}
