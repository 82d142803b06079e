//! Compiles `proto/` (repo root) with protox, a pure-Rust protobuf compiler, so no
//! system `protoc` is needed; prost turns the descriptors into Rust types, and the
//! encoded descriptor set is kept for Python's message classes.
use std::path::{Path, PathBuf};

fn proto_files(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            proto_files(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "proto") {
            out.push(path);
        }
    }
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR")?);
    // In the repo the protos sit at ../../proto; a packaged crate carries its own copy.
    let root = [manifest.join("../../proto"), manifest.join("proto")]
        .into_iter()
        .find(|p| p.is_dir())
        .ok_or("proto/ directory not found")?;
    let mut files = Vec::new();
    proto_files(&root, &mut files)?;
    files.sort();
    let mut compiler = protox::Compiler::new([&root])?;
    compiler.include_imports(true).include_source_info(false);
    compiler.open_files(&files)?;
    let out = PathBuf::from(std::env::var("OUT_DIR")?);
    std::fs::write(out.join("fds.bin"), compiler.encode_file_descriptor_set())?;
    let mut config = prost_build::Config::new();
    config.compile_fds(compiler.file_descriptor_set())?;
    println!("cargo:rerun-if-changed={}", root.display());
    for f in &files {
        println!("cargo:rerun-if-changed={}", f.display());
    }
    Ok(())
}
