// Preloaded by `npm run bench` (test/bench-goals.ts) into each qbft-lab process it measures:
// prints the process's peak resident set size (KiB) on stderr when it exits.
process.on('exit', () => {
  process.stderr.write(`qbft-lab-peak-rss-kib ${process.resourceUsage().maxRSS}\n`);
});
