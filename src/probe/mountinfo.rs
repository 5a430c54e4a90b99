//! `/proc/self/mountinfo`: which mount holds a path, and with which options.
//!
//! Parsing takes text, never a path, so it is tested without files. The lookup is the
//! spec's fallback rule: the longest mount point that is a path
//! prefix of the (absolute, normalised) path, the **last** line winning among equal
//! mount points because later lines over-mount earlier ones. It never touches the real
//! filesystem, which is what makes `--root` fixtures work for paths that only exist on
//! the recorded machine.

use serde::{Deserialize, Serialize};

/// One mountinfo line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mount {
    /// Mount ID (field 1).
    pub id: u64,
    /// Parent mount ID (field 2).
    pub parent: u64,
    /// Device number of the superblock (field 3).
    pub major: u64,
    /// Minor device number (field 3).
    pub minor: u64,
    /// Path inside the filesystem mounted here (field 4; ≠ `/` for bind mounts).
    pub fs_root: String,
    /// Mount point, octal escapes decoded (field 5).
    pub mount_point: String,
    /// Per-mount options (field 6): `rw`, `relatime`, `nosuid` …
    pub mount_options: String,
    /// Filesystem type after the `-` separator (`ext4`, `xfs`, `fuse.sshfs` …).
    pub fs_type: String,
    /// Mount source (`/dev/nvme0n1p1`, `server:/export`, `tmpfs` …).
    pub source: String,
    /// Filesystem (super block) options.
    pub super_options: String,
}

impl Mount {
    /// Whether `name` (or `name=…`) appears in either option field.
    pub fn has_option(&self, name: &str) -> bool {
        self.option(name).is_some()
    }

    /// Value of option `name` from either field: `Some("")` for a bare flag,
    /// `Some(v)` for `name=v`, super options first.
    pub fn option(&self, name: &str) -> Option<&str> {
        self.super_options
            .split(',')
            .chain(self.mount_options.split(','))
            .find_map(|o| {
                if o == name {
                    Some("")
                } else {
                    o.strip_prefix(name)?.strip_prefix('=')
                }
            })
    }
}

/// Decode mountinfo's octal escapes (`\040` space, `\011` tab, `\012` newline, `\134`
/// backslash). A malformed escape is kept literally.
pub fn unescape(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && i + 3 < b.len() {
            let oct = &b[i + 1..i + 4];
            if oct.iter().all(|c| (b'0'..=b'7').contains(c)) {
                let v = u32::from(oct[0] - b'0') * 64
                    + u32::from(oct[1] - b'0') * 8
                    + u32::from(oct[2] - b'0');
                if let Ok(v) = u8::try_from(v) {
                    out.push(v);
                    i += 4;
                    continue;
                }
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Parse `MAJ:MIN`.
pub fn parse_majmin(s: &str) -> Option<(u64, u64)> {
    let (a, b) = s.trim().split_once(':')?;
    Some((a.parse().ok()?, b.parse().ok()?))
}

/// Parse one mountinfo line; `None` for a malformed line.
pub fn parse_line(line: &str) -> Option<Mount> {
    let f: Vec<&str> = line.split_whitespace().collect();
    let sep = f.iter().position(|x| *x == "-")?;
    if sep < 6 || f.len() < sep + 3 {
        return None;
    }
    let (major, minor) = parse_majmin(f[2])?;
    Some(Mount {
        id: f[0].parse().ok()?,
        parent: f[1].parse().ok()?,
        major,
        minor,
        fs_root: unescape(f[3]),
        mount_point: unescape(f[4]),
        mount_options: f[5].to_string(),
        fs_type: f[sep + 1].to_string(),
        source: unescape(f[sep + 2]),
        super_options: f.get(sep + 3).copied().unwrap_or("").to_string(),
    })
}

/// Parse the whole file, skipping malformed lines.
pub fn parse(text: &str) -> Vec<Mount> {
    text.lines().filter_map(parse_line).collect()
}

/// Lexically normalise an absolute path: collapse `//`, `.` and `..` (never above `/`).
pub fn normalize(path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for c in path.split('/') {
        match c {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            c => parts.push(c),
        }
    }
    format!("/{}", parts.join("/"))
}

/// Whether mount point `mp` is `path` or one of its ancestors.
fn is_prefix(mp: &str, path: &str) -> bool {
    mp == "/"
        || path == mp
        || (path.starts_with(mp) && path.as_bytes().get(mp.len()) == Some(&b'/'))
}

/// The mount holding absolute `path`: longest prefix mount point, last line wins.
pub fn find<'m>(mounts: &'m [Mount], path: &str) -> Option<&'m Mount> {
    let path = normalize(path);
    let mut best: Option<&Mount> = None;
    for m in mounts {
        let mp = normalize(&m.mount_point);
        if !is_prefix(&mp, &path) {
            continue;
        }
        match best {
            Some(b) if normalize(&b.mount_point).len() > mp.len() => {}
            _ => best = Some(m),
        }
    }
    best
}

/// The mount whose superblock is `major:minor` (last line wins), for device nodes.
pub fn find_by_dev(mounts: &[Mount], major: u64, minor: u64) -> Option<&Mount> {
    mounts
        .iter()
        .filter(|m| m.major == major && m.minor == minor)
        .min_by_key(|m| m.mount_point.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "25 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw,errors=remount-ro
29 25 259:1 / /data rw,relatime shared:2 - ext4 /dev/nvme0n1p1 rw
30 25 0:40 / /data2 rw - tmpfs tmpfs rw
31 25 0:41 / /sp\\040ace rw,noatime master:3 propagate_from:2 - xfs /dev/x\\134y rw,sunit=1024
32 29 259:3 / /data rw - xfs /dev/nvme1n1 rw
garbage line
";

    #[test]
    fn parses_fields_escapes_and_optional_fields() {
        let m = parse(TEXT);
        assert_eq!(m.len(), 5);
        assert_eq!(m[1].id, 29);
        assert_eq!((m[1].major, m[1].minor), (259, 1));
        assert_eq!(m[1].fs_type, "ext4");
        assert_eq!(m[1].source, "/dev/nvme0n1p1");
        assert_eq!(m[3].mount_point, "/sp ace");
        assert_eq!(m[3].source, "/dev/x\\y");
        assert_eq!(m[3].option("sunit"), Some("1024"));
        assert!(m[3].has_option("noatime"));
        assert!(!m[3].has_option("sync"));
        assert_eq!(unescape("a\\011b\\012c\\9"), "a\tb\nc\\9");
        assert_eq!(unescape("\\"), "\\");
    }

    #[test]
    fn longest_prefix_and_last_line_wins() {
        let m = parse(TEXT);
        assert_eq!(find(&m, "/data/x").unwrap().id, 32); // over-mount
        assert_eq!(find(&m, "/data2/x").unwrap().id, 30);
        assert_eq!(find(&m, "/datax").unwrap().id, 25);
        assert_eq!(find(&m, "/sp ace/f").unwrap().id, 31);
        assert_eq!(find(&m, "/data/../etc").unwrap().id, 25);
        assert_eq!(find(&[], "/"), None);
        assert_eq!(find_by_dev(&m, 259, 1).unwrap().id, 29);
    }
}
