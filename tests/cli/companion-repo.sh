# scripts/companion-repo.sh (issue 40 E5): a release tarball becomes a tagged
# repository with every file it ships, its own .gitignore notwithstanding,
# and a tarball that carries git metadata (hooks, core.fsmonitor that git
# would run during the commit) is refused before anything runs.
. "$(dirname "$0")/lib.sh"
d="$TMP/comp88"
rm -rf "$d"
mkdir -p "$d/pkg-1.0/sub"
printf 'sub/\n*.so\n' >"$d/pkg-1.0/.gitignore"
echo x >"$d/pkg-1.0/sub/f.py"
echo y >"$d/pkg-1.0/prebuilt.so"
echo 'from setuptools import setup' >"$d/pkg-1.0/setup.py"
(cd "$d" && tar -czf ok.tar.gz pkg-1.0)
run 0 sh scripts/companion-repo.sh "$d/ok.tar.gz" "$d/ok.git" v1.0
contains "$TMP/out" "$d/ok.git: v1.0 at "
git --git-dir="$d/ok.git" ls-tree -r --name-only v1.0 >"$d/files"
for f in .gitignore prebuilt.so setup.py sub/f.py; do
	grep -qx "$f" "$d/files" || fail "'$f' was dropped from the commit: $(cat "$d/files")"
done
pass
# A tarball with a .git whose config would run a command on 'git add'.
mkdir -p "$d/pkg-1.0/.git"
printf '[core]\n\tfsmonitor = touch %s/pwned\n' "$d" >"$d/pkg-1.0/.git/config"
(cd "$d" && tar -czf bad.tar.gz pkg-1.0)
run 2 sh scripts/companion-repo.sh "$d/bad.tar.gz" "$d/bad.git" v1.0
contains "$TMP/err" "holds git metadata (a .git entry); a release tarball has none"
if [ -e "$d/pwned" ] || [ -e "$d/bad.git" ]; then fail "the tarball's git metadata ran or a repository was made"; fi
pass
