/**
 * Where the server's messages go. Embedders pass their own; `capstan serve`
 * writes to stderr. Verbosity follows klog's -v: `v(n)` is true when
 * messages of that level are wanted.
 */
export interface Logger {
  info(message: string): void;
  /** klog's Warning level; loggers without it drop warnings. */
  warning?(message: string): void;
  error(message: string): void;
  v(level: number): boolean;
}

export function stderrLogger(verbosity = 0): Logger {
  return {
    info: (message) => process.stderr.write(`I ${new Date().toISOString()} ${message}\n`),
    warning: (message) => process.stderr.write(`W ${new Date().toISOString()} ${message}\n`),
    error: (message) => process.stderr.write(`E ${new Date().toISOString()} ${message}\n`),
    v: (level) => verbosity >= level,
  };
}
