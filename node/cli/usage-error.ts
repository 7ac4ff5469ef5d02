/** A problem with what the user typed: printed without a stack trace, exit code 2. */
export class UsageError extends Error {
  readonly exitCode = 2;
}
