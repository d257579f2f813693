//! Finds the `Keyset` models in the crate's sources, with the derive's own parser and rules.

use std::fs;
use std::path::{Path, PathBuf};

use super::{MigrationError, Refusal};
use crate::ctxt::Ctxt;
use crate::model::Model;

/// Calls `each` with every model in the sources, or fails when the reading is partial: a file
/// that does not parse, or a model the derive refuses ([`MigrationError::Refused`], naming them
/// all). Skipping them would look like models removed, and write the drop of their indexes.
pub(super) fn each_model(
    sources: &[PathBuf],
    mut each: impl FnMut(&Model),
) -> Result<(), MigrationError> {
    let mut refusals = Vec::new();
    for file in rust_files(sources)? {
        let text = fs::read_to_string(&file).map_err(io(&file))?;
        let parsed = match syn::parse_file(&text) {
            Ok(parsed) => parsed,
            Err(error) => {
                refusals.push(Refusal { file, model: None, reasons: vec![error.to_string()] });
                continue;
            }
        };
        for input in derive_inputs(parsed.items) {
            let mut cx = Ctxt::new();
            let model = Model::from_ast(&mut cx, &input);
            if let Some(model) = &model {
                crate::valid::check(&mut cx, model);
            }
            let reasons = cx.reasons();
            match model {
                Some(model) if reasons.is_empty() => each(&model),
                // A model that could not be built always records why.
                _ => refusals.push(Refusal {
                    file: file.clone(),
                    model: Some(input.ident.to_string()),
                    reasons,
                }),
            }
        }
    }
    if refusals.is_empty() {
        Ok(())
    } else {
        Err(MigrationError::Refused { refusals })
    }
}

/// Every `.rs` file among `sources` (files, or directories searched recursively), sorted so
/// that the result does not depend on the order the file system lists them in.
fn rust_files(sources: &[PathBuf]) -> Result<Vec<PathBuf>, MigrationError> {
    let mut files = Vec::new();
    for source in sources {
        collect(source, &mut files)?;
    }
    files.sort();
    Ok(files)
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> MigrationError + '_ {
    move |error| MigrationError::Io { path: path.to_owned(), error }
}

fn collect(path: &Path, out: &mut Vec<PathBuf>) -> Result<(), MigrationError> {
    if path.is_file() {
        out.push(path.to_owned());
        return Ok(());
    }
    for entry in fs::read_dir(path).map_err(io(path))? {
        let path = entry.map_err(io(path))?.path();
        if path.is_dir() {
            collect(&path, out)?;
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            out.push(path);
        }
    }
    Ok(())
}

/// Every item with `#[derive(.., Keyset, ..)]`, also inside inline modules: the structs, and
/// the enums and unions, which the derive refuses.
fn derive_inputs(items: Vec<syn::Item>) -> Vec<syn::DeriveInput> {
    let mut found = Vec::new();
    for item in items {
        match item {
            syn::Item::Struct(item) if derives_keyset(&item.attrs) => found.push(item.into()),
            syn::Item::Enum(item) if derives_keyset(&item.attrs) => found.push(item.into()),
            syn::Item::Union(item) if derives_keyset(&item.attrs) => found.push(item.into()),
            syn::Item::Mod(module) => {
                if let Some((_, items)) = module.content {
                    found.extend(derive_inputs(items));
                }
            }
            _ => {}
        }
    }
    found
}

fn derives_keyset(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().filter(|attr| attr.path().is_ident("derive")).any(|attr| {
        attr.parse_args_with(
            syn::punctuated::Punctuated::<syn::Path, syn::Token![,]>::parse_terminated,
        )
        .is_ok_and(|paths| {
            paths.iter().any(|path| path.segments.last().is_some_and(|s| s.ident == "Keyset"))
        })
    })
}
