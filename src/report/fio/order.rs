//! Writes the fio JSON document of `iomark run` with `job options` and `global options`
//! in the order the options were given, as fio 3.33 prints them (`--name=w` first for a
//! command-line job, a repeated option once per occurrence). The document is built as
//! a [`serde_json::Value`], whose objects keep their keys sorted; only these two objects
//! need another order, so they are written from the option lists by a thin wrapper
//! instead of switching every JSON object of the program to insertion order.

use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use serde_json::Value;

/// Options as written (`key`, `value`); those without a value are left out, as fio
/// 3.33 leaves out `time_based` or `norandommap`.
struct Opts<'a>(&'a [(String, String)]);

impl Serialize for Opts<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let kept = || self.0.iter().filter(|(_, v)| !v.is_empty());
        let mut m = s.serialize_map(Some(kept().count()))?;
        for (k, v) in kept() {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

/// One entry of `jobs`: the built object with its `job options` from `opts`.
struct Job<'a> {
    v: &'a Value,
    opts: Option<&'a [(String, String)]>,
}

impl Serialize for Job<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (Some(obj), Some(opts)) = (self.v.as_object(), self.opts) else {
            return self.v.serialize(s);
        };
        let mut m = s.serialize_map(Some(obj.len()))?;
        for (k, v) in obj {
            if k == "job options" {
                m.serialize_entry(k, &Opts(opts))?;
            } else {
                m.serialize_entry(k, v)?;
            }
        }
        m.end()
    }
}

struct Jobs<'a> {
    v: &'a [Value],
    opts: &'a [&'a [(String, String)]],
}

impl Serialize for Jobs<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut q = s.serialize_seq(Some(self.v.len()))?;
        for (i, v) in self.v.iter().enumerate() {
            q.serialize_element(&Job {
                v,
                opts: self.opts.get(i).copied(),
            })?;
        }
        q.end()
    }
}

/// The fio document `doc` (from [`crate::report::fio::json::document`]) with the options of
/// `doc["jobs"][i]` taken from `job_opts[i]` and `global options` from `global`, in
/// their given order.
pub struct FioDoc<'a> {
    /// the document as built (its option objects are replaced when written)
    pub doc: &'a Value,
    /// each job's options as written, in the order of `doc["jobs"]`
    pub job_opts: Vec<&'a [(String, String)]>,
    /// the global options as written
    pub global: &'a [(String, String)],
}

impl Serialize for FioDoc<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let Some(obj) = self.doc.as_object() else {
            return self.doc.serialize(s);
        };
        let mut m = s.serialize_map(Some(obj.len()))?;
        for (k, v) in obj {
            match (k.as_str(), v.as_array()) {
                ("jobs", Some(a)) => m.serialize_entry(
                    k,
                    &Jobs {
                        v: a,
                        opts: &self.job_opts,
                    },
                )?,
                ("global options", _) => m.serialize_entry(k, &Opts(self.global))?,
                _ => m.serialize_entry(k, v)?,
            }
        }
        m.end()
    }
}

/// Pretty-printed text of [`FioDoc`] (2-space indent, as `to_string_pretty`).
pub fn to_text(d: &FioDoc) -> serde_json::Result<String> {
    serde_json::to_string_pretty(d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn kv(v: &[(&str, &str)]) -> Vec<(String, String)> {
        v.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn options_keep_their_order_and_repeats() {
        let doc = json!({
            "fio version": "x",
            "global options": {"size": "1m", "ioengine": "null"},
            "jobs": [
                {"jobname": "w", "job options": {"bs": "8k", "name": "w", "rw": "read"}, "read": {"io_bytes": 1}},
            ],
        });
        let w = kv(&[
            ("name", "w"),
            ("rw", "read"),
            ("time_based", ""),
            ("bs", "4k"),
            ("bs", "8k"),
        ]);
        let g = kv(&[("size", "1m"), ("ioengine", "null")]);
        let t = to_text(&FioDoc {
            doc: &doc,
            job_opts: vec![&w],
            global: &g,
        })
        .unwrap();
        let opts = &t[t.find("\"job options\"").unwrap()..];
        let opts = &opts[..opts.find('}').unwrap()];
        let keys: Vec<&str> = opts
            .lines()
            .skip(1)
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect();
        // fio 3.33: `--name=w --rw=read --time_based --bs=4k --bs=8k`
        assert_eq!(
            keys,
            [
                "\"name\": \"w\",",
                "\"rw\": \"read\",",
                "\"bs\": \"4k\",",
                "\"bs\": \"8k\""
            ]
        );
        let glob = &t[t.find("\"global options\"").unwrap()..];
        assert!(
            glob.find("\"size\"").unwrap() < glob.find("\"ioengine\"").unwrap(),
            "{t}"
        );
        // everything else is the document as built
        let back: Value = serde_json::from_str(&t).unwrap();
        assert_eq!(back["jobs"][0]["read"], doc["jobs"][0]["read"]);
        assert_eq!(back["jobs"][0]["job options"]["bs"], "8k");
        assert_eq!(back["fio version"], "x");
    }
}
