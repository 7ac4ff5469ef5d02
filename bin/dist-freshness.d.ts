// Types of dist-freshness.js (plain JavaScript, so that bin/qbft-lab.js can run it before tsx).
export declare const SOURCE_DIRS: readonly string[];
export declare const SOURCE_FILES: readonly string[];
export declare const BUILD_CONFIG_FILES: readonly string[];
export declare const DIST_DIR: string;
export declare const STAMP_FILE: string;
export interface SourceSnapshot {
  newestSourceMtime: string;
  fileCount: number;
  /** One "path size mtimeMs" line per compiled source and build config. */
  sources: string[];
}
export declare function sourceSnapshot(rootDir: string): SourceSnapshot;
export declare function sameSources(a: SourceSnapshot | undefined, b: SourceSnapshot | undefined): boolean;
export declare function readStamp(outDir: string): (SourceSnapshot & { builtAt: string }) | undefined;
export declare function distIsFresh(rootDir: string): boolean;
