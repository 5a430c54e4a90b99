//! fio's arithmetic in option values: a value that starts with `(` is an expression
//! (fio 3.33's exp/ parser, reached from parse.c's `str_to_decimal`), and a job-file
//! value in which `$pagesize`, `$mb_memory` or `$ncpus` was replaced is computed when
//! it holds `+ - * /` (fio hands that to bc(1); iomark evaluates it here, as integers).
//!
//! The grammar is fio's: numbers (whole, decimal, `0x` hex, `1e3`), units inside the
//! expression (`k`/`kb` 1024, `kib` 1000, `m` MiB or minutes in a time, `ms`, `us`,
//! `s`, `h`, `d`, …, whatever the job's `kb_base`), `+ - * / % ^`, unary `-` and
//! parentheses; blanks are ignored and a `#`, `:` or `,` ends the expression. fio's
//! precedence, lowest first: `+ -`, a unit, `* /`, `^` (right-associative), `%`, unary
//! `-` — so `8/2k` is `(8/2)k` and `7*5%3` is `7*(5%3)`, as in fio. Whole numbers stay
//! whole (`7/2` is 3); a decimal makes the operation floating. Division or modulo by
//! zero, overflow and bad text are errors (fio prints a parser message and refuses the
//! option too). Pure functions, no I/O.

/// A value of the expression: its whole and floating forms, as fio's parser keeps both.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Val {
    int: i64,
    float: f64,
    /// a decimal took part: the floating form is the value
    is_float: bool,
}

impl Val {
    fn int(i: i64) -> Val {
        Val {
            int: i,
            float: i as f64,
            is_float: false,
        }
    }
    fn float(f: f64) -> Val {
        Val {
            int: f as i64,
            float: f,
            is_float: true,
        }
    }
}

/// What an evaluated expression is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Outcome {
    /// the value as a whole number (a floating result truncated, as fio's)
    pub int: i64,
    /// the value as fio's floating form
    pub float: f64,
    /// a unit was written inside (then no implied unit applies)
    pub has_units: bool,
}

/// Whether `s` is written as one of fio's expressions (it starts with `(`).
pub fn is_expression(s: &str) -> bool {
    s.trim_start().starts_with('(')
}

/// Evaluate `s`; `time` reads `m` as minutes (a time option) instead of MiB. `Err`
/// says why in a few words.
pub fn eval(s: &str, time: bool) -> Result<Outcome, String> {
    let toks = lex(s, time)?;
    let mut p = Parser {
        toks: &toks,
        at: 0,
        has_units: false,
    };
    let v = p.expr(0)?;
    if p.at != toks.len() {
        return Err(format!(
            "unexpected {} in '{}'",
            toks[p.at].describe(),
            s.trim()
        ));
    }
    Ok(Outcome {
        int: v.int,
        float: v.float,
        has_units: p.has_units,
    })
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Tok {
    Num(Val),
    /// a unit: its multiplier (bytes, or µs in a time)
    Unit(Val),
    Op(u8),
}

impl Tok {
    fn describe(&self) -> String {
        match self {
            Tok::Num(v) if v.is_float => format!("number {}", v.float),
            Tok::Num(v) => format!("number {}", v.int),
            Tok::Unit(_) => "unit".into(),
            Tok::Op(c) => format!("'{}'", *c as char),
        }
    }
}

/// fio's expression units (exp/expression-parser.l), longest first: `(text, whole
/// multiplier, is a time unit)`. `m` is handled apart (MiB or minutes).
const UNITS: [(&str, i64, bool); 18] = [
    ("kib", 1000, false),
    ("mib", 1_000_000, false),
    ("gib", 1_000_000_000, false),
    ("pib", 1_000_000_000_000, false),
    ("kb", 1 << 10, false),
    ("mb", 1 << 20, false),
    ("gb", 1 << 30, false),
    ("tb", 1 << 40, false),
    ("pb", 1 << 50, false),
    ("ms", 1000, true),
    ("us", 1, true),
    ("k", 1 << 10, false),
    ("g", 1 << 30, false),
    ("t", 1 << 40, false),
    ("p", 1 << 50, false),
    ("s", 1_000_000, false),
    ("h", 3_600_000_000, false),
    ("d", 86_400_000_000, false),
];

fn lex(s: &str, time: bool) -> Result<Vec<Tok>, String> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        match c {
            b' ' | b'\t' => i += 1,
            // fio: a comment, and everything after a colon or a comma, is ignored
            b'#' | b':' | b',' => break,
            b'+' | b'-' | b'*' | b'/' | b'%' | b'^' | b'(' | b')' => {
                out.push(Tok::Op(c));
                i += 1;
            }
            b'0'..=b'9' | b'.' => {
                let (v, n) = number(&s[i..])?;
                out.push(Tok::Num(v));
                i += n;
            }
            c if c.is_ascii_alphabetic() => {
                let rest = s[i..].to_ascii_lowercase();
                let (v, n) = unit(&rest, time)
                    .ok_or_else(|| format!("unknown unit in '{}' (accepted: k, kb, kib, m, mb, mib, g, t, p, us, ms, s, h, d)", s.trim()))?;
                out.push(Tok::Unit(v));
                i += n;
            }
            _ => {
                return Err(format!(
                    "unexpected '{}' in '{}'",
                    &s[i..].chars().next().unwrap_or(' '),
                    s.trim()
                ))
            }
        }
    }
    Ok(out)
}

/// The unit at the start of `rest` (lower case) and its length.
fn unit(rest: &str, time: bool) -> Option<(Val, usize)> {
    let v = |m: i64, f: bool| if f { Val::float(m as f64) } else { Val::int(m) };
    if let Some(&(t, m, f)) = UNITS.iter().find(|u| rest.starts_with(u.0)) {
        return Some((v(m, f), t.len()));
    }
    if rest.starts_with('m') {
        return Some((Val::int(if time { 60_000_000 } else { 1 << 20 }), 1));
    }
    None
}

/// The number at the start of `s` and its length: `0x` hex, decimal or exponent forms
/// (floating), or a whole number.
fn number(s: &str) -> Result<(Val, usize), String> {
    let b = s.as_bytes();
    if let Some(hex) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        let n = hex.bytes().take_while(u8::is_ascii_hexdigit).count();
        let v =
            i64::from_str_radix(&hex[..n], 16).map_err(|_| format!("'{s}' is not a hex number"))?;
        return Ok((Val::int(v), 2 + n));
    }
    let mut n = b
        .iter()
        .take_while(|c| c.is_ascii_digit() || **c == b'.')
        .count();
    // an exponent: e, an optional sign, digits
    if matches!(b.get(n), Some(b'e' | b'E')) {
        let sign = usize::from(matches!(b.get(n + 1), Some(b'+' | b'-')));
        let digits = b[(n + 1 + sign).min(b.len())..]
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count();
        if digits > 0 {
            n += 1 + sign + digits;
        }
    }
    let text = &s[..n];
    if text.contains(['.', 'e', 'E']) {
        let f: f64 = text
            .parse()
            .map_err(|_| format!("'{text}' is not a number"))?;
        return Ok((Val::float(f), n));
    }
    let v: i64 = text.parse().map_err(|_| format!("'{text}' is too large"))?;
    Ok((Val::int(v), n))
}

/// Binding powers, fio's yacc precedence lowest first.
const ADD: u8 = 10;
const UNIT: u8 = 20;
const MUL: u8 = 30;
const POW: u8 = 40;
const MOD: u8 = 50;
const NEG: u8 = 60;

struct Parser<'a> {
    toks: &'a [Tok],
    at: usize,
    has_units: bool,
}

impl Parser<'_> {
    fn next(&mut self) -> Option<Tok> {
        let t = self.toks.get(self.at).copied();
        self.at += 1;
        t
    }

    /// An expression whose operators bind at least `min` (precedence climbing).
    fn expr(&mut self, min: u8) -> Result<Val, String> {
        let mut lhs = self.operand()?;
        while let Some(&t) = self.toks.get(self.at) {
            let (bp, right) = match t {
                Tok::Unit(u) if UNIT >= min => {
                    self.at += 1;
                    self.has_units = true;
                    lhs = arith(b'*', lhs, u)?;
                    continue;
                }
                Tok::Op(b'+' | b'-') => (ADD, false),
                Tok::Op(b'*' | b'/') => (MUL, false),
                Tok::Op(b'^') => (POW, true),
                Tok::Op(b'%') => (MOD, false),
                _ => break,
            };
            if bp < min {
                break;
            }
            self.at += 1;
            let rhs = self.expr(if right { bp } else { bp + 1 })?;
            let Tok::Op(op) = t else { break };
            lhs = arith(op, lhs, rhs)?;
        }
        Ok(lhs)
    }

    fn operand(&mut self) -> Result<Val, String> {
        match self.next() {
            Some(Tok::Num(v)) => Ok(v),
            Some(Tok::Op(b'-')) => {
                let v = self.expr(NEG)?;
                Ok(Val {
                    int: v.int.checked_neg().ok_or("too large")?,
                    float: -v.float,
                    is_float: v.is_float,
                })
            }
            Some(Tok::Op(b'(')) => {
                let v = self.expr(0)?;
                match self.next() {
                    Some(Tok::Op(b')')) => Ok(v),
                    Some(t) => Err(format!(
                        "unexpected {} (an operator is missing)",
                        t.describe()
                    )),
                    None => Err("a '(' without its ')'".into()),
                }
            }
            Some(t) => Err(format!("{} where a number belongs", t.describe())),
            None => Err("an operator without its number".into()),
        }
    }
}

/// `a OP b` as fio's parser computes it: whole numbers stay whole, a floating operand
/// makes the floating form the value; overflow is an error here.
fn arith(op: u8, a: Val, b: Val) -> Result<Val, String> {
    let float = a.is_float || b.is_float;
    let big = || "too large".to_string();
    if matches!(op, b'/' | b'%')
        && (if float {
            b.float.abs() < 1e-20
        } else {
            b.int == 0
        })
    {
        return Err("division by zero".into());
    }
    if float {
        let f = match op {
            b'+' => a.float + b.float,
            b'-' => a.float - b.float,
            b'*' => a.float * b.float,
            b'/' => a.float / b.float,
            b'^' => a.float.powf(b.float),
            _ => return Err("modulo of a decimal number".into()),
        };
        if !f.is_finite() || f.abs() >= i64::MAX as f64 {
            return Err(big());
        }
        return Ok(Val::float(f));
    }
    let (x, y) = (a.int, b.int);
    let v = match op {
        b'+' => x.checked_add(y),
        b'-' => x.checked_sub(y),
        b'*' => x.checked_mul(y),
        b'/' => x.checked_div(y),
        b'%' => x.checked_rem(y),
        _ if y < 0 => {
            // 2^-3: fio goes floating
            return Ok(Val::float((x as f64).powf(y as f64)));
        }
        _ => u32::try_from(y).ok().and_then(|e| x.checked_pow(e)),
    };
    v.map(Val::int).ok_or_else(big)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int(s: &str) -> i64 {
        eval(s, false).unwrap_or_else(|e| panic!("{s}: {e}")).int
    }

    #[test]
    fn precedence_is_fios() {
        assert_eq!(int("(1+2*3)"), 7);
        assert_eq!(int("((1+2)*3)"), 9);
        assert_eq!(int("(10-2-3)"), 5, "left-associative");
        assert_eq!(int("(64/4/2)"), 8);
        assert_eq!(int("(2^3^2)"), 512, "right-associative");
        assert_eq!(
            int("(7*5%3)"),
            14,
            "% binds tighter than * in fio's grammar"
        );
        assert_eq!(int("(-2^2)"), 4, "unary minus binds tightest");
        assert_eq!(int("(2*-3)"), -6);
        assert_eq!(int("(7/2)"), 3, "whole numbers stay whole");
        assert_eq!(int("(5*1024*1024*8000/8)"), 5_242_880_000);
    }

    #[test]
    fn units_inside_the_expression() {
        assert_eq!(int("(4k)"), 4096);
        assert_eq!(int("(2*4k)"), 8192);
        assert_eq!(int("(1+4k)"), 4097, "a unit binds tighter than +");
        assert_eq!(int("(8/2k)"), 4096, "and looser than /: (8/2)k");
        assert_eq!(int("(1m)"), 1 << 20);
        assert_eq!(
            int("(1KiB + 1kb)"),
            2024,
            "kib is 1000 in fio's expressions"
        );
        assert_eq!(
            eval("(1m)", true).unwrap().int,
            60_000_000,
            "minutes in a time"
        );
        assert_eq!(eval("(1s+500ms)", true).unwrap().int, 1_500_000);
        assert!(eval("(1s)", true).unwrap().has_units);
        assert!(!eval("(1+1)", false).unwrap().has_units);
        assert_eq!(int("(0x10*2)"), 32);
        assert_eq!(int("(1.5*1k)"), 1536);
        assert_eq!(int("(1e3)"), 1000);
        assert_eq!(int("(2^-1*4)"), 2);
        assert_eq!(int("(3*2) # six"), 6, "a comment ends it");
    }

    #[test]
    fn bad_expressions_are_refused_in_a_few_words() {
        for (s, why) in [
            ("(1/0)", "division by zero"),
            ("(1%0)", "division by zero"),
            ("(1.0/0)", "division by zero"),
            ("(1.5%2)", "modulo"),
            ("(1+2", "without its ')'"),
            ("(1+)", "where a number belongs"),
            ("(1 2)", "unexpected number"),
            ("(4q)", "unknown unit"),
            ("(9223372036854775807+1)", "too large"),
            ("(2^64)", "too large"),
            ("(1e300*1e300)", "too large"),
            ("(99999999999999999999)", "too large"),
            ("", "an operator without its number"),
            ("(1$2)", "unexpected '$'"),
        ] {
            let e = eval(s, false).unwrap_err();
            assert!(e.contains(why), "{s}: {e}");
        }
    }

    #[test]
    fn no_panic_on_any_input() {
        let alphabet = [
            "(", ")", "1", "0", ".", "e", "-", "+", "*", "/", "%", "^", "k", "m", "0x", "é", " ",
            "#",
        ];
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..20_000 {
            let mut s = String::new();
            for _ in 0..(x % 12) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                s.push_str(alphabet[(x % alphabet.len() as u64) as usize]);
            }
            let _ = eval(&s, x.is_multiple_of(2));
        }
        assert!(is_expression(" (1)") && !is_expression("1+1"));
    }
}
