import { EvaluationError } from '@marcbachmann/cel-js';

/**
 * The error a Kubernetes library function reports at evaluation. Its
 * `summary` is kube's text word for word (cel-js may append the source
 * excerpt to `message` once the error reaches an AST node), so callers that
 * print kube's messages read `summary`.
 */
export function libraryError(message: string): EvaluationError {
  return new EvaluationError({ code: 'kubernetes_library_error', message });
}

