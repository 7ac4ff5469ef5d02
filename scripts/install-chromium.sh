#!/usr/bin/env bash
# Run by `npm run test:e2e` (its pretest step) and by `npm run screenshots`.
# Installs Debian's chromium (and a font) for the browser tests of the HTML reports
# (reports/html.browser.test.ts) and for `npm run screenshots`. Idempotent: when
# /usr/bin/chromium already runs it only prints its version. Needs root or password-less sudo;
# without either it fails loudly, and so then does the browser test.
set -euo pipefail

# (Debian's wrapper script prints a harmless shell warning on stderr: hidden.)
if [ -x /usr/bin/chromium ] && /usr/bin/chromium --version >/dev/null 2>&1; then
  /usr/bin/chromium --version 2>/dev/null
  exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  as_root=(sudo -n)
else
  echo "install-chromium: /usr/bin/chromium is missing and this user can neither be root nor use sudo -n." >&2
  echo "install-chromium: the browser tests need it; run this once, then npm test again:" >&2
  echo "  sudo apt-get install -y --no-install-recommends chromium fonts-dejavu-core" >&2
  exit 1
fi

echo "install-chromium: /usr/bin/chromium is missing; installing Debian's chromium and fonts-dejavu-core with apt-get" >&2
echo "install-chromium: (for the browser test of the HTML report and for 'npm run screenshots'; about 100 MB, a minute or two)" >&2
export DEBIAN_FRONTEND=noninteractive
apt_opts=(-o DPkg::Lock::Timeout=300 -o Acquire::Retries=3)
"${as_root[@]}" apt-get "${apt_opts[@]}" update -qq
"${as_root[@]}" apt-get "${apt_opts[@]}" install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null
/usr/bin/chromium --version 2>/dev/null
