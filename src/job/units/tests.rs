//! Edge cases of every dialect of [`crate::job::units`]: suffix case, `i`, `b`,
//! overflow, fractions, empty and negative values, one table per dialect.

use super::*;

const KI: u64 = 1 << 10;
const MI: u64 = 1 << 20;
const GI: u64 = 1 << 30;

// ---- sysbench ----------------------------------------------------------------------

#[test]
fn sysbench_int_follows_strtol_with_full_match() {
    for (s, want) in [
        ("128", Some(128)),
        (" +7", Some(7)),
        ("-1", Some(-1)),
        ("", Some(0)),
        ("abc", None),
        ("12x", None),
        ("2147483647", Some(i32::MAX)),
        ("2147483648", None),
        ("-2147483648", Some(i32::MIN)),
        ("-2147483649", None),
        ("99999999999999999999", None),
        ("+", None),
        (" ", None),
        ("1.5", None),
        ("4k", None),
        ("7 ", None),
    ] {
        assert_eq!(sysbench_int(s), want, "{s:?}");
    }
}

#[test]
fn sysbench_size_matches_sysbench_table() {
    for (s, want) in [
        ("2G", 2 * GI),
        ("2g", 2 * GI),
        ("64MB", 64 * MI),
        ("64Mfoo", 64 * MI),
        ("64MiB", 64 * MI),
        ("4Ki", 4 * KI),
        ("16k", 16 * KI),
        ("1t", 1 << 40),
        ("1000", 1000),
        ("99999999999999999999999T", u64::MAX),
        ("18446744073709551615", u64::MAX),
        ("99999999999999999999", u64::MAX),
    ] {
        assert_eq!(sysbench_size(s), want, "{s:?}");
    }
    // everything sysbench reads as 0: fractions, a sign, blanks, bytes suffix, P, hex
    for zero in [
        "1.5G", "0x10", "64 M", "1P", "-1", "+64M", "abc", "", "4b", "4B", " 4k",
    ] {
        assert_eq!(sysbench_size(zero), 0, "{zero:?}");
        assert_eq!(size_as_typed(zero), None, "{zero:?}");
    }
}

/// A size as typed means what sysbench's would without its limits: the same value where
/// sysbench's fits, the whole value where it saturates, none where sysbench reads 0 for
/// text that is no size.
#[test]
fn size_as_typed_is_sysbench_size_without_its_limits() {
    for s in [
        "2G",
        "64Mfoo",
        "16k",
        "1t",
        "1000",
        "0",
        "0K",
        "18446744073709551615",
    ] {
        assert_eq!(
            size_as_typed(s),
            Some(u128::from(sysbench_size(s))),
            "{s:?}"
        );
    }
    assert_eq!(
        size_as_typed("99999999999999999999"),
        Some(99999999999999999999)
    );
    assert_eq!(size_as_typed("16777216T"), Some(1 << 64));
    assert_eq!(size_as_typed(&"9".repeat(50)), Some(u128::MAX));
    for none in ["12Q", "+1", "1.5K", "Q"] {
        assert_eq!(size_as_typed(none), None, "{none:?}");
    }
}

#[test]
fn sysbench_ratio_rejects_garbage_and_nan() {
    for (s, want) in [
        ("1.5", Some(1.5)),
        (" 2 ", Some(2.0)),
        ("inf", Some(f64::INFINITY)),
        ("-1", Some(-1.0)),
        ("1e3", Some(1000.0)),
        ("abc", None),
        ("2x", None),
        ("nan", None),
        ("", None),
    ] {
        assert_eq!(sysbench_ratio(s), want, "{s:?}");
    }
}

#[test]
fn sysbench_bool_words_are_exact() {
    for (v, want) in [
        (None, Some(true)),
        (Some("on"), Some(true)),
        (Some("true"), Some(true)),
        (Some("1"), Some(true)),
        (Some("off"), Some(false)),
        (Some("false"), Some(false)),
        (Some("0"), Some(false)),
        (Some("ON"), None),
        (Some("yes"), None),
        (Some(" on"), None),
        (Some(""), None),
    ] {
        assert_eq!(sysbench_bool(v), want, "{v:?}");
    }
}

#[test]
fn g_format_matches_c() {
    assert_eq!(fmt_g(512.0, 5), "512");
    assert_eq!(fmt_g(3.333333333, 5), "3.3333");
    assert_eq!(fmt_g(78.125, 5), "78.125");
    assert_eq!(fmt_g(4.8828125, 5), "4.8828");
    assert_eq!(fmt_g(1000.0, 5), "1000");
    assert_eq!(fmt_g(123456.0, 5), "1.2346e+05");
    assert_eq!(fmt_g(0.0001, 5), "0.0001");
    assert_eq!(fmt_g(0.00001, 5), "1e-05");
    assert_eq!(fmt_g(-2.5, 5), "-2.5");
}

#[test]
fn sysbench_human_sizes_match_sysbench_transcripts() {
    assert_eq!(sysbench_human_size(524288.0), "512Ki");
    assert_eq!(sysbench_human_size(16384.0), "16Ki");
    assert_eq!(sysbench_human_size(67108864.0), "64Mi");
    assert_eq!(sysbench_human_size(10485760.0 / 3.0), "3.3333Mi");
    assert_eq!(sysbench_human_size(1000.0), "1000");
    assert_eq!(sysbench_human_size(0.0), "0");
    assert_eq!(sysbench_human_size(5e12 / 1.024), "4.4409Ti");
    assert_eq!(sysbench_human_size((1u64 << 50) as f64), "1Pi");
}

// ---- fio ----------------------------------------------------------------------------

/// fio 3.33's reading of every size suffix under both `kb_base` values, as
/// /usr/bin/fio prints it: `fio --name=a --ioengine=null --kb_base=KB --bs=4SUFFIX
/// --size=64m --rw=read --filename=nf` shows `bs=(R) 4096B-4096B` in its first line
/// (tests/it/fio_compat/units.rs runs the same grid against the installed fio). The
/// rule (parse.c `__get_mult_bytes`): `kib`/`mib`/… are the other base than kb_base;
/// otherwise the suffix's first letter is a power of kb_base, whatever follows.
pub(crate) const FIO_SUFFIX_GRID: &[(&str, u64, u64)] = &[
    // suffix, bytes with kb_base=1024, bytes with kb_base=1000 (of `4SUFFIX`)
    ("", 4, 4),
    ("b", 4, 4),
    ("B", 4, 4),
    ("k", 4096, 4000),
    ("K", 4096, 4000),
    ("ki", 4096, 4000),
    ("Ki", 4096, 4000),
    ("KI", 4096, 4000),
    ("kb", 4096, 4000),
    ("kB", 4096, 4000),
    ("Kb", 4096, 4000),
    ("KB", 4096, 4000),
    ("kib", 4000, 4096),
    ("KiB", 4000, 4096),
    ("KIB", 4000, 4096),
    ("kk", 4096, 4000),
    ("KK", 4096, 4000),
    ("kK", 4096, 4000),
    ("kik", 4096, 4000),
    ("kbk", 4096, 4000),
    ("kibx", 4000, 4096),
    ("m", 4 << 20, 4_000_000),
    ("M", 4 << 20, 4_000_000),
    ("Mi", 4 << 20, 4_000_000),
    ("MB", 4 << 20, 4_000_000),
    ("mb", 4 << 20, 4_000_000),
    ("mm", 4 << 20, 4_000_000),
    ("mk", 4 << 20, 4_000_000),
    ("MiB", 4_000_000, 4 << 20),
    ("bk", 4, 4),
];

#[test]
fn fio_suffixes_read_as_fio_3_33_reads_them() {
    for &(suf, k1024, k1000) in FIO_SUFFIX_GRID {
        let s = format!("4{suf}");
        assert_eq!(fio_size(&s, 1024), Ok(k1024), "{s:?} kb_base=1024");
        assert_eq!(fio_size(&s, 1000), Ok(k1000), "{s:?} kb_base=1000");
    }
    // `16kk` (the case) and a doubled suffix on another unit
    assert_eq!(fio_size("16kk", 1024), Ok(16 * KI));
    assert_eq!(fio_size("1km", 1024), Ok(KI));
}

#[test]
fn fio_sizes_follow_kb_base() {
    for (s, kb, want) in [
        ("4k", 1024, 4 * KI),
        ("4K", 1024, 4 * KI),
        ("4kb", 1024, 4 * KI),
        ("4KB", 1024, 4 * KI),
        ("4KiB", 1024, 4000),
        ("4ki", 1024, 4 * KI),
        ("4KiB", 1000, 4 * KI),
        ("4k", 1000, 4000),
        ("4kb", 1000, 4000),
        ("1m", 1024, MI),
        ("1g", 1024, GI),
        ("1t", 1024, 1 << 40),
        ("1p", 1024, 1 << 50),
        ("1PiB", 1024, 1_000_000_000_000_000),
        ("512", 1024, 512),
        ("512b", 1024, 512),
        ("512B", 1024, 512),
        (" 8k ", 1024, 8 * KI),
        ("8 k", 1024, 8 * KI),
        ("0x1000", 1024, 4096),
        ("0X10", 1024, 16),
        ("1.5k", 1024, 1536),
        ("0.5m", 1000, 500_000),
        ("0", 1024, 0),
        ("16383p", 1024, 16383 << 50),
    ] {
        assert_eq!(fio_size(s, kb), Ok(want), "{s:?} kb_base={kb}");
    }
    for (s, why) in [
        ("", "empty size"),
        ("  ", "empty size"),
        ("-1", "does not start with a number"),
        ("k", "does not start with a number"),
        ("4q", "unknown unit 'q'"),
        ("4e", "unknown unit"),
        ("4x", "unknown unit 'x'"),
        ("4ib", "unknown unit"),
        ("0xzz", "is not a hex number"),
        ("99999999999999999999", "is too large"),
        ("16384p", "too large"),
        ("1.2.3", "is not a number"),
        ("99999999999999999999.5p", "too large"),
    ] {
        let e = fio_size(s, 1024).unwrap_err();
        assert!(e.contains(why), "{s:?}: {e}");
    }
}

#[test]
fn fio_ranges_order_their_ends() {
    assert_eq!(fio_range("4k-16k", 1024), Ok((4 * KI, 16 * KI)));
    assert_eq!(fio_range("16k:4k", 1024), Ok((4 * KI, 16 * KI)));
    assert_eq!(fio_range("8k", 1024), Ok((8 * KI, 8 * KI)));
    assert!(fio_range("4k-", 1024).is_err());
    assert!(fio_range("-4k", 1024).is_err());
    assert!(fio_range("", 1024).is_err());
}

#[test]
fn fio_times() {
    let s = 1_000_000_000;
    for (v, unit, want) in [
        ("10", s, Duration::from_secs(10)),
        ("10s", s, Duration::from_secs(10)),
        ("10S", s, Duration::from_secs(10)),
        ("500ms", s, Duration::from_millis(500)),
        ("500MSEC", s, Duration::from_millis(500)),
        ("1m", s, Duration::from_secs(60)),
        ("1min", s, Duration::from_secs(60)),
        ("2h", s, Duration::from_secs(7200)),
        ("1d", s, Duration::from_secs(86_400)),
        ("7us", s, Duration::from_micros(7)),
        ("7", 1_000, Duration::from_micros(7)),
        ("9ns", 1, Duration::from_nanos(9)),
        ("0", s, Duration::ZERO),
        (" 3 ", s, Duration::from_secs(3)),
    ] {
        assert_eq!(fio_time(v, unit), Ok(want), "{v:?}");
    }
    for (v, why) in [
        ("1y", "unknown time unit 'y'"),
        ("5q", "ns, us, ms"),
        ("", "is not a time"),
        ("-1", "is not a time"),
        ("s", "is not a time"),
        ("99999999999999999999", "is not a time"),
        ("999999999999d", "too large"),
    ] {
        let e = fio_time(v, s).unwrap_err();
        assert!(e.contains(why), "{v:?}: {e}");
    }
}

#[test]
fn fio_fractional_times_are_refused_with_the_same_time_in_a_smaller_unit() {
    let s = 1_000_000_000;
    let hint = |v: &str, unit: u64| fio_time(v, unit).unwrap_err();
    let with = |h: &str| format!("fractions are not accepted; use a smaller unit such as {h}");
    assert_eq!(hint("0.5", s), with("500ms"));
    assert_eq!(hint("1.5", s), with("1500ms"));
    assert_eq!(hint("0.25s", s), with("250ms"));
    assert_eq!(hint("1.5ms", s), with("1500us"));
    assert_eq!(hint("1.5msec", s), with("1500us"));
    assert_eq!(hint("0.5m", s), with("30s"));
    assert_eq!(hint("2.5", 1_000_000), with("2500us"));
    assert_eq!(hint("0.0001", s), with("100us"));
    // nothing smaller than ns, and too many digits: the generic hint
    for v in ["1.5ns", "0.1234567891", "1.5x"] {
        let e = hint(v, s);
        assert!(
            e.starts_with("fractions are not accepted; use a smaller unit ("),
            "{v}: {e}"
        );
    }
}

#[test]
fn fio_bssplit_weights() {
    assert_eq!(
        fio_bssplit("4k/10:64k/50:32k/40", 1024),
        Ok(vec![(4 * KI, 10), (64 * KI, 50), (32 * KI, 40)])
    );
    // sizes without a weight each get (100 - sum) / n, truncated
    assert_eq!(
        fio_bssplit("4k/50:8k/:16k", 1024),
        Ok(vec![(4 * KI, 50), (8 * KI, 25), (16 * KI, 25)])
    );
    assert_eq!(
        fio_bssplit("4k:8k:16k", 1024),
        Ok(vec![(4 * KI, 33), (8 * KI, 33), (16 * KI, 33)])
    );
    assert_eq!(fio_bssplit("4KiB/100", 1024), Ok(vec![(4000, 100)]));
    // weights need not sum to 100 (fio 3.33 runs these)
    assert_eq!(
        fio_bssplit("4k/60:8k/60", 1024),
        Ok(vec![(4 * KI, 60), (8 * KI, 60)])
    );
    assert_eq!(fio_bssplit("4k/60", 1024), Ok(vec![(4 * KI, 60)]));
    // one size left over a sum above 100: (100 - 120) in 32 bits
    assert_eq!(
        fio_bssplit("4k/60:8k/60:16k", 1024),
        Ok(vec![
            (4 * KI, 60),
            (8 * KI, 60),
            (16 * KI, 100u32.wrapping_sub(120))
        ])
    );
    assert_eq!(
        fio_bssplit("4k/60:8k/60:16k:32k", 1024),
        Err(BssplitError::Over(120))
    );
    // a weight is atoi's: junk and 0 are none, negative or above 100 is 100
    assert_eq!(
        fio_bssplit("8k/1.5:16k/-5:32k/250", 1024),
        Ok(vec![(8 * KI, 1), (16 * KI, 100), (32 * KI, 100)])
    );
    assert_eq!(
        fio_bssplit("4k/abc:8k/", 1024),
        Ok(vec![(4 * KI, 50), (8 * KI, 50)])
    );
    // an empty entry ends the list
    assert_eq!(fio_bssplit("4k/50::8k/50", 1024), Ok(vec![(4 * KI, 50)]));
    // no entry (the first is empty): no split, as fio keeps the direction's sizes
    for none in ["", ":", "::", ":4k/50", ":8k/50:4k/50"] {
        assert_eq!(fio_bssplit(none, 1024), Ok(vec![]), "{none:?}");
    }
    for bad in ["0/100", "4q/100"] {
        assert!(
            matches!(fio_bssplit(bad, 1024), Err(BssplitError::Syntax(_))),
            "{bad:?}"
        );
    }
}

#[test]
fn c_strtol_reads_as_glibc() {
    for (s, want) in [
        ("12", 12),
        ("  -7x", -7),
        ("+3", 3),
        ("abc", 0),
        ("", 0),
        ("99999999999999999999", i64::MAX),
        ("-99999999999999999999", i64::MIN),
    ] {
        assert_eq!(c_strtol(s), want, "{s:?}");
    }
}

/// fio's reading of a boolean's value (parse.c `check_int`, checked with `fio
/// --debug=parse`, which prints what it stores): any number, its digits from the start,
/// `%x` when `0x` is anywhere, stored in a C `int`.
#[test]
fn fio_bool_reads_a_number_as_fio() {
    for (v, want) in [
        ("1", Some(1)),
        ("0", Some(0)),
        ("50", Some(50)),
        (" +5", Some(5)),
        ("-3", Some(-3)),
        ("1k", Some(1)),
        ("1.5", Some(1)),
        ("1e3", Some(1)),
        ("0x10", Some(16)),
        ("0X1F", Some(31)),
        ("0x", Some(0)),
        ("0xg", Some(0)),
        ("-0x5", Some(-5)),
        ("7abc0x", Some(0x7abc0)),
        ("1 0x", Some(1)),
        ("4294967295", Some(-1)),
        ("4294967296", Some(0)),
        ("4294967298", Some(2)),
        ("-4294967297", Some(-1)),
        ("99999999999999999999999", Some(-1)),
        ("yes", None),
        ("x0x1", None),
        ("", None),
        (" ", None),
        ("-", None),
    ] {
        assert_eq!(fio_check_int(v), want, "{v:?}");
    }
    assert_eq!(fio_bool(None), Some(true));
    assert_eq!(fio_bool(Some("50")), Some(true));
    assert_eq!(fio_bool(Some("4294967296")), Some(false));
    assert_eq!(fio_bool(Some("true")), None);
}

#[test]
fn iomark_switch_words() {
    for (v, want) in [
        (None, Some(true)),
        (Some("1"), Some(true)),
        (Some(" yes "), Some(true)),
        (Some("on"), Some(true)),
        (Some("true"), Some(true)),
        (Some("0"), Some(false)),
        (Some("no"), Some(false)),
        (Some("off"), Some(false)),
        (Some("false"), Some(false)),
        (Some("ON"), None),
        (Some("2"), None),
        (Some(""), None),
        (Some("-1"), None),
    ] {
        assert_eq!(iomark_switch(v), want, "{v:?}");
    }
}

#[test]
fn fio_report_sizes_are_all_binary() {
    for (s, want) in [
        ("64.0KiB", Some(64 * KI)),
        ("4096B", Some(4096)),
        ("4k", Some(4 * KI)),
        ("4K", Some(4 * KI)),
        ("4kB", Some(4 * KI)),
        ("1m", Some(MI)),
        ("8192KiB", Some(8 * MI)),
        ("1.5g", Some(3 * GI / 2)),
        ("2t", Some(2 << 40)),
        ("512", Some(512)),
        ("x", None),
        ("", None),
        ("-1k", None),
        ("4p", None),
        ("1e30", None),
    ] {
        assert_eq!(fio_report_size(s), want, "{s:?}");
    }
    assert_eq!(fio_report_size("1e30k"), None);
    assert_eq!(fio_report_size("99999999999999999999999t"), Some(u64::MAX));
}

// ---- iomark's own --------------------------------------------------------------------

#[test]
fn iomark_sizes_binary_and_decimal() {
    for (s, want) in [
        ("64M", 64 * MI),
        ("64m", 64 * MI),
        ("64MiB", 64 * MI),
        ("64miB", 64 * MI),
        ("64MB", 64_000_000),
        ("64mB", 64_000_000),
        ("1.5G", 3 << 29),
        ("150GB", 150_000_000_000),
        ("4096", 4096),
        ("4096B", 4096),
        (" 4K ", 4 * KI),
        ("4 K", 4 * KI),
        ("2.0", 2),
        ("1.5K", 1536),
        ("0.5KB", 500),
        ("0", 0),
        ("1T", 1 << 40),
        ("1TB", 1_000_000_000_000),
    ] {
        assert_eq!(iomark_size(s), Ok(want), "{s:?}");
    }
    for (s, why) in [
        ("4X", "unknown size unit"),
        ("4Ki", "unknown size unit"),
        ("4P", "unknown size unit"),
        ("abc", "not a size"),
        ("", "not a size"),
        ("-5", "not a size"),
        ("1e30", "unknown size unit"),
        ("1.5", "not a whole number of bytes"),
        ("99999999999T", "too large"),
        ("18446744073709551616", "too large"),
        ("99999999.5T", "too large"),
        ("1.2.3K", "not a size"),
        // a lower-case b reads as bits — refused, never silently bytes
        ("1.5Gb", "lower-case 'b' means bits"),
        ("10mb", "lower-case 'b' means bits"),
        ("64mib", "lower-case 'b' means bits"),
        ("4096b", "lower-case 'b' means bits"),
        ("1 kb", "lower-case 'b' means bits"),
    ] {
        let e = iomark_size(s).unwrap_err();
        assert!(e.contains(why), "{s:?}: {e}");
    }
}

#[test]
fn iomark_positive_sizes_refuse_zero() {
    assert_eq!(iomark_positive_size("16k", "the size"), Ok(16 * KI));
    assert_eq!(
        iomark_positive_size("0", "the size"),
        Err("'0': the size must be greater than 0".into())
    );
    assert_eq!(
        iomark_positive_size("0M", "the working set"),
        Err("'0M': the working set must be greater than 0".into())
    );
    assert!(iomark_positive_size("x", "the size")
        .unwrap_err()
        .contains("not a size"));
}

#[test]
fn iomark_counts() {
    let p = iomark_count(1, 100, "");
    assert_eq!(p("1"), Ok(1));
    assert_eq!(p("+100"), Ok(100));
    assert_eq!(p("007"), Ok(7));
    for bad in [
        "-5",
        "abc",
        "",
        "+",
        "1.5",
        "0",
        "101",
        "1e3",
        " 5",
        "5 ",
        "4k",
        "99999999999999999999999",
    ] {
        assert_eq!(
            p(bad).unwrap_err(),
            "expected a whole number from 1 to 100",
            "{bad:?}"
        );
    }
    assert_eq!(
        iomark_count(0, u64::MAX, "seconds")("x").unwrap_err(),
        "expected a whole number of seconds ≥ 0"
    );
    let q = iomark_count_u32(0, u32::MAX, "");
    assert_eq!(q("4294967295"), Ok(u32::MAX));
    assert!(q("4294967296")
        .unwrap_err()
        .contains("from 0 to 4294967295"));
}

#[test]
fn iomark_bandwidths() {
    for (s, want) in [
        ("3000", 3000.0),
        ("3000MB/s", 3000.0),
        ("3000mb/s", 3000.0),
        ("3000MB", 3000.0),
        ("450 MB/s", 450.0),
        ("3GB/s", 3000.0),
        ("3.5gb/s", 3500.0),
        ("0.5", 0.5),
    ] {
        assert_eq!(iomark_mb_s(s), Ok(want), "{s:?}");
    }
    for bad in ["fast", "-1", "0", "", "3TB/s", "inf", "nan", "3MiB/s"] {
        assert!(
            iomark_mb_s(bad).unwrap_err().contains("not a bandwidth"),
            "{bad:?}"
        );
    }
}

#[test]
fn iomark_spin_times() {
    for (s, want) in [
        ("5us", 5_000),
        ("5US", 5_000),
        ("800ns", 800),
        ("1.5us", 1_500),
        ("1.0004us", 1_000),
        ("7", 7_000),
        ("0", 0),
        ("1ms", 1_000_000),
        ("0.001s", 1_000_000),
        (" 2usec ", 2_000),
    ] {
        assert_eq!(iomark_spin_ns(s), Ok(want), "{s:?}");
    }
    for bad in [
        "10s", "2ms", "abc", "5q", "1001us", "", "-1us", "1e3ns", "5 m",
    ] {
        assert!(
            iomark_spin_ns(bad)
                .unwrap_err()
                .starts_with("a time up to 1ms"),
            "{bad:?}"
        );
    }
}

/// fio 3.33's str_to_decimal on the start of a value: blanks, sign, base 16 when `0x`
/// stands anywhere, the unit letters right after the leading decimal digits (by their
/// start, in kb_base), and what is left.
#[test]
fn fio_numbers_as_str_to_decimal_reads_them() {
    let read = |s| {
        let r = fio_number(s, 1024).unwrap();
        (r.n, r.letters, r.mult, r.rest, r.hex, r.value())
    };
    assert_eq!(read("  42"), (42, "", None, "", false, Some(42)));
    assert_eq!(read("+7"), (7, "", None, "", false, Some(7)));
    assert_eq!(read("-4k"), (-4, "k", Some(1024), "", false, Some(-4096)));
    assert_eq!(
        read("4k junk"),
        (4, "k", Some(1024), " junk", false, Some(4096))
    );
    assert_eq!(
        read("1MiB ?"),
        (1, "MiB", Some(1_000_000), " ?", false, Some(1_000_000))
    );
    assert_eq!(fio_number("1MiB", 1000).unwrap().value(), Some(1 << 20));
    assert_eq!(read("0x10"), (16, "x", None, "", true, Some(16)));
    assert_eq!(read("-0x10"), (-16, "x", None, "", true, Some(-16)));
    // `0x` anywhere: base 16 (fio reads `30 0x` as 0x30 and `30x` as 0x30)
    assert_eq!(read("30 0x"), (48, "", None, " 0x", true, Some(48)));
    assert_eq!(read("30x"), (48, "x", None, "x", true, Some(48)));
    assert_eq!(read("4q x"), (4, "q", None, " x", false, Some(4)));
    // a leading blank: no unit (fio's get_mult_bytes stops at the blank)
    assert_eq!(read(" 4k"), (4, "", None, "k", false, Some(4)));
    assert_eq!(fio_decimal(" 4k", 1024), Ok(4));
    assert_eq!(fio_decimal("4k", 1024), Ok(4096));
    assert!(fio_decimal(" (4k*2)", 1024).is_err());
    assert_eq!(fio_range(" 4k-8k", 1024), Ok((4, 8192)));
    assert_eq!(fio_range("4k- 8k", 1024), Ok((8, 4096)));
    assert_eq!(read("1.5k"), (1, "", None, ".5k", false, Some(1)));
    assert_eq!(
        read("8ex"),
        (8, "ex", None, "", false, Some(8)),
        "e names no unit"
    );
    for none in ["", "  ", "x1", "-", "k", "99999999999999999999"] {
        assert_eq!(fio_number(none, 1024), None, "{none:?}");
    }
    assert_eq!(fio_number("8p", 1024).unwrap().value(), Some(8 << 50));
    assert_eq!(fio_number("9000p", 1024).unwrap().value(), None, "overflow");
}

/// C's strtod as sysbench 1.0.20 reads `--file-rw-ratio` (glibc's answers, checked with
/// sysbench's own header line: `abc` 0.00, `2abc` 2.00, `0x10` 16.00, `1e400` inf,
/// `-abc` 0.00, `nan` nan).
#[test]
fn c_strtod_reads_the_leading_number_as_glibc() {
    let cases: [(&str, f64); 16] = [
        ("1.5", 1.5),
        ("abc", 0.0),
        ("", 0.0),
        ("2abc", 2.0),
        ("1.5x", 1.5),
        (" 2", 2.0),
        ("+3", 3.0),
        (".5", 0.5),
        ("5.", 5.0),
        ("1e-5", 1e-5),
        ("1e", 1.0),
        ("2e+x", 2.0),
        ("0x10", 16.0),
        ("0x1.8p1", 3.0),
        ("0x", 0.0),
        ("-1", -1.0),
    ];
    for (s, want) in cases {
        assert_eq!(c_strtod(s), want, "{s:?}");
    }
    assert_eq!(c_strtod("1e400"), f64::INFINITY);
    assert_eq!(c_strtod("-Infinity"), f64::NEG_INFINITY);
    assert!(c_strtod("nan").is_nan() && c_strtod("nan").is_sign_positive());
    assert!(c_strtod("-NaN").is_nan() && c_strtod("-NaN").is_sign_negative());
    // no number: 0, its sign not read
    assert!(c_strtod("-abc").is_sign_positive());
}

/// fio 3.33's reading of the letters after a time's digits ([`fio_time_lettered`]):
/// `us…`/`ms…` by their start, `s`/`m`/`h`/`d` as the whole word, any other letters µs.
#[test]
fn fio_time_lettered_reads_letters_as_fio() {
    let us = Duration::from_micros;
    for (v, want) in [
        ("4k", Some(us(4))),
        ("1x", Some(us(1))),
        ("2sec", Some(us(2))),
        ("3ns", Some(us(3))),
        ("5min", Some(us(5))),
        ("1s5", Some(us(1))),
        ("10ms", Some(us(10_000))),
        ("15msec", Some(us(15_000))),
        ("7usec", Some(us(7))),
        ("2S", Some(us(2_000_000))),
        ("1m", Some(us(60_000_000))),
        ("1h", Some(us(3_600_000_000))),
        ("1d", Some(us(86_400_000_000))),
        ("10", None),
        ("1.5s", None),
        ("0x10", None),
        ("-4k", None),
        (" 4k", None),
        ("k", None),
    ] {
        assert_eq!(fio_time_lettered(v), want, "{v:?}");
    }
}

/// `--status-interval` under the fio persona, as fio 3.33 read it side by side (a 2 s
/// time_based null job): `1x` and `1q` are 1 µs (`fio: status interval too small`, exit
/// 1), `1000q` 1 ms (1870 reports), `1000000q` 1 s (3 reports), `1000x` hexadecimal
/// 0x1000 µs (498 reports), `1000000x` 0x1000000 µs, 16.8 s (the final report only).
#[test]
fn cmdline_times_read_unknown_letters_and_hex_as_fio() {
    let us = |v: &str| fio_cmdline_time(v, 1_000_000).map(|d| d.as_micros());
    assert_eq!(us("1x"), Some(1));
    assert_eq!(us("1q"), Some(1));
    assert_eq!(us("1000q"), Some(1000));
    assert_eq!(us("1000000q"), Some(1_000_000));
    assert_eq!(us("1000x"), Some(0x1000));
    assert_eq!(us("1000000x"), Some(0x100_0000));
    assert_eq!(us("0x10"), Some(16));
    assert_eq!(us("2ms"), Some(2000));
    assert_eq!(us("abc"), None);
    assert_eq!(us("-1q"), None);
}
