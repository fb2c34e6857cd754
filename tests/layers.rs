//! The shape of the source: layers only point down, and no function is too long.
//!
//! Reads `src/**/*.rs` (plain Rust, no parser crate): each file's code without its comments,
//! doc comments, string and character literals, and `#[cfg(test)]` items; files named
//! `tests.rs` or under a `tests` folder are test code and not checked.
//!
//! - **Layers.** A module's layer is that of its top-level file or folder under `src/`
//!   ([`RANKS`], bottom first). Library code may refer (`crate::name`, or a name in a
//!   `use crate::{...}` group, nested groups too) only to modules of its own layer or lower
//!   ones. The binary (`src/bin`) is the top layer: its `crate::` is its own crate, and it may
//!   use every part of the library; the library must not pull it in (`#[path]`, `include!`).
//! - **Function length.** No function is longer than [`MAX_FN_LINES`] lines, from its `fn` line
//!   to its closing brace.
//!
//! The unit tests at the end run both checks on small examples, to show that they catch what
//! they should and pass what they should.

use std::path::{Path, PathBuf};

/// Layer ranks, bottom first: a module may refer only to modules of its rank or lower ones.
const RANKS: &[(&str, u32)] = &[
    ("error", 0),
    ("status", 0),
    ("atomic_file", 0),
    ("par", 0),
    ("open_list", 0),
    ("stage", 0),
    ("poly_ref", 0),
    ("aabb", 0),
    ("text", 0),
    ("ffi", 1),
    ("settings", 2),
    ("geometry", 3),
    ("navmesh", 4),
    ("build", 5),
    ("query", 6),
    ("tilecache", 7),
    ("agents", 8),
    ("grid", 8),
    ("service", 9),
    ("debug_draw", 10),
    ("render", 11),
    ("tools", 11),
    ("builder", 12),
    ("lib", 12),
    ("bin", 13),
];

/// The longest function allowed, in lines.
const MAX_FN_LINES: usize = 120;

/// A source file: its path relative to `src/` (with `/`) and its text.
struct Source {
    path: String,
    text: String,
}

fn rank(module: &str) -> Option<u32> {
    RANKS.iter().find(|(m, _)| *m == module).map(|&(_, r)| r)
}

/// The top-level module a file under `src/` belongs to: `navmesh` for `navmesh/mset.rs`,
/// `error` for `error.rs`, `lib` for `lib.rs`, `bin` for anything under `bin/`.
fn top_module(path: &str) -> &str {
    let first = path.split('/').next().unwrap_or(path);
    first.strip_suffix(".rs").unwrap_or(first)
}

/// Test code, which may reach anywhere: a `tests.rs` or a file under a `tests` folder.
fn is_test_file(path: &str) -> bool {
    let mut parts = path.split('/').rev();
    parts.next() == Some("tests.rs") || parts.any(|p| p == "tests")
}

// ---------------------------------------------------------------------------------------------
// Reading code.

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// `text` with comments blanked out, and string and character literals too (their quotes stay,
/// their contents go, newlines inside them stay): the same lines, only code left. With
/// `keep_strings`, literals stay as they are.
fn strip(text: &str, keep_strings: bool) -> String {
    let c: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let blank = |out: &mut String, ch: char| out.push(if ch == '\n' { '\n' } else { ' ' });
    let mut i = 0;
    while i < c.len() {
        let prev_ident = i > 0 && is_ident(c[i - 1]);
        if c[i] == '/' && c.get(i + 1) == Some(&'/') {
            while i < c.len() && c[i] != '\n' {
                out.push(' ');
                i += 1;
            }
        } else if c[i] == '/' && c.get(i + 1) == Some(&'*') {
            let mut depth = 0;
            while i < c.len() {
                if c[i] == '/' && c.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if c[i] == '*' && c.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    blank(&mut out, c[i]);
                    i += 1;
                }
            }
        } else if let Some(len) = (!prev_ident).then(|| raw_string_len(&c[i..])).flatten() {
            for &ch in &c[i..i + len] {
                if keep_strings {
                    out.push(ch);
                } else {
                    blank(&mut out, ch);
                }
            }
            i += len;
        } else if c[i] == '"' || (c[i] == 'b' && !prev_ident && c.get(i + 1) == Some(&'"')) {
            // A string (or byte string): up to the next unescaped quote.
            let start = i;
            i += if c[i] == 'b' { 2 } else { 1 };
            while i < c.len() && c[i] != '"' {
                i += if c[i] == '\\' { 2 } else { 1 };
            }
            i = (i + 1).min(c.len());
            literal(&mut out, &c[start..i], keep_strings);
        } else if c[i] == '\'' {
            // A character literal ('a', '\n', '\u{7f}', '{'), or a lifetime ('a, 'static).
            let len = if c.get(i + 1) == Some(&'\\') {
                let mut j = i + 2;
                while j < c.len() && c[j] != '\'' {
                    j += 1;
                }
                j + 1 - i
            } else if c.get(i + 2) == Some(&'\'') {
                3
            } else {
                1
            };
            literal(&mut out, &c[i..(i + len).min(c.len())], keep_strings);
            i += len;
        } else {
            out.push(c[i]);
            i += 1;
        }
    }
    out
}

/// The length of the raw string (`r"..."`, `r#"..."#`, `br"..."`) at the start of `c`, if one
/// starts there.
fn raw_string_len(c: &[char]) -> Option<usize> {
    let mut i = match c {
        ['r', ..] => 1,
        ['b', 'r', ..] => 2,
        _ => return None,
    };
    let hashes = c[i..].iter().take_while(|&&ch| ch == '#').count();
    i += hashes;
    if c.get(i) != Some(&'"') {
        return None;
    }
    i += 1;
    while i < c.len() {
        if c[i] == '"'
            && c[i + 1..]
                .iter()
                .take(hashes)
                .filter(|&&h| h == '#')
                .count()
                == hashes
        {
            return Some(i + 1 + hashes);
        }
        i += 1;
    }
    Some(c.len())
}

/// Appends a literal: as it is, or its first and last character with blanks between.
fn literal(out: &mut String, lit: &[char], keep: bool) {
    for (k, &ch) in lit.iter().enumerate() {
        if keep || k == 0 || k + 1 == lit.len() || ch == '\n' {
            out.push(ch);
        } else {
            out.push(' ');
        }
    }
}

/// Whether the tokens `words` (each an identifier or one punctuation character) follow at
/// `i`, with any whitespace between them; the index after them if so.
fn tokens_at(c: &[char], mut i: usize, words: &[&str]) -> Option<usize> {
    for w in words {
        while i < c.len() && c[i].is_whitespace() {
            i += 1;
        }
        let w: Vec<char> = w.chars().collect();
        if c.get(i..i + w.len()) != Some(&w[..]) {
            return None;
        }
        i += w.len();
        if is_ident(w[w.len() - 1]) && c.get(i).is_some_and(|&ch| is_ident(ch)) {
            return None;
        }
    }
    Some(i)
}

/// The index just past the item that starts at `i`: its first `;` outside brackets, or the
/// close of its first `{ ... }`.
fn item_end(c: &[char], mut i: usize) -> usize {
    let mut depth = 0i32;
    let mut opened = false;
    while i < c.len() {
        match c[i] {
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            '{' => {
                depth += 1;
                opened = true;
            }
            '}' => {
                depth -= 1;
                if opened && depth == 0 {
                    return i + 1;
                }
            }
            ';' if depth == 0 => return i + 1,
            _ => {}
        }
        i += 1;
    }
    c.len()
}

/// The code of a file, as [`strip`] leaves it, with every `#[cfg(test)]` item (a test module,
/// a test-only `use` or function) blanked out too.
fn code(text: &str) -> String {
    let mut c: Vec<char> = strip(text, false).chars().collect();
    let mut i = 0;
    while i < c.len() {
        if c[i] == '#'
            && let Some(after) = tokens_at(&c, i, &["#", "[", "cfg", "(", "test", ")", "]"])
        {
            let end = item_end(&c, after);
            for ch in &mut c[i..end] {
                if *ch != '\n' {
                    *ch = ' ';
                }
            }
            i = end;
        } else {
            i += 1;
        }
    }
    c.into_iter().collect()
}

/// Where a text's lines start, to give the line of a char index quickly.
struct Lines(Vec<usize>);

impl Lines {
    fn new(c: &[char]) -> Lines {
        Lines((0..c.len()).filter(|&i| c[i] == '\n').collect())
    }

    /// The 1-based line of char index `i`.
    fn of(&self, i: usize) -> usize {
        1 + self.0.partition_point(|&n| n < i)
    }
}

fn ident_at(c: &[char], i: usize) -> String {
    c[i..].iter().take_while(|&&ch| is_ident(ch)).collect()
}

fn skip_space(c: &[char], mut i: usize) -> usize {
    while i < c.len() && c[i].is_whitespace() {
        i += 1;
    }
    i
}

// ---------------------------------------------------------------------------------------------
// The layer check.

/// The top-level modules a file's code names through `crate::`, each with its char index:
/// `crate::name`, and every first name of a `crate::{...}` group.
fn crate_references(c: &[char]) -> Vec<(String, usize)> {
    let mut refs = Vec::new();
    let mut i = 0;
    while let Some(at) = find(c, i, "crate") {
        i = at + 5;
        if at > 0 && is_ident(c[at - 1]) {
            continue;
        }
        let Some(after) = tokens_at(c, i, &[":", ":"]) else {
            continue;
        };
        let j = skip_space(c, after);
        if c.get(j) == Some(&'{') {
            group_names(c, j, &mut refs);
        } else if c.get(j).is_some_and(|&ch| is_ident(ch)) {
            refs.push((ident_at(c, j), j));
        }
    }
    refs
}

/// The first name of each entry of the `{ ... }` group that opens at `open` (`a::b`, `c`,
/// `d::{e, f}` give `a`, `c`, `d`).
fn group_names(c: &[char], open: usize, refs: &mut Vec<(String, usize)>) {
    let mut depth = 0;
    let mut entry_start = true;
    for (j, &ch) in c.iter().enumerate().skip(open) {
        match ch {
            '{' => {
                depth += 1;
                entry_start = depth == 1;
            }
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return;
                }
            }
            ',' if depth == 1 => entry_start = true,
            ch if entry_start && is_ident(ch) => {
                refs.push((ident_at(c, j), j));
                entry_start = false;
            }
            _ => {}
        }
    }
}

/// The char index of the next `word` in `c` from `from`.
fn find(c: &[char], from: usize, word: &str) -> Option<usize> {
    let w: Vec<char> = word.chars().collect();
    (from..c.len().saturating_sub(w.len() - 1)).find(|&i| c[i..i + w.len()] == w[..])
}

/// Every reference that points up the layers, as `file:line: a (rank) -> b (rank)`.
fn layer_offences(files: &[Source]) -> Vec<String> {
    let mut out = Vec::new();
    for f in files.iter().filter(|f| !is_test_file(&f.path)) {
        let top = top_module(&f.path);
        let Some(own) = rank(top) else {
            out.push(format!("src/{}: module `{top}` has no layer", f.path));
            continue;
        };
        if top == "bin" {
            continue; // its `crate::` is the binary's own crate
        }
        out.extend(pulls_in_bin(f));
        let c: Vec<char> = code(&f.text).chars().collect();
        let lines = Lines::new(&c);
        for (name, at) in crate_references(&c) {
            if let Some(theirs) = rank(&name).filter(|&r| r > own) {
                out.push(format!(
                    "src/{}:{}: {top} (layer {own}) -> {name} (layer {theirs})",
                    f.path,
                    lines.of(at)
                ));
            }
        }
    }
    out
}

/// A library file that pulls in the binary's source (`#[path = "bin/..."]`, `include!`).
fn pulls_in_bin(f: &Source) -> Vec<String> {
    let code = strip(&f.text, true);
    code.lines()
        .enumerate()
        .filter(|(_, l)| {
            let l = l.replace(' ', "");
            ["#[path=", "include!(", "include_str!(", "include_bytes!("]
                .iter()
                .any(|m| l.contains(m))
                && l.contains("bin/")
        })
        .map(|(n, _)| {
            format!(
                "src/{}:{}: {} (layer {}) -> bin (layer 13)",
                f.path,
                n + 1,
                top_module(&f.path),
                rank(top_module(&f.path)).unwrap_or(0)
            )
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// The function length check.

/// Every function of more than `max` lines, as `file:line: name is N lines`.
fn long_functions(files: &[Source], max: usize) -> Vec<String> {
    let mut out = Vec::new();
    for f in files.iter().filter(|f| !is_test_file(&f.path)) {
        let c: Vec<char> = code(&f.text).chars().collect();
        let line = Lines::new(&c);
        let mut i = 0;
        while let Some(at) = find(&c, i, "fn") {
            i = at + 2;
            let before_ok = at == 0 || !is_ident(c[at - 1]);
            let after = skip_space(&c, i);
            if !before_ok || i >= c.len() || !c[i].is_whitespace() || !is_ident(c[after]) {
                continue;
            }
            let Some(end) = body_end(&c, after) else {
                continue; // a declaration without a body
            };
            let (first, last) = (line.of(at), line.of(end));
            let lines = last - first + 1;
            if lines > max {
                let name = ident_at(&c, after);
                out.push(format!("src/{}:{first}: {name} is {lines} lines", f.path));
            }
        }
    }
    out
}

/// The char index of the `}` that closes the body of the function whose name starts at `i`;
/// `None` if a `;` ends its signature first.
fn body_end(c: &[char], mut i: usize) -> Option<usize> {
    let mut depth = 0i32;
    while i < c.len() {
        match c[i] {
            '(' | '[' | '<' => depth += 1,
            ')' | ']' => depth -= 1,
            '>' if c[i - 1] != '-' => depth -= 1,
            ';' if depth <= 0 => return None,
            '{' if depth <= 0 => break,
            _ => {}
        }
        i += 1;
    }
    let mut braces = 0;
    while i < c.len() {
        match c[i] {
            '{' => braces += 1,
            '}' => {
                braces -= 1;
                if braces == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

// ---------------------------------------------------------------------------------------------
// The real tree.

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Every `.rs` file under `src/`.
fn sources() -> Vec<Source> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut paths = Vec::new();
    rust_files(&src, &mut paths);
    paths.sort();
    paths
        .into_iter()
        .map(|p| Source {
            path: p
                .strip_prefix(&src)
                .unwrap()
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join("/"),
            text: std::fs::read_to_string(&p).unwrap(),
        })
        .collect()
}

#[test]
fn layers_point_down() {
    let files = sources();
    assert!(files.len() > 100, "only {} files under src/", files.len());
    let offences = layer_offences(&files);
    assert!(
        offences.is_empty(),
        "references that point up the layers:\n{}",
        offences.join("\n")
    );
}

#[test]
fn functions_are_short() {
    let offences = long_functions(&sources(), MAX_FN_LINES);
    assert!(
        offences.is_empty(),
        "functions over {MAX_FN_LINES} lines:\n{}",
        offences.join("\n")
    );
}

// ---------------------------------------------------------------------------------------------
// The checks on examples.

fn source(path: &str, text: &str) -> Source {
    Source {
        path: path.into(),
        text: text.into(),
    }
}

/// A function `name` of `lines` lines in all (at least 2).
fn function(name: &str, lines: usize) -> String {
    let body: String = (0..lines - 2)
        .map(|k| format!("    let _x{k} = {k};\n"))
        .collect();
    format!("fn {name}() {{\n{body}}}\n")
}

#[test]
fn upward_references_are_caught() {
    let files = [
        source("navmesh/mod.rs", "use crate::query::PolyRef;\n"),
        source(
            "geometry/mesh.rs",
            "//! Geometry.\nuse crate::{\n    error::Error,\n    settings::{BuildSettings, area},\n    tilecache::{Obstacle, fastlz::{self}},\n};\n",
        ),
        source(
            "ffi/detour.rs",
            "fn f() { let _ = crate :: builder :: NavMeshBuilder::new(); }\n",
        ),
        source("error.rs", "#[path = \"bin/navkit/json.rs\"]\nmod json;\n"),
        source("newthing.rs", "pub fn f() {}\n"),
    ];
    let found = layer_offences(&files);
    assert_eq!(
        found,
        [
            "src/navmesh/mod.rs:1: navmesh (layer 4) -> query (layer 6)",
            "src/geometry/mesh.rs:5: geometry (layer 3) -> tilecache (layer 7)",
            "src/ffi/detour.rs:1: ffi (layer 1) -> builder (layer 12)",
            "src/error.rs:1: error (layer 0) -> bin (layer 13)",
            "src/newthing.rs: module `newthing` has no layer",
        ],
    );
}

#[test]
fn downward_references_comments_strings_and_tests_pass() {
    let files = [
        source(
            "query/mod.rs",
            "//! Uses [`crate::tools`] in a doc comment.\n\
             use crate::{navmesh::NavMesh, error::{Error, Result}, Aabb};\n\
             /* crate::agents in a block /* nested */ comment */\n\
             const S: &str = \"crate::render\";\n\
             const R: &str = r#\"crate::service \"# ;\n\
             fn f<'a>(x: &'a str) -> char { let _ = crate::query::f; '{' }\n\
             #[cfg(test)]\nmod tests {\n    use crate::tools::worldgen;\n}\n",
        ),
        source("query/tests.rs", "use crate::agents::Crowd;\n"),
        source(
            "navmesh/tests/mutate.rs",
            "use crate::tilecache::TileCache;\n",
        ),
        source(
            "bin/navkit/main.rs",
            "use crate::json::error_kind;\nuse navkit::tools;\n",
        ),
        source("lib.rs", "pub use crate::builder::NavMeshBuilder;\n"),
    ];
    assert_eq!(layer_offences(&files), Vec::<String>::new());
}

#[test]
fn long_functions_are_caught() {
    let text = format!(
        "impl X {{\n{}}}\n{}",
        function("long_one", 130),
        function("short_one", 120)
    );
    let found = long_functions(&[source("tools/x.rs", &text)], MAX_FN_LINES);
    assert_eq!(found, ["src/tools/x.rs:2: long_one is 130 lines"]);
}

#[test]
fn short_functions_and_tests_pass() {
    // Braces in strings, characters and comments do not end a function early or late.
    let tricky = "fn tricky() -> [u8; 2] {\n    let _s = \"}}\n    {{\";\n    let _c = '}';\n    // }\n    [0; 2]\n}\n";
    let text = format!(
        "{}{tricky}trait T {{\n    fn declared(&self);\n}}\n#[cfg(test)]\nmod tests {{\n{}}}\n",
        function("just_short_enough", 120),
        function("long_test", 300)
    );
    let files = [
        source("tools/x.rs", &text),
        source("tools/tests.rs", &function("long_in_tests_rs", 200)),
    ];
    assert_eq!(long_functions(&files, MAX_FN_LINES), Vec::<String>::new());
    assert_eq!(
        long_functions(&files, 5),
        [
            "src/tools/x.rs:1: just_short_enough is 120 lines",
            "src/tools/x.rs:121: tricky is 7 lines"
        ]
    );
}
