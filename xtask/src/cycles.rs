//! `cargo xtask cycles`: the import graph between the files of each crate, and its circles.
//!
//! Every file of a crate is parsed (`syn`), its module tree followed from `lib.rs` or
//! `main.rs` through `mod` declarations (inline modules belong to their file). A file depends
//! on another when it names a module the other file holds: in a `use`, or in any path of its
//! code (`super::x::f()`, `crate::a::B`, a module brought in by a `use`), the deepest module
//! the path walks through counting. Declaring a child module (`mod x;`) is not a dependency.
//! A circle is a strongly connected set of two or more files; one is printed with a path
//! round it, and the check fails.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use syn::visit::Visit;

/// One module of a crate: its file (shared by its inline modules) and its children.
struct Module {
    file: usize,
    parent: Option<usize>,
    children: HashMap<String, usize>,
    /// Its items, to be scanned for paths (inline modules' own items excluded).
    items: Vec<syn::Item>,
}

/// A crate's module tree and files.
struct Tree {
    files: Vec<PathBuf>,
    modules: Vec<Module>,
}

/// Why a crate could not be read.
#[derive(Debug)]
pub struct ReadError(pub String);

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl Tree {
    fn read(root: &Path) -> Result<Tree, ReadError> {
        let mut t = Tree {
            files: Vec::new(),
            modules: Vec::new(),
        };
        let dir = root.parent().unwrap_or(Path::new(".")).to_path_buf();
        t.file_module(root, dir, None, None)?;
        Ok(t)
    }

    /// Reads `path` as the module `name` under `parent`; `dir` is where its children's files
    /// are.
    fn file_module(
        &mut self,
        path: &Path,
        dir: PathBuf,
        parent: Option<usize>,
        name: Option<&str>,
    ) -> Result<usize, ReadError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| ReadError(format!("{}: {e}", path.display())))?;
        let file =
            syn::parse_file(&text).map_err(|e| ReadError(format!("{}: {e}", path.display())))?;
        self.files.push(path.to_path_buf());
        let f = self.files.len() - 1;
        self.module(file.items, f, dir, parent, name)
    }

    fn module(
        &mut self,
        items: Vec<syn::Item>,
        file: usize,
        dir: PathBuf,
        parent: Option<usize>,
        name: Option<&str>,
    ) -> Result<usize, ReadError> {
        let id = self.modules.len();
        self.modules.push(Module {
            file,
            parent,
            children: HashMap::new(),
            items: Vec::new(),
        });
        if let (Some(p), Some(n)) = (parent, name) {
            self.modules[p].children.insert(n.to_string(), id);
        }
        let mut own = Vec::new();
        for item in items {
            let syn::Item::Mod(m) = item else {
                own.push(item);
                continue;
            };
            let child = m.ident.to_string();
            let attr_path = m.attrs.iter().find_map(|a| {
                if !a.path().is_ident("path") {
                    return None;
                }
                match &a.meta {
                    syn::Meta::NameValue(nv) => match &nv.value {
                        syn::Expr::Lit(syn::ExprLit {
                            lit: syn::Lit::Str(s),
                            ..
                        }) => Some(s.value()),
                        _ => None,
                    },
                    _ => None,
                }
            });
            match m.content {
                Some((_, inner)) => {
                    self.module(inner, file, dir.join(&child), Some(id), Some(&child))?;
                }
                None => {
                    let path = match attr_path {
                        Some(p) => dir.join(p),
                        None => {
                            let flat = dir.join(format!("{child}.rs"));
                            if flat.exists() {
                                flat
                            } else {
                                dir.join(&child).join("mod.rs")
                            }
                        }
                    };
                    let child_dir = if path.file_name().is_some_and(|n| n == "mod.rs") {
                        path.parent().unwrap_or(&dir).to_path_buf()
                    } else {
                        path.with_extension("")
                    };
                    self.file_module(&path, child_dir, Some(id), Some(&child))?;
                }
            }
        }
        self.modules[id].items = own;
        Ok(id)
    }

    /// The module a path's first segment names from module `from`: `crate`, `self`,
    /// `super`, a child module, or a module `aliases` brought in.
    fn first(&self, from: usize, seg: &str, aliases: &HashMap<String, usize>) -> Option<usize> {
        match seg {
            "crate" => Some(0),
            "self" => Some(from),
            "super" => self.modules[from].parent,
            name => self.modules[from]
                .children
                .get(name)
                .or_else(|| aliases.get(name))
                .copied(),
        }
    }

    /// The module a path names from module `from`: its first segment ([`Self::first`]),
    /// then every further segment that is a child module (or `super`); with `whole`, only a
    /// path that is all modules. `None` for a path that leaves the crate or names no module.
    fn resolve(
        &self,
        from: usize,
        segs: &[String],
        aliases: &HashMap<String, usize>,
        whole: bool,
    ) -> Option<usize> {
        let (first, rest) = segs.split_first()?;
        let mut cur = self.first(from, first, aliases)?;
        for s in rest {
            let next = if s == "super" {
                self.modules[cur].parent
            } else {
                self.modules[cur].children.get(s).copied()
            };
            match next {
                Some(n) => cur = n,
                None if whole => return None,
                None => break,
            }
        }
        Some(cur)
    }

    /// The files each file depends on.
    fn edges(&self) -> BTreeMap<usize, BTreeSet<usize>> {
        self.edges_with_paths()
            .into_iter()
            .map(|(a, bs)| (a, bs.into_keys().collect()))
            .collect()
    }

    /// The files each file depends on, each with a path that makes it depend.
    fn edges_with_paths(&self) -> BTreeMap<usize, BTreeMap<usize, String>> {
        let mut out: BTreeMap<usize, BTreeMap<usize, String>> = BTreeMap::new();
        for (id, m) in self.modules.iter().enumerate() {
            let mut paths = Paths::default();
            for item in &m.items {
                paths.visit_item(item);
            }
            // Modules brought in by `use`, by the name they take.
            let mut aliases = HashMap::new();
            for _ in 0..2 {
                for (segs, rename) in &paths.uses {
                    if let Some(target) = self.resolve(id, segs, &aliases, true) {
                        let name = rename.clone().or_else(|| segs.last().cloned());
                        if let Some(n) = name.filter(|n| n != "self" && n != "*") {
                            aliases.insert(n, target);
                        }
                    }
                }
            }
            let all = paths.uses.iter().map(|(s, _)| s).chain(paths.paths.iter());
            for segs in all {
                if let Some(target) = self.resolve(id, segs, &aliases, false) {
                    let (a, b) = (m.file, self.modules[target].file);
                    if a != b {
                        out.entry(a)
                            .or_default()
                            .entry(b)
                            .or_insert_with(|| segs.join("::"));
                    }
                }
            }
        }
        out
    }
}

/// The paths of a module's items: `use` trees expanded (with a rename, if any), and every
/// other path (types, expressions, patterns, macros and the expressions inside macro calls
/// that parse as such).
#[derive(Default)]
struct Paths {
    uses: Vec<(Vec<String>, Option<String>)>,
    paths: Vec<Vec<String>>,
}

impl Paths {
    fn use_tree(&mut self, prefix: &mut Vec<String>, tree: &syn::UseTree) {
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.use_tree(prefix, &p.tree);
                prefix.pop();
            }
            syn::UseTree::Name(n) => {
                let name = n.ident.to_string();
                let mut segs = prefix.clone();
                if name != "self" {
                    segs.push(name);
                }
                self.uses.push((segs, None));
            }
            syn::UseTree::Rename(r) => {
                let mut segs = prefix.clone();
                if r.ident != "self" {
                    segs.push(r.ident.to_string());
                }
                self.uses.push((segs, Some(r.rename.to_string())));
            }
            syn::UseTree::Glob(_) => self.uses.push((prefix.clone(), Some("*".into()))),
            syn::UseTree::Group(g) => {
                for t in &g.items {
                    self.use_tree(prefix, t);
                }
            }
        }
    }
}

impl<'ast> Visit<'ast> for Paths {
    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        self.use_tree(&mut Vec::new(), &u.tree);
    }

    fn visit_visibility(&mut self, _: &'ast syn::Visibility) {
        // `pub(super)`, `pub(in crate::a)`: who may see an item, not what it uses.
    }

    fn visit_item_mod(&mut self, _: &'ast syn::ItemMod) {
        // An inline module is a module of its own, scanned as such.
    }

    fn visit_path(&mut self, p: &'ast syn::Path) {
        // Outside a `use`, a module is only ever a prefix: a path of one segment is a local,
        // an item or a macro (`let values = ...; f(&values)` names no module `values`).
        if p.segments.len() > 1 {
            self.paths
                .push(p.segments.iter().map(|s| s.ident.to_string()).collect());
        }
        syn::visit::visit_path(self, p);
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        use syn::parse::Parser;
        let exprs = syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated;
        if let Ok(list) = exprs.parse2(m.tokens.clone()) {
            for e in &list {
                self.visit_expr(e);
            }
        }
        syn::visit::visit_macro(self, m);
    }
}

/// The circles of one crate: each strongly connected set of two or more files.
fn circles(tree: &Tree) -> Vec<Circle> {
    let edges = tree.edges();
    let n = tree.files.len();
    // Tarjan's algorithm, iteratively.
    let (mut index, mut low, mut on) = (vec![usize::MAX; n], vec![0; n], vec![false; n]);
    let (mut stack, mut next, mut sccs) = (Vec::new(), 0, Vec::new());
    let succ = |v: usize| -> Vec<usize> {
        edges
            .get(&v)
            .map(|s| s.iter().copied().collect())
            .unwrap_or_default()
    };
    for start in 0..n {
        if index[start] != usize::MAX {
            continue;
        }
        let mut work: Vec<(usize, Vec<usize>, usize)> = vec![(start, succ(start), 0)];
        index[start] = next;
        low[start] = next;
        next += 1;
        stack.push(start);
        on[start] = true;
        while let Some((v, ws, k)) = work.last_mut() {
            let v = *v;
            if let Some(&w) = ws.get(*k) {
                *k += 1;
                if index[w] == usize::MAX {
                    index[w] = next;
                    low[w] = next;
                    next += 1;
                    stack.push(w);
                    on[w] = true;
                    work.push((w, succ(w), 0));
                } else if on[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            work.pop();
            if let Some((u, _, _)) = work.last() {
                low[*u] = low[*u].min(low[v]);
            }
            if low[v] == index[v] {
                let mut scc = Vec::new();
                while let Some(w) = stack.pop() {
                    on[w] = false;
                    scc.push(w);
                    if w == v {
                        break;
                    }
                }
                if scc.len() > 1 {
                    sccs.push(scc);
                }
            }
        }
    }
    sccs.iter()
        .map(|scc| {
            let inside: BTreeSet<usize> = scc.iter().copied().collect();
            let first = *inside.iter().next().unwrap_or(&0);
            let path = round(first, &inside, &edges)
                .into_iter()
                .map(|f| tree.files[f].clone())
                .collect();
            Circle {
                path,
                files: inside.iter().map(|&f| tree.files[f].clone()).collect(),
            }
        })
        .collect()
}

/// A strongly connected set of files.
struct Circle {
    /// A path round it, its first file repeated at the end.
    path: Vec<PathBuf>,
    /// Every file of the set.
    files: Vec<PathBuf>,
}

/// A shortest path from `first` back to itself inside `scc` (breadth first).
fn round(
    first: usize,
    scc: &BTreeSet<usize>,
    edges: &BTreeMap<usize, BTreeSet<usize>>,
) -> Vec<usize> {
    let mut from: HashMap<usize, usize> = HashMap::new();
    let mut queue = std::collections::VecDeque::from([first]);
    while let Some(v) = queue.pop_front() {
        for &w in edges.get(&v).into_iter().flatten() {
            if !scc.contains(&w) {
                continue;
            }
            if w == first {
                let mut path = vec![v];
                let mut at = v;
                while at != first {
                    at = from[&at];
                    path.push(at);
                }
                path.reverse();
                path.push(first);
                return path;
            }
            if let std::collections::hash_map::Entry::Vacant(e) = from.entry(w) {
                e.insert(v);
                queue.push_back(w);
            }
        }
    }
    vec![first]
}

/// The crate roots of the workspace's members under `root`: each `src/lib.rs` and
/// `src/main.rs`.
pub fn crate_roots(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(root) else {
        return out;
    };
    let mut dirs: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    dirs.sort();
    for d in dirs {
        if !d.join("Cargo.toml").exists() {
            continue;
        }
        for r in ["src/lib.rs", "src/main.rs"] {
            if d.join(r).exists() {
                out.push(d.join(r));
            }
        }
    }
    out
}

/// Checks every crate root: prints each circle, and whether there were none.
///
/// # Errors
/// A [`ReadError`] for a file that cannot be read or parsed.
pub fn check(roots: &[PathBuf]) -> Result<usize, ReadError> {
    let mut found = 0;
    for root in roots {
        let tree = Tree::read(root)?;
        let cs = circles(&tree);
        for c in &cs {
            let names: Vec<String> = c.path.iter().map(|p| p.display().to_string()).collect();
            println!("import circle: {}", names.join(" -> "));
            if c.files.len() + 1 > c.path.len() {
                let all: Vec<String> = c.files.iter().map(|p| p.display().to_string()).collect();
                println!(
                    "  (one of {} files tied together: {})",
                    all.len(),
                    all.join(", ")
                );
            }
            if std::env::var_os("XTASK_CYCLES_EDGES").is_some() {
                let index = |p: &PathBuf| tree.files.iter().position(|f| f == p);
                let inside: BTreeSet<usize> = c.files.iter().filter_map(index).collect();
                for (a, bs) in tree.edges_with_paths() {
                    for (b, why) in bs {
                        if inside.contains(&a) && inside.contains(&b) {
                            println!(
                                "    {} -> {}  ({why})",
                                tree.files[a].display(),
                                tree.files[b].display()
                            );
                        }
                    }
                }
            }
        }
        println!(
            "{}: {} files, {} circles",
            root.display(),
            tree.files.len(),
            cs.len()
        );
        found += cs.len();
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn crate_of(files: &[(&str, &str)]) -> PathBuf {
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "xtask-cycles-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        for (name, text) in files {
            let p = dir.join(name);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        dir.join("lib.rs")
    }

    fn circle_files(root: &Path) -> Vec<Vec<String>> {
        circles(&Tree::read(root).unwrap())
            .into_iter()
            .map(|c| {
                c.path
                    .iter()
                    .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
                    .collect()
            })
            .collect()
    }

    #[test]
    fn a_circle_through_uses_paths_and_aliases_is_found() {
        // b uses a; a calls into b through an inline path: a circle.
        let root = crate_of(&[
            ("lib.rs", "mod a;\nmod b;\nmod c;\n"),
            ("a.rs", "pub struct A;\nfn f() { super::b::g(); }\n"),
            ("b.rs", "use crate::a::A;\npub fn g() {}\n"),
            ("c.rs", "use crate::a;\nfn h() -> a::A { a::A }\n"),
        ]);
        let found = circle_files(&root);
        assert_eq!(found.len(), 1, "{found:?}");
        let mut files = found[0].clone();
        assert_eq!(files.first(), files.last());
        files.pop();
        files.sort();
        assert_eq!(files, ["a.rs", "b.rs"]);
    }

    #[test]
    fn layers_without_circles_pass() {
        // Parent over children, children over a shared leaf, inline modules in their file,
        // names that are not modules (a local, a visibility), a macro's expression.
        let root = crate_of(&[
            (
                "lib.rs",
                "mod leaf;\nmod top;\npub use top::run;\nmod inline { pub fn x() { crate::leaf::f(); } }\n",
            ),
            ("leaf.rs", "pub fn f() {}\npub struct T;\n"),
            (
                "top/mod.rs",
                "mod child;\nmod values;\npub fn run() { child::go(); println!(\"{:?}\", crate::leaf::f()); \
                 let values = 1; let _ = values; }\n",
            ),
            (
                "top/child.rs",
                "use crate::leaf::T;\npub(super) fn go() { let _ = T; }\npub(in crate::top) fn z() {}\n",
            ),
            // Uses its parent; the parent's local `values` is not this module.
            ("top/values.rs", "pub fn v() { super::run() }\n"),
        ]);
        assert!(circle_files(&root).is_empty());
        // A child that calls its parent back, from inside a macro: a circle.
        let root = crate_of(&[
            ("lib.rs", "mod top;\n"),
            (
                "top/mod.rs",
                "mod child;\npub fn up() {}\nfn run() { child::go(); }\n",
            ),
            (
                "top/child.rs",
                "pub fn go() { assert!(true, \"{:?}\", super::up()); }\n",
            ),
        ]);
        assert_eq!(circle_files(&root).len(), 1);
    }
}
