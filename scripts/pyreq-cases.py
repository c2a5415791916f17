#!/usr/bin/python3
"""Print tests/unit/t_pyreq_pep440.c: PEP 440 cases with packaging's answers.

The unit test must not need packaging when it runs, so the answers are
written into the test; run this again (with python3-packaging) after
adding a case:  scripts/pyreq-cases.py >tests/unit/t_pyreq_pep440.c
"""
import sys

import packaging
from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

SPECS = [
    "", "==1.0", "==1.0+local", "==1.0+LOCAL", "==1.0+other", "!=1.0", "!=1.0+local",
    "==1.0.*", "==1.*", "!=1.0.*", "==1.0.0", "==v1.0", "==1!1.0", "==1!1.*",
    "<2.0", "<2.0a1", "<2.0.dev1", "<=2.0", "<=2.0a1",
    ">1.0", ">1.0.post1", ">1.0a1", ">1.0.dev1", ">=1.0", ">=1.0a1", ">=1.0+local",
    "~=1", "~=1.0", "~=1.4.5", "~=1.4.5a4", "~=2.2.post3", "~=1.0.*", "~=1!1.0", "~=1.0+x",
    "<1.0.*", ">=1.*", "===1.0", "===1.0.0", "===v1.0", "===1.0+local",
    ">=1.0,<2.0", ">1.0,!=1.5", ">=1,,<2", ">=1,", "~=1.0,!=1.1.*",
    "=>1.0", "=1.0", ">=x", "<=1.0.", "==1.0a", "==1.0.post", "==1.0-1",
]
VERSIONS = [
    "1.0", "1.0.0", "v1.0", "1.0+local", "1.0+LOCAL", "1.0+local.7", "1.0a1", "1.0a1+x",
    "1.0.dev1", "1.0.post1", "1.0.post1+x", "1.0-1", "1.0rc1", "1.0c1", "1.1", "1.4.6",
    "1.5", "2.0", "2.0a1", "2.0.dev1", "2.0.post1", "2.0+local", "2.2.post4", "1!1.0", "1!1.5",
    "0.9", "1.0a.", "1.0a", "1.0.post", "1.0-", "1.0+", "1.0+a..b", "banana", "",
]
CMPS = [
    ("1.0", "1.0.0"), ("1.0+local", "1.0"), ("1.0+a", "1.0+b"), ("1.0+1", "1.0+a"),
    ("1.0+a.1", "1.0+a"), ("1.0+A-1", "1.0+a.1"), ("1.0+01", "1.0+1"), ("1.0+9", "1.0+10"),
    ("1.0a1", "1.0"), ("1.0.dev1", "1.0a1"), ("1.0a1.dev1", "1.0a1"), ("1.0.post1.dev1", "1.0.post1"),
    ("1.0.post1", "1.0"), ("1.0-1", "1.0.post1"), ("1!0.1", "99"), ("V1.0RC2", "1.0rc1"),
    ("1.0a.", "1.0a0"), ("1.0c1", "1.0rc1"), ("1.0", "1.0.post1.dev1"), ("1.0.dev1", "1.0"),
    ("1.0-", "1.0"), ("1.0+", "1.0"), ("banana", "1.0"),
]


def contains(spec, version):
    try:
        s = SpecifierSet(spec)
    except InvalidSpecifier:
        return -1
    try:
        v = Version(version)
    except InvalidVersion:
        return -1
    return int(s.contains(v, prereleases=True))


def cmp(a, b):
    try:
        va, vb = Version(a), Version(b)
    except InvalidVersion:
        return "PYVER_UNKNOWN"
    return (va > vb) - (va < vb)


def c(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def main():
    w = sys.stdout.write
    w("/* Written by scripts/pyreq-cases.py from packaging %s; run it again to add cases. */\n"
      % packaging.__version__)
    w('#include "../../src/formats/pyreq.h"\n#include "t.h"\n\n')
    w("static const struct { const char *spec, *version; int want; } matches[] = {\n")
    for spec in SPECS:
        for v in VERSIONS:
            w("\t{ %s, %s, %d },\n" % (c(spec), c(v), contains(spec, v)))
    w("};\n\nstatic const struct { const char *a, *b; int want; } orders[] = {\n")
    for a, b in CMPS:
        w("\t{ %s, %s, %s },\n" % (c(a), c(b), cmp(a, b)))
    w("};\n\n")
    w("""/* Whether a version meets a specifier set as packaging says (pre-releases admitted: installed). */
void
t_pyreq_pep440(void)
{
	for (size_t i = 0; i < sizeof(matches) / sizeof(matches[0]); i++) {
		int got = pyspec_match(matches[i].spec, matches[i].version);

		t_checks++;
		if (got != matches[i].want) {
			t_failures++;
			fprintf(stderr, "pyspec_match('%s', '%s') = %d, packaging says %d\\n",
				matches[i].spec, matches[i].version, got, matches[i].want);
		}
	}
	for (size_t i = 0; i < sizeof(orders) / sizeof(orders[0]); i++) {
		int got = pyver_cmp(orders[i].a, orders[i].b);

		t_checks++;
		if (got != orders[i].want) {
			t_failures++;
			fprintf(stderr, "pyver_cmp('%s', '%s') = %d, packaging says %d\\n",
				orders[i].a, orders[i].b, got, orders[i].want);
		}
	}
}
""")


main()
