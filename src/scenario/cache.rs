//! The checked data set kept in a file beside the database, so that a
//! short process (`dervish submit`, one for each mail a mail server pipes)
//! reads it in a fast binary form (postcard) instead of parsing and
//! checking the RON files again.
//!
//! The file is never trusted blindly. It is used only when its key is the
//! key of the files being loaded now: the SHA-256 of the program (its
//! version, and the size and time of its executable, so another build never
//! reads a cache in a layout it does not know) and of every data file's
//! name and text; and when its checksum matches what follows it. Anything
//! else (no file, another key, a file cut short or damaged, a cache that
//! does not read back) loads the files as always, with the same
//! diagnostics naming file and line, and writes the cache again. It holds
//! nothing a player sent or is owed: losing it costs one slower start, and
//! it is written to a file of its own and renamed into place, so a reader
//! sees the old cache or the new one, never half of one.

use std::hash::Hasher;
use std::io;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::{DataFiles, DataSet};
use crate::diag::Diagnostics;

/// What a cache file starts with (and the version of its layout).
const MAGIC: &[u8] = b"dervish data cache 1\n";

/// The key of a data cache: what the cached data set was made from.
type Key = [u8; 32];

impl DataFiles {
    /// [`DataFiles::load`], through the cache file `cache`: the data set
    /// stored there if it was made from these same files by this same
    /// program, else the files loaded and checked, and the cache written
    /// again (a cache that cannot be written costs only time). Errors in
    /// the files are reported as by [`DataFiles::load`].
    pub fn load_cached(&self, cache: &Path) -> Result<DataSet, Diagnostics> {
        let Some(key) = self.cache_key() else {
            return self.load();
        };
        if let Some(set) = read_cache(cache, &key) {
            return Ok(set);
        }
        let set = self.load()?;
        if let Err(e) = write_cache(cache, &key, &set) {
            tracing::debug!("the data cache {} was not written: {e}", cache.display());
        }
        Ok(set)
    }

    /// The key of these files for this program, or `None` if the program
    /// cannot tell which build it is (then no cache is used).
    fn cache_key(&self) -> Option<Key> {
        let mut h = Sha256::new();
        let program = program_identity()?;
        h.update(format!("{} {program}\n", program.len()).as_bytes());
        let fixed = [&self.map, &self.units, &self.tables, &self.events];
        let files = fixed
            .into_iter()
            .chain(&self.scenarios)
            .chain([&self.reactions])
            .chain(self.extras.values());
        for f in files {
            h.update(format!("{} {} {}\n", f.name.len(), f.name, f.text.len()).as_bytes());
            h.update(f.text.as_bytes());
        }
        Some(h.finalize().into())
    }
}

/// This program: its version and the size and modification time of its
/// executable. A rebuilt program (another layout of the data set, another
/// check) has another time.
fn program_identity() -> Option<String> {
    let exe = std::env::current_exe().ok()?;
    let meta = std::fs::metadata(exe).ok()?;
    let modified = meta
        .modified()
        .ok()?
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?;
    Some(format!(
        "dervish {} {} {}",
        env!("CARGO_PKG_VERSION"),
        meta.len(),
        modified.as_nanos()
    ))
}

/// A checksum of the stored data set, to find a file damaged or cut short.
fn checksum(payload: &[u8]) -> u64 {
    let mut h = rustc_hash::FxHasher::default();
    h.write_usize(payload.len());
    h.write(payload);
    h.finish()
}

/// The data set in the cache file, if the file is whole and has `key`.
fn read_cache(cache: &Path, key: &Key) -> Option<DataSet> {
    let bytes = std::fs::read(cache).ok()?;
    let rest = bytes.strip_prefix(MAGIC)?;
    let (stored_key, rest) = rest.split_first_chunk::<32>()?;
    if stored_key != key {
        return None;
    }
    let (sum, payload) = rest.split_first_chunk::<8>()?;
    if u64::from_le_bytes(*sum) != checksum(payload) {
        return None;
    }
    match postcard::take_from_bytes::<DataSet>(payload) {
        Ok((set, [])) => Some(set),
        _ => None,
    }
}

/// Write the cache file: the whole of it to a file of its own, then
/// renamed into place.
fn write_cache(cache: &Path, key: &Key, set: &DataSet) -> io::Result<()> {
    let payload = postcard::to_stdvec(set).map_err(io::Error::other)?;
    let mut bytes = Vec::with_capacity(MAGIC.len() + key.len() + 8 + payload.len());
    bytes.extend_from_slice(MAGIC);
    bytes.extend_from_slice(key);
    bytes.extend_from_slice(&checksum(&payload).to_le_bytes());
    bytes.extend_from_slice(&payload);
    let part = part_path(cache);
    let written = std::fs::write(&part, &bytes).and_then(|()| std::fs::rename(&part, cache));
    if written.is_err() {
        let _ = std::fs::remove_file(&part);
    }
    written
}

/// Where a process writes the cache before renaming it into place.
fn part_path(cache: &Path) -> PathBuf {
    let mut name = cache.as_os_str().to_owned();
    name.push(format!(".{}.part", std::process::id()));
    PathBuf::from(name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geo::Map;
    use crate::scenario::Units;

    fn temp_cache(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("dervish-cache-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir.join("dervish.data-cache")
    }

    /// Everything the map answers, hex by hex.
    fn map_answers(map: &Map) -> Vec<String> {
        let mut out = vec![format!("{} {} {}", map.name(), map.columns(), map.rows())];
        for hex in map.hexes() {
            out.push(format!(
                "{hex} {:?} {} {} {:?} {:?} {:?}",
                map.terrain(hex),
                map.in_souakim_extension(hex),
                map.is_ambush_ground(hex),
                map.place_at(hex),
                map.track(hex),
                map.river_sides_of(hex),
            ));
        }
        for p in map.places() {
            out.push(format!("{p:?} {:?}", map.find_place(&p.name)));
        }
        out.push(format!("{:?}", map.rivers()));
        out.push(format!("{:?}", map.cataracts()));
        out.push(format!("{:?}", map.railways()));
        out
    }

    fn unit_answers(units: &Units) -> Vec<String> {
        let mut out: Vec<String> = units
            .types()
            .iter()
            .map(|t| format!("{t:?} {:?}", units.index_of(&t.id)))
            .collect();
        out.extend(units.leaders().iter().map(|l| format!("{l:?}")));
        out
    }

    /// The two data sets answer every question alike (the hash tables
    /// inside may be laid out differently, so they are asked, not printed).
    fn assert_same(a: &DataSet, b: &DataSet) {
        assert_eq!(map_answers(&a.map), map_answers(&b.map));
        assert_eq!(unit_answers(&a.units), unit_answers(&b.units));
        assert_eq!(a.tables, b.tables);
        assert_eq!(a.events, b.events);
        assert_eq!(a.scenarios, b.scenarios);
        assert_eq!(a.reactions, b.reactions);
        assert_eq!(a.digests, b.digests);
        assert_eq!(format!("{:?}", a.etyfw), format!("{:?}", b.etyfw));
    }

    #[test]
    fn the_cached_data_set_is_the_data_set_the_files_give() {
        let cache = temp_cache("same");
        let files = DataFiles::embedded();
        let loaded = files.load().unwrap();
        let first = files.load_cached(&cache).unwrap();
        let key = files.cache_key().unwrap();
        let cached = read_cache(&cache, &key).expect("the cache was written and reads back");
        assert_same(&loaded, &first);
        assert_same(&loaded, &cached);
        assert_same(&loaded, &files.load_cached(&cache).unwrap());
        assert!(!part_path(&cache).exists());
        let _ = std::fs::remove_dir_all(cache.parent().unwrap());
    }

    #[test]
    fn a_damaged_or_cut_short_cache_is_not_used_and_is_written_again() {
        let cache = temp_cache("damaged");
        let files = DataFiles::embedded();
        let key = files.cache_key().unwrap();
        files.load_cached(&cache).unwrap();
        let whole = std::fs::read(&cache).unwrap();
        let mut flipped = whole.clone();
        let last = flipped.len() - 1;
        flipped[last] ^= 1;
        for bad in [flipped, whole[..whole.len() / 2].to_vec(), Vec::new()] {
            std::fs::write(&cache, &bad).unwrap();
            assert!(read_cache(&cache, &key).is_none());
            assert_same(&files.load().unwrap(), &files.load_cached(&cache).unwrap());
            assert_eq!(std::fs::read(&cache).unwrap(), whole);
        }
        let _ = std::fs::remove_dir_all(cache.parent().unwrap());
    }

    #[test]
    fn a_cache_of_other_files_is_not_used_and_their_errors_name_file_and_line() {
        let cache = temp_cache("stale");
        let files = DataFiles::embedded();
        files.load_cached(&cache).unwrap();
        let mut changed = files.clone();
        let good = "movement: 6, counters: 35";
        assert!(changed.units.text.contains(good));
        changed.units.text = changed
            .units
            .text
            .replacen(good, "movement: six, counters: 35", 1);
        assert_ne!(changed.cache_key(), files.cache_key());
        let err = changed.load_cached(&cache).unwrap_err();
        let d = &err.0[0];
        assert_eq!(d.file, "scenarios/units.ron");
        assert!(d.line.is_some(), "{err}");
        // The cache of the good files is still there, and still theirs.
        assert!(read_cache(&cache, &files.cache_key().unwrap()).is_some());
        let _ = std::fs::remove_dir_all(cache.parent().unwrap());
    }
}
