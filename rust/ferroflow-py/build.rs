//! Links the extension against glibc's unwinder when zig links it (`maturin --zig`).
//!
//! zig replaces `-lgcc_s` (Rust's unwinder on linux-gnu) with LLVM's libunwind, linked
//! statically and hidden inside the module. glibc's `pthread_exit` unwinds with the
//! libgcc_s it loads itself, and CPython 3.9-3.13 call `pthread_exit` on a thread that
//! wants the GIL back while the interpreter finalizes: a daemon thread blocked in
//! `Session.run` at exit. Rust's personality routine in our frames then reads libgcc's
//! unwind context through libunwind's accessors and the process segfaults. Naming the
//! target's `libgcc_s.so.1` on the link line makes every `_Unwind_*` call resolve to it
//! (`NEEDED libgcc_s.so.1`, as a gcc-linked module has; manylinux allows it).

use std::env;
use std::path::PathBuf;

fn main() {
    println!("cargo:rerun-if-env-changed=CARGO_ZIGBUILD_TARGET");
    println!("cargo:rerun-if-env-changed=FERROFLOW_LIBGCC_S");
    let target = env::var("TARGET").unwrap_or_default();
    if env::var_os("CARGO_ZIGBUILD_TARGET").is_none() || !target.ends_with("-linux-gnu") {
        return;
    }
    let arch = target.split('-').next().unwrap_or_default();
    let Some(libgcc_s) = find_libgcc_s(arch) else {
        panic!(
            "zig links {target} without glibc's unwinder, which makes the module crash when \
             a daemon thread is unwound at interpreter exit; no libgcc_s.so.1 for {arch} was \
             found to link instead. Install it (Debian: libgcc-s1, or libgcc-s1-{deb}-cross \
             for a cross build) or point FERROFLOW_LIBGCC_S at it.",
            deb = match arch {
                "aarch64" => "arm64",
                "x86_64" => "amd64",
                other => other,
            },
        );
    };
    println!("cargo:rustc-link-arg-cdylib={}", libgcc_s.display());
}

fn find_libgcc_s(arch: &str) -> Option<PathBuf> {
    if let Some(path) = env::var_os("FERROFLOW_LIBGCC_S") {
        return Some(PathBuf::from(path));
    }
    let multiarch = format!("{arch}-linux-gnu");
    let mut candidates = vec![
        // Debian's cross packages (libgcc-s1-<arch>-cross).
        format!("/usr/{multiarch}/lib/libgcc_s.so.1"),
    ];
    if env::var("HOST").is_ok_and(|host| host.starts_with(arch)) {
        candidates.extend([
            format!("/lib/{multiarch}/libgcc_s.so.1"),
            format!("/usr/lib/{multiarch}/libgcc_s.so.1"),
            "/lib64/libgcc_s.so.1".to_owned(),
            "/usr/lib64/libgcc_s.so.1".to_owned(),
            "/lib/libgcc_s.so.1".to_owned(),
        ]);
    }
    candidates.into_iter().map(PathBuf::from).find(|path| path.is_file())
}
