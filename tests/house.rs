//! The house rules of the source tree, checked on every test run
//! (ARCHITECTURE.md, "Invariants"):
//!
//! - no function is longer than [`LONGEST_FUNCTION`] lines, so every one
//!   can be read without scrolling;
//! - the files of a folder of `src/` do not import each other in circles:
//!   what several of them share lives in a module they all use.
//!
//! The scan reads the files as text: comments, strings and character
//! literals are blanked first, then a function runs from its `fn` line to
//! the brace that closes its body.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The most lines a function may take, its signature and closing brace
/// included.
const LONGEST_FUNCTION: usize = 150;

/// Where the house rules apply.
const TREES: [&str; 4] = ["src", "tests", "benches", "examples"];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    paths.sort();
    for path in paths {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The text with comments, strings and character literals replaced by
/// spaces, line breaks kept, so that braces and words left are code.
fn blank_non_code(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let end = non_code_end(&chars, i);
        if end > i {
            for &c in &chars[i..end] {
                out.push(if c == '\n' { '\n' } else { ' ' });
            }
            i = end;
        } else {
            out.push(chars[i]);
            i += 1;
        }
    }
    out
}

/// Where a comment, string or character literal starting at `i` ends, or
/// `i` when none starts there.
fn non_code_end(c: &[char], i: usize) -> usize {
    let at = |k: usize| c.get(k).copied().unwrap_or('\0');
    let find = |from: usize, pat: &[char]| {
        (from..c.len())
            .find(|&k| c[k..].starts_with(pat))
            .map_or(c.len(), |k| k + pat.len())
    };
    let word_before = i > 0 && (c[i - 1].is_alphanumeric() || c[i - 1] == '_');
    match (at(i), at(i + 1)) {
        ('/', '/') => (i..c.len()).find(|&k| c[k] == '\n').unwrap_or(c.len()),
        ('/', '*') => find(i + 2, &['*', '/']),
        ('r', '"' | '#') | ('b', 'r') if !word_before => raw_string_end(c, i),
        ('"', _) => {
            let mut k = i + 1;
            while k < c.len() && c[k] != '"' {
                k += if c[k] == '\\' { 2 } else { 1 };
            }
            (k + 1).min(c.len())
        }
        ('\'', '\\') => find(i + 2, &['\'']),
        ('\'', _) if at(i + 2) == '\'' => i + 3,
        _ => i,
    }
}

fn raw_string_end(c: &[char], i: usize) -> usize {
    let mut k = i + if c[i] == 'b' { 2 } else { 1 };
    let mut hashes = 0;
    while c.get(k) == Some(&'#') {
        hashes += 1;
        k += 1;
    }
    if c.get(k) != Some(&'"') {
        return i;
    }
    let mut close = vec!['"'];
    close.extend(std::iter::repeat_n('#', hashes));
    (k + 1..c.len())
        .find(|&j| c[j..].starts_with(&close))
        .map_or(c.len(), |j| j + close.len())
}

/// The name of the function declared on this line, if one is.
fn function_name(line: &str) -> Option<&str> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let at = words.iter().position(|w| *w == "fn")?;
    let before_ok = words[..at].iter().all(|w| {
        w.starts_with("pub") || matches!(*w, "const" | "async" | "unsafe" | "extern" | "\"C\"")
    });
    let name = words.get(at + 1)?;
    let end = name
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(name.len());
    (before_ok && end > 0).then(|| &name[..end])
}

/// Every function of a file with its first line and its length in lines.
fn functions(text: &str) -> Vec<(String, usize, usize)> {
    let code = blank_non_code(text);
    let lines: Vec<&str> = code.lines().collect();
    let mut found = Vec::new();
    for (start, line) in lines.iter().enumerate() {
        let Some(name) = function_name(line) else {
            continue;
        };
        if let Some(len) = body_length(&lines[start..]) {
            found.push((name.to_string(), start + 1, len));
        }
    }
    found
}

/// Lines from the first line to the brace closing the body; `None` for a
/// declaration without a body.
fn body_length(lines: &[&str]) -> Option<usize> {
    let mut depth = 0i64;
    let mut opened = false;
    for (k, line) in lines.iter().enumerate() {
        if !opened && line.contains(';') && !line.contains('{') {
            return None;
        }
        for c in line.chars() {
            match c {
                '{' => {
                    depth += 1;
                    opened = true;
                }
                '}' => depth -= 1,
                _ => {}
            }
        }
        if opened && depth == 0 {
            return Some(k + 1);
        }
    }
    None
}

#[test]
fn no_function_is_longer_than_a_screenful() {
    let mut files = Vec::new();
    for tree in TREES {
        rust_files(&root().join(tree), &mut files);
    }
    let mut long = Vec::new();
    for file in &files {
        let text = fs::read_to_string(file).expect("a source file reads as UTF-8");
        for (name, line, len) in functions(&text) {
            if len > LONGEST_FUNCTION {
                let rel = file.strip_prefix(root()).unwrap_or(file);
                long.push(format!("{}:{line} {name}: {len} lines", rel.display()));
            }
        }
    }
    assert!(
        long.is_empty(),
        "functions over {LONGEST_FUNCTION} lines (split them into named steps):\n{}",
        long.join("\n")
    );
}

/// The module path of a file below `src/`: `src/engine/march.rs` is
/// `["engine", "march"]`, `src/engine/mod.rs` is `["engine"]`.
fn module_path(file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(root().join("src")).unwrap_or(file);
    let mut parts: Vec<String> = rel
        .with_extension("")
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    if parts
        .last()
        .is_some_and(|p| matches!(p.as_str(), "mod" | "lib" | "main"))
    {
        parts.pop();
    }
    parts
}

/// Whether `code` (of a file in `folder`) names its sibling module `name`.
fn names_sibling(code: &str, folder: &[String], name: &str) -> bool {
    let absolute = format!("crate::{}::", folder.join("::"));
    let is_word_end = |rest: &str| {
        !rest
            .chars()
            .next()
            .is_some_and(|c| c.is_alphanumeric() || c == '_')
    };
    let direct = |prefix: &str| {
        code.match_indices(&format!("{prefix}{name}"))
            .any(|(at, m)| is_word_end(&code[at + m.len()..]))
    };
    let grouped = |prefix: &str| {
        code.match_indices(&format!("{prefix}{{")).any(|(at, m)| {
            let inner = &code[at + m.len()..];
            let close = inner.find('}').unwrap_or(inner.len());
            inner[..close]
                .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .any(|w| w == name)
        })
    };
    direct("super::") || grouped("super::") || direct(&absolute) || grouped(&absolute)
}

/// The circles (strongly connected groups of two or more) of a graph.
fn circles(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    let reach = |from: &String| {
        let mut seen = BTreeSet::new();
        let mut todo = vec![from.clone()];
        while let Some(n) = todo.pop() {
            for m in edges.get(&n).into_iter().flatten() {
                if seen.insert(m.clone()) {
                    todo.push(m.clone());
                }
            }
        }
        seen
    };
    let reached: BTreeMap<&String, BTreeSet<String>> =
        edges.keys().map(|k| (k, reach(k))).collect();
    let mut groups: BTreeSet<Vec<String>> = BTreeSet::new();
    for (k, from_k) in &reached {
        let group: Vec<String> = from_k
            .iter()
            .filter(|m| reached.get(m).is_some_and(|r| r.contains(*k)))
            .cloned()
            .collect();
        if group.len() > 1 {
            groups.insert(group);
        }
    }
    groups.into_iter().collect()
}

#[test]
fn the_files_of_a_folder_do_not_import_each_other_in_circles() {
    let mut files = Vec::new();
    rust_files(&root().join("src"), &mut files);
    let mut by_folder: BTreeMap<Vec<String>, BTreeMap<String, String>> = BTreeMap::new();
    for file in &files {
        let mut path = module_path(file);
        let Some(name) = path.pop() else { continue };
        let text = fs::read_to_string(file).expect("a source file reads as UTF-8");
        by_folder
            .entry(path)
            .or_default()
            .insert(name, blank_non_code(&text));
    }
    let mut found = Vec::new();
    for (folder, siblings) in by_folder.iter().filter(|(f, _)| !f.is_empty()) {
        let edges: BTreeMap<String, BTreeSet<String>> = siblings
            .iter()
            .map(|(a, code)| {
                let uses = siblings
                    .keys()
                    .filter(|b| *b != a && names_sibling(code, folder, b))
                    .cloned()
                    .collect();
                (a.clone(), uses)
            })
            .collect();
        for circle in circles(&edges) {
            found.push(format!("src/{}: {}", folder.join("/"), circle.join(", ")));
        }
    }
    assert!(
        found.is_empty(),
        "files importing each other in circles (move what they share into a module they all use):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_scan_sees_through_strings_and_comments() {
    let text =
        "fn a() {\n    let s = \"}\"; // }\n    let c = '{';\n    let r = r#\"{\"#;\n}\nfn b();\n";
    assert_eq!(functions(text), vec![("a".to_string(), 1, 5)]);
}

#[test]
fn a_circle_is_found_and_a_chain_is_not() {
    let graph = |pairs: &[(&str, &str)]| {
        let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (a, b) in pairs {
            g.entry(a.to_string()).or_default().insert(b.to_string());
            g.entry(b.to_string()).or_default();
        }
        g
    };
    assert!(circles(&graph(&[("a", "b"), ("b", "c")])).is_empty());
    assert_eq!(
        circles(&graph(&[("a", "b"), ("b", "c"), ("c", "a")])),
        vec![vec!["a".to_string(), "b".to_string(), "c".to_string()]]
    );
}
