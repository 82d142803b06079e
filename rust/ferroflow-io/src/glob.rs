//! Glob patterns over the file system, as TF's `Env::GetMatchingPaths` (`MatchingFiles`,
//! V1 checkpoints' `-?????-of-NNNNN` shard patterns).
use std::path::PathBuf;

use crate::Result;

/// A path from bytes: any bytes on Unix (as TF passes them to the OS), UTF-8 elsewhere.
pub fn path_from_bytes(bytes: &[u8]) -> Result<PathBuf> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        Ok(PathBuf::from(std::ffi::OsStr::from_bytes(bytes)))
    }
    #[cfg(not(unix))]
    {
        let s = std::str::from_utf8(bytes)
            .map_err(|_| crate::Error::InvalidArgument(format!("the path {bytes:?} is not valid UTF-8")))?;
        Ok(PathBuf::from(s))
    }
}

/// Whether `name` matches the glob `pat` (`*`, `?`, `[...]` with `!`/`^` negation and
/// ranges, `\` escapes), as TF's `Env::MatchPath` (fnmatch without special slashes:
/// the caller matches one path component at a time).
pub fn glob_match(pat: &[u8], name: &[u8]) -> bool {
    let (mut p, mut n) = (0, 0);
    let (mut star, mut star_n) = (None, 0);
    while n < name.len() {
        if p < pat.len() {
            match pat[p] {
                b'*' => {
                    star = Some(p);
                    star_n = n;
                    p += 1;
                    continue;
                }
                b'?' => {
                    p += 1;
                    n += 1;
                    continue;
                }
                b'[' => {
                    if let Some((matched, next)) = class_match(&pat[p..], name[n])
                        && matched
                    {
                        p += next;
                        n += 1;
                        continue;
                    }
                }
                b'\\' if p + 1 < pat.len() && pat[p + 1] == name[n] => {
                    p += 2;
                    n += 1;
                    continue;
                }
                c if c == name[n] => {
                    p += 1;
                    n += 1;
                    continue;
                }
                _ => {}
            }
        }
        match star {
            Some(s) => {
                p = s + 1;
                star_n += 1;
                n = star_n;
            }
            None => return false,
        }
    }
    pat[p..].iter().all(|&c| c == b'*')
}

/// A `[...]` class at the start of `pat`: whether `c` is in it and the class's length.
fn class_match(pat: &[u8], c: u8) -> Option<(bool, usize)> {
    let mut i = 1;
    let negate = matches!(pat.get(i), Some(b'!' | b'^'));
    if negate {
        i += 1;
    }
    let mut found = false;
    let mut first = true;
    while i < pat.len() && (first || pat[i] != b']') {
        first = false;
        let lo = pat[i];
        if i + 2 < pat.len() && pat[i + 1] == b'-' && pat[i + 2] != b']' {
            found |= (lo..=pat[i + 2]).contains(&c);
            i += 3;
        } else {
            found |= lo == c;
            i += 1;
        }
    }
    (i < pat.len()).then_some((found != negate, i + 1))
}

fn has_wildcard(s: &[u8]) -> bool {
    s.iter().any(|c| matches!(c, b'*' | b'?' | b'['))
}

/// The paths matching `pattern`, component by component (TF's `GetMatchingPaths`).
pub fn matching_paths(pattern: &[u8]) -> Result<Vec<Vec<u8>>> {
    let absolute = pattern.first() == Some(&b'/');
    let parts: Vec<&[u8]> = pattern.split(|&c| c == b'/').filter(|p| !p.is_empty()).collect();
    let mut current: Vec<Vec<u8>> = vec![if absolute { b"/".to_vec() } else { Vec::new() }];
    for (i, part) in parts.iter().enumerate() {
        let last = i + 1 == parts.len();
        let mut next = Vec::new();
        for base in &current {
            let join = |name: &[u8]| {
                let mut p = base.clone();
                if !p.is_empty() && p.last() != Some(&b'/') {
                    p.push(b'/');
                }
                p.extend_from_slice(name);
                p
            };
            if !has_wildcard(part) {
                let p = join(part);
                let path = path_from_bytes(&p)?;
                let found = if last { path.exists() } else { path.is_dir() };
                if found {
                    next.push(p);
                }
                continue;
            }
            let dir = if base.is_empty() { b".".to_vec() } else { base.clone() };
            let Ok(entries) = std::fs::read_dir(path_from_bytes(&dir)?) else { continue };
            for entry in entries.flatten() {
                let name = entry.file_name();
                let name = name.as_encoded_bytes();
                if name.first() == Some(&b'.') && part.first() != Some(&b'.') {
                    continue;
                }
                if glob_match(part, name) {
                    let p = join(name);
                    if last || entry.path().is_dir() {
                        next.push(p);
                    }
                }
            }
        }
        current = next;
    }
    if parts.is_empty() {
        current.clear();
    }
    current.sort();
    Ok(current)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_match_as_fnmatch() {
        for (pat, name, want) in [
            ("*.txt", "a.txt", true),
            ("*.txt", "a.txt.gz", false),
            ("a?c", "abc", true),
            ("a?c", "ac", false),
            ("[ab]1", "b1", true),
            ("[!ab]1", "b1", false),
            ("[a-c]x", "cx", true),
            ("*a*b*", "xxaxxbxx", true),
            ("\\*", "*", true),
            ("", "", true),
        ] {
            assert_eq!(glob_match(pat.as_bytes(), name.as_bytes()), want, "{pat} {name}");
        }
    }
}
